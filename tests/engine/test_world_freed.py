"""A world let go is freed at once, not left to Python's collector (engine/parts.py).

A trainer that draws a world each episode lets one go per reset; held in a
reference cycle, each waited for the collector with a few hundred compiled
parts, and the collector took a fifth to a third of such a run. These tests
play worlds with the collector off, in a Python of their own (in a test
run, what other tests left can reach the collector meanwhile), and check
that what was let go is gone and nothing of it is left in a cycle.
"""

import ast
import json
import subprocess
import sys

import pytest
from conftest import ROOT

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
from tui_adventure.engine.parts import WorldPart
from tui_adventure.engine.planning import Planner
from tui_adventure.engine.rules.logic import Memo
from tui_adventure.engine.rules.ruleset import Action
from tui_adventure.engine.text import Later
from tui_adventure.engine.world import Entity, World

def left_in_cycles():
    gc.set_debug(gc.DEBUG_SAVEALL)
    gc.collect()
    parts = (World, Action, State, Later, Entity, Memo, WorldPart)
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
out["walk"] = walks
for name, commands in json.loads(sys.argv[1]).items():
    world = open_world(name)
    game = Game(world)
    tracker = ProgressTracker(world)   # exact progress, as the app's panel and the env's infos read it
    for command in commands:
        str(game.step(command).observation)
        tracker.progress(game.state)
    planner = Planner(world)   # a search from the start, and every action grounded where the game ended
    planner.solve()
    planner.admissible_commands_reference(game.state)
    freed = weakref.ref(world)
    del world, game, tracker, planner
    out[name] = {"freed": freed() is None, "left": left_in_cycles()}
# clembench's rules: the game master's feedback on a command that fails (upstream's failed precondition)
env = AdventureEnv(world="clembench/home_deliver_three_basic_easy/0", rules="clembench")
env.reset(seed=1)
for reply in ("> take apple", "> go to hallway", "> open apple", "> look"):
    env.step(reply)
freed = weakref.ref(env.unwrapped.world)
del env
out["clembench rules"] = {"freed": freed() is None, "left": left_in_cycles()}
print(json.dumps(out))
"""

PLAYED = {"house": ["go up", "look", "go north", "take all", "go south", "inventory", "examine it"],
          "clembench/home_deliver_three_basic_easy/0": ["look", "go to hallway", "take apple", "go to kitchen"],
          # a scene: two players' turns, the goblin's greeting and answer (its text functions), the weather
          "labyrinth": ["look", "talk to goblin", "take button", "ask goblin about lantern", "east", "inventory"],
          "manor": ["look", "take all"]}   # its search narrows moves to the goals' (goal_moves.narrowed)


@pytest.fixture(scope="module")
def freed() -> dict:
    out = subprocess.run([sys.executable, "-c", CHILD, json.dumps(PLAYED)], capture_output=True, text=True,
                         timeout=300)
    assert out.returncode == 0 and out.stderr == "", out.stderr[-2000:]   # a failing __del__ prints there
    return json.loads(out.stdout)


@pytest.mark.parametrize("infos", ["generated", "generated, progress"])
def test_a_generated_world_per_episode_is_freed_at_the_next_reset(freed, infos):
    assert freed[infos] == {"freed": True, "left": {}}


def test_a_long_walk_on_one_world_leaves_nothing_for_the_collector(freed):
    # why a trainer may raise the collector's thresholds for a long run (docs/agents.md): nothing is lost
    assert freed["walk"] == [0, 0]


@pytest.mark.parametrize("name", [*PLAYED, "clembench rules"])
def test_a_played_world_dropped_is_freed(freed, name):
    assert freed[name] == {"freed": True, "left": {}}


def test_a_style_kept_without_its_world_says_so():
    style = open_world("house").style
    with pytest.raises(ReferenceError, match="keep the World"):
        style.first_observation(None)


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


def test_no_closure_calls_itself_and_keeps_its_cell():
    # a nested function that calls itself is a cycle (its cell names it) holding what it read, a state
    # mostly, until the collector runs: each such call's, made per grounding or search; emptied with
    # `del` once done, it is freed at once (Action.ground)
    kept = []
    for path in (ROOT / "tui_adventure").rglob("*.py"):
        for outer in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if not isinstance(outer, (ast.FunctionDef, ast.AsyncFunctionDef)):
                continue
            deleted = {t.id for n in ast.walk(outer) if isinstance(n, ast.Delete)
                       for t in n.targets if isinstance(t, ast.Name)}
            for inner in ast.walk(outer):
                if inner is outer or not isinstance(inner, (ast.FunctionDef, ast.AsyncFunctionDef)):
                    continue
                calls_itself = any(isinstance(n, ast.Call) and isinstance(n.func, ast.Name)
                                   and n.func.id == inner.name for n in ast.walk(inner))
                if calls_itself and inner.name not in deleted:
                    kept.append(f"{path.name}:{inner.lineno} {outer.name}.<locals>.{inner.name}")
    assert not kept, kept
