"""The command line's cap under a flood of typed keys and a huge paste (a served visitor types through it)."""

from __future__ import annotations

import asyncio

from textual import events
from textual.app import App, ComposeResult


class OneLine(App):
    def compose(self) -> ComposeResult:
        from tui_adventure.widgets.command_line import CommandLine

        yield CommandLine()


def test_keystrokes_past_the_command_lines_cap_cost_nothing(monkeypatch):
    """Typed keys (not a paste) beyond the cap are dropped before Input does any work for them."""
    from textual.widgets import Input

    from tui_adventure.widgets import command_line
    from tui_adventure.widgets.command_line import CommandLine

    MAX_LINE = 300   # a smaller cap, as cheap to type past: the keys beyond it are what is counted
    monkeypatch.setattr(command_line, "MAX_LINE", MAX_LINE)
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
            for i in range(MAX_LINE + 1000):
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
    assert len(worked) <= MAX_LINE + 1   # no work for the 1000 keys past the cap
    assert len(bells) == 1               # said once, not once a key
