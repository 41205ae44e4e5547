"""Which episodes the dashboard lists, in what order, and each row's cells as text.

A filter is typed words: ``run:NAME``, ``world:NAME``, ``outcome:STATUS``
(or ``status:``), ``stuck`` or ``stuck:N`` (no goal in N turns, or the same
command again and again), and plain words matched anywhere in the row. Only
the first ``LIMIT`` rows are drawn: a table of ten thousand rows would cost
the screen more than the reading of them, and a person narrows it anyway.
"""

from __future__ import annotations

from dataclasses import dataclass

from ..engine.text import visible
from .episodes import STATUSES, STUCK_TURNS, EpisodeInfo
from .runs import RunRow, describe

LIMIT = 200
SORTS = ("status", "run", "world", "turns", "changed")
EPISODE_COLUMNS = ("run", "world", "status", "turn", "goals", "score", "last command", "note")
RUN_COLUMNS = ("run", "mode", "done", "running", "errored", "left", "success", "mean turns", "main score",
               "turns/min", "last error")
WIDEST = {"run": 36, "world": 36, "last command": 40, "note": 48, "last error": 80,   # wider cells are cut
          "errored": 24}
NARROWEST = 12
_RANK = {status: i for i, status in enumerate(STATUSES)}


@dataclass(frozen=True)
class Filter:
    runs: tuple[str, ...] = ()
    worlds: tuple[str, ...] = ()
    statuses: tuple[str, ...] = ()
    stuck: int | None = None
    words: tuple[str, ...] = ()
    problem: str = ""   # a part of the text that means nothing (said, and ignored)

    @property
    def empty(self) -> bool:
        return not (self.runs or self.worlds or self.statuses or self.words) and self.stuck is None

    def keeps(self, ep: EpisodeInfo) -> bool:
        """Matched against the row as drawn (``visible``), so a run's name put in the filter finds it."""
        run, world = visible(ep.run).lower(), visible(ep.world).lower()
        if self.runs and not any(r in run for r in self.runs):
            return False
        if self.worlds and not any(w in world for w in self.worlds):
            return False
        if self.statuses and not any(ep.status.startswith(s) for s in self.statuses):
            return False
        if self.stuck is not None and not ep.stuck(self.stuck):
            return False
        if self.words:
            text = visible(f"{run} {world} {ep.status} {ep.last_command.lower()} {ep.problem.lower()}")
            return all(w in text for w in self.words)
        return True


def parse_filter(text: str) -> Filter:
    runs, worlds, statuses, words, unknown = [], [], [], [], []
    stuck = None
    for word in text.lower().split():
        key, sep, value = word.partition(":")
        if word == "stuck":
            stuck = STUCK_TURNS
        elif sep and key == "stuck":
            if value.isascii() and value.isdigit() and len(value) <= 9 and int(value) > 0:   # int() refuses "²"
                stuck = int(value)
            else:
                unknown.append(word)
        elif sep and key == "run" and value:
            runs.append(value)
        elif sep and key == "world" and value:
            worlds.append(value)
        elif sep and key in ("outcome", "status") and value:
            statuses.append(value)
        elif sep and key in ("run", "world", "outcome", "status"):
            unknown.append(word)
        else:
            words.append(word)
    problem = f"ignored: {' '.join(unknown)} (write run:NAME, world:NAME, outcome:STATUS, stuck:N)" if unknown else ""
    return Filter(tuple(runs), tuple(worlds), tuple(statuses), stuck, tuple(words), problem)


def sort_key(sort: str):
    if sort == "run":
        return lambda ep: (ep.run, _RANK.get(ep.status, 99), ep.world, ep.instance)
    if sort == "world":
        return lambda ep: (ep.world, ep.run, ep.instance)
    if sort == "turns":
        return lambda ep: (-ep.turns, ep.run, ep.world)
    if sort == "changed":
        return lambda ep: (-ep.changed, ep.run, ep.world)
    return lambda ep: (_RANK.get(ep.status, 99), ep.run, ep.world, ep.instance)


def select(episodes, flt: Filter, sort: str, limit: int = LIMIT) -> tuple[list[EpisodeInfo], int]:
    """The rows to draw and how many matched in all."""
    kept = [ep for ep in episodes if flt.keeps(ep)]
    kept.sort(key=sort_key(sort))
    return kept[:limit], len(kept)


def episode_cells(ep: EpisodeInfo) -> tuple[str, ...]:
    """The row's cells as text for a terminal: names, commands and errors come from the records, and
    a control character in them is shown (``visible``), never sent to the terminal."""
    goals = f"{ep.goals}/{ep.goal_count}" if ep.goal_count else str(ep.goals)
    if ep.scored:   # a story file's own score, not goals
        goals = f"{goals} pts"
    score = "-" if ep.main_score is None else f"{ep.main_score:.0f}"
    return (visible(ep.run), visible(ep.world), ep.status, str(ep.turns), goals, score, visible(ep.last_command),
            visible(describe(ep)))


def run_cells(row: RunRow) -> tuple[str, ...]:
    """The run's cells as text for a terminal (``visible``, as ``episode_cells``)."""
    left = "?" if row.left is None else str(row.left)
    per_minute = "-" if row.per_minute is None else f"{row.per_minute:.0f}"
    errored = str(row.errored) + (f" (+{row.stopped} stopped)" if row.stopped else "")
    return (visible(row.name), visible(row.mode), str(row.done), str(row.running), errored, left, row.success,
            row.mean_turns, row.main_score, per_minute, visible(row.last_error[:120]))


class Columns:
    """Rows as single lines, their cells padded to widths that only grow (and are capped), so a row whose
    cells change is one line to draw again, and the widths stay put while a batch plays."""

    def __init__(self, names: tuple[str, ...]) -> None:
        self.names = names
        self.widths = [len(n) for n in names]
        self._made: dict[tuple, str] = {}   # cells -> line, at the current widths (most rows repeat)

    def lines(self, rows) -> tuple[str, tuple]:
        """(header, ((key, line), ...)) for ``rows`` of (key, cells)."""
        for _, cells in rows:
            if cells in self._made:
                continue
            for i, (name, cell) in enumerate(zip(self.names, cells)):
                if len(cell) > self.widths[i]:
                    self.widths[i] = min(len(cell), max(WIDEST.get(name, NARROWEST), len(name)))
                    self._made.clear()
        if len(self._made) > 4 * LIMIT:
            self._made.clear()
        made = self._made
        out = []
        for key, cells in rows:
            line = made.get(cells)
            if line is None:
                line = made[cells] = self.line(cells)
            out.append((key, line))
        return self.line(self.names), tuple(out)

    @property
    def width(self) -> int:
        return sum(self.widths) + 2 * (len(self.widths) - 1)

    def line(self, cells) -> str:
        return "  ".join(_fit(cell, width) for cell, width in zip(cells, self.widths)).rstrip()

    def split(self, line: str) -> list[str]:
        """A drawn line's cells again (for tests, and for copying out)."""
        out, at = [], 0
        for width in self.widths:
            out.append(line[at:at + width].strip())
            at += width + 2
        return out


def _fit(cell: str, width: int) -> str:
    return cell.ljust(width) if len(cell) <= width else cell[:width - 1] + "…"
