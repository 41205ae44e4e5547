"""Reading the files authors and importers hand us: bounded, regular files only, UTF-8.

A world or ruleset path can name anything (a FIFO blocks a reader forever,
``/dev/zero`` never ends), and a file can be any size; every loader reads
through here so each of those becomes a one-line error instead.
"""

from __future__ import annotations

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
