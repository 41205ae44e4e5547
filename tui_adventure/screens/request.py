"""The messages a model turn sent, on demand: what the model saw is the first question when it plays oddly.

The transcript shows what the model answered; the request behind it is long
(the whole game so far, with the prompt), so it is kept out of the way and
opened for one turn at a time. Everything is drawn as plain Text: messages
hold the game's and the model's words, and markup in them must stay words.
"""

from __future__ import annotations

from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import VerticalScroll
from textual.screen import ModalScreen
from textual.widgets import Static

from ..gamemaster.episode import Turn
from ..keyboard.model_turns import figures, request_messages
from ..engine.text import plural, visible


class RequestScreen(ModalScreen[None]):
    BINDINGS = [Binding("escape,q", "close", "Close", id="request.close")]

    def __init__(self, turn: Turn, **kwargs) -> None:
        super().__init__(**kwargs)
        self.turn = turn

    def compose(self) -> ComposeResult:
        answer = self.turn.answer
        assert answer is not None   # opened for a model's turn alone (model_turns.is_model_turn): it kept its Reply
        messages = request_messages(answer)
        body = VerticalScroll(id="request-body")
        body.border_title = f"The messages sent for turn {self.turn.index}"   # a turn does not say which model
        # Text, not a string: a border title is read as markup, and the finish reason is the server's words
        body.border_subtitle = Text(visible(f"Escape closes · {plural(len(messages), 'message')} · {figures(answer)}"))
        with body:
            if not messages:
                yield Static(Text("(the player kept no record of the request)", style="italic"))
            for i, (heading, text) in enumerate(messages, 1):
                shown = Text(visible(f"{i}. {heading}"), style="bold")
                shown.append("\n")
                shown.append(visible(text) if text else "(no content)", style="" if text else "dim italic")
                yield Static(shown, classes="request-message")

    def on_mount(self) -> None:
        body = self.query_one("#request-body", VerticalScroll)
        body.focus()
        body.scroll_end(animate=False)   # the newest message is the one this turn answered

    def action_close(self) -> None:
        self.dismiss(None)
