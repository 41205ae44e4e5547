"""Ended episodes' rows kept between openings of the same tree, so the second look is instant.

Reading and scoring one ended episode costs one to three milliseconds (most
of it parsing its interactions.json), which for a tree of ten thousand is
half a minute. An ended episode does not change unless a rerun starts it
again, so its row is kept under its files' times and sizes in the user's
state folder (never in the records tree, which may be shared or read-only)
and taken from there while those still match.
"""

from __future__ import annotations

import hashlib
import json
import os
from pathlib import Path

from ..records.files import RecordsError, read_json
from ..engine.snapshot import write_atomic
from ..keyboard.history import state_dir
from .episodes import EpisodeInfo

VERSION = 3
SAVE_EVERY = 30.0          # seconds between saves while rows are being added
LIMIT = 256 * 1024 * 1024  # a cache file larger than this is not read
FIELDS = ("status", "turns", "goals", "goal_count", "last_command", "repeats", "since_progress", "main_score",
          "problem", "began", "finished", "scored")


class SummaryCache:
    def __init__(self, path: Path | None) -> None:
        self.path = path
        self.loaded: dict[str, list] = {}   # from the file, not yet met in the tree
        self.rows: dict[str, list] = {}     # met in the tree (or new): what the next save keeps
        self.dirty = False
        self.saved_at = 0.0
        if path is not None and path.exists():
            try:
                data = read_json(path, LIMIT)
            except RecordsError:
                data = None
            if isinstance(data, dict) and data.get("version") == VERSION and isinstance(data.get("rows"), dict):
                self.loaded = data["rows"]

    @classmethod
    def for_root(cls, root: Path) -> "SummaryCache":
        name = hashlib.sha256(os.fsencode(os.path.realpath(root))).hexdigest()[:20]
        return cls(state_dir() / "watch" / f"{name}.json")

    def fill(self, ep: EpisodeInfo, key) -> bool:
        """Set ``ep``'s row from the cache when its files are as they were; False otherwise."""
        row = self.loaded.pop(ep.key, None) or self.rows.get(ep.key)
        if not isinstance(row, list) or len(row) != len(FIELDS) + 1 or row[0] != _plain(key):
            return False
        self.rows[ep.key] = row
        try:
            for name, value in zip(FIELDS, row[1:]):
                setattr(ep, name, value)
        except TypeError:   # a hand-edited cache: read the files instead
            return False
        return True

    def keep(self, ep: EpisodeInfo, key) -> None:
        self.rows[ep.key] = [_plain(key), *(getattr(ep, name) for name in FIELDS)]
        self.dirty = True

    def maybe_save(self, now: float, complete: bool = False) -> None:
        """Save now and then while rows are added; ``complete`` once every episode of the tree was
        met, when the rows of episodes no longer there are dropped."""
        if complete and self.loaded:
            self.loaded = {}
            self.dirty = True
        if self.dirty and now - self.saved_at >= SAVE_EVERY:
            self.save(now)

    def save(self, now: float = 0.0) -> None:
        self.saved_at = now
        if self.path is None or not self.dirty:
            return
        try:
            self.path.parent.mkdir(parents=True, exist_ok=True)
            data = json.dumps({"version": VERSION, "rows": {**self.loaded, **self.rows}}, ensure_ascii=False,
                              allow_nan=True, separators=(",", ":"))
            write_atomic(self.path, data.encode("utf-8", "backslashreplace"), durable=False)
            self.dirty = False
        except OSError:
            pass   # a cache that cannot be written costs the next opening time, nothing else


def _plain(key) -> list:
    """A files' key as JSON gives it back (lists, not tuples): (markers, (time, size) or None)."""
    markers, files = key
    return [list(markers), list(files) if files is not None else None]
