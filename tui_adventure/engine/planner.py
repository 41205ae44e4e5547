"""The exact planner: the shortest command sequence that reaches every goal.

A* over engine states with an admissible heuristic (a lower bound on the turns
still needed), re-opening states when a shorter way to them turns up, so the
first goal state taken off the queue is optimal. The heuristic counts the
puts, takes and opens that the unmet goals still need, plus a lower bound on
walking: every room the player must still visit, joined by a minimum spanning
tree over shortest room distances (any walk through those rooms is at least
that long). Worlds with actions of their own fall back to h = 0 (plain
breadth-first), since their effects could break the bound.
"""

from __future__ import annotations

import heapq
import itertools
import time
from dataclasses import dataclass, field

from .planning_view import PlanningView, planning_view
from .facts import State
from .world import World


MEMORY_BUDGET = 2 * 1024 ** 3   # what one search may hold; the machines this runs on have a few GB
STATE_BYTES_PER_FACT = 64         # per fact of a stored state: manor (241 facts) holds 16 KB a state


class PlannerLimit(RuntimeError):
    """The search grew past its node limit without an answer."""


@dataclass
class Plan:
    commands: list[str]
    steps: list[tuple[str, dict]] = field(default_factory=list)
    expanded: int = 0
    seconds: float = 0.0
    optimal: bool = True

    @property
    def par(self) -> int:
        return len(self.commands)

    def as_json(self) -> dict:
        return {"par": self.par, "commands": self.commands, "optimal": self.optimal,
                "expanded": self.expanded, "seconds": round(self.seconds, 4)}


class Planner:
    def __init__(self, world: World, max_nodes: int = 3_000_000, prune: bool = True,
                 max_states: int = 200_000, shortcuts: bool = True, max_seconds: float | None = None) -> None:
        """``shortcuts=False`` plans with every action, no heuristic and no pruning: the reference
        the tests hold the shortcuts to."""
        self.world = world
        self.max_nodes = max_nodes
        self.max_seconds = max_seconds   # a search longer than this gives up (PlannerLimit): a budget in time
        # states held at once: a count, and a memory budget (a state costs roughly its facts), so a
        # world of thousands of rooms gives up with PlannerLimit long before it exhausts memory
        per_state = STATE_BYTES_PER_FACT * max(1, len(world.initial.facts))
        self.max_states = max(1_000, min(max_states, MEMORY_BUDGET // per_state))
        self.style = world.style
        # which shortcuts stay exact beside the world's own actions
        view = planning_view(world) if shortcuts else PlanningView(frozenset(), False, False)
        self.moves = [a for a in world.actions if a.effect is not None and not a.ends and a.spec.plan
                      and a.id not in view.skipped]
        self.info = [a for a in world.actions if a.info]
        self.goals = list(world.goals)
        own_rules = view.prune
        self.h = self.style.heuristic(self.goals) if view.heuristic else None
        self.relevant = self.style.relevant_objects(self.goals) if own_rules and prune else None
        self._plans: list = []
        for action in self.moves:
            things = [p for p in action.params if action.spec.params[p] == "thing"]
            mode = action.spec.plan if prune and own_rules and action.spec.plan in ("goal", "goal_object") else None
            self._plans.append((action, things, mode))

    # successors -------------------------------------------------------
    def successors(self, st: State):
        domains = self.style.domains
        relevant = self.relevant
        if relevant is not None:
            scope = domains["thing"]
            narrow = dict(domains)
            narrow["thing"] = lambda st: [x for x in scope(st) if x in relevant]
        seen: set = set()
        out = []
        goals = self.goals
        plannable = self.style.plannable
        for action, things, goal_only in self._plans:
            if relevant is None or not things:
                envs = action.ground(st, domains)
            elif len(things) == 1:
                envs = action.ground(st, narrow)
            else:
                envs = action.ground(st, domains)
            if plannable is not None:  # before the symmetry cut: its representative must be typeable
                envs = [e for e in envs if plannable(action, e, st)]
            if relevant is not None and len(things) > 1:
                envs = self._symmetric(envs, things, relevant)
            unmet = [g for g in goals if not g.holds(st)] if goal_only else ()
            for env in envs:
                if goal_only == "goal_object" and not any(env[t] in g.fact[1:] for t in things for g in unmet):
                    continue
                if goal_only == "goal" and not (action.plan_if is not None and action.plan_if(st, env)):
                    adds: set = set()
                    dels: set = set()
                    action.effect(st, env, adds, dels)
                    if not any((g.fact in adds) if g.positive else (g.fact in dels) for g in unmet):
                        continue
                    new = st.apply(adds, dels)
                else:
                    new = action.successor(st, env)
                if new is st or new.facts == st.facts or new.facts in seen:
                    continue
                seen.add(new.facts)
                out.append((action, env, new))
        return out

    @staticmethod
    def _symmetric(envs: list[dict], things: list[str], relevant: frozenset) -> list[dict]:
        """Bindings with at least one relevant thing; of those that differ only in
        irrelevant things (a fixed table or another, here), the first stands for all."""
        out = []
        seen: set = set()
        for env in envs:
            key = tuple(env[t] if env[t] in relevant else None for t in things)
            if not any(key):
                continue
            if None in key:
                if key in seen:
                    continue
                seen.add(key)
            out.append(env)
        return out

    def is_goal(self, st: State) -> bool:
        return all(g.holds(st) for g in self.goals)

    # search -----------------------------------------------------------
    def solve(self, start: State | None = None) -> Plan | None:
        """The optimal plan from ``start`` (the initial state by default); None if no plan exists."""
        t0 = time.perf_counter()
        start = self._start = start or self.world.initial
        h = self.h or (lambda st: 0)
        if self.is_goal(start):
            return Plan([], [], 0, time.perf_counter() - t0)
        counter = itertools.count()
        best_g = {start.facts: 0}
        parent: dict = {start.facts: None}
        queue = [(h(start), 0, next(counter), start)]
        expanded = 0
        while queue:
            f, neg_g, _, st = heapq.heappop(queue)
            g = -neg_g
            if g > best_g.get(st.facts, 1 << 30):
                continue
            if self.is_goal(st):
                return self._plan(parent, st, expanded, time.perf_counter() - t0)
            expanded += 1
            if expanded > self.max_nodes or len(best_g) > self.max_states:
                raise PlannerLimit(f"no plan found within {expanded} expanded and {len(best_g)} seen states")
            if self.max_seconds is not None and not expanded & 255 and time.perf_counter() - t0 > self.max_seconds:
                raise PlannerLimit(f"no plan found within {self.max_seconds:g} s ({expanded} states expanded)")
            for action, env, new in self.successors(st):
                ng = g + 1
                key = new.facts
                if ng < best_g.get(key, 1 << 30):
                    best_g[key] = ng
                    parent[key] = (st.facts, action, env)  # keys only: expanded states can be freed
                    heapq.heappush(queue, (ng + h(new), -ng, next(counter), new))
        return None

    def bfs(self, start: State | None = None) -> Plan | None:
        """Brute-force breadth-first search: slow, obviously right; the tests compare against it."""
        t0 = time.perf_counter()
        start = self._start = start or self.world.initial
        parent: dict = {start.facts: None}
        frontier = [start]
        expanded = 0
        if self.is_goal(start):
            return Plan([], [], 0, 0.0)
        while frontier:
            nxt = []
            for st in frontier:
                expanded += 1
                if expanded > self.max_nodes or len(parent) > self.max_states:
                    raise PlannerLimit(f"no plan found within {expanded} expanded and {len(parent)} seen states")
                for action, env, new in self.successors(st):
                    if new.facts in parent:
                        continue
                    parent[new.facts] = (st.facts, action, env)
                    if self.is_goal(new):
                        return self._plan(parent, new, expanded, time.perf_counter() - t0)
                    nxt.append(new)
            frontier = nxt
        return None

    def _plan(self, parent: dict, st: State, expanded: int, seconds: float) -> Plan:
        chain = []
        key = st.facts
        while parent[key] is not None:
            prev, action, env = parent[key]
            chain.append((action, env))
            key = prev
        chain.reverse()
        # replay from the start to name each step in the state it is taken in
        state = self._start
        commands = []
        for action, env in chain:
            commands.append(self.command_text(action, env, state))
            state = action.successor(state, dict(env))
        return Plan(commands, [(a.id, dict(e)) for a, e in chain], expanded, seconds)

    # commands ---------------------------------------------------------
    def command_text(self, action, env: dict, st: State) -> str:
        return self.style.command_text(action, env, st)

    def admissible_commands(self, st: State) -> list[str]:
        """Commands that change the state or give information, from ``st``."""
        out = []
        domains = self.style.domains
        for action in self.world.actions:
            if action.ends:
                out.append(self.command_text(action, {}, st))
                continue
            if action.effect is None and not action.info:
                continue
            for env in action.ground(st, domains):
                if action.effect is not None and action.successor(st, env).facts == st.facts:
                    continue
                out.append(self.command_text(action, env, st))
        return sorted(set(out))


def solve_world(world: World, max_nodes: int = 3_000_000) -> Plan | None:
    return Planner(world, max_nodes).solve()
