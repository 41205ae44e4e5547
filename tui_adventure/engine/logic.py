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

from typing import Callable

from .facts import State
from .logic_ast import (COMPARISONS, Add, And, Atom, Compare, Const, Count, Delete, Exists, ForEach, Forall,  # noqa: F401
                        LogicError, Not, Or, When, atoms_in, conjuncts, effect_predicates, expanded_predicates,
                        fresh, names_in, parse_condition, parse_effects, substitute)

Cond = Callable[[State, dict], bool]
Effect = Callable[[State, dict, set, set], None]

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
    a quantifier may range over when no index narrows it.
    """

    def __init__(self, builtins: dict | None = None, macros: dict | None = None,
                 domain: tuple = ()) -> None:
        self.builtins = builtins or {}
        self.macros = macros or {}
        self.domain = tuple(domain)
        # The predicates actions' effects name (set by compile_actions; None: not known). State.advance,
        # the only maker of overlays, is given those effects, so rule code reads any other from the base.
        self.changing: frozenset | None = None

    # ---- conditions -------------------------------------------------
    def condition(self, text_or_ast, bound: frozenset | set = frozenset()) -> Cond:
        ast = parse_condition(text_or_ast) if isinstance(text_or_ast, str) else text_or_ast
        return self._cond(ast, frozenset(bound))

    def _cond(self, ast, bound: frozenset) -> Cond:
        gen = _Gen(self)
        expr = gen.expr(ast, bound)
        return gen.function(f"def cond(st, env):\n    F, O = st.known, st.over\n    return {expr}\n", "cond")

    def first_failing(self, asts: list, bound: frozenset | set) -> Callable[[State, dict], int]:
        """One function for a list of checks: the index of the first that fails, or -1 (an action's
        checks run together in a step, so they share one call and one read of the facts)."""
        gen = _Gen(self)
        bound = frozenset(bound)
        lines = ["def first_failing(st, env):", "    F, O = st.known, st.over"]
        for i, ast in enumerate(asts):
            lines.append(f"    if not ({gen.expr(ast, bound)}):\n        return {i}")
        lines.append("    return -1")
        return gen.function("\n".join(lines) + "\n", "first_failing")

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
    def effects(self, text_or_list, bound: frozenset | set = frozenset()) -> Effect:
        if isinstance(text_or_list, str):
            asts = parse_effects(text_or_list)
        else:
            asts = [a for t in text_or_list for a in parse_effects(t)]
        gen = _Gen(self)
        bound = frozenset(bound)
        lines = ["def run(st, env, adds, dels):", "    F, O = st.known, st.over"]
        for a in asts:
            gen.statement(a, bound, lines, "    ")
        return gen.function("\n".join(lines) + "\n", "run")

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


_MISSING = object()


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
_CODE: dict = {}   # generated source -> code object: worlds of one ruleset share their compiled rules


class _Gen:
    """Python source for one rule: expressions over ``F`` and ``O`` (a state's base facts and the
    facts changed since, see ``State.advance``) and ``env``; whatever it cannot write inline is
    compiled to a closure and called from the source by name."""

    def __init__(self, compiler: Compiler) -> None:
        self.compiler = compiler
        self.ns: dict = {}
        self.local: dict = {}   # a quantified variable the source keeps in a local, not in env

    def name(self, value) -> str:
        key = f"_k{len(self.ns)}"
        self.ns[key] = value
        return key

    def function(self, source: str, fname: str):
        code = _CODE.get(source)
        if code is None:
            code = compile(source, "<rule>", "exec")
            _CODE[source] = code
        ns = dict(self.ns)
        ns["_MISSING"], ns["_restore"] = _MISSING, _restore
        exec(code, ns)
        return ns[fname]

    def term(self, arg: str, bound: frozenset) -> str:
        local = self.local.get(arg)
        if local is not None:
            return local
        return f"env[{arg!r}]" if arg in bound else repr(arg)

    def fact(self, pred: str, args: tuple, bound: frozenset) -> str:
        return "(" + ", ".join([repr(pred)] + [self.term(a, bound) for a in args]) + ",)"

    def expr(self, ast, bound: frozenset) -> str:
        c = self.compiler
        if isinstance(ast, Const):
            return repr(ast.value)
        if isinstance(ast, Not):
            return f"(not {self.expr(ast.body, bound)})"
        if isinstance(ast, And):
            return f"({self.expr(ast.left, bound)} and {self.expr(ast.right, bound)})"
        if isinstance(ast, Or):
            return f"({self.expr(ast.left, bound)} or {self.expr(ast.right, bound)})"
        if isinstance(ast, Compare):
            return f"({self.term(ast.left, bound)} {ast.op} {self.term(ast.right, bound)})"
        if isinstance(ast, Atom) and "_" not in ast.args:
            if ast.pred in c.macros:
                return self.expr(c.expand(ast), bound)
            if ast.pred in c.builtins:
                fn = self.name(c.builtins[ast.pred])
                return f"{fn}(" + ", ".join(["st"] + [self.term(a, bound) for a in ast.args]) + ")"
            fact = self.name((ast.pred, *ast.args)) if all(a not in bound for a in ast.args) \
                else self.fact(ast.pred, ast.args, bound)
            if c.changing is not None and ast.pred not in c.changing:
                return f"({fact} in F)"
            return f"(O[_x] if (_x := {fact}) in O else _x in F)"   # the facts changed since the base, else the base's
        if isinstance(ast, Atom) and (ast.pred in c.macros or ast.pred in c.builtins):
            return f"{self.name(c._atom(ast, bound))}(st, env)"
        return f"{self.name(c._closure(ast, bound))}(st, env)"

    def inline(self, ast) -> bool:
        """Whether the source holds all of ``ast`` (no closure it calls reads a variable from env)."""
        c = self.compiler
        if isinstance(ast, (Const, Compare)):
            return True
        if isinstance(ast, Not):
            return self.inline(ast.body)
        if isinstance(ast, (And, Or)):
            return self.inline(ast.left) and self.inline(ast.right)
        if isinstance(ast, Atom):
            return "_" not in ast.args and (ast.pred not in c.macros or self.inline(c.expand(ast)))
        if isinstance(ast, (Add, Delete)):
            return "_" not in ast.atom.args
        if isinstance(ast, When):
            return self.inline(ast.cond) and self.inline(ast.effect)
        return False

    def candidates(self, var: str, body, bound: frozenset) -> str:
        """Source for ``Compiler._candidates``: an index entry read in place where it is one."""
        c = self.compiler
        for atom in conjuncts(body):
            if not isinstance(atom, Atom) or atom.pred in c.builtins or atom.pred in c.macros:
                continue
            args = atom.args
            if len(args) >= 2 and args[0] != var and var in args[1:]:
                break   # a list built from an index: the closure's
            if len(args) >= 2 and args[0] == var and args[1] != var:
                return f"st.firsts({atom.pred!r}, {self.term(args[1], bound)})"
        return f"{self.name(c._candidates(var, body, bound))}(st, env)"

    def statement(self, ast, bound: frozenset, lines: list, pad: str) -> None:
        if isinstance(ast, Add):
            if "_" in ast.atom.args:
                raise LogicError(f"'add' needs every argument: {ast.atom.pred}({', '.join(ast.atom.args)})")
            lines.append(f"{pad}adds.add({self.fact(ast.atom.pred, ast.atom.args, bound)})")
        elif isinstance(ast, Delete) and "_" not in ast.atom.args:
            lines.append(f"{pad}dels.add({self.fact(ast.atom.pred, ast.atom.args, bound)})")
        elif isinstance(ast, When):
            lines.append(f"{pad}if {self.expr(ast.cond, bound)}:")
            self.statement(ast.effect, bound, lines, pad + "    ")
        elif isinstance(ast, ForEach) and self.inline(ast.where) and self.inline(ast.effect):
            # its variable a local: nothing the loop runs reads env for it
            var, inner = ast.var, bound | {ast.var}
            v = self.name(None) + "_v"
            exact = self.compiler._exact(var, ast.where, bound)
            self.local[var] = v
            if exact is not None:
                lines.append(f"{pad}for {v} in {self.name(exact)}(st, env):")
                self.statement(ast.effect, inner, lines, pad + "    ")
            else:
                lines.append(f"{pad}for {v} in {self.candidates(var, ast.where, bound)}:")
                lines.append(f"{pad}    if {self.expr(ast.where, inner)}:")
                self.statement(ast.effect, inner, lines, pad + "        ")
            del self.local[var]
        elif isinstance(ast, ForEach):
            # written out as a loop, as the closure in Compiler._effect runs it: the variable's
            # candidates (exactly the fitting values when an index gives them), its old value back after
            var, inner = ast.var, bound | {ast.var}
            saved, v = self.name(None) + "_saved", self.name(None) + "_v"
            exact = self.compiler._exact(var, ast.where, bound)
            lines.append(f"{pad}{saved} = env.get({var!r}, _MISSING)")
            lines.append(f"{pad}try:")
            if exact is not None:
                lines.append(f"{pad}    for {v} in {self.name(exact)}(st, env):")
                lines.append(f"{pad}        env[{var!r}] = {v}")
                self.statement(ast.effect, inner, lines, pad + "        ")
            else:
                cands = self.name(self.compiler._candidates(var, ast.where, bound))
                lines.append(f"{pad}    for {v} in list({cands}(st, env)):")
                lines.append(f"{pad}        env[{var!r}] = {v}")
                lines.append(f"{pad}        if {self.expr(ast.where, inner)}:")
                self.statement(ast.effect, inner, lines, pad + "            ")
            lines.append(f"{pad}finally:")
            lines.append(f"{pad}    _restore(env, {var!r}, {saved})")
        else:
            lines.append(f"{pad}{self.name(self.compiler._effect(ast, bound))}(st, env, adds, dels)")
