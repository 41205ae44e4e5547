"""What a state's admissible commands can read: a key smaller than the state, proved from the rules.

A random walk meets thousands of states that differ only far from the player
(a thing dropped in another room, a door opened two rooms back): their
commands are the same. ``LocalView.key(st)`` is the part of ``st`` the
commands can depend on, so states with equal keys share one answer
(``Admissible``) and a state never met costs a key, not a grounding.

The key: the player's room, the ids in sight (``Style.sight``), and every
fact of a changeable predicate (one some action's effect names) that names
an id in sight or an id a fixed fact ties to one (the door on an exit of the
room, the room it leads to). Facts of the other predicates are the same in
every state. Why it is enough: the style promises that its domains, command
texts and builtins read nothing else, and ``local_view`` checks every
action's checks and effects (macros expanded): each changeable fact they
read must name an id in sight (a ``thing`` parameter, ``here``, a constant
always in sight) or a variable that a fixed fact in the same conjunction
ties to one (``exists d: via(here, dir, d) and locked(d)``); a builtin must
be given ids in sight. Any other read (``held(matches)``, ``count(held(_))``,
``forall``, a world with a scene, whose turn changes facts no action names)
gives no view: the commands are then keyed on the whole state.
"""

from __future__ import annotations

from ..facts import State
from ..rules.logic import LogicError
from ..rules.logic_ast import Add, And, Atom, Compare, Const, Count, Delete, Exists, ForEach, Forall, Not, Or, When, conjuncts, parse_condition, parse_effects
from ..world import World

NEAR, TIED = 0, 1   # an id in sight; an id a fixed fact ties to one in sight


class LocalView:
    """``key(st)``: what the commands of ``st`` can depend on (see the module's docstring)."""

    def __init__(self, world: World, changing: frozenset) -> None:
        self.ids = world.style.sight.ids
        self.changing = changing
        ties: dict = {}   # id -> the ids a fixed fact names with it
        for f in world.initial_facts:
            if f[0] not in changing and len(f) > 2:
                for x in f[1:]:
                    ties.setdefault(x, set()).update(f[1:])
        self.ties = {x: frozenset(v) for x, v in ties.items()}

    def key(self, st: State) -> tuple:
        ids = self.ids(st)
        near = set(ids)
        ties = self.ties
        for x in ids:
            t = ties.get(x)
            if t is not None:
                near |= t
        changing = self.changing
        return ids[0], frozenset(ids), frozenset(
            [f for f in st.facts if f[0] in changing and not near.isdisjoint(f[1:])])


def local_view(world: World) -> LocalView | None:
    """A view when every action's reads are proved local, else None."""
    sight = world.style.sight
    changing = world.compiler.changing
    if sight is None or changing is None or world.scene is not None:
        return None
    check = _Reads(world, changing, sight.constants)
    try:
        for action in world.actions:
            spec = action.spec
            near = {p: NEAR for p, kind in spec.params.items() if kind in sight.kinds}
            near["here"] = NEAR
            bound = frozenset(spec.params) | {"here"}
            for cond_text, _message, _kind in spec.checks:
                if not check.cond(parse_condition(cond_text), near, bound):
                    return None
            for text in spec.effects:
                for eff in parse_effects(text):
                    if not check.effect(eff, near, bound):
                        return None
    except (LogicError, KeyError, RecursionError):
        return None
    return LocalView(world, changing)


class _Reads:
    """Whether a condition or effect reads only facts the key holds; ``near``: name -> NEAR or TIED for
    the bound names known to be ids in the key's reach; ``bound``: every bound name (others are ids)."""

    def __init__(self, world: World, changing: frozenset, constants: frozenset) -> None:
        self.compiler = world.compiler
        self.changing = changing
        self.constants = constants

    def _level(self, name: str, near: dict, bound: frozenset):
        if name in bound:
            return near.get(name)
        return NEAR if name in self.constants else None

    def atom(self, a: Atom, near: dict, bound: frozenset) -> bool:
        compiler = self.compiler
        if a.pred in compiler.macros:
            return self.cond(compiler.expand(a), near, bound)
        levels = [self._level(x, near, bound) for x in a.args]
        if a.pred in compiler.builtins:   # the style's promise holds for ids in sight only
            return all(lv == NEAR for lv in levels)
        if a.pred not in self.changing:   # the same in every state
            return True
        return any(lv is not None for lv in levels)

    def _tied(self, var: str, body, near: dict, bound: frozenset) -> tuple[dict, frozenset]:
        """``near`` and ``bound`` inside a quantifier over ``var`` whose body (a condition that must hold for
        the variable to matter) is ``body``: TIED when a fixed fact of its conjunction names it and an id
        in sight."""
        inner = {k: v for k, v in near.items() if k != var}
        bound = bound | {var}
        if body is not None:
            for part in conjuncts(body):
                if (isinstance(part, Atom) and part.pred not in self.changing and var in part.args
                        and part.pred not in self.compiler.macros and part.pred not in self.compiler.builtins
                        and any(self._level(x, inner, bound) == NEAR for x in part.args if x != var)):
                    inner[var] = TIED
                    break
        return inner, bound

    def cond(self, node, near: dict, bound: frozenset) -> bool:
        if isinstance(node, Atom):
            return self.atom(node, near, bound)
        if isinstance(node, (Const, Compare)):
            return True
        if isinstance(node, Not):
            return self.cond(node.body, near, bound)
        if isinstance(node, (And, Or)):
            return self.cond(node.left, near, bound) and self.cond(node.right, near, bound)
        if isinstance(node, Count):
            return self.atom(node.atom, near, bound)
        if isinstance(node, Exists):
            inner, b = self._tied(node.var, node.body, near, bound)
            return self.cond(node.body, inner, b)
        if isinstance(node, Forall):   # over every id: nothing ties its variable
            inner, b = self._tied(node.var, None, near, bound)
            return self.cond(node.body, inner, b)
        return False

    def effect(self, node, near: dict, bound: frozenset) -> bool:
        """An effect's reads: its conditions, the facts a ``del`` with ``_`` matches, and whether each fact it
        adds or deletes is already so (the commands keep only actions that change something)."""
        if isinstance(node, (Add, Delete)):
            return self.atom(node.atom, near, bound)
        if isinstance(node, When):
            return self.cond(node.cond, near, bound) and self.effect(node.effect, near, bound)
        if isinstance(node, ForEach):
            inner, b = self._tied(node.var, node.where, near, bound)
            return self.cond(node.where, inner, b) and self.effect(node.effect, inner, b)
        return False
