"""Typed lines per world, kept between sessions: the app's and the REPL's up-arrow."""

from __future__ import annotations

import os
from pathlib import Path

from ..engine.text import MAX_COMMAND
from ..engine.world import World
from ..zmachine.game import StorySource


def state_dir() -> Path:
    """Where per-user state (command history) lives; TUI_ADVENTURE_HOME overrides it (tests)."""
    home = os.environ.get("TUI_ADVENTURE_HOME")
    if home:
        return Path(home)
    base = os.environ.get("XDG_STATE_HOME") or os.path.join(os.path.expanduser("~"), ".local", "state")
    return Path(base) / "tui-adventure"


def world_key(world: World | StorySource) -> str:
    """A file name that tells worlds apart (game, clembench experiment and id, file stem): one history
    and one saves folder per world, so a save or an up-arrow never crosses into another world."""
    stem = Path(str(world.path or world.game)).stem or "world"
    key = f"{world.game}-{world.meta.get('experiment', '')}-{world.meta.get('game_id', '')}-{stem}"
    return "".join(c if c.isalnum() or c in "-_." else "_" for c in key)


class History:
    """Typed lines of one world, oldest first, kept in a plain text file (one line each).

    One file per world so that up-arrow in the house does not bring back
    commands typed in a clembench instance; the app and the REPL share it.
    """

    LIMIT = 1000

    def __init__(self, path: Path | None) -> None:
        self.path = path
        self.lines: list[str] = []
        if path is not None:
            try:
                self.lines = [ln for ln in path.read_text(encoding="utf-8").splitlines()
                              if ln.strip() and len(ln) <= MAX_COMMAND]
            except (OSError, UnicodeDecodeError):
                self.lines = []
        self.lines = self.lines[-self.LIMIT:]

    @classmethod
    def for_world(cls, world: World | StorySource) -> "History":
        return cls(state_dir() / "history" / f"{world_key(world)}.txt")

    def add(self, line: str) -> None:
        line = line.replace("\n", " ").strip()
        if not line or len(line) > MAX_COMMAND or (self.lines and self.lines[-1] == line):
            return
        self.lines.append(line)
        if self.path is None:
            return
        try:
            self.path.parent.mkdir(parents=True, exist_ok=True)
            with open(self.path, "a", encoding="utf-8", errors="backslashreplace") as fh:   # lone surrogates too
                fh.write(line + "\n")
        except OSError:
            pass   # history is a convenience: a read-only home must not stop play
