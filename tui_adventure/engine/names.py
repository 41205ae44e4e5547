"""Names that become file and folder names: one check for all of them.

A world's game and experiment, a run name, a model name and an imported
experiment all end up as path parts under a root the user chose, and most of
them come from files nobody vetted (a world, an instances file, a model
registry, a recorded episode). One rule, checked where each name enters,
keeps every write inside its root.
"""

from __future__ import annotations

import re
from pathlib import Path

_NAME_RE = re.compile(r"^[A-Za-z0-9_][A-Za-z0-9_.+:@-]{0,127}$")
RULE = "letters, digits and _ . - + : @, at most 128, not starting with . or -"


class UnsafeName(ValueError):
    """A name that would leave its folder or is not a plain file name; the message says which rule."""


def is_safe_name(name) -> bool:
    return isinstance(name, str) and bool(_NAME_RE.fullmatch(name)) and ".." not in name


def check_name(name, what: str) -> str:
    """``name`` itself if it is one plain path part, else ``UnsafeName`` naming ``what`` it is."""
    if not is_safe_name(name):
        raise UnsafeName(f"{what} {name!r} cannot be a folder name: use {RULE}")
    return name


def inside(root: Path, *parts: str) -> Path:
    """``root/parts...``, checked to resolve under ``root`` (a symlink inside cannot lead out either)."""
    path = Path(root).joinpath(*parts)
    base = Path(root).resolve()
    if not path.resolve().is_relative_to(base):
        raise UnsafeName(f"{path} leads outside {root}")
    return path


def make_id(name: str, taken: set[str], reserved: frozenset | set = frozenset()) -> str:
    """A world id for an imported ``name`` (lowercase letters, digits and _), unique among ``taken``
    (which it joins): importers of other formats name things freely, world files cannot."""
    base = re.sub(r"[^a-z0-9]+", "_", str(name).lower()).strip("_") or "thing"
    if not base[0].isalpha():
        base = "x" + base
    if base in reserved:
        base += "_1"
    out, n = base, 2
    while out in taken:
        out, n = f"{base}_{n}", n + 1
    taken.add(out)
    return out
