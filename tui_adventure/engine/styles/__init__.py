"""Styles: the Python half of a ruleset family (how the player sees, what texts say).

The rules themselves are data; a style provides what data cannot say well:
which objects are in sight, how a room is described, how input is parsed, and
what the planner may assume about moving around.
"""

from __future__ import annotations


def make_style(name: str, world):
    if name == "classic":
        from .classic import ClassicStyle
        return ClassicStyle(world)
    if name == "clembench":
        from .clembench import ClembenchStyle
        return ClembenchStyle(world)
    raise ValueError(f"unknown ruleset style {name!r} (known: classic, clembench)")


def memo_by_facts(cache: dict, st, make, limit: int = 512):
    """A value that depends on the facts alone, computed once per distinct state."""
    hit = cache.get(st.facts)
    if hit is None:
        hit = make(st)
        if len(cache) >= limit:
            cache.clear()
        cache[st.facts] = hit
    return hit
