"""What a newcomer reads: hot-seat turns, counts in words, typed lines echoed once, help's verbs (issue 36)."""

import asyncio
import re

from conftest import WORLDS, adventure

from tui_adventure.engine.loader import load_world
from tui_adventure.engine.text import plural
from tui_adventure.session import Session


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


def test_check_counts_doors_characters_and_players_apart(tmp_path):
    gen = adventure("generate", "--count", "1", "--seed", "1", "--objects", "20", "--out", str(tmp_path / "g"))
    assert gen.returncode == 0, gen.stderr
    assert "wrote 1 world to" in gen.stdout
    (path,) = (tmp_path / "g").glob("*.yaml")
    out = adventure("check", str(path), "labyrinth")
    assert out.returncode == 0, out.stdout
    first, second = out.stdout.splitlines()
    assert "ok (8 rooms, 20 objects, 2 doors, 3 goals," in first
    assert "ok (3 rooms, 4 objects, 1 door, 2 characters, 2 players, 1 goal, par 14)" in second
