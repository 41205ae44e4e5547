"""The one game interface: our engine's worlds and story files answer it alike."""

from __future__ import annotations

import inspect

from tui_adventure.games import open_game
from tui_adventure.games.interface import Playable

from conftest import WORLDS
from stories import STORIES, walkthrough


def members(cls) -> set[str]:
    own = {n for n in vars(cls) if not n.startswith("_")}
    return own | set(getattr(cls, "__annotations__", {}))


def test_both_engines_have_every_member_of_the_interface(lighthouse):
    from tui_adventure.catalog import open_world

    native = open_game(open_world(str(WORLDS / "house.yaml")))
    wanted = members(Playable)
    for game in (native, lighthouse):
        missing = {n for n in wanted if not hasattr(game, n)}
        assert not missing, f"{type(game).__name__} lacks {sorted(missing)}"
        for name in wanted:
            if inspect.isfunction(getattr(Playable, name, None)):
                assert callable(getattr(game, name))


def test_a_story_file_is_played_won_and_scored_from_its_own_text(lighthouse):
    game = lighthouse
    assert game.location() == "Beach"
    assert game.status().score == 0 and game.status().max_score == 30 and game.status().moves == 0
    assert game.inventory() == ["You're carrying nothing."]
    assert game.status().moves == 0                # reading the inventory spent no move
    steps = [game.step(c) for c in walkthrough("lighthouse")]
    assert "Score:" not in steps[0].observation    # the status line is the panels', not the transcript's
    assert steps[-1].done and game.won and game.over and steps[-1].lost is None
    assert game.status().score == 30 and game.status().moves == len(steps)
    assert game.location() == "Lamp Room"


def test_undo_is_a_snapshot_put_back(lighthouse):
    game = lighthouse
    moment = game.snapshot()
    game.step("open chest")
    game.step("take key from chest")
    assert game.status().score == 5
    game.restore(moment)
    assert game.status().score == 0 and game.status().moves == 0
    assert "closed" in game.step("look").observation
    game.restart()
    assert game.status().moves == 0


def test_what_only_one_engine_has_is_none_on_the_other(lighthouse):
    from tui_adventure.catalog import open_world

    native = open_game(open_world(str(WORLDS / "house.yaml")))
    assert native.goals is not None and native.goals.facts() and native.walkthrough is None
    assert native.engine is not None and native.valid_actions()
    # an uncatalogued story file: no par, no goals, no walkthrough, no valid actions or object tree
    assert (lighthouse.par, lighthouse.goals, lighthouse.walkthrough, lighthouse.engine) == (None,) * 4
    assert lighthouse.valid_actions() is None and lighthouse.object_tree() is None


def test_two_games_in_one_process_keep_their_own_state(lighthouse):
    from stories import new_story_game

    other = new_story_game()
    try:
        lighthouse.step("open chest")
        lighthouse.step("take key from chest")
        other.step("west")
        assert lighthouse.status().score == 5 and lighthouse.location() == "Beach"
        assert other.status().score == 0 and other.location() == "Keeper's Cottage"
    finally:
        other.close()


def test_a_command_is_one_line_of_the_game_input():
    from tui_adventure.zmachine.game import _plain_command, split_status

    assert _plain_command("open chest\nquit") == "open chest quit"
    assert _plain_command("é" * 500) == "?" * 190
    text, status = split_status("\nTaken.\n\n>" + " " * 128 + "Keeper's CottageScore: 5Moves: 3")
    assert (text, status) == ("Taken.", "Keeper's CottageScore: 5Moves: 3")


def test_a_question_the_game_asks_changes_no_figure(lighthouse):
    lighthouse.step("quit")                      # "Are you sure you want to quit?" waits for yes or no
    assert lighthouse.status().max_score == 30   # read at the start, not from an answer to the question
    lighthouse.step("n")
    lighthouse.step("open chest")
    lighthouse.step("take key from chest")
    lighthouse.step("restart")                   # another question, while 5 points are scored
    assert lighthouse.status().score == 5


def test_a_version_3_game_is_scored_and_placed_without_a_status_line():
    from stories import new_story_game

    game = new_story_game(STORIES / "tower.z3")
    try:
        assert game.location() == "Tower Gate" and game.status().max_score == 25
        for command in walkthrough("tower")[:2]:
            step = game.step(command)
        assert step.goal_score == 5 and game.status().score == 5
        assert not step.observation.startswith(">")   # the stale status line Jericho prints first is dropped
        game.step("restart")
        assert game.status().score == 5
    finally:
        game.close()


def test_the_games_own_file_commands_write_no_file(lighthouse, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    for command in ("save", "SAVE game", "script", "recording on", "restore"):
        step = lighthouse.step(command)
        assert "would write files" in step.observation
    assert list(tmp_path.iterdir()) == [] and lighthouse.status().moves == 0


def test_the_object_tree_nests_rooms_under_a_parent_jericho_numbers_0():
    """As Jericho gives zork1's table: the rooms' parent (object 3 here) carries number 0 and no name, so
    keying by number lost every room and looped on object 0; object n is the table's nth."""
    from types import SimpleNamespace as Obj

    from tui_adventure.zmachine.game import tree_lines

    table = [Obj(num=0, name="", parent=0), Obj(num=1, name="mailbox", parent=2),
             Obj(num=2, name="West House", parent=3), Obj(num=0, name="", parent=0),
             Obj(num=4, name="leaflet", parent=1), Obj(num=5, name="loop", parent=6), Obj(num=6, name="pool", parent=5)]
    assert tree_lines(table) == ["3: (no name)", "  2: West House", "    1: mailbox", "      4: leaflet"]
