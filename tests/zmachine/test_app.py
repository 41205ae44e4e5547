"""A story file in the Textual app and the REPL: the panels read the game without spending moves."""

from __future__ import annotations

from pilot import settle, transcript, type_line
from stories import LIGHTHOUSE, STORIES, new_story_game
from conftest import adventure


def app_for(tmp_path, story=LIGHTHOUSE):
    from tui_adventure.app import make_app

    new_story_game().close()   # Jericho there, or the test fails naming the set-up
    return make_app(story, records=tmp_path / "records", saves=tmp_path / "saves", cursor_blink=False)


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
