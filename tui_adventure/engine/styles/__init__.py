"""Styles: the Python half of a ruleset family (how the player sees, what texts say).

The rules themselves are data; a style provides what data cannot say well:
which objects are in sight, how a room is described, how input is parsed, and
what the planner may assume about moving around.
"""

from __future__ import annotations

from .base import CommandParser, Exit, Style, memo_by_facts

__all__ = ["CommandParser", "Exit", "Style", "make_style", "memo_by_facts"]


def make_style(name: str, world) -> Style:
    if name == "classic":
        from .classic import ClassicStyle
        return ClassicStyle(world)
    if name == "clembench":
        from .clembench import ClembenchStyle
        return ClembenchStyle(world)
    raise ValueError(f"unknown ruleset style {name!r} (known: classic, clembench)")
