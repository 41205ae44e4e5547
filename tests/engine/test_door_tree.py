"""The door tree counts exactly the doors a walk must open: no more (the planner's par would be
wrong), and, within its work budget, no fewer (the search would be slower)."""

import pytest
import random
from itertools import combinations

from tui_adventure.engine.planning import door_tree
from tui_adventure.engine.planning.door_tree import DoorTree


def _fewest_doors(graph, doors, here, rooms, free) -> int:
    """Every set of shut doors by size, until opening one joins ``here`` to every room."""
    shut = sorted(set(doors.values()) - free)
    for n in range(len(shut) + 1):
        for chosen in combinations(shut, n):
            passable = free | set(chosen)
            seen, stack = {here}, [here]
            while stack:
                r = stack.pop()
                for m in graph[r]:
                    d = doors.get((r, m))
                    if m not in seen and (d is None or d in passable):
                        seen.add(m)
                        stack.append(m)
            if rooms <= seen:
                return n
    return -1   # not reachable at all


def _house(rng):
    """A grid of rooms with most passages behind doors: many ways round, so trees need extra regions."""
    w, h = rng.randint(2, 4), rng.randint(2, 4)
    rooms = [f"r{x}{y}" for x in range(w) for y in range(h)]
    graph = {r: set() for r in rooms}
    doors = {}
    for x in range(w):
        for y in range(h):
            for a, b in (((x, y), (x + 1, y)), ((x, y), (x, y + 1))):
                if b[0] < w and b[1] < h and rng.random() < 0.85:
                    ra, rb = f"r{a[0]}{a[1]}", f"r{b[0]}{b[1]}"
                    graph[ra].add(rb)
                    graph[rb].add(ra)
                    if rng.random() < 0.7:
                        doors[(ra, rb)] = doors[(rb, ra)] = f"d{len(doors)}"
    return rooms, graph, doors


def test_the_tree_is_the_fewest_doors_a_walk_can_open():
    rng = random.Random(3)
    extra_regions = 0
    for _ in range(300):
        rooms, graph, doors = _house(rng)
        tree = DoorTree(graph, doors)
        names = sorted(set(doors.values()))
        for _ in range(3):
            here = rng.choice(rooms)
            visit = set(rng.sample(rooms, rng.randint(0, min(5, len(rooms)))))
            free = frozenset(d for d in names if rng.random() < 0.3)
            want = _fewest_doors(graph, doors, here, visit, free)
            if want < 0:
                continue
            got = tree(here, visit, free)
            assert got == want, (graph, doors, here, visit, free)
            regions, _ = tree._split(free)
            extra_regions += got > len({regions[r] for r in visit | {here}}) - 1
    assert extra_regions > 20   # the trees through regions nobody visits were tried, not just the easy ones


@pytest.mark.slow
def test_past_its_budget_the_tree_still_bounds_from_below(monkeypatch):
    rng = random.Random(5)
    monkeypatch.setattr(door_tree, "CHECKS", 1)
    for _ in range(200):
        rooms, graph, doors = _house(rng)
        here = rng.choice(rooms)
        visit = set(rng.sample(rooms, min(4, len(rooms))))
        want = _fewest_doors(graph, doors, here, visit, frozenset())
        if want >= 0:
            assert DoorTree(graph, doors)(here, visit, frozenset()) <= want


def test_a_door_on_two_passages_is_left_to_the_other_counts():
    graph = {"a": {"b", "c"}, "b": {"a"}, "c": {"a"}}
    doors = {("a", "b"): "gate", ("b", "a"): "gate", ("a", "c"): "gate", ("c", "a"): "gate"}
    assert not DoorTree(graph, doors).usable   # one open joins three regions: not a tree's two edges
