"""The command line: history on up/down, Tab completion, Enter posts the line up.

The widget knows nothing of the game: completion asks a function given by the
parent (the session's ``complete``), and history is the session's list of
typed lines, shared with the REPL.
"""

from __future__ import annotations

from typing import Callable

from textual.binding import Binding
from textual.message import Message
from textual.widgets import Input


class CommandLine(Input):
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
        """Tab found several candidates: the parent shows them."""

        def __init__(self, candidates: list[str]) -> None:
            super().__init__()
            self.candidates = candidates

    def __init__(self, **kwargs) -> None:
        super().__init__(placeholder="Type a command (help for help)", select_on_focus=False, **kwargs)
        self.history: list[str] = []
        self.completer: Callable[[str], tuple[int, list[str]]] | None = None
        self._pos: int | None = None     # index into history while browsing
        self._draft = ""

    async def action_submit(self) -> None:
        line = self.value
        self.value = ""
        self._pos = None
        self.post_message(self.Entered(line))

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
        if self.completer is None:
            return
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
            self.post_message(self.Completed(candidates))
