"""Lifetimes: a world's parts work as long as they are held; what the env draws it frees itself.

A trainer that draws a world each episode (``generate=``) gets each one's
memory back at the next reset: the env closes the world it drew
(``World.close``), not left for Python's cyclic collector. These tests play
with the collector off, in a Python of their own (in a test run, what other
tests left can reach the collector meanwhile), and check that what was let
go is gone and nothing of it is left in a cycle.
"""

import gc
import json
import subprocess
import sys
import weakref

import pytest

from tui_adventure.catalog import open_world

# its module fixture is costly (a process playing every world): one worker makes it once for every test here
pytestmark = pytest.mark.xdist_group("world_freed")

CHILD = r"""
import gc, json, random, sys, weakref
from collections import Counter
from tui_adventure.envs.env import AdventureEnv
from tui_adventure.catalog import open_world
from tui_adventure.engine.facts import State
from tui_adventure.engine.game import Game
from tui_adventure.engine.metrics import ProgressTracker
from tui_adventure.engine.planning import Planner
from tui_adventure.engine.rules.logic import Memo
from tui_adventure.engine.rules.ruleset import Action
from tui_adventure.engine.text import Later
from tui_adventure.engine.world import Entity, World

def left_in_cycles():
    gc.set_debug(gc.DEBUG_SAVEALL)
    gc.collect()
    parts = (World, Action, State, Later, Entity, Memo)
    out = dict(Counter(type(o).__name__ for o in gc.garbage if isinstance(o, parts)))
    gc.set_debug(0)
    gc.garbage.clear()
    return out

out = {}
gc.collect()
gc.disable()
# a generated world per episode, commands of every kind (moves back and forth, looks, takes: states met again),
# with the admissible commands alone and with the default infos (exact progress: a tracker and its planner)
for label, infos in (("generated", ("admissible_commands",)), ("generated, progress", None)):
    more = {} if infos is None else {"infos": infos}
    env = AdventureEnv(generate={"rooms": 6, "objects": 6, "goals": 1}, max_turns=30, **more)
    rng = random.Random(0)
    _, info = env.reset(seed=3)
    gone = []
    for _ in range(4):
        world = env.unwrapped.world
        refs = [weakref.ref(world), weakref.ref(world.style), weakref.ref(world.parser)]
        del world
        for _ in range(30):
            _, _, terminated, truncated, info = env.step(rng.choice(info["admissible_commands"]))
            if terminated or truncated:
                break
        _, info = env.reset()
        gone.append(all(r() is None for r in refs))
    env.close()
    del env
    out[label] = {"freed": all(gone), "left": left_in_cycles()}
# a long walk on one world (a trainer's run): nothing for the collector, with the memos emptied on the way too
walks = []
for limit in (None, 300):
    env = AdventureEnv(world="house", infos=("admissible_commands",), max_turns=100)
    _, info = env.reset(seed=1)
    if limit:   # past its limit a memo empties its older half (facts.empty_older): states met are let go
        world = env.unwrapped.world
        world.actions[0].memo.limit = world.parser.memo_limit = limit
        del world
    for _ in range(3000):
        _, _, terminated, truncated, info = env.step(rng.choice(info["admissible_commands"]))
        if terminated or truncated:
            _, info = env.reset()
    gc.set_debug(gc.DEBUG_SAVEALL)
    walks.append(gc.collect())
    gc.set_debug(0)
    gc.garbage.clear()
    del env
    gc.collect()   # a world let go (not one the env drew) is the collector's: the next walk starts clean
out["walk"] = walks
# a generated world the env drew last: let go at the env's close()
env = AdventureEnv(generate={"rooms": 4, "objects": 4, "goals": 1}, max_turns=10)
env.reset(seed=2)
env.step("look")
freed = weakref.ref(env.unwrapped.world)
env.close()
del env
out["closed"] = {"freed": freed() is None, "left": left_in_cycles()}
print(json.dumps(out))
"""

@pytest.fixture(scope="module")
def freed() -> dict:
    out = subprocess.run([sys.executable, "-c", CHILD], capture_output=True, text=True, timeout=300)
    assert out.returncode == 0 and out.stderr == "", out.stderr[-2000:]
    return json.loads(out.stdout)


@pytest.mark.slow
@pytest.mark.parametrize("infos", ["generated", "generated, progress"])
def test_a_generated_world_per_episode_is_freed_at_the_next_reset(freed, infos):
    assert freed[infos] == {"freed": True, "left": {}}


@pytest.mark.slow
def test_a_long_walk_on_one_world_leaves_nothing_for_the_collector(freed):
    # why a trainer may raise the collector's thresholds for a long run (docs/agents.md): nothing is lost
    assert freed["walk"] == [0, 0]


def test_a_generated_world_is_freed_when_the_env_closes(freed):
    assert freed["closed"] == {"freed": True, "left": {}}


def test_a_style_parser_or_action_kept_without_its_world_works():
    world = open_world("house")
    style, parser, action = world.style, world.parser, world.action_by_id["look"]
    initial = world.initial
    del world
    assert style.first_observation(initial) == open_world("house").style.first_observation(initial)
    parsed = parser.parse("look", initial)
    assert parsed.action is action
    new, message, fail = action.attempt(initial, {})
    assert fail is None and str(message)


@pytest.mark.slow
def test_worlds_alive_when_python_exits_leave_quietly():
    script = ("from tui_adventure.catalog import open_world\n"
              "from tui_adventure.engine.game import Game\n"
              "from tui_adventure.envs.env import AdventureEnv\n"
              "kept = [open_world('house'), open_world('clembench/home_deliver_three_basic_easy/0')]\n"
              "game = Game(kept[0]); game.step('go up')\n"
              "env = AdventureEnv(generate={'rooms': 4, 'objects': 4, 'goals': 1}, max_turns=10)\n"
              "env.reset(seed=1); env.step('look')\n")
    out = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, timeout=120)
    assert out.returncode == 0 and out.stderr == ""


@pytest.mark.parametrize("name", ["house", "labyrinth", "clembench/home_deliver_three_basic_easy/0"])
def test_a_world_let_go_unplayed_is_freed_at_once(name):
    # its parts hold what they read of it, not the world, and no style keeps tables of its own methods:
    # nothing it holds names it back, so reference counts free it (the collector need not run)
    gc.collect()
    gc.disable()
    try:
        world = open_world(name)
        freed = weakref.ref(world)
        style = world.style
        del world
        assert freed() is None
    finally:
        gc.enable()
    assert style.first_observation(style.initial)
