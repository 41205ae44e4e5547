"""The condition and effect language that rulesets are written in, compiled to closures.

Conditions: ``on(obj, s)``, ``not open(c)``, ``a and b``, ``a or b``,
``exists r: at(x, r) and at(player, r)``, ``count(held(_)) < 2``, ``x == y``.
Effects: ``add held(obj)``, ``del on(obj, _)`` (``_`` deletes every match),
``when C: EFFECT``, ``forall v where C: EFFECT``; several joined with ``;``.

Names that are bound (action parameters, quantified variables) are variables;
every other name is a constant (a world id). Texts are parsed once, at load,
into the typed nodes of ``logic_ast`` and compiled here into functions
``f(state, env)``. Atoms, ``and``/``or``/``not``, comparisons, macros and plain
effects become one generated Python function per rule (a fresh game's first
steps are dominated by how little a check costs, not by memos); quantifiers,
counts and ``_`` patterns stay closures that the generated code calls.
"""

from __future__ import annotations

from typing import Callable, Protocol

from ..facts import OVERLAY_LIMIT, State, empty_older
from .plain import PLAIN_RULES, plain_attempt
from .generated import generated
from .recent import RuleTables
from .rule_source import _MISSING, _restore, fact_shapes, twice
from .logic_ast import (COMPARISONS, Add, And, Atom, Compare, Const, Count, Delete, Exists, ForEach, Forall, LogicError,
                        Not, Or, When, conjuncts, fresh, parse_condition, parse_effects, substitute)


Cond = Callable[[State, dict], bool]
Effect = Callable[[State, dict, set, set], None]
MEMO_STATES = 1024  # transitions remembered per world (each may hold a state): see Compiler.attempt


class Steps(Protocol):
    """What an action's step (``Compiler.attempt``) reads from the action it is bound to: the world's
    own parts, so the function is the ruleset's, one for every world of its shape."""

    key_head: int        # its memo keys' head: an int, so the cyclic collector untracks a key
    memo: list           # the state caches its steps wrote to, one list per world (see ``forget``)
    success: Callable    # the success message's ``render(state, env)``
    where: Callable      # the player's room, read when the style gives no index key for it

    def _failed(self, st: State, env: dict, key: tuple, cache: dict, i: int) -> tuple:
        """The step's end when check ``i`` failed."""

    def _slow(self, st: State, env: dict, key: tuple, cache: dict) -> tuple:
        """The step's end for effects the source does not write itself."""


class Memo(list):
    """The state caches an action's step wrote to, one list per world. ``limit``: how many are kept
    before ``forget`` empties them; ``MEMO_STATES`` unless a caller that keeps its states (a trainer's
    environment, see ``World.keep_memos``) raised it: the steps only call ``forget`` past
    ``MEMO_STATES``, so the cold path pays nothing for it."""

    __slots__ = ("limit",)

    def __init__(self) -> None:
        super().__init__()
        self.limit = MEMO_STATES


def forget(memo: list) -> None:
    """Empty the state caches an action's step wrote to: a chain of remembered successors cannot
    keep every state a long session saw alive. A ``Memo`` below its raised limit is kept; past it, the
    caches written to in its older half and not since are emptied (``facts.empty_older``)."""
    if type(memo) is Memo:
        if len(memo) >= memo.limit:
            empty_older(memo)
        return
    for cache in memo:
        cache.clear()
    memo.clear()


_OPS = {
    "==": lambda a, b: a == b,
    "!=": lambda a, b: a != b,
    "<": lambda a, b: a < b,
    "<=": lambda a, b: a <= b,
    ">": lambda a, b: a > b,
    ">=": lambda a, b: a >= b,
}
assert set(_OPS) == set(COMPARISONS)


class Compiler:
    """Turns ASTs into closures for one world.

    ``builtins`` maps a predicate name to ``f(state, *args) -> bool`` (Python
    helpers such as visibility that a ruleset style provides); ``macros`` maps
    a name to ``(params, ast)`` and is expanded inline; ``domain`` is every id
    a quantifier may range over when no index narrows it; ``tables``: what the
    worlds of its ruleset share of their compiled rules (the ruleset's, whose
    macros these are; a compiler of no ruleset has its own).
    """

    def __init__(self, builtins: dict | None = None, macros: dict | None = None,
                 domain: tuple = (), tables: RuleTables | None = None) -> None:
        self.builtins = builtins or {}
        self.macros = macros or {}
        self.tables = tables if tables is not None else RuleTables()
        self.domain = tuple(domain)
        self.builtin_names = frozenset(self.builtins)   # what shapes the rules' source (generated.generated)
        # The predicates actions' effects name (set by compile_actions; None: not known). State.advance,
        # the only maker of overlays, is given those effects, so rule code reads any other from the base.
        self.changing: frozenset | None = None
        self._shape: tuple = (None, None)   # (changing when worked out, its number): see shape

    def shape(self) -> int:
        """What besides a rule decides the source it compiles to (``generated``'s key): one number per
        ruleset, changing predicates and builtin names (``RuleTables.shape``), kept while ``changing``
        stays the same."""
        changing, number = self._shape
        if number is None or changing is not self.changing:
            number = self.tables.shape(self.changing, self.builtin_names)
            self._shape = (self.changing, number)
        return number

    # ---- conditions -------------------------------------------------
    def condition(self, text_or_ast, bound: frozenset | set = frozenset(), origin: str = "") -> Cond:
        """``origin``: the rule it is, as a traceback through it names it (``generated.generated``)."""
        ast = parse_condition(text_or_ast) if isinstance(text_or_ast, str) else text_or_ast
        return self._cond(ast, frozenset(bound), origin, text_or_ast)

    def _cond(self, ast, bound: frozenset, origin: str = "", rule=None) -> Cond:
        """``rule``: what keys its source among the ruleset's (``generated``): its text when given one
        (a text's hash is kept, a tree's is worked out again), else the tree."""
        if PLAIN_RULES:
            return self._closure(ast, bound)

        def write(gen):
            return f"def cond(st, env):\n    F, O = st.known, st.over\n    return {gen.expr(ast, bound)}\n", "cond"
        return generated(self, "cond", ast if rule is None else rule, bound, write, origin=origin)

    def attempt(self, asts: list, effect_texts: tuple, bound: frozenset | set, params: tuple,
                where_key: tuple | None, origin: str = "") -> Callable:
        """An action's ``attempt_later`` as one function of (the action, state, arguments): its memo, the
        player's room, its checks, then its effects written straight into the next state (as
        ``State.advance`` makes it, specialised to each fact's shape), and the message. What is the
        world's own it reads from the action it is called with (``Steps``), so one function serves
        every world of a ruleset (``Action.stepper``)."""
        bound = frozenset(bound)
        if PLAIN_RULES:
            return plain_attempt(tuple(params))

        def write(gen):
            # the arguments, read once for the key, are locals for the rule's code (``_Gen.term``)
            args = {p: f"_p{i}" for i, p in enumerate(params)}
            lines = ["def attempt_later(_self, st, env):"] + [f"    {v} = env.get({p!r})" for p, v in args.items()]
            lines += [f"    _key = ({', '.join(['_self.key_head', *args.values(), 'env.get(' + repr('prep') + ')'])})",
                      "    _cache = st.cache", "    _hit = _cache.get(_key)", "    if _hit is not None:",
                      "        return (st if (_n := _hit.next) is None else _n), _hit, _hit.fail"]
            if where_key is None:
                lines.append("    env['here'] = _here = _self.where(st)")
            else:   # the by-first entry whose first item is the player's room
                lines += [f"    for _r in (_o if (_o := st.o1.get({where_key!r})) is not None else st.b1.get({where_key!r}, _EMPTY)):",
                          "        _here = _r[0]", "        break", "    else:", "        _here = None", "    env['here'] = _here"]
            lines.append("    F, O = st.known, st.over")
            gen.local.update(args)
            gen.local["here"] = "_here"
            gen.pairs = True
            head = len(lines)

            def paired(lines: list) -> list:   # a step that reads facts by their first two makes sure it can
                return lines[:head] + ["    if st.b12 is None:", "        _pairs(st)"] + lines[head:] if gen.paired else lines
            for i, ast in enumerate(asts):
                lines += gen.check(ast, bound, i, "return _self._failed(st, env, _key, _cache, {i})")
            effects = [a for t in effect_texts for a in parse_effects(t)]
            shapes = fact_shapes(effects)
            body: list = []
            if effects and not all(gen.applied(a, bound, body, "    ", twice(shapes)) for a in effects):
                lines.append("    return _self._slow(st, env, _key, _cache)")
                return "\n".join(paired(lines)) + "\n", "attempt_later"
            if effects:
                room = OVERLAY_LIMIT - sum(4 if loop else 1 for *_s, loop in shapes)   # a loop is allowed 4 facts
                lines += [f"    if len(O) > {room}:", "        return _self._slow(st, env, _key, _cache)",
                          "    _wo = O.copy()", "    _w1 = st.o1.copy()", "    _w2 = st.o2.copy()",
                          "    _B1, _B2 = st.b1, st.b2", "    _wA = []", "    _wD = []"]
                lines += body
                lines += ["    if not _wA and not _wD:", "        new = st", "    else:",   # as State.advance makes it
                          "        new = _State(F, _B1, _B2, (tuple(_wA), tuple(_wD)), st, _wo, _w1, _w2)"]
            else:
                lines.append("    new = st")
            # the message, rendered when read (Later's fields as its __init__ sets them), and the memo
            forgets = gen.name(forget)
            lines += ["    _t = _Later(_self.success, new, env, new if new is not st else None)",
                      "    _memo = _self.memo", f"    if len(_memo) >= {MEMO_STATES}:", f"        {forgets}(_memo)",
                      "    _cache[_key] = _t", "    _memo.append(_cache)", "    return new, _t, None"]
            return "\n".join(paired(lines)) + "\n", "attempt_later"

        rule = (tuple(asts), tuple(effect_texts), tuple(params), where_key)
        return generated(self, "attempt", rule, bound, write, origin=origin)

    def _closure(self, ast, bound: frozenset) -> Cond:
        """The closure for a node the generator leaves to Python closures (quantifiers, counts, patterns)."""
        if isinstance(ast, Const):
            value = ast.value
            return lambda st, env: value
        if isinstance(ast, Not):
            inner = self._cond(ast.body, bound)
            return lambda st, env: not inner(st, env)
        if isinstance(ast, And):
            a, b = self._cond(ast.left, bound), self._cond(ast.right, bound)
            return lambda st, env: a(st, env) and b(st, env)
        if isinstance(ast, Or):
            a, b = self._cond(ast.left, bound), self._cond(ast.right, bound)
            return lambda st, env: a(st, env) or b(st, env)
        if isinstance(ast, Compare):
            op = _OPS[ast.op]
            ga, gb = _getter(ast.left, bound), _getter(ast.right, bound)
            return lambda st, env: op(ga(env), gb(env))
        if isinstance(ast, Count):
            return self._count(ast.atom, _OPS[ast.op], ast.number, bound)
        if isinstance(ast, (Exists, Forall)):
            var = ast.var
            body = self._cond(ast.body, bound | {var})
            cands = self._candidates(var, ast.body, bound)
            if isinstance(ast, Exists):
                def exists(st, env):
                    values = cands(st, env)
                    if not values:   # usually so (no door on this exit): env need not be touched
                        return False
                    saved = env.get(var, _MISSING)
                    try:
                        for v in values:
                            env[var] = v
                            if body(st, env):
                                return True
                        return False
                    finally:
                        _restore(env, var, saved)
                return exists
            domain = self.domain

            def forall(st, env):
                saved = env.get(var, _MISSING)
                try:
                    for v in domain:
                        env[var] = v
                        if not body(st, env):
                            return False
                    return True
                finally:
                    _restore(env, var, saved)
            return forall
        if isinstance(ast, Atom):
            return self._atom(ast, bound)
        raise LogicError(f"cannot compile {ast!r}")

    def expand(self, ast: Atom):
        """A macro call's body with the call's arguments put in. Shared by every world: the same
        call expands to the same tree with the same fresh names, so its rule code compiles once."""
        params, body = self.macros[ast.pred]
        key = (ast.args, params, body)
        if key not in _EXPANDED:
            if len(params) != len(ast.args):
                raise LogicError(f"{ast.pred} takes {len(params)} arguments, got {len(ast.args)}")
            if len(_EXPANDED) > 10_000:
                _EXPANDED.clear()
            _EXPANDED[key] = substitute(fresh(body), dict(zip(params, ast.args)))
        return _EXPANDED[key]

    def _atom(self, ast: Atom, bound: frozenset) -> Cond:
        pred, args = ast.pred, ast.args
        if pred in self.macros:
            return self._cond(self.expand(ast), bound)
        if pred in self.builtins:
            fn = self.builtins[pred]
            getters = [_getter(a, bound) for a in args]
            if len(getters) == 1:
                g0 = getters[0]
                return lambda st, env: fn(st, g0(env))
            if len(getters) == 2:
                g0, g1 = getters
                return lambda st, env: fn(st, g0(env), g1(env))
            return lambda st, env: fn(st, *[g(env) for g in getters])
        if "_" in args:
            return self._pattern(pred, args, bound)
        getters = [_getter(a, bound) for a in args]
        if all(a not in bound for a in args):
            fact = (pred, *args)
            return lambda st, env: st.has(fact)
        if len(getters) == 1:
            g0 = getters[0]
            return lambda st, env: st.has((pred, g0(env)))
        if len(getters) == 2:
            g0, g1 = getters
            return lambda st, env: st.has((pred, g0(env), g1(env)))
        return lambda st, env: st.has((pred, *[g(env) for g in getters]))

    def _pattern(self, pred: str, args: tuple, bound: frozenset) -> Cond:
        """An atom with ``_`` in it: true when any fact matches."""
        if args and args[0] != "_":
            # the usual shape, exit(here, dir, _): one index lookup, a short scan
            g0 = _getter(args[0], bound)
            fixed = [(i, _getter(a, bound)) for i, a in enumerate(args[1:]) if a != "_"]
            size = len(args) - 1
            if not fixed:
                return lambda st, env: any(len(r) == size for r in st.rest(pred, g0(env)))

            if len(fixed) == 1:   # exit(here, dir, _): one argument to compare
                ((i1, g1),) = fixed

                def exists1(st, env):
                    v = g1(env)
                    for r in st.rest(pred, g0(env)):
                        if len(r) == size and r[i1] == v:
                            return True
                    return False
                return exists1

            def exists(st, env):
                want = [(i, g(env)) for i, g in fixed]
                for r in st.rest(pred, g0(env)):
                    if len(r) == size and all(r[i] == v for i, v in want):
                        return True
                return False
            return exists
        matcher = _matcher(pred, args, bound)
        return lambda st, env: next(matcher(st, env), None) is not None

    def _count(self, atom: Atom, op, num, bound) -> Cond:
        matcher = _matcher(atom.pred, atom.args, bound)
        return lambda st, env: op(sum(1 for _ in matcher(st, env)), num)

    def _exact(self, var: str, body, bound: frozenset):
        """For a condition that is one stored atom with ``var`` in it and its first
        argument known: a function listing exactly the values of ``var`` that make it true."""
        if not isinstance(body, Atom) or body.pred in self.builtins or body.pred in self.macros:
            return None
        pred, args = body.pred, body.args
        if not args or args[0] == var or args.count(var) != 1 or "_" in args:
            return None
        g0 = _getter(args[0], bound)
        pos = args.index(var) - 1
        fixed = [(i, _getter(a, bound)) for i, a in enumerate(args[1:]) if a != var]
        size = len(args) - 1

        def values(st, env):
            want = [(i, g(env)) for i, g in fixed]
            return [r[pos] for r in st.rest(pred, g0(env))
                    if len(r) == size and all(r[i] == w for i, w in want)]
        return values

    def _candidates(self, var: str, body, bound: frozenset):
        """Values worth trying for ``var``: from an index when a conjunct pins it down."""
        for atom in conjuncts(body):
            if not isinstance(atom, Atom) or atom.pred in self.builtins or atom.pred in self.macros:
                continue
            pred, args = atom.pred, atom.args
            if len(args) >= 2 and args[0] != var and var in args[1:]:
                g0 = _getter(args[0], bound)
                i = args.index(var, 1) - 1
                return lambda st, env: [r[i] for r in st.rest(pred, g0(env)) if len(r) > i]
            if len(args) >= 2 and args[0] == var and args[1] != var:
                g1 = _getter(args[1], bound)
                return lambda st, env: st.firsts(pred, g1(env))
        domain = self.domain
        return lambda st, env: domain

    # ---- effects ----------------------------------------------------
    def effects(self, text_or_list, bound: frozenset | set = frozenset(), origin: str = "") -> Effect:
        texts = (text_or_list,) if isinstance(text_or_list, str) else tuple(text_or_list)
        bound = frozenset(bound)
        if PLAIN_RULES:
            parts = [self._effect(a, bound) for t in texts for a in parse_effects(t)]

            def run(st, env, adds, dels):
                for part in parts:
                    part(st, env, adds, dels)
            return run

        def write(gen):
            lines = ["def run(st, env, adds, dels):", "    F, O = st.known, st.over"]
            for t in texts:
                for a in parse_effects(t):
                    gen.statement(a, bound, lines, "    ")
            return "\n".join(lines) + "\n", "run"
        return generated(self, "effects", texts, bound, write, origin=origin)

    def _effect(self, ast, bound: frozenset) -> Effect:
        if isinstance(ast, Add):
            pred, args = ast.atom.pred, ast.atom.args
            if "_" in args:
                raise LogicError(f"'add' needs every argument: {pred}({', '.join(args)})")
            getters = [_getter(a, bound) for a in args]
            return lambda st, env, adds, dels: adds.add((pred, *[g(env) for g in getters]))
        if isinstance(ast, Delete):
            pred, args = ast.atom.pred, ast.atom.args
            if "_" in args:
                matcher = _matcher(pred, args, bound)
                return lambda st, env, adds, dels: dels.update(matcher(st, env))
            getters = [_getter(a, bound) for a in args]
            return lambda st, env, adds, dels: dels.add((pred, *[g(env) for g in getters]))
        if isinstance(ast, When):
            cond = self._cond(ast.cond, bound)
            inner = self._effect(ast.effect, bound)

            def when(st, env, adds, dels):
                if cond(st, env):
                    inner(st, env, adds, dels)
            return when
        if isinstance(ast, ForEach):
            var = ast.var
            cond = self._cond(ast.where, bound | {var})
            cands = self._candidates(var, ast.where, bound)
            inner = self._effect(ast.effect, bound | {var})
            exact = self._exact(var, ast.where, bound)
            if exact is not None:
                # `forall t where exit(here, dir, t): ...`: the index yields exactly the t that fit
                def forall_exact(st, env, adds, dels):
                    saved = env.get(var, _MISSING)
                    try:
                        for v in exact(st, env):
                            env[var] = v
                            inner(st, env, adds, dels)
                    finally:
                        _restore(env, var, saved)
                return forall_exact

            def forall(st, env, adds, dels):
                saved = env.get(var, _MISSING)
                try:
                    for v in list(cands(st, env)):
                        env[var] = v
                        if cond(st, env):
                            inner(st, env, adds, dels)
                finally:
                    _restore(env, var, saved)
            return forall
        raise LogicError(f"cannot compile effect {ast!r}")


def _getter(arg: str, bound: frozenset):
    if arg in bound:
        return lambda env: env[arg]
    return lambda env: arg


def _matcher(pred: str, args: tuple, bound: frozenset):
    """A generator of the facts matching a pattern whose ``_`` match anything."""
    getters = [None if a == "_" else _getter(a, bound) for a in args]
    n = len(args) + 1

    def match(st, env):
        want = [None if g is None else g(env) for g in getters]
        if want and want[0] is not None:
            for rest in st.rest(pred, want[0]):
                f = (pred, want[0], *rest)
                if len(f) == n and all(w is None or w == v for w, v in zip(want, f[1:])):
                    yield f
            return
        if len(want) >= 2 and want[1] is not None:
            for first in st.firsts(pred, want[1]):
                for rest in st.rest(pred, first):
                    f = (pred, first, *rest)
                    if len(f) == n and all(w is None or w == v for w, v in zip(want, f[1:])):
                        yield f
            return
        for f in st.facts:
            if f[0] == pred and len(f) == n and all(w is None or w == v for w, v in zip(want, f[1:])):
                yield f
    return match




_EXPANDED: dict = {}   # (arguments, parameters, body) of a macro call -> its expansion (Compiler.expand)

