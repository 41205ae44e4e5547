"""The world state: an immutable set of ground facts with two small indexes.

A state is never changed in place. ``apply`` builds the next state from the
previous one by sharing everything but the touched index entries, so undo,
saves and planning keep states around for the price of the facts that changed,
and a state can be a dictionary key in the planner's search.
"""

from __future__ import annotations

import re
from functools import lru_cache
from typing import Iterable, Iterator

Fact = tuple  # ("on", "book", "table"): predicate first, then the arguments

_FACT_RE = re.compile(r"^\s*([A-Za-z_][\w-]*)\s*\(\s*(.*?)\s*\)\s*$")
_EMPTY: frozenset = frozenset()


@lru_cache(maxsize=65536)
def parse_fact(text: str) -> Fact:
    """``"on(book1, table1)"`` -> ``("on", "book1", "table1")``; raises ValueError.

    Cached: the worlds of one experiment repeat most of their facts, and a batch loads one per episode."""
    m = _FACT_RE.match(text)
    if not m:
        raise ValueError(f"not a fact: {text!r} (write it as pred(arg1,arg2))")
    args = [a.strip() for a in m.group(2).split(",")] if m.group(2) else []
    if any(not a for a in args):
        raise ValueError(f"empty argument in fact {text!r}")
    return (m.group(1), *args)


def format_fact(fact: Fact) -> str:
    return f"{fact[0]}({','.join(fact[1:])})"


class State:
    """Facts plus indexes by (predicate, first argument) and (predicate, second argument).

    ``cache`` holds values derived from this state alone (what the player can
    see, say); it is filled lazily and never copied to the next state.
    """

    __slots__ = ("facts", "by1", "by2", "cache", "delta")

    def __init__(self, facts: frozenset, by1: dict, by2: dict, delta=None) -> None:
        self.facts = facts
        self.by1 = by1
        self.by2 = by2
        self.cache: dict = {}
        self.delta = delta  # (added, removed) from the state this one was made from

    @classmethod
    def of(cls, facts: Iterable[Fact]) -> "State":
        facts = frozenset(facts)
        by1: dict = {}
        by2: dict = {}
        for f in facts:
            _index_add(by1, by2, f)
        return cls(facts, by1, by2)

    def __contains__(self, fact: Fact) -> bool:
        return fact in self.facts

    def __iter__(self) -> Iterator[Fact]:
        return iter(self.facts)

    def __len__(self) -> int:
        return len(self.facts)

    def __eq__(self, other: object) -> bool:
        return isinstance(other, State) and self.facts == other.facts

    def __hash__(self) -> int:
        return hash(self.facts)

    def rest(self, pred: str, first: str) -> frozenset:
        """The argument tails of every ``pred(first, ...)`` fact."""
        return self.by1.get((pred, first), _EMPTY)

    def seconds(self, pred: str, first: str) -> list:
        """Every y with ``pred(first, y)``."""
        return [r[0] for r in self.by1.get((pred, first), _EMPTY) if r]

    def firsts(self, pred: str, second: str) -> frozenset:
        """Every x with ``pred(x, second, ...)``."""
        return self.by2.get((pred, second), _EMPTY)

    def having(self, pred: str) -> frozenset:
        """Every x with the one-place fact ``pred(x)``."""
        return self.by2.get((pred, ""), _EMPTY)

    def apply(self, adds: set, dels: set) -> "State":
        facts = self.facts
        dels = dels & facts if dels else _EMPTY
        adds = adds - facts if adds else _EMPTY
        if adds and dels:
            # a fact both deleted and added stays (add wins, as in PDDL)
            dels = dels - adds
        if not adds and not dels:
            return self
        # An emptied index entry is kept as an empty set, not deleted: a dict with no deleted
        # slots is copied by one memcpy, and every reader goes through get() anyway.
        by1 = self.by1.copy()
        by2 = self.by2.copy()
        for f in dels:   # every deleted fact is in the state, so its index entries exist
            n = len(f)
            if n == 3:   # the usual shape, written out: a step's cost is mostly these few updates
                p, a, b = f
                k = (p, a)
                by1[k] = by1[k] - {(b,)}
                k = (p, b)
                by2[k] = by2[k] - {a}
            elif n == 2:
                k = (f[0], "")
                by2[k] = by2[k] - {f[1]}
                k = f
                by1[k] = by1[k] - {()}
            elif n > 3:
                k = f[:2]
                by1[k] = by1[k] - {f[2:]}
                k = (f[0], f[2])
                by2[k] = by2[k] - {f[1]}
        get1 = by1.get
        get2 = by2.get
        for f in adds:
            n = len(f)
            if n == 3:
                p, a, b = f
                k = (p, a)
                by1[k] = get1(k, _EMPTY) | {(b,)}
                k = (p, b)
                by2[k] = get2(k, _EMPTY) | {a}
            elif n == 2:
                k = (f[0], "")
                by2[k] = get2(k, _EMPTY) | {f[1]}
                k = f
                by1[k] = get1(k, _EMPTY) | {()}
            elif n > 3:
                k = f[:2]
                by1[k] = get1(k, _EMPTY) | {f[2:]}
                k = (f[0], f[2])
                by2[k] = get2(k, _EMPTY) | {f[1]}
        # One copy of the facts: the small change set is copied into a frozenset and the big
        # state merged into it (``facts ^ change`` would add the big set's facts one by one).
        if adds and dels:
            new = frozenset(adds | dels) ^ facts   # dels are in the facts, adds are not
        elif adds:
            new = facts | adds
        else:
            new = facts - dels
        return State(new, by1, by2, (adds, dels))

    def diff(self, other: "State") -> tuple[frozenset, frozenset]:
        """(added, removed) going from ``self`` to ``other``."""
        return other.facts - self.facts, self.facts - other.facts

    def sorted_facts(self) -> list[str]:
        return sorted(format_fact(f) for f in self.facts)


def _index_add(by1: dict, by2: dict, f: Fact) -> None:
    n = len(f)
    if n < 2:
        return
    if n == 2:
        # one-place facts are listed by predicate: firsts("held", "") is every held thing
        k = (f[0], "")
        by2[k] = by2.get(k, _EMPTY) | {f[1]}
    k = (f[0], f[1])
    by1[k] = by1.get(k, _EMPTY) | {f[2:]}
    if n >= 3:
        k2 = (f[0], f[2])
        by2[k2] = by2.get(k2, _EMPTY) | {f[1]}
