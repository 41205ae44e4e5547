"""Plain definitions the engine's fast paths are tested against: slow, obviously right, and kept
here rather than in the package, since only the tests call them."""

from __future__ import annotations

import time

from tui_adventure.engine.facts import State
from tui_adventure.engine.planning import Plan, PlannerLimit
from tui_adventure.engine.planning.planner import Planner
from tui_adventure.engine.planning.touches import matches


def bfs(planner: Planner, start: State | None = None) -> Plan | None:
    """Brute-force breadth-first search from ``start`` (the world's start by default) to the planner's
    goals, within the planner's node, state and depth limits."""
    t0 = time.perf_counter()
    start = planner._start = start or planner.world.initial
    if planner.relevant is not None and start is not planner.world.initial:
        # what matters from here: a goal thing put in a box since the start makes that box matter
        need = planner.style.relevant_objects(planner.goals, start)
        if not need <= planner.relevant:
            planner.relevant = planner.relevant | need
    parent: dict = {start.facts: None}
    frontier = [start]
    expanded = 0
    if planner.is_goal(start):
        return Plan([], [], 0, 0.0)
    depth = 0
    while frontier and (planner.depth is None or depth < planner.depth):
        depth += 1
        nxt = []
        for st in frontier:
            expanded += 1
            if expanded > planner.max_nodes or len(parent) > planner.max_states:
                raise PlannerLimit(f"no plan found within {expanded} expanded and {len(parent)} seen states")
            for action, env, new in planner.successors(st):
                if new.facts in parent:
                    continue
                parent[new.facts] = (st.facts, (action, env))
                if planner.is_goal(new):
                    return planner._plan(parent, new.facts, expanded, time.perf_counter() - t0)
                nxt.append(new)
        frontier = nxt
    return None


def admissible_commands(planner: Planner, st: State) -> list[str]:
    """What ``Planner.admissible_commands`` answers, by definition: every grounded action whose successor
    differs from ``st``, or that gives information, rendered, without duplicates."""
    out = []
    domains = planner.style.domains
    for action in planner.world.actions:
        if action.ends:
            out.append(planner.command_text(action, {}, st))
            continue
        if action.effect is None and not action.info:
            continue
        for env in action.ground(st, domains):
            if action.effect is not None and action.successor(st, env).facts == st.facts:
                continue
            out.append(planner.command_text(action, env, st))
    return sorted(set(out))


def touched(patterns: dict, changed: list) -> bool:
    """Whether a fact of ``changed`` matches one of ``patterns`` (``touches.read_patterns``)."""
    return any(any(matches(f, pattern) for pattern in patterns.get(f[0], ())) for f in changed)
