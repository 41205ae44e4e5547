"""A person at the keyboard: the front end hands each typed line to the episode through this player."""

from __future__ import annotations

import asyncio

from .reply import Reply


class HumanPlayer:
    name = "human"

    def __init__(self) -> None:
        self.lines: asyncio.Queue[str] = asyncio.Queue()

    def type(self, line: str) -> None:
        """Called by the front end when the person presses Enter."""
        self.lines.put_nowait(line)

    async def reply(self, episode, stream=None) -> Reply:
        return Reply(await self.lines.get())
