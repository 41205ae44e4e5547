"""A served visitor (``study`` / ``play`` / ``watch --serve``) under hostile use (issue 55): one visitor may not
take the server down, lock others out or outlive it, and plays what the server admitted.

The command line's cap is tried in-process; the server in-process on 127.0.0.1 (its visitors are real
processes); what needs a process of its own (``kill -9``, SIGTERM) runs the server as one.
"""

from __future__ import annotations

import asyncio

import pytest
from textual import events
from textual.app import App, ComposeResult

pytest.importorskip("textual_serve")


# -- the command line ----------------------------------------------------------------------------------
class OneLine(App):
    def compose(self) -> ComposeResult:
        from tui_adventure.widgets.command_line import MAX_LINE, CommandLine

        yield CommandLine()


def test_keystrokes_past_the_command_lines_cap_cost_nothing(monkeypatch):
    """Typed keys (not a paste) beyond the cap are dropped before Input does any work for them."""
    from textual.widgets import Input

    from tui_adventure.widgets.command_line import MAX_LINE, CommandLine

    worked = []
    replace = Input.replace
    monkeypatch.setattr(Input, "replace", lambda self, *a: (worked.append(1), replace(self, *a)))
    bells = []

    async def run() -> tuple[int, str]:
        app = OneLine()
        async with app.run_test() as pilot:
            monkeypatch.setattr(app, "bell", lambda: bells.append(1))
            line = app.query_one(CommandLine)
            line.focus()
            for i in range(MAX_LINE + 3000):
                line.post_message(events.Key("x", "x"))
                if i % 500 == 0:
                    await pilot.pause()
            await pilot.pause()
            length = len(line.value)
            line.post_message(events.Paste("y" * 100_000))   # a paste over the cap keeps what fits
            await pilot.pause()
            return length, line.value

    length, value = asyncio.run(run())
    assert length == MAX_LINE and value == "x" * MAX_LINE
    assert len(worked) <= MAX_LINE + 1   # no work for the 3000 keys past the cap
    assert len(bells) == 1               # said once, not once a key
