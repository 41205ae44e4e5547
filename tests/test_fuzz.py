"""Fuzzing Game.step: no input whatsoever may raise; every step answers with an observation.

About 12,000 examples in all, spread over the strategies below, in well under
30 seconds: each example is a fresh Game (cheap: the World is shared) on one of
the repository's worlds, walked a few vocabulary commands into the game first
so that inputs also land in later states (a box open, a key held, a pending
"Which do you mean ...?").
"""

from __future__ import annotations

from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from tui_adventure.engine.game import Game, StepResult
from tui_adventure.engine.loader import load_world

ROOT = Path(__file__).resolve().parent.parent
WORLD_FILES = [ROOT / "tests" / "worlds" / "mini.yaml"] + sorted((ROOT / "worlds").glob("*.yaml"))
WORLDS = [load_world(p) for p in WORLD_FILES]


def fuzz_settings(n: int):
    return settings(max_examples=n, deadline=None, database=None,
                    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])


# vocabulary -----------------------------------------------------------------------
def vocabulary(world) -> list[str]:
    words = set(world.parser.known_words)
    for ent in world.entities.values():
        words.update(ent.words())
        words.add(ent.id)
    return sorted(w for w in words if w)


VOCAB = sorted({w for world in WORLDS for w in vocabulary(world)})
COMMANDS = sorted({c for world in WORLDS for c in (
    ["look", "inventory", "take all", "drop all", "wait", "done", "it", "them", "n", "s", "e", "w", "u", "d"]
    + [f"{verb} {noun}" for verb in ("take", "drop", "open", "close", "eat", "x", "unlock", "lock", "go", "enter")
       for noun in sorted({e.name for e in world.entities.values() if e.name})[:25]]
    + ["put book on shelf", "put key in box", "unlock door with key", "take key from box", "red", "brass"])})
SEPARATORS = [" ", "  ", "\t", "\n", ",", ", ", ".", " . ", "!", "?", "\r\n", "\x00", "-", "'", "''"]

JUNK_CHARS = st.characters(codec=None, categories=None)       # every code point, surrogates included
junk = st.text(JUNK_CHARS, max_size=12)
controls = st.text(st.characters(max_codepoint=0x20) | st.sampled_from("\x7f\x85\u2028\u2029\ufeff\u200b"),
                   max_size=40)
words = st.lists(st.one_of(st.sampled_from(VOCAB), st.sampled_from(VOCAB).map(str.upper), junk,
                           st.sampled_from(["", "'", "-", "--", "''", "all", "it", "the", "with", "from", "on", "in"])),
                 min_size=0, max_size=10)


@st.composite
def vocab_mix(draw) -> str:
    parts = draw(words)
    out = []
    for p in parts:
        out.append(p)
        out.append(draw(st.sampled_from(SEPARATORS)))
    return "".join(out)


@st.composite
def long_line(draw) -> str:
    unit = draw(st.one_of(st.sampled_from(VOCAB + COMMANDS).map(lambda w: w + " "),
                          st.text(JUNK_CHARS, min_size=1, max_size=8)))
    size = draw(st.integers(50_000, 110_000))
    line = unit * (size // len(unit) + 1)
    head = draw(st.sampled_from(["", "take ", "put ", "x ", "go ", "unlock door with "]))
    return head + line[:size]


any_command = st.one_of(st.text(JUNK_CHARS, max_size=60), controls, vocab_mix(), st.sampled_from(COMMANDS))


# checking one step ------------------------------------------------------------------------
def fresh(world) -> Game:
    g = Game(world)
    g.parser.last = []     # the parser (and what "it" means) is shared by every Game of a world
    return g


def check_step(g: Game, command) -> StepResult:
    before, turn = g.state, g.turn
    achieved_before = len(g.achieved)
    r = g.step(command)
    assert isinstance(r, StepResult)
    assert isinstance(r.observation, str) and r.observation.strip(), f"no observation for {command!r}"
    assert g.turn == turn + 1
    assert r.command == (command if isinstance(command, str) else str(command))
    if r.fail is not None:
        assert r.fail["phase"] in ("parsing", "resolution") and isinstance(r.fail["type"], str)
        assert g.state == before, f"a failed command changed the state: {command!r}"
    assert r.changed == (g.state is not before)
    assert r.goal_score == len(g.achieved) - achieved_before
    return r


def run(world_index: int, prefix: list[str], command) -> None:
    g = fresh(WORLDS[world_index])
    for c in prefix:
        check_step(g, c)
    check_step(g, command)


world_index = st.integers(0, len(WORLDS) - 1)
prefixes = st.lists(st.sampled_from(COMMANDS), max_size=6)


@fuzz_settings(3000)
@given(w=world_index, prefix=prefixes, command=st.text(JUNK_CHARS, max_size=200))
def test_any_unicode_text(w, prefix, command):
    run(w, prefix, command)


@fuzz_settings(1500)
@given(w=world_index, prefix=prefixes, command=controls)
def test_control_characters_and_nul(w, prefix, command):
    run(w, prefix, command)


@fuzz_settings(3000)
@given(w=world_index, prefix=prefixes, command=vocab_mix())
def test_vocabulary_mixed_with_junk(w, prefix, command):
    run(w, prefix, command)


@fuzz_settings(300)
@given(w=world_index, prefix=prefixes, command=long_line())
def test_very_long_lines(w, prefix, command):
    assert len(command) >= 50_000
    run(w, prefix, command)


@fuzz_settings(400)
@given(w=world_index, prefix=prefixes,
       command=st.one_of(st.none(), st.booleans(), st.integers(), st.floats(), st.binary(max_size=20),
                         st.lists(st.text(max_size=5), max_size=3), st.dictionaries(st.text(max_size=3), st.integers(), max_size=2)))
def test_non_string_input(w, prefix, command):
    run(w, prefix, command)


@pytest.mark.parametrize("command", ["", " ", "\t", "\n", "\r\n", "\x00", "\x00" * 1000, " " * 100_000,
                                     "\u200b", "\ufeff", "...", "'", "-", "''--''", "the", "it", "all"])
@pytest.mark.parametrize("w", range(len(WORLDS)))
def test_empty_and_blank(w, command):
    run(w, [], command)
    run(w, ["take all"], command)


# sequences, then undo of all of them ---------------------------------------------------------
@fuzz_settings(1500)
@given(w=world_index, commands=st.lists(any_command, min_size=1, max_size=25))
def test_random_commands_then_undo_all_returns_to_start(w, commands):
    world = WORLDS[w]
    g = fresh(world)
    start = g.state.facts
    states = [g.state]
    for c in commands:
        check_step(g, c)
        states.append(g.state)
    # undo one turn at a time: every earlier state comes back exactly
    for back in range(len(commands), 0, -1):
        assert g.undo(1) == 1
        assert g.state.facts == states[back - 1].facts
    assert g.turn == 0 and g.commands == [] and g.pending is None and g.parser.last == []
    assert g.state.facts == start == world.initial.facts
    assert g.achieved == frozenset(x for x in world.goals if x.holds(world.initial))
    assert g.undo(1) == 0


@fuzz_settings(600)
@given(w=world_index, commands=st.lists(any_command, min_size=1, max_size=40))
def test_undo_all_at_once_then_replay_is_identical(w, commands):
    world = WORLDS[w]
    g = fresh(world)
    first = [g.step(c).observation for c in commands]
    assert g.undo(len(commands) + 5) == len(commands)
    assert g.state.facts == world.initial.facts and g.turn == 0
    assert [g.step(c).observation for c in commands] == first
