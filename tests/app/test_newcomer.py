"""What a newcomer reads: hot-seat turns, counts in words, typed lines echoed once, help's verbs (issue 36)."""

import pytest
import asyncio
import re

from conftest import WORLDS, adventure

from tui_adventure.engine.loading.loader import load_world
from tui_adventure.engine.text import plural
from tui_adventure.keyboard.session import Session


def session_for(tmp_path, world="tutorial.yaml", **kw) -> Session:
    return Session(load_world(WORLDS / world), records=tmp_path / "records", saves=tmp_path / "saves", **kw)


def test_plural_says_one_goal_and_two_goals():
    assert [plural(n, "goal") for n in (0, 1, 2)] == ["0 goals", "1 goal", "2 goals"]
    assert plural(1, "try", "tries") == "1 try" and plural(3, "try", "tries") == "3 tries"


def test_each_hot_seat_turn_begins_with_where_that_seat_stands(tmp_path):
    s = session_for(tmp_path, "labyrinth.yaml")
    assert "Bog edge" in s.first_text()                       # Ava starts at the bog
    feedback = asyncio.run(s.submit_line("look"))
    text = feedback.text
    assert "It is now Bo's turn." in text
    after = text.split("It is now Bo's turn.", 1)[1]
    assert "Hedge path" in after and "Exits: north" in after and "Bog edge" not in after
    feedback = asyncio.run(s.submit_line("west"))             # Bo's own exit works
    assert "You can't go that way" not in feedback.text
    assert feedback.text.split("It is now Ava's turn.", 1)[1].lstrip().startswith("Bog edge")


def test_a_typed_reply_marker_is_echoed_once_in_the_repl(tmp_path):
    out = adventure("repl", str(WORLDS / "house.yaml"), "--records", str(tmp_path / "r"),
                    stdin="> up\n>north\nlook\n", cwd=tmp_path)
    assert out.returncode == 0, out.stderr
    assert "> > " not in out.stdout and "> >" not in out.stdout
    assert "\n> up\n" in out.stdout and "\n> north\n" in out.stdout and "\n> look\n" in out.stdout
    assert "(3 turns, unfinished" in out.stderr


def test_help_lists_verbs_not_the_first_word_of_a_phrase(tmp_path):
    s = session_for(tmp_path, "house.yaml")
    text = asyncio.run(s.submit_line("help")).text
    verbs = re.search(r"Verbs: (.*)\.", text).group(1).split(", ")
    assert "i'm" not in verbs and "am" not in verbs
    assert {"take", "look", "i", "done", "go"} <= set(verbs)
    assert "i'm" in s.verbs()                                 # still completed when typed


def test_counts_in_messages_are_words_for_one(tmp_path):
    s = session_for(tmp_path)
    asyncio.run(s.submit_line("look"))
    assert "(1 turn, unfinished" in s.records_summary()
    for command in ["take letter", "north", "open mailbox", "put letter in mailbox", "done"]:
        asyncio.run(s.submit_line(command))
    assert s.outcome_text().startswith("won after 6 turns: 1/1 goal, main score")


@pytest.mark.slow
def test_check_counts_doors_characters_and_players_apart(tmp_path):
    gen = adventure("generate", "--count", "1", "--seed", "1", "--objects", "20", "--out", str(tmp_path / "g"))
    assert gen.returncode == 0, gen.stderr
    assert "wrote 1 world to" in gen.stdout
    (path,) = (tmp_path / "g").glob("*.yaml")
    counted = tmp_path / "counted.yaml"
    counted.write_text(COUNTED)
    out = adventure("check", str(path), str(counted))
    assert out.returncode == 0, out.stdout
    first, second = out.stdout.splitlines()
    assert "ok (8 rooms, 20 objects, 2 doors, 3 goals," in first
    assert "ok (2 rooms, 4 objects, 1 door, 2 characters, 2 players, 1 goal, par 11)" in second


# the labyrinth's kinds of thing (one door, two characters, two players) in a world whose par is quick to find
COUNTED = """\
game: counted
start: hall
max_turns: 30
rooms:
  hall:
    description: A bare hall. A hatch leads east to the vault.
    exits:
      east: {to: vault, door: hatch}
  vault:
    description: A cold vault. The hall is west.
    exits:
      west: {to: hall, door: hatch}
objects:
  hatch:
    traits: [door, openable]
  chest:
    traits: [container, openable, lockable]
    locked: true
    key: key
    at: vault
  key:
    name: iron key
    traits: [takeable]
    held: true
  gold:
    traits: [takeable]
    in: chest
  box:
    traits: [container]
    at: hall
characters:
  cat:
    name: cat
    at: hall
    persona: ["A grey cat."]
  owl:
    name: owl
    at: vault
    persona: ["A sleepy owl."]
players:
  - id: ava
    name: Ava
  - id: bo
    name: Bo
    start: vault
goal:
  - in(gold, box)
"""


def _play(tmp_path, *commands, new=False):
    s = Session(load_world(WORLDS / "tutorial.yaml"), records=tmp_path / "records", saves=tmp_path / "saves",
                resume=not new)
    for c in commands:
        asyncio.run(s.submit_line(c))
    s.close()
    return s


def _runs(tmp_path):
    return sorted(p.name for p in (tmp_path / "records").iterdir() if p.is_dir())


def test_an_unfinished_game_continues_in_its_own_folder(tmp_path):
    import json

    _play(tmp_path, "take letter", "north")
    s = _play(tmp_path, "open mailbox", "put letter in mailbox")
    assert s.continued.startswith("[continuing your unfinished game: turn 3, after 2 turns played before")
    assert s.episode.game.all_goals_achieved() and _runs(tmp_path) == ["human"]
    folder = tmp_path / "records/human/tutorial/tutorial/instance_00000"
    data = json.loads((folder / "interactions.json").read_text())
    assert [e["action"]["content"] for t in data["turns"] for e in t if e["action"]["type"] == "get message"] == \
        ["take letter", "north", "open mailbox", "put letter in mailbox"]
    (pause,) = data["meta"]["resumed"]
    assert pause["after_round"] == 2 and pause["paused_seconds"] >= 0
    assert any(e["action"]["type"] == "session_resumed" for e in data["turns"][2])
    calls = json.loads((folder / "player_1.requests.json").read_text())["calls"]
    assert [c["round"] for c in calls] == [0, 1, 2, 3]
    s = _play(tmp_path, "done")                               # the third sitting finishes it
    assert (folder / "completed.json").exists() and _runs(tmp_path) == ["human"]
    assert s.outcome_text().startswith("won after 5 turns")


def test_a_finished_game_or_new_starts_another_folder(tmp_path):
    _play(tmp_path, "take letter", "north", "open mailbox", "put letter in mailbox", "done")
    s = _play(tmp_path, "look")
    assert not s.continued and _runs(tmp_path) == ["human", "human-2"]
    assert "human-2" in s.records_summary()
    s = _play(tmp_path, "look")                               # human-2 is the last one, unfinished: it goes on
    assert s.continued and len(s.episode.turns) == 2 and _runs(tmp_path) == ["human", "human-2"]
    s = _play(tmp_path, "look", new=True)
    assert not s.continued and _runs(tmp_path) == ["human", "human-2", "human-3"]


def test_a_world_changed_since_is_not_continued_into_another_game(tmp_path):
    import json

    _play(tmp_path, "take letter", "north")
    path = next((tmp_path / "records").rglob("interactions.json"))
    data = json.loads(path.read_text())
    data["turns"][1][0]["action"]["content"] = "Somewhere else entirely."
    path.write_text(json.dumps(data))
    s = _play(tmp_path, "look")
    assert "could not be continued" in s.continued and "no longer plays as recorded" in s.continued
    assert _runs(tmp_path) == ["human", "human-2"] and len(s.episode.turns) == 1


def test_the_repl_says_it_continues_and_where_the_player_stands(tmp_path):
    first = adventure("repl", "tutorial", "--records", "r", stdin="take letter\nnorth\n", cwd=tmp_path)
    again = adventure("repl", "tutorial", "--records", "r", stdin="look\n", cwd=tmp_path)
    assert first.returncode == again.returncode == 0, again.stderr
    said = again.stdout.split("[continuing your unfinished game: turn 3, after 2 turns played before", 1)[1]
    assert said.split("\n", 2)[1] == "Garden"
    assert "(3 turns, unfinished" in again.stderr and "human-2" not in again.stderr
    fresh = adventure("repl", "tutorial", "--records", "r", "--new", stdin="look\n", cwd=tmp_path)
    assert "continuing" not in fresh.stdout and "human-2" in fresh.stderr


def test_no_lock_file_stays_behind_and_a_dead_ones_never_blocks(tmp_path):
    run = adventure("run", "tutorial", "house", "--player", "oracle", "--records", "r", cwd=tmp_path)
    assert run.returncode == 0, run.stderr
    adventure("repl", "tutorial", "--records", "r", stdin="look\n", cwd=tmp_path)
    assert list((tmp_path / "r").rglob("*.lock")) == []
    folder = tmp_path / "r/human/tutorial/tutorial/instance_00000"
    (folder / ".tui_adventure.lock").write_text("999999999")   # a process long dead, killed before it could tidy
    again = adventure("repl", "tutorial", "--records", "r", stdin="look\n", cwd=tmp_path)
    assert again.returncode == 0 and "continuing" in again.stdout and "(2 turns" in again.stderr
    assert list((tmp_path / "r").rglob("*.lock")) == []


def test_a_lock_held_is_busy_and_released_without_a_file():
    import tempfile
    from pathlib import Path

    from tui_adventure.records.files import LOCK, Busy, FolderLock

    with tempfile.TemporaryDirectory() as d:
        held = FolderLock(Path(d), "this episode").acquire()
        assert (Path(d) / LOCK).exists()
        try:
            FolderLock(Path(d), "this episode").acquire()
            raise AssertionError("a held lock must refuse")
        except Busy:
            pass
        stale = open(Path(d) / LOCK)     # opened before its holder removes it, as a racing process would
        held.release()
        assert not (Path(d) / LOCK).exists()
        again = FolderLock(Path(d), "this episode").acquire()   # a new file, not the removed one
        assert (Path(d) / LOCK).exists()
        import os
        assert os.fstat(again.fh.fileno()).st_ino != os.fstat(stale.fileno()).st_ino
        again.release()
        stale.close()
