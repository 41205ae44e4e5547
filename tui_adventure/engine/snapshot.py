"""Saved games: one versioned JSON file per save, written atomically.

A save records the commands played and the facts they led to, plus a digest
of the world's start facts and goals so that a save is never restored into
another world (or into a world that has changed since)::

    {"format": "tui-adventure-save", "version": 1,
     "world": "worlds/house.yaml", "world_game": "house", "world_digest": "<sha256>",
     "turn": 3, "commands": ["take book", "go east", "open box"],
     "facts": ["at(player,kitchen)", ...], "saved_at": "2025-01-01T12:00:00+00:00"}

``load_save`` reads and checks a file; anything wrong with it (unreadable,
not JSON, truncated, missing keys, wrong types, another program's file, a
newer format, another world) raises ``SaveError`` naming the file and the
problem, never any other exception. A save is restored by replaying its
commands in a fresh game, so undo, "it" and a pending "Which do you mean
...?" question come back exactly as they were.
"""

from __future__ import annotations

import hashlib
import itertools
import json
import errno
import os
import stat
import unicodedata
from dataclasses import dataclass, field
from datetime import datetime, timezone
from pathlib import Path

from .facts import State, format_fact, parse_fact
from .game import Game
from .text import MAX_COMMAND
from .world import World

FORMAT = "tui-adventure-save"
VERSION = 1
DEFAULT_DIR = "saves"
SUFFIX = ".json"
MAX_BYTES = 64 * 1024 * 1024          # a save of a very long game is a few MB at most
MAX_NAME_BYTES = 200                  # file systems allow 255; leave room for temp names
_FORBIDDEN = set('/\\:*?"<>|') | {os.sep} | ({os.altsep} if os.altsep else set())
REQUIRED = ("format", "version", "world", "world_game", "world_digest", "turn", "commands",
            "facts", "saved_at")


class SaveError(Exception):
    """A save cannot be written or read; the message names the file and the problem."""

    def __init__(self, message: str, path: str | Path | None = None) -> None:
        self.path = str(path) if path is not None else None
        super().__init__(f"{path}: {message}" if path is not None else message)


@dataclass
class Save:
    """A checked save. Unpacks as ``state, commands = load_save(...)``."""

    path: Path
    world: str
    world_game: str
    world_digest: str
    turn: int
    commands: list[str]
    state: State
    saved_at: str
    version: int = VERSION
    extra: dict = field(default_factory=dict)   # unknown keys, kept for the caller

    @property
    def name(self) -> str:
        return self.path.name[:-len(SUFFIX)] if self.path.name.endswith(SUFFIX) else self.path.name

    def __iter__(self):
        return iter((self.state, self.commands))


# names and digests -----------------------------------------------------------
def world_digest(world: World) -> str:
    """sha256 over the world's start facts and goals (order-independent)."""
    doc = {"facts": sorted(format_fact(f) for f in world.initial.facts),
           "goals": sorted(str(g) for g in world.goals)}
    text = json.dumps(doc, ensure_ascii=True, sort_keys=True, separators=(",", ":"))
    return hashlib.sha256(text.encode("ascii")).hexdigest()


def save_file_name(name: str) -> str:
    """The file name for a save called ``name`` (``.json`` added); SaveError when it cannot be one.

    A save name is a single file name: no path separators, no characters that
    some file systems refuse, no control characters, not hidden, not empty.
    """
    if not isinstance(name, str):
        raise SaveError(f"a save name must be text, not {type(name).__name__}")
    stripped = name.strip()
    if not stripped:
        raise SaveError("a save name cannot be empty")
    bad = sorted({c for c in stripped if c in _FORBIDDEN})
    if bad:
        raise SaveError(f"save name {name!r} contains {' '.join(bad)} (a save name is a file name: "
                        "use letters, digits, spaces, - and _)")
    if any(unicodedata.category(c) in ("Cc", "Cf") for c in stripped):
        # controls, and format characters such as right-to-left overrides that make a listing lie
        raise SaveError(f"save name {name!r} contains control or direction characters (use letters, digits,"
                        " spaces, - and _)")
    if any(0xD800 <= ord(c) <= 0xDFFF for c in stripped):
        raise SaveError(f"save name {name!r} is not valid Unicode text")
    if stripped.startswith("."):
        raise SaveError(f"save name {name!r} cannot start with '.'")
    file_name = stripped if stripped.lower().endswith(SUFFIX) else stripped + SUFFIX
    if file_name == SUFFIX:
        raise SaveError(f"save name {name!r} is empty without its {SUFFIX}")
    if len(file_name.encode("utf-8")) > MAX_NAME_BYTES:
        raise SaveError(f"save name is too long ({len(file_name.encode('utf-8'))} bytes; "
                        f"at most {MAX_NAME_BYTES})")
    return file_name


def save_path(name: str, directory: str | Path = DEFAULT_DIR) -> Path:
    return Path(directory) / save_file_name(name)


def _resolve(path_or_name: str | Path, directory: str | Path) -> Path:
    """A Path, or text with a path separator, is a path; other text is a save name in ``directory``."""
    if isinstance(path_or_name, Path):
        return path_or_name
    if not isinstance(path_or_name, str):
        raise SaveError(f"expected a save name or path, not {type(path_or_name).__name__}")
    if any(sep in path_or_name for sep in ("/", os.sep, os.altsep or "/")):
        return Path(path_or_name)
    return save_path(path_or_name, directory)


# writing ---------------------------------------------------------------------
def save_document(game: Game, saved_at: str | None = None) -> dict:
    world = game.world
    facts = sorted(format_fact(f) for f in game.state.facts)
    for text, fact in zip(facts, sorted(game.state.facts, key=format_fact)):
        try:
            ok = parse_fact(text) == tuple(fact)
        except ValueError:
            ok = False
        if not ok:
            raise SaveError(f"the fact {fact!r} cannot be written as pred(a,b) text")
    return {
        "format": FORMAT,
        "version": VERSION,
        "world": str(world.path),
        "world_game": world.game,
        "world_digest": world_digest(world),
        "turn": game.turn,
        "commands": list(game.commands),
        "facts": facts,
        "saved_at": saved_at or datetime.now(timezone.utc).isoformat(timespec="seconds"),
    }


def _encode(doc: dict) -> bytes:
    text = json.dumps(doc, ensure_ascii=False, indent=1)
    try:
        return (text + "\n").encode("utf-8")
    except UnicodeEncodeError:
        # a command held lone surrogates (any str can be typed to Game.step): \u-escape everything
        return (json.dumps(doc, ensure_ascii=True, indent=1) + "\n").encode("ascii")


class OutputRefused(OSError):
    """A path the user named to write to that is not a regular file (or folder): a pipe, a device,
    a socket or a symlink. ``filename`` is the path, ``strerror`` what it is and the fix, so
    ``f"{exc.filename}: {exc.strerror}"`` is the one line to show; ``what`` is what it is alone."""

    def __init__(self, path, what: str, fix: str) -> None:
        super().__init__(errno.EEXIST, f"{what}; {fix}", str(path))
        self.what = what


_KINDS = ((stat.S_ISFIFO, "a named pipe (FIFO)"), (stat.S_ISCHR, "a device"), (stat.S_ISBLK, "a device"),
          (stat.S_ISSOCK, "a socket"), (stat.S_ISDIR, "a folder"), (stat.S_ISREG, "a file"))


def check_output(path, folder: bool = False) -> None:
    """Refuse, with ``OutputRefused``, to write where ``path`` is anything but a regular file (a folder
    when ``folder``) or nothing yet. Writing replaces a file by renaming a new one over it, which
    would put a regular file in place of a FIFO, a device node or a symlink (and its target would
    keep its old content): those are refused instead. Only the last part of the path is looked at
    (``os.lstat``); the folders above it may be symlinks."""
    try:
        mode = os.lstat(path).st_mode
    except (FileNotFoundError, NotADirectoryError):
        return
    if (stat.S_ISDIR if folder else stat.S_ISREG)(mode):
        return
    if stat.S_ISLNK(mode):
        raise OutputRefused(path, "is a symlink", f"name the {'folder' if folder else 'file'} it points to,"
                            " or a new path")
    kind = next((name for test, name in _KINDS if test(mode)), "something else")
    if folder:
        raise OutputRefused(path, f"is {kind}, not a folder", "name a folder (it is created when missing)")
    if stat.S_ISDIR(mode):
        raise OutputRefused(path, "is a folder", "name the file to write in it")
    raise OutputRefused(path, f"is {kind}, not a regular file", "name a regular file or a new path")


_TMP_SERIAL = itertools.count()   # atomic under the GIL: threads writing in one folder never share a name


def _open_tmp(path: Path) -> tuple[int, str]:
    """A new file next to ``path``, named after this process and a counter rather than by
    ``tempfile.mkstemp``, whose random names and checks cost more than the write of a record
    (a batch writes several files per episode). ``O_EXCL`` still refuses a name left by a
    dead process with the same pid; the folder is made when it is missing."""
    while True:
        tmp = f"{path.parent}/.{path.name}.{os.getpid()}.{next(_TMP_SERIAL)}.tmp"
        try:
            return os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_CLOEXEC, 0o666), tmp
        except FileExistsError:
            continue
        except FileNotFoundError:
            path.parent.mkdir(parents=True, exist_ok=True)
            return os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_CLOEXEC, 0o666), tmp


def write_atomic(path: Path, data: bytes, durable: bool = True, sync_dir: bool = True) -> None:
    """Write ``data`` to ``path`` so that a crash leaves the old file or the new one, never half.

    The rename alone is enough when the process dies (kill -9): the kernel
    keeps what was written. ``durable`` adds the fsyncs that also survive a
    power cut; files rewritten every turn skip them and get them at the end.
    The file gets the mode ``open()`` would give it (0666 less the umask). Only a regular file is
    replaced: anything else at ``path`` (a pipe, a device, a symlink) raises ``OutputRefused``
    (``check_output``) and is left as it was.
    """
    path = Path(path)
    check_output(path)
    try:
        fd, tmp = _open_tmp(path)
    except PermissionError as exc:   # named by the file asked for, not the hidden temporary one
        raise PermissionError(exc.errno, exc.strerror, str(path) if exc.filename != str(path.parent) else
                              exc.filename) from None
    try:
        with os.fdopen(fd, "wb") as fh:
            fh.write(data)
            if durable:
                fh.flush()
                os.fsync(fh.fileno())
        os.replace(tmp, path)
    except BaseException:
        try:
            os.unlink(tmp)
        except OSError:
            pass
        raise
    if durable and sync_dir:   # a writer of several files in one folder syncs it once, after the last
        _fsync_dir(path.parent)


def _fsync_dir(directory: Path) -> None:
    try:
        dfd = os.open(directory, os.O_RDONLY)
    except OSError:
        return
    try:
        os.fsync(dfd)
    except OSError:
        pass
    finally:
        os.close(dfd)


def save_game(game: Game, name: str, directory: str | Path = DEFAULT_DIR) -> Path:
    """Write ``game`` as the save ``name`` in ``directory`` (created if needed); returns its path.

    An existing save of that name is replaced atomically.
    """
    path = save_path(name, directory)
    data = _encode(save_document(game))
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        write_atomic(path, data)
    except OSError as exc:
        raise SaveError(f"cannot write the save: {exc.strerror or exc}", path) from None
    return path


# reading ---------------------------------------------------------------------
def _read_document(path: Path) -> dict:
    try:
        if path.exists() and not path.is_file() and not path.is_dir():   # a FIFO or a device would block
            raise SaveError("is not a regular file (a pipe or a device), not a save", path)
        with open(path, "rb") as fh:
            raw = fh.read(MAX_BYTES + 1)
    except FileNotFoundError:
        raise SaveError("no such save", path) from None
    except IsADirectoryError:
        raise SaveError("is a directory, not a save file", path) from None
    except OSError as exc:
        raise SaveError(f"cannot read: {exc.strerror or exc}", path) from None
    if len(raw) > MAX_BYTES:
        raise SaveError(f"too large for a save (over {MAX_BYTES // (1024 * 1024)} MB)", path)
    if not raw.strip():
        raise SaveError("empty file (the save is corrupt or was never finished)", path)
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise SaveError(f"not a save: not UTF-8 text (byte {exc.start})", path) from None
    try:
        doc = json.loads(text)
    except json.JSONDecodeError as exc:
        hint = " (the file looks truncated)" if exc.pos >= len(text.rstrip()) else ""
        raise SaveError(f"not valid JSON at line {exc.lineno} column {exc.colno}: {exc.msg}{hint}",
                        path) from None
    except RecursionError:
        raise SaveError("not a save: its JSON is nested too deeply", path) from None
    except ValueError as exc:   # e.g. a number with thousands of digits
        raise SaveError(f"not a save: unreadable JSON ({exc})", path) from None
    if not isinstance(doc, dict):
        raise SaveError(f"not a tui-adventure save (the JSON is {_json_type(doc)}, not an object)", path)
    return doc


def _json_type(value) -> str:
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "a boolean"
    if isinstance(value, (int, float)):
        return "a number"
    if isinstance(value, str):
        return "a string"
    if isinstance(value, list):
        return "a list"
    if isinstance(value, dict):
        return "an object"
    return type(value).__name__


def _check_document(doc: dict, path: Path) -> None:
    fmt = doc.get("format")
    if fmt != FORMAT:
        what = "has no 'format' key" if "format" not in doc else f"has format {fmt!r}"
        raise SaveError(f"not a tui-adventure save (it {what}; expected {FORMAT!r})", path)
    version = doc.get("version")
    if isinstance(version, bool) or not isinstance(version, int):
        raise SaveError(f"corrupt save: 'version' must be a whole number, not {_json_type(version)}", path)
    if version > VERSION:
        raise SaveError(f"made by a newer tui-adventure (save format version {version}; "
                        f"this one reads version {VERSION}); upgrade to load it", path)
    if version < 1:
        raise SaveError(f"unknown save format version {version}", path)
    missing = [k for k in REQUIRED if k not in doc]
    if missing:
        raise SaveError(f"corrupt save: missing {', '.join(repr(k) for k in missing)}", path)
    for key in ("world", "world_game", "world_digest", "saved_at"):
        if not isinstance(doc[key], str):
            raise SaveError(f"corrupt save: {key!r} must be a string, not {_json_type(doc[key])}", path)
    turn = doc["turn"]
    if isinstance(turn, bool) or not isinstance(turn, int) or turn < 0:
        raise SaveError(f"corrupt save: 'turn' must be a whole number >= 0, not {turn!r:.40}", path)
    for key in ("commands", "facts"):
        items = doc[key]
        if not isinstance(items, list):
            raise SaveError(f"corrupt save: {key!r} must be a list, not {_json_type(items)}", path)
        for i, item in enumerate(items):
            if not isinstance(item, str):
                raise SaveError(f"corrupt save: {key}[{i}] must be a string, not {_json_type(item)}", path)
            if key == "commands" and len(item) > MAX_COMMAND:
                raise SaveError(f"corrupt save: commands[{i}] is {len(item)} characters (a command has at most"
                                f" {MAX_COMMAND})", path)
    if turn != len(doc["commands"]):
        raise SaveError(f"corrupt save: 'turn' is {turn} but there are {len(doc['commands'])} commands", path)


def _check_world(doc: dict, world: World, path: Path) -> None:
    if doc["world_digest"] == world_digest(world):
        return
    if doc["world_game"] == world.game:
        raise SaveError(f"not a save of this world: {world.game!r} ({world.path}) has other start facts "
                        f"or goals than the world the save was made in (it has changed since, or the save "
                        f"is of another world of that name)", path)
    raise SaveError(f"a save of the world {doc['world_game']!r} ({doc['world']}), "
                    f"not of {world.game!r} ({world.path})", path)


def _parse_facts(items: list[str], path: Path) -> State:
    facts = []
    for i, text in enumerate(items):
        try:
            facts.append(parse_fact(text))
        except (ValueError, TypeError) as exc:
            raise SaveError(f"corrupt save: facts[{i}]: {exc}", path) from None
    return State.of(facts)


def _check_playable(state: State, world: World, path: Path) -> None:
    """Hand-edited facts can describe no place at all: refuse what the engine cannot even show."""
    try:
        world.style.first_observation(state)
    except Exception as exc:
        raise SaveError(f"corrupt save: the saved facts do not describe a playable state "
                        f"({type(exc).__name__}: {exc})", path) from None


def load_save(path_or_name: str | Path, world: World, directory: str | Path = DEFAULT_DIR) -> Save:
    """Read and check a save of ``world``: a path, or a save name in ``directory``.

    Raises SaveError (naming the file and the problem) for anything wrong.
    """
    path = _resolve(path_or_name, directory)
    try:
        doc = _read_document(path)
        _check_document(doc, path)
        _check_world(doc, world, path)
        state = _parse_facts(doc["facts"], path)
        _check_playable(state, world, path)
    except SaveError:
        raise
    except Exception as exc:  # pragma: no cover - a safety net: the promise is SaveError only
        raise SaveError(f"cannot read the save ({type(exc).__name__}: {exc})", path) from exc
    extra = {k: v for k, v in doc.items() if k not in REQUIRED}
    return Save(path, doc["world"], doc["world_game"], doc["world_digest"], doc["turn"],
                list(doc["commands"]), state, doc["saved_at"], doc["version"], extra)


@dataclass
class SaveInfo:
    name: str
    path: Path
    turn: int
    saved_at: str


def list_saves(directory: str | Path = DEFAULT_DIR, world: World | None = None) -> list[SaveInfo]:
    """The saves in ``directory`` (of ``world`` only, when given), newest first.

    Files that are not readable saves (or are saves of other worlds) are left out.
    """
    directory = Path(directory)
    try:
        entries = sorted(p for p in directory.iterdir() if p.name.endswith(SUFFIX)
                         and not p.name.startswith("."))
    except OSError:
        return []
    digest = world_digest(world) if world is not None else None
    out = []
    for p in entries:
        try:
            doc = _read_document(p)
            _check_document(doc, p)
        except SaveError:
            continue
        if digest is not None and doc["world_digest"] != digest:
            continue
        out.append(SaveInfo(p.name[:-len(SUFFIX)], p, doc["turn"], doc["saved_at"]))
    out.sort(key=lambda s: s.name)
    out.sort(key=lambda s: s.saved_at, reverse=True)
    return out
