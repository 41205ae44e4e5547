"""What the side panels and the REPL toolbar show, as plain data: read from the session in one place,
drawn by whichever front end is running."""

from __future__ import annotations

from dataclasses import dataclass, field


@dataclass
class Panels:
    """Everything the side panels and the REPL toolbar show, read from the episode in one place."""

    title: str
    room: str
    exits: list[str]
    inventory: list[str]
    goals: list[tuple[str, bool]]
    goals_achieved: int
    goal_count: int
    last_goal_change: int
    turns: int
    max_turns: int
    par: int | None                 # the exact optimum once known (else the stated one)
    par_upstream: int | None        # the stated par (clembench's optimal_turns), shown beside it when it differs
    turns_over_par: int | None      # turns but a closing done, minus par
    turn_ratio: float | None
    main_score: float
    progress: float | None
    player: str
    ended: bool
    outcome: str = ""
    invalid: int = 0
    extra: dict = field(default_factory=dict)
    par_at_least: int | None = None  # when the exact search ran out of budget: what it proved


def par_label(par: int | None, upstream: int | None, at_least: int | None = None) -> str:
    """``8``, or ``8 (upstream 10)`` where the stated par differs from the exact one; ``≥ 38``
    when the planner ran out of budget but proved that much."""
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
    turns_over_par: int | None
    turn_ratio: float | None
    par_at_least: int | None = None
