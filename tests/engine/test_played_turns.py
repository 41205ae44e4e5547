"""``Game.play`` (a known turn played again from the state's memo, as the Gymnasium env steps) leaves the
game exactly as ``Game.step`` does: the same observations, goals, "it", turn, done and undo."""

from __future__ import annotations

import random

import pytest

from conftest import TEST_WORLDS, WORLDS
from tui_adventure.instances import packaged
from tui_adventure.engine.game import _PLAYED, Game
from tui_adventure.engine.loading.loader import load_world, load_world_text
from tui_adventure.engine.planning.planner import Planner
from tui_adventure.generate import Knobs, generate_world

ODD = ["take it", "drop it", "examine it", "open it", "take all", "drop all", "take", "xyzzy", "look", "inventory",
       "take the", "done", "EXAMINE It", "  north  ", "put it in it"]


def _worlds():
    made = generate_world(Knobs(rooms=6, objects=12, goals=2), 1)
    yield "generated", lambda: load_world_text(made.text, "<generated>"), None
    yield "house", lambda: load_world(WORLDS / "house.yaml"), WORLDS / "solutions" / "house.txt"
    yield "manor", lambda: load_world(WORLDS / "manor.yaml"), WORLDS / "solutions" / "manor.txt"
    yield "candle", lambda: load_world(TEST_WORLDS / "candle.yaml"), None   # actions of its own
    yield "clembench", lambda: packaged.world(packaged.names()[0]), None    # another parser: never remembered


def _same(a: Game, b: Game) -> None:
    assert a.state == b.state
    assert (a.turn, a.last, a.pending, a.achieved, a._achieved_text, a.finished, a.commands) == \
           (b.turn, b.last, b.pending, b.achieved, b._achieved_text, b.finished, b.commands)


@pytest.mark.parametrize("name,make,solution", list(_worlds()), ids=lambda x: x if isinstance(x, str) else "")
def test_a_played_turn_is_the_stepped_turn(name, make, solution):
    world = make()
    planner = Planner(world)
    rng = random.Random(3)
    scripts = []
    if solution is not None:   # the winning step, once from fresh memos and once from known turns
        scripts += [[c.strip() for c in solution.read_text().splitlines() if c.strip()]] * 2
    for episode in range(40):
        if episode % 2 == 0 or not scripts:   # walks repeat, so most turns of the later ones are known
            scripts.append(None)
        else:
            scripts.append(scripts[-1])
    replayed = 0
    for script in scripts:
        stepped, played = Game(world), Game(world)
        commands = list(script) if script is not None else []
        for t in range(len(commands) if script is not None else 40):
            if script is None:
                options = planner.admissible_commands(stepped.state)
                command = rng.choice(options + ODD[:3]) if rng.random() < 0.85 else rng.choice(ODD)
                commands.append(command)
            command = commands[t]
            result = stepped.step(command)
            known = played.pending is None and (_PLAYED, command) in played.state.cache
            rec = played.play(command)
            replayed += known
            assert str(rec.text) == result.observation
            assert rec.done == result.done
            assert rec.goal_score == result.goal_score
            assert rec.ended == (result.fail is None and result.action == "done")
            _same(stepped, played)
        if script is None:
            scripts[scripts.index(None)] = commands
        n = rng.randint(1, 5)   # undo goes back through known turns as through stepped ones
        assert stepped.undo(n) == played.undo(n)
        _same(stepped, played)
    if name != "clembench":
        assert replayed > 100   # the known turns were played, not only stepped
