"""The command line: history on up/down, Tab completion, Enter posts the line up.

The widget knows nothing of the game: completion asks a function given by the
parent (the session's ``complete``), and history is the session's list of
typed lines, shared with the REPL.
"""

from __future__ import annotations

from typing import Callable

from textual import events
from textual.binding import Binding
from textual.geometry import Size
from textual.message import Message
from textual.reactive import Reactive
from textual.widgets import Input

MAX_LINE = 4096   # characters a command may have: longer input is dropped as it arrives, at no cost per key


class CommandLine(Input):
    # Input sets its virtual size to its text's width on every key, and a widget's virtual size asks for a
    # layout of the whole screen by default. The line's own size never changes with its text (height 3 in
    # app.tcss): a key typed repaints the line alone. This took two thirds of a key's CPU in a browser study.
    virtual_size: Reactive[Size] = Reactive(Size(0, 0), layout=False)

    BINDINGS = [
        Binding("up", "history(-1)", "Previous command", show=False, id="history.previous"),
        Binding("down", "history(1)", "Next command", show=False, id="history.next"),
        Binding("tab", "complete", "Complete", show=False, id="command.complete"),
    ]

    class Entered(Message):
        """A line was typed and Enter pressed."""

        def __init__(self, line: str) -> None:
            super().__init__()
            self.line = line

    class Completed(Message):
        """Tab found several candidates: the parent shows them (``current``: the one Tab put in, or -1)."""

        def __init__(self, candidates: list[str], current: int = -1) -> None:
            super().__init__()
            self.candidates = candidates
            self.current = current

    def __init__(self, **kwargs) -> None:
        super().__init__(placeholder="Type a command (help for help)", select_on_focus=False, max_length=MAX_LINE,
                         **kwargs)
        self._rang = False                # the bell for a full line: once, not once a key
        self.history: list[str] = []
        self.completer: Callable[[str], tuple[int, list[str]]] | None = None
        self._pos: int | None = None     # index into history while browsing
        self._draft = ""
        self._cycle: tuple[str, int, list[str], int] | None = None   # (value it made, start, candidates, index)

    async def action_submit(self) -> None:
        line = self.value
        self.value = ""
        self._pos = None
        self.post_message(self.Entered(line))

    async def _on_key(self, event: events.Key) -> None:
        """A printable key on a full line is dropped here, before Input's handler does any work for it."""
        if len(self.value) < MAX_LINE:
            self._rang = False
        elif event.is_printable and self.selection.is_empty:
            event.stop()
            event.prevent_default()
            self.restricted()

    def restricted(self) -> None:
        """Input refused text (the line is full): the bell, once until the line is shorter again."""
        if not self._rang:
            self._rang = True
            self.app.bell()

    def _on_paste(self, event: events.Paste) -> None:
        """Several lines arriving at once (a paste, or keys typed while the app was busy) are several
        commands, each played in order: an Input alone keeps the first line and loses the rest."""
        lines = [line[:MAX_LINE] for line in event.text.replace("\r\n", "\n").replace("\r", "\n").split("\n")]
        if len(lines) == 1:
            room = MAX_LINE - len(self.value) + len(self.selected_text)
            if len(lines[0]) > room:        # Input would refuse all of it: keep what fits
                event.prevent_default()
                event.stop()
                self.replace(lines[0][:room], *self.selection)
            return                          # Input's own handler inserts it
        event.prevent_default()             # Input's handler would keep the first line and drop the rest
        event.stop()
        head = (self.value[:self.cursor_position] + lines[0] + self.value[self.cursor_position:])[:MAX_LINE]
        self.value, self._pos = "", None
        for line in [head, *lines[1:-1]]:
            self.post_message(self.Entered(line))
        self.value = lines[-1]              # text after the last newline stays, not yet entered
        self.cursor_position = len(self.value)

    def action_history(self, step: int) -> None:
        if not self.history:
            return
        if self._pos is None:
            if step > 0:
                return
            self._draft = self.value
            self._pos = len(self.history)
        self._pos = max(0, min(len(self.history), self._pos + step))
        self.value = self._draft if self._pos == len(self.history) else self.history[self._pos]
        self.cursor_position = len(self.value)
        if self._pos == len(self.history):
            self._pos = None

    def action_complete(self) -> None:
        """Tab: complete as far as the candidates agree; pressed again, put in each candidate in turn."""
        if self.completer is None:
            return
        if self._cycle is not None and self._cycle[0] == self.value:
            _, start, candidates, i = self._cycle
            i = (i + 1) % len(candidates)
            self.value = self.value[:start] + candidates[i]
            self.cursor_position = len(self.value)
            self._cycle = (self.value, start, candidates, i)
            self.post_message(self.Completed(candidates, i))
            return
        self._cycle = None
        text = self.value[: self.cursor_position]
        start, candidates = self.completer(text)
        if not candidates:
            self.app.bell()
            return
        common = candidates[0]
        for c in candidates[1:]:
            while not c.startswith(common):
                common = common[:-1]
        fragment = text[start:]
        if len(candidates) == 1:
            common = candidates[0] + " "
        if len(common) > len(fragment):
            self.value = text[:start] + common + self.value[self.cursor_position:]
            self.cursor_position = start + len(common)
        if len(candidates) > 1:
            self._cycle = (self.value, start, candidates, -1)
            self.post_message(self.Completed(candidates))
