"""The transcript: everything said in the game, with scrollback, and a live line for streaming.

It never takes focus, so typing always reaches the command line. A model's
reply streams into the live line below the log as it arrives (elia's idea)
and becomes an ordinary log line when the turn is played.
"""

from __future__ import annotations

from rich.text import Text
from textual.app import ComposeResult
from textual.containers import Vertical
from textual.widgets import RichLog, Static


class TranscriptLog(RichLog, can_focus=False):
    pass


class Transcript(Vertical, can_focus=False):
    def __init__(self, **kwargs) -> None:
        super().__init__(**kwargs)
        self.lines: list[str] = []   # plain text of every entry, for tests and for copying out

    def compose(self) -> ComposeResult:
        yield TranscriptLog(wrap=True, markup=False, auto_scroll=True, min_width=20, id="log")
        yield Static("", id="live")

    def _write(self, text: str, style: str = "") -> None:
        self.lines.append(text)
        self.query_one(TranscriptLog).write(Text(text, style=style))

    def command(self, text: str, who: str = "") -> None:
        label = f"{who} " if who else ""
        self._write(f"{label}{text}", "bold")

    def observation(self, text: str) -> None:
        self._write(text)
        self.lines.append("")
        self.query_one(TranscriptLog).write("")

    def note(self, text: str) -> None:
        self._write(text, "italic")

    def stream(self, text: str) -> None:
        live = self.query_one("#live", Static)
        live.update(Text(text, style="italic"))
        live.display = bool(text)

    def clear(self) -> None:
        self.lines.clear()
        self.query_one(TranscriptLog).clear()
        self.stream("")
