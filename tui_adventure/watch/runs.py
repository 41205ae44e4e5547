"""A run's row (model and mode) and the alerts worth a line at the top of the dashboard.

The figures are counted from the episodes' rows each time something changed
(tens of thousands of rows cost milliseconds); what a row cannot hold, the
seconds each turn took and the order episodes ended in, is kept per run in
bounded deques, so memory does not grow with the length of a watch.
"""

from __future__ import annotations

import dataclasses
import math
import statistics
from collections import Counter, deque
from dataclasses import dataclass, field

from .episodes import (
    DAMAGED, DONE, ENDED_UNREAD, ERROR, RUNNING, STARTING, STOPPED, STUCK_REPEATS, SUCCESS, EpisodeInfo,
)

RECENT_ENDINGS = 10     # an error rate "jumps" when it is measured over the last this many endings...
JUMP_ERRORS = 3         # ...holds at least this many errors, at least half of them...
JUMP_RISE = 0.3         # ...and this much more than before
SLOW_FACTOR = 3.0       # a server is "much slower" at this many times its earlier seconds per turn...
SLOW_SECONDS = 1.0      # ...and this many seconds more
BASELINE_TURNS = 10     # ...once this many turns gave the earlier pace
RECENT_TURNS = 10       # ...over the last this many turns
STUCK_EPISODES = 3      # episodes "all stuck on the same command": at least this many, half the running ones


@dataclass
class RunFacts:
    """What the watcher learned of a run beyond its episodes' rows."""

    name: str
    mode: str = "text"
    planned: int | None = None         # what the batch's plan files say it will play (None: no plan)
    problem: str = ""                  # a run.json or plan file that cannot be read
    seconds: deque = field(default_factory=lambda: deque(maxlen=400))   # seconds per turn, in order seen
    stamps: deque = field(default_factory=lambda: deque(maxlen=4000))   # the writer's clock at each turn
    endings: list = field(default_factory=list)   # (ended_at, errored): a heap of the newest endings

    def add_turns(self, previous: float | None, stamps) -> float | None:
        """A running episode's new turns, each at the writer's clock; returns the newest stamp."""
        for stamp in stamps:
            if math.isnan(stamp):
                continue
            self.stamps.append(stamp)
            if previous is not None and stamp >= previous:
                self.seconds.append(stamp - previous)
            previous = stamp
        return previous

    def turns_per_minute(self) -> float | None:
        """Turns written in the minute before the newest one (the writer's clock: another machine's
        clock may be off, its minutes are still minutes)."""
        if not self.stamps:
            return None
        newest = max(self.stamps)
        return float(sum(1 for s in self.stamps if s > newest - 60))


@dataclass
class RunRow:
    name: str
    mode: str = "text"
    done: int = 0
    running: int = 0
    errored: int = 0
    stopped: int = 0
    left: int | None = None
    known: int = 0              # done episodes whose outcome was read (success and means count these)
    successes: int = 0
    turns: int = 0
    score_sum: float = 0.0
    score_count: int = 0
    per_minute: float | None = None
    began: float | None = None      # the writer's clock at the first and last turn of its settled episodes
    finished: float | None = None
    settled_turns: int = 0          # the turns of its settled episodes that have those stamps
    last_error: str = ""
    error_at: float = -1.0

    def settled_per_minute(self) -> float | None:
        """A run with nothing running: its settled episodes' turns over the minutes from their first turn
        to their last (the writer's clock, read from the records); None without two distinct stamps."""
        if self.began is None or self.finished is None or self.finished <= self.began:
            return None
        return self.settled_turns / ((self.finished - self.began) / 60)

    @property
    def success(self) -> str:
        return f"{self.successes}/{self.known}" if self.known else "-"

    @property
    def mean_turns(self) -> str:
        return f"{self.turns / self.known:.1f}" if self.known else "-"

    @property
    def main_score(self) -> str:
        """clem eval's Quality Score so far: the mean Main Score of the played episodes that have one."""
        return f"{self.score_sum / self.score_count:.1f}" if self.score_count else "-"


def tally(episodes, rows: dict[str, RunRow] | None = None) -> dict[str, RunRow]:
    """The episodes counted into their runs' rows (``rows`` is added to, and returned)."""
    rows = {} if rows is None else rows
    for ep in episodes:
        row = rows.get(ep.run)
        if row is None:
            row = rows[ep.run] = RunRow(ep.run)
        status = ep.status
        if status not in (RUNNING, STARTING) and ep.began is not None and ep.finished is not None:
            row.began = ep.began if row.began is None else min(row.began, ep.began)
            row.finished = ep.finished if row.finished is None else max(row.finished, ep.finished)
            row.settled_turns += ep.turns
        if status in DONE:
            row.done += 1
            if status != ENDED_UNREAD:
                row.known += 1
                row.turns += ep.turns
                row.successes += status == SUCCESS
                if ep.main_score is not None:
                    row.score_sum += ep.main_score
                    row.score_count += 1
        elif status in (RUNNING, STARTING):
            row.running += 1
        elif status == STOPPED:
            row.stopped += 1
        elif status in (ERROR, DAMAGED):
            row.errored += 1
            if ep.ended_at >= row.error_at and ep.problem:
                row.error_at = ep.ended_at
                row.last_error = f"{ep.world}: {ep.problem}"
    return rows


def run_rows(runs: dict[str, RunFacts], episodes=(), base: dict[str, RunRow] | None = None) -> list[RunRow]:
    """Every run's row: ``base`` (the settled episodes' tally, kept between looks) plus ``episodes``."""
    rows = tally(episodes, {name: dataclasses.replace(row) for name, row in (base or {}).items()})
    for name, facts in runs.items():
        row = rows.setdefault(name, RunRow(name))
        row.mode = facts.mode
        if facts.problem:   # a run.json or plan file that cannot be read: said beside the episodes' errors
            row.last_error = "; ".join(filter(None, (row.last_error, facts.problem)))
        if facts.planned is not None:
            row.left = max(0, facts.planned - row.done - row.errored - row.running)
        if row.running:
            row.per_minute = facts.turns_per_minute()
        else:
            row.per_minute = row.settled_per_minute()
    return sorted(rows.values(), key=lambda r: r.name)


def alerts(runs: dict[str, RunFacts], episodes) -> list[str]:
    """Lines worth a person's attention now, most urgent first."""
    out: list[str] = []
    for name in sorted(runs):
        facts = runs[name]
        jump = _error_jump(facts)
        if jump:
            out.append(f"{name}: {jump}")
        slow = _slower(facts)
        if slow:
            out.append(f"{name}: {slow}")
    running = [ep for ep in episodes if ep.status == RUNNING]
    repeating = Counter(ep.last_command for ep in running if ep.repeats >= STUCK_REPEATS and ep.last_command)
    for command, count in repeating.most_common(3):
        if count >= STUCK_EPISODES and count * 2 >= len(running):
            out.append(f"{count} of {len(running)} running episodes repeat {command!r}"
                       f" ({STUCK_REPEATS}+ turns in a row): stuck on the same command")
    return out


def _error_jump(facts: RunFacts) -> str:
    endings = sorted(facts.endings)
    recent, before = endings[-RECENT_ENDINGS:], endings[:-RECENT_ENDINGS]
    errors = sum(1 for _, errored in recent if errored)
    if errors < JUMP_ERRORS or errors * 2 < len(recent):
        return ""
    earlier = sum(1 for _, errored in before if errored) / len(before) if before else 0.0
    if errors / len(recent) < earlier + JUMP_RISE:
        return ""
    said = f"before: {sum(1 for _, e in before if e)} of {len(before)}" if before else "from the start"
    return f"{errors} of its last {len(recent)} episodes errored ({said}); the error rate jumped"


def _slower(facts: RunFacts) -> str:
    seconds = list(facts.seconds)
    if len(seconds) < BASELINE_TURNS + RECENT_TURNS:
        return ""
    baseline = statistics.median(seconds[:-RECENT_TURNS][-100:])
    recent = statistics.median(seconds[-RECENT_TURNS:])
    if recent < baseline * SLOW_FACTOR or recent - baseline < SLOW_SECONDS:
        return ""
    return f"turns take {recent:.1f} s now, {baseline:.1f} s before: the server answers much slower"


def describe(ep: EpisodeInfo) -> str:
    """The row's note: why it is marked."""
    if ep.problem:
        return ep.problem
    if ep.status == RUNNING and ep.repeats >= STUCK_REPEATS:
        return f"stuck: {ep.repeats} times the same command"
    if ep.stuck():
        return f"stuck: no {'points' if ep.scored else 'goal'} in {ep.since_progress} turns"
    return ""
