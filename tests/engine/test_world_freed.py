"""A world let go is freed at once, not left to Python's collector (engine/parts.py).

A trainer that draws a world each episode lets one go per reset; held in a
reference cycle, each waited for the collector with a few hundred compiled
parts, and the collector took a fifth to a third of such a run. These tests
play worlds with the collector off and check that what was let go is gone.
"""

import gc
import random
import subprocess
import sys
import weakref
from collections import Counter

import pytest

from tui_adventure.agents.env import AdventureEnv
from tui_adventure.catalog import open_world
from tui_adventure.engine.facts import State
from tui_adventure.engine.game import Game
from tui_adventure.engine.parts import StylePart, WorldPart
from tui_adventure.engine.rules.logic import Memo
from tui_adventure.engine.rules.ruleset import Action
from tui_adventure.engine.text import Later
from tui_adventure.engine.world import Entity, World

pytestmark = pytest.mark.filterwarnings("error::pytest.PytestUnraisableExceptionWarning")   # a failing __del__


@pytest.fixture
def no_collector():
    gc.collect()
    gc.disable()
    try:
        yield
    finally:
        gc.enable()


def left_in_cycles() -> dict:
    """The world parts the collector would have to free, by kind (other garbage is not the worlds':
    a test run before may leave a cache to be emptied while these run)."""
    gc.set_debug(gc.DEBUG_SAVEALL)
    try:
        gc.collect()
        parts = (World, Action, State, Later, Entity, Memo, StylePart, WorldPart)
        return dict(Counter(type(o).__name__ for o in gc.garbage if isinstance(o, parts)))
    finally:
        gc.set_debug(0)
        gc.garbage.clear()


def test_a_generated_world_per_episode_is_freed_at_the_next_reset(no_collector):
    env = AdventureEnv(generate={"rooms": 6, "objects": 6, "goals": 1}, infos=("admissible_commands",),
                       max_turns=30)
    rng = random.Random(0)
    _, info = env.reset(seed=3)
    gone = []
    for _ in range(4):
        world = weakref.ref(env.unwrapped.world)
        style, parser = weakref.ref(env.unwrapped.world.style), weakref.ref(env.unwrapped.world.parser)
        for _ in range(30):   # commands of every kind: moves back and forth, looks, takes (states met again)
            _, _, terminated, truncated, info = env.step(rng.choice(info["admissible_commands"]))
            if terminated or truncated:
                break
        _, info = env.reset()
        gone.append([world() is None, style() is None, parser() is None])
    assert gone == [[True] * 3] * 4
    assert left_in_cycles() == {}   # nothing of theirs (actions, states, messages) left in a cycle either


@pytest.mark.parametrize("name, commands", [
    ("house", ["go up", "look", "go north", "take all", "go south", "inventory", "examine it"]),
    ("clembench/home_deliver_three_basic_easy/0", ["look", "go to hallway", "take apple", "go to kitchen"]),
])
def test_a_played_world_dropped_is_freed(no_collector, name, commands):
    world = open_world(name)
    game = Game(world)
    for command in commands:
        game.step(command)
    freed = weakref.ref(world)
    del world, game
    assert freed() is None and left_in_cycles() == {}


def test_a_style_kept_without_its_world_says_so():
    style = open_world("house").style
    with pytest.raises(ReferenceError, match="keep the World"):
        style.first_observation(None)


def test_worlds_alive_when_python_exits_leave_quietly():
    script = ("from tui_adventure.catalog import open_world\n"
              "from tui_adventure.engine.game import Game\n"
              "from tui_adventure.agents.env import AdventureEnv\n"
              "kept = [open_world('house'), open_world('clembench/home_deliver_three_basic_easy/0')]\n"
              "game = Game(kept[0]); game.step('go up')\n"
              "env = AdventureEnv(generate={'rooms': 4, 'objects': 4, 'goals': 1}, max_turns=10)\n"
              "env.reset(seed=1); env.step('look')\n")
    out = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, timeout=120)
    assert out.returncode == 0 and out.stderr == ""
