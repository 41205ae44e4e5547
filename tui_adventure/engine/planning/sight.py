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
from ..rules.logic_ast import (Add, And, Atom, Compare, Const, Count, Delete, Exists, ForEach, Forall, Not, Or, When, conjuncts,
                               parse_condition, parse_effects)
from ..styles.base import Sight
from ..world import World

_CHANGING = ("sight changing",)   # a base state's cache: its facts of changeable predicates, by each id they name
NEAR = 0   # a name whose value is an id in sight; a variable tied to one holds its ties (see _Reads._tied)


class LocalView:
    """``key(st)``: what the commands of ``st`` can depend on (see the module's docstring)."""

    def __init__(self, world: World, sight: Sight, changing: frozenset, tying: frozenset) -> None:
        """``sight``: the style's (``world.style.sight``). ``tying``: (predicate, i, j) for each fixed
        fact a rule ties a variable by: its j-th argument to an id in sight as its i-th."""
        self.ids = sight.ids
        self.changing = changing
        ties: dict = {}   # id in sight -> the ids the rules' fixed facts tie to it
        for f in world.initial_facts:
            for pred, i, j in tying:
                if f[0] == pred and len(f) > max(i, j):
                    ties.setdefault(f[i], set()).add(f[j])
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
        base = st._base
        if base is None:
            return ids[0], frozenset(ids), frozenset(
                [f for f in st.facts if f[0] in changing and not near.isdisjoint(f[1:])])
        # a state made by a game's step reads through its base: the base's changeable facts naming an id
        # near (indexed by the ids they name once per base) less those its overlay deletes, and the
        # overlay's own additions, without its facts made
        naming = base.cache.get(_CHANGING)
        if naming is None:
            naming = {}
            for f in base.facts:
                if f[0] in changing:
                    for x in set(f[1:]):
                        naming.setdefault(x, []).append(f)
            base.cache[_CHANGING] = naming
        over = st.over
        found = [f for f, now in over.items() if now and f[0] in changing and not near.isdisjoint(f[1:])]
        get = over.get
        for x in near:
            listed = naming.get(x)
            if listed is not None:
                found += [f for f in listed if get(f, True)]
        return ids[0], frozenset(ids), frozenset(found)


def local_view(world: World) -> LocalView | None:
    """A view when every action's reads are proved local, else None. The proof reads the rules, the
    compiler's macros and builtins and the style's sight only, so worlds of one ruleset and shape (a
    world drawn each episode) share it (``RuleTables.proofs``); each world only finds its own ties."""
    sight = world.style.sight
    changing = world.compiler.changing
    if sight is None or changing is None or world.scene is not None:
        return None
    specs = tuple(a.spec for a in world.actions)
    key = (specs, world.compiler.shape(), sight.kinds, sight.constants)
    proofs = world.compiler.tables.proofs
    tying = proofs.get(key)
    if tying is None:
        proved = _proved(world, changing, sight)
        tying = proofs.setdefault(key, _UNPROVED if proved is None else proved)
    if tying is _UNPROVED:
        return None
    return LocalView(world, sight, changing, tying)


_UNPROVED = "unproved"   # a proof's entry when some action's reads are not local


def _proved(world: World, changing: frozenset, sight) -> frozenset | None:
    """The ties (see ``LocalView``) when every action's reads are proved local, else None."""
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
    return frozenset(check.tying)


class _Reads:
    """Whether a condition or effect reads only facts the key holds; ``near``: name -> NEAR for the bound
    names whose values are ids in sight, or for a variable tied to one the ties ((predicate, i, j): see
    LocalView), which the key then follows when a changeable fact is read by that variable alone;
    ``bound``: every bound name (others are ids)."""

    def __init__(self, world: World, changing: frozenset, constants: frozenset) -> None:
        self.compiler = world.compiler
        self.changing = changing
        self.constants = constants
        self.tying: set = set()   # (predicate, i, j): see LocalView

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
        if a.pred not in self.changing or NEAR in levels:   # the same in every state; or in the key
            return True
        for lv in levels:
            if lv is not None:   # a variable's ties: the key must reach what they tie
                self.tying.update(lv)
                return True
        return False

    def _tied(self, var: str, body, near: dict, bound: frozenset) -> tuple[dict, frozenset]:
        """``near`` and ``bound`` inside a quantifier over ``var`` whose body (a condition that must hold for
        the variable to matter) is ``body``: tied when a fixed fact of its conjunction names it and an id
        in sight (so its values are among the ids that fact ties to one in sight)."""
        inner = {k: v for k, v in near.items() if k != var}
        bound = bound | {var}
        if body is not None:
            for part in conjuncts(body):
                if (isinstance(part, Atom) and part.pred not in self.changing and var in part.args
                        and part.pred not in self.compiler.macros and part.pred not in self.compiler.builtins):
                    args = part.args
                    near_at = [i for i, x in enumerate(args) if x != var and self._level(x, inner, bound) == NEAR]
                    if near_at:   # + 1: a fact's predicate comes first
                        j = args.index(var) + 1
                        inner[var] = frozenset((part.pred, i + 1, j) for i in near_at)
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
