"""A bounded map for the caches worlds of one ruleset share: a long batch keeps the newest."""

from __future__ import annotations

from collections import OrderedDict


class Recent:
    """A bounded map that forgets the least recently used entry first (``limit`` entries)."""

    __slots__ = ("limit", "_d")

    def __init__(self, limit: int) -> None:
        self.limit = limit
        self._d: OrderedDict = OrderedDict()

    def get(self, key):
        hit = self._d.get(key)
        if hit is not None:
            self._d.move_to_end(key)
        return hit

    def put(self, key, value) -> None:
        self._d[key] = value
        self._d.move_to_end(key)
        if len(self._d) > self.limit:
            self._d.popitem(last=False)
