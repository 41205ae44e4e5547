"""The planner's moves from a state: every binding of its actions that the search must try, and what each
changes.

Grounding reads each kind's candidates once per state; with relevance (the
classic rules), a one-thing action binds only relevant things in sight, a
binding of several things keeps one of those that differ only in irrelevant
ones (``_symmetric``), and a goal-only move binds only what writes an unmet
goal (``goal_moves``). A move is returned with what it changes (the facts it
adds that the state lacks, those it deletes that it has), so ``Distances``
reads a new state's neighbours by their keys, and a search queues them, without
making a state for each: most are never taken.
"""

from __future__ import annotations

from typing import Any, Callable

from ..facts import State
from .admissible import _ground, pools, started
from .goal_moves import narrowed

_NONE: frozenset = frozenset()


class PlannerMoves:
    """Mixed into ``Planner``, whose ``_plans``, ``_writes``, ``_where``, ``relevant``, ``goals``, ``scene``,
    ``style`` and ``_last_successors`` it reads."""

    # what the class it is mixed into provides (declared for the type checker)
    _plans: list
    _plan_of: Any
    _writes: dict
    _where: Callable[..., Any] | None
    relevant: Any
    goals: list
    scene: Any
    style: Any
    _last_successors: Any

    def successors(self, st: State):
        """Every move from ``st`` to a state unlike it (the last state's answer is kept: a search from
        a state starts where ``Distances`` has just looked at its moves)."""
        last = self._last_successors
        if last is not None and last[0] is st and last[1] is self.relevant:
            if last[3] is None:
                last[3] = [(action, env, st.apply(adds, dels)) for action, env, adds, dels in last[2]]
            return last[3]
        out = self._successors(st)
        self._last_successors = [st, self.relevant, None, out]
        return out

    def changes(self, st: State) -> list:
        """(action, binding, facts it adds, facts it deletes) for every move ``successors`` makes, without
        making the states (a world without a scene): ``Distances`` reads most new states' neighbours by
        their keys alone, and a search from the state makes them from these."""
        last = self._last_successors
        if last is not None and last[0] is st and last[1] is self.relevant and last[2] is not None:
            return last[2]
        out = self._changes(st)
        self._last_successors = [st, self.relevant, out, None]
        return out

    def _successors(self, st: State):
        if self.scene is None:
            return [(action, env, st.apply(adds, dels)) for action, env, adds, dels in self._changes(st)]
        seen: set = set()
        out = []
        for action, env, adds, dels in self._changes(st, keep_all=True):
            new = self.scene.advance(st, st.apply(adds, dels), action.id, env)
            if new is None:   # this move loses the game
                continue
            if new is st or new.facts == st.facts or new.facts in seen:
                continue
            seen.add(new.facts)
            out.append((action, env, new))
        return out

    def _changes(self, st: State, keep_all: bool = False) -> list:
        """``changes``; with ``keep_all`` (a scene: its turn follows a move that changes nothing) every
        binding's, as they come."""
        domains = self.style.domains
        relevant = self.relevant
        if relevant is not None:   # the relevant things in sight, read once for every action grounded here
            narrow = dict(domains)
            in_sight = [x for x in domains["thing"](st) if x in relevant]
            narrow["thing"] = lambda _st: in_sight
        seen: set = set()
        out: list[tuple] = []
        plannable = self.style.plannable
        every: dict = {}   # kind -> its candidates here, read once for all the actions (admissible.ground)
        near: dict = {}
        here = self._where(st) if self._where is not None else None
        unmet = None
        for action, things, goal_only in self._plans:
            if goal_only and unmet is None:
                holds = [g.holds(st) for g in self.goals]
                unmet = [g for g, met in zip(self.goals, holds) if not met]
            targets = None
            if goal_only == "goal":   # only the bindings whose effect writes a goal's fact
                targets = self._writes[action.id].targets(unmet, here, tuple(holds))
                if targets is not None and not targets:
                    continue
            start = started(action, st, here)
            if start is not None:
                kinds, values = (narrow, near) if relevant is not None and len(things) == 1 else (domains, every)
                if targets is None:
                    envs = _ground(action, st, start, kinds, values)
                else:
                    envs = narrowed(action, st, start, pools(action, st, kinds, values), targets)
                if plannable is not None:  # before the symmetry cut: its representative must be typeable
                    envs = [e for e in envs if plannable(action, e, st)]
                if relevant is not None and len(things) > 1:
                    envs = self._symmetric(envs, things, relevant)
                self._changes_of(action, things, goal_only, st, envs, unmet, seen, out, keep_all)
        return out

    def _changes_of(self, action, things, goal_only, st: State, envs, unmet, seen: set, out: list,
                    keep_all: bool) -> None:
        """What each binding changes, as ``State.apply`` counts it: the facts added that ``st`` lacks, the
        facts deleted that it has (a fact both added and deleted stays). Two moves that change the same
        facts lead to one state: the first is kept."""
        facts = st.facts
        for env in envs:
            if goal_only == "goal_object" and not any(env[t] in g.fact[1:] for t in things for g in unmet):
                continue
            adds: set | frozenset = set()   # filled by the effect, then what it changes (_NONE: nothing)
            dels: set | frozenset = set()
            if action.effect is not None:
                action.effect(st, env, adds, dels)
            if goal_only == "goal" and not (action.plan_if is not None and action.plan_if(st, env)):
                if not any((g.fact in adds) if g.positive else (g.fact in dels) for g in unmet):
                    continue
            adds = adds - facts if adds else _NONE
            dels = dels & facts if dels else _NONE
            if adds and dels:
                dels = dels - adds
            if keep_all:
                out.append((action, env, adds, dels))
                continue
            if not adds and not dels:
                continue
            change = (frozenset(adds), frozenset(dels))
            if change in seen:
                continue
            seen.add(change)
            out.append((action, env, adds, dels))

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

    def where(self, st: State):
        """The room every move of ``st`` is taken in (its ``here``)."""
        return self._where(st) if self._where is not None else None

    def move(self, st: State, action, env: dict) -> State | None:
        """Where one binding leads, when ``successors(st)`` would take it; else None. The binding is checked
        alone, as grounding would (kinds' domains, checks, relevance, goal-only moves), so a plan
        replayed through it is a path of this planner's search; a binding with an irrelevant thing
        among several, which the symmetric cut may or may not keep, is refused, and so is every move
        in a scene (its turn is not replayed here)."""
        entry = self._plan_of.get(action.id)
        if entry is None or self.scene is not None:
            return None
        _, things, goal_only = entry
        relevant = self.relevant
        if relevant is not None and any(env[t] not in relevant for t in things):
            return None
        kinds = action.spec.params
        domains = self.style.domains
        for p in action.params:
            ok = action.allowed.get(p)
            if (ok is not None and env[p] not in ok) or env[p] not in domains[kinds[p]](st):
                return None
        env = dict(env)
        env["here"] = action.where(st)
        for check in action.checks:
            if not check[0](st, env):
                return None
        if self.style.plannable is not None and not self.style.plannable(action, env, st):
            return None
        adds: set = set()
        dels: set = set()
        if action.effect is not None:
            action.effect(st, env, adds, dels)
        if goal_only:
            unmet = [g for g in self.goals if not g.holds(st)]
            if goal_only == "goal_object" and not any(env[t] in g.fact[1:] for t in things for g in unmet):
                return None
            if goal_only == "goal" and not (action.plan_if is not None and action.plan_if(st, env)):
                if not any((g.fact in adds) if g.positive else (g.fact in dels) for g in unmet):
                    return None
        # as a game's step makes it (a replay's states are looked at once or twice, not kept by a search):
        # the few facts it changes over the state it reads through, its facts and indexes not copied
        new = st.advance(adds, dels)
        return None if new is st else new

