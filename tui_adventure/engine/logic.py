"""The condition and effect language that rulesets are written in.

Conditions: ``on(obj, s)``, ``not open(c)``, ``a and b``, ``a or b``,
``exists r: at(x, r) and at(player, r)``, ``count(held(_)) < 2``, ``x == y``.
Effects: ``add held(obj)``, ``del on(obj, _)`` (``_`` deletes every match),
``when C: EFFECT``, ``forall v where C: EFFECT``; several joined with ``;``.

Names that are bound (action parameters, quantified variables) are variables;
every other name is a constant (a world id). Strings are parsed once, at load,
into closures ``f(state, env)`` so a step costs a few dictionary lookups.
"""

from __future__ import annotations

import re
from typing import Callable

from .facts import State

Cond = Callable[[State, dict], bool]
Effect = Callable[[State, dict, set, set], None]

_TOKEN_RE = re.compile(r"\s*(?:(==|!=|<=|>=|<|>|[(),:;])|([A-Za-z_][\w-]*)|(-?\d+))")
_OPS = {
    "==": lambda a, b: a == b,
    "!=": lambda a, b: a != b,
    "<": lambda a, b: a < b,
    "<=": lambda a, b: a <= b,
    ">": lambda a, b: a > b,
    ">=": lambda a, b: a >= b,
}
_KEYWORDS = {"not", "and", "or", "exists", "forall", "where", "when", "add", "del", "count", "true", "false"}


class LogicError(ValueError):
    """A rule text that does not parse or names something unknown; the message says which."""


def tokenize(text: str) -> list[str]:
    out: list[str] = []
    pos = 0
    text = text.rstrip()
    while pos < len(text):
        m = _TOKEN_RE.match(text, pos)
        if not m or m.end() == pos:
            raise LogicError(f"unexpected {text[pos:pos + 10]!r} in {text!r}")
        out.append(m.group(1) or m.group(2) or m.group(3))
        pos = m.end()
    return out


class _Parser:
    """Recursive descent over the token list; produces tuples (the AST)."""

    def __init__(self, text: str) -> None:
        self.text = text
        self.toks = tokenize(text)
        self.i = 0

    def peek(self) -> str | None:
        return self.toks[self.i] if self.i < len(self.toks) else None

    def take(self, want: str | None = None) -> str:
        tok = self.peek()
        if tok is None or (want is not None and tok != want):
            raise LogicError(f"expected {want or 'more'} at the end of {self.text!r}" if tok is None
                             else f"expected {want!r} but found {tok!r} in {self.text!r}")
        self.i += 1
        return tok

    def done(self) -> None:
        if self.peek() is not None:
            raise LogicError(f"unexpected {self.peek()!r} in {self.text!r}")

    def name(self) -> str:
        tok = self.take()
        if not re.match(r"[A-Za-z_]", tok) or tok in _KEYWORDS - {"true", "false"}:
            raise LogicError(f"expected a name but found {tok!r} in {self.text!r}")
        return tok

    # conditions
    def cond(self):
        left = self.conj()
        while self.peek() == "or":
            self.take()
            left = ("or", left, self.conj())
        return left

    def conj(self):
        left = self.neg()
        while self.peek() == "and":
            self.take()
            left = ("and", left, self.neg())
        return left

    def neg(self):
        if self.peek() == "not":
            self.take()
            return ("not", self.neg())
        return self.primary()

    def primary(self):
        tok = self.peek()
        if tok == "(":
            self.take()
            inner = self.cond()
            self.take(")")
            return inner
        if tok in ("exists", "forall"):
            self.take()
            var = self.name()
            self.take(":")
            return (tok, var, self.cond())
        if tok == "true":
            self.take()
            return ("const", True)
        if tok == "false":
            self.take()
            return ("const", False)
        if tok == "count":
            self.take()
            self.take("(")
            atom = self.atom()
            self.take(")")
            op = self.take()
            if op not in _OPS:
                raise LogicError(f"count(...) needs a comparison, found {op!r} in {self.text!r}")
            num = self.take()
            if not re.fullmatch(r"-?\d+", num):
                raise LogicError(f"count(...) {op} needs a number in {self.text!r}")
            return ("count", atom, op, int(num))
        first = self.name()
        if self.peek() == "(":
            self.i -= 1
            return self.atom()
        op = self.take()
        if op not in ("==", "!="):
            raise LogicError(f"expected '(' or a comparison after {first!r} in {self.text!r}")
        return ("cmp", op, first, self.name())

    def atom(self):
        pred = self.name()
        self.take("(")
        args: list[str] = []
        if self.peek() != ")":
            args.append(self.term())
            while self.peek() == ",":
                self.take()
                args.append(self.term())
        self.take(")")
        return ("atom", pred, tuple(args))

    def term(self) -> str:
        tok = self.take()
        if not re.match(r"[A-Za-z_0-9-]", tok):
            raise LogicError(f"expected an argument but found {tok!r} in {self.text!r}")
        return tok

    # effects
    def effects(self):
        out = [self.effect()]
        while self.peek() == ";":
            self.take()
            out.append(self.effect())
        return out

    def effect(self):
        tok = self.take()
        if tok in ("add", "del"):
            return (tok, self.atom())
        if tok == "when":
            cond = self.cond()
            self.take(":")
            return ("when", cond, self.effect())
        if tok == "forall":
            var = self.name()
            self.take("where")
            cond = self.cond()
            self.take(":")
            return ("forall", var, cond, self.effect())
        raise LogicError(f"an effect starts with add, del, when or forall, not {tok!r}: {self.text!r}")


def parse_condition(text: str):
    p = _Parser(text)
    ast = p.cond()
    p.done()
    return ast


def parse_effects(text: str):
    p = _Parser(text)
    ast = p.effects()
    p.done()
    return ast


class Compiler:
    """Turns ASTs into closures for one world.

    ``builtins`` maps a predicate name to ``f(state, *args) -> bool`` (Python
    helpers such as visibility that a ruleset style provides); ``macros`` maps
    a name to ``(params, ast)`` and is expanded inline; ``domain`` is every id
    a quantifier may range over when no index narrows it.
    """

    def __init__(self, builtins: dict | None = None, macros: dict | None = None,
                 domain: tuple = ()) -> None:
        self.builtins = builtins or {}
        self.macros = macros or {}
        self.domain = tuple(domain)

    # ---- conditions -------------------------------------------------
    def condition(self, text_or_ast, bound: frozenset | set = frozenset()) -> Cond:
        ast = parse_condition(text_or_ast) if isinstance(text_or_ast, str) else text_or_ast
        return self._cond(ast, frozenset(bound))

    def _cond(self, ast, bound: frozenset) -> Cond:
        kind = ast[0]
        if kind == "const":
            value = ast[1]
            return lambda st, env: value
        if kind == "not":
            inner = self._cond(ast[1], bound)
            return lambda st, env: not inner(st, env)
        if kind == "and":
            a, b = self._cond(ast[1], bound), self._cond(ast[2], bound)
            return lambda st, env: a(st, env) and b(st, env)
        if kind == "or":
            a, b = self._cond(ast[1], bound), self._cond(ast[2], bound)
            return lambda st, env: a(st, env) or b(st, env)
        if kind == "cmp":
            op = _OPS[ast[1]]
            ga, gb = _getter(ast[2], bound), _getter(ast[3], bound)
            return lambda st, env: op(ga(env), gb(env))
        if kind == "count":
            return self._count(ast[1], _OPS[ast[2]], ast[3], bound)
        if kind in ("exists", "forall"):
            var = ast[1]
            body = self._cond(ast[2], bound | {var})
            cands = self._candidates(var, ast[2], bound)
            if kind == "exists":
                def exists(st, env):
                    saved = env.get(var, _MISSING)
                    try:
                        for v in cands(st, env):
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
        if kind == "atom":
            return self._atom(ast, bound)
        raise LogicError(f"cannot compile {ast!r}")

    def _atom(self, ast, bound: frozenset) -> Cond:
        _, pred, args = ast
        if pred in self.macros:
            params, body = self.macros[pred]
            if len(params) != len(args):
                raise LogicError(f"{pred} takes {len(params)} arguments, got {len(args)}")
            return self._cond(_substitute(_fresh(body), dict(zip(params, args))), bound)
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
        free = [a for a in args if a == "_" or (a not in bound and a.startswith("?"))]
        if free:
            return self._pattern(pred, args, bound)
        getters = [_getter(a, bound) for a in args]
        if all(a not in bound for a in args):
            fact = (pred, *args)
            return lambda st, env: fact in st.facts
        if len(getters) == 1:
            g0 = getters[0]
            return lambda st, env: (pred, g0(env)) in st.facts
        if len(getters) == 2:
            g0, g1 = getters
            return lambda st, env: (pred, g0(env), g1(env)) in st.facts
        return lambda st, env: (pred, *[g(env) for g in getters]) in st.facts

    def _pattern(self, pred: str, args: tuple, bound: frozenset) -> Cond:
        """An atom with ``_`` in it: true when any fact matches."""
        if args and args[0] != "_":
            # the usual shape, exit(here, dir, _): one index lookup, a short scan
            g0 = _getter(args[0], bound)
            fixed = [(i, _getter(a, bound)) for i, a in enumerate(args[1:]) if a != "_"]
            size = len(args) - 1
            if not fixed:
                return lambda st, env: any(len(r) == size for r in st.by1.get((pred, g0(env)), ()))

            def exists(st, env):
                want = [(i, g(env)) for i, g in fixed]
                for r in st.by1.get((pred, g0(env)), ()):
                    if len(r) == size and all(r[i] == v for i, v in want):
                        return True
                return False
            return exists
        matcher = _matcher(pred, args, bound)
        return lambda st, env: next(matcher(st, env), None) is not None

    def _count(self, atom, op, num, bound) -> Cond:
        _, pred, args = atom
        matcher = _matcher(pred, args, bound)
        return lambda st, env: op(sum(1 for _ in matcher(st, env)), num)

    def _exact(self, var: str, body, bound: frozenset):
        """For a condition that is one stored atom with ``var`` in it and its first
        argument known: a function listing exactly the values of ``var`` that make it true."""
        if body[0] != "atom" or body[1] in self.builtins or body[1] in self.macros:
            return None
        pred, args = body[1], body[2]
        if not args or args[0] == var or args.count(var) != 1 or "_" in args:
            return None
        g0 = _getter(args[0], bound)
        pos = args.index(var) - 1
        fixed = [(i, _getter(a, bound)) for i, a in enumerate(args[1:]) if a != var]
        size = len(args) - 1

        def values(st, env):
            want = [(i, g(env)) for i, g in fixed]
            return [r[pos] for r in st.by1.get((pred, g0(env)), ())
                    if len(r) == size and all(r[i] == w for i, w in want)]
        return values

    def _candidates(self, var: str, body, bound: frozenset):
        """Values worth trying for ``var``: from an index when a conjunct pins it down."""
        for atom in _conjuncts(body):
            if atom[0] != "atom" or atom[1] in self.builtins or atom[1] in self.macros:
                continue
            pred, args = atom[1], atom[2]
            if len(args) >= 2 and args[0] != var and var in args[1:] and (args[0] in bound or args[0] not in _VARLIKE):
                g0 = _getter(args[0], bound)
                i = args.index(var, 1) - 1
                return lambda st, env: [r[i] for r in st.by1.get((pred, g0(env)), ()) if len(r) > i]
            if len(args) >= 2 and args[0] == var and args[1] != var:
                g1 = _getter(args[1], bound)
                return lambda st, env: st.by2.get((pred, g1(env)), ())
        domain = self.domain
        return lambda st, env: domain

    # ---- effects ----------------------------------------------------
    def effects(self, text_or_list, bound: frozenset | set = frozenset()) -> Effect:
        if isinstance(text_or_list, str):
            asts = parse_effects(text_or_list)
        else:
            asts = [a for t in text_or_list for a in parse_effects(t)]
        parts = [self._effect(a, frozenset(bound)) for a in asts]

        def run(st, env, adds, dels):
            for p in parts:
                p(st, env, adds, dels)
        return run

    def _effect(self, ast, bound: frozenset) -> Effect:
        kind = ast[0]
        if kind == "add":
            _, pred, args = ast[1]
            if "_" in args:
                raise LogicError(f"'add' needs every argument: {pred}({', '.join(args)})")
            getters = [_getter(a, bound) for a in args]
            return lambda st, env, adds, dels: adds.add((pred, *[g(env) for g in getters]))
        if kind == "del":
            _, pred, args = ast[1]
            if "_" in args:
                matcher = _matcher(pred, args, bound)
                return lambda st, env, adds, dels: dels.update(matcher(st, env))
            getters = [_getter(a, bound) for a in args]
            return lambda st, env, adds, dels: dels.add((pred, *[g(env) for g in getters]))
        if kind == "when":
            cond = self._cond(ast[1], bound)
            inner = self._effect(ast[2], bound)

            def when(st, env, adds, dels):
                if cond(st, env):
                    inner(st, env, adds, dels)
            return when
        if kind == "forall":
            var = ast[1]
            cond = self._cond(ast[2], bound | {var})
            cands = self._candidates(var, ast[2], bound)
            inner = self._effect(ast[3], bound | {var})
            exact = self._exact(var, ast[2], bound)
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


_MISSING = object()
_VARLIKE: frozenset = frozenset()


def _restore(env: dict, var: str, saved) -> None:
    if saved is _MISSING:
        env.pop(var, None)
    else:
        env[var] = saved


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
            for rest in st.by1.get((pred, want[0]), ()):
                f = (pred, want[0], *rest)
                if len(f) == n and all(w is None or w == v for w, v in zip(want, f[1:])):
                    yield f
            return
        if len(want) >= 2 and want[1] is not None:
            for first in st.by2.get((pred, want[1]), ()):
                for rest in st.by1.get((pred, first), ()):
                    f = (pred, first, *rest)
                    if len(f) == n and all(w is None or w == v for w, v in zip(want, f[1:])):
                        yield f
            return
        for f in st.facts:
            if f[0] == pred and len(f) == n and all(w is None or w == v for w, v in zip(want, f[1:])):
                yield f
    return match


def _conjuncts(ast):
    if ast[0] == "and":
        yield from _conjuncts(ast[1])
        yield from _conjuncts(ast[2])
    else:
        yield ast


def _substitute(ast, mapping: dict):
    """Rename macro parameters to the call's arguments, leaving inner quantifiers alone."""
    kind = ast[0]
    if kind == "atom":
        return ("atom", ast[1], tuple(mapping.get(a, a) for a in ast[2]))
    if kind == "cmp":
        return ("cmp", ast[1], mapping.get(ast[2], ast[2]), mapping.get(ast[3], ast[3]))
    if kind == "count":
        return ("count", _substitute(ast[1], mapping), ast[2], ast[3])
    if kind in ("exists", "forall"):
        inner = {k: v for k, v in mapping.items() if k != ast[1]}
        return (kind, ast[1], _substitute(ast[2], inner))
    if kind == "not":
        return ("not", _substitute(ast[1], mapping))
    if kind in ("and", "or"):
        return (kind, _substitute(ast[1], mapping), _substitute(ast[2], mapping))
    return ast


_fresh_counter = [0]


def _fresh(ast):
    """Give a macro body's quantified variables names no caller can use (hygiene)."""
    kind = ast[0]
    if kind in ("exists", "forall"):
        _fresh_counter[0] += 1
        new = f"{ast[1]}#{_fresh_counter[0]}"
        return (kind, new, _fresh(_substitute(ast[2], {ast[1]: new})))
    if kind == "not":
        return ("not", _fresh(ast[1]))
    if kind in ("and", "or"):
        return (kind, _fresh(ast[1]), _fresh(ast[2]))
    return ast


def names_in(ast) -> set[str]:
    """Every argument name an AST mentions (for finding which parameters a check needs)."""
    kind = ast[0]
    if kind == "atom":
        return set(ast[2])
    if kind == "cmp":
        return {ast[2], ast[3]}
    if kind == "count":
        return names_in(ast[1])
    if kind in ("exists", "forall"):
        return names_in(ast[2]) - {ast[1]}
    if kind == "not":
        return names_in(ast[1])
    if kind in ("and", "or"):
        return names_in(ast[1]) | names_in(ast[2])
    return set()


def predicates_in(ast) -> set[str]:
    kind = ast[0]
    if kind == "atom":
        return {ast[1]}
    if kind == "count":
        return predicates_in(ast[1])
    if kind in ("exists", "forall"):
        return predicates_in(ast[2])
    if kind == "not":
        return predicates_in(ast[1])
    if kind in ("and", "or"):
        return predicates_in(ast[1]) | predicates_in(ast[2])
    return set()


def effect_predicates(asts) -> set[str]:
    """Predicates some effect adds or deletes: everything else is fixed for a whole game."""
    out: set[str] = set()
    for ast in asts:
        kind = ast[0]
        if kind in ("add", "del"):
            out.add(ast[1][1])
        elif kind == "when":
            out |= effect_predicates([ast[2]])
        elif kind == "forall":
            out |= effect_predicates([ast[3]])
    return out


def expanded_predicates(ast, macros: dict) -> set[str]:
    """Predicates a condition reads, looking through macros."""
    out: set[str] = set()
    for pred in predicates_in(ast):
        if pred in macros:
            out |= expanded_predicates(macros[pred][1], macros)
        else:
            out.add(pred)
    return out
