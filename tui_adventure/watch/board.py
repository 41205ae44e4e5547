"""What the dashboard draws after a look at the tree, as plain strings, at the cost of what changed.

Of ten thousand episodes a live batch changes the few being played: the
settled ones (ended, errored, damaged) are tallied per run, counted and
filtered and sorted once, and kept until one of them changes (the tree's
``settled_version``); each look adds the live ones to those and merges the
two sorted lists for the rows on screen.
"""

from __future__ import annotations

import heapq
from collections import Counter
from dataclasses import dataclass
from itertools import islice

from ..engine.text import visible
from .episodes import EpisodeInfo
from .runs import alerts, run_rows, tally
from .tree import RecordsTree
from .view import EPISODE_COLUMNS, LIMIT, RUN_COLUMNS, Columns, episode_cells, parse_filter, run_cells, sort_key


@dataclass(frozen=True)
class Picture:
    """Every string here is text for a terminal: what came from the records passed ``visible``."""

    alerts: tuple[str, ...]
    runs_header: str
    runs: tuple[tuple[str, str], ...]        # (run, its line)
    episodes_header: str
    episodes: tuple[tuple[str, str], ...]    # (episode folder, its line)
    matched: int
    status: str


class Board:
    def __init__(self, tree: RecordsTree) -> None:
        self.tree = tree
        self._settled_at: int | None = None   # the tree's settled_version the fields below were made at
        self._settled: list[EpisodeInfo] = []
        self._tally: dict = {}
        self._counts: Counter = Counter()
        self._sorted_at: tuple[int, str, str] | None = None   # (settled_version, filter, sort) of ``_sorted``
        self._sorted: list[EpisodeInfo] = []
        self.run_columns = Columns(RUN_COLUMNS)
        self.episode_columns = Columns(EPISODE_COLUMNS)

    def picture(self, filter_text: str, sort: str) -> Picture:
        tree = self.tree
        if self._settled_at != tree.settled_version:
            live_paths = tree.live
            self._settled = [ep for path, ep in tree.episodes.items() if path not in live_paths]
            self._tally = tally(self._settled)
            self._counts = Counter(ep.status for ep in self._settled)
            self._settled_at = tree.settled_version
        live = [tree.episodes[p] for p in tree.live if p in tree.episodes]
        flt, key = parse_filter(filter_text), sort_key(sort)
        if self._sorted_at != (tree.settled_version, filter_text, sort):
            kept = self._settled if flt.empty else [ep for ep in self._settled if flt.keeps(ep)]
            self._sorted = sorted(kept, key=key)
            self._sorted_at = (tree.settled_version, filter_text, sort)
        kept = sorted((ep for ep in live if flt.keeps(ep)), key=key)
        shown = list(islice(heapq.merge(kept, self._sorted, key=key), LIMIT))
        matched = len(kept) + len(self._sorted)
        counts = self._counts + Counter(ep.status for ep in live)
        total = len(self._settled) + len(live)
        parts = [f"{total} episodes"]
        if tree.unread:
            parts.append(f"{tree.unread} still to read")
        parts.append(", ".join(f"{n} {status}" for status, n in sorted(counts.items())) or "no runs yet: waiting")
        parts.append(f"sort: {sort} (s)")
        if filter_text.strip():
            parts.append(f"{matched} match the filter")
        if matched > len(shown):
            parts.append(f"showing the first {len(shown)}: filter to narrow")
        if flt.problem:
            parts.append(flt.problem)
        runs_header, runs = self.run_columns.lines(
            [(row.name, run_cells(row)) for row in run_rows(tree.runs, live, self._tally)])
        episodes_header, episodes = self.episode_columns.lines([(ep.path, episode_cells(ep)) for ep in shown])
        return Picture(tuple(visible(line) for line in alerts(tree.runs, live)), runs_header, runs,
                       episodes_header, episodes, matched, visible("  ·  ".join(parts)))
