"""Bounded maps, and the tables in which the worlds of one ruleset share what its rules compile to."""

from __future__ import annotations

import itertools
import threading
from collections import OrderedDict


class Recent:
    """A bounded map that forgets the oldest entry first (``limit`` entries). Safe to share between
    threads: a read is one dict lookup, and each write holds the map's lock."""

    __slots__ = ("limit", "_d", "_lock")

    def __init__(self, limit: int) -> None:
        self.limit = limit
        self._d: OrderedDict = OrderedDict()
        self._lock = threading.Lock()

    def get(self, key):
        return self._d.get(key)

    def put(self, key, value) -> None:
        with self._lock:
            self._d[key] = value
            if len(self._d) > self.limit:
                self._d.popitem(last=False)

    def setdefault(self, key, value):
        """The value kept for ``key``, ``value`` kept first if there is none."""
        with self._lock:
            hit = self._d.get(key)
            if hit is None:
                hit = self._d[key] = value
                if len(self._d) > self.limit:
                    self._d.popitem(last=False)
            return hit

    def clear(self) -> None:
        with self._lock:
            self._d.clear()

    def __len__(self) -> int:
        return len(self._d)


_SHAPE_NUMBERS = itertools.count(1)   # a shape's number, unique in the process (see RuleTables.shape)


class RuleTables:
    """What the worlds of one ruleset share of its compiled rules, owned by the ruleset
    (``RulesetSpec.tables``): it lives as long as the ruleset is held and goes with it, each table is
    bounded, and every key is made of values and objects (action definitions, rule trees), never of
    ids. A world drawn each episode from one ruleset compiles nothing an earlier one compiled.

    The tables are read and filled by every thread that loads or plays a world of the ruleset; each
    table is a ``Recent`` (a read is one lookup, a write holds its lock), and a value in them never changes once put, so
    two threads that miss alike compute the same value and one of them keeps it."""

    SOURCES = 10_000   # generated rule sources (a ruleset has a few hundred rules per shape)

    def __init__(self) -> None:
        self.shapes = Recent(1_024)          # (changing predicates, builtin names) -> the shape's number
        self.sources = Recent(self.SOURCES)  # (kind, rule, bound names, shape) -> generated.Source
        self.shared = Recent(self.SOURCES)   # a generated function every world of its shape calls -> True
        self.steps = Recent(4_096)           # (an ActionSpec, where key, shape) -> its step
        self.compiled = Recent(512)          # (a definition, builtin names, text functions) -> True: it compiles
        self.checks = Recent(10_000)         # (a check's text, bound names) -> what it reads (ruleset._check_shape)
        self.reads = Recent(4_096)           # (an ActionSpec, shape, builtin reads) -> planning.touches' answer
        self.layouts = Recent(256)           # the actions' specs -> their parsers.patterns.Layout
        self.proofs = Recent(256)            # (the actions' specs, shape, sight) -> planning.sight's ties

    def shape(self, changing: frozenset | None, builtin_names: frozenset) -> int:
        """One number for what besides a rule decides its compiled source in this ruleset: the
        predicates its actions change and the style's builtins. Unique in the process, so a table
        keyed by it never mixes rulesets."""
        key = (changing, builtin_names)
        number = self.shapes.get(key)
        return number if number is not None else self.shapes.setdefault(key, next(_SHAPE_NUMBERS))
