"""Stepping through a recorded episode, forward and back, with the panels as they were.

The replies are played once through a session that writes no records; the
screen keeps what the transcript and the panels showed after every turn, so
moving to any turn is instant.
"""

from __future__ import annotations

import asyncio
from pathlib import Path

from textual import work
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal, Vertical
from textual.screen import Screen
from textual.widgets import Footer, Header, Static

from ..clembench.records import read_episode
from ..session import Session
from ..widgets.panels import SidePanels
from ..widgets.transcript import Transcript


class ReplayScreen(Screen):
    BINDINGS = [
        Binding("right,n", "step(1)", "Next", id="replay.next"),
        Binding("left,p", "step(-1)", "Back", id="replay.back"),
        Binding("home", "jump(0)", "Start", id="replay.start"),
        Binding("end", "jump(-1)", "End", id="replay.end"),
        Binding("space", "play", "Play/Pause", id="replay.play"),
        Binding("f4", "debug", "Debug", id="replay.debug"),
    ]

    def __init__(self, directory: Path, world=None, **kwargs) -> None:
        super().__init__(**kwargs)
        self.recorded = read_episode(directory, world)
        self.frames: list[tuple[list[tuple[str, str]], object]] = []   # (transcript entries, panels)
        self.at = 0
        self.playing = False

    def compose(self) -> ComposeResult:
        yield Header()
        with Horizontal(id="body"):
            with Vertical(id="main"):
                yield Transcript(id="transcript")
                yield Static("", id="replay-status")
            yield SidePanels(id="side")
        yield Footer()

    async def on_mount(self) -> None:
        rec = self.recorded
        self.title = f"replay: {rec.world.title}"
        self.sub_title = f"{rec.player} · {rec.directory.parent.name}/{rec.directory.name}"
        session = Session(rec.world, records=None)
        entries = [("note", rec.world.title), ("obs", session.game.first_observation())]
        self.frames.append((list(entries), self._panels(session)))
        for reply in rec.replies:
            if session.episode.ended:
                break
            turn = await session.submit_reply(reply)
            entries.append(("cmd", reply.strip().splitlines()[0] if reply.strip() else "(empty reply)"))
            if turn.text:
                entries.append(("obs", turn.text))
            self.frames.append((list(entries), self._panels(session)))
        self.show(0)

    def _panels(self, session: Session):
        data = session.panels(progress=True)   # par and progress as they were after this turn (cached searches)
        data.player = self.recorded.player
        return data

    def show(self, index: int) -> None:
        self.at = max(0, min(len(self.frames) - 1, index))
        entries, data = self.frames[self.at]
        t = self.query_one(Transcript)
        t.clear()
        for kind, text in entries:
            {"note": t.note, "obs": t.observation, "cmd": t.command}[kind](text)
        self.query_one(SidePanels).data = data
        self.query_one("#replay-status", Static).update(
            f"turn {self.at} of {len(self.frames) - 1}  ·  ←/→ step  home/end  space play")

    def action_step(self, delta: int) -> None:
        self.show(self.at + delta)

    def action_jump(self, index: int) -> None:
        self.show(index if index >= 0 else len(self.frames) - 1)

    def action_debug(self) -> None:
        """The debug screen on the episode as it stood at this frame (facts, plan, events, moves)."""
        from .debug import DebugScreen

        session = Session(self.recorded.world, records=None)
        for reply in self.recorded.replies[:self.at]:
            if session.episode.ended:
                break
            session.episode.submit(reply)
        self.app.push_screen(DebugScreen(session))

    def action_play(self) -> None:
        self.playing = not self.playing
        if self.playing:
            self.autoplay()

    @work(exclusive=True)
    async def autoplay(self) -> None:
        while self.playing and self.at < len(self.frames) - 1:
            await asyncio.sleep(0.5)
            self.show(self.at + 1)
        self.playing = False
