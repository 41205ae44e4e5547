"""Driving the Textual app in tests: set the input text directly and press only the keys under test."""

from __future__ import annotations

import asyncio

from textual.worker import WorkerState

from conftest import WORLDS
from tui_adventure.app import AdventureApp, make_app
from tui_adventure.widgets.command_line import CommandLine
from tui_adventure.widgets.transcript import Transcript


def app_for(tmp_path, world: str = "house.yaml", **kw) -> AdventureApp:
    """The app on ``worlds/WORLD``, its records and saves under ``tmp_path``, the cursor not blinking."""
    return make_app(WORLDS / world, records=tmp_path / "records", saves=tmp_path / "saves", cursor_blink=False, **kw)


async def type_line(pilot, text: str) -> None:
    line = pilot.app.screen.query_one(CommandLine)
    line.value = text
    line.cursor_position = len(text)
    await pilot.press("enter")
    await pilot.pause()


async def settle(pilot, seconds: float = 20) -> None:
    """Wait until no worker runs (model turns, plan searches, progress); cancelled ones count as done."""
    for _ in range(int(seconds / 0.01)):
        if not any(w.state in (WorkerState.PENDING, WorkerState.RUNNING) for w in pilot.app.workers):
            break
        await asyncio.sleep(0.01)
    await pilot.pause()


def transcript(app) -> str:
    return "\n".join(app.screen.query_one(Transcript).lines)
