"""Walking bounds for the heuristic: the shortest relaxed tour through the rooms a plan must visit.

A spanning tree over the rooms to visit was the old bound; it falls far
short of par on the generated worlds (a tour through five scattered places
is often twice its spanning tree), and the planner's work grows steeply with
that gap. Here the bound is the exact length of the shortest walk that visits
every point, with each carry's pick-up before its drop-off, over shortest
room distances (doors ignored, any number of things carried): a relaxation
of the real moves, so still a lower bound. It is solved by memoised search
over (room, tasks left); the tables are shared by every state of one search
because the tasks only shrink as things are taken and put, so the subproblems
of one state are the states the planner meets next.
"""

from __future__ import annotations

from collections import deque

INF = 10 ** 6
WORK = 100_000   # sub-tours one estimate may work out before it settles for a cruder bound


class _TooLong(Exception):
    """An estimate's exact tour is too costly here (many tasks): a weaker admissible bound serves."""


def _farthest(row: dict, tasks) -> int:
    """A lower bound of any tour doing ``tasks``: the walk to its farthest room."""
    return max((row.get(p if p is not None else d, INF) for p, d in tasks), default=0)


def room_distances(graph: dict[str, set[str]]) -> dict[str, dict[str, int]]:
    """All-pairs shortest walks (moves between rooms), door states ignored: once per world."""
    out = {}
    for src in graph:
        dist = {src: 0}
        queue = deque([src])
        while queue:
            r = queue.popleft()
            for n in graph.get(r, ()):
                if n not in dist:
                    dist[n] = dist[r] + 1
                    queue.append(n)
        out[src] = dist
    return out


def spanning_bound(start: str, rooms: set[str], dist: dict) -> int:
    """Weight of a minimum spanning tree over ``{start} | rooms`` (Prim, metric closure): any walk
    through the rooms is at least this long. The fallback when there are too many tasks to tour."""
    rooms = rooms - {start}
    if not rooms:
        return 0
    best = {n: dist.get(start, {}).get(n, INF) for n in rooms}
    total = 0
    while best:
        n = min(best, key=best.get)
        d = best.pop(n)
        if d >= INF:
            return INF
        total += d
        row = dist.get(n, {})
        for m in best:
            dm = row.get(m, INF)
            if dm < best[m]:
                best[m] = dm
    return total


class TourBound:
    """The shortest walk from a room doing every task; a task is ``(pick-up room, drop-off room)``,
    either may be None (already picked up; nothing to drop off), and a drop-off counts only once its
    pick-up is done. The memo grows with the distinct task sets met; past ``max_entries`` it is
    cleared so a long search keeps a bounded table."""

    def __init__(self, dist: dict, max_entries: int = 400_000) -> None:
        self.dist = dist
        self.memo: dict = {}
        self.max_entries = max_entries

    def __call__(self, here: str, tasks) -> int:
        tasks = frozenset(_visit(tasks, here))
        if not tasks:
            return 0
        if len(self.memo) > self.max_entries:
            self.memo.clear()
        self.work = WORK
        try:
            return self._rest(here, tasks)
        except _TooLong:   # the memo keeps only finished sub-tours: it stays exact
            return _farthest(self.dist.get(here, {}), tasks)

    def _rest(self, here: str, tasks: frozenset) -> int:
        """Tasks left after doing all that can be done in ``here``."""
        if not tasks:
            return 0
        self.work -= 1
        if self.work < 0:
            raise _TooLong
        key = (here, tasks)
        got = self.memo.get(key)
        if got is not None:
            return got
        row = self.dist.get(here, {})
        targets = {p if p is not None else d for p, d in tasks}
        best = INF
        for q in targets:
            step = row.get(q, INF)
            if step >= best:
                continue
            total = step + self._rest(q, frozenset(_visit(tasks, q)))
            if total < best:
                best = total
        self.memo[key] = best
        return best


def _visit(tasks, room: str):
    """The tasks left after standing in ``room``: its pick-ups done, then the drop-offs they allow."""
    for p, d in tasks:
        if p == room:
            p = None
        if p is None and (d is None or d == room):
            continue
        yield (p, d)


def door_sides(graph: dict[str, set[str]], doors: dict) -> dict:
    """door -> {room: rooms reachable from it without crossing that door}, door states ignored.

    A door whose side set from the player's room misses a room to visit is on every route
    there: it must be opened (and unlocked, with its key) whatever the plan, so its work and
    its key's fetch can be added to the bound. Worked out once per world.
    """
    by_door: dict = {}
    for (a, b), door in doors.items():
        by_door.setdefault(door, set()).add((a, b))
    out = {}
    for door, edges in by_door.items():
        sides: dict = {}
        for src in graph:
            seen = {src}
            stack = [src]
            while stack:
                r = stack.pop()
                for n in graph.get(r, ()):
                    if n not in seen and (r, n) not in edges:
                        seen.add(n)
                        stack.append(n)
            sides[src] = frozenset(seen)
        out[door] = (sides, frozenset(edges))
    return out


class KeyTour:
    """The shortest relaxed walk doing every task when some locked doors are in the way.

    Each modelled door is shut until its key's room has been visited (picking up the key, at
    the price of its take and the unlock); the other locked doors count as passable, which only
    shortens the walk. A plan that goes round a locked door and one that fetches its key are both
    among the walks searched, so the least is a lower bound on walking, unlocking and those takes.
    """

    def __init__(self, graph: dict, doors: dict, max_entries: int = 400_000) -> None:
        self.graph = graph
        self.doors = doors
        self.tables: dict = {}
        self.memo: dict = {}
        self.max_entries = max_entries

    def distances(self, cut: frozenset) -> dict:
        got = self.tables.get(cut)
        if got is None:
            edges = {e for e, d in self.doors.items() if d in cut}
            sub = {r: {n for n in ns if (r, n) not in edges} for r, ns in self.graph.items()}
            got = self.tables[cut] = room_distances(sub)
        return got

    def __call__(self, here: str, tasks, keys: frozenset) -> int:
        """``keys``: (door, key's room, price of fetching and using it) for each modelled door."""
        if len(self.memo) > self.max_entries:
            self.memo.clear()
        tasks = frozenset(_visit(tasks, here))
        self.work = WORK
        try:
            return self._rest(here, tasks, keys)
        except _TooLong:   # every door passable: no tour can be shorter than the walk to the farthest task
            return _farthest(self.distances(frozenset()).get(here, {}), tasks)

    def _rest(self, here: str, tasks: frozenset, keys: frozenset) -> int:
        if not tasks:
            return 0
        self.work -= 1
        if self.work < 0:
            raise _TooLong
        key = (here, tasks, keys)
        got = self.memo.get(key)
        if got is not None:
            return got
        row = self.distances(frozenset(d for d, _, _ in keys)).get(here, {})
        best = INF
        for q in {p if p is not None else d for p, d in tasks}:
            step = row.get(q, INF)
            if step < best:
                best = min(best, step + self._rest(q, frozenset(_visit(tasks, q)), keys))
        for option in keys:
            _, room, price = option
            step = row.get(room, INF) + price
            if step < best:
                best = min(best, step + self._rest(room, frozenset(_visit(tasks, room)), keys - {option}))
        self.memo[key] = best
        return best


def door_weights(graph: dict, doors: dict) -> dict:
    """door -> how much longer walks between rooms get without it (summed over pairs): the doors
    worth modelling first when only a few can be."""
    base = room_distances(graph)
    out = {}
    for door in set(doors.values()):
        edges = {e for e, d in doors.items() if d == door}
        sub = {r: {n for n in ns if (r, n) not in edges} for r, ns in graph.items()}
        cut = room_distances(sub)
        out[door] = sum(min(cut[a].get(b, INF), 4 * len(graph)) - base[a][b] for a in base for b in base[a])
    return out
