"""The bindings of a goal-only move, read from its effects rather than found by grounding every binding.

The planner takes a "goal" move (drop, put, lock: ``plan: goal``) only where its
effect adds an unmet goal's fact (or deletes a negative goal's). Grounding every
binding of ``put X on Y`` in sight and running each effect to learn that only
``put red book on bookshelf`` does so was a third of a new state's moves. When
the effects are plain ``add``/``del`` of facts (no ``when``, no ``forall``),
the bindings that write a goal's fact are those that unify an effect's atom
with it, so only their values are grounded: the same bindings, in the same
order, with the same checks (``narrowed``), for a few lookups.
"""

from __future__ import annotations

from ..rules import Add, Delete, LogicError, parse_effects

WILD = "_"
MEMO = 4096   # (goals unmet, room) -> targets, per action


class GoalWrites:
    """The facts a move's effects add and delete, as (predicate, argument names); ``None`` from
    ``targets`` when the effects are not all plain (then every binding is grounded as before)."""

    def __init__(self, action, macros) -> None:
        self.params = frozenset(action.spec.params)
        self.adds: list = []
        self.dels: list = []
        self.plain = not action.spec.plan_if   # read from the text: no action compiled for it
        self._memo: dict = {}
        try:
            for text in action.spec.effects:
                for node in parse_effects(str(text)):
                    if isinstance(node, (Add, Delete)) and node.atom.pred not in macros:
                        (self.adds if isinstance(node, Add) else self.dels).append((node.atom.pred, node.atom.args))
                    else:
                        self.plain = False
        except LogicError:
            self.plain = False

    def targets(self, unmet, here, key=None) -> list[dict] | None:
        """Partial bindings (parameter -> value) under which the effect writes an unmet goal's fact;
        ``key``: what names ``unmet`` (the same goals unmet, the same answer: kept)."""
        if not self.plain:
            return None
        if key is not None:
            got = self._memo.get((key, here))
            if got is None:
                if len(self._memo) >= MEMO:
                    self._memo.clear()
                got = self._memo[(key, here)] = self.targets(unmet, here)
            return got
        out = []
        for g in unmet:
            fact = g.fact
            for pred, args in (self.adds if g.positive else self.dels):
                if pred != fact[0] or len(args) != len(fact) - 1:
                    continue
                env = self._unify(args, fact[1:], here)
                if env is not None and env not in out:
                    out.append(env)
        return out

    def _unify(self, args, values, here) -> dict | None:
        env: dict = {}
        for name, value in zip(args, values):
            if name == WILD:
                continue
            if name in self.params:
                if env.setdefault(name, value) != value:
                    return None
            elif (here if name == "here" else name) != value:
                return None
        return env


def narrowed(action, st, start: dict, pools: list, targets: list[dict]) -> list[dict]:
    """The bindings ``admissible._ground`` would make from ``pools`` (one per parameter, in ``action.order``)
    that agree with one of ``targets``, in its order: each pool cut to its targets' values first."""
    params = action.order
    slot_checks = action.slot_checks
    if all(len(t) == len(params) for t in targets):   # each target a whole binding: checked as grounding would
        ranked = []
        for t in targets:
            at = []
            for p, pool in zip(params, pools):
                if t[p] not in pool:
                    break
                at.append(pool.index(t[p]))
            else:
                ranked.append((at, t))
        ranked.sort(key=lambda r: r[0])   # grounding's order: by the first parameter's place, then the next's
        out: list[dict] = []
        for _, t in ranked:
            env = dict(start)
            for k, p in enumerate(params):
                env[p] = t[p]
                if not all(cond(st, env) for cond in slot_checks[k]):
                    break
            else:
                out.append(env)
        return out
    free = [any(p not in t for t in targets) for p in params]
    pools = [pool if free[i] else [v for v in pool if any(t[params[i]] == v for t in targets)]
             for i, pool in enumerate(pools)]
    out = []
    _matching(st, params, 0, dict(start), pools, slot_checks, targets, out)
    return out


def _matching(st, params, k: int, env: dict, pools: list, slot_checks: list, targets: list, out: list) -> None:
    """Append to ``out`` every binding of ``params[k:]`` from ``pools`` whose checks pass and that agrees
    with one of ``targets``."""
    if k == len(params):
        if any(all(env[p] == v for p, v in t.items()) for t in targets):
            out.append(dict(env))
        return
    p = params[k]
    for v in pools[k]:
        env[p] = v
        for cond in slot_checks[k]:
            if not cond(st, env):
                break
        else:
            _matching(st, params, k + 1, env, pools, slot_checks, targets, out)
    env.pop(p, None)
