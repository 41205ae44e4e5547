"""`adventure check` on broken worlds: every mistake as ``file:line:col: message``, exit 1.

Each file in tests/broken/ holds one mistake (a few hold several, to prove
all are reported at once) and says what check must print in its header:

    # expect: 12:5: unknown key 'exts' ... did you mean 'exits'

``LINE:COL`` is where the message must point (``OTHER.yaml:LINE:COL`` for a
mistake in another file the world uses, relative to tests/broken/); the text
after it lists pieces of the message, separated by `` ... ``, that must appear
in that order. The file must produce exactly its expected messages, no more.
"""

from __future__ import annotations

import random
import re
import string
from io import StringIO
from pathlib import Path

import pytest
import yaml
from hypothesis import HealthCheck, given, settings, strategies as st

from tui_adventure.batches import headless
from tui_adventure.engine.game import Game
from tui_adventure.engine.loading.loader import OBJECT_KEYS, ROOM_KEYS, TOP_KEYS, load_world, load_world_text
from tui_adventure.engine.world import World
from tui_adventure.engine.yamlpos import SourceErrors

from conftest import ROOT, adventure
BROKEN = sorted((ROOT / "tests" / "broken").glob("*.yaml"))
EXPECT_RE = re.compile(r"^# expect: (?:(\S+\.yaml):)?(\d+):(\d+):\s*(.*)$")
LINE_RE = re.compile(r"^(.*?):(\d+):(\d+): (.*)$")


def expectations(path: Path) -> list[tuple[str, int, int, list[str]]]:
    out = []
    for line in path.read_text(encoding="utf-8").splitlines():
        m = EXPECT_RE.match(line)
        if m:
            where = str(path.parent / m.group(1)) if m.group(1) else str(path)
            pieces = [p.strip() for p in m.group(4).split("...") if p.strip()]
            out.append((where, int(m.group(2)), int(m.group(3)), pieces))
    return out


def run_check(path: Path) -> tuple[int, list[str]]:
    out = StringIO()
    code = headless.check([str(path)], out=out, err=StringIO())
    return code, out.getvalue().splitlines()


def test_enough_broken_worlds():
    assert len(BROKEN) >= 30
    assert sum(1 for p in BROKEN if len(expectations(p)) > 1) >= 2


@pytest.mark.parametrize("path", BROKEN, ids=[p.stem for p in BROKEN])
def test_broken_world(path: Path):
    expected = expectations(path)
    assert expected, f"{path.name} has no '# expect:' line"
    code, lines = run_check(path)
    assert code == 1, lines
    got = []
    for line in lines:
        m = LINE_RE.match(line)
        assert m, f"not file:line:col: message: {line!r}"
        got.append((m.group(1), int(m.group(2)), int(m.group(3)), m.group(4)))
    assert [g[:3] for g in got] == [e[:3] for e in expected], "\n".join(lines)
    for (*_, message), (*_, pieces) in zip(got, expected):
        at = 0
        for piece in pieces:
            found = message.find(piece, at)
            assert found >= 0, f"{piece!r} not in {message!r}"
            at = found + len(piece)


def test_every_message_says_how_to_fix():
    """A message names the problem and, nearly always, a remedy in parentheses or a suggestion."""
    weak = []
    for path in BROKEN:
        for line in run_check(path)[1]:
            message = line.split(": ", 1)[1]
            if not re.search(r"\(.+\)|did you mean|add |use |remove |keep |write ", message):
                weak.append(line)
    assert not weak, "\n".join(weak)


def test_console_path_no_traceback():
    path = ROOT / "tests" / "broken" / "unknown_top_key.yaml"
    proc = adventure("check", str(path), cwd=ROOT)
    assert proc.returncode == 1
    assert "Traceback" not in proc.stderr
    assert "unknown key 'roms'" in proc.stdout


def test_missing_unreadable_and_odd_files(tmp_path):
    code, lines = run_check(tmp_path / "nope.yaml")
    assert code == 1 and "no such file" in lines[0]
    bad = tmp_path / "latin1.yaml"
    bad.write_bytes("start: h\u00e4ll\n".encode("latin-1"))
    code, lines = run_check(bad)
    assert code == 1 and "UTF-8" in lines[0]
    code, lines = run_check(tmp_path)  # a directory
    assert code == 1 and "cannot read" in lines[0]
    nul = tmp_path / "nul.yaml"
    nul.write_text("start: hall\nrooms:\n  ha\x00ll: {}\n", encoding="utf-8")
    code, lines = run_check(nul)
    assert code == 1 and lines == [f"{nul}:3:5: the control character U+0000 is not allowed in YAML (remove it)"]
    deep = tmp_path / "deep.yaml"
    deep.write_text("[" * 3000 + "]" * 3000, encoding="utf-8")
    code, lines = run_check(deep)
    assert code == 1 and "nested too deeply" in lines[0]


GOOD = [ROOT / "tests" / "worlds" / "mini.yaml"] + sorted((ROOT / "worlds").glob("*.yaml")) \
    + sorted(p for p in (ROOT / "tests" / "worlds").glob("*.yaml") if p.name != "mini.yaml")


@pytest.mark.slow
@pytest.mark.parametrize("path", GOOD, ids=[f"{p.parent.name}/{p.stem}" for p in GOOD])
def test_good_worlds_pass(path: Path):
    code, lines = run_check(path)
    assert code == 0, "\n".join(lines)
    assert lines and lines[-1].endswith(")") and ": ok (" in lines[-1]


# Nothing but SourceErrors may leave the loader, whatever the input. -----------------

WORDS = ["start", "rooms", "objects", "goal", "exits", "traits", "in", "on", "at", "held", "key",
         "door", "to", "name", "open", "locked", "hall", "study", "box", "lamp", "north", "par",
         "max_turns", "ruleset", "classic", "takeable", "container", "support", "openable",
         "lockable", "edible", "description", "actions", "id", "checks", "syntax", "params",
         "player", "adjectives", "synonyms", "true", "the lamp is in the box", "held(lamp)",
         "on(lamp, box)", "not open(box)", "you are in the study", "game", "title", "intro",
         "adventuregame", "clembench", "instance", "seed", "strict", "success", "effects"]
SCALARS = WORDS + [-1, 0, 1, 3, 250, True, False, None, 1.5, "", " ", "Hall", "a: b", "x(", "\u2206"]


def _tree(rng: random.Random, depth: int = 0):
    """A random nested structure (hypothesis draws the seed: its strategies for trees are slow)."""
    r = rng.random()
    if depth >= 3 or r < 0.45:
        return rng.choice(SCALARS)
    if r < 0.7:
        return [_tree(rng, depth + 1) for _ in range(rng.randint(0, 3))]
    return {rng.choice(WORDS): _tree(rng, depth + 1) for _ in range(rng.randint(0, 4))}


def fuzz(n: int):
    return settings(max_examples=n, deadline=None, derandomize=True, database=None,
                    suppress_health_check=list(HealthCheck))


DUMPER = getattr(yaml, "CSafeDumper", yaml.SafeDumper)


def dump(doc) -> str:
    return yaml.dump(doc, Dumper=DUMPER, sort_keys=False, allow_unicode=True)


def _load_safely(text: str) -> None:
    try:
        world = load_world_text(text, "fuzz.yaml")
    except SourceErrors as exc:
        assert exc.errors
        for e in exc.errors:
            assert isinstance(e.message, str) and e.message and e.path, e
        return
    assert isinstance(world, World)
    game = Game(world)   # a world that loads plays: its patterns compile when the first line is read
    for line in ("ring lamp", "look"):
        assert str(game.step(line).text)


@pytest.mark.slow
@fuzz(300)
@given(st.integers(0, 2**32))
def test_random_structures_never_crash(seed):
    rng = random.Random(seed)
    doc = {rng.choice(WORDS): _tree(rng, 1) for _ in range(rng.randint(0, 7))}
    _load_safely(dump(doc))


def _valid_world() -> dict:
    return {
        "start": "hall",
        "rooms": {"hall": {"description": "A hall.", "exits": {"north": {"to": "study", "door": "door1"}}},
                  "study": {"exits": {"south": {"to": "hall", "door": "door1"}, "stairs": "hall"}}},
        "objects": {"door1": {"name": "door", "traits": ["door", "openable", "lockable"], "locked": True, "key": "lamp"},
                    "box": {"traits": ["container", "openable"], "at": "hall"},
                    "lamp": {"adjectives": ["brass"], "traits": ["takeable"], "in": "box"},
                    "table": {"traits": ["support"], "at": "study"}},
        "goal": ["on(lamp, table)"],
    }


def _world_like(rng: random.Random) -> dict:
    """A valid world with a few random mutations, so that every check (and the build) is reached."""
    doc = _valid_world()
    ids = ["hall", "study", "box", "lamp", "door1", "table", "nowhere"]
    for _ in range(rng.choice([0, 1, 1, 2, 3])):
        op = rng.random()
        places = [(doc, TOP_KEYS)]
        for part, keys in (("rooms", ROOM_KEYS), ("objects", OBJECT_KEYS)):
            if isinstance(doc.get(part), dict):
                places += [(m, keys) for m in doc[part].values() if isinstance(m, dict)]
                places += [(m["exits"], ["north", "up", "stairs", "in"]) for m in doc[part].values()
                           if isinstance(m, dict) and isinstance(m.get("exits"), dict)]
                places += [(x, ["to", "door"]) for m in doc[part].values() if isinstance(m, dict)
                           and isinstance(m.get("exits"), dict) for x in m["exits"].values() if isinstance(x, dict)]
        place, keys = rng.choice(places)
        if op < 0.25 and place:
            del place[rng.choice(list(place))]
        elif op < 0.6:
            # a key that belongs here (usually) with a value of any type: ids, lists, mappings, numbers
            key = rng.choice(sorted(keys)) if rng.random() < 0.85 else rng.choice(WORDS)
            place[key] = rng.choice([rng.choice(ids), [rng.choice(ids)], {rng.choice(ids): rng.choice(ids)},
                                     _tree(rng, 2), rng.choice(SCALARS)])
        elif op < 0.75:
            doc["goal"] = [rng.choice(["held(lamp)", "in(lamp, box)", "on(lamp, table)", "at(lamp, study)",
                                       "open(box)", "the lamp is in the box", "you are in the study",
                                       "not locked(door1)", "eaten(lamp)", "x(", "held()", "the  is on",
                                       "at(player, study)", "exit(hall, north, study)", "room(hall)",
                                       "the brass is on the table", "not the lamp is open"])
                           for _ in range(rng.randint(1, 3))]
        elif op < 0.9:
            doc["actions"] = [{"id": "ring", "syntax": [rng.choice(["ring {obj}", "ring {obj} with {obj}", "ring",
                                                                  "ring {x}", "ring {obj}.", "{obj} ring", "ring {obj} on {x}",
                                                                  "ring|toll {obj}", "{", "ring {}"])],
                               "params": {"obj": rng.choice(["thing", "room", "x"])},
                               "checks": [[rng.choice(["held(obj)", "at(obj)", "foo(obj)", "closed(obj)", "visible(obj)",
                                                        "exists r: at(player, r)", "count(held(_)) > 1", "x ==", "obj"]),
                                           rng.choice(["No.", "{The obj} no.", "{bad}", "{the zz}"])]],
                               "effects": [rng.choice(["add open(obj)", "del held(obj)", "add rung(obj)",
                                                       "add at(obj)", "forall r where at(player, r): add at(obj, r)",
                                                       "when held(obj): del held(obj)", "add"])],
                               "success": rng.choice(["Ding.", "{the obj}", "{nope(obj)}", "{"])}]
        else:
            doc[rng.choice(["ruleset", "par", "max_turns", "seed", "strict"])] = rng.choice(
                ["classic", "adventuregame", "x.yaml", 0, 1, 5, -1, "x", True, None, [1]])
    return doc


@pytest.mark.slow
@fuzz(250)   # about a third of them build a World
@given(st.integers(0, 2**32))
def test_random_worlds_never_crash(seed):
    _load_safely(dump(_world_like(random.Random(seed))))


@fuzz(300)
@given(st.text(alphabet=string.ascii_letters[:12] + " :-[]{}'\"\n\t#&*!|>%@`,?", max_size=120))
def test_random_text_never_crashes(text):
    _load_safely(text)


def test_mutated_good_world_never_crashes():
    """Delete or duplicate random lines of a real world: still only SourceErrors."""
    lines = (ROOT / "tests" / "worlds" / "mini.yaml").read_text(encoding="utf-8").splitlines()
    rng = random.Random(7)
    for _ in range(100):
        cut = list(lines)
        for _ in range(rng.randint(1, 3)):
            i = rng.randrange(len(cut))
            op = rng.random()
            if op < 0.4:
                del cut[i]
            elif op < 0.7:
                cut.insert(i, cut[rng.randrange(len(cut))])
            else:
                cut[i] = cut[i].replace(rng.choice(["  ", ":", "_", "e"]), rng.choice(["", " ", "x", "\t"]), 1)
        _load_safely("\n".join(cut))


def test_load_world_only_raises_source_errors(tmp_path):
    with pytest.raises(SourceErrors):
        load_world(tmp_path / "missing.yaml")
