"""Memos shared between states that look the same (a trainer's random walk meets thousands of states and
far fewer sights): what they hand out is what the state's own reading gives."""

from __future__ import annotations

import random

import pytest

from random_states import five_worlds, walk
from tui_adventure.engine.parsers.parser import CommandParser, Failure, Parsed, Question

CLASSIC = [(name, world) for name, world in five_worlds() if name != "clembench"]   # its parser is another
COMMANDS = ["take it", "drop it", "examine it", "take all", "drop all", "take", "xyzzy", "put it in it", "open it",
            "take the", "north", "examine the box"]


def _outcome(got) -> tuple:
    if type(got) is Parsed:
        return "parsed", got.action.id, dict(got.env), got.all_slot
    if type(got) is Question:
        return "question", got.message, got.action.id, dict(got.env), got.slot, got.candidates, got.phrases
    assert type(got) is Failure
    return "failure", got.phase, got.type, got.message


@pytest.mark.parametrize("name,world", CLASSIC, ids=[n for n, _ in CLASSIC])
def test_a_parse_shared_by_what_is_in_sight_is_the_states_own(name, world):
    parser = world.parser
    assert type(parser) is CommandParser
    rng = random.Random(5)
    states = walk(world, 300, 11)
    things = sorted(world.style.scope(states[0]) | {x for s in states for x in world.style.scope(s)})
    shared = 0
    for st in states:
        world.style.scope(st)   # known, as a trainer's env has it: the parse is then shared by scope
        for text in rng.sample(COMMANDS, 6) + [f"take {world.name_of(x)}" for x in rng.sample(things, 3)]:
            last = rng.choice([[], [rng.choice(things)], [rng.choice(things), rng.choice(things)]])
            shared += (text, world.style.scope(st)) in parser._sighted
            got = parser.parse(text, st, last)
            assert _outcome(got) == _outcome(parser._parse(text, st, last)), (text, last)
    assert shared > 200   # the memo answered many of them


@pytest.mark.parametrize("name,world", CLASSIC, ids=[n for n, _ in CLASSIC])
def test_a_room_description_shared_by_what_it_reads_is_the_states_own(name, world):
    style = world.style
    states = walk(world, 400, 12)
    for st in states:
        assert style.room_description(st) == style._describe_room(st)
    assert len(style._descriptions) < len(states)   # states shared texts
