"""The side panels: each draws its part of ``session.Panels``, set from above as ``data``."""

from __future__ import annotations

import math

from rich.text import Text
from textual.app import ComposeResult
from textual.containers import Vertical, VerticalScroll
from textual.reactive import reactive
from textual.widgets import ProgressBar, Static

from ..engine.text import visible
from ..keyboard.figures import Panels, figures_line, par_label


def show(widget: Static, text: Text, shape: tuple[int, int] | None) -> tuple[int, int] | None:
    """Put ``text`` in ``widget``, laying the screen out again only when its shape (width, lines at that
    width; ``shape``: the last text's) changes: a layout repaints every panel whose place it touches, and
    served to browsers each repaint is CPU that twenty participants share. A widget not on screen (hidden,
    as the side panels are on a narrow screen, or not laid out yet) is given its text alone: it is laid out
    when it is shown. The new shape."""
    width = widget.content_size.width
    now = (width, len(text.wrap(widget.app.console, width))) if width > 0 else None
    widget.update(text, layout=now is not None and now != shape)
    return now


class Panel(Static):
    """A bordered box whose title is set in CSS terms (border_title) and whose body is text."""

    data: reactive[Panels | None] = reactive(None, always_update=True)

    def __init__(self, title: str, **kwargs) -> None:
        super().__init__("", **kwargs)
        self.border_title = title
        self._shown: Text | None = None
        self._shape: tuple[int, int] | None = None   # the shown text's (width, lines)

    def watch_data(self, data: Panels | None) -> None:
        if data is None:
            return
        text = self.render_data(data)
        # most turns change one or two panels: an unchanged one is not laid out and drawn again
        # (served to browsers, each repaint is CPU that twenty participants share)
        if text != self._shown:
            self._shape = show(self, text, self._shape)
            self._shown = text

    def render_data(self, data: Panels) -> Text:   # pragma: no cover - overridden
        return Text()


class RoomPanel(Panel):
    def render_data(self, d: Panels) -> Text:
        t = Text(visible(d.room), style="bold")
        if d.exits:
            t.append("\nExits: ")
            t.append(visible(", ".join(d.exits)))
        return t


class InventoryPanel(Panel):
    def render_data(self, d: Panels) -> Text:
        return Text(visible("\n".join(d.inventory)) if d.inventory else "(empty)")


def goals_text(d: Panels, between: str = "\n") -> Text:
    """The goals, ``between`` each: ticked ``[x]``/``[ ]``, or (blind) as the prompt states them, ``- goal``."""
    t = Text()
    for i, (goal, ok) in enumerate(d.goals):
        if i:
            t.append(between)
        if d.goals_achieved is None:   # blind: the goals as the prompt states them, never ticked
            t.append(visible(f"- {goal}"))
            continue
        t.append("[x] " if ok else "[ ] ", style="bold" if ok else "dim")
        t.append(visible(goal), style="" if ok else "dim")
    return t


class GoalsPanel(Panel):
    def render_data(self, d: Panels) -> Text:
        return goals_text(d)


def _num(x, fmt: str = "{:g}") -> str:
    if x is None or (isinstance(x, float) and math.isnan(x)):
        return "-"
    return fmt.format(x)


class ScorePanel(Vertical):
    """Goal score with its last change, turns, par, turn ratio, progress bar and Main Score so far."""

    data: reactive[Panels | None] = reactive(None, always_update=True)

    def __init__(self, **kwargs) -> None:
        super().__init__(**kwargs)
        self.border_title = "Score"
        self._shown: Text | None = None
        self._shape: tuple[int, int] | None = None   # the shown text's (width, lines)

    def compose(self) -> ComposeResult:
        yield Static("", id="score-text")
        yield ProgressBar(total=100, show_eta=False, id="progress")

    def watch_data(self, d: Panels | None) -> None:
        if d is None:
            return
        bar = self.query_one(ProgressBar)
        if d.scored is not None:   # a game with a score of its own (a story file), shown
            lines = _game_score_lines(d)
        elif d.blind:   # only what a model could count for itself: its turns and its invalid commands
            lines = [f"Turn {d.turns}/{d.max_turns}", f"Invalid {d.invalid}"]
            if d.par is not None or d.par_at_least is not None:
                lines.append(f"par {par_label(d.par, d.par_upstream, d.par_at_least, d.par_pending)}")
            if d.goals_achieved is not None:
                lines.append(f"Goals {d.goals_achieved}/{d.goal_count}  Main {_num(d.main_score, '{:.0f}')}")
        else:   # three lines and the bar: the whole panel fits beside the others at 80x24
            change = f" ({d.last_goal_change:+d})" if d.last_goal_change else ""
            over = f" {d.moves_over_par:+d} over" if d.moves_over_par is not None else ""   # once won
            par = par_label(d.par, d.par_upstream, d.par_at_least, d.par_pending)
            lines = [f"Goals {d.goals_achieved}/{d.goal_count}{change}  Main {_num(d.main_score, '{:.0f}')}",
                     f"Turn {d.turns}/{d.max_turns}  par {par}{over}",
                     f"Ratio {_num(d.turn_ratio, '{:.2f}')}  Invalid {d.invalid}"]
        if d.ended:
            lines.append(d.outcome)
        text = Text(visible("\n".join(lines)))   # the outcome may quote a server's error
        if text != self._shown:
            self._shape = show(self.query_one("#score-text", Static), text, self._shape)
            self._shown = text
        bar.display = d.progress is not None or not d.blind
        if d.progress is not None:
            bar.update(progress=round(100 * d.progress))


class FiguresLine(Panel):
    """The panels' essentials where the side panels do not fit (a phone, a narrow terminal): the Score
    panel's figures in one line (``figures_line``: what blind play hides is not there), the goals in the next,
    and the outcome once the episode is over."""

    def __init__(self, **kwargs) -> None:
        super().__init__("", **kwargs)

    def render_data(self, d: Panels) -> Text:
        t = Text(visible(figures_line(d)))
        t.stylize("bold")
        if d.ended and d.outcome:
            t.append(visible(f" · {d.outcome}"))
        if d.goals:
            t.append("\n")
            t.append(goals_text(d, between="  "))
        return t


def _game_score_lines(d: Panels) -> list[str]:
    """A game with a score of its own (a story file): its score of its max score and moves, the turns of
    the episode, and a known walkthrough's length, labelled as such (it is not proven optimal)."""
    lines = []
    if d.scored is not None:
        score, top, moves = d.scored
        change = f" ({d.last_goal_change:+d})" if d.last_goal_change else ""
        lines.append(f"Score {score} of {top if top else '?'}{change}  Moves {moves}")
    walk = f"  walkthrough {d.walkthrough}" if d.walkthrough is not None else ""
    lines.append(f"Turn {d.turns}/{d.max_turns}{walk}")
    if d.scored is not None:
        lines.append(f"Main {_num(d.main_score, '{:.0f}')}  Invalid {d.invalid}")
    return lines


class PlayerPanel(Panel):
    def render_data(self, d: Panels) -> Text:
        t = Text(visible(d.player), style="bold")
        for k, v in d.extra.items():
            t.append(visible(f"\n{k}: {v}"))
        return t


# The panels' ids, in the order they stand: the settings file, the palette and the screens name panels by these.
PANEL_IDS = ("room", "inventory", "goals", "score", "player")


class SidePanels(VerticalScroll):
    """The side column: one ``data`` set here reaches every panel, in play and in replay alike."""

    data: reactive[Panels | None] = reactive(None, always_update=True)

    def compose(self) -> ComposeResult:
        room, inventory, goals, score, player = PANEL_IDS
        yield RoomPanel("Room", id=room)
        yield InventoryPanel("Inventory", id=inventory)
        yield GoalsPanel("Goals", id=goals)
        yield ScorePanel(id=score)
        yield PlayerPanel("Player", id=player)

    def watch_data(self, data: Panels | None) -> None:
        if data is not None:
            for panel in self.children:
                if isinstance(panel, (Panel, ScorePanel)):   # every child composed above is one
                    panel.data = data
