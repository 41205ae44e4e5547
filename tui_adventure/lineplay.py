"""Plain line-mode play: the stand-in for `adventure play` until the Textual app lands."""

from __future__ import annotations

import sys

from .engine.game import Game
from .engine.loader import load_world
from .engine.yamlpos import SourceErrors


def play(path: str) -> int:
    try:
        world = load_world(path)
    except SourceErrors as exc:
        print(exc, file=sys.stderr)
        return 1
    game = Game(world)
    print(f"{world.title}\n\n{game.first_observation()}")
    while True:
        try:
            line = input("\n> ")
        except (EOFError, KeyboardInterrupt):
            print()
            return 0
        if line.strip().lower() in ("quit", "exit"):
            return 0
        result = game.step(line)
        print(result.observation)
        if result.goal_score:
            print(f"[goal score {result.goal_score:+d}: {len(result.goals_achieved)}/{len(world.goals)} goals]")
        if result.done:
            print(f"[done after {game.turn} turns]")
            return 0
