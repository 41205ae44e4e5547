"""Fuzzing Game.step: no input whatsoever may raise; every step answers with an observation.

About 13,000 examples in all (4,950 drawn by hypothesis, 8,000 seeded random
ones in one plain loop, where hypothesis' own cost per example would blow the
time budget; FUZZ_SCALE=10 multiplies both), in about 30 s of CPU. Each
single-input example is tried in every world of the repository
(tests/worlds/mini.yaml, worlds/*.yaml and one clembench adventuregame
instance), at a depth drawn along that world's solution, so inputs also land
in later states (a box open, a key held, a pending "Which do you mean ...?").
Those games are built once and reused: every fuzzed step is undone again,
which checks undo on every input as a side effect.
"""

from __future__ import annotations

import os
import random
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings, strategies as st

import clem_helpers
from tui_adventure.engine.game import Game, StepResult
from tui_adventure.catalog import open_world

from conftest import ROOT
MINI_SCRIPT = ["take book", "go east", "open box", "take key", "brass", "x it", "go west",
               "unlock door with it", "open door", "go north", "put book on shelf", "look"]


def _script(path: Path) -> list[str]:
    sol = path.parent / "solutions" / (path.stem + ".txt")
    if sol.is_file():
        return [line.strip() for line in sol.read_text(encoding="utf-8").splitlines() if line.strip()]
    return MINI_SCRIPT


WORLD_FILES = [ROOT / "tests" / "worlds" / "mini.yaml"] + sorted((ROOT / "worlds").glob("*.yaml"))
WORLDS = [open_world(str(p)) for p in WORLD_FILES]   # a clembench world file too
SCRIPTS = [_script(p) for p in WORLD_FILES]
EXTRA_COMMANDS: list[str] = []

# one clembench instance too (the adventuregame ruleset and its own parser), when the reference data is there
CLEM_WORLD = ("home_deliver_three_basic_hard_invlimittwo", 1)
if clem_helpers.INSTANCES.is_file():
    _traces = clem_helpers.traces()
    WORLDS.append(clem_helpers.world(*CLEM_WORLD))
    SCRIPTS.append(next(t["commands"] for t in _traces
                        if (t["experiment"], t["game_id"]) == CLEM_WORLD and t["kind"] == "optimal"))
    EXTRA_COMMANDS = sorted({c for t in _traces for c in t["commands"]})
DEPTHS = 8          # how many points along each script the fuzzed inputs are tried at


# FUZZ_SCALE=10 python -m pytest tests/test_fuzz.py: ten times the examples (a nightly run, say)
SCALE = float(os.environ.get("FUZZ_SCALE", "1"))


def fuzz_settings(n: int):
    return settings(max_examples=max(1, int(n * SCALE)), deadline=None, database=None,
                    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])


# vocabulary -----------------------------------------------------------------------
def vocabulary(world) -> list[str]:
    words = set(getattr(world.parser, "known_words", ()))
    clem = getattr(world.parser, "parser", None)          # the clembench style's ClemParser
    if clem is not None:
        for name in list(clem.names) + list(clem.verb_of) + list(clem.adjs) + list(clem.preps):
            words.update(str(name).split())
    for ent in world.entities.values():
        words.update(ent.words())
        words.add(ent.id)
    return sorted(w for w in words if w)


VOCAB = sorted({w for world in WORLDS for w in vocabulary(world)})
COMMANDS = sorted({c for script in SCRIPTS for c in script} | set(EXTRA_COMMANDS)
                  | {"look", "inventory", "take all", "drop all", "wait", "done", "it", "them",
                     "n", "s", "e", "w", "u", "d", "red", "brass", "take key", "undo", "take all from box"})
SEPARATORS = [" ", "  ", "\t", "\n", ",", ", ", ".", " . ", "!", "?", "\r\n", "\x00", "-", "'", "''"]


def _nasty(rng, n: int) -> list[str]:
    """Precomputed junk (drawing it character by character through hypothesis is slow)."""
    pools = [
        lambda: chr(rng.randrange(0, 0x110000)),                  # any code point, surrogates included
        lambda: chr(rng.randrange(0, 0x20)),                      # control characters, NUL
        lambda: rng.choice("\x00\x7f\x85\u2028\u2029\ufeff\u200b\u0130\u212a\ufb03\u00df\u0301"),
        lambda: chr(rng.randrange(0xD800, 0xE000)),               # lone surrogates
        lambda: rng.choice("'-.,!?;:()[]{}\"\\/"),
    ]
    return ["".join(rng.choice(pools)() for _ in range(rng.randrange(1, 9))) for _ in range(n)]


JUNK = _nasty(random.Random(1234), 400)
TOKENS = VOCAB + [w.upper() for w in VOCAB[::7]] + SEPARATORS * 4 + JUNK + \
    ["", "all", "it", "them", "the", "a", "with", "from", "on", "in", "every thing", "one"]

# every code point, lone surrogates and control characters included
ALL_CATEGORIES = ["Cc", "Cf", "Cn", "Co", "Cs", "Ll", "Lm", "Lo", "Lt", "Lu", "Mc", "Me", "Mn", "Nd", "Nl",
                  "No", "Pc", "Pd", "Pe", "Pf", "Pi", "Po", "Ps", "Sc", "Sk", "Sm", "So", "Zl", "Zp", "Zs"]
JUNK_CHARS = st.characters(categories=ALL_CATEGORIES, codec=None)
controls = st.text(st.characters(max_codepoint=0x20) | st.sampled_from("\x7f\x85\u2028\u2029\ufeff\u200b"),
                   max_size=30)
# words from the worlds' vocabulary, separators and junk, in any order (joined without spaces, so
# a separator token decides whether two words touch)
vocab_mix = st.lists(st.sampled_from(TOKENS), max_size=10).map("".join)


@st.composite
def long_line(draw) -> str:
    unit = draw(st.sampled_from(VOCAB + COMMANDS + JUNK))
    sep = draw(st.sampled_from(SEPARATORS))
    size = draw(st.integers(50_000, 110_000))
    unit = unit + sep
    line = unit * (size // len(unit) + 1)
    head = draw(st.sampled_from(["", "take ", "put ", "x ", "go ", "unlock door with "]))
    return head + line[:size]


SEQ_COMMANDS = COMMANDS * 3 + JUNK[:100] + ["", "it", "all", "take it", "drop it", "x it", "undo"]


# checking one step ------------------------------------------------------------------------
def fresh(world) -> Game:
    g = Game(world)
    g.last = []
    return g


def check_step(g: Game, command) -> StepResult:
    before, turn = g.state, g.turn
    achieved_before = len(g.achieved)
    was_lost = g.lost   # a lost game's scene is over: nothing more happens by itself
    r = g.step(command)
    assert isinstance(r, StepResult)
    assert isinstance(r.observation, str) and r.observation.strip(), f"no observation for {command!r}"
    assert g.turn == turn + 1
    assert r.command == (command if isinstance(command, str) else str(command))
    if r.fail is not None:
        assert r.fail["phase"] in ("parsing", "resolution") and isinstance(r.fail["type"], str)
        # a failed command changes nothing; in a scene, time still passes (what the scene does alone)
        expected = before if g.world.scene is None or was_lost else g.world.scene.after_turn(before).state
        assert g.state == expected, f"a failed command changed the state: {command!r}"
    assert r.changed == (g.state is not before)
    assert r.goal_score == len(g.achieved) - achieved_before
    return r


class Pool:
    """One game per (world, depth), played along the world's script; each fuzzed step is undone."""

    def __init__(self) -> None:
        self.games: dict = {}

    def get(self, w: int, d: int):
        key = (w, d)
        if key not in self.games:
            world, script = WORLDS[w], SCRIPTS[w]
            g = fresh(world)
            for c in script[: len(script) * d // (DEPTHS - 1)]:
                g.step(c)
            self.games[key] = (g, list(g.last), g.state, g.pending, g.turn)
        return self.games[key]

    def try_input(self, d: int, command) -> None:
        for w in range(len(WORLDS)):
            g, last, state, pending, turn = self.get(w, d)
            g.last = list(last)
            try:
                check_step(g, command)
                assert g.undo(1) == 1
                assert g.state.facts == state.facts and g.pending is pending and g.turn == turn
                assert g.last == last
            except BaseException:
                del self.games[(w, d)]        # never reuse a game left in an unknown state
                raise


POOL = Pool()
depth = st.integers(0, DEPTHS - 1)


@pytest.mark.slow
@fuzz_settings(1800)
@given(d=depth, command=st.text(JUNK_CHARS, max_size=50))
def test_any_unicode_text(d, command):
    POOL.try_input(d, command)


@pytest.mark.slow
@fuzz_settings(400)
@given(d=depth, command=controls)
def test_control_characters_and_nul(d, command):
    POOL.try_input(d, command)


@pytest.mark.slow
@fuzz_settings(1800)
@given(d=depth, command=vocab_mix)
def test_vocabulary_mixed_with_junk(d, command):
    POOL.try_input(d, command)


@fuzz_settings(100)
@given(d=depth, command=long_line())
def test_very_long_lines(d, command):
    assert len(command) >= 50_000
    POOL.try_input(d, command)


@pytest.mark.slow
@fuzz_settings(100)
@given(d=depth, command=st.one_of(st.none(), st.booleans(), st.integers(), st.floats(), st.binary(max_size=20),
                                  st.lists(st.text(max_size=5), max_size=3),
                                  st.dictionaries(st.text(max_size=3), st.integers(), max_size=2)))
def test_non_string_input(d, command):
    POOL.try_input(d, command)


ODD = ["", " ", "\t", "\n", "\r\n", "\x00", "\x00" * 1000, " " * 100_000,
                                     "\u200b", "\ufeff", "...", "'", "-", "''--''", "the", "it", "all",
                                     "\ud800", "take \udfff", "x" * 100_000]


@pytest.mark.parametrize("command", ODD, ids=[f"odd{i}" for i in range(len(ODD))])
@pytest.mark.parametrize("d", range(DEPTHS))
def test_empty_blank_and_odd(d, command):
    POOL.try_input(d, command)


@pytest.mark.slow
def test_bulk_random_inputs():
    """Volume without hypothesis' per-example cost: 8,000 seeded random inputs (seed in the message)."""
    seed = 20240601
    rng = random.Random(seed)
    for i in range(int(8_000 * SCALE)):
        kind = rng.random()
        if kind < 0.5:
            command = "".join(rng.choice(TOKENS) for _ in range(rng.randrange(0, 12)))
        elif kind < 0.8:
            command = " ".join(rng.choice(COMMANDS + JUNK) for _ in range(rng.randrange(1, 4)))
        else:
            command = "".join(chr(rng.randrange(0, 0x110000 if rng.random() < 0.5 else 0x80))
                              for _ in range(rng.randrange(0, 40)))
        try:
            POOL.try_input(rng.randrange(DEPTHS), command)
        except BaseException as exc:
            raise AssertionError(f"input #{i} (seed {seed}) failed: {command!r}") from exc


def test_scripts_reach_their_goals():
    """The depths are meaningful: each script (mostly) wins its world, so late depths are late states."""
    for world, script in zip(WORLDS, SCRIPTS):
        g = fresh(world)
        for c in script:
            g.step(c)
        assert g.all_goals_achieved(), world.path


# sequences, then undo of all of them ---------------------------------------------------------
@pytest.mark.slow
@fuzz_settings(500)
@given(w=st.integers(0, len(WORLDS) - 1), commands=st.lists(st.sampled_from(SEQ_COMMANDS), min_size=1, max_size=25))
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
    assert g.turn == 0 and g.commands == [] and g.pending is None and g.last == []
    assert g.state.facts == start == world.initial.facts
    assert g.achieved == frozenset(x for x in world.goals if x.holds(world.initial))
    assert g.undo(1) == 0


@pytest.mark.slow
@fuzz_settings(250)
@given(w=st.integers(0, len(WORLDS) - 1), commands=st.lists(st.sampled_from(SEQ_COMMANDS), min_size=1, max_size=40))
def test_undo_all_at_once_then_replay_is_identical(w, commands):
    world = WORLDS[w]
    g = fresh(world)
    first = [g.step(c).observation for c in commands]
    assert g.undo(len(commands) + 5) == len(commands)
    assert g.state.facts == world.initial.facts and g.turn == 0
    assert [g.step(c).observation for c in commands] == first
