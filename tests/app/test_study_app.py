"""Blind play and studies in the Textual app, driven through Pilot."""

from __future__ import annotations

import pytest

from conftest import WORLDS
from pilot import settle, transcript, type_line

from tui_adventure.app import AdventureApp, make_app
from tui_adventure.screens.play import PlayScreen
from tui_adventure.screens.study import IntermissionScreen
from tui_adventure.study import StudyRun, load_study
from tui_adventure.widgets.panels import GoalsPanel, RoomPanel, ScorePanel

SOLUTION = (WORLDS / "solutions" / "tutorial.txt").read_text().strip().splitlines()


def shown(app, widget) -> str:
    panel = app.screen.query_one(widget)
    return str(panel.render()) if widget is not ScorePanel else str(panel.query_one("#score-text").render())


@pytest.mark.slow
async def test_blind_play_hides_par_progress_score_planner_and_players(tmp_path):
    app = make_app(WORLDS / "house.yaml", records=tmp_path / "records", saves=tmp_path / "saves",
                   cursor_blink=False, blind=True)
    async with app.run_test(size=(100, 30)) as pilot:
        await type_line(pilot, "up")
        await settle(pilot)
        score = shown(app, ScorePanel)
        assert "Turn 1" in score and "par" not in score and "Main" not in score and "Goals" not in score
        assert "[x]" not in shown(app, GoalsPanel) and "[ ]" not in shown(app, GoalsPanel)
        room = shown(app, RoomPanel)
        assert "?" in room and "Hallway" not in room.split("Exits:")[1].replace("down: Hallway", "")
        assert not app.screen.query_one("#progress").display
        await pilot.press("f4")
        await pilot.pause()
        assert isinstance(app.screen, PlayScreen)   # no debug screen
        titles = [c.title for c in app.get_system_commands(app.screen)]
        assert not [t for t in titles if t.startswith("Player:") or "Debug" in t or "Undo" in t]
        await type_line(pilot, "undo")
        assert "undo is not available here" in transcript(app)
        assert app.session.episode.turns and len(app.session.episode.turns) == 1


@pytest.mark.slow
async def test_a_study_in_the_app_goes_from_world_to_world(tmp_path):
    path = tmp_path / "study.yaml"
    path.write_text("title: Two tutorials\ninstructions: Read the task, then play.\n"
                    "worlds:\n  - tutorial\n  - clembench/home_deliver_three_basic_easy/0\n")
    run = StudyRun(load_study(path), "pilot1", tmp_path / "records")
    app = AdventureApp(study=run, cursor_blink=False)
    async with app.run_test(size=(100, 30)) as pilot:
        assert isinstance(app.screen, IntermissionScreen)
        assert "Read the task, then play." in str(app.screen.query_one("#intermission").render())
        await pilot.press("enter")
        await pilot.pause()
        assert isinstance(app.screen, PlayScreen) and app.session.world.game == "tutorial"
        for line in SOLUTION + ["done"]:
            await type_line(pilot, line)
        assert "Press Enter to go on." in transcript(app)
        await type_line(pilot, "")
        assert isinstance(app.screen, IntermissionScreen)
        assert "1 of 2 done" in str(app.screen.query_one("#intermission").render())
        await pilot.press("enter")
        await pilot.pause()
        assert app.session.world.is_clembench()
        await type_line(pilot, "quit")
    assert run.done_count() == 1
    assert (tmp_path / "records/human-pilot1/tutorial/tutorial/instance_00000/completed.json").exists()


@pytest.mark.slow
async def test_the_time_limit_ends_a_world_while_the_participant_thinks(tmp_path):
    path = tmp_path / "study.yaml"
    # a limit a loaded machine cannot reach before the command is in (its Enter would then go on)
    path.write_text("title: Hurry\nworlds:\n  - world: tutorial\n    time_limit: 5\n")
    run = StudyRun(load_study(path), "slow", tmp_path / "records")
    app = AdventureApp(study=run, cursor_blink=False)
    async with app.run_test(size=(100, 30)) as pilot:
        await pilot.press("enter")
        await pilot.pause()
        await type_line(pilot, "take letter")
        assert "the time limit ran out" not in transcript(app)
        for _ in range(600):   # the participant thinks until the limit ends the world
            await pilot.pause(0.1)
            if "Press Enter to go on." in transcript(app):
                break
        assert "the time limit ran out" in transcript(app) and "Press Enter to go on." in transcript(app)
        assert app.session.episode.ended_by == "time_limit"
        await type_line(pilot, "")
        assert isinstance(app.screen, IntermissionScreen)
        assert "The world of Hurry is done" in str(app.screen.query_one("#intermission").render())
    assert run.done_count() == 1


@pytest.mark.slow
async def test_consent_comes_first_in_the_app_and_the_end_shows_the_completion_code(tmp_path):
    from textual.widgets import Button

    from tui_adventure.screens.study import ConsentScreen

    path = tmp_path / "study.yaml"
    path.write_text("title: Agree first\nconsent: '**We record** what you type.'\nworlds: [tutorial]\n"
                    "completion_code: C0DE42\ncompletion_url: https://example.org/done?cc=C0DE42\n")
    run = StudyRun(load_study(path), "c1", tmp_path / "records")
    app = AdventureApp(study=run, cursor_blink=False)
    async with app.run_test(size=(100, 30)) as pilot:
        assert isinstance(app.screen, ConsentScreen)
        await pilot.press("enter")   # typed ahead: the agree button is not focused, nothing is agreed
        assert isinstance(app.screen, ConsentScreen) and run.needs_consent()
        app.screen.query_one("#agree", Button).press()
        await pilot.pause()
        assert isinstance(app.screen, IntermissionScreen) and run.consented
        await pilot.press("enter")
        await pilot.pause()
        for line in SOLUTION + ["done"]:
            await type_line(pilot, line)
        await type_line(pilot, "")
        await pilot.pause()
        shown = str(app.screen.query_one("#intermission").render())
        assert "Your completion code: C0DE42" in shown and "Finish at: https://example.org/done?cc=C0DE42" in shown
        assert "Press Enter to close." in shown


async def test_declining_in_the_app_ends_the_study(tmp_path):
    from textual.widgets import Button

    path = tmp_path / "study.yaml"
    path.write_text("title: Agree first\nconsent: We record what you type.\nworlds: [tutorial]\n")
    run = StudyRun(load_study(path), "c2", tmp_path / "records")
    app = AdventureApp(study=run, cursor_blink=False)
    async with app.run_test(size=(100, 30)) as pilot:
        app.screen.query_one("#decline", Button).press()
        await pilot.pause()
        assert "Nothing was recorded but that you declined" in str(app.screen.query_one("#intermission").render())
        await pilot.press("enter")
        await pilot.pause()
    assert not app.is_running and run.needs_consent()
    assert not (tmp_path / "records/human-c2").exists()


@pytest.mark.slow
async def test_a_participant_sees_the_worlds_place_in_the_study_not_its_id(tmp_path):
    path = tmp_path / "study.yaml"
    path.write_text("title: Chores\npractice: tutorial\nworlds:\n  - clembench/home_deliver_three_basic_easy/0\n"
                    "  - house\n")
    run = StudyRun(load_study(path), "p1", tmp_path / "records")
    app = AdventureApp(study=run, cursor_blink=False)
    async with app.run_test(size=(100, 30)) as pilot:
        await pilot.press("enter")
        await pilot.pause()
        assert (app.screen.title, app.screen.sub_title) == ("Chores: Practice", "")
        for line in SOLUTION + ["done", ""]:
            await type_line(pilot, line)
        await pilot.press("enter")
        await pilot.pause()
        assert isinstance(app.screen, PlayScreen) and app.session.world.is_clembench()
        assert (app.screen.title, app.screen.sub_title) == ("Chores: World 1 of 2", "")
        assert transcript(app).splitlines()[0] == "Chores: World 1 of 2"
        assert "home_deliver" not in transcript(app).splitlines()[0]
        await type_line(pilot, "quit")


@pytest.mark.slow
async def test_a_clembench_studys_practice_teaches_go_and_no_look(tmp_path):
    path = tmp_path / "study.yaml"
    path.write_text("title: Chores\npractice: tutorial\nworlds:\n  - clembench/home_deliver_three_basic_easy/0\n"
                    "  - clembench/home_deliver_three_basic_hard/0\n")
    run = StudyRun(load_study(path), "p1", tmp_path / "records")
    app = AdventureApp(study=run, cursor_blink=False)
    async with app.run_test(size=(100, 30)) as pilot:
        await pilot.press("enter")
        await pilot.pause()
        assert isinstance(app.screen, PlayScreen) and app.screen.title == "Chores: Practice"
        assert "go pantry" in transcript(app) and 'There is no "look"' in transcript(app)
        for line in ["look", "take banana", "go pantry", "open refrigerator", "put banana in refrigerator"]:
            await type_line(pilot, line)
        await settle(pilot)
        shown_text = transcript(app)
        assert "I don't know how to interpret this 'look' action." in shown_text   # as in the worlds after it
        assert "You put the banana in the refrigerator." in shown_text
        await type_line(pilot, "quit")
