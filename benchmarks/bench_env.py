"""Steps per second through the Gymnasium environment against the bare engine, side by side.

    python benchmarks/bench_env.py [--world house] [--rounds 5]

The same command sequence (the world's optimal plan, then looking around,
repeated) is played on ``Game.step`` and on ``AdventureEnv.step``, in
alternating rounds in one process (a busy machine moves both alike). The
environment is measured with no info (``infos=()``, what a training loop
that reads only observations and rewards pays), with the cheap infos, and
with everything (admissible commands and exact progress: a planner search).
"""

from __future__ import annotations

import argparse
import time

from tui_adventure.envs.env import AdventureEnv
from tui_adventure.catalog import open_world
from tui_adventure.engine.game import Game
from tui_adventure.engine.planning import Planner


def commands_for(world) -> list[str]:
    plan = Planner(world).solve().commands
    return plan + ["look", "inventory", "examine " + plan[0].split()[-1]]


def bare(world, commands, episodes: int) -> float:
    t = time.process_time()
    n = 0
    for _ in range(episodes):
        game = Game(world)
        for c in commands:
            game.step(c)
            n += 1
    return n / (time.process_time() - t)


def through_env(env, commands, episodes: int) -> float:
    t = time.process_time()
    n = 0
    for _ in range(episodes):
        env.reset()
        for c in commands:
            _, _, terminated, truncated, _ = env.step(c)
            n += 1
            if terminated or truncated:
                break
    return n / (time.process_time() - t)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n", 1)[0])
    ap.add_argument("--world", default="house")
    ap.add_argument("--rounds", type=int, default=5)
    ap.add_argument("--episodes", type=int, default=200)
    args = ap.parse_args()
    world = open_world(args.world)
    commands = commands_for(world)
    envs = {"env, no info": AdventureEnv(world=world, infos=()),
            "env, cheap info": AdventureEnv(world=world, infos=("goals", "goals_achieved", "goal_score", "turn",
                                                                "max_turns", "par")),
            "env, every info": AdventureEnv(world=world)}
    figures: dict[str, list[float]] = {"bare engine": [], **{k: [] for k in envs}}
    for _ in range(args.rounds):
        figures["bare engine"].append(bare(world, commands, args.episodes))
        for name, env in envs.items():
            figures[name].append(through_env(env, commands, args.episodes if "every" not in name else 5))
    base = max(figures["bare engine"])
    print(f"{args.world}: {len(commands)} commands an episode, best of {args.rounds} rounds (CPU time)")
    for name, values in figures.items():
        best = max(values)
        print(f"  {name:16} {best:>10,.0f} steps/s  {best / base:6.0%} of the bare engine")


if __name__ == "__main__":
    main()
