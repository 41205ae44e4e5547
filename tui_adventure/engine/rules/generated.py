"""Rule source made into functions: the names a source reads bound as its defaults (``_bound``), each
source registered with ``linecache`` so a traceback through a rule shows its lines; the worlds of one
ruleset share what was compiled once through the ruleset's tables (``generated``, ``shared``).
"""

from __future__ import annotations

import builtins
import itertools
import keyword
import linecache
import re
from types import CodeType
from typing import Callable

from ..facts import _ONES, _SETS, State, _one, _reindex, _shared, pairs
from ..text import Later
from .rule_source import _EMPTY, _MISSING, _Gen, _restore

_CODE: dict = {}   # generated source -> code object: worlds of one ruleset share their compiled rules
CODE_LIMIT = 20_000
_RULES = itertools.count(1)   # a number for each rule's source file name in tracebacks


def _bound(source: str, names, filename: str) -> CodeType:
    """The code of ``source`` with every global its functions read made a default argument: read as a
    local then. Each world execs the code with its own namespace, so a global read would miss what
    the interpreter learnt of another world's namespace and look it up in full every time.

    ``names``: what the namespace will hold (the functions defined before are added). A function's
    defaults are the identifiers of its body, string literals left out, that name one of them or a
    builtin: written once, compiled once (reading the bytecode for its global loads took a fresh
    process's first episode several milliseconds per rule). A name it only reads as an attribute
    is an unused default, never a wrong one: a name a function assigns is its local either way."""
    known = set(names) | _BUILTINS
    lines = source.split("\n")
    heads = [i for i, line in enumerate(lines) if _DEF.match(line)] + [len(lines)]
    for start, end in zip(heads, heads[1:]):
        head = _DEF.match(lines[start])
        assert head is not None   # ``heads`` holds the lines it matches
        name, params = head.groups()
        body = _STRING.sub("", "\n".join(lines[start + 1:end]))
        taken = {p.split("=")[0].strip() for p in params.split(",")}
        reads = sorted(n for n in set(_WORD.findall(body)) & known if n not in taken)
        if reads:
            lines[start] = f"def {name}({params}, " + ", ".join(f"{n}={n}" for n in reads) + "):"
        known.add(name)
    text = "\n".join(lines)
    linecache.cache[filename] = (len(text), None, text.splitlines(True), filename)   # no mtime: kept by checkcache
    return compile(text, filename, "exec")


_BUILTINS = frozenset(n for n in dir(builtins) if not n.startswith("_") and not keyword.iskeyword(n))
_STRING = re.compile(r"'(?:[^'\\\n]|\\.)*'|\"(?:[^\"\\\n]|\\.)*\"")
_WORD = re.compile(r"[A-Za-z_]\w*")
_DEF = re.compile(r"def (\w+)\((.*)\):$")


# what every rule's source may read beside its own names
_FIXED = {"_MISSING": _MISSING, "_restore": _restore, "_EMPTY": _EMPTY, "_ONES": _ONES, "_one": _one, "_SETS": _SETS, "_shared": _shared,
          "_reindex": _reindex, "_State": State, "_Later": Later, "_pairs": pairs}


def _defined(source: str, fname: str, ns: dict, origin: str):
    code = _CODE.get(source)
    if code is None:
        if len(_CODE) >= CODE_LIMIT:
            for old in list(_CODE.values()):
                linecache.cache.pop(old.co_filename, None)
            _CODE.clear()
        code = _CODE[source] = _bound(source, list(ns) + list(_FIXED), f"<rule {next(_RULES)}: {origin}>")
    ns.update(_FIXED)
    exec(code, ns)
    return ns.pop(fname)   # not left in its own globals, which would hold it in a reference cycle


def generated(compiler, kind: str, rule, bound: frozenset, write: Callable, values: dict | None = None,
              origin: str = ""):
    """The function for a rule, its source written by ``write(gen) -> (source, name)`` only the first
    time a compiler of its ruleset and shape asks (``compiler.tables.sources``; ``rule``: the rule's
    trees and texts, hashable). ``values``: names the source reads that are this world's own (an
    action's memo, its messages), not the rule's. A function whose names are all the rule's (no
    builtin, no domain, no ``values``) is the same in every world of that shape: made once and shared
    (``shared``). ``origin`` names the rule in the world's ruleset ("action take, check ..."): its
    source is registered with ``linecache`` under that name, so a traceback through the rule shows
    its lines."""
    tables = compiler.tables
    key = (kind, rule, bound, compiler.shape())
    hit = tables.sources.get(key)
    if hit is None:
        gen = _Gen(compiler)
        source, fname = write(gen)
        fixed = {k: v for k, v, make in gen.recipe if make is None}
        makes = tuple((k, make) for k, _v, make in gen.recipe if make is not None)
        hit = tables.sources.setdefault(key, _Source("".join(gen.helpers) + source, fname, fixed, makes))
        ns = dict(gen.ns)
    elif hit.shared is not None and not values:
        return hit.shared
    else:
        ns = hit.fixed.copy()   # the names every world of the shape binds alike, then the few made per compiler
        for k, make in hit.makes:
            ns[k] = make(compiler)
    if values:
        ns.update(values)
        return _defined(hit.source, hit.name, ns, origin or kind)
    fn = _defined(hit.source, hit.name, ns, origin or kind)
    if not hit.makes:   # nothing made per world: every world of this shape may call this one
        hit.shared = fn
        tables.shared.put(fn, True)
    return fn


class _Source:
    """A rule's generated source, its function's name, the names it reads that every world of its shape
    binds alike (``fixed``) and how each of the others is made from a world's compiler (``makes``);
    ``shared``: the function, once made, when it reads nothing of a world's own."""

    __slots__ = ("source", "name", "fixed", "makes", "shared")

    def __init__(self, source: str, name: str, fixed: dict, makes: tuple) -> None:
        self.source, self.name, self.fixed, self.makes = source, name, fixed, makes
        self.shared: Callable | None = None


def shared(compiler, fn: Callable) -> bool:
    """Whether ``generated`` made ``fn`` for every world of its shape in the compiler's ruleset (no
    closure over one world's builtins or domain): a caller may then keep it for the next world by what
    decided its source."""
    return compiler.tables.shared.get(fn) is not None
