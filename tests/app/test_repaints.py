"""What a browser study made cheaper must still be what a person sees: the command line and the log
no longer lay the screen out on every key or line, and a panel of the same height is only repainted."""

import pytest
from conftest import WORLDS
from pilot import type_line

from tui_adventure.app import make_app
from tui_adventure.widgets.command_line import CommandLine
from tui_adventure.widgets.panels import ScorePanel


def app_for(tmp_path):
    return make_app(WORLDS / "house.yaml", records=tmp_path / "records", saves=tmp_path / "saves", cursor_blink=False)


@pytest.mark.slow
async def test_a_line_longer_than_the_box_keeps_its_end_in_view_and_the_panels_follow_the_game(tmp_path):
    """The command line and the log no longer lay the screen out on every key or line (a browser study's
    CPU): the line must still scroll to what is typed, the log to its newest line, and a panel whose text
    changes at the same height must still show the new text."""
    app = app_for(tmp_path)
    async with app.run_test(size=(80, 24)) as pilot:
        line = app.screen.query_one(CommandLine)
        line.value = "examine " + "the very long and winding description " * 3
        line.cursor_position = len(line.value)
        await pilot.press("Z")
        await pilot.pause()
        x, y = line.cursor_screen_offset   # the cursor, just after the Z, is on the screen inside the box
        assert line.scroll_x > 0 and line.region.contains(x, y)
        before = str(app.screen.query_one(ScorePanel).query_one("#score-text").render())
        for _ in range(3):
            await type_line(pilot, "look")
        after = str(app.screen.query_one(ScorePanel).query_one("#score-text").render())
        assert "Turn 3/" in after and "Turn 3/" not in before
        log = app.screen.query_one("#log")
        assert log.scroll_y == log.max_scroll_y > 0   # the newest line in view, scrolled to by itself
