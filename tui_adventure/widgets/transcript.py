"""The transcript: everything said in the game, with scrollback, and a live line for streaming.

It never takes focus, so typing always reaches the command line. A model's
reply streams into the live line below the log as it arrives (elia's idea)
and becomes an ordinary log line when the turn is played.
"""

from __future__ import annotations

import re

from rich.cells import cell_len
from rich.console import Console, ConsoleOptions, RenderResult
from rich.padding import Padding
from rich.text import Text
from textual.app import ComposeResult
from textual.containers import Vertical
from textual.geometry import Size
from textual.reactive import Reactive
from textual.widgets import RichLog, Static

from ..engine.text import visible


class TranscriptLog(RichLog, can_focus=False):
    # A line written grows the log's virtual height, which by default lays the whole screen out again
    # and so repaints every widget around it. Its vertical scrollbar is always there (overflow-y: scroll):
    # only a wider line (a horizontal scrollbar) changes the layout, and then one is asked for.
    virtual_size: Reactive[Size] = Reactive(Size(0, 0), layout=False)

    def write(self, *args, **kwargs):
        width = self.virtual_size.width
        written = super().write(*args, **kwargs)
        if self.virtual_size.width != width:
            self.refresh(layout=True)
        return written


UNDONE = "strike dim"


# a row of a two-column table in a game's text: indented, a term, three spaces or more, what it means
ROW = re.compile(r"( +)(\S.*?)( {3,})(\S.*)")


class Rows:
    """A text with two-column tables (a tutorial's ``take letter      pick something up``): a table whose
    rows all fit the width stands as written; else each of its rows is stacked, the term on a line and what
    it means indented under it, since wrapped a row would break into the next. Decided at each drawing,
    for the width drawn at."""

    def __init__(self, text: str, style: str) -> None:
        self.lines = text.split("\n")
        self.style = style

    def __rich_console__(self, console: Console, options: ConsoleOptions) -> RenderResult:
        rows = [ROW.fullmatch(line) for line in self.lines]
        stacked = [False] * len(rows)
        start = 0
        for end in range(len(rows) + 1):   # each table: a run of rows, stacked whole when one of them is too wide
            if end < len(rows) and rows[end] is not None:
                continue
            if any(cell_len(line) > options.max_width for line in self.lines[start:end]):
                stacked[start:end] = [True] * (end - start)
            start = end + 1
        for line, row, stack in zip(self.lines, rows, stacked):
            if not stack:
                yield _shown(line, self.style)
                continue
            assert row is not None   # only a run of table rows is stacked
            indent, term, _, meaning = row.groups()
            yield Padding(Text(term, style=self.style), (0, 0, 0, len(indent)))
            yield Padding(Text(meaning, style=self.style), (0, 0, 0, len(indent) + 4))


def _shown(text: str, style: str):
    """An entry as drawn: an indented one keeps its indent on the lines it wraps to, so what a model
    said stays visibly apart from the game's text however narrow the log is; a table's rows are ``Rows``."""
    if "\n" in text and any(ROW.fullmatch(line) for line in text.split("\n")):
        return Rows(text, style)
    indent = len(text) - len(text.lstrip(" "))
    if not indent or not text.strip():
        return Text(text, style=style)
    return Padding(Text(text[indent:], style=style), (0, 0, 0, indent))


class Transcript(Vertical, can_focus=False):
    """Entries are kept with the turn they belong to, so the log can be drawn again: re-wrapped when
    the width changes (a RichLog wraps once, at writing), and with taken-back turns struck through."""

    def __init__(self, **kwargs) -> None:
        super().__init__(**kwargs)
        self.lines: list[str] = []   # plain text of every entry, for tests and for copying out
        self.entries: list[list] = []   # [text, style, turn] per written entry
        self.turn = 0                # the turn the entries being written belong to (0: before the first)
        self.follow = True           # keep the newest line in view; off while a game's opening is read from the top
        self._width = 0

    def compose(self) -> ComposeResult:
        yield TranscriptLog(wrap=True, markup=False, auto_scroll=True, min_width=20, id="log")
        yield Static("", id="live")

    def _write(self, text: str, style: str = "") -> None:
        """Every entry is text for a terminal: a control character in it is shown, not obeyed (``visible``)."""
        text = visible(text)
        self.lines.append(text)
        self.entries.append([text, style, self.turn])
        self.query_one(TranscriptLog).write(_shown(text, style), scroll_end=self.follow)

    def begin_turn(self, turn: int) -> None:
        """The entries that follow belong to ``turn`` (its command and what the game answered)."""
        self.turn = turn

    def mark_undone(self, after: int) -> None:
        """Strike through every entry of the turns after ``after`` (taken back by undo, restore or a
        jump back): they stay readable, and plainly not part of the episode any more."""
        changed = False
        for entry in self.entries:
            if entry[2] > after and UNDONE not in entry[1]:
                entry[1] = f"{entry[1]} {UNDONE}".strip()
                changed = True
        if changed:
            self.redraw()

    def redraw(self) -> None:
        log = self.query_one(TranscriptLog)
        log.clear()
        for text, style, _ in self.entries:
            log.write(_shown(text, style), scroll_end=self.follow)

    def on_resize(self, event) -> None:
        if event.size.width != self._width:
            first = self._width == 0
            self._width = event.size.width
            if not first and self.entries:
                self.redraw()   # re-wrap to the new width instead of clipping old lines

    def command(self, text: str, who: str = "") -> None:
        """A line played: from here on the log follows the game (the opening was read from its top)."""
        self.follow = True
        label = f"{who} " if who else ""
        self._write(f"{label}{text}", "bold")

    def said(self, lines) -> None:
        """What a model wrote beyond the command played: dim and indented under a label, so it never
        reads as the game's answer."""
        if lines:
            self._write("  said:", "dim italic")
            for line in lines:
                self._write(f"    {line}", "dim")

    def figures(self, text: str) -> None:
        if text:
            self._write(f"  {text}", "dim")

    def observation(self, text: str) -> None:
        self._write(text)
        self._write("")

    def note(self, text: str) -> None:
        self._write(text, "italic")

    def stream(self, text: str) -> None:
        live = self.query_one("#live", Static)
        live.update(Text(visible(text), style="italic"))
        live.display = bool(text)

    def clear(self) -> None:
        self.lines.clear()
        self.entries.clear()
        self.turn = 0
        self.query_one(TranscriptLog).clear()
        self.stream("")
