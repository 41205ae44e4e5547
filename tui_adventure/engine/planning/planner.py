"""The exact planner: the shortest command sequence that reaches every goal.

A* over engine states with an admissible heuristic (a lower bound on the turns
still needed), re-opening states when a shorter way to them turns up, so the
first goal state taken off the queue is optimal. The heuristic counts the
puts, takes and opens that the unmet goals still need, plus a lower bound on
walking: every room the player must still visit, joined by a minimum spanning
tree over shortest room distances (any walk through those rooms is at least
that long). Worlds with actions of their own fall back to h = 0 (plain
breadth-first), since their effects could break the bound. A goal naming a
thing gone for good (eaten) makes the bound ``DEAD``: no search walks every
state left to prove the goals out of reach. A child is estimated when it
comes off the queue, not when it goes on (the estimate is most of a search's
cost, and on a tight bound most children never come off).
"""

from __future__ import annotations

import heapq
import itertools
import time
from dataclasses import dataclass, field
from typing import Callable

from .admissible import Admissible
from .goal_moves import GoalWrites
from .moves import PlannerMoves
from .heuristic import DEAD
from .packing import Packing
from .planning_view import PlanningView, planning_view
from ..facts import State
from ..world import World
from ..text import plural


MEMORY_BUDGET = 2 * 1024 ** 3   # what one search may hold; the machines this runs on have a few GB
STORED_STATE_BYTES = 640          # a stored state: its packed facts, two dict entries, its parent link
KNOWN, EVALUATED, UNESTIMATED = 0, 1, 2   # a queue entry's f: a known distance, the estimate, the parent's
RECENT_STATES = 64                # whole states kept for the queue's next pops (the rest are rebuilt: cheap)


class PlannerLimit(RuntimeError):
    """The search grew past its budget (nodes, states, seconds) without an answer.

    ``lower_bound``: no plan is shorter (the least f = g + h still open, with
    an admissible h); ``expanded``: states expanded before giving up.
    """

    def __init__(self, message: str, lower_bound: int | None = None, expanded: int = 0) -> None:
        super().__init__(message)
        self.lower_bound = lower_bound
        self.expanded = expanded


@dataclass
class Plan:
    commands: list[str]
    steps: list[tuple[str, dict]] = field(default_factory=list)
    expanded: int = 0
    seconds: float = 0.0
    optimal: bool = True
    stored: int = 0          # states the search held (packed), for its memory figures
    tail: int = 0            # moves after ``commands`` from a state whose distance was known (``solve(known=)``)

    @property
    def par(self) -> int:
        return len(self.commands) + self.tail

    def as_json(self) -> dict:
        return {"par": self.par, "commands": self.commands, "optimal": self.optimal,
                "expanded": self.expanded, "seconds": round(self.seconds, 4)}


class Planner(PlannerMoves):
    def __init__(self, world: World, max_nodes: int = 3_000_000, prune: bool = True,
                 max_states: int = 2_000_000, shortcuts: bool = True, max_seconds: float | None = None) -> None:
        """``shortcuts=False`` plans with every action, no heuristic and no pruning: the reference
        the tests hold the shortcuts to."""
        self.world = world
        self.max_nodes = max_nodes
        self.max_seconds = max_seconds   # a search longer than this gives up (PlannerLimit): a budget in time
        # states held at once: a count, and a memory budget (a state costs roughly its facts), so a
        # world of thousands of rooms gives up with PlannerLimit long before it exhausts memory
        self.max_states = max(1_000, min(max_states, MEMORY_BUDGET // STORED_STATE_BYTES))
        self.style = world.style
        # which shortcuts stay exact beside the world's own actions
        # a scene acts between moves (events can reach goals, time matters): every move, no estimate
        self.scene = world.scene
        # draws and the clock make a scene's states endless; a plan longer than the turn limit is no plan
        self.depth = world.max_turns if self.scene is not None else None
        view = planning_view(world) if shortcuts and self.scene is None else PlanningView(frozenset(), False, False)
        self.moves = [a for a in world.actions if (a.effect is not None or self._passes_time(a)) and not a.ends
                      and a.spec.plan and a.id not in view.skipped]
        self.info = [a for a in world.actions if a.info]
        self.goals = list(world.goals)
        own_rules = view.prune
        self.h: Callable | None = self.style.heuristic(self.goals) if view.heuristic else None
        self.relevant = self.style.relevant_objects(self.goals) if own_rules and prune else None
        self._plans: list = []
        self._packing: Packing | None = None   # the same for every search of this world: made once
        self._admissible: Admissible | None = None
        self._last_successors: tuple | None = None
        for action in self.moves:
            things = [p for p in action.params if action.spec.params[p] == "thing"]
            mode = action.spec.plan if prune and own_rules and action.spec.plan in ("goal", "goal_object") else None
            self._plans.append((action, things, mode))
        self._plan_of = {entry[0].id: entry for entry in self._plans}
        # a goal move's bindings read from its effects (None: ground them all); every action's "here" is one
        macros = world.compiler.macros
        self._writes = {a.id: GoalWrites(a, macros) for a, _, mode in self._plans if mode == "goal"}
        self._where = self.moves[0].where if self.moves else None

    def _passes_time(self, action) -> bool:
        """In a scene, a move that changes nothing still lets the scene act (waiting, talking)."""
        return (self.scene is not None and not action.info
                and all(kind in ("thing", "dir", "room") for kind in action.spec.params.values()))

    def is_goal(self, st: State) -> bool:
        return all(g.holds(st) for g in self.goals)

    # search -----------------------------------------------------------
    def solve(self, start: State | None = None, weight: float = 1.0, known=None,
              below: int | None = None, estimate=None, known_after=None) -> Plan | None:
        """The optimal plan from ``start`` (the initial state by default); None if no plan exists.

        ``weight`` > 1 trades optimality for speed (weighted A*: a plan at most ``weight`` times
        longer than par, marked not optimal), for a bound when the exact search gives up.

        ``known(state)``: a state's exact distance to the goals when known (-1: out of reach), else
        None. A known distance is a perfect estimate, and a known state ends the search as a goal
        does once it comes off the queue (its f is then the optimum): the plan's ``commands`` stop
        there and ``tail`` counts the rest. ``below``: a plan that long is known to exist; longer
        ones are not looked for, and None then means none shorter. ``estimate``: a lower bound to
        read instead of the planner's own heuristic (``Distances`` hands in its memo of it).
        ``known_after(state, adds, deletes)``: ``known`` of the state a move makes, read from what the move
        changes (``changes``), so the children of a lazy search are made only when taken.

        States are stored packed: the facts no action changes are the same in
        every state and are left out, the others are bits of one integer, so a
        stored state costs a few hundred bytes instead of its whole fact set and
        indexes (tens of KB, which bounded the search by memory long before
        time). The few states about to be expanded are kept whole; others are
        rebuilt from their bits when they come off the queue.
        """
        t0 = time.perf_counter()
        deadline = t0 + self.max_seconds if self.max_seconds is not None else None
        start = self._start = start or self.world.initial
        if self.relevant is not None and start is not self.world.initial:
            # what matters from here: a goal thing put in a box since the start makes that box matter
            # (the set only grows, so every distance found before stays exact)
            need = self.style.relevant_objects(self.goals, start)
            if not need <= self.relevant:
                self.relevant = self.relevant | need
        h = estimate or self.h or (lambda st: 0)
        if self.is_goal(start):
            return Plan([], [], 0, time.perf_counter() - t0)
        first = h(start)
        if first >= DEAD:   # a goal names a thing gone for good: no plan, and no search to prove it
            return None
        if self._packing is None:   # the unchanging facts are every state's, so any start will do
            self._packing = Packing(self.world, start)
        pack = self._packing
        counter = itertools.count()
        root = pack.bits(start)
        best_g = {root: 0}
        parent: dict = {root: None}
        recent: dict = {root: start}
        queue = [(first * weight, 0, EVALUATED, next(counter), root)]
        # a child's estimate is read when it comes off the queue, not when it goes on: until then the
        # parent's f stands for it (exact distances drop by one a move at most, so f never falls),
        # and on a tight bound the search walks down one child while its siblings are never estimated
        lazy = weight == 1.0 and (estimate is not None or self.h is not None)
        by_change = lazy and known_after is not None and self.scene is None
        expanded = 0
        moves: dict = {}        # (action id, env items) -> (action, env), shared by every parent link
        exact: dict = {}        # known states met: their distances
        limit = (1 << 30) if below is None else below
        while queue:
            f, neg_g, kind, _, key = heapq.heappop(queue)
            g = -neg_g
            if g > best_g.get(key, 1 << 30):
                continue
            st = recent.pop(key, None)
            if st is None:
                st = pack.state(key)
            elif type(st) is tuple:   # (its parent, what the move adds, what it deletes)
                st = st[0].apply(st[1], st[2])
            if kind == UNESTIMATED:
                left = h(st)
                if deadline is not None and time.perf_counter() > deadline:   # one estimate can take 0.5 s
                    self._give_up(f, queue, weight, expanded, len(best_g), False)
                if left >= DEAD or g + left >= limit:
                    continue
                if g + left > f:   # back on the queue at its own f
                    heapq.heappush(queue, (g + left, neg_g, EVALUATED, next(counter), key))
                    if len(recent) >= RECENT_STATES:
                        del recent[next(iter(recent))]
                    recent[key] = st
                    continue
            tail = exact.get(key)
            if tail is not None or self.is_goal(st):
                plan = self._plan(parent, key, expanded, time.perf_counter() - t0, optimal=weight == 1.0)
                plan.stored = len(best_g)
                plan.tail = tail or 0
                return plan
            expanded += 1
            over = expanded > self.max_nodes or len(best_g) > self.max_states
            if over or deadline is not None and time.perf_counter() > deadline:
                self._give_up(f, queue, weight, expanded, len(best_g), over)
            if self.depth is not None and g >= self.depth:
                continue
            if by_change:   # the children's keys from what each move changes: a state made only when taken
                successors = self.changes(st)
                rests: list | None = [known_after(st, adds, dels) for _, _, adds, dels in successors]
                children = [pack.after(key, adds, dels) for _, _, adds, dels in successors]
            else:
                successors = self.successors(st)
                rests = [known(new) for _, _, new in successors] if known is not None else None
                children = [pack.child(key, st, new) for _, _, new in successors]
            if rests is not None and weight == 1.0:   # f is the least still open: a known child this good is optimal
                for i, rest in enumerate(rests):
                    if rest is not None and 0 <= rest <= f - g - 1:
                        child = children[i]
                        parent[child] = (key, successors[i][:2])
                        plan = self._plan(parent, child, expanded, time.perf_counter() - t0)
                        plan.stored, plan.tail = len(best_g), rest
                        return plan
            for i, item in enumerate(successors):
                ng = g + 1
                child = children[i]
                if ng < best_g.get(child, 1 << 30):
                    action, env = item[0], item[1]
                    rest = rests[i] if rests is not None else None
                    if rest is not None:
                        if rest < 0 or ng + rest >= limit:   # out of reach, or no shorter than the plan known
                            continue
                        exact[child] = rest
                        fc, kind = ng + rest, KNOWN
                    elif lazy:
                        fc, kind = f, UNESTIMATED
                    else:
                        left = h(item[2])
                        fc, kind = ng + left * weight, EVALUATED
                        if fc >= limit or left >= DEAD:
                            continue
                    best_g[child] = ng
                    step = (action.id, tuple(env.items()))
                    move = moves.get(step)
                    if move is None:
                        move = moves[step] = (action, env)
                    parent[child] = (key, move)
                    # at equal f and g a known state first: it ends the search
                    heapq.heappush(queue, (fc, -ng, kind, next(counter), child))
                    if deadline is not None and time.perf_counter() > deadline:   # one estimate can take 0.5 s
                        self._give_up(f, queue, weight, expanded, len(best_g), False)
                    if len(recent) >= RECENT_STATES:
                        del recent[next(iter(recent))]
                    recent[child] = (st, item[2], item[3]) if by_change else item[2]
        return None

    def _give_up(self, f, queue, weight: float, expanded: int, seen: int, over: bool):
        """PlannerLimit with the lower bound proven so far (the least f still open; exact search only)."""
        bound = min(f, queue[0][0]) if queue else f
        bound = -int(-bound // 1) if weight == 1.0 else None   # h is a whole number of moves
        why = (f"{expanded} expanded and {seen} seen states" if over
               else f"{self.max_seconds:g} s ({plural(expanded, 'state')} expanded)")
        raise PlannerLimit(f"no plan found within {why}", bound, expanded)

    def _plan(self, parent: dict, key, expanded: int, seconds: float, optimal: bool = True) -> Plan:
        chain = []
        while parent[key] is not None:
            key, (action, env) = parent[key]
            chain.append((action, env))
        chain.reverse()
        # replay from the start to name each step in the state it is taken in
        state = self._start
        commands = []
        for action, env in chain:
            commands.append(self.command_text(action, env, state))
            before = state
            state = action.successor(state, dict(env))
            if self.scene is not None:
                state = self.scene.advance(before, state, action.id, dict(env)) or state
        return Plan(commands, [(a.id, dict(e)) for a, e in chain], expanded, seconds, optimal)

    # commands ---------------------------------------------------------
    def command_text(self, action, env: dict, st: State) -> str:
        return self.style.command_text(action, env, st)

    def admissible_commands(self, st: State) -> list[str]:
        """Commands that change the state or give information, from ``st`` (memoised per state: see
        ``engine.admissible``; tests/engine/reference.py holds the plain definition it is tested against)."""
        return self.admissible.commands(st)

    @property
    def admissible(self) -> Admissible:
        """The memo behind ``admissible_commands`` (``lookup`` also hands back the canonical state)."""
        if self._admissible is None:
            self._admissible = Admissible(self.world)
        return self._admissible


def solve_world(world: World, max_nodes: int = 3_000_000) -> Plan | None:
    return Planner(world, max_nodes).solve()
