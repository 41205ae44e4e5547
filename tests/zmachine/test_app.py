"""A story file in the Textual app and the REPL: the panels read the game without spending moves."""

from __future__ import annotations

import pytest

from pilot import settle, transcript, type_line
from stories import LIGHTHOUSE, STORIES, new_story_game
from conftest import adventure


def app_for(tmp_path, story=LIGHTHOUSE):
    from tui_adventure.app import make_app

    new_story_game().close()   # Jericho there, or the test fails naming the set-up
    return make_app(story, records=tmp_path / "records", saves=tmp_path / "saves", cursor_blink=False)


@pytest.mark.slow
async def test_the_panels_show_room_inventory_and_score_of_a_story_file(tmp_path):
    from tui_adventure.widgets.panels import InventoryPanel, RoomPanel, ScorePanel

    app = app_for(tmp_path)
    async with app.run_test(size=(110, 32)) as pilot:
        await settle(pilot)
        assert app.screen.query_one(RoomPanel).data.room == "Beach"
        await type_line(pilot, "open chest")
        await type_line(pilot, "take key from chest")
        await type_line(pilot, "west")
        await settle(pilot)
        data = app.screen.query_one(ScorePanel).data
        assert data.scored == (5, 30, 3)   # the inventory read for its panel spent no move
        assert app.screen.query_one(RoomPanel).data.room == "Keeper's Cottage"
        assert any("brass key" in line for line in app.screen.query_one(InventoryPanel).data.inventory)
        assert "Score 5 of 30" in str(app.screen.query_one("#score-text").render())
        assert "Score:" not in transcript(app)
        await type_line(pilot, "undo")
        await settle(pilot)
        assert app.screen.query_one(RoomPanel).data.room == "Beach"
        assert app.screen.query_one(ScorePanel).data.scored == (5, 30, 2)


@pytest.mark.slow
async def test_a_story_file_won_ends_the_episode_on_screen(tmp_path):
    from stories import walkthrough

    app = app_for(tmp_path)
    async with app.run_test(size=(110, 32)) as pilot:
        for command in walkthrough("lighthouse"):
            await type_line(pilot, command)
        await settle(pilot)
        assert "won after 12 turns: score 30 of 30, main score 100" in transcript(app)


def test_the_repl_plays_a_story_file_with_undo_and_score(tmp_path):
    lines = "open chest\ntake key from chest\nscore\nundo\nscore\nquit\n"
    result = adventure("repl", STORIES / "lighthouse.z5", "--records", tmp_path / "r", stdin=lines, cwd=tmp_path)
    assert result.returncode == 0, result.stderr
    assert "[score +5: 5 of 30]" in result.stdout
    assert "Score: 5 of 30, in 2 moves" in result.stdout and "Score: 0 of 30, in 1 move" in result.stdout


@pytest.mark.slow
async def test_the_debug_screen_shows_what_a_story_file_has(tmp_path):
    from textual.widgets import OptionList, Static

    from tui_adventure.screens.debug import DebugScreen

    app = app_for(tmp_path)
    async with app.run_test(size=(110, 32)) as pilot:
        await type_line(pilot, "open chest")
        await pilot.press("f4")
        await settle(pilot)
        assert isinstance(app.screen, DebugScreen)
        assert "no planner" in str(app.screen.query_one("#plan", Static).render())
        assert "keeps a score" in str(app.screen.query_one("#goal-facts", Static).render())
        commands = app.screen.query_one("#commands", OptionList)
        assert "catalogued games only" in str(commands.get_option_at_index(0).prompt)
        await pilot.press("escape")
        await settle(pilot)
        await type_line(pilot, "take key from chest")
        assert "Removed." in transcript(app)


def test_save_and_restore_of_a_story_file_replay_its_commands(tmp_path):
    lines = "open chest\ntake key from chest\nsave one\nwest\nsaves\nrestore one\nscore\nquit\n"
    result = adventure("repl", STORIES / "lighthouse.z5", "--records", tmp_path / "r", stdin=lines, cwd=tmp_path)
    assert result.returncode == 0, result.stderr
    assert "one  (turn 2," in result.stdout and "[restored one: turn 2]" in result.stdout
    assert "Score: 5 of 30, in 2 moves" in result.stdout.split("[restored one")[1]
    saved = next((tmp_path / "saves").rglob("one.json"))
    from tui_adventure.catalog import open_world
    from tui_adventure.keyboard.history import world_key

    cellar = tmp_path / "saves" / world_key(open_world(str(STORIES / "cellar.z5")))
    cellar.mkdir()
    (cellar / "one.json").write_bytes(saved.read_bytes())   # another game's save, put in this game's folder
    result = adventure("repl", STORIES / "cellar.z5", "--records", tmp_path / "r", stdin="saves\nrestore one\nquit\n",
                       cwd=tmp_path)
    assert "No saves of this world" in result.stdout and "a save of another story file (lighthouse.z5)" in result.stdout


@pytest.mark.slow
async def test_a_recorded_story_episode_replays_on_screen(tmp_path):
    from stories import walkthrough
    from tui_adventure.app import AdventureApp
    from tui_adventure.widgets.panels import RoomPanel, ScorePanel

    script = tmp_path / "w.txt"
    script.write_text("\n".join(walkthrough("lighthouse")))
    ran = adventure("run", LIGHTHOUSE, "--player", f"scripted:{script}", "--records", tmp_path / "rec", cwd=tmp_path)
    assert ran.returncode == 0, ran.stderr
    episode = next((tmp_path / "rec").rglob("interactions.json")).parent
    app = AdventureApp(replay=episode, cursor_blink=False)
    async with app.run_test(size=(110, 32)) as pilot:
        await pilot.pause()
        await pilot.press("end")
        await settle(pilot)
        assert app.screen.query_one(RoomPanel).data.room == "Lamp Room"
        assert app.screen.query_one(ScorePanel).data.scored == (30, 30, 12)


def test_an_unfinished_story_episode_continues_in_its_folder(tmp_path):
    first = adventure("repl", LIGHTHOUSE, "--records", tmp_path / "r", stdin="open chest\ntake key from chest\nquit\n",
                      cwd=tmp_path)
    assert first.returncode == 0, first.stderr
    again = adventure("repl", LIGHTHOUSE, "--records", tmp_path / "r", stdin="score\nquit\n", cwd=tmp_path)
    assert again.returncode == 0, again.stderr
    assert "[continuing your unfinished game: turn 3" in again.stdout
    assert "Score: 5 of 30, in 2 moves" in again.stdout


@pytest.mark.slow
async def test_blind_play_of_a_story_file_hides_the_score(tmp_path):
    from tui_adventure.app import make_app

    new_story_game().close()
    app = make_app(LIGHTHOUSE, records=tmp_path / "records", saves=tmp_path / "saves", cursor_blink=False, blind=True)
    async with app.run_test(size=(110, 32)) as pilot:
        await type_line(pilot, "open chest")
        await type_line(pilot, "take key from chest")
        await type_line(pilot, "score")
        await settle(pilot)
        shown = str(app.screen.query_one("#score-text").render())
        assert "Turn 2/100" in shown and "Score" not in shown
        assert "Score: 5" not in transcript(app) and "Turns: 2/100" in transcript(app)
