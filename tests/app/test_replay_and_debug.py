"""The replay screen and the debug screen, driven through Pilot (test_app.py has the play screen).

Input text is set directly and only the keys under test are pressed (each
press costs ~0.1 s here).
"""

import pytest

from conftest import WORLDS
from pilot import app_for, settle, transcript, type_line

from tui_adventure.app import AdventureApp
from tui_adventure.screens.debug import DebugScreen
from tui_adventure.screens.play import PlayScreen
from tui_adventure.widgets.panels import RoomPanel, ScorePanel


@pytest.mark.slow
async def test_debug_screen_runs_an_admissible_command_and_jumps_back(tmp_path):
    app = app_for(tmp_path)
    async with app.run_test(size=(120, 40)) as pilot:
        await type_line(pilot, "go north")
        await type_line(pilot, "go south")
        await pilot.press("f4")
        await pilot.pause()
        screen = app.screen
        assert isinstance(screen, DebugScreen)
        from textual.widgets import OptionList, Static

        commands = screen.query_one("#commands", OptionList)
        ids = [commands.get_option_at_index(i).id for i in range(commands.option_count)]
        assert "go north" in ids and "done" in ids
        facts = screen.query_one("#facts", OptionList)
        screen.query_one("#fact-filter").value = "umbrella"
        await pilot.pause()
        assert 0 < facts.option_count < 10
        await settle(pilot)
        assert "21 turns from here" in str(screen.query_one("#plan", Static).render())
        # jump back to turn 1 (in the kitchen)
        screen.query_one("#debug-tabs").active = "tab-turns"
        turns = screen.query_one("#turns", OptionList)
        turns.focus()
        turns.highlighted = 1
        await pilot.press("enter")
        await pilot.pause()
        assert isinstance(app.screen, PlayScreen)
        assert app.screen.query_one(RoomPanel).data.room == "Kitchen"
        assert len(app.screen.session.episode.turns) == 1
        # and an admissible command chosen there is played
        await pilot.press("f4")
        await pilot.pause()
        app.screen.query_one("#debug-tabs").active = "tab-commands"
        commands = app.screen.query_one("#commands", OptionList)
        commands.focus()
        commands.highlighted = next(i for i in range(commands.option_count)
                                    if commands.get_option_at_index(i).id == "go south")
        await pilot.press("enter")
        await pilot.pause()
        assert app.screen.query_one(RoomPanel).data.room == "Hallway"


async def oracle_replay(tmp_path) -> AdventureApp:
    """The app replaying the oracle's tutorial episode."""
    from tui_adventure.batches.episodes import run_all

    await run_all([WORLDS / "tutorial.yaml"], "oracle", tmp_path / "rec", 1)
    return AdventureApp(replay=next((tmp_path / "rec").rglob("interactions.json")).parent)


@pytest.mark.slow
async def test_replay_steps_forward_and_back(tmp_path):
    app = await oracle_replay(tmp_path)
    async with app.run_test(size=(100, 30)) as pilot:
        await pilot.pause()
        screen = app.screen
        start_goals = screen.query_one(ScorePanel).data.goals_achieved
        await pilot.press("end")
        assert screen.query_one(ScorePanel).data.goals_achieved == screen.query_one(ScorePanel).data.goal_count
        assert screen.query_one(ScorePanel).data.goals_achieved > start_goals
        await pilot.press("home")
        assert screen.query_one(ScorePanel).data.turns == 0
        await pilot.press("right", "right")
        assert screen.query_one(ScorePanel).data.turns == 2
        await pilot.press("left")
        assert screen.query_one(ScorePanel).data.turns == 1


@pytest.mark.slow
async def test_replay_of_an_imported_clembench_episode(tmp_path):
    """Imported worlds record where their world file is, so replay needs no --world."""
    from clem_helpers import INSTANCES

    from tui_adventure.batches.episodes import run_all
    from tui_adventure.instances.convert import import_instances

    written = import_instances(INSTANCES, tmp_path / "imp")
    world = next(p for p in written if p.name == "instance_00000.yaml" and "basic_easy" in str(p))
    await run_all([world], "oracle", tmp_path / "rec", 1)
    episode_dir = next((tmp_path / "rec").rglob("interactions.json")).parent
    app = AdventureApp(replay=episode_dir)
    async with app.run_test(size=(100, 30)) as pilot:
        await pilot.pause()
        await pilot.press("end")
        data = app.screen.query_one(ScorePanel).data
        assert data.goals_achieved == data.goal_count == 3 and data.ended
        assert "> done" in transcript(app)


@pytest.mark.slow
async def test_the_debug_screen_is_driven_from_the_keyboard_and_shows_every_turn(tmp_path):
    app = app_for(tmp_path)
    async with app.run_test(size=(120, 40)) as pilot:
        for line in ["up", "down"] * 6 + ["west"]:          # 13 turns: one more than the last 12
            await type_line(pilot, line)
        await pilot.press("f4")
        await settle(pilot)
        screen = app.screen
        assert isinstance(screen, DebugScreen) and screen.focused.id == "fact-filter"
        await pilot.press("b", "o", "o", "k")              # typing filters at once
        assert "book" in str(screen.query_one("#facts").get_option_at_index(0).prompt)
        await pilot.press("ctrl+n", "ctrl+n", "ctrl+n", "ctrl+n")
        assert screen.query_one("#debug-tabs").active == "tab-events"
        events = str(screen.query_one("#events").render())
        assert "turn 1: 'up'" in events and "turn 13: 'west'" in events   # every turn, not the last 12
        await pilot.press("ctrl+n")
        await settle(pilot)
        turns = screen.query_one("#turns")
        first, second = (str(turns.get_option_at_index(i).prompt) for i in (1, 2))
        assert first.startswith("1: up   = optimal (as go ")    # as good as the planner's own choice
        assert second == "2: down   ≠ optimal: go north"        # back where it started: a wasted move
        await pilot.press("/")
        assert screen.query_one("#debug-tabs").active == "tab-facts" and screen.focused.id == "fact-filter"


@pytest.mark.slow
async def test_replay_shows_par_and_full_progress_and_opens_the_debug_screen(tmp_path):
    app = await oracle_replay(tmp_path)
    async with app.run_test(size=(100, 30)) as pilot:
        await pilot.pause()
        await pilot.press("end")
        data = app.screen.query_one(ScorePanel).data
        assert data.par == 4 and data.progress == 1.0 and data.moves_over_par == 0
        await pilot.press("f4")
        await settle(pilot)
        assert isinstance(app.screen, DebugScreen)
        assert "all goals are achieved" in str(app.screen.query_one("#plan").render())
