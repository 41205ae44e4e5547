"""The screens of a study around its worlds: consent first, then a pause before each world.

A participant needs a break they control (time per world starts only when
they press Enter), and the researcher needs the instructions read before the
first world; both are the intermission. Human-subject research also needs the
study's information agreed to before anything is recorded: the consent
screen, where agreeing takes a deliberate choice (the agree button is not
focused at first, so an Enter typed ahead cannot agree).
"""

from __future__ import annotations

from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Center, Horizontal, Middle, VerticalScroll
from textual.screen import Screen
from textual.widgets import Button, Footer, Markdown, Static

from ..engine.text import visible


class IntermissionScreen(Screen[None]):
    BINDINGS = [Binding("enter", "ready", "Ready", id="study.ready"),
                Binding("ctrl+q", "app.quit", "Quit (resume later)", id="study.quit")]

    def __init__(self, title: str, text: str, final: bool = False, closing: str = "Press Enter to close.",
                 stays: bool = False, **kwargs) -> None:
        """``stays``: the screen is the last thing a browser shows (a completion code to copy): Enter keeps it."""
        super().__init__(**kwargs)
        self.heading = title
        self.text = text
        self.final = final
        self.closing = closing
        self.stays = stays

    def compose(self) -> ComposeResult:
        with Middle():
            with Center():
                body = Text(visible(self.heading) + "\n\n", style="bold")
                body.append(visible(self.text))
                if self.final:
                    body.append(f"\n\n{self.closing}", style="dim")
                yield Static(body, id="intermission")
        yield Footer()

    def action_ready(self) -> None:
        if not self.stays:
            self.dismiss(None)


class ConsentScreen(Screen[bool]):
    """The study's information and consent text (Markdown); dismissed with True (agreed) or False."""

    BINDINGS = [Binding("ctrl+q", "app.quit", "Quit", id="study.quit")]

    def __init__(self, title: str, text: str, **kwargs) -> None:
        super().__init__(**kwargs)
        self.heading = title
        self.text = text

    def compose(self) -> ComposeResult:
        with VerticalScroll(id="consent-text"):
            yield Static(Text(visible(self.heading), style="bold"))
            yield Markdown(visible(self.text), open_links=False)
        with Horizontal(id="consent-choice"):
            yield Button("I agree", id="agree", variant="success")
            yield Button("I do not agree", id="decline", variant="error")
        yield Footer()

    def on_mount(self) -> None:
        self.query_one("#consent-text").focus()

    def on_button_pressed(self, event: Button.Pressed) -> None:
        event.stop()
        self.dismiss(event.button.id == "agree")
