"""Worlds built on what earlier worlds of their ruleset left compiled (the definitions known to compile,
shared rule functions, the parser's patterns, messages bound when first rendered) play exactly as worlds built in a
fresh process: the same observations, admissible commands and par; and a rule error is still reported at
load, with its place in the file."""

from __future__ import annotations

import json
import random
import subprocess
import sys

import pytest

from conftest import ROOT, TEST_WORLDS
from tui_adventure.engine.game import Game
from tui_adventure.engine.loading.loader import load_world, load_world_data
from tui_adventure.engine.parsers.patterns import layout_of
from tui_adventure.engine.planning import Planner
from tui_adventure.engine.styles.classic import DIRECTIONS
from tui_adventure.engine.yamlpos import SourceErrors, load_yaml
from tui_adventure.generate import Knobs, generated_world

KNOBS = dict(rooms=6, objects=12, goals=2)
SEEDS = (3, 11, 2024)
STEPS = 40

# Plays a world in a process of its own, where nothing was compiled before it: the reference.
COLD = """
import json, random, sys
from tui_adventure.engine.game import Game
from tui_adventure.engine.loading.loader import load_world
from tui_adventure.engine.parsers.patterns import layout_of
from tui_adventure.engine.planning import Planner
from tui_adventure.generate import Knobs, generated_world
kind, what, seed, steps = sys.argv[1], sys.argv[2], int(sys.argv[3]), int(sys.argv[4])
world = generated_world(Knobs(**json.loads(what)), seed, solve=False) if kind == "generated" else load_world(what)
planner = Planner(world)
game = Game(world)
rng = random.Random(seed)
seen = [game.first_observation()]
used = {"done"}   # a command not tried yet first, "done" last: a walk that reaches the world's own actions
for _ in range(steps):
    commands = planner.admissible_commands(game.state)
    command = rng.choice([c for c in commands if c not in used] or commands)
    used.add(command)
    result = game.step(command)
    seen.append([commands, command, result.observation, result.done])
    if result.done:
        break
print(json.dumps({"seen": seen, "par": Planner(world).solve().par}))
"""


def cold(kind: str, what: str, seed: int) -> dict:
    out = subprocess.run([sys.executable, "-c", COLD, kind, what, str(seed), str(STEPS)], capture_output=True,
                         text=True, check=True, cwd=ROOT)
    return json.loads(out.stdout)


def replayed(world, reference: dict) -> dict:
    """The reference's commands played first (each action compiled, if lazily, when the step tries it),
    then the admissible commands of the states met and par."""
    game = Game(world)
    seen = [game.first_observation()]
    states = []
    for _commands, command, _obs, _done in reference["seen"][1:]:
        states.append(game.state)
        result = game.step(command)
        seen.append([None, command, result.observation, result.done])
    planner = Planner(world)
    for row, st in zip(seen[1:], states):
        row[0] = planner.admissible_commands(st)
    return {"seen": seen, "par": Planner(world).solve().par}


def warm_up(make) -> None:
    """Worlds of the same ruleset built and played before: the caches the world under test reads."""
    for seed in (101, 102):
        game = Game(make(seed))
        rng = random.Random(seed)
        for _ in range(15):
            game.step(rng.choice(["north", "south", "east", "west", "look", "take all", "open door", "i"]))


@pytest.mark.slow
def test_generated_worlds_built_on_shared_rules_play_as_cold_ones():
    warm_up(lambda seed: generated_world(Knobs(**KNOBS), seed, solve=False))
    for seed in SEEDS:
        reference = cold("generated", json.dumps(KNOBS), seed)
        world = generated_world(Knobs(**KNOBS), seed, solve=False)
        assert world.lazy
        assert replayed(world, reference) == reference, seed


@pytest.mark.slow
def test_a_world_with_its_own_actions_built_lazily_plays_as_a_cold_one():
    path = TEST_WORLDS / "candle.yaml"
    reference = cold("file", str(path), 5)
    assert any(row[1].startswith("light") for row in reference["seen"][1:])   # its own action was played
    text = path.read_text(encoding="utf-8")
    load_world(path)   # its definitions compiled once, in this process
    for lazy in (False, True):
        world = load_world_data(load_yaml(text, str(path)), str(path), lazy=lazy)
        assert replayed(world, reference) == reference, lazy


def test_a_rule_error_is_reported_at_load_after_good_worlds_of_the_ruleset():
    """A world's own action that cannot compile is refused at load, lazily built or not, with its line and
    column, however many worlds of the ruleset (and of an action of the same id) compiled before."""
    good = (TEST_WORLDS / "candle.yaml").read_text(encoding="utf-8")
    load_world_data(load_yaml(good, "good.yaml"), "good.yaml", lazy=True)
    bad = good.replace('success: "{The obj} flickers into light."', 'success: "{shout(obj)} flickers."')
    assert bad != good
    for lazy in (False, True):
        with pytest.raises(SourceErrors) as err:
            load_world_data(load_yaml(bad, "bad.yaml"), "bad.yaml", lazy=lazy)
        assert "bad.yaml:28:5: action 'light': unknown text function shout()" in str(err.value)


def test_commands_of_one_word_read_once_per_layout_are_each_worlds_own():
    """A world takes its commands of one word (north, look) from an earlier world that reads them alike
    (the same patterns, directions and passages): the same actions of its own, the same slots, as its
    own reading of them gives; a world with a passage (manor's ladder) reads it as its own."""
    worlds = [generated_world(Knobs(**KNOBS), seed, solve=False) for seed in (1, 2, 3)]
    worlds += [load_world(ROOT / "worlds" / f"{name}.yaml") for name in ("house", "manor", "house", "manor")]
    for world in worlds:
        p = world.parser
        own = p._read_once(set(p.by_first) | set(DIRECTIONS) | set(world.style.passages), layout_of(world.actions, world.compiler.tables))
        assert p.once == own
        assert all(action is world.action_by_id[action.id] for action, _env in p.once.values())
    manor = worlds[-1]
    assert manor.parser.once["ladder"][1] == {"dir": "ladder"} and "ladder" not in worlds[0].parser.once
