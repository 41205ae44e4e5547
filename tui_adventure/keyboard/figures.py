"""What the side panels and the REPL toolbar show, as plain data: read from the session in one place,
drawn by whichever front end is running."""

from __future__ import annotations

import math
from dataclasses import dataclass, field, fields, replace


@dataclass
class Panels:
    """Everything the side panels and the REPL toolbar show, read from the episode in one place."""

    title: str
    room: str
    exits: list[str]
    inventory: list[str]
    goals: list[tuple[str, bool]]
    goals_achieved: int | None      # None: hidden (blind play)
    goal_count: int
    last_goal_change: int
    turns: int
    max_turns: int
    par: int | None                 # the exact optimum once known (else the stated one)
    par_upstream: int | None        # the stated par (clembench's optimal_turns), shown beside it when it differs
    moves_over_par: int | None      # engine.metrics.moves_over_par: won episodes only
    turn_ratio: float | None
    main_score: float
    progress: float | None
    player: str
    ended: bool
    outcome: str = ""
    invalid: int = 0
    extra: dict = field(default_factory=dict)
    par_at_least: int | None = None  # when the exact search ran out of budget: what it proved
    blind: bool = False              # some figures are hidden (Visibility): draw only what is left
    par_pending: bool = False        # the exact search for par is still running (in a worker): "computing"
    scored: tuple[int, int | None, int] | None = None   # a game with a score of its own: (score, max, moves)
    walkthrough: int | None = None   # the length of a known winning walkthrough (Jericho's; not par)


def par_label(par: int | None, upstream: int | None, at_least: int | None = None, pending: bool = False) -> str:
    """``8``, or ``8 (upstream 10)`` where the stated par differs from the exact one; ``≥ 38``
    when the planner ran out of budget but proved that much; ``computing…`` while it searches."""
    if par is None and pending:
        return "computing…"
    if par is None:
        if at_least is not None:
            return f"≥ {at_least}" + (f" (upstream {upstream})" if upstream is not None else "")
        return "?" if upstream is None else str(upstream)
    return f"{par} (upstream {upstream})" if upstream is not None and upstream != par else str(par)


@dataclass(frozen=True)
class ProgressFigures:
    """What the planner adds to the Score panel once a turn is on screen."""

    turns: int
    par: int | None
    progress: float | None
    moves_over_par: int | None
    turn_ratio: float | None
    par_at_least: int | None = None


@dataclass(frozen=True)
class Visibility:
    """What the person at the keyboard may see beyond what a model player is told.

    A human baseline is only comparable with a model's run when the person
    plays on the same information. A model reads its prompt and the game's
    replies; the researcher's screen adds par, a progress bar that says
    whether the last move helped, the score so far, the planner (debug
    screen, oracle), the names of rooms not yet visited, and undo. Blind play
    (``play --blind``, and every study by default) hides all of them; a study
    may give some back by name (``show:``), and the records say which.
    """

    par: bool = True              # par, moves over par, turn ratio
    progress: bool = True         # the planner's progress bar
    score: bool = True            # goals ticked off, goal score changes, Main Score, "all goals achieved"
    planner: bool = True          # the debug screen (facts, admissible commands, plan) and the oracle
    switch_player: bool = True    # handing the keyboard to a model or the oracle, and the model keys
    unvisited_exits: bool = True  # names of the rooms behind exits not yet visited
    undo: bool = True             # undo, restart, save and restore

    @classmethod
    def blind(cls, **shown: bool) -> "Visibility":
        """Nothing beyond a model's prompt, except what ``shown`` gives back by name."""
        return cls(**({name: False for name in cls.names()} | shown))

    @classmethod
    def names(cls) -> list[str]:
        return [f.name for f in fields(cls)]

    def shown(self) -> list[str]:
        """What is given beyond a model's prompt, for the records (empty: fully blind)."""
        return [name for name in self.names() if getattr(self, name)]

    def panels(self, p: Panels) -> Panels:
        """``p`` with what this view hides taken out (None, NaN, unticked), the rest as it was."""
        hide: dict = {}
        if not self.par:
            hide |= {"par": None, "par_upstream": None, "par_at_least": None, "moves_over_par": None,
                     "turn_ratio": None, "walkthrough": None}
        if not self.progress:
            hide["progress"] = None
        if not self.score:
            hide |= {"goals": [(g, False) for g, _ in p.goals], "goals_achieved": None, "last_goal_change": 0,
                     "main_score": math.nan, "scored": None}
        return replace(p, **hide, blind=True) if hide else p


RESEARCHER = Visibility()
BLIND = Visibility.blind()
