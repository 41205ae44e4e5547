"""Which changed facts can change an action's admissible commands: the facts its rules read, by pattern.

``Admissible`` works out a new state's commands from the state looked up
before it (a random walk's next state is one step away): an action whose
rules read no fact that differs between the two, grounded over the same
candidates in the same room with the same things in sight, has the same
commands in both (``Admissible._step_from``). This module proves, from the
rules' text, what each action's checks and effects read: a pattern per fact
read (its predicate and the ids it names where the rule names an id rather
than a variable), so taking a coin (``at(coin, kitchen)`` out,
``held(coin)`` in) leaves ``go``, which reads ``at(player, _)``, alone.
"""

from __future__ import annotations

from ..rules.logic import LogicError
from ..rules.logic_ast import (Add, And, Atom, Compare, Const, Count, Delete, Exists, ForEach, Forall, Not, Or, When,
                               parse_condition, parse_effects)

ANY = ()   # a pattern's constraints when every fact of the predicate can matter
ANSWERS = 64   # answers kept per action and shape: worlds whose rules name ids of their own


def read_patterns(world, action, builtin_reads: frozenset) -> dict | None:
    """predicate -> the patterns ((position, id), ...) of the changeable facts the action's checks and
    effects read (``ANY`` for the whole predicate), or None when something read cannot be told. A builtin
    reads the predicates ``builtin_reads`` names (the style's promise) besides what is in sight.

    The answer reads the rules, the compiler and, of the world, only which of the names the rules use
    are ids: worlds of one ruleset (a world drawn each episode) share it by those ids, in the ruleset's
    ``RuleTables.reads`` (the names asked, and the answer for each set of them that are ids, at most
    ``ANSWERS``)."""
    compiler, entities = world.compiler, world.entities
    key = (action.spec, compiler.shape(), builtin_reads)
    hit = compiler.tables.reads.get(key)
    if hit is None:
        asked = _Asked(entities)
        got = _read_patterns(compiler, action, builtin_reads, asked)
        hit = compiler.tables.reads.setdefault(key, (frozenset(asked.names), {}))
        ids = frozenset(x for x in hit[0] if x in entities)
    else:
        ids = frozenset(x for x in hit[0] if x in entities)
        got = hit[1].get(ids, _UNKNOWN)
        if got is not _UNKNOWN:
            return got
        got = _read_patterns(compiler, action, builtin_reads, entities)
    if len(hit[1]) < ANSWERS:
        hit[1][ids] = got
    return got


_UNKNOWN = object()


class _Asked:
    """The world's ids, noting each name asked about (the same names for every world: the rules decide)."""

    __slots__ = ("ids", "names")

    def __init__(self, ids) -> None:
        self.ids = ids
        self.names: set = set()

    def __contains__(self, name: str) -> bool:
        self.names.add(name)
        return name in self.ids


def _read_patterns(compiler, action, builtin_reads: frozenset, ids) -> dict | None:
    """``read_patterns`` worked out; ``ids``: what answers whether a name is an id of the world."""
    out: dict = {}
    reads = _Patterns(compiler, compiler.changing, ids, builtin_reads, out)
    bound = frozenset(action.spec.params) | {"here"}
    try:
        for cond_text, _message, _kind in action.spec.checks:
            if not reads.cond(parse_condition(cond_text), bound):
                return None
        for text in action.spec.effects:
            for eff in parse_effects(text):
                if not reads.effect(eff, bound):
                    return None
    except (LogicError, KeyError, RecursionError):
        return None
    return {pred: tuple(got) for pred, got in out.items()}


def matches(fact: tuple, pattern: tuple) -> bool:
    """Whether ``fact`` (of the pattern's predicate) names each id the pattern fixes, at its place."""
    for i, x in pattern:
        if len(fact) <= i or fact[i] != x:
            return False
    return True


class _Patterns:
    def __init__(self, compiler, changing: frozenset, ids: frozenset, builtin_reads: frozenset, out: dict) -> None:
        self.compiler = compiler
        self.changing = changing
        self.ids = ids
        self.builtin_reads = builtin_reads
        self.out = out

    def _read(self, pred: str, pattern: tuple) -> None:
        if pred not in self.changing:   # the same in every state
            return
        got = self.out.setdefault(pred, set())
        got.add(pattern)

    def atom(self, a: Atom, bound: frozenset) -> bool:
        compiler = self.compiler
        if a.pred in compiler.macros:
            return self.cond(compiler.expand(a), bound)
        if a.pred in compiler.builtins:
            for pred in self.builtin_reads:
                self._read(pred, ANY)
            return True
        # + 1: a fact's predicate comes first; a name the rule binds, or no id of the world, matches any
        self._read(a.pred, tuple((i + 1, x) for i, x in enumerate(a.args) if x not in bound and x in self.ids))
        return True

    def cond(self, node, bound: frozenset) -> bool:
        if isinstance(node, Atom):
            return self.atom(node, bound)
        if isinstance(node, (Const, Compare)):
            return True
        if isinstance(node, Not):
            return self.cond(node.body, bound)
        if isinstance(node, (And, Or)):
            return self.cond(node.left, bound) and self.cond(node.right, bound)
        if isinstance(node, Count):
            return self.atom(node.atom, bound)
        if isinstance(node, (Exists, Forall)):
            return self.cond(node.body, bound | {node.var})
        return False

    def effect(self, node, bound: frozenset) -> bool:
        """An effect's reads: its conditions, and the facts it adds or deletes (whether each is already so
        tells whether the action changes anything)."""
        if isinstance(node, (Add, Delete)):
            return self.atom(node.atom, bound)
        if isinstance(node, When):
            return self.cond(node.cond, bound) and self.effect(node.effect, bound)
        if isinstance(node, ForEach):
            inner = bound | {node.var}
            return self.cond(node.where, inner) and self.effect(node.effect, inner)
        return False
