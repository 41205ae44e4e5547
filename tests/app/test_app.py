"""The Textual app driven through Pilot: what a person at the keyboard would notice.

Input text is set directly and only the keys under test are pressed (each
press costs ~0.1 s here).
"""

import json

import pytest

from pilot import app_for, settle, transcript, type_line

from tui_adventure.app import make_app
from tui_adventure.screens.debug import DebugScreen
from tui_adventure.screens.play import PlayScreen
from tui_adventure.widgets.command_line import CommandLine
from tui_adventure.widgets.panels import GoalsPanel, RoomPanel, ScorePanel


def interactions(tmp_path, run="human") -> dict:
    path = next((tmp_path / "records" / run).rglob("interactions.json"))
    return json.loads(path.read_text())


@pytest.mark.slow
async def test_typed_command_reaches_transcript_panels_and_records(tmp_path):
    app = app_for(tmp_path)
    async with app.run_test(size=(100, 30)) as pilot:
        assert isinstance(app.screen, PlayScreen)
        assert app.focused is app.screen.query_one(CommandLine)
        await type_line(pilot, "go north")
        assert "> go north" in transcript(app)
        assert "Kitchen" in transcript(app)
        assert app.screen.query_one(RoomPanel).data.room == "Kitchen"
        assert interactions(tmp_path)["meta"]["round_count"] == 1


async def test_unknown_command_is_an_in_game_message(tmp_path):
    app = app_for(tmp_path)
    async with app.run_test(size=(100, 30)) as pilot:
        await type_line(pilot, "xyzzy the %$# frobozz")
        assert "I don't know the verb" in transcript(app)
        assert app.screen.query_one(ScorePanel).data.invalid == 1


@pytest.mark.slow
async def test_history_up_and_down(tmp_path):
    app = app_for(tmp_path)
    async with app.run_test(size=(100, 30)) as pilot:
        await type_line(pilot, "look")
        await type_line(pilot, "go north")
        line = app.screen.query_one(CommandLine)
        await pilot.press("up")
        assert line.value == "go north"
        await pilot.press("up")
        assert line.value == "look"
        await pilot.press("down")
        assert line.value == "go north"
    # kept per world for the next session
    assert (tmp_path / "home" / "history").exists()
    app2 = app_for(tmp_path)
    async with app2.run_test(size=(100, 30)) as pilot:
        await pilot.press("up")
        assert app2.screen.query_one(CommandLine).value == "go north"


async def test_tab_completes_verbs_and_things_in_sight(tmp_path):
    app = app_for(tmp_path)
    async with app.run_test(size=(100, 30)) as pilot:
        line = app.screen.query_one(CommandLine)
        line.value, line.cursor_position = "exam", 4
        await pilot.press("tab")
        assert line.value == "examine "
        line.value = "examine umb"
        line.cursor_position = len(line.value)
        await pilot.press("tab")
        assert line.value == "examine umbrella stand "


@pytest.mark.slow
async def test_undo_takes_the_turn_back_everywhere(tmp_path):
    app = app_for(tmp_path)
    async with app.run_test(size=(100, 30)) as pilot:
        await type_line(pilot, "go north")
        await type_line(pilot, "undo")
        assert app.screen.query_one(RoomPanel).data.room == "Hallway"
        assert app.screen.query_one(ScorePanel).data.turns == 0
        assert interactions(tmp_path)["meta"]["round_count"] == 0


@pytest.mark.slow
async def test_save_and_restore(tmp_path):
    app = app_for(tmp_path)
    async with app.run_test(size=(100, 30)) as pilot:
        await type_line(pilot, "go north")
        await type_line(pilot, "save here")
        (saved,) = (tmp_path / "saves").rglob("here.json")   # in the house's own folder of saves
        assert saved.parent.name.startswith("house-")
        await type_line(pilot, "go south")
        assert app.screen.query_one(RoomPanel).data.room == "Hallway"
        await type_line(pilot, "restore here")
        assert app.screen.query_one(RoomPanel).data.room == "Kitchen"
        assert app.screen.query_one(ScorePanel).data.turns == 1
        await type_line(pilot, "restore nosuchsave")
        assert "nosuchsave" in transcript(app)          # a clear message, and nothing lost
        assert app.screen.query_one(RoomPanel).data.room == "Kitchen"


@pytest.mark.slow
async def test_switching_to_the_oracle_mid_game_wins(tmp_path):
    app = app_for(tmp_path, world="tutorial.yaml")
    async with app.run_test(size=(100, 30)) as pilot:
        await type_line(pilot, "look")
        app.screen.speed = 0
        app.switch_player(app.screen, "oracle")
        await settle(pilot)
        goals = app.screen.query_one(GoalsPanel).data
        assert all(ok for _, ok in goals.goals)
        assert app.screen.session.episode.ended
        assert "won after" in transcript(app)
        assert (next((tmp_path / "records" / "human").rglob("completed.json"))).exists()


@pytest.mark.slow
async def test_palette_switches_player(tmp_path):
    app = app_for(tmp_path, world="tutorial.yaml")
    async with app.run_test(size=(100, 30)) as pilot:
        app.screen.speed = 0
        await pilot.press("ctrl+p")
        await pilot.pause()
        from textual.command import CommandInput

        app.screen.query_one(CommandInput).value = "Player: oracle"
        await pilot.pause(0.3)
        await pilot.press("enter")
        await pilot.pause()
        await settle(pilot)
        assert app.screen.session.episode.ended
        assert app.screen.session.episode.outcome.success


@pytest.mark.slow
async def test_pause_and_step_a_scripted_player(tmp_path):
    script = tmp_path / "script.txt"
    script.write_text("go north\nopen fridge\nlook\n")
    app = app_for(tmp_path, player=f"scripted:{script}", paused=True)
    async with app.run_test(size=(100, 30)) as pilot:
        screen = app.screen
        await pilot.pause()
        assert screen.session.episode.turns == []        # paused: nothing played
        await pilot.press("f6")
        await settle(pilot)
        assert len(screen.session.episode.turns) == 1
        assert "scripted: go north" in transcript(app)
        await pilot.press("f6")
        await settle(pilot)
        assert len(screen.session.episode.turns) == 2
        # taking the keyboard back: the typed line is a human turn, the model waits
        await type_line(pilot, "look")
        assert screen.session.is_human
        assert len(screen.session.episode.turns) == 3
        await pilot.press("f8")                            # hand it back (still paused after a step)
        await settle(pilot)
        assert not screen.session.is_human


@pytest.mark.slow
async def test_a_failing_player_is_a_notification_not_a_crash(tmp_path):
    app = app_for(tmp_path, paused=True)

    class Broken:
        name = "broken"

        async def reply(self, episode, stream=None):
            if stream:
                stream("> take")
            raise ConnectionError("the server went away")

    async with app.run_test(size=(100, 30)) as pilot:
        app.screen.paused = False
        app.screen.set_player(Broken())
        await settle(pilot)
        assert "the server went away" in transcript(app)
        assert app.is_running
        errors = list((tmp_path / "records").rglob("error.json"))
        assert errors
        await type_line(pilot, "restart")               # the person can go on
        await type_line(pilot, "go north")
        assert app.screen.query_one(RoomPanel).data.room == "Kitchen"


async def test_quit_meta_command_leaves(tmp_path):
    app = app_for(tmp_path)
    async with app.run_test(size=(100, 30)) as pilot:
        assert app.return_code is None
        await type_line(pilot, "quit")
        assert app.return_code == 0


@pytest.mark.slow
async def test_small_terminal_and_live_resize(tmp_path):
    app = app_for(tmp_path)
    async with app.run_test(size=(80, 24)) as pilot:
        await type_line(pilot, "go north")
        side = app.screen.query_one("#side")
        assert side.region.width > 20 and app.screen.query_one("#transcript").region.width >= 40
        await pilot.resize_terminal(140, 45)
        await pilot.pause()
        assert app.screen.query_one("#transcript").region.width > 90


@pytest.mark.slow
async def test_model_output_streams_into_the_transcript_while_the_turn_is_in_flight(tmp_path):
    import asyncio

    from textual.widgets import Static

    release = asyncio.Event()

    class Streaming:
        name = "streamer"

        async def reply(self, episode, stream=None):
            for chunk in ("go ", "nor", "th"):
                stream(chunk)
                await asyncio.sleep(0)
            await release.wait()
            return "go north"

    app = app_for(tmp_path)
    async with app.run_test(size=(100, 30)) as pilot:
        app.screen.set_player(Streaming())
        for _ in range(50):
            await pilot.pause()
            if "go north" in str(app.screen.query_one("#live", Static).render()):
                break
        assert "go north" in str(app.screen.query_one("#live", Static).render())
        assert app.screen.session.episode.turns == []          # not played until the reply is complete
        release.set()
        await pilot.pause()
        app.screen.take_keyboard()                              # stop it after that turn
        await settle(pilot)
        assert "streamer: go north" in transcript(app)
        assert app.screen.session.episode.turns[0].command == "go north"


@pytest.mark.slow
async def test_settings_file_keymap_panels_and_theme_that_sticks(tmp_path, monkeypatch):
    from tui_adventure.config import load_config

    cfg_path = tmp_path / "config.yaml"
    cfg_path.write_text("keymap:\n  screen.debug: f9\npanels: [room, goals]\nspeed: fast\n")
    monkeypatch.setenv("TUI_ADVENTURE_CONFIG", str(cfg_path))
    app = app_for(tmp_path)
    async with app.run_test(size=(100, 30)) as pilot:
        assert not app.screen.query_one("#inventory").display and app.screen.query_one("#goals").display
        assert app.screen.speed == 0
        await pilot.press("f9")
        await pilot.pause()
        assert isinstance(app.screen, DebugScreen)
        await pilot.press("escape")
        app.theme = "nord"
        await pilot.pause()
    assert load_config(cfg_path).theme == "nord"
    assert load_config(cfg_path).keymap == {"screen.debug": "f9"}


@pytest.mark.slow
async def test_a_broken_settings_file_is_reported_and_ignored(tmp_path, monkeypatch):
    cfg_path = tmp_path / "config.yaml"
    cfg_path.write_text("theme: [unclosed\n")
    monkeypatch.setenv("TUI_ADVENTURE_CONFIG", str(cfg_path))
    app = app_for(tmp_path)
    async with app.run_test(size=(100, 30)) as pilot:
        await pilot.pause()
        assert any("config.yaml:" in n.message and "not valid YAML" in n.message for n in app._notifications)
        await type_line(pilot, "go north")
        assert "Kitchen" in transcript(app)


@pytest.mark.slow
async def test_watching_a_model_through_the_openai_sdk(tmp_path):
    """A model on an OpenAI-compatible server plays live: tokens, latency, a fault, the keyboard back."""
    from fake_llm_server import FakeLLMServer, Status

    server = FakeLLMServer().start()
    try:
        server.script("go north", Status(500), "open fridge", "look")
        spec = f"openai_compatible:tiny@{server.url}"
        app = app_for(tmp_path, player=spec, paused=True)
        async with app.run_test(size=(100, 30)) as pilot:
            screen = app.screen
            for _ in range(3):
                await pilot.press("f6")
                await settle(pilot)
            assert [t.command for t in screen.session.episode.turns] == ["go north", "open fridge", "look"]
            player = screen.query_one("#player").data
            assert int(player.extra["tokens out"]) > 0 and player.extra["latency"].endswith(" s")
            await type_line(pilot, "go south")                  # the keyboard back, at once
            assert screen.session.is_human
            assert screen.query_one(RoomPanel).data.room == "Hallway"
    finally:
        server.stop()


@pytest.mark.slow
async def test_lines_arriving_at_once_are_played_one_turn_each(tmp_path):
    """A paste (or keys typed while the app was busy) holding several lines plays each as a command."""
    from textual import events

    app = app_for(tmp_path)
    async with app.run_test(size=(120, 40)) as pilot:
        line = app.screen.query_one(CommandLine)
        line.post_message(events.Paste("up\nnorth\r\nopen jewellery box\ntake"))
        await pilot.pause()
        await settle(pilot)
        assert [t.command for t in app.session.episode.turns] == ["up", "north", "open jewellery box"]
        assert line.value == "take"                   # the unfinished last line waits for Enter


@pytest.mark.slow
async def test_undone_turns_are_struck_through_and_the_log_rewraps_on_resize(tmp_path):
    from tui_adventure.widgets.transcript import UNDONE, Transcript

    app = app_for(tmp_path)
    async with app.run_test(size=(120, 40)) as pilot:
        for line in ("up", "north", "undo"):
            await type_line(pilot, line)
        t = app.screen.query_one(Transcript)
        struck = [text for text, style, _ in t.entries if UNDONE in style]
        assert "> north" in struck and not any("up" == s.strip("> ") for s in struck)
        assert not any(UNDONE in style for text, style, _ in t.entries if text in ("> undo", "> up"))
        log = t.query_one("#log")
        wide = len(log.lines)
        await pilot.resize_terminal(60, 40)
        await pilot.pause()
        assert len(log.lines) > wide                 # old lines wrapped again, not clipped


@pytest.mark.slow
async def test_tab_lists_the_fitting_names_under_the_line_and_cycles_through_them(tmp_path):
    from textual.widgets import Static

    app = app_for(tmp_path)
    async with app.run_test(size=(120, 40)) as pilot:
        await type_line(pilot, "west")
        line = app.screen.query_one(CommandLine)
        line.value = "take "
        line.cursor_position = 5
        await pilot.press("tab")
        hint = app.screen.query_one("#completions", Static)
        assert hint.display and "red book" in str(hint.render()) and "sofa" not in str(hint.render())
        seen = []
        for _ in range(3):
            await pilot.press("tab")
            seen.append(line.value)
        assert len(set(seen)) == 3                     # blue book, book, red book in turn
        assert all(v.startswith("take ") and "sofa" not in v for v in seen)
        line.value = "take red"                        # typing again: the list goes away
        await pilot.pause()
        assert not hint.display
        assert not app._notifications                 # no stacking toasts


@pytest.mark.slow
async def test_help_in_a_clembench_world_recommends_commands_that_work_there(tmp_path):
    app = make_app("clembench/home_deliver_three_basic_easy/0", records=tmp_path / "r", saves=tmp_path / "s",
                   cursor_blink=False)
    async with app.run_test(size=(120, 40)) as pilot:
        await pilot.press("f1")
        await pilot.pause()
        from textual.widgets import Markdown

        text = app.screen.query_one(Markdown).source
        assert "go hallway" in text and "go north" not in text and "`look`" not in text


@pytest.mark.slow
async def test_a_resumed_game_at_80x24_opens_at_its_latest_turn(tmp_path):
    from tui_adventure.widgets.transcript import TranscriptLog

    first = app_for(tmp_path)
    async with first.run_test(size=(80, 24)) as pilot:
        await type_line(pilot, "go north")
        await settle(pilot)
    first.session.close()
    app = app_for(tmp_path)
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot)
        assert "continuing your unfinished game" in transcript(app)
        log = app.screen.query_one(TranscriptLog)
        assert log.max_scroll_y > 0                    # the opening is taller than the window
        assert log.scroll_y == log.max_scroll_y        # and the window shows its end: where the game stands
        assert app.screen.query_one(RoomPanel).data.room == "Kitchen"
