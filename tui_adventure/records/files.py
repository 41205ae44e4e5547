"""The clemcore 3.7.2 results tree: its files, reading them back, and the pieces writing shares
(the writer of an episode is ``recorder.py``).

``root/<player>/<game>/<experiment>/instance_<id:05d>/`` gets ``instance.json``
at the start, ``interactions.json`` and ``player_1.requests.json`` rewritten
after every turn (temp file + rename: a crash loses at most the turn in
flight and never leaves half a file), and ``completed.json`` or
``error.json`` at the end. ``run.json`` and ``experiment.json`` sit above. No
secret is ever written: requests keep the prompt and the raw response only.
"""

from __future__ import annotations

import contextlib
import functools
import json
import math
import os
from dataclasses import dataclass
from datetime import datetime
from pathlib import Path
from typing import TYPE_CHECKING, TextIO

from ..engine.snapshot import write_atomic
from ..engine.sources import parse_json
from ..zmachine.story import is_story_path

if TYPE_CHECKING:
    from ..engine.world import World
    from ..zmachine.game import StorySource

CLEM_VERSION = "3.7.2"
SECRET_KEYS = {"api_key", "authorization", "Authorization", "x-api-key", "headers"}


MB = 1024 * 1024
# What reading one record file may cost, by the file (``size_limit``): records come from strangers too.
RECORD_SIZE_LIMIT = 512 * MB    # requests files (every prompt in full), and any file not named below
INTERACTIONS_LIMIT = 64 * MB    # interactions.json (and the turns taken back), for score, eval, export, resume
SMALL_RECORD_LIMIT = 8 * MB     # instance.json, scores.json, run.json and the other files of a few KB
VIEW_LIMIT = 8 * MB             # what a screen parses (watch's rows, replay): above it, a one-line note
POINTER = "tui_adventure.json"          # beside the records: where the world is (clemcore's tools ignore it)
PLAN = "tui_adventure.plan"             # in a run's folder: how many episodes a batch (or a shard of it) will play
DISCARDED = "discarded_turns.json"      # turns taken back by hand (undo, restore, restart, jump back)
SMALL_FILES = ("instance.json", "scores.json", "run.json", "experiment.json", "completed.json", "error.json",
               POINTER)


class RecordsError(ValueError):
    """A record file that cannot be read back; the message names it and says why."""


class TooLarge(RecordsError):
    """A record file over the size its reader takes: not read at all."""


def size_limit(path: Path) -> int:
    """The most bytes of ``path`` a reader parses, by its name (see the limits above)."""
    name = Path(path).name
    if name in ("interactions.json", DISCARDED):
        return INTERACTIONS_LIMIT
    if name.endswith(".requests.json"):
        return RECORD_SIZE_LIMIT
    if name in SMALL_FILES or name.startswith(PLAN):
        return SMALL_RECORD_LIMIT
    return RECORD_SIZE_LIMIT


def read_json(path: Path, limit: int | None = None):
    """One record file (JSON): a regular file of at most ``limit`` bytes (default: ``size_limit``), or
    ``RecordsError``; ``TooLarge`` (said in one line, the file's size and the limit) before reading a
    byte of a larger one.

    Records come from runs that crashed, other tools and other people; a FIFO
    named like a record would block a reader forever, a huge file would
    exhaust memory and time and deep nesting would stop the reader with RecursionError,
    so every reader of records (score, eval, export, replay, watch) goes through here.
    """
    path = Path(path)
    limit = size_limit(path) if limit is None else limit
    try:
        if not path.is_file():
            raise RecordsError(f"{path} is missing" if not path.exists() else f"{path} is not a regular file")
        with open(path, "rb") as fh:
            size = os.fstat(fh.fileno()).st_size
            if size > limit:
                raise too_large(path, size, limit)
            data = fh.read(limit + 1)
        if len(data) > limit:   # grew since, or a file whose size says nothing
            raise too_large(path, len(data), limit)
        return parse_json(data.decode("utf-8", "surrogateescape"))
    except OSError as exc:
        raise RecordsError(f"{path}: cannot read it ({exc.strerror or exc})") from None
    except ValueError as exc:
        if isinstance(exc, RecordsError):
            raise
        raise RecordsError(f"{path}: not JSON ({exc})") from None


def too_large(path: Path, size: int, limit: int) -> TooLarge:
    said = f"more than {limit // MB} MB" if size <= limit + 1 else f"{size / MB:.0f} MB"
    return TooLarge(f"{path} is {said}, over the {limit // MB} MB limit for reading it")


MARKERS = ("completed.json", "error.json", "scores.json")   # how an episode ended; a new start drops them
_RUN_FILES: dict[Path, tuple[tuple[int, int, int], dict]] = {}


def run_json(path: Path) -> dict:
    """A run's run.json (empty when there is none yet), read again only when it changed on disk: every
    episode's start asks, which in a batch read the same file thrice an episode. The dict returned is
    shared: read it, never change it."""
    try:
        st = os.stat(path)
    except FileNotFoundError:
        return {}
    except OSError as exc:
        raise RecordsError(f"{path}: cannot read it ({exc.strerror or exc})") from None
    key = (st.st_ino, st.st_mtime_ns, st.st_size)
    seen = _RUN_FILES.get(path)
    if seen is not None and seen[0] == key:
        return seen[1]
    data = read_json(path)
    if not isinstance(data, dict):
        raise RecordsError(f"{path}: not a run's record (a JSON object)")
    if len(_RUN_FILES) >= 64:
        _RUN_FILES.clear()
    _RUN_FILES[path] = (key, data)
    return data


def studies_in(run_dir: Path, limit: int = 2000) -> set[str | None]:
    """The studies of the episodes under a run folder, each by its id (its title in records written
    before studies had ids), None for an episode no study wrote. A study's participant ``2`` and a
    second ``adventure play`` session both want ``human-2``: whoever comes second must see whose folder
    it is, or one person's episodes count as another's."""
    found: set[str | None] = set()
    if not run_dir.is_dir():
        return found
    for n, path in enumerate(run_dir.glob("*/*/instance_*/interactions.json")):
        if n >= limit:
            break
        try:
            study = read_json(path).get("meta", {}).get("study")
        except (RecordsError, AttributeError):
            continue
        found.add((study.get("id") or study.get("title")) if isinstance(study, dict) else None)
    return found


STUDY_MARK = ".tui_adventure_study.json"   # in a study participant's run folder: {"id": ..., "title": ...}


def mark_study(run_dir: Path, key: str, title: str) -> None:
    """Mark ``run_dir`` as a study's participant's (written before its first episode): no other session
    continues or writes into it (``study_of``)."""
    if study_of(run_dir, look=0) != key:
        run_dir.mkdir(parents=True, exist_ok=True)
        write_json(run_dir / STUDY_MARK, {"id": key, "title": title})


def study_of(run_dir: Path, look: int = 20) -> str | None:
    """The study a run folder belongs to (its id, or its title in older records), None when no study's:
    its mark, else the meta of the first ``look`` episodes (a study's folder holds only its episodes)."""
    mark = run_dir / STUDY_MARK
    if mark.is_file():
        try:
            data = read_json(mark, limit=64 * 1024)
            if isinstance(data, dict) and isinstance(data.get("id"), str):
                return data["id"]
        except RecordsError:
            pass
        return "?"   # a mark that cannot be read still marks the folder as some study's
    return next(iter(sorted(s for s in studies_in(run_dir, look) if s is not None)), None) if look else None


def foreign_to(run_dir: Path, study: dict | None) -> bool:
    """``run_dir`` is a study participant's folder (marked, or holding a study's episodes) and a session
    whose ``meta.study`` is ``study`` (None: no study's) is not of that study: such a session neither
    continues nor writes there, but takes the next free name."""
    owner = study_of(run_dir)
    ours = {study.get("id"), study.get("title")} - {None} if isinstance(study, dict) else set()
    return owner is not None and owner not in ours


def layout_parts(root: str | Path) -> tuple[str, ...]:
    """Where ``root`` sits in the layout: its own name and those above it up to its run's folder, () for a
    results root. clem eval names a run, game, experiment and episode by the last five parts of a scores.json
    path, so below a results root those parts begin above ``root``; a run's folder is told by the run.json
    clemcore and our recorder both write there, so nothing is guessed from folder names."""
    here = Path(os.path.abspath(root))
    for depth, folder in enumerate((here, *here.parents[:3])):
        if (folder / "run.json").is_file():
            return here.parts[len(here.parts) - depth - 1:]
    return ()


@functools.lru_cache(maxsize=256)
def real_path(path: str) -> str:
    """A world file's real path, once per process: a batch's episodes share few worlds' folders."""
    return str(Path(path).resolve())


def is_player(name) -> bool:
    """A player's name in the records: ``Player 1``, or ``Player K`` in a world of several players."""
    return isinstance(name, str) and name.startswith("Player ") and name[7:].isdigit()


def replies_of(interactions: dict) -> list[str]:
    """The players' replies, in order, from an interactions.json (ours or upstream's)."""
    turns = interactions.get("turns", []) if isinstance(interactions, dict) else []
    return [str(e["action"]["content"]) for turn in turns if isinstance(turn, list) for e in turn
            if isinstance(e, dict) and is_player(e.get("from")) and isinstance(e.get("action"), dict)
            and e["action"].get("type") == "get message"]


def world_pointer(directory: Path) -> str | None:
    """Where the episode's world is: a file path or a packaged name, from the pointer the recorder
    leaves or the instance.json (a native world's, or one that ``adventure export clemgame`` wrote,
    which clemcore's runner copies there); None when the records do not say."""
    directory = Path(directory)
    if (directory / POINTER).exists():
        world = read_json(directory / POINTER).get("world")
        if isinstance(world, str) and world:
            return world
    if (directory / "instance.json").exists():
        world = read_json(directory / "instance.json")
        world = world.get("world") if isinstance(world, dict) else None
        if isinstance(world, str) and (world.endswith((".yaml", ".yml")) or world.startswith("clembench/")
                                       or is_story_path(world)):
            return world
    return None


LOCK = ".tui_adventure.lock"


class Busy(RecordsError):
    """Another process is writing these records; the message says which and what to do."""


class OtherRun(RecordsError):
    """The run's folder holds a run that asked otherwise (another mode or tool choice): every episode is
    refused the same way until the run gets another --name or --records, so running again cannot help."""


class FolderLock:
    """An exclusive lock on a records folder, held while one process writes it.

    ``flock`` is released by the kernel when the holder dies, so a kill -9
    never leaves a lock that blocks: a lock file left behind with a dead
    process's pid is taken over like a free one. A holder that ends normally
    removes the file (while still holding it), so a finished run leaves none.
    A process that opened the file just before it was removed holds a lock on
    a file no longer in the folder: ``acquire`` notices and tries again on the
    new one, so two processes never both believe they hold the folder.
    """

    def __init__(self, directory: Path, what: str) -> None:
        self.directory = Path(directory)
        self.what = what
        self.fh: TextIO | None = None   # the lock file, open while held

    def acquire(self) -> "FolderLock":
        import fcntl

        self.directory.mkdir(parents=True, exist_ok=True)
        path = self.directory / LOCK
        for _ in range(100):   # each retry means a holder removed the file in between: a few at most
            fh = open(path, "a+", encoding="utf-8")
            try:
                fcntl.flock(fh.fileno(), fcntl.LOCK_EX | fcntl.LOCK_NB)
            except OSError:
                fh.seek(0)
                holder = fh.read().strip() or "?"
                fh.close()
                raise Busy(f"{self.directory}: another adventure process (pid {holder}) is writing {self.what};"
                           " wait for it to end, or use another --records folder or --name") from None
            try:
                same = os.stat(path).st_ino == os.fstat(fh.fileno()).st_ino
            except FileNotFoundError:
                same = False
            if same:
                break
            fh.close()   # locked a file its holder removed on the way out: the folder's lock is the new one
        else:   # pragma: no cover - a folder whose lock file is replaced a hundred times in a row
            raise Busy(f"{self.directory}: its lock file keeps changing; is another process looping on it?")
        fh.seek(0)
        fh.truncate()
        fh.write(str(os.getpid()))
        fh.flush()
        self.fh = fh
        return self

    def release(self) -> None:
        if self.fh is not None:
            with contextlib.suppress(OSError):   # removed while held, so no other process can be holding it
                os.unlink(self.directory / LOCK)
            self.fh.close()   # closing drops the flock
            self.fh = None


@dataclass
class Recorded:
    """A recorded episode read back: replaying ``replies`` through a fresh episode of ``world``
    rebuilds every state exactly (the engine is deterministic), so records need not store states."""

    directory: Path
    world: World | StorySource | None   # None: read for its replies alone (read_episode's world=False)
    replies: list[str]
    player: str


def read_episode(directory: str | Path, world=None, limit: int | None = None) -> Recorded:
    """The episode in ``directory`` (an ``instance_NNNNN`` folder); ``world`` (a World) when the caller
    knows better than the records where it was played, ``False`` when only the replies are wanted;
    ``limit``: the most bytes of its interactions.json to parse (a screen passes ``VIEW_LIMIT``).
    ``RecordsError`` says what is wrong and what to do."""
    from ..instances import packaged
    from ..instances.convert import load_world_file
    from ..engine.yamlpos import SourceErrors

    directory = Path(directory)
    if not (directory / "interactions.json").exists():
        raise RecordsError(f"{directory / 'interactions.json'} is missing: EPISODE_DIR is an"
                           " instance_NNNNN directory of a records tree")
    data = read_json(directory / "interactions.json", limit)
    if not isinstance(data, dict):
        raise RecordsError(f"{directory / 'interactions.json'} is not a clemcore interactions object")
    players = data.get("players")
    player = players.get("Player 1", {}) if isinstance(players, dict) else {}
    player = player.get("model_name", "?") if isinstance(player, dict) else "?"
    if world is False:
        return Recorded(directory, None, replies_of(data), str(player))
    if world is None:
        where = world_pointer(directory)
        if where is None:
            raise RecordsError(f"{directory}: cannot tell which world this episode was played in;"
                               " pass it with --world WORLD")
        if not packaged.is_name(where) and not Path(where).exists():
            raise RecordsError(f"{directory}: its world {where} is gone; pass the world with --world WORLD")
        try:
            if is_story_path(where):   # a Z-machine story file: checked, and Jericho there
                from ..zmachine.game import open_story

                world = open_story(where)
            else:
                world = packaged.world(where) if packaged.is_name(where) and not Path(where).exists() \
                    else load_world_file(where)
        except SourceErrors as exc:
            raise RecordsError(f"{directory}: its world cannot be loaded: {exc.errors[0]}") from None
    return Recorded(directory, world, replies_of(data), str(player))


def plan_file(run_dir: Path, shard: tuple[int, int] | None = None) -> Path:
    """Where a batch says how many episodes it will play in ``run_dir``: one file per shard, since the
    shards of a cluster run write the same run folder (``adventure watch`` adds them up)."""
    return Path(run_dir) / (f"{PLAN}.json" if shard is None else f"{PLAN}.{shard[0]}of{shard[1]}.json")


def now() -> str:
    return datetime.now().isoformat()


def write_json(path: Path, data, final: bool = True, sync_dir: bool = True) -> None:
    """Atomically: a reader sees the old file or the new one, never a mix.

    Files rewritten every turn (``final=False``) are not fsynced: fsync costs
    milliseconds, which added up to most of a turn's CPU in batches; the last
    write of an episode is durable.
    """
    write_atomic(path, encode_json(data), durable=final, sync_dir=sync_dir)


def encode_json(data) -> bytes:
    """Records' JSON. Nothing is indented: indenting forces Python's slow JSON encoder (2.3 ms
    instead of 0.3 for a ten-turn episode's interactions.json, every episode), and clemcore's
    readers and ``python -m json.tool`` do not care. A lone surrogate (a reply cut mid-character,
    undecodable input) becomes its JSON escape \\udXXX."""
    return json.dumps(data, ensure_ascii=False, allow_nan=True).encode("utf-8", "backslashreplace")


def dumps_compact(value) -> str:
    return json.dumps(value, ensure_ascii=False, allow_nan=True, separators=(",", ":"))


REDACTED = "[redacted]"


def scrub(obj, secrets: tuple = ()):
    """Drop anything that could carry a credential from a raw provider response: fields named like
    one, and the key's own value wherever it stands (a server error may echo it in any field).

    Usually there is nothing to drop: one encoding shows that, and decoding it gives the copy (both
    in C), where walking it in Python copied every message of a long prompt on every turn."""
    try:
        text = json.dumps(obj, ensure_ascii=False, allow_nan=True)
    except (TypeError, ValueError):
        return _scrub(obj, secrets)
    if any(s in text or json.dumps(s, ensure_ascii=False)[1:-1] != s for s in secrets) or any(
            f'"{k}"' in text for k in SECRET_KEYS):
        return _scrub(obj, secrets)   # something to drop, or a secret JSON writes otherwise: walk it
    return json.loads(text)


def _scrub(obj, secrets: tuple):
    if isinstance(obj, dict):
        return {k: _scrub(v, secrets) for k, v in obj.items() if k not in SECRET_KEYS}
    if isinstance(obj, list):
        return [_scrub(v, secrets) for v in obj]
    if isinstance(obj, str) and secrets:
        for secret in secrets:
            obj = obj.replace(secret, REDACTED)
    return obj


def nan_to_none(value):
    return None if isinstance(value, float) and math.isnan(value) else value
