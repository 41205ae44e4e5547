"""Watching a model play, for research: what it wrote beside what was played, what it was sent, what it cost."""

import pytest
import re

from textual.command import CommandInput
from textual.widgets import Static

from conftest import WORLDS
from pilot import settle, transcript, type_line

from tui_adventure.app import make_app
from tui_adventure.players import Reply
from tui_adventure.screens.request import RequestScreen
from tui_adventure.widgets.transcript import UNDONE, Transcript

SENT = [{"role": "system", "content": "You play a text adventure."},
        {"role": "user", "content": "You are in the Hallway. [bold]Exits[/]: north."},
        {"role": "assistant", "content": None,
         "tool_calls": [{"id": "c1", "type": "function",
                         "function": {"name": "act", "arguments": '{"command": "look"}'}}]},
        {"role": "tool", "tool_call_id": "c1", "content": "A long hallway."}]


class Thinker:
    """A model as the app sees one: replies with usage, latency, a finish reason, its raw text and tool calls."""

    name = "thinker"

    async def reply(self, episode, stream=None):
        if stream:
            stream("Hmm, the kitchen")
        return Reply("> go north", call={"manipulated_prompt_obj": SENT, "raw_response_obj": {}},
                     tokens_in=120, tokens_out=9, latency=1.5, tokens_estimated=True, finish_reason="tool_calls",
                     raw="The kitchen should be north.\nI'll go there.",
                     tool_calls=(("act", '{"command": "go north", "next_actions": ["open fridge"]}'),))


def app_for(tmp_path, **kw):
    return make_app(WORLDS / "house.yaml", records=tmp_path / "records", saves=tmp_path / "saves",
                    cursor_blink=False, paused=True, **kw)


@pytest.mark.slow
async def test_a_model_turn_shows_its_raw_reply_calls_figures_and_the_request_it_sent(tmp_path):
    app = app_for(tmp_path)
    async with app.run_test(size=(120, 40)) as pilot:
        await pilot.press("f3")                                # nothing asked yet: said so
        await pilot.pause()
        assert not isinstance(app.screen, RequestScreen)
        assert any("No model turn yet" in n.message for n in app._notifications)

        app.screen.set_player(Thinker())
        await pilot.press("f6")
        await settle(pilot)
        shown = transcript(app)
        assert ("thinker: > go north\n"
                "  said:\n"
                "    The kitchen should be north.\n"
                "    I'll go there.\n"
                '    call act(command="go north", next_actions=["open fridge"])\n'
                "  1.50 s · tokens ≈120 in, ≈9 out (estimated) · finish: tool_calls\n"
                "Kitchen") in shown
        player = app.screen.query_one("#player").data
        assert player.extra["tokens in"] == "≈120" and player.extra["tokens out"] == "≈9"
        await pilot.resize_terminal(45, 40)                      # wrapped, what the model said keeps its indent
        await pilot.pause()
        drawn = [strip.text.rstrip() for strip in app.screen.query_one("#log").lines]
        assert '    next_actions=["open fridge"])' in drawn and "  (estimated) · finish: tool_calls" in drawn

        await pilot.press("f3")
        await pilot.pause()
        assert isinstance(app.screen, RequestScreen)
        messages = [str(s.render()) for s in app.screen.query(".request-message").results(Static)]
        assert messages == ["1. system\nYou play a text adventure.",
                            "2. user\nYou are in the Hallway. [bold]Exits[/]: north.",   # markup stays words
                            '3. assistant\ncall act(command="look")',
                            "4. tool (result of c1)\nA long hallway."]
        await pilot.press("escape")
        await pilot.pause()
        assert not isinstance(app.screen, RequestScreen)

        app.screen.take_keyboard()
        await type_line(pilot, "undo")                           # the whole turn is struck through
        struck = [text for text, style, _ in app.screen.query_one(Transcript).entries if UNDONE in style]
        assert "    I'll go there." in struck and any(s.startswith("  1.50 s") for s in struck)


async def test_a_program_turn_stays_one_line_and_a_reply_with_only_its_command_shows_no_said(tmp_path):
    class Plain:
        name = "plain"

        async def reply(self, episode, stream=None):
            return Reply("> go north", latency=0.25, tokens_in=10, tokens_out=3, finish_reason="stop",
                         raw="  > go north\n")

    app = app_for(tmp_path)
    async with app.run_test(size=(120, 40)) as pilot:
        app.screen.set_player(Plain())
        await pilot.press("f6")
        await settle(pilot)
        assert "plain: > go north\n  0.25 s · tokens 10 in, 3 out · finish: stop\nKitchen" in transcript(app)
        assert "said:" not in transcript(app)
        assert app.screen.query_one("#player").data.extra["tokens in"] == 10


@pytest.mark.slow
async def test_the_request_of_a_model_on_an_openai_server_from_the_palette(tmp_path):
    """A real request: the second turn's messages hold the first command (as a tool call) and its result."""
    from fake_llm_server import FakeLLMServer, ToolCalls

    server = FakeLLMServer().start()
    try:
        server.script(ToolCalls([("act", {"command": "go north"})]), ToolCalls([("act", {"command": "open fridge"})]))
        app = app_for(tmp_path, player=f"openai_compatible:tiny@{server.url}", mode="tool")
        async with app.run_test(size=(120, 40)) as pilot:
            for _ in range(2):
                await pilot.press("f6")
                await settle(pilot)
            assert [t.command for t in app.session.episode.turns] == ["go north", "open fridge"]
            shown, last = transcript(app), app.session.episode.turns[-1].answer
            assert f"{app.session.player.name}: > open fridge\n" in shown
            assert re.search(r"\n  \d+\.\d\d s · tokens \d+ in, \d+ out", shown)   # the figures line
            if last.tool_calls:                                   # a player that keeps its calls: shown as calls
                assert '\n  said:\n    call act(command="open fridge")\n' in shown
            app.action_command_palette()
            await pilot.pause()
            app.screen.query_one(CommandInput).value = "last model request"   # the search, not each key
            await pilot.pause(0.3)
            await pilot.press("enter")
            await settle(pilot)
            assert isinstance(app.screen, RequestScreen)
            messages = [str(s.render()) for s in app.screen.query(".request-message").results(Static)]
            said = next(i for i, m in enumerate(messages) if ". assistant\n" in m)   # after the prompt (one or two)
            assert messages[said].endswith(' assistant\ncall act(command="go north")')
            assert ". tool (result of " in messages[said + 1] and "Kitchen" in messages[said + 1]
    finally:
        server.stop()


@pytest.mark.slow
async def test_a_stream_the_server_cut_off_is_asked_again_and_the_figures_say_so(tmp_path):
    """llama-cpp-python ends a stream with no finish reason when another request comes: the fragment is
    not played, and the turn's figures count the re-ask with its reason."""
    from fake_llm_server import CutStream, FakeLLMServer

    server = FakeLLMServer().start()
    try:
        server.script(CutStream("> ta"), "> go north")
        app = app_for(tmp_path, player=f"openai_compatible:tiny@{server.url}")
        async with app.run_test(size=(160, 40)) as pilot:
            await pilot.press("f6")
            await settle(pilot)
            assert [t.command for t in app.session.episode.turns] == ["go north"]
            shown = transcript(app)
            assert re.search(r"\n  \d+\.\d\d s in all, 1 re-ask \(\d+\.\d s: the stream ended without a finish"
                             r" reason", shown), shown
    finally:
        server.stop()
