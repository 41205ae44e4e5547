"""Narrow screens (a phone's 41 columns, a narrow terminal's 45): the panels' essentials stay in view.

Below 72 columns the side panels give way to a line of figures and the goals under the transcript, and
words to tap stand in for the footer's keys; at 80 columns and wider the panels are back.
"""

import pytest
from conftest import WORLDS
from pilot import settle, type_line

from tui_adventure.app import AdventureApp, make_app
from tui_adventure.screens.help import HelpScreen
from tui_adventure.study import StudyRun, load_study
from tui_adventure.widgets.transcript import TranscriptLog


def app_for(tmp_path, world="tutorial.yaml"):
    return make_app(WORLDS / world, records=tmp_path / "records", saves=tmp_path / "saves", cursor_blink=False)


def shown(screen, selector: str) -> str:
    """What the widget draws, when it is on screen and inside it; "" when it is not shown at all."""
    widget = screen.query_one(selector)
    if not widget.display or widget.region.area == 0:
        return ""
    assert widget.region.right <= screen.size.width, f"{selector} is cut at the right edge"
    return str(widget.render())


async def tap(pilot, word: str) -> None:
    """Click the word in the tap bar, as a finger on a phone would."""
    bar = pilot.app.screen.query_one("#taps")
    await pilot.click("#taps", offset=(str(bar.render()).index(word) + 1, 0))
    await pilot.pause()


def log_lines(screen) -> list[str]:
    return [strip.text.rstrip() for strip in screen.query_one(TranscriptLog).lines]


@pytest.mark.slow
async def test_at_45_columns_a_line_of_figures_stands_for_the_panels(tmp_path):
    app = app_for(tmp_path)
    async with app.run_test(size=(45, 40)) as pilot:
        await settle(pilot)
        screen = app.screen
        figures = shown(screen, "#figures")
        assert "turn 0/30 · par 4 · goals 0/1 · score 0" in figures
        assert "[ ] the letter is in the mailbox" in figures
        assert shown(screen, "#side") == "" and shown(screen, "Footer") == ""
        assert all(word in shown(screen, "#taps") for word in ("Help", "Panels", "Menu", "Quit"))
        await type_line(pilot, "take letter")
        await settle(pilot)
        assert "turn 1/30 · par 4 · goals 0/1 · score 0" in shown(screen, "#figures")

        await tap(pilot, "Panels")   # the panels come under the transcript, whole
        side = screen.query_one("#side")
        assert side.display and side.region.width == 45
        assert "letter" in shown(screen, "#inventory")
        await tap(pilot, "Panels")
        assert shown(screen, "#side") == ""

        await tap(pilot, "Help")     # and the help closes by a tap too: a phone has no Esc
        assert isinstance(app.screen, HelpScreen)
        await tap(pilot, "Close")
        assert app.screen is screen


@pytest.mark.slow
async def test_at_80x24_the_panels_stand_beside_the_transcript_and_come_back_when_widened(tmp_path):
    app = app_for(tmp_path)
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot)
        screen = app.screen
        assert "Turn 0/30  par 4" in shown(screen, "#score-text")
        assert screen.query_one("#side").region.x >= 40
        assert shown(screen, "#figures") == "" and shown(screen, "#taps") == ""
        assert screen.query_one("Footer").display
        await pilot.press("f2")   # off here: each width keeps its own choice
        assert shown(screen, "#side") == ""
        await pilot.press("f2")
        assert "Turn 0/30" in shown(screen, "#score-text")
        await pilot.resize_terminal(45, 40)
        await settle(pilot)
        assert "turn 0/30" in shown(screen, "#figures") and shown(screen, "#side") == ""
        await pilot.resize_terminal(100, 30)
        await settle(pilot)
        assert "Turn 0/30" in shown(screen, "#score-text") and shown(screen, "#figures") == ""


async def test_a_participant_at_41_columns_sees_turns_and_goals_and_nothing_blind_play_hides(tmp_path):
    (tmp_path / "study.yaml").write_text("title: Narrow\nworlds: [tutorial]\n")   # blind, as every study
    run = StudyRun(load_study(tmp_path / "study.yaml"), "p01", tmp_path / "records")
    app = AdventureApp(study=run, cursor_blink=False)
    async with app.run_test(size=(41, 40)) as pilot:
        await pilot.press("enter")   # past the pause before the world
        await settle(pilot)
        figures = shown(app.screen, "#figures")
        assert "turn 0/30" in figures and "- the letter is in the mailbox" in figures
        assert "par" not in figures and "goals 0/1" not in figures and "score" not in figures
        assert shown(app.screen, "#side") == ""


@pytest.mark.slow
async def test_the_tutorials_table_is_stacked_where_its_rows_do_not_fit(tmp_path):
    app = app_for(tmp_path)
    async with app.run_test(size=(45, 40)) as pilot:
        await settle(pilot)
        lines = log_lines(app.screen)
        at = lines.index("  put letter in mailbox")   # the command alone on its line, what it does under it
        assert lines[at + 1].strip() == "put something into something else"
        assert lines[lines.index("  look") + 1].strip().startswith("describe where you are")
        await pilot.resize_terminal(160, 40)   # wide: the table as written
        await settle(pilot)
        assert "  put letter in mailbox   put something into something else" in log_lines(app.screen)
