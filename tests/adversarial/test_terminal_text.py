"""The terminal only gets text (issue 55): what records, a model server or a study file say passes the
same control-character filter as the REPL (``engine.text.visible``) before it reaches a terminal, so
OSC 52 (the clipboard), OSC 0 (the window title) and CSI sequences are shown, never obeyed."""

import asyncio
import json
import re
import shutil
import time

import pytest

from tui_adventure.cli.main import main

CLIPBOARD = "\x1b]52;c;b3duZWQ=\x07"   # OSC 52: sets the clipboard to "owned"
TITLE = "\x1b]0;owned\x07"              # OSC 0: retitles the window
CLEAR = "\x1b[2J\x9b2J"                # CSI (7-bit and the C1 byte): clears the screen
HOSTILE = CLIPBOARD + TITLE + CLEAR
UNSAFE = re.compile("[\x00-\x08\x0b-\x1f\x7f-\x9f]")   # ESC, BEL, C1: nothing a terminal acts on


def assert_text_only(text: str) -> None:
    found = UNSAFE.search(text)
    assert found is None, f"{found.group()!r} reached the terminal: {text[max(0, found.start() - 60):found.end() + 60]!r}"


@pytest.fixture(scope="module")
def played(tmp_path_factory):
    records = tmp_path_factory.mktemp("played") / "records"
    assert main(["run", "tutorial", "--player", "oracle", "--records", str(records)]) == 0
    return records


def hostile_records(played, tmp_path):
    """A records tree whose run folder, last command and error message carry escape sequences."""
    records = tmp_path / "records"
    shutil.copytree(played, records)
    run = records / f"oracle{TITLE}"
    (records / "oracle").rename(run)
    episode = next(run.rglob("instance_00000"))
    path = episode / "interactions.json"
    data = json.loads(path.read_text())
    for event in data["turns"][-1]:
        if event["action"]["type"] == "get message":
            event["action"]["content"] = f"> look{HOSTILE}"
    path.write_text(json.dumps(data))
    errored = episode.parent / "instance_00001"
    shutil.copytree(episode, errored)
    (errored / "completed.json").unlink()
    (errored / "error.json").write_text(json.dumps({"error": f"Boom{TITLE}", "message": f"server said {CLEAR}"}))
    return records


@pytest.mark.slow
async def test_watch_draws_no_escape_from_records(played, tmp_path):
    from tui_adventure.app import AdventureApp
    from tui_adventure.screens.watch import WatchScreen
    from tui_adventure.widgets.line_table import LineTable

    records = hostile_records(played, tmp_path)
    app = AdventureApp(watch=records)
    async with app.run_test(size=(200, 40)) as pilot:
        end = time.monotonic() + 30
        while time.monotonic() < end:
            await pilot.pause()
            screen = app.screen
            if isinstance(screen, WatchScreen) and len(screen.query_one("#episodes", LineTable).lines) == 2 \
                    and "look" in "".join(screen.query_one("#episodes", LineTable).lines):
                break
            await asyncio.sleep(0.05)
        screen = app.screen
        episodes = screen.query_one("#episodes", LineTable).lines
        runs = screen.query_one("#runs", LineTable).lines
        assert len(episodes) == 2 and "^[]0;owned^G" in runs[0], (episodes, runs)   # shown, not obeyed
        for line in [*episodes, *runs]:
            assert_text_only(line)
        assert_text_only(app.export_screenshot())   # everything drawn: tables, alerts, status, header
        await pilot.press("enter")   # follow the episode: its transcript and titles come from the records too
        await pilot.pause()
        await pilot.pause()
        assert type(app.screen).__name__ == "ReplayScreen"
        assert_text_only(app.export_screenshot())


def test_a_model_id_and_answers_from_a_server_are_shown_as_text(server, capsys):
    server.models = (f"evil{HOSTILE}",)
    server.responder = lambda request: f"ok{HOSTILE}"
    assert main(["models", "probe", server.url, "--timeout", "20"]) == 2   # such an id is never asked
    out, err = capsys.readouterr()
    assert "--model" in err
    assert_text_only(out)
    assert_text_only(err)
    server.models = ("evil", f"evil{HOSTILE}")
    assert main(["models", "probe", server.url, "--timeout", "20"]) == 0
    out, err = capsys.readouterr()
    assert "evil" in out
    assert_text_only(out)
    assert_text_only(err)


def test_a_study_title_is_shown_as_text(tmp_path, capsys):
    study = tmp_path / "study.yaml"
    study.write_text('title: "Pilot \\e]0;owned\\a \\e]52;c;b3duZWQ=\\a \\e[2J"\nworlds: [tutorial]\n')
    assert main(["study", str(study), "--participant", "p1", "--check", "--records", str(tmp_path / "r")]) == 0
    out, err = capsys.readouterr()
    assert out.startswith("Pilot ^[]0;owned^G"), out
    assert_text_only(out)
    assert_text_only(err)


def test_score_eval_and_export_name_hostile_folders_as_text(played, tmp_path, capsys):
    records = hostile_records(played, tmp_path)
    main(["score", str(records)])
    main(["eval", str(records)])
    main(["export", "trajectories", str(records), "--out", str(tmp_path / "t.jsonl")])
    out, err = capsys.readouterr()
    assert "^[]0;owned^G" in out + err
    assert_text_only(out)
    assert_text_only(err)


def test_a_batch_shows_a_server_error_as_text(server, tmp_path, capsys, monkeypatch):
    from model_env import configure_fake_gpt
    from fake_llm_server import Status

    configure_fake_gpt(monkeypatch, tmp_path, server)
    server.responder = lambda request: Status(400, retry_after_ms=None, message=f"bad request{HOSTILE}")
    main(["run", "tutorial", "--player", "fake-gpt", "--records", str(tmp_path / "r")])
    out, err = capsys.readouterr()
    assert "BadRequestError" in out + err
    assert_text_only(out)
    assert_text_only(err)


@pytest.mark.slow
async def test_the_play_app_shows_a_model_reply_and_a_server_error_as_text(tmp_path, server, monkeypatch):
    from fake_llm_server import Status
    from pilot import transcript

    from conftest import TEST_WORLDS
    from tui_adventure.app import make_app

    monkeypatch.setenv("TUI_ADVENTURE_HOME", str(tmp_path / "home"))
    monkeypatch.setenv("OPENAI_API_KEY", "sk-test")
    server.script(f"> look{HOSTILE}", *[Status(500, message=f"down{HOSTILE}")] * 4)
    app = make_app(TEST_WORLDS / "mini.yaml", player=f"openai_compatible:fake{TITLE}@{server.url}",
                   records=tmp_path / "records", saves=tmp_path / "saves", cursor_blink=False, paused=True)
    async with app.run_test(size=(160, 40)) as pilot:
        await pilot.press("f6")          # one model turn: the hostile reply
        for _ in range(200):
            await pilot.pause(0.05)
            if "look^[" in transcript(app):
                break
        assert "look^[]52;c;b3duZWQ=^G" in transcript(app)
        assert_text_only(transcript(app))
        assert_text_only(app.export_screenshot())
        await pilot.press("f4")          # the debug screen lists the turns played
        await pilot.pause(0.3)
        turns = app.screen.query_one("#turns")
        listed = [str(turns.get_option_at_index(i).prompt) for i in range(turns.option_count)]
        assert any("look^[" in line for line in listed), listed
        assert_text_only("\n".join(listed))
        await pilot.press("escape")
        await pilot.pause()
        await pilot.press("f6")          # the server fails with a hostile message: a notification
        for _ in range(400):
            await pilot.pause(0.05)
            if app._notifications:
                break
        await pilot.pause(0.2)
        assert app._notifications
        assert_text_only(transcript(app))
        assert_text_only(app.export_screenshot())
