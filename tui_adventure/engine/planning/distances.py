"""Exact distances to the goals, learned once per state and reused: par from every state of a walk.

A trainer reading progress after every step asks for the exact optimum from
each new state, and one A* search per state cost 10-60 times the step. Three
things make most answers cheap, all exact:

- every state on an optimal plan is solved by the same search (the i-th state
  of a plan of n moves is n - i from the goals), and each keeps the first move
  of its plan, so a solved state's whole plan can be followed again;
- a new state is usually one move from the last one asked about: that state's
  plan, replayed from the new one move by move (each checked as a move the
  planner's search would take, ``Planner.move``), is a plan from the new state;
  when its length equals the heuristic's lower bound (most states: the bound is
  tight on a random walk's states), it is optimal with no search at all;
- a walk's step off the plan (into a room the plan leaves behind) is one move
  from the state it came from, whose distance is known: the best move to a
  known state gives a plan too, optimal when as long as the lower bound;
- otherwise A* runs with every known distance as a perfect estimate (a known
  state ends the search as a goal does) and the shorter of those plans as a
  ceiling (nothing that long or longer is looked at).

Without a heuristic (worlds whose own actions void it), the replay still gives
the ceiling. A world with a scene (its turn follows every move, the clock
counts) is solved state by state as before. Memory is bounded: past
``max_entries`` states the least recently asked are forgotten, and a plan whose
next state was forgotten is simply not replayed.
"""

from __future__ import annotations

from collections import OrderedDict

from ..facts import State
from .planner import Planner

UNREACHABLE = -1


class Distances:
    """``par(st)``: the exact optimum from ``st`` (None: the goals are out of reach); raises the planner's
    ``PlannerLimit`` when its search gives up."""

    def __init__(self, planner: Planner, max_entries: int = 100_000) -> None:
        self.planner = planner
        self.max_entries = max(2, max_entries)
        self._d: OrderedDict[frozenset, int] = OrderedDict()   # facts -> distance, UNREACHABLE when none
        self._next: dict[frozenset, tuple] = {}   # facts -> (action, env, the next state's facts) of an optimal plan
        self._last: frozenset | None = None       # the last state asked about: its plan is the next one's guess
        self._incremental = planner.scene is None
        self.searches = 0   # A* searches run
        self.replays = 0    # states answered by a replayed plan, no search

    def __len__(self) -> int:
        return len(self._d)

    def known(self, st: State) -> int | None:
        """The distance when known (UNREACHABLE for out of reach), without searching."""
        return self._d.get(st.facts)

    def par(self, st: State) -> int | None:
        key = st.facts
        d = self._d.get(key)
        if d is not None:
            self._d.move_to_end(key)
            self._last = key
            return None if d == UNREACHABLE else d
        d = self._solve(st)
        self._last = key
        return None if d == UNREACHABLE else d

    # -- learning ---------------------------------------------------------------------------
    def _solve(self, st: State) -> int:
        planner = self.planner
        if not self._incremental:
            return self._search(st, None)
        floor = planner.h(st) if planner.h is not None else 0
        replay = self._replay(st)
        if replay is None or replay[0] > floor:   # a move to a known state may do better (a walk's step back)
            near = self._next_to_known(st)
            if near is not None and (replay is None or near[0] < replay[0]):
                replay = near
        if replay is not None and replay[0] == floor:   # as long as the lower bound: optimal
            self.replays += 1
            self._learn(st, replay[1], replay[0])
            return replay[0]
        return self._search(st, replay)

    def _next_to_known(self, st: State) -> tuple[int, list] | None:
        """(length, [move]) of the best plan through a move to a state whose distance is known: a random
        walk's new state is mostly one move from the state it came from."""
        d_of = self._d
        best = None
        for action, env, new in self.planner.successors(st):
            d = d_of.get(new.facts)
            if d is not None and d != UNREACHABLE and (best is None or d + 1 < best[0]):
                best = (d + 1, [(action, env)])
        return best

    def _search(self, st: State, replay) -> int:
        self.searches += 1
        planner = self.planner
        if self._incremental:
            plan = planner.solve(st, known=self.known, below=replay[0] if replay is not None else None)
        else:
            plan = planner.solve(st)
        if plan is None:
            if replay is None:
                self._store(st.facts, UNREACHABLE)
                return UNREACHABLE
            self._learn(st, replay[1], replay[0])   # nothing shorter than the replayed plan
            return replay[0]
        by_id = self.planner.world.action_by_id
        steps = [(by_id[a], env) for a, env in plan.steps]
        self._learn(st, steps, plan.par)
        return plan.par

    def _replay(self, st: State) -> tuple[int, list] | None:
        """(length, moves) of the last state's plan replayed from ``st``, or None when a move of it is not one
        the search could take from here. The replay stops early at a state whose distance is known."""
        key = self._last
        if key is None or key == st.facts:
            return None
        move, is_goal, d_of, nxt = self.planner.move, self.planner.is_goal, self._d, self._next
        steps: list = []
        here = st
        for _ in range(len(d_of) + 1):
            if is_goal(here):
                return len(steps), steps
            known = d_of.get(here.facts) if steps else None
            if known is not None:
                return (len(steps) + known, steps) if known != UNREACHABLE else None
            link = nxt.get(key)
            if link is None:
                return None
            action, env, key = link
            new = move(here, action, env)
            if new is None:
                return None
            steps.append((action, env))
            here = new
        return None

    def _learn(self, st: State, steps: list, par: int) -> None:
        """Distances along a plan of ``par`` moves whose ``steps`` go as far as a goal or a known state: the
        i-th state is ``par - i`` from the goals, and each keeps its move."""
        key = st.facts
        self._store(key, par)
        left = par
        scene = self.planner.scene
        for action, env in steps:
            before, st = st, action.successor(st, dict(env))
            if scene is not None:   # the scene's turn follows every move, as in the game
                st = scene.advance(before, st, action.id, dict(env)) or st
            left -= 1
            nxt = st.facts
            self._next[key] = (action, env, nxt)
            if nxt not in self._d:
                self._store(nxt, left)
            key = nxt

    def _store(self, key: frozenset, d: int) -> None:
        self._d[key] = d
        self._d.move_to_end(key)
        while len(self._d) > self.max_entries:
            old, _ = self._d.popitem(last=False)
            self._next.pop(old, None)
