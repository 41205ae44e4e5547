"""How many closed doors a walk through given rooms must open: a Steiner tree over the doors.

The walking bound ignores doors, and the door counts beside it used to see
only doors on every route (cut doors) or "some door"; on the generated worlds
a plan opens ten doors where those counts found four, and the search paid for
each missing turn with a layer of states. Here the rooms joined without a
closed door are one region, each closed door is an edge between two regions,
and the walk's doors must connect every region it visits: at least the edges
of the smallest tree that joins the player's region to the regions of the
rooms to visit. Each such door costs an ``open`` (a turn apart from the
moves), so the tree's size is a lower bound on opens that adds to the walk.
The same tree with the unlocked doors free counts the locked doors the walk
must pass, each an ``unlock``: a bound on unlocks that adds as well.

With unit edges the smallest tree is the fewest extra regions that make the
regions to visit connected; these are tried by increasing number, and past a
work budget the count proven so far is still a bound (no smaller tree exists).
"""

from __future__ import annotations

from itertools import combinations

CHECKS = 4_000   # connectivity checks one tree may try before it settles for the size proven so far
MAX_ENTRIES = 1_000_000   # trees remembered; past this the table starts again, so a long search stays bounded


class DoorTree:
    """``tree(here, rooms, free)``: the fewest doors not in ``free`` that a walk from ``here``
    through ``rooms`` must pass. ``free`` are the doors that cost nothing: the open ones when
    counting opens, the unlocked ones (and those whose keys a tour prices) when counting
    unlocks. Works for doors that each join one pair of rooms; ``usable``
    is False otherwise (a door joining several pairs could be one open for two tree edges)."""

    def __init__(self, graph: dict, doors: dict) -> None:
        self.graph = graph
        self.doors = doors
        pairs: dict = {}
        for (a, b), d in doors.items():
            pairs.setdefault(d, set()).add(frozenset((a, b)))
        self.usable = all(len(p) == 1 for p in pairs.values())
        self._pairs = {d: tuple(next(iter(p))) for d, p in pairs.items()} if self.usable else {}
        self._regions: dict = {}   # free doors -> (room -> region, region -> neighbours' bits)
        self._memo: dict = {}

    def _split(self, free: frozenset):
        got = self._regions.get(free)
        if got is not None:
            return got
        doors = self.doors
        region: dict = {}
        for start in self.graph:
            if start in region:
                continue
            n = len(set(region.values()))
            region[start] = n
            stack = [start]
            while stack:
                r = stack.pop()
                for m in self.graph.get(r, ()):
                    d = doors.get((r, m))
                    if m not in region and (d is None or d in free):
                        region[m] = n
                        stack.append(m)
        count = len(set(region.values()))
        adj = [0] * count
        for d, (a, b) in self._pairs.items():
            if d in free or a not in region or b not in region:
                continue
            ra, rb = region[a], region[b]
            if ra != rb:
                adj[ra] |= 1 << rb
                adj[rb] |= 1 << ra
        got = self._regions[free] = (region, adj)
        return got

    def __call__(self, here: str, rooms, free: frozenset) -> int:
        region, adj = self._split(free)
        want = 1 << region[here]
        for r in rooms:
            want |= 1 << region[r]
        key = (free, want)
        got = self._memo.get(key)
        if got is None:
            if len(self._memo) > MAX_ENTRIES:
                self._memo.clear()
                self._regions.clear()
            got = self._memo[key] = _tree(adj, want)
        return got


def _reach(adj: list, nodes: int, start: int) -> int:
    """The bits of ``nodes`` joined to the lowest bit of ``start`` through ``nodes``."""
    seen = todo = start & -start
    while todo:
        b = todo & -todo
        todo ^= b
        new = adj[b.bit_length() - 1] & nodes & ~seen
        seen |= new
        todo |= new
    return seen


def _connected(adj: list, nodes: int) -> bool:
    return _reach(adj, nodes, nodes) == nodes


def _tree(adj: list, want: int) -> int:
    """Edges of the smallest tree joining the regions ``want`` (bits), or a lower bound on it."""
    k = bin(want).count("1")
    if _connected(adj, want):
        return k - 1
    # regions that can lie on a smallest tree: those that a tree could not drop (a region with
    # one neighbour left is a leaf, and a leaf not wanted is an edge too many)
    keep = (1 << len(adj)) - 1
    changed = True
    while changed:
        changed = False
        for i in range(len(adj)):
            b = 1 << i
            if keep & b and not want & b and bin(adj[i] & keep).count("1") <= 1:
                keep ^= b
                changed = True
    keep = _reach(adj, keep, want)
    if keep & want != want:
        return k - 1   # the rooms cannot all be reached: the walk's own bound says so
    spare = [1 << i for i in range(len(adj)) if keep >> i & 1 and not want >> i & 1]
    checks = CHECKS
    for extra in range(1, len(spare) + 1):
        for chosen in combinations(spare, extra):
            checks -= 1
            if checks < 0:
                return k - 1 + extra   # every smaller tree was tried: none joins them
            if _connected(adj, want | sum(chosen)):
                return k - 1 + extra
    return k - 1
