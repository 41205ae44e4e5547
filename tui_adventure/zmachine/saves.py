"""Saves of a story file's game: the commands played, replayed through a fresh episode on restore.

Jericho's interpreter is seeded (``game.StorySource.seed``), so the same commands from the start reach
the same state, and the records of the episode stay a valid episode from its start, as our worlds'
restores keep them. A save names its story file by the MD5 of its Z-code: a save of another game (or
another release of it) is refused. Undo within a sitting uses Jericho's own state (``StoryGame.snapshot``).
"""

from __future__ import annotations

import json
from datetime import datetime
from pathlib import Path

from ..engine.snapshot import MAX_BYTES, SaveError, SaveInfo, save_path, write_atomic
from ..engine.sources import parse_json
from ..engine.text import MAX_COMMAND

FORMAT = "tui-adventure story save"
VERSION = 1
MAX_COMMANDS = 100_000


def save_story(story, commands: list[str], name: str, directory: str | Path) -> Path:
    """Write the save ``name`` of ``story`` (a ``game.StorySource``) holding ``commands``; its path."""
    path = save_path(name, directory)
    doc = {"format": FORMAT, "version": VERSION, "story": Path(story.path).name, "md5": story.checked.md5,
           "turn": len(commands), "commands": list(commands), "saved_at": datetime.now().isoformat(timespec="seconds")}
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        write_atomic(path, json.dumps(doc, ensure_ascii=False, indent=1).encode("utf-8"))
    except OSError as exc:
        raise SaveError(f"cannot write the save: {exc.strerror or exc}", path) from None
    return path


def load_story(story, name: str, directory: str | Path) -> list[str]:
    """The commands of the save ``name`` of ``story``; SaveError naming the file and the problem."""
    path = save_path(name, directory)
    doc = _read(path)
    if doc.get("md5") != story.checked.md5:
        raise SaveError(f"a save of another story file ({doc.get('story')!s:.80}), not of this one", path)
    return doc["commands"]


def list_story_saves(story, directory: str | Path) -> list[SaveInfo]:
    """The saves of ``story`` in ``directory``, newest first (anything else there is left out)."""
    try:
        entries = sorted(p for p in Path(directory).iterdir() if p.suffix == ".json" and not p.name.startswith("."))
    except OSError:
        return []
    out = []
    for p in entries:
        try:
            doc = _read(p)
        except SaveError:
            continue
        if doc.get("md5") == story.checked.md5:
            out.append(SaveInfo(p.stem, p, doc["turn"], doc["saved_at"]))
    out.sort(key=lambda s: s.name)
    out.sort(key=lambda s: s.saved_at, reverse=True)
    return out


def _read(path: Path) -> dict:
    """A story save read within bounds and checked in shape."""
    try:
        if not path.is_file():
            raise SaveError("no such save" if not path.exists() else "not a regular file, not a save", path)
        with open(path, "rb") as fh:
            raw = fh.read(MAX_BYTES + 1)
    except OSError as exc:
        raise SaveError(f"cannot read: {exc.strerror or exc}", path) from None
    if len(raw) > MAX_BYTES:
        raise SaveError("too large for a save", path)
    try:
        doc = parse_json(raw.decode("utf-8"))
    except (UnicodeDecodeError, ValueError):
        raise SaveError("not a save: not JSON text", path) from None
    if not isinstance(doc, dict) or doc.get("format") != FORMAT or doc.get("version") != VERSION:
        raise SaveError(f"not a story save (expected format {FORMAT!r}, version {VERSION})", path)
    commands, turn = doc.get("commands"), doc.get("turn")
    if (not isinstance(commands, list) or len(commands) > MAX_COMMANDS
            or not all(isinstance(c, str) and len(c) <= MAX_COMMAND for c in commands)):
        raise SaveError("corrupt save: 'commands' must be a list of commands", path)
    if isinstance(turn, bool) or not isinstance(turn, int) or not isinstance(doc.get("saved_at"), str):
        raise SaveError("corrupt save: 'turn' or 'saved_at' is missing", path)
    return doc
