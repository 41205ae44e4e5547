"""A step's result is made with only what a replay needs; the rest (``args``, ``goals_achieved``,
the defaults) is filled in when first read. Read late, after more steps, an undo or other games of
the same world, every field must be what it was when the step was taken."""

import copy
import pickle
import random
from pathlib import Path

import pytest

from tui_adventure.instances import packaged
from tui_adventure.engine.game import Game, StepResult
from tui_adventure.engine.loading.loader import load_world

ROOT = Path(__file__).resolve().parents[2]
FIELDS = ("command", "observation", "fail", "done", "goals_achieved", "goal_score", "changed", "action", "args",
          "scene", "lost")


def solution(name: str) -> list[str]:
    text = (ROOT / "worlds" / "solutions" / f"{name}.txt").read_text(encoding="utf-8")
    return [c.strip() for c in text.splitlines() if c.strip()]


def fields(r: StepResult) -> tuple:
    return tuple(copy.deepcopy(getattr(r, f)) for f in FIELDS)


def walks():
    for name in ("house", "manor", "tutorial"):
        yield name, lambda name=name: load_world(ROOT / "worlds" / f"{name}.yaml"), solution(name)
    yield "clembench", lambda: packaged.world(packaged.names()[0]), \
        ["look", "take pillow", "go hallway", "examine pillow", "go hallway", "open", "xyzzy"]


@pytest.mark.parametrize("name, load, commands", list(walks()), ids=lambda w: w if isinstance(w, str) else "")
def test_fields_read_late_are_the_fields_read_at_once(name, load, commands):
    """Two worlds loaded alike play alike (a memo hit gives the action's args without ``here``, a step
    that works the action out gives them with it): in one every result is read at once, in the other
    late, after more steps, other games and an undo."""
    rng = random.Random(name)
    commands = commands + [rng.choice(commands + ["take it", "drop it", "look", "wait", "done", "north", "take all"])
                           for _ in range(40)]
    one, other = load(), load()
    for _ in range(2):   # cold, then every memo warm
        now = Game(one)
        at_once = [fields(now.step(c)) for c in commands]
        late = Game(other)
        results = [late.step(c) for c in commands]
        Game(other).step(commands[0])   # another game of the same world in between
        late.undo(5)
        assert [fields(r) for r in results] == at_once


def test_a_result_read_late_is_its_own():
    world = load_world(ROOT / "worlds" / "house.yaml")
    a, b = Game(world), Game(world)
    ra, rb = a.step("up"), b.step("up")
    ra.args["dir"] = "down"
    ra.goals_achieved.append("nonsense")
    ra.scene.append("x")
    assert rb.args == {"dir": "up"} or rb.args == {"dir": "up", "here": "hallway"}
    assert rb.goals_achieved == [] and rb.scene == []
    assert ra.args["dir"] == "down" and ra.goals_achieved == ["nonsense"] and ra.scene == ["x"]
    assert "hallway" not in str(rb.observation).lower().split("\n")[0]   # the landing's text, unchanged
    assert a.step("north").goals_achieved == []


def test_a_result_behaves_as_one_made_in_full():
    world = load_world(ROOT / "worlds" / "house.yaml")
    game = Game(world)
    for command in solution("house"):
        r = game.step(command)
        full = StepResult(r.command, r.text, r.fail, r.done, list(r.goals_achieved), r.goal_score, r.changed,
                          r.action, dict(r.args), list(r.scene), r.lost)
        assert r == full and repr(r) == repr(full)
        assert r.observation   # rendered: a message not yet rendered holds the world's functions
        assert pickle.loads(pickle.dumps(r)) == r
        assert copy.copy(r) == r
    with pytest.raises(AttributeError):
        _ = r.nonsense
    assert r.done and r.goals_achieved == sorted(str(g) for g in world.goals)
