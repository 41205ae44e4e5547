"""Text from outside (typed lines, model replies, server errors, world names) is shown as written:
Textual markup in it is never interpreted, so `[/]` or `[/INST]` cannot crash the app (issue 21)."""

import json

import pytest

from conftest import TEST_WORLDS
from pilot import transcript, type_line

from tui_adventure.app import make_app
from tui_adventure.screens.debug import DebugScreen

HOSTILE = "[/INST] [/] [bold red]x[/ [link=file:///etc]y"


pytestmark = pytest.mark.usefixtures("in_tmp")


def hostile_world(tmp_path):
    text = (TEST_WORLDS / "mini.yaml").read_text()
    text = text.replace("title: Mini", f"title: {json.dumps(HOSTILE)}")
    path = tmp_path / "hostile.yaml"
    path.write_text(text)
    return path


@pytest.mark.slow
async def test_typed_markup_then_the_debug_screen(tmp_path):
    app = make_app(hostile_world(tmp_path), records=tmp_path / "records", saves=tmp_path / "saves",
                   cursor_blink=False)
    async with app.run_test(size=(120, 40)) as pilot:
        await type_line(pilot, HOSTILE)
        await type_line(pilot, "take [/]")
        assert HOSTILE in transcript(app)
        await pilot.press("f4")
        await pilot.pause()
        assert isinstance(app.screen, DebugScreen)
        await pilot.pause(0.3)
        await pilot.press("escape")
        await pilot.pause()
        await type_line(pilot, "look")
        assert app.is_running


@pytest.mark.slow
async def test_a_model_reply_and_a_server_error_with_markup(tmp_path, server, monkeypatch):
    from fake_llm_server import Status

    monkeypatch.setenv("OPENAI_API_KEY", "sk-test")
    server.script(f"> {HOSTILE}", Status(500, message=HOSTILE), Status(500, message=HOSTILE), Status(500, message=HOSTILE),
                  Status(500, message=HOSTILE))
    spec = f"openai_compatible:fake@{server.url}"
    app = make_app(TEST_WORLDS / "mini.yaml", player=spec, records=tmp_path / "records", saves=tmp_path / "saves",
                   cursor_blink=False, paused=True)
    async with app.run_test(size=(120, 40)) as pilot:
        await pilot.press("f6")          # one model turn: the hostile reply
        for _ in range(200):
            await pilot.pause(0.05)
            if HOSTILE in transcript(app):
                break
        assert HOSTILE in transcript(app)
        await pilot.press("f4")
        await pilot.pause(0.3)
        await pilot.press("escape")
        await pilot.press("f6")          # the server fails with a hostile message: a notification, no crash
        for _ in range(400):
            await pilot.pause(0.05)
            if app._notifications:
                break
        await pilot.pause(0.2)
        assert app.is_running
