"""Which search shortcuts stay exact beside a world's own actions.

The planner's heuristic and its pruning of irrelevant objects are written for
the ruleset's actions. A world action could make them wrong (a teleport makes
walking distances overestimate), so they used to be switched off whenever a
world had actions of its own, and one trivial ``knock on X`` action turned a
0.05 s search into a failed 30 s one. Most world actions are harmless, and
this module says precisely which:

- a world action none of whose effects can matter (it changes predicates no
  goal names and no condition of any action reads) is left out of the search:
  it can only waste moves;
- the heuristic stays when every world action left changes only predicates of
  its own (none the ruleset's actions change) and at most one goal fact per
  move, so it can neither shortcut a ruleset goal nor achieve two goals at once
  (each unmet goal then still costs at least one move, as the heuristic assumes);
- the pruning of objects stays only without such actions (their conditions may
  need any object: the matches that light the candle).
"""

from __future__ import annotations

from dataclasses import dataclass

from ..rules import Add, Delete, ForEach, LogicError, When, atoms_in, parse_condition, parse_effects, walk_all


@dataclass(frozen=True)
class PlanningView:
    skipped: frozenset[str]    # ids of world actions the search leaves out (they cannot help)
    heuristic: bool            # the ruleset's heuristic is still admissible
    prune: bool                # pruning objects by relevance is still exact


def planning_view(world) -> PlanningView:
    extra = world.extra_actions
    if not extra:
        return PlanningView(frozenset(), True, True)
    try:
        read = _read_predicates(world)
        ruleset_changes = _changed([e for spec in world.ruleset.actions for e in spec.effects])
        skipped, kept = set(), []
        for spec in extra:
            changes = _changed(spec.effects)
            if changes and not changes & read:
                skipped.add(spec.id)
            elif spec.plan:
                kept.append(spec)
        goal_preds = {g.fact[0] for g in world.goals}
        heuristic = all(not (_changed(s.effects) & ruleset_changes) and _goal_writes(s.effects, goal_preds) <= 1
                        for s in kept)
    except LogicError:   # a broken rule text is reported by check; plan without shortcuts meanwhile
        return PlanningView(frozenset(), False, False)
    return PlanningView(frozenset(skipped), heuristic, not kept)


def _effects(texts) -> list:
    return [e for text in texts for e in parse_effects(str(text))]


def _changed(texts) -> set[str]:
    return {n.atom.pred for n, _ in walk_all(_effects(texts)) if isinstance(n, (Add, Delete))}


def _goal_writes(texts, goal_preds: set[str]) -> int:
    """How many goal facts one move can change at most (a ``forall`` counts as many)."""
    count = 0
    for node, _ in walk_all(_effects(texts)):
        if isinstance(node, ForEach) and _changed_in(node) & goal_preds:
            return 2
        if isinstance(node, (Add, Delete)) and node.atom.pred in goal_preds:
            count += 1
    return count


def _changed_in(node) -> set[str]:
    return {n.atom.pred for n, _ in walk_all([node]) if isinstance(n, (Add, Delete))}


def _read_predicates(world) -> set[str]:
    """Predicates something reads: the goals, every action's checks, and the conditions inside effects."""
    read = {g.fact[0] for g in world.goals}
    macros = world.ruleset.macros
    for spec in world.ruleset.actions + world.extra_actions:
        conds = [parse_condition(str(c[0])) for c in spec.checks]
        for text in (spec.all_where, spec.plan_if):
            if text:
                conds.append(parse_condition(str(text)))
        for node, _ in walk_all(_effects(spec.effects)):
            if isinstance(node, When):
                conds.append(node.cond)
            elif isinstance(node, ForEach):
                conds.append(node.where)
        for cond in conds:
            for atom in atoms_in(cond):
                read.add(atom.pred)
                if atom.pred in macros:
                    read |= {a.pred for a in atoms_in(macros[atom.pred][1])}
    return read
