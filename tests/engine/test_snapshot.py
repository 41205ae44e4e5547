"""Saves: format, atomic writes, refusing bad files with SaveError only, exact restores."""

import json
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings, strategies as st

from tui_adventure.engine import snapshot
from tui_adventure.engine.game import Game
from tui_adventure.engine.loading.loader import load_world, load_world_text
from tui_adventure.engine.snapshot import (
    FORMAT, VERSION, Save, SaveError, list_saves, load_save, save_file_name, save_game, world_digest,
)

from conftest import TEST_WORLDS

PLAN = ["take book", "go east", "open box", "take brass key", "go west",
        "unlock door with key", "open door", "go north", "put book on shelf"]


def played(world, commands):
    g = Game(world)
    for c in commands:
        g.step(c)
    return g


def other_world():
    text = (TEST_WORLDS / "mini.yaml").read_text()
    return load_world_text(text.replace("the book is on the shelf", "the apple is on the shelf"), "other.yaml")


# writing -------------------------------------------------------------------------
def test_save_document_format(mini, tmp_path):
    g = played(mini, PLAN[:3])
    path = save_game(g, "first", tmp_path)
    assert path == tmp_path / "first.json"
    doc = json.loads(path.read_text(encoding="utf-8"))
    assert set(doc) == {"format", "version", "world", "world_game", "world_digest", "turn",
                        "commands", "facts", "saved_at"}
    assert doc["format"] == FORMAT and doc["version"] == VERSION == 1
    assert doc["world"] == mini.path and doc["world_game"] == "mini"
    assert doc["world_digest"] == world_digest(mini) and len(doc["world_digest"]) == 64
    assert doc["turn"] == 3 and doc["commands"] == PLAN[:3]
    assert doc["facts"] == sorted(doc["facts"]) == g.facts()
    assert "held(book)" in doc["facts"] and "open(box)" in doc["facts"]
    from datetime import datetime
    assert datetime.fromisoformat(doc["saved_at"]).tzinfo is not None


def test_default_directory_is_saves_in_cwd(mini, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    path = save_game(played(mini, ["take book"]), "quick")
    assert path == Path("saves") / "quick.json"
    assert (tmp_path / "saves" / "quick.json").is_file()
    state, commands = load_save("quick", mini)
    assert commands == ["take book"] and ("held", "book") in state


def test_digest_depends_on_facts_and_goals_only(mini):
    again = load_world(TEST_WORLDS / "mini.yaml")
    assert world_digest(again) == world_digest(mini)
    assert world_digest(other_world()) != world_digest(mini)


@pytest.mark.parametrize("name,expected", [
    ("slot1", "slot1.json"), ("slot1.json", "slot1.json"), ("  before the door ", "before the door.json"),
    ("ünïcødé", "ünïcødé.json"), ("a.b", "a.b.json"),
])
def test_save_names(name, expected):
    assert save_file_name(name) == expected


@pytest.mark.parametrize("name", ["", "   ", "../evil", "a/b", "a\\b", "/abs", ".hidden", ".json",
                                  "nul\x00byte", "tab\there", "c:d", "what?", "x" * 300, "\ud800"])
def test_bad_save_names_refused(name, mini, tmp_path):
    with pytest.raises(SaveError):
        save_file_name(name)
    with pytest.raises(SaveError):
        save_game(Game(mini), name, tmp_path)
    assert list(tmp_path.iterdir()) == []


def test_overwrite_replaces(mini, tmp_path):
    save_game(played(mini, PLAN[:1]), "s", tmp_path)
    save_game(played(mini, PLAN[:4]), "s", tmp_path)
    assert load_save("s", mini, tmp_path).turn == 4
    assert [p.name for p in tmp_path.iterdir()] == ["s.json"]


def test_failed_replace_keeps_old_save_and_leaves_no_temp_file(mini, tmp_path, monkeypatch):
    """A kill between writing the temp file and renaming it: the old save survives whole."""
    old = save_game(played(mini, PLAN[:2]), "slot", tmp_path)
    before = old.read_bytes()

    def boom(src, dst):
        raise KeyboardInterrupt("killed mid-write")

    monkeypatch.setattr(snapshot.os, "replace", boom)
    with pytest.raises(KeyboardInterrupt):
        save_game(played(mini, PLAN[:6]), "slot", tmp_path)
    assert old.read_bytes() == before
    assert sorted(p.name for p in tmp_path.iterdir()) == ["slot.json"]
    assert load_save("slot", mini, tmp_path).commands == PLAN[:2]


def test_failed_write_is_a_save_error_and_leaves_nothing(mini, tmp_path, monkeypatch):
    def full(fd):
        raise OSError(28, "No space left on device")

    monkeypatch.setattr(snapshot.os, "fsync", full)
    with pytest.raises(SaveError, match="No space left"):
        save_game(played(mini, PLAN[:2]), "slot", tmp_path)
    assert list(tmp_path.iterdir()) == []


def test_unwritable_directory_is_a_save_error(mini, tmp_path):
    blocker = tmp_path / "file"
    blocker.write_text("not a directory")
    with pytest.raises(SaveError) as err:
        save_game(Game(mini), "x", blocker / "saves")
    assert "x.json" in str(err.value)


def test_lone_surrogates_in_commands_round_trip(mini, tmp_path):
    cmds = ["take book", "x \ud800 \udfff", "drop it\x00"]
    g = played(mini, cmds)
    path = save_game(g, "odd", tmp_path)
    path.read_bytes().decode("utf-8")       # still valid UTF-8 (escaped)
    assert load_save(path, mini).commands == cmds
    non_ascii = save_game(played(mini, ["tåke böök"]), "nice", tmp_path)
    assert "tåke böök" in non_ascii.read_text(encoding="utf-8")   # readable when it can be


# reading -------------------------------------------------------------------------
def test_round_trip(mini, tmp_path):
    g = played(mini, PLAN[:5])
    path = save_game(g, "mid", tmp_path)
    for ref in ("mid", "mid.json", path, str(path)):
        s = load_save(ref, mini, tmp_path)
        assert isinstance(s, Save)
        assert s.state == g.state and s.commands == g.commands and s.turn == 5
        assert s.name == "mid" and s.path == path
        state, commands = s
        assert state.facts == g.state.facts and commands == PLAN[:5]


def test_set_state_from_save(mini, tmp_path):
    g = played(mini, PLAN[:5])
    state, commands = load_save(save_game(g, "mid", tmp_path), mini)
    h = Game(mini)
    h.set_state(state, commands)
    assert h.facts() == g.facts() and h.turn == 5 and h.commands == PLAN[:5]
    for c in PLAN[5:]:
        r = h.step(c)
    assert r.done and h.all_goals_achieved()


SCRIPTS = [
    PLAN,
    ["take book", "x it", "go east", "take key", "red", "drop it", "open box", "take brass key",
     "take all", "go west", "unlock door with key", "undo", "open door", "n", "put book on shelf", "look"],
    ["take key", "go east", "take key", "brass", "open box", "take key", "i", "eat apple", "eat it",
     "go west", "drop all", "take all", "take book", "look"],
]


def replayed(save, world):
    """A save restored as the session restores it: its commands replayed in a fresh game."""
    game = Game(world)
    for command in save.commands:
        game.step(command)
    return game


@pytest.mark.parametrize("script", SCRIPTS)
def test_restore_then_replay_is_deterministic(mini, tmp_path, script):
    for cut in range(len(script) + 1):
        original = played(mini, script[:cut])
        path = save_game(original, f"cut{cut}", tmp_path)
        rest = [original.step(c).observation for c in script[cut:]]
        final = original.facts()
        game = replayed(load_save(path, mini), mini)
        assert game.turn == cut and game.commands == script[:cut]
        assert [game.step(c).observation for c in script[cut:]] == rest, f"cut at {cut}"
        assert game.facts() == final


def test_restore_keeps_undo_and_pending_question(mini, tmp_path):
    g = played(mini, ["go east", "open box", "take key"])     # "Which do you mean, ...?" is pending
    assert g.pending is not None
    game = replayed(load_save(save_game(g, "q", tmp_path), mini), mini)
    assert game.pending is not None
    assert game.step("brass").observation == g.step("brass").observation == "You take the key."
    assert ("held", "brass_key") in game.state
    assert game.undo(4) == 4 and game.state == mini.initial


def test_foreign_world_refused(mini, tmp_path):
    other = other_world()
    path = save_game(played(other, ["take book"]), "o", tmp_path)
    with pytest.raises(SaveError) as err:
        load_save(path, mini)
    assert "o.json: not a save of this world: 'mini'" in str(err.value)   # same game name, other goals
    assert "changed" in str(err.value)
    doc = json.loads(path.read_text())
    doc["world_game"] = "house"
    doc["world"] = "worlds/house.yaml"
    path.write_text(json.dumps(doc))
    with pytest.raises(SaveError, match=r"o\.json: a save of the world 'house' \(worlds/house\.yaml\), not of 'mini'"):
        load_save(path, mini)


def valid_doc(mini):
    return snapshot.save_document(played(mini, PLAN[:2]))


def _del(key):
    def f(d):
        del d[key]
    return f


def _set(key, value):
    def f(d):
        d[key] = value
    return f


CORRUPTIONS = {
    "missing commands": (_del("commands"), "missing 'commands'"),
    "missing facts": (_del("facts"), "missing 'facts'"),
    "missing digest": (_del("world_digest"), "missing 'world_digest'"),
    "missing format": (_del("format"), "not a tui-adventure save"),
    "missing version": (_del("version"), "'version'"),
    "future version": (_set("version", 2), "newer"),
    "zero version": (_set("version", 0), "version 0"),
    "string version": (_set("version", "1"), "'version' must be a whole number"),
    "bool version": (_set("version", True), "'version'"),
    "other format": (_set("format", "something-else"), "not a tui-adventure save"),
    "turn str": (_set("turn", "2"), "'turn'"),
    "turn negative": (_set("turn", -1), "'turn'"),
    "turn float": (_set("turn", 2.0), "'turn'"),
    "turn mismatch": (_set("turn", 5), "'turn' is 5 but there are 2 commands"),
    "commands str": (_set("commands", "take book"), "'commands' must be a list"),
    "commands int item": (_set("commands", ["take book", 3]), r"commands\[1\] must be a string"),
    "facts dict": (_set("facts", {}), "'facts' must be a list"),
    "facts null item": (_set("facts", [None]), r"facts\[0\] must be a string"),
    "fact syntax": (_set("facts", ["at(player,hall", "x"]), r"facts\[0\]"),
    "fact empty arg": (_set("facts", ["on(a,,b)"]), r"facts\[0\]"),
    "unplayable facts": (_set("facts", ["held(book)"]), "playable"),
    "world null": (_set("world", None), "'world' must be a string"),
    "digest int": (_set("world_digest", 7), "'world_digest' must be a string"),
    "digest other": (_set("world_digest", "0" * 64), "changed"),
    "saved_at list": (_set("saved_at", []), "'saved_at' must be a string"),
}


@pytest.mark.parametrize("case", sorted(CORRUPTIONS))
def test_corrupt_documents_refused(case, mini, tmp_path):
    change, message = CORRUPTIONS[case]
    doc = valid_doc(mini)
    change(doc)
    path = tmp_path / "bad.json"
    path.write_text(json.dumps(doc))
    with pytest.raises(SaveError, match=message) as err:
        load_save(path, mini)
    assert str(err.value).startswith(f"{path}: ")


RAW = {
    "empty": b"",
    "blank": b"  \n",
    "not json": b"hello",
    "a list": b"[1, 2]",
    "a string": b'"tui-adventure-save"',
    "null": b"null",
    "binary": bytes(range(256)),
    "latin-1": '{"format": "é"}'.encode("latin-1"),
    "deep nesting": b"[" * 100_000 + b"]" * 100_000,
    "huge int": b'{"version": ' + b"9" * 5000 + b"}",
    "nan": b'{"format": "tui-adventure-save", "version": NaN}',
    "other program": b'{"name": "x", "score": 3}',
}


@pytest.mark.parametrize("case", sorted(RAW))
def test_garbage_files_refused(case, mini, tmp_path):
    path = tmp_path / "junk.json"
    path.write_bytes(RAW[case])
    with pytest.raises(SaveError) as err:
        load_save(path, mini)
    assert str(path) in str(err.value)


@pytest.mark.slow
def test_truncated_save_refused_at_every_length(mini, tmp_path):
    data = save_game(played(mini, PLAN[:4]), "full", tmp_path).read_bytes()
    path = tmp_path / "cut.json"
    for n in range(0, len(data) - 2, 7):
        path.write_bytes(data[:n])
        with pytest.raises(SaveError) as err:
            load_save(path, mini)
        assert "cut.json" in str(err.value)
    path.write_bytes(data[: len(data) // 2])
    with pytest.raises(SaveError, match="truncated"):
        load_save(path, mini)


def test_missing_file_and_directory(mini, tmp_path):
    with pytest.raises(SaveError, match="no such save"):
        load_save("nothing", mini, tmp_path)
    (tmp_path / "dir.json").mkdir()
    with pytest.raises(SaveError, match="directory"):
        load_save(tmp_path / "dir.json", mini)
    with pytest.raises(SaveError):
        load_save("../x", mini, tmp_path / "missing")


@pytest.mark.slow
@settings(max_examples=300, deadline=None, database=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(data=st.binary(max_size=2000))
def test_any_bytes_load_or_raise_save_error(mini, tmp_path, data):
    path = tmp_path / "fuzz.json"
    path.write_bytes(data)
    try:
        load_save(path, mini)
    except SaveError as exc:
        assert str(path) in str(exc)


json_values = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False) | st.text(max_size=20),
    lambda children: st.lists(children, max_size=4) | st.dictionaries(st.text(max_size=10), children, max_size=4),
    max_leaves=12)


@pytest.mark.slow
@settings(max_examples=400, deadline=None, database=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(key=st.sampled_from(snapshot.REQUIRED + ("extra",)), value=json_values, drop=st.booleans())
def test_any_field_mutation_loads_or_raises_save_error(mini, tmp_path, key, value, drop):
    doc = valid_doc(mini)
    if drop and key in doc:
        del doc[key]
    else:
        doc[key] = value
    path = tmp_path / "mut.json"
    path.write_text(json.dumps(doc))
    try:
        s = load_save(path, mini)
    except SaveError as exc:
        assert str(path) in str(exc)
    else:
        replayed(s, mini)


@pytest.mark.slow
@settings(max_examples=60, deadline=None, database=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(commands=st.lists(st.one_of(st.sampled_from(PLAN + ["take key", "brass", "red", "undo", "it"]),
                                   st.text(max_size=30)), max_size=12))
def test_any_game_round_trips(mini, tmp_path, commands):
    g = played(mini, commands)
    s = load_save(save_game(g, "rt", tmp_path), mini)
    assert s.commands == commands and s.state == g.state
    assert replayed(s, mini).facts() == g.facts()


# listing -------------------------------------------------------------------------
def test_list_saves(mini, tmp_path, monkeypatch):
    assert list_saves(tmp_path / "none", mini) == []
    times = iter(["2025-01-01T10:00:00+00:00", "2025-01-01T12:00:00+00:00", "2025-01-01T11:00:00+00:00"])
    real = snapshot.save_document
    monkeypatch.setattr(snapshot, "save_document", lambda g: real(g, next(times)))
    save_game(played(mini, PLAN[:1]), "a", tmp_path)
    save_game(played(mini, PLAN[:2]), "b", tmp_path)
    save_game(played(other_world(), PLAN[:3]), "other", tmp_path)
    (tmp_path / "broken.json").write_text("{")
    (tmp_path / "notes.txt").write_text("hi")
    got = list_saves(tmp_path, mini)
    assert [(s.name, s.turn) for s in got] == [("b", 2), ("a", 1)]
    assert got[0].path == tmp_path / "b.json"
    assert [s.name for s in list_saves(tmp_path)] == ["b", "other", "a"]


# a clembench instance (another style and parser) ---------------------------------
def clem():
    import clem_helpers

    return clem_helpers


def test_clembench_restore_is_deterministic(tmp_path):
    helpers = clem()
    trace = next(t for t in helpers.traces() if t["kind"] == "failing")
    world = helpers.world(trace["experiment"], trace["game_id"])
    script = trace["commands"]
    for cut in range(0, len(script) + 1, 3):
        original = played(world, script[:cut])
        path = save_game(original, f"clem{cut}", tmp_path)
        rest = [original.step(c).observation for c in script[cut:]]
        game = replayed(load_save(path, world), world)
        assert game.commands == script[:cut]
        assert [game.step(c).observation for c in script[cut:]] == rest
    other = next(t for t in helpers.traces() if (t["experiment"], t["game_id"]) != (trace["experiment"], trace["game_id"]))
    with pytest.raises(SaveError, match="not a save of this world"):
        load_save(path, helpers.world(other["experiment"], other["game_id"]))
