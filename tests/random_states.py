"""Five worlds of different rules and the states a random agent meets in them: what the tests of the
planner's shortcuts hold equal to the plain definitions."""

from __future__ import annotations

import random

from conftest import TEST_WORLDS, WORLDS
from tui_adventure.instances import packaged
from tui_adventure.engine.game import Game
from tui_adventure.engine.loading.loader import load_world, load_world_text
from tui_adventure.engine.planning.planner import Planner
from tui_adventure.generate import Knobs, generate_world


def five_worlds():
    made = generate_world(Knobs(rooms=6, objects=12, goals=2), 1)
    yield "generated", load_world_text(made.text, "<generated>")
    yield "house", load_world(WORLDS / "house.yaml")
    yield "manor", load_world(WORLDS / "manor.yaml")
    yield "candle", load_world(TEST_WORLDS / "candle.yaml")   # a world with actions of its own
    yield "clembench", packaged.world(packaged.names()[0])   # the clembench style's own command texts


def walk(world, count: int, seed: int) -> list:
    """Distinct states a random agent meets (a planner of its own picks the moves: its memo is not the one
    under test)."""
    planner = Planner(world)
    rng = random.Random(seed)
    seen: dict = {}
    while len(seen) < count:
        game = Game(world)
        for _ in range(60):
            seen.setdefault(game.state.facts, game.state)
            commands = planner.admissible_commands(game.state)
            if game.step(rng.choice(commands)).done:
                break
    return list(seen.values())
