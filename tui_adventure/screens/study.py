"""The pause between a study's worlds: what comes next, and the participant says when they are ready.

A participant needs a break they control (time per world starts only when
they press Enter), and the researcher needs the instructions read before the
first world; both are this one screen.
"""

from __future__ import annotations

from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Center, Middle
from textual.screen import Screen
from textual.widgets import Footer, Static


class IntermissionScreen(Screen[None]):
    BINDINGS = [Binding("enter", "ready", "Ready", id="study.ready"),
                Binding("ctrl+q", "app.quit", "Quit (resume later)", id="study.quit")]

    def __init__(self, title: str, text: str, final: bool = False, **kwargs) -> None:
        super().__init__(**kwargs)
        self.heading = title
        self.text = text
        self.final = final

    def compose(self) -> ComposeResult:
        with Middle():
            with Center():
                body = Text(self.heading + "\n\n", style="bold")
                body.append(self.text)
                if self.final:
                    body.append("\n\nPress Enter to close.", style="dim")
                yield Static(body, id="intermission")
        yield Footer()

    def action_ready(self) -> None:
        self.dismiss(None)
