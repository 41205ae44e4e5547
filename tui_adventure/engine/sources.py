"""Reading the files authors and importers hand us: bounded, regular files only, UTF-8.

A world or ruleset path can name anything (a FIFO blocks a reader forever,
``/dev/zero`` never ends), and a file can be any size; every loader reads
through here so each of those becomes a one-line error instead.
"""

from __future__ import annotations

import json
from pathlib import Path

WORLD_SIZE_LIMIT = 64 * 1024 * 1024   # far above any world written or imported; bounds the memory of a load


def read_source(path: Path, what: str = "world", limit: int = WORLD_SIZE_LIMIT) -> str:
    """The text of a world or ruleset file: a regular file (a FIFO or a device would block or never
    end), at most ``limit`` bytes, UTF-8. Raises OSError/ValueError with a message for a person."""
    if not path.is_file():
        _not_regular(path)
    with open(path, "rb") as fh:
        data = fh.read(limit + 1)
    if len(data) > limit:
        raise ValueError(f"larger than {limit // (1024 * 1024)} MB; a {what} file is never that big")
    return data.decode("utf-8")


def _not_regular(path: Path):
    if not path.exists():
        raise FileNotFoundError(2, "No such file or directory", str(path))
    raise IsADirectoryError(21, "not a regular file (a folder, a pipe or a device)", str(path))


JSON_DEPTH_LIMIT = 64   # records nest about 8 deep, an imported game about 6; a walk of this depth is always safe


def parse_json(data: str | bytes, allow_nan: bool = True, max_depth: int = JSON_DEPTH_LIMIT):
    """JSON from outside (records, imported games, a client's message), or ValueError saying what is wrong.

    Python's parser fails on deep nesting with RecursionError, and a value a little shallower than that
    parses but breaks whatever walks it next (a copy, a repr, a validator); a number of more than 4,300
    digits raises from int(). So nesting is bounded here, below any of those, and every failure is one
    ValueError. ``allow_nan=False`` refuses NaN and Infinity, which strict JSON does not have.
    """
    def constant(name: str):
        if not allow_nan:
            raise ValueError(f"{name} is not a JSON number")
        return float(name.replace("Infinity", "inf"))

    try:
        value = json.loads(data, parse_constant=constant)
    except RecursionError:
        raise ValueError(f"nested more than {max_depth} levels deep") from None
    except ValueError as exc:
        if str(exc).startswith("Exceeds the limit"):   # int()'s own message tells a user to change Python
            raise ValueError("a number with more than 4300 digits") from None
        raise
    if _brackets(data) > max_depth and _depth(value, max_depth) > max_depth:
        raise ValueError(f"nested more than {max_depth} levels deep")
    return value


def _brackets(data: str | bytes) -> int:
    """An upper bound on the nesting depth, counted in C: most values need no walk at all."""
    if isinstance(data, bytes):
        return data.count(b"[") + data.count(b"{")
    return data.count("[") + data.count("{")


def _depth(value, limit: int) -> int:
    """How deep ``value`` nests (stopping once past ``limit``), without recursion."""
    stack, deepest = [(value, 1)], 0
    while stack:
        item, depth = stack.pop()
        if isinstance(item, dict):
            item = item.values()
        elif not isinstance(item, list):
            continue
        deepest = max(deepest, depth)
        if deepest > limit:
            break
        stack.extend((v, depth + 1) for v in item if isinstance(v, (dict, list)))
    return deepest
