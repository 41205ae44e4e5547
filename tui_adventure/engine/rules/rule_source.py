"""The Python source that a rule compiles to, and the caches that let worlds share it.

Worlds of one ruleset compile the same rules: writing a rule's source is most
of a world's load, so the source is written once per ruleset (and per what
shapes it: the bound names, the predicates effects change, the builtins'
names) and kept with a recipe for the values it names. Another world execs the
cached code with its own values: constants are shared, closures over a
world's builtins or domain are made again by the recipe.

A fresh game's steps are dominated by what a check or an effect costs on its
first call, and a call of a generic closure costs several of the lines it
stands for. So the source holds as much of a rule as it can: besides atoms,
``and``/``or``/``not``, comparisons, macros and plain effects, also ``_``
patterns with a known first argument, and ``exists`` and ``forall ...
where`` whose variable an index entry lists: a loop over that entry in place,
the variable in a local (an expression cannot hold a loop, so an ``exists``
or a pattern in a condition is a helper function defined before the rule).
Counts, ``forall`` over every id and patterns led by ``_`` stay closures.

An action's step is one such function (``logic.Compiler.attempt``): its memo,
its checks, and its effects written straight into the next state's overlay,
each fact by lines for its shape (``_Gen.applied``), which is what
``State.advance`` does with the sets that ``_Gen.statement``'s lines fill,
without the sets, the loops over them and three calls. The globals a function
reads are its default arguments (``_bound``): each world's namespace is a new
dict, so a global read would miss what the interpreter learnt of the last one.
"""

from __future__ import annotations

from typing import Callable

from .logic_ast import Add, And, Atom, Compare, Cond, Const, Delete, Exists, ForEach, Not, Or, When, conjuncts, LogicError

_MISSING = object()
_EMPTY: frozenset = frozenset()


def _restore(env: dict, var: str, saved) -> None:
    if saved is _MISSING:
        env.pop(var, None)
    else:
        env[var] = saved




class _Gen:
    """Python source for one rule: expressions over ``F`` and ``O`` (a state's base facts and the
    facts changed since, see ``State.advance``) and ``env``; whatever it cannot write inline is
    compiled to a closure and called from the source by name."""

    def __init__(self, compiler) -> None:
        self.compiler = compiler
        self.ns: dict = {}
        self.recipe: list = []   # per name: (name, its value, or how a compiler makes it: see generated)
        self.local: dict = {}   # a quantified variable the source keeps in a local, not in env
        self.helpers: list[str] = []   # functions the source defines before the rule's own
        self.pairs = False    # an action's step: reads of unchanging facts by their first two arguments (scan)
        self.paired = False   # ... and the source made one, so the step makes sure the state has them

    def name(self, value, make: Callable | None = None) -> str:
        """A name in the source for ``value``; ``make(compiler)`` makes it again for another world
        (a closure over that world's builtins or domain). Without ``make`` the value is a constant."""
        key = f"_k{len(self.ns)}"
        self.ns[key] = value
        self.recipe.append((key, None if make else value, make))
        return key

    def term(self, arg: str, bound: frozenset) -> str:
        local = self.local.get(arg)
        if local is not None:
            return local
        return f"env[{arg!r}]" if arg in bound else repr(arg)

    def fact(self, pred: str, args: tuple, bound: frozenset) -> str:
        return "(" + ", ".join([repr(pred)] + [self.term(a, bound) for a in args]) + ",)"

    def index(self, which: str, pred: str, key: str) -> str:
        """Source for ``st.rest`` (``which`` "1") or ``st.firsts`` ("2"): the overlay's entry, else the base's;
        a predicate no effect names has no overlay entries (see ``Compiler.changing``)."""
        c = self.compiler
        if c.changing is not None and pred not in c.changing:
            return f"st.b{which}.get(({pred!r}, {key}), _EMPTY)"
        return (f"(_o if (_o := st.o{which}.get(_i := ({pred!r}, {key}))) is not None"
                f" else st.b{which}.get(_i, _EMPTY))")

    def pinned(self, var: str, body: Cond) -> tuple[Atom, str] | None:
        """The conjunct of ``body`` whose index entry lists the values of ``var`` worth trying, as
        (atom, "1" or "2"), or None; "1": ``p(a, .., var, ..)`` read by ``a``; "2": ``p(var, b, ..)`` by ``b``."""
        c = self.compiler
        for atom in conjuncts(body):
            if not isinstance(atom, Atom) or atom.pred in c.builtins or atom.pred in c.macros:
                continue
            args = atom.args
            if len(args) >= 2 and args[0] not in (var, "_") and var in args[1:]:
                return atom, "1"
            if len(args) >= 2 and args[0] == var and args[1] not in (var, "_"):
                return atom, "2"
        return None

    def scan(self, atom: Atom, bound: frozenset, skip: str = "_") -> tuple[str, str, int]:
        """(the index entry of ``atom``'s first argument, the test that an item of it fits the rest, how
        many arguments the entry's key holds). In an action's step (``pairs``), a predicate no effect
        names whose second argument is known too is read by its first two (``facts.pairs``): one
        lookup where a scan of the room's exits took several."""
        args, c = atom.args, self.compiler
        n = 1
        entry = self.index("1", atom.pred, self.term(args[0], bound))
        if self.pairs and c.changing is not None and atom.pred not in c.changing and len(args) >= 3 \
                and args[1] not in ("_", skip):
            n, self.paired = 2, True
            entry = f"st.b12.get(({atom.pred!r}, {self.term(args[0], bound)}, {self.term(args[1], bound)}), _EMPTY)"
        tests = [f"len(_r) == {len(args) - n}"] + [f"_r[{i}] == {self.term(a, bound)}"
                                                 for i, a in enumerate(args[n:]) if a not in ("_", skip)]
        return entry, " and ".join(tests), n

    def loop(self, var: str, atom: Atom, which: str, bound: frozenset, v: str, pad: str) -> list[str]:
        """Lines that bind the local ``v`` to each value of ``var`` the index entry of ``atom`` gives
        whose other arguments fit (the body is tested in full after, but for what they decide)."""
        if which == "2":
            return [f"{pad}for {v} in {self.index('2', atom.pred, self.term(atom.args[1], bound))}:"]
        entry, test, n = self.scan(atom, bound, var)
        return [f"{pad}for _r in {entry}:", f"{pad}    if {test}:", f"{pad}        {v} = _r[{atom.args.index(var, 1) - n}]"]

    def helper(self, lines: list[str]) -> str:
        """Define a function before the rule; returns its call, which hands on the locals in scope."""
        params = ", ".join(["st", "env", "F", "O", *self.local.values()])
        name = f"_q{len(self.helpers)}"
        self.helpers.append(f"def {name}({params}):\n" + "\n".join(lines) + "\n")
        return f"{name}({params})"

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
                fn = self.name(c.builtins[ast.pred], lambda c, p=ast.pred: c.builtins[p])
                return f"{fn}(" + ", ".join(["st"] + [self.term(a, bound) for a in ast.args]) + ")"
            fact = self.name((ast.pred, *ast.args)) if all(a not in bound for a in ast.args) \
                else self.fact(ast.pred, ast.args, bound)
            if c.changing is not None and ast.pred not in c.changing:
                return f"({fact} in F)"
            return f"(O[_x] if (_x := {fact}) in O else _x in F)"   # the facts changed since the base, else the base's
        if isinstance(ast, Atom) and self.inline(ast):   # exit(here, dir, _): a scan of one index entry
            entry, test, _n = self.scan(ast, bound)
            return self.helper([f"    for _r in {entry}:", f"        if {test}:", "            return True",
                                "    return False"])
        if isinstance(ast, Exists) and self.inline(ast):
            pinned = self.pinned(ast.var, ast.body)
            assert pinned is not None   # inline(ast) found it
            atom, which = pinned
            v = f"_e{len(self.helpers)}_{len(self.local)}"
            lines = self.loop(ast.var, atom, which, bound, v, "    ")
            pad = "    " * (3 if which == "1" else 2)
            self.local[ast.var] = v
            lines += [f"{pad}if {self.expr(ast.body, bound | {ast.var})}:", f"{pad}    return True"]
            del self.local[ast.var]
            return self.helper(lines + ["    return False"])
        if isinstance(ast, Atom) and (ast.pred in c.macros or ast.pred in c.builtins):
            return f"{self.name(c._atom(ast, bound), lambda c, a=ast, b=bound: c._atom(a, b))}(st, env)"
        return f"{self.name(c._closure(ast, bound), lambda c, a=ast, b=bound: c._closure(a, b))}(st, env)"

    def check(self, ast, bound: frozenset, i: int, fail: str = "return {i}") -> list[str]:
        """Lines of an action's step running ``fail`` (returning ``i``) when ``ast`` fails. A check that is
        an ``exists`` or a ``_`` pattern (or ``not`` one) is its loop in place, not a helper called: a
        move asks three."""
        negated = isinstance(ast, Not)
        found = self.found(ast.body if negated else ast, bound, f"_c{i}")
        fail = fail.format(i=i)
        if found is None:
            return [f"    if not ({self.expr(ast, bound)}):", f"        {fail}"]
        lines, pad = found
        if negated:
            return lines + [f"{pad}{fail}"]
        return lines + [f"{pad}break", "    else:", f"        {fail}"]

    def found(self, ast, bound: frozenset, v: str):
        """(lines, pad): a loop whose lines at ``pad`` run for the first value that makes ``ast`` hold, as
        ``expr`` writes it in a helper; None for what ``expr`` writes otherwise."""
        if isinstance(ast, Atom) and "_" in ast.args and self.inline(ast):
            entry, test, _n = self.scan(ast, bound)
            return [f"    for _r in {entry}:", f"        if {test}:"], " " * 12
        if isinstance(ast, Exists) and self.inline(ast):
            pinned = self.pinned(ast.var, ast.body)
            assert pinned is not None   # inline(ast) found it
            atom, which = pinned
            lines = self.loop(ast.var, atom, which, bound, v, "    ")
            pad = "    " * (3 if which == "1" else 2)
            self.local[ast.var] = v
            lines.append(f"{pad}if {self.expr(ast.body, bound | {ast.var})}:")
            del self.local[ast.var]
            return lines, pad + "    "
        return None

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
            if ast.pred in c.macros:
                return "_" not in ast.args and self.inline(c.expand(ast))
            return "_" not in ast.args or (ast.pred not in c.builtins and ast.args[0] != "_")
        if isinstance(ast, Exists):
            return self.pinned(ast.var, ast.body) is not None and self.inline(ast.body)
        if isinstance(ast, Add):
            return "_" not in ast.atom.args
        if isinstance(ast, Delete):
            return ast.atom.args[:1] != ("_",)
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
        made = c._candidates(var, body, bound)
        return f"{self.name(made, lambda c, v=var, a=body, b=bound: c._candidates(v, a, b))}(st, env)"

    def statement(self, ast, bound: frozenset, lines: list, pad: str) -> None:
        if isinstance(ast, Add):
            if "_" in ast.atom.args:
                raise LogicError(f"'add' needs every argument: {ast.atom.pred}({', '.join(ast.atom.args)})")
            lines.append(f"{pad}adds.add({self.fact(ast.atom.pred, ast.atom.args, bound)})")
        elif isinstance(ast, Delete) and "_" not in ast.atom.args:
            lines.append(f"{pad}dels.add({self.fact(ast.atom.pred, ast.atom.args, bound)})")
        elif isinstance(ast, Delete) and self.inline(ast):
            # del at(obj, _): every fact in the first argument's index entry that fits the rest
            entry, test, _n = self.scan(ast.atom, bound)
            lines += [f"{pad}for _r in {entry}:", f"{pad}    if {test}:",
                      f"{pad}        dels.add(({ast.atom.pred!r}, {self.term(ast.atom.args[0], bound)}, *_r))"]
        elif isinstance(ast, When):
            lines.append(f"{pad}if {self.expr(ast.cond, bound)}:")
            self.statement(ast.effect, bound, lines, pad + "    ")
        elif isinstance(ast, ForEach) and self.inline(ast.where) and self.inline(ast.effect):
            # its variable a local: nothing the loop runs reads env for it
            var, inner = ast.var, bound | {ast.var}
            v = self.name(None) + "_v"
            found = self.pinned(var, ast.where)
            if found is None:
                lines.append(f"{pad}for {v} in {self.candidates(var, ast.where, bound)}:")
                pad += "    "
            else:
                lines.extend(self.loop(var, found[0], found[1], bound, v, pad))
                pad += "        " if found[1] == "1" else "    "
            self.local[var] = v
            if (found is not None and ast.where is found[0] and found[1] == "1" and found[0].args.count(var) == 1
                    and "_" not in found[0].args):
                self.statement(ast.effect, inner, lines, pad)   # forall t where exit(here, dir, t): the scan decides
            else:
                lines.append(f"{pad}if {self.expr(ast.where, inner)}:")
                self.statement(ast.effect, inner, lines, pad + "    ")
            del self.local[var]
        elif isinstance(ast, ForEach):
            # a loop, as the closure in Compiler._effect runs it: the variable's
            # candidates (exactly the fitting values when an index gives them), its old value back after
            var, inner = ast.var, bound | {ast.var}
            saved, v = self.name(None) + "_saved", self.name(None) + "_v"
            exact = self.compiler._exact(var, ast.where, bound)
            lines.append(f"{pad}{saved} = env.get({var!r}, _MISSING)")
            lines.append(f"{pad}try:")
            if exact is not None:
                fits = self.name(exact, lambda c, x=var, a=ast.where, b=bound: c._exact(x, a, b))
                lines.append(f"{pad}    for {v} in {fits}(st, env):")
                lines.append(f"{pad}        env[{var!r}] = {v}")
                self.statement(ast.effect, inner, lines, pad + "        ")
            else:
                cands = self.name(self.compiler._candidates(var, ast.where, bound),
                                  lambda c, x=var, a=ast.where, b=bound: c._candidates(x, a, b))
                lines.append(f"{pad}    for {v} in list({cands}(st, env)):")
                lines.append(f"{pad}        env[{var!r}] = {v}")
                lines.append(f"{pad}        if {self.expr(ast.where, inner)}:")
                self.statement(ast.effect, inner, lines, pad + "            ")
            lines.append(f"{pad}finally:")
            lines.append(f"{pad}    _restore(env, {var!r}, {saved})")
        else:
            made = self.compiler._effect(ast, bound)
            lines.append(f"{pad}{self.name(made, lambda c, a=ast, b=bound: c._effect(a, b))}(st, env, adds, dels)")

    # An action's effects written straight into the next state ---------------------------------------
    def applied(self, ast, bound: frozenset, lines: list, pad: str, twice: frozenset) -> bool:
        """Lines that write the facts ``ast`` adds or deletes into the next state's overlay, as
        ``State.advance`` would from the sets ``statement``'s lines fill; False for what they cannot
        hold (the action then fills the sets). ``twice``: the (add?, predicate, arity) of facts that
        one step might write twice (see ``fact_shapes``), which are looked for in what it wrote."""
        if isinstance(ast, (Add, Delete)) and "_" not in ast.atom.args:
            add, atom = isinstance(ast, Add), ast.atom
            lines.extend(self.written(add, atom.pred, [self.term(a, bound) for a in atom.args], pad,
                                      (add, atom.pred, len(atom.args)) in twice))
            return True
        if isinstance(ast, Delete) and self.inline(ast):   # del at(obj, _): the tails of one index entry
            atom = ast.atom
            entry, test, _n = self.scan(atom, bound)   # an effect's predicate: keyed by the first argument
            lines += [f"{pad}for _r in {entry}:", f"{pad}    if {test}:"]
            terms = [self.term(atom.args[0], bound)] + [f"_r[{i}]" for i in range(len(atom.args) - 1)]
            lines.extend(self.written(False, atom.pred, terms, pad + "        ", (False, atom.pred, len(atom.args)) in twice))
            return True
        if isinstance(ast, When) and self.inline(ast.cond):
            lines.append(f"{pad}if {self.expr(ast.cond, bound)}:")
            return self.applied(ast.effect, bound, lines, pad + "    ", twice)
        if isinstance(ast, ForEach) and self.inline(ast.where) and self.inline(ast.effect):
            var, inner = ast.var, bound | {ast.var}
            found = self.pinned(var, ast.where)
            if found is None:
                return False
            v = self.name(None) + "_v"
            lines.extend(self.loop(var, found[0], found[1], bound, v, pad))
            pad += "        " if found[1] == "1" else "    "
            self.local[var] = v
            lines.append(f"{pad}if {self.expr(ast.where, inner)}:")
            ok = self.applied(ast.effect, inner, lines, pad + "    ", twice)
            del self.local[var]
            return ok
        return False

    @staticmethod
    def written(add: bool, pred: str, terms: list, pad: str, guard: bool) -> list:
        """Lines that make one fact true (``add``) or false in the overlay ``_wo`` and its index entries
        in ``_w1``/``_w2``, if it is not so already, and list it in ``_wA``/``_wD``: ``State.advance``'s
        loop body for a fact of this shape, decided by the state before the step (``O``, ``F``).
        ``guard``: skip a fact already written (``advance`` is given sets: a fact comes once)."""
        n = len(terms) + 1
        a, b = "_wa", "_wb"
        out = [f"{pad}_wa = {terms[0]}" if terms else None, f"{pad}_wb = {terms[1]}" if n == 3 else None]
        fact = ("(" + ", ".join([repr(pred)] + (["_wa", "_wb"] if n == 3 else ["_wa"] + terms[1:])) + ",)") \
            if n > 1 else f"({pred!r},)"
        done = f" and _wf not in _w{'A' if add else 'D'}" if guard else ""
        out += [f"{pad}_wf = {fact}", f"{pad}_wn = O.get(_wf)",
                f"{pad}if ((_wf not in F) if _wn is None else not _wn){done}:" if add else
                f"{pad}if ((_wf in F) if _wn is None else _wn){done}:",
                f"{pad}    if _wn is None:", f"{pad}        _wo[_wf] = {add}", f"{pad}    else:", f"{pad}        del _wo[_wf]"]
        p = pad + "    "
        if n == 3:
            out += _entry(p, "1", f"({pred!r}, {a})", f"({b},)", add, True) + _entry(p, "2", f"({pred!r}, {b})", a, add, False)
        elif n == 2:
            out += _entry(p, "2", f"({pred!r}, '')", a, add, False) + _entry(p, "1", "_wf", "()", add, True)
        elif n > 3:
            out.append(f"{p}_reindex(_w1, _w2, _B1, _B2, {'(_wf,), ()' if add else '(), (_wf,)'})")
        out.append(f"{p}_w{'A' if add else 'D'}.append(_wf)")
        return [line for line in out if line is not None]


def _entry(pad: str, which: str, key: str, item: str, add: bool, exact: bool) -> list:
    """Lines that add ``item`` to (or take it from) the index entry ``key`` of ``_w1``/``_w2`` (``which``),
    as ``State.advance`` does: an entry of one item becomes the shared empty set, an empty one a shared
    one-item set. ``exact``: the entry's items are the facts' own tails (a by-first entry), so one item
    is the one taken; a by-second entry may list one item for two facts, and is looked in."""
    k, made = (key, key) if key.isidentifier() else ("_wk", f"_wk := {key}")   # a key made once, kept in _wk
    old = f"_B{which}.get({k}, _EMPTY)" if add else f"_B{which}[{k}]"
    lines = [f"{pad}_wv = _w{which}.get({made})", f"{pad}if _wv is None:", f"{pad}    _wv = {old}"]
    if add:
        return lines + [f"{pad}_w{which}[{k}] = (_SETS.get(_ws := _wv | {{{item}}}) or _shared(_ws)) if _wv else"
                        f" _ONES.get({item}) or _one({item})"]
    test = "" if exact else f" and {item} in _wv"
    return lines + [f"{pad}_w{which}[{k}] = _EMPTY if len(_wv) == 1{test} else _SETS.get(_ws := _wv - {{{item}}}) or _shared(_ws)"]


def fact_shapes(asts, loop: bool = False, out: list | None = None) -> list:
    """(add?, predicate, arity, in a loop?) of every fact an effect list writes, scan deletes (whose
    tails are distinct) as out of a loop: what tells ``attempt`` which facts one step might write twice."""
    out = [] if out is None else out
    for ast in asts:
        if isinstance(ast, (Add, Delete)):
            out.append((isinstance(ast, Add), ast.atom.pred, len(ast.atom.args), loop))
        elif isinstance(ast, When):
            fact_shapes([ast.effect], loop, out)
        elif isinstance(ast, ForEach):
            fact_shapes([ast.effect], True, out)
    return out


def twice(shapes: list) -> frozenset:
    """The shapes of facts a step might write twice: written in a loop, or by two statements."""
    seen: dict = {}
    for add, pred, n, loop in shapes:
        k = (add, pred, n)
        seen[k] = seen.get(k, 0) + (2 if loop else 1)
    return frozenset(k for k, count in seen.items() if count > 1)
