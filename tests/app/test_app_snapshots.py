"""SVG snapshots of the app at 80x24 and 120x40, and one at 45x40 (pytest-textual-snapshot).

Deterministic by construction: cursor blink off, focus pinned by the screen's
AUTO_FOCUS, records and history in a temporary directory, no clock in the
header. Behaviour is asserted inside ``run_before`` so a snapshot can only
pass when the screen shows what the test expects. Update with
``pytest tests/app/test_app_snapshots.py --snapshot-update`` after a deliberate
change of the layout.
"""


import pytest
from conftest import WORLDS

from tui_adventure.app import make_app
from tui_adventure.widgets.command_line import CommandLine
from tui_adventure.widgets.panels import RoomPanel, ScorePanel


def app_for(tmp_path, world="house.yaml"):
    return make_app(WORLDS / world, records=tmp_path / "records", saves=tmp_path / "saves", cursor_blink=False)


async def play(pilot, *lines):
    screen = pilot.app.screen
    for line in lines:
        await screen.on_command_line_entered(CommandLine.Entered(line))
    await settle(pilot)


async def settle(pilot):
    """The progress bar is filled by a worker: wait for it, or the picture depends on timing."""
    import asyncio

    from textual.worker import WorkerState

    for _ in range(2000):
        await pilot.pause()
        if not any(w.state in (WorkerState.PENDING, WorkerState.RUNNING) for w in pilot.app.workers):
            break
        await asyncio.sleep(0.01)
    await pilot.pause()


def fits(pilot):
    """At 80x24 every side panel is whole on screen: the column has nothing to scroll to."""
    side = pilot.app.screen.query_one("#side")
    assert side.max_scroll_y == 0, f"the side panels need {side.max_scroll_y} more rows"


def test_start_80x24(snap_compare, tmp_path):
    async def run_before(pilot):
        await settle(pilot)
        assert pilot.app.screen.query_one(RoomPanel).data.room == "Hallway"
        fits(pilot)
        log = pilot.app.screen.query_one("#log")
        assert log.scroll_y == 0 and log.max_scroll_y > 0   # the intro read from its first line: the title

    assert snap_compare(app_for(tmp_path), terminal_size=(80, 24), run_before=run_before)


@pytest.mark.slow
def test_tutorial_start_45x40(snap_compare, tmp_path):
    """A narrow terminal (a phone's browser is 41): the figures and the goals under the transcript, the
    tutorial's table stacked, words to tap for the footer's keys; no panel off the right edge."""
    async def run_before(pilot):
        await settle(pilot)
        screen = pilot.app.screen
        assert "turn 0/30 · par 4 · goals 0/1 · score 0" in str(screen.query_one("#figures").render())
        assert not screen.query_one("#side").display and screen.query_one("#taps").display

    assert snap_compare(app_for(tmp_path, "tutorial.yaml"), terminal_size=(45, 40), run_before=run_before)


@pytest.mark.slow
def test_midgame_120x40(snap_compare, tmp_path):
    async def run_before(pilot):
        await play(pilot, "up", "north", "take lamp", "xyzzy")
        panels = pilot.app.screen.query_one(RoomPanel).data
        assert panels.inventory == ["oil lamp"] and panels.goals_achieved == 1

    assert snap_compare(app_for(tmp_path), terminal_size=(120, 40), run_before=run_before)


@pytest.mark.slow
def test_won_tutorial_80x24(snap_compare, tmp_path):
    async def run_before(pilot):
        from tui_adventure.engine.planning.planner import solve_world

        plan = solve_world(pilot.app.session.world)
        await play(pilot, *plan.commands, "done")
        assert pilot.app.session.episode.ended and pilot.app.session.episode.outcome.success
        fits(pilot)
        player = str(pilot.app.screen.query_one("#player").render())
        assert "episode over" in player and "undo, restart or quit" in player and "playing" not in player

    assert snap_compare(app_for(tmp_path, "tutorial.yaml"), terminal_size=(80, 24), run_before=run_before)


@pytest.mark.slow
def test_help_80x24(snap_compare, tmp_path):
    async def run_before(pilot):
        await settle(pilot)
        await pilot.press("f1")
        await pilot.pause()
        assert type(pilot.app.screen).__name__ == "HelpScreen"
        body = pilot.app.screen.query_one("#help-body")
        assert "Esc closes" in str(body.border_subtitle) and body.max_scroll_y > 0   # it scrolls, and says how to leave
        assert pilot.app.screen.focused is body

    assert snap_compare(app_for(tmp_path), terminal_size=(80, 24), run_before=run_before)


@pytest.mark.slow
def test_debug_120x40(snap_compare, tmp_path):
    async def run_before(pilot):
        await play(pilot, "go north")
        await pilot.press("f4")
        await settle(pilot)
        screen = pilot.app.screen
        assert type(screen).__name__ == "DebugScreen"
        assert screen.focused.id == "fact-filter"          # F4 opens ready to type a filter
        await pilot.press("ctrl+n")                         # tabs switch from the keyboard
        await settle(pilot)
        assert screen.query_one("#debug-tabs").active == "tab-commands"
        assert screen.query_one("#commands").option_count > 3

    assert snap_compare(app_for(tmp_path), terminal_size=(120, 40), run_before=run_before)


@pytest.mark.slow
def test_debug_80x24(snap_compare, tmp_path):
    async def run_before(pilot):
        await play(pilot, "west", "take red book")
        await pilot.press("f4")
        await settle(pilot)
        screen = pilot.app.screen
        assert type(screen).__name__ == "DebugScreen" and screen.focused.id == "fact-filter"
        await pilot.press("ctrl+b")                          # the last tab: Turns, with the optimal moves
        await settle(pilot)
        assert str(screen.query_one("#turns").get_option_at_index(2).prompt) == "2: take red book   = optimal"

    assert snap_compare(app_for(tmp_path), terminal_size=(80, 24), run_before=run_before)


def _replay_app(tmp_path):
    import asyncio

    from tui_adventure.app import AdventureApp
    from tui_adventure.batches.episodes import run_all

    asyncio.run(run_all([WORLDS / "tutorial.yaml"], "oracle", tmp_path / "rec", 1))
    episode = next((tmp_path / "rec").rglob("interactions.json")).parent
    return AdventureApp(replay=episode, cursor_blink=False)


@pytest.mark.slow
def test_replay_won_80x24(snap_compare, tmp_path):
    async def run_before(pilot):
        await pilot.pause()
        await pilot.press("end")
        await pilot.pause()
        from tui_adventure.widgets.panels import ScorePanel

        data = pilot.app.screen.query_one(ScorePanel).data
        assert data.progress == 1.0 and data.par == 4

    assert snap_compare(_replay_app(tmp_path), terminal_size=(80, 24), run_before=run_before)


@pytest.mark.slow
def test_replay_midway_120x40(snap_compare, tmp_path):
    async def run_before(pilot):
        await pilot.pause()
        await pilot.press("right", "right")
        await pilot.pause()
        assert "turn 2 of" in str(pilot.app.screen.query_one("#replay-status").render())

    assert snap_compare(_replay_app(tmp_path), terminal_size=(120, 40), run_before=run_before)


def test_blind_midgame_80x24(snap_compare, tmp_path):
    """What a study's participant sees: no par, progress bar, score or ticked goals; unvisited rooms unnamed."""
    async def run_before(pilot):
        await play(pilot, "up", "north", "take lamp")
        panels = pilot.app.screen.query_one(RoomPanel).data
        assert panels.blind and panels.par is None and panels.goals_achieved is None

    app = make_app(WORLDS / "house.yaml", records=tmp_path / "records", saves=tmp_path / "saves",
                   cursor_blink=False, blind=True)
    assert snap_compare(app, terminal_size=(80, 24), run_before=run_before)


@pytest.mark.slow
def test_hot_seat_midgame_80x24(snap_compare, tmp_path, monkeypatch):
    """Two seats at one keyboard: after Ava's move the transcript and the panels are Bo's."""
    monkeypatch.setattr("tui_adventure.keyboard.session.PROGRESS_SECONDS", 600)   # par by nodes, never by a busy clock

    async def run_before(pilot):
        await play(pilot, "take button")
        panels = pilot.app.screen.query_one(RoomPanel).data
        assert panels.room == "Hedge path" and "Bo's turn" in panels.player
        said = pilot.app.screen.query_one("#transcript").lines[-2]
        assert "Hedge path" in said.split("It is now Bo's turn.")[1]
        assert pilot.app.screen.query_one(ScorePanel).data.par == 14
        fits(pilot)

    assert snap_compare(app_for(tmp_path, "labyrinth.yaml"), terminal_size=(80, 24), run_before=run_before)


def test_study_intermission_80x24(snap_compare, tmp_path):
    from conftest import ROOT

    from tui_adventure.app import AdventureApp
    from tui_adventure.study import StudyRun, load_study

    run = StudyRun(load_study(ROOT / "studies" / "pilot.yaml"), "p01", tmp_path / "records")

    async def run_before(pilot):
        await pilot.pause()
        assert type(pilot.app.screen).__name__ == "IntermissionScreen"

    assert snap_compare(AdventureApp(study=run, cursor_blink=False), terminal_size=(80, 24), run_before=run_before)
