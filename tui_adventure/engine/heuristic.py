"""An admissible lower bound on the turns still needed, for the planner.

It reads the unmet goals and adds up work of distinct kinds, each of which
must still be done by at least that many different actions:
puts (one per unmet ``on``/``in`` goal), takes (objects that must be picked
up), opens (closed containers in the way), other single-action goals, and
walking (a minimum spanning tree over the rooms that must still be visited).
The style answers the questions about places (``room_of``, ``is_held``, ...),
so the same bound serves the classic and the clembench rules.
"""

from __future__ import annotations

from collections import deque

INF = 10 ** 6


def room_distances(graph: dict[str, set[str]]) -> dict[str, dict[str, int]]:
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


def walk_bound(start: str, rooms: set[str], dist: dict) -> int:
    """Weight of a minimum spanning tree over ``{start} | rooms`` (Prim, metric closure)."""
    rooms = rooms - {start}
    if not rooms:
        return 0
    nodes = [start, *rooms]
    best = {n: dist.get(start, {}).get(n, INF) for n in nodes[1:]}
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


def transport_heuristic(style, goals):
    """``h(state)`` for worlds whose actions are the ruleset's own."""
    dist = room_distances(style.room_graph())
    put_needs_held = style.put_needs_held
    room_of, is_held, closed_chain, player_room = style.room_of, style.is_held, style.closed_chain, style.player_room

    def h(st) -> int:
        need: set = set()
        takes: set = set()
        opens: set = set()
        carries: list = []   # (room of a thing to carry, room it goes to): each is one walk there and on
        puts = other = 0
        for g in goals:
            if g.holds(st):
                continue
            fact = g.fact
            pred = fact[0]
            if not g.positive:
                other += 1
                continue
            if pred in ("on", "in") and len(fact) == 3:
                x, y = fact[1], fact[2]
                puts += 1
                ry = None if is_held(st, y) else room_of(st, y)
                if ry is not None:
                    need.add(ry)
                if not is_held(st, x):
                    rx = room_of(st, x)
                    if rx is not None:
                        need.add(rx)
                        if ry is not None and rx != ry:
                            carries.append((rx, ry))
                    if put_needs_held or rx is None or rx != ry:
                        takes.add(x)
                    opens |= closed_chain(st, x)
                if pred == "in":
                    opens |= closed_chain(st, y, include_self=True)
            elif pred == "held":
                x = fact[1]
                takes.add(x)
                rx = room_of(st, x)
                if rx is not None:
                    need.add(rx)
                opens |= closed_chain(st, x)
            elif pred == "at" and fact[1] == "player":
                need.add(fact[2])
            elif pred == "open":
                opens.add(fact[1])
                rx = room_of(st, fact[1])
                if rx is not None and not style.is_door(fact[1]):
                    need.add(rx)
            else:
                other += 1
                if pred in ("eaten", "at") and len(fact) >= 2 and not is_held(st, fact[1]):
                    rx = room_of(st, fact[1])
                    if rx is not None:
                        need.add(rx)
                    takes.add(fact[1])
                    opens |= closed_chain(st, fact[1])
                if pred == "at" and len(fact) == 3:
                    need.add(fact[2])
        here = player_room(st)
        walk = walk_bound(here, need, dist) if need else 0
        if carries:   # fetching a thing and carrying it on is one walk at least: here -> its room -> target
            row = dist.get(here, {})
            walk = max(walk, max(row.get(rx, INF) + dist.get(rx, {}).get(ry, INF) for rx, ry in carries))
        if need and doors:
            other += door_work(st, here, need, takes)
        return puts + len(takes) + len(opens) + other + walk

    doors = style.door_exits()
    graph = style.room_graph()

    def reach(st, start, passable) -> set:
        seen = {start}
        stack = [start]
        while stack:
            r = stack.pop()
            for n in graph.get(r, ()):
                if n not in seen:
                    door = doors.get((r, n))
                    if door is None or passable(st, door):
                        seen.add(n)
                        stack.append(n)
        return seen

    def door_work(st, here, need, takes) -> int:
        """Rooms behind a closed door cost an open; behind a locked one, an unlock and a key too."""
        facts = st.facts
        if need <= reach(st, here, lambda st, d: ("open", d) in facts):
            return 0
        extra = 1  # some door must be opened
        if need <= reach(st, here, lambda st, d: ("locked", d) not in facts):
            return extra
        extra += 1  # and unlocked, with a key in hand
        keys = style.keys_for_locked_doors(st)
        if keys and not any(is_held(st, k) or k in takes for k in keys):
            extra += 1
        return extra

    return h
