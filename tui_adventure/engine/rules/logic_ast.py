"""The rule language's syntax: typed, immutable nodes, the parser that builds them, and one walker.

Rulesets and world files write conditions and effects as text
(``on(obj, s) and not open(c)``, ``when open(c): add seen(c)``). Parsing gives
a tree of the node types below, which ``logic.Compiler`` turns into closures.
Named nodes, rather than positional tuples, let every reader of a tree (the
compiler, the ruleset's checks, the world file's checks) say what it means,
and the one walker (``walk``) spares each of them its own recursion.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, fields, replace
from functools import lru_cache
from typing import Iterator, Union, overload

_TOKEN_RE = re.compile(r"\s*(?:(==|!=|<=|>=|<|>|[(),:;])|([A-Za-z_][\w-]*)|(-?\d+))")
COMPARISONS = ("==", "!=", "<", "<=", ">", ">=")
_KEYWORDS = {"not", "and", "or", "exists", "forall", "where", "when", "add", "del", "count", "true", "false"}


class LogicError(ValueError):
    """A rule text that does not parse or names something unknown; the message says which."""


# -- conditions ------------------------------------------------------------------------
@dataclass(frozen=True, slots=True)
class Atom:
    """``pred(a, b)``: a fact; ``_`` in an argument matches anything."""
    pred: str
    args: tuple[str, ...]


@dataclass(frozen=True, slots=True)
class Const:
    """``true`` or ``false``."""
    value: bool


@dataclass(frozen=True, slots=True)
class Not:
    body: "Cond"


@dataclass(frozen=True, slots=True)
class And:
    left: "Cond"
    right: "Cond"


@dataclass(frozen=True, slots=True)
class Or:
    left: "Cond"
    right: "Cond"


@dataclass(frozen=True, slots=True)
class Compare:
    """``x == y`` / ``x != y`` between names (parameters, variables or ids)."""
    op: str
    left: str
    right: str


@dataclass(frozen=True, slots=True)
class Count:
    """``count(held(_)) < 2``: how many facts match ``atom``, compared with a number."""
    atom: Atom
    op: str
    number: int


@dataclass(frozen=True, slots=True)
class Exists:
    """``exists r: body``: some value of ``var`` makes ``body`` true."""
    var: str
    body: "Cond"


@dataclass(frozen=True, slots=True)
class Forall:
    """``forall x: body`` (a condition): every id makes ``body`` true."""
    var: str
    body: "Cond"


Cond = Union[Atom, Const, Not, And, Or, Compare, Count, Exists, Forall]


# -- effects ---------------------------------------------------------------------------
@dataclass(frozen=True, slots=True)
class Add:
    atom: Atom


@dataclass(frozen=True, slots=True)
class Delete:
    """``del on(obj, _)``: ``_`` deletes every matching fact."""
    atom: Atom


@dataclass(frozen=True, slots=True)
class When:
    """``when cond: effect``."""
    cond: Cond
    effect: "Effect"


@dataclass(frozen=True, slots=True)
class ForEach:
    """``forall v where cond: effect`` (an effect): the effect for every ``var`` that meets ``cond``."""
    var: str
    where: Cond
    effect: "Effect"


Effect = Union[Add, Delete, When, ForEach]
Node = Union[Cond, Effect]
_QUANTIFIERS = (Exists, Forall, ForEach)


# -- the one walker ------------------------------------------------------------------------
_FIELD_NAMES: dict = {}


def children(node: Node) -> tuple:
    """The sub-nodes of ``node``, in source order."""
    names = _FIELD_NAMES.get(type(node))
    if names is None:   # dataclasses.fields() is slow, and a world's load walks its rules thousands of times
        names = _FIELD_NAMES[type(node)] = tuple(f.name for f in fields(node))
    return tuple(v for v in (getattr(node, n) for n in names) if isinstance(v, _NODE_TYPES))


def walk(node: Node, bound: frozenset = frozenset()) -> Iterator[tuple[Node, frozenset]]:
    """Every node of the tree, parents first, each with the variables quantifiers bind at it."""
    yield node, bound
    inner = bound | {node.var} if isinstance(node, _QUANTIFIERS) else bound
    for child in children(node):
        yield from walk(child, inner)


def walk_all(nodes) -> Iterator[tuple[Node, frozenset]]:
    for node in nodes:
        yield from walk(node)


def map_children(node: Node, fn) -> Node:
    """``node`` with each sub-node replaced by ``fn(sub-node)``."""
    changes = {f.name: fn(getattr(node, f.name)) for f in fields(node)
               if isinstance(getattr(node, f.name), _NODE_TYPES)}
    return replace(node, **changes) if changes else node


# -- what a tree mentions --------------------------------------------------------------------
def atoms_in(tree) -> list[Atom]:
    """Every atom of a condition or of a list of effects (the facts it reads or writes)."""
    if isinstance(tree, list):
        return [a for node in tree for a in _atoms(node)]
    return list(_atoms(tree))


def names_in(tree) -> set[str]:
    """Every name a tree uses that no quantifier inside it binds (which parameters a check needs)."""
    if isinstance(tree, list):
        return set().union(*map(_names, tree))
    return set(_names(tree))


# Trees are frozen, and loading a world asks these of the same few hundred rule trees again and
# again (a batch loads a world per episode): each tree is walked once per process.
@lru_cache(maxsize=16384)
def _atoms(node: Node) -> tuple:
    return tuple(n for n, _ in walk(node) if isinstance(n, Atom))


@lru_cache(maxsize=16384)
def _names(node: Node) -> frozenset:
    out: set[str] = set()
    for n, bound in walk(node):
        if isinstance(n, Atom):
            out.update(a for a in n.args if a not in bound)
        elif isinstance(n, Compare):
            out.update(a for a in (n.left, n.right) if a not in bound)
    return frozenset(out)


def effect_predicates(effects) -> set[str]:
    """Predicates some effect adds or deletes: everything else is fixed for a whole game."""
    return {n.atom.pred for n, _ in walk_all(effects) if isinstance(n, (Add, Delete))}


def expanded_predicates(cond: Cond, macros: dict) -> set[str]:
    """Predicates a condition reads, looking through macros (``define:`` of a ruleset)."""
    out: set[str] = set()
    for atom in atoms_in(cond):
        if atom.pred in macros:
            out |= expanded_predicates(macros[atom.pred][1], macros)
        else:
            out.add(atom.pred)
    return out


def conjuncts(cond: Cond) -> Iterator[Cond]:
    """The parts of a chain of ``and``."""
    if isinstance(cond, And):
        yield from conjuncts(cond.left)
        yield from conjuncts(cond.right)
    else:
        yield cond


# -- rewriting (macro expansion) ------------------------------------------------------------
@overload
def substitute(node: Cond, mapping: dict) -> Cond: ...
@overload
def substitute(node: Effect, mapping: dict) -> Effect: ...
def substitute(node: Node, mapping: dict) -> Node:
    """Rename names (a macro's parameters to a call's arguments); a quantifier's own variable is left alone."""
    if isinstance(node, Atom):
        return Atom(node.pred, tuple(mapping.get(a, a) for a in node.args))
    if isinstance(node, Compare):
        return Compare(node.op, mapping.get(node.left, node.left), mapping.get(node.right, node.right))
    if isinstance(node, _QUANTIFIERS):
        mapping = {k: v for k, v in mapping.items() if k != node.var}
    return map_children(node, lambda child: substitute(child, mapping))


_fresh_counter = [0]


@overload
def fresh(node: Cond) -> Cond: ...
@overload
def fresh(node: Effect) -> Effect: ...
def fresh(node: Node) -> Node:
    """A macro body with its quantified variables renamed apart from any caller's names (hygiene)."""
    if isinstance(node, (Exists, Forall)):
        _fresh_counter[0] += 1
        new = f"{node.var}#{_fresh_counter[0]}"
        return type(node)(new, fresh(substitute(node.body, {node.var: new})))
    return map_children(node, fresh)


_NODE_TYPES = (Atom, Const, Not, And, Or, Compare, Count, Exists, Forall, Add, Delete, When, ForEach)


# -- parsing ---------------------------------------------------------------------------------
MAX_TOKENS = 2_000   # a rule a person writes is a line or two; a longer one is refused, not compiled


def tokenize(text: str) -> list[str]:
    out: list[str] = []
    pos = 0
    text = text.rstrip()
    if len(text) > 20 * MAX_TOKENS:
        raise LogicError(f"the rule is {len(text):,} characters long; split it into checks or definitions")
    while pos < len(text):
        m = _TOKEN_RE.match(text, pos)
        if not m or m.end() == pos:
            raise LogicError(f"unexpected {text[pos:pos + 10]!r} in {text!r}")
        out.append(m.group(1) or m.group(2) or m.group(3))
        if len(out) > MAX_TOKENS:
            raise LogicError(f"the rule has more than {MAX_TOKENS:,} words and symbols; split it into checks"
                             f" or definitions: {text[:60]!r}...")
        pos = m.end()
    return out


MAX_DEPTH = 100   # nesting a rule needs is a handful; deeper text is refused, not a RecursionError


class _Parser:
    """Recursive descent over the token list."""

    def __init__(self, text: str) -> None:
        self.text = text
        self.toks = tokenize(text)
        self.i = 0
        self.depth = 0

    def peek(self) -> str | None:
        return self.toks[self.i] if self.i < len(self.toks) else None

    def take(self, want: str | None = None) -> str:
        tok = self.peek()
        if tok is None or (want is not None and tok != want):
            raise LogicError(f"expected {repr(want) if want else 'more'} at the end of {self.text!r}" if tok is None
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

    def deeper(self) -> None:
        self.depth += 1
        if self.depth > MAX_DEPTH:
            raise LogicError(f"the rule is nested more than {MAX_DEPTH} levels deep; split it: {self.text[:80]!r}...")

    # conditions
    def cond(self) -> Cond:
        left = self.conj()
        while self.peek() == "or":
            self.take()
            left = Or(left, self.conj())
        return left

    def conj(self) -> Cond:
        left = self.neg()
        while self.peek() == "and":
            self.take()
            left = And(left, self.neg())
        return left

    def neg(self) -> Cond:
        if self.peek() == "not":
            self.take()
            self.deeper()
            body = self.neg()
            self.depth -= 1
            return Not(body)
        return self.primary()

    def primary(self) -> Cond:
        tok = self.peek()
        if tok == "(":
            self.take()
            self.deeper()
            inner = self.cond()
            self.depth -= 1
            self.take(")")
            return inner
        if tok in ("exists", "forall"):
            self.take()
            var = self.name()
            self.take(":")
            self.deeper()
            body = self.cond()
            self.depth -= 1
            return Exists(var, body) if tok == "exists" else Forall(var, body)
        if tok in ("true", "false"):
            self.take()
            return Const(tok == "true")
        if tok == "count":
            self.take()
            self.take("(")
            atom = self.atom()
            self.take(")")
            op = self.take()
            if op not in COMPARISONS:
                raise LogicError(f"count(...) needs a comparison, found {op!r} in {self.text!r}")
            num = self.take()
            if not re.fullmatch(r"-?\d+", num):
                raise LogicError(f"count(...) {op} needs a number in {self.text!r}")
            return Count(atom, op, int(num))
        first = self.name()
        if self.peek() == "(":
            self.i -= 1
            return self.atom()
        op = self.take()
        if op not in ("==", "!="):
            raise LogicError(f"expected '(' or a comparison after {first!r} in {self.text!r}")
        return Compare(op, first, self.name())

    def atom(self) -> Atom:
        pred = self.name()
        self.take("(")
        args: list[str] = []
        if self.peek() != ")":
            args.append(self.term())
            while self.peek() == ",":
                self.take()
                args.append(self.term())
        self.take(")")
        return Atom(pred, tuple(args))

    def term(self) -> str:
        tok = self.take()
        if not re.match(r"[A-Za-z_0-9-]", tok):
            raise LogicError(f"expected an argument but found {tok!r} in {self.text!r}")
        return tok

    # effects
    def effects(self) -> list[Effect]:
        out = [self.effect()]
        while self.peek() == ";":
            self.take()
            out.append(self.effect())
        return out

    def effect(self) -> Effect:
        tok = self.take()
        if tok == "add":
            return Add(self.atom())
        if tok == "del":
            return Delete(self.atom())
        self.deeper()
        try:
            if tok == "when":
                cond = self.cond()
                self.take(":")
                return When(cond, self.effect())
            if tok == "forall":
                var = self.name()
                self.take("where")
                cond = self.cond()
                self.take(":")
                return ForEach(var, cond, self.effect())
        finally:
            self.depth -= 1
        raise LogicError(f"an effect starts with add, del, when or forall, not {tok!r}: {self.text!r}")


@lru_cache(maxsize=4096)
def parse_condition(text: str) -> Cond:
    """Cached: the trees are frozen, and every world of a ruleset parses the same few hundred texts
    (a batch loads a world per episode; parsing was a third of loading one)."""
    p = _Parser(text)
    ast = p.cond()
    p.done()
    return ast


def parse_effects(text: str) -> list[Effect]:
    return list(_parse_effects(text))


@lru_cache(maxsize=4096)
def _parse_effects(text: str) -> tuple:
    p = _Parser(text)
    ast = p.effects()
    p.done()
    return tuple(ast)
