"""``--shard I/N``: which episodes one of N machines plays, the same answer on every machine."""

from __future__ import annotations

import hashlib
from pathlib import Path


def parse_shard(text: str | None) -> tuple[int, int] | None:
    """``I/N`` (1 <= I <= N) as (I, N); ValueError with the form it takes."""
    if text is None:
        return None
    first, sep, second = text.partition("/")
    try:
        i, n = int(first), int(second)
    except ValueError:
        raise ValueError(f"--shard {text!r}: write I/N, e.g. 2/8 for the second of eight shares") from None
    if not sep or not 1 <= i <= n:
        raise ValueError(f"--shard {text!r}: I/N needs 1 <= I <= N")
    return i, n


def in_shard(world: str, spec: str, shard: tuple[int, int] | None) -> bool:
    """Whether this shard plays (world, player): a hash of both, the same on every machine (no Python
    hash seed), so N machines or SLURM array tasks given 1/N..N/N play every episode exactly once."""
    if shard is None:
        return True
    digest = hashlib.sha256(f"{world}\n{spec}".encode("utf-8")).digest()
    return int.from_bytes(digest[:8], "big") % shard[1] == shard[0] - 1


def shard_key(world: str) -> str:
    """A world as the same text on every machine: a packaged name as is, a file by its path from the
    current folder (a shard's machines run the same command in the same checkout layout)."""
    path = Path(world)
    if not path.exists():
        return world
    try:
        return path.resolve().relative_to(Path.cwd().resolve()).as_posix()
    except ValueError:
        return path.as_posix()
