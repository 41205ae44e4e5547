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
of one state are the states the planner meets next. Past its work budget an
estimate settles for a spanning tree, and the next estimates of the same tasks
carry on from the sub-tours it finished.
"""

from __future__ import annotations

from collections import deque

INF = 10 ** 6
WORK = 100_000   # sub-tours one estimate may work out before it settles for a cruder bound


class _TooLong(Exception):
    """An estimate's exact tour is too costly here (many tasks): a weaker admissible bound serves."""


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
        n = min(best, key=best.__getitem__)
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


class KeyTour:
    """The shortest relaxed walk doing every task when some locked doors are in the way.

    Each modelled door is shut until its key's room has been visited (picking up the key, at
    the price of its take and the unlock); the other locked doors count as passable, which only
    shortens the walk. A plan that goes round a locked door and one that fetches its key are both
    among the walks searched, so the least is a lower bound on walking, unlocking and those takes.

    Tasks and key options are numbered the first time they are met and a set of them is an
    integer's bits: a sub-tour is keyed on (room, bits, bits), standing in a room is a few bit
    operations on a table built once per set, and the memo of one search holds every sub-tour
    of every estimate (the estimates of a search share most of them). Sets of frozen tuples made
    this four times slower, so the exact tour ran out of its work budget on the large worlds and
    fell back to a bound a third of the walk.
    """

    def __init__(self, graph: dict, doors: dict, max_entries: int = 3_000_000) -> None:
        self.graph = graph
        self.doors = doors
        self.tables: dict = {}     # doors cut -> room distances
        self.memo: dict = {}
        self.max_entries = max_entries
        self._ids: dict = {}       # task -> its bit's index
        self._tasks: list = []     # its bit's index -> task
        self._target: list = []    # task -> the room it needs next (its pick-up, else its drop-off)
        self._picked: list = []    # task -> the bits of what is left of it once its pick-up is done
        self._at: dict = {}        # room -> the bits of the tasks that need it next
        self._after: dict = {}     # (bits, room) -> the bits left after standing in the room
        self._moves: dict = {}     # bits -> [(room, bits left after it)] for every room a task needs
        self._kids: dict = {}      # key option -> its bit's index
        self._keys: list = []
        self._rows: dict = {}      # key bits -> the distances with those keys' doors shut

    def distances(self, cut: frozenset) -> dict:
        got = self.tables.get(cut)
        if got is None:
            edges = {e for e, d in self.doors.items() if d in cut}
            sub = {r: {n for n in ns if (r, n) not in edges} for r, ns in self.graph.items()}
            got = self.tables[cut] = room_distances(sub)
        return got

    def __call__(self, here: str, tasks, keys: frozenset = frozenset()) -> int:
        """``keys``: (door, key's room, price of fetching and using it) for each modelled door."""
        if len(self.memo) > self.max_entries:
            self.memo.clear()
            self._after.clear()
            self._moves.clear()
        bits = self._left(self._bits(tasks), here)
        if not bits:
            return 0
        kbits = 0
        for option in keys:
            i = self._kids.get(option)
            if i is None:
                i = self._kids[option] = len(self._keys)
                self._keys.append(option)
            kbits |= 1 << i
        got = self.memo.get((here, bits, kbits))
        if got is not None:
            return got
        if not self._reachable(here, bits):   # else the search would try every order to learn it
            return INF
        self.work = WORK
        try:
            return self._rest(here, bits, kbits)
        except _TooLong:   # the memo keeps only finished sub-tours: it stays exact
            return self._crude(here, bits)

    def _rooms(self, bits: int) -> set:
        """Every pick-up and drop-off room of the tasks ``bits``."""
        rooms = set()
        while bits:
            low = bits & -bits
            rooms.update(self._tasks[low.bit_length() - 1])
            bits ^= low
        rooms.discard(None)
        return rooms

    def _reachable(self, here: str, bits: int) -> bool:
        row = self.distances(frozenset()).get(here, {})
        return all(r in row for r in self._rooms(bits))

    def _crude(self, here: str, bits: int) -> int:
        """Every door passable, no order: a spanning tree over the rooms still to visit."""
        return spanning_bound(here, self._rooms(bits), self.distances(frozenset()))

    def _bits(self, tasks) -> int:
        bits = 0
        ids = self._ids
        for task in tasks:
            i = ids.get(task)
            if i is None:
                i = self._new(task)
            bits |= 1 << i
        return bits

    def _new(self, task) -> int:
        p, d = task
        left = self._bits([(None, d)]) if p is not None and d is not None and d != p else 0
        i = self._ids[task] = len(self._target)
        self._tasks.append(task)
        room = p if p is not None else d
        self._target.append(room)
        self._picked.append(left)
        self._at[room] = self._at.get(room, 0) | 1 << i
        return i

    def _left(self, bits: int, room: str) -> int:
        """The tasks left after standing in ``room``: its pick-ups done, then the drop-offs they allow."""
        key = (bits, room)
        got = self._after.get(key)
        if got is None:
            at = self._at.get(room, 0)
            got = bits
            done = got & at
            while done:   # a pick-up here may leave a drop-off here: done as well
                got ^= done
                while done:
                    low = done & -done
                    got |= self._picked[low.bit_length() - 1]
                    done ^= low
                done = got & at
            self._after[key] = got
        return got

    def _options(self, bits: int) -> list:
        got = self._moves.get(bits)
        if got is None:
            rooms = set()
            target = self._target
            b = bits
            while b:
                low = b & -b
                rooms.add(target[low.bit_length() - 1])
                b ^= low
            got = self._moves[bits] = [(q, self._left(bits, q)) for q in rooms]
        return got

    def _row(self, kbits: int, here: str) -> dict:
        table = self._rows.get(kbits)
        if table is None:
            cut = frozenset(self._keys[i][0] for i in range(len(self._keys)) if kbits >> i & 1)
            table = self._rows[kbits] = self.distances(cut)
        return table.get(here, {})

    def _rest(self, here: str, bits: int, kbits: int) -> int:
        """The shortest walk from ``here`` doing the tasks ``bits`` (some) with the key options
        ``kbits``, not in the memo yet. The memo is read before each call, not in it: most sub-tours
        asked for are known, and a call costs more than the look-up."""
        self.work -= 1
        if self.work < 0:
            raise _TooLong
        memo = self.memo
        row = self._row(kbits, here)
        if kbits:
            best = self._with_keys(row, bits, kbits)
            memo[(here, bits, kbits)] = best
            return best
        best = INF
        for q, left in self._options(bits):
            step = row.get(q, INF)
            if step < best:
                if left:
                    sub = memo.get((q, left, kbits))
                    step += self._rest(q, left, kbits) if sub is None else sub
                if step < best:
                    best = step
        k = kbits
        while k:
            low = k & -k
            _, room, price = self._keys[low.bit_length() - 1]
            step = row.get(room, INF) + price
            if step < best:
                left = self._left(bits, room)
                if left:
                    sub = memo.get((room, left, kbits ^ low))
                    step += self._rest(room, left, kbits ^ low) if sub is None else sub
                if step < best:
                    best = step
            k ^= low
        memo[(here, bits, kbits)] = best
        return best


    def _with_keys(self, row: dict, bits: int, kbits: int) -> int:
        """``_rest`` with keys still to fetch. Next rooms whose sub-tour is known settle a best at
        once; the others are tried most promising first, each cut off when its walk with every door
        open (a sub-tour without keys: mostly known) cannot beat the best so far."""
        get = self.memo.get
        rest = self._rest
        best = INF
        unknown = []
        tries = [(row.get(q, INF), q, left, kbits) for q, left in self._options(bits)]
        k = kbits
        while k:
            low = k & -k
            _, room, price = self._keys[low.bit_length() - 1]
            tries.append((row.get(room, INF) + price, room, self._left(bits, room), kbits ^ low))
            k ^= low
        for step, q, left, kb in tries:
            if step >= best:
                continue
            if not left:
                best = step
                continue
            sub = get((q, left, kb))
            if sub is None:
                unknown.append((step, q, left, kb))
            elif step + sub < best:
                best = step + sub
        if not unknown:
            return best
        bounds = []
        for step, q, left, kb in unknown:
            if step >= best:
                continue
            open_ = get((q, left, 0))
            if open_ is None:
                open_ = rest(q, left, 0)
            if step + open_ < best:
                bounds.append((step + open_, step, q, left, kb))
        bounds.sort()
        for low, step, q, left, kb in bounds:
            if low >= best:
                break
            sub = get((q, left, kb))   # a sub-tour before it may have worked this one out
            step += rest(q, left, kb) if sub is None else sub
            if step < best:
                best = step
        return best


class TourBound(KeyTour):
    """The shortest walk from a room doing every task; a task is ``(pick-up room, drop-off room)``,
    either may be None (already picked up; nothing to drop off), and a drop-off counts only once its
    pick-up is done. The memo grows with the distinct task sets met; past ``max_entries`` it is
    cleared so a long search keeps a bounded table. A tour with no keys over given distances."""

    def __init__(self, dist: dict, max_entries: int = 3_000_000) -> None:
        super().__init__({}, {}, max_entries)
        self.tables[frozenset()] = dist


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
