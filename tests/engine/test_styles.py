"""Written interfaces of the engine: every style implements the whole Style protocol, exits have
one shape in every style, and a world's one parser keeps no game's state."""

import typing

import pytest

from tui_adventure.catalog import open_world
from tui_adventure.engine.game import Game
from tui_adventure.engine.styles import Exit, Style

WORLDS = ["house", "clembench/home_deliver_three_basic_easy/0"]


def members(protocol) -> set[str]:
    names = {n for n in vars(protocol) if not n.startswith("_")}
    return names | set(typing.get_type_hints(protocol))


@pytest.mark.parametrize("name", WORLDS)
def test_every_style_implements_the_whole_protocol(name):
    world = open_world(name)   # a style is of use while its world is (engine/parts.py)
    style = world.style
    missing = [m for m in members(Style) if not hasattr(style, m)]
    assert missing == []
    assert style.heuristic(world.goals) is not None


@pytest.mark.parametrize("name, first", [("house", Exit("north", "kitchen", None)),
                                         ("clembench/home_deliver_three_basic_easy/0", Exit(None, "hallway1", None))])
def test_exits_have_one_shape(name, first):
    world = open_world(name)
    game = Game(world)
    exits = world.style.exits(game.state, world.style.player_room(game.state))
    assert all(isinstance(e, Exit) for e in exits) and first in exits


def test_two_games_of_one_world_keep_their_own_it():
    world = open_world("house")
    a, b = Game(world), Game(world)
    assert a.parser is b.parser
    a.step("take umbrella stand")            # a: "it" is the umbrella stand (too heavy, but named)
    b.step("up")
    assert "I'm not sure what 'it' refers to" in b.step("take it").observation
    assert "umbrella" in a.step("examine it").observation.lower()
