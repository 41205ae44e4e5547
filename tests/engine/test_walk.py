"""The tour bounds are exact: they agree with a plain shortest-path search over the relaxed walk."""

import heapq
import random

from tui_adventure.engine.planning import walk


def _reference(graph, doors, here, tasks, keys) -> int:
    """Dijkstra over (room, tasks left, key options left), one move at a time: slow, obviously right."""

    def visit(tasks, room):
        out = set()
        for p, d in tasks:
            if p == room:
                p = None
            if p is None and (d is None or d == room):
                continue
            out.add((p, d))
        return frozenset(out)

    start = (here, visit(tasks, here), frozenset(keys))
    queue = [(0, 0, start)]
    best = {start: 0}
    n = 0
    while queue:
        cost, _, state = heapq.heappop(queue)
        room, left, options = state
        if cost > best[state]:
            continue
        if not left:
            return cost
        shut = {door for door, _, _ in options}
        nexts = [(1, (r, visit(left, r), options)) for r in graph[room]
                 if doors.get((room, r)) not in shut]
        nexts += [(price, (room, left, options - {o})) for o in options for _, k, price in [o] if k == room]
        for step, nxt in nexts:
            if cost + step < best.get(nxt, 1 << 30):
                best[nxt] = cost + step
                n += 1
                heapq.heappush(queue, (cost + step, n, nxt))
    return walk.INF


def _world(rng):
    rooms = [f"r{i}" for i in range(rng.randint(4, 9))]
    graph = {r: set() for r in rooms}
    for i in range(1, len(rooms)):   # a tree, then a few more passages
        a, b = rooms[i], rooms[rng.randrange(i)]
        graph[a].add(b)
        graph[b].add(a)
    for _ in range(rng.randint(0, 3)):
        a, b = rng.sample(rooms, 2)
        graph[a].add(b)
        graph[b].add(a)
    edges = sorted({tuple(sorted((a, b))) for a in graph for b in graph[a]})
    doors = {}
    for i, (a, b) in enumerate(rng.sample(edges, min(len(edges), rng.randint(0, 3)))):
        doors[(a, b)] = doors[(b, a)] = f"d{i}"
    return rooms, graph, doors


def test_tours_match_a_search_over_single_moves():
    rng = random.Random(7)
    for _ in range(150):
        rooms, graph, doors = _world(rng)
        choice = [None] + rooms
        tasks = {(rng.choice(choice), rng.choice(choice)) for _ in range(rng.randint(0, 5))} - {(None, None)}
        here = rng.choice(rooms)
        keys = frozenset((d, rng.choice(rooms), rng.randint(1, 2)) for d in sorted(set(doors.values()))
                         if rng.random() < 0.7)
        plain = walk.TourBound(walk.room_distances(graph))
        assert plain(here, tasks) == _reference(graph, {}, here, tasks, ()), (graph, here, tasks)
        keyed = walk.KeyTour(graph, doors)
        assert keyed(here, tasks, keys) == _reference(graph, doors, here, tasks, keys), (graph, doors, here, tasks, keys)
        # one table serves both walks and every later estimate
        assert keyed(here, tasks) == plain(here, tasks)
        for _ in range(3):
            there = rng.choice(rooms)
            assert keyed(there, tasks, keys) == _reference(graph, doors, there, tasks, keys)
