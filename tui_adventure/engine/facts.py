"""The world state: an immutable set of ground facts with two small indexes.

A state is never changed in place. ``apply`` builds the next state from the
previous one by sharing everything but the touched index entries, so undo,
saves and planning keep states around for the price of the facts that changed,
and a state can be a dictionary key in the planner's search.
"""

from __future__ import annotations

import re
from functools import lru_cache
from typing import AbstractSet, Iterable, Iterator

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


_NO_CHANGE: dict = {}     # the overlay of a state that has its own facts and indexes (never written)
_MASK = (1 << 61) - 1
OVERLAY_LIMIT = 48        # facts a derived state may differ from its base by before it gets its own copy


class State:
    """Facts plus indexes by (predicate, first argument) and (predicate, second argument).

    ``cache`` holds values derived from this state alone (what the player can
    see, say); it is filled lazily and never copied to the next state.

    A state made by ``advance`` (a game's step) copies nothing: it keeps its
    base's facts and indexes (``known``, ``b1``, ``b2``) and the few entries
    that differ (``over``: fact -> now true?, ``o1``, ``o2``), because copying
    a world's hundred-odd facts and index entries is most of a fresh game's
    step. ``facts``, ``by1`` and ``by2`` are built on first reading;
    ``has``, ``rest``, ``firsts`` and rule code read through the overlay.
    The hash is the facts' hashes summed, worked out when first asked: a
    derived state keeps the hash of the state it was made from, if known
    (``_hpend``), and adds its change to it then; a replay that never keys a
    memo on a state hashes none.
    """

    __slots__ = ("known", "over", "b1", "o1", "b2", "o2", "_facts", "_by1", "_by2", "cache", "delta",
                 "_hash", "_base", "_hpend", "b12")
    _facts: frozenset | None   # None for a derived state (it reads its base's)
    _by1: dict | None
    _by2: dict | None
    _base: State | None
    _hpend: int | None
    _hash: int | None
    b12: dict | None

    def __init__(self, facts: frozenset, by1: dict, by2: dict, delta=None, parent: "State | None" = None,
                 over: dict = _NO_CHANGE, o1: dict = _NO_CHANGE, o2: dict = _NO_CHANGE) -> None:
        """A state of ``facts`` indexed by ``by1`` and ``by2``; or, with ``parent`` (the state it is made
        from, as ``advance`` makes it), one that reads through the facts and indexes of the parent's
        base (``facts``, ``by1``, ``by2``) and differs from them by ``over``, ``o1`` and ``o2``.
        ``delta``: (added, removed) from the state it was made from (sets, or tuples from an action's step)."""
        self.known, self.b1, self.b2 = facts, by1, by2
        self.over, self.o1, self.o2 = over, o1, o2
        self.cache: dict = {}
        self.delta = delta
        self._hash = None
        if parent is None:
            self._facts, self._by1, self._by2 = facts, by1, by2
            self._base = None    # for a derived state: the state whose facts and indexes it reads through
            self._hpend = None   # for a derived state: the hash of the state it was made from, if known then
            self.b12 = None      # facts of three or more places by their first two (see pairs), made when first asked
        else:
            self._facts = self._by1 = self._by2 = None
            base = parent._base
            self._base = parent if base is None else base
            self._hpend = parent._hash
            self.b12 = parent.b12

    @classmethod
    def of(cls, facts: Iterable[Fact]) -> "State":
        facts = frozenset(facts)
        by1: dict = {}
        by2: dict = {}
        for f in facts:   # into growing sets, frozen once: a union per fact copied every set it grew
            n = len(f)
            if n < 2:
                continue
            if n == 2:
                by2.setdefault((f[0], ""), set()).add(f[1])
            by1.setdefault((f[0], f[1]), set()).add(f[2:])
            if n >= 3:
                by2.setdefault((f[0], f[2]), set()).add(f[1])
        return cls(facts, {k: frozenset(v) for k, v in by1.items()}, {k: frozenset(v) for k, v in by2.items()})

    # reading ---------------------------------------------------------------
    @property
    def facts(self) -> frozenset:
        f = self._facts
        if f is None:   # every overlay entry differs from the base: flipping them gives the facts
            f = self._facts = frozenset(self.over) ^ self.known
        return f

    @property
    def by1(self) -> dict:
        d = self._by1
        if d is None:
            d = self._by1 = self.b1.copy()
            d.update(self.o1)
        return d

    @property
    def by2(self) -> dict:
        d = self._by2
        if d is None:
            d = self._by2 = self.b2.copy()
            d.update(self.o2)
        return d

    @property
    def key(self):
        """What a memo across states keys on: the facts once built (a dict keeps no indexes alive
        by them), else the derived state itself (its overlay is small, its hash a sum)."""
        f = self._facts
        return self if f is None else f

    def has(self, fact: Fact) -> bool:
        o = self.over
        if fact in o:
            return o[fact]
        return fact in self.known

    __contains__ = has

    def __iter__(self) -> Iterator[Fact]:
        return iter(self.facts)

    def __len__(self) -> int:
        if self._facts is not None:
            return len(self._facts)
        return len(self.known) + sum(1 if v else -1 for v in self.over.values())

    def __repr__(self) -> str:
        return f"State({len(self)} facts)"   # the facts themselves: sorted(state)

    def __eq__(self, other: object) -> bool:
        if self is other:
            return True
        if not isinstance(other, State):
            return False
        if self._base is not None and self._base is other._base:
            return self.over == other.over   # an overlay holds exactly the differences from its base
        return self.facts == other.facts

    def __hash__(self) -> int:
        h = self._hash
        if h is None:
            base = self._base
            if base is None:
                h = sum(map(hash, self.facts)) & _MASK
            else:
                h = self._hpend
                if h is not None:   # the state it was made from, and its change (delta: exactly the change)
                    added, removed = self.delta
                    for f in added:
                        h += hash(f)
                    for f in removed:
                        h -= hash(f)
                else:   # the base, and every fact the overlay flips
                    h = hash(base)
                    for f, now in self.over.items():
                        h += hash(f) if now else -hash(f)
                h &= _MASK
            self._hash = h
        return h

    def adopt(self, other: "State") -> None:
        """Read through ``other``'s facts, indexes and cache from now on (``other`` equal to this state).
        A walk that reaches a known state by a new way keeps the new object (a memo's next state, with
        the delta of that way): adopting the known one's parts lets its own overlay go, which a
        trainer's long run would otherwise keep alive for every such way (and Python's collector walk)."""
        self.known, self.over, self._base, self._facts = other.known, other.over, other._base, other._facts
        self.b1, self.o1, self.b2, self.o2, self.b12 = other.b1, other.o1, other.b2, other.o2, other.b12
        self._by1, self._by2, self.cache = other._by1, other._by2, other.cache

    def __reduce__(self):
        return State, (self.facts, self.by1, self.by2, self.delta)

    def rest(self, pred: str, first: str) -> frozenset:
        """The argument tails of every ``pred(first, ...)`` fact."""
        k = (pred, first)
        v = self.o1.get(k)
        return self.b1.get(k, _EMPTY) if v is None else v

    def seconds(self, pred: str, first: str) -> list:
        """Every y with ``pred(first, y)``."""
        return [r[0] for r in self.rest(pred, first) if r]

    def firsts(self, pred: str, second: str) -> frozenset:
        """Every x with ``pred(x, second, ...)``."""
        k = (pred, second)
        v = self.o2.get(k)
        return self.b2.get(k, _EMPTY) if v is None else v

    def having(self, pred: str) -> frozenset:
        """Every x with the one-place fact ``pred(x)``."""
        return self.firsts(pred, "")

    # changing --------------------------------------------------------------
    def apply(self, adds: AbstractSet, dels: AbstractSet) -> "State":
        """The next state with its own facts and indexes (a planner keeps and compares many)."""
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
        wide = False   # a fact of three or more places changed: the by-first-two index is made again
        for f, add in [(f, False) for f in dels] + [(f, True) for f in adds]:
            if len(f) >= 2:   # a deleted fact is in the state, so its index entries exist
                k1, item1, k2, item2 = _keys(f)
                v = by1.get(k1, _EMPTY)
                by1[k1] = v | {item1} if add else v - {item1}
                v = by2.get(k2, _EMPTY)
                by2[k2] = v | {item2} if add else v - {item2}
                wide = wide or len(f) > 3
        # One copy of the facts: the small change set is copied into a frozenset and the big
        # state merged into it (``facts ^ change`` would add the big set's facts one by one).
        if adds and dels:
            new = frozenset(adds | dels) ^ facts   # dels are in the facts, adds are not
        elif adds:
            new = facts | adds
        else:
            new = facts - dels
        out = State(new, by1, by2, (adds, dels))
        if not wide:
            out.b12 = self.b12
        return out

    def advance(self, adds: AbstractSet, dels: AbstractSet) -> "State":
        """As ``apply`` (the same facts, indexes and delta), made without copying the facts: a game's
        step. Past ``OVERLAY_LIMIT`` changes from its base the new state gets its own copy.

        Only an action's effects come here: rule code (``logic.Compiler.changing``) reads a fact of
        a predicate no effect names from the base alone, never from an overlay. An action's
        generated step makes its next state as this does, per fact (``rule_source._Gen.written``):
        a change here is a change there. A fact already as the change would leave it is dropped (as
        ``apply`` does), checked against the state before any of the change, so a fact both deleted
        and added ends as ``apply`` has it; the delta is the change less those facts. Index entries
        of one item and equal entries are shared between states (``_one``, ``_shared``)."""
        if not adds and not dels:
            return self
        over = self.over
        if len(over) + len(adds) + len(dels) > OVERLAY_LIMIT:
            return self.apply(adds, dels)
        known, b1, b2 = self.known, self.b1, self.b2
        o, o1, o2 = over.copy(), self.o1.copy(), self.o2.copy()
        added: set = set()
        removed: set = set()
        for f, add in [(f, False) for f in dels] + [(f, True) for f in adds]:
            now = over.get(f)   # None: as in the base
            if (f in known if now is None else now) == add:
                continue   # already so
            if now is None:
                o[f] = add
            else:
                del o[f]   # back to the base
            (added if add else removed).add(f)
            if len(f) >= 2:
                k1, item1, k2, item2 = _keys(f)
                o1[k1] = _entry(o1, b1, k1, item1, add)
                o2[k2] = _entry(o2, b2, k2, item2, add)
        if not added and not removed:
            return self
        return State(known, b1, b2, (added, removed), self, o, o1, o2)

    def diff(self, other: "State") -> tuple[frozenset, frozenset]:
        """(added, removed) going from ``self`` to ``other``."""
        return other.facts - self.facts, self.facts - other.facts


def empty_older(caches: list) -> None:
    """Past a memo's limit: empty the states' caches listed in the older half of ``caches`` (listed in the
    order they were written to, once a write) and not written since, and keep the newer half listed.

    A random walk keeps meeting the states it met lately; emptying every cache at once made the next
    few thousand steps all new again (a round in ten of a trainer's long run). A cache with anything in
    it stays listed, so memory stays bounded by the limit."""
    half = len(caches) // 2
    newer = caches[half:]
    recent = {id(c) for c in newer}
    for c in caches[:half]:
        if id(c) not in recent:
            c.clear()
    caches[:] = newer


def pairs(st: State) -> dict:
    """(predicate, first, second) -> the tails of every fact of three or more places, for ``st`` and
    the state it reads through: an action's step reads an ``exit(here, dir, _)`` by one lookup, not
    a scan of every exit of the room. Only predicates no effect names are read by it (so a derived
    state reads its base's, as rule code reads ``b1``), and states made from this one share it
    until a fact of that size changes (``apply``)."""
    base = st._base if st._base is not None else st
    d = base.b12
    if d is None:
        grown: dict = {}
        for f in base.facts:
            if len(f) > 3:
                grown.setdefault(f[:3], set()).add(f[3:])
        d = base.b12 = {k: frozenset(v) for k, v in grown.items()}
    st.b12 = d
    return d


_ONES: dict = {}            # item -> frozenset({item}): index entries of one item, shared by every state


_SETS: dict = {}            # frozenset -> itself: index entries of more items, shared as the one-item ones are


def _shared(s: frozenset) -> frozenset:
    """``s``, or the equal index entry made before: a random walk's states hold the same few hundred
    entries (what is in each room) thousands of times, and each one kept is a container the cyclic
    collector walks at every full collection (``_SETS.get(s) or _shared(s)`` where it is hot)."""
    hit = _SETS.get(s)
    if hit is None:
        if len(_SETS) >= 100_000:   # at most 100,000 entries
            _SETS.clear()
        hit = _SETS[s] = s
    return hit


def _one(item) -> frozenset:
    """The one-item index entry {item}, made once: states share it as they share the empty one."""
    s = _ONES.get(item)
    if s is None:
        if len(_ONES) >= 100_000:   # at most 100,000 entries
            _ONES.clear()
        s = _ONES[item] = frozenset((item,))
    return s


def _keys(f: Fact) -> tuple:
    """(by-first key, its item, by-second key, its item) of a fact of two or more places."""
    if len(f) == 2:
        return f, (), (f[0], ""), f[1]
    return f[:2], f[2:], (f[0], f[2]), f[1]


def _entry(o: dict, b: dict, k, item, add: bool) -> frozenset:
    """Index entry ``k`` with ``item`` added or taken out: the overlay's ``o`` value, else the base's ``b``."""
    v = o.get(k)
    if v is None:
        v = b.get(k, _EMPTY)
    if add:
        return (_SETS.get(w := v | {item}) or _shared(w)) if v else _ONES.get(item) or _one(item)
    w = v - {item}
    return (_SETS.get(w) or _shared(w)) if w else _EMPTY


def _reindex(o1: dict, o2: dict, b1: dict, b2: dict, adds, dels) -> None:
    """Write into the overlays ``o1``/``o2`` the index entries of facts of four or more places (the
    usual shapes are in ``State.advance``); an entry's old value is the overlay's, else
    the base's (``b1``/``b2``)."""
    for f, add in [(f, False) for f in dels] + [(f, True) for f in adds]:
        for o, b, k, item in ((o1, b1, f[:2], f[2:]), (o2, b2, (f[0], f[2]), f[1])):
            v = o.get(k)
            if v is None:
                v = b.get(k, _EMPTY)
            o[k] = v | {item} if add else v - {item}
