"""A records tree being written, followed by polling modification times: never a full re-read.

Writers replace files by renaming a temp file over them, and a rename
changes the folder's modification time, so one ``stat`` of a folder says
whether anything in it changed. Each ``tick`` stats the folders above the
episodes (new runs, games, experiments, instances), every running episode's
folder, and a slice of the ended ones (a rerun can start them again); a file
is read only when its inode, time or size changed. A folder changed in the
last few seconds is looked into again whatever its time says (coarse
timestamps on some shared file systems could hide a second write). Polling
rather than inotify (``watchfiles``): inotify does not see what other
machines write to a shared folder, which is where cluster runs write.

What is read first is bounded per tick (``budget`` seconds), running
episodes before ended ones, so a tree of tens of thousands of episodes
opens at once and fills in; the outcomes of ended episodes are kept in a
cache (``cache.py``) so the next opening need not read them again.
"""

from __future__ import annotations

import heapq
import os
import re
import time
from collections import deque
from dataclasses import dataclass, field
from pathlib import Path

from ..records.files import MB, PLAN, VIEW_LIMIT, RecordsError, read_json, run_json
from ..evaluation.results import FILES as EVAL_FILES
from .cache import SummaryCache
from .episodes import (
    DAMAGED, ENDED, ENDED_UNREAD, ERROR, LIVE, RUNNING, STARTING, STOPPED, EpisodeInfo, error_message, outcome,
    read_interactions,
)
from .runs import RunFacts

QUIET_AFTER = 300.0       # seconds without a write before an unfinished episode counts as stopped
RACY = 3.0                # a folder changed this recently is looked into again
HOT = 60.0                # a folder changed this recently is stat'ed every tick; others in turns
FOLDERS_PER_TICK = 200    # cold folders stat'ed per tick
RESTING_PER_TICK = 100    # ended or stopped episodes re-checked per tick
ENDINGS_KEPT = 400        # per run, the newest endings kept for the error-rate alert
SMALL_FILE = 64 * 1024    # error.json, plan files
INSTANCE = re.compile(r"instance_\d+")
# what eval writes at the top of a records root (ours a superset of clem eval's: taken from where eval writes
# them, so a file eval adds is never called a stray), and the log clemcore's tools leave beside them
RESULTS_FILES = {*EVAL_FILES, "clembench.log"}


@dataclass
class _Folder:
    depth: int                 # 0 the root, 1 a run, 2 a game, 3 an experiment
    mtime: int = -1
    changed: float = 0.0       # our clock when its time last changed
    children: set = field(default_factory=set)


class RecordsTree:
    def __init__(self, root: str | Path, cache: SummaryCache | None = None, clock=time.time) -> None:
        self.root = Path(root)
        self.cache = cache
        self.clock = clock
        self.episodes: dict[str, EpisodeInfo] = {}     # by folder path
        self.runs: dict[str, RunFacts] = {}
        self.version = 0                                # grows with every change seen
        self.settled_version = 0                        # grows when an episode not LIVE changes, ends or goes
        self.live: set[str] = set()                     # the folders of the LIVE episodes
        self._folders: dict[str, _Folder] = {str(self.root): _Folder(0)}
        self._cold: deque[str] = deque()               # folders stat'ed in turns
        self._keys: dict[str, tuple] = {}              # per episode folder: its files as last read
        self._dir_times: dict[str, int] = {}           # per episode folder: its modification time
        self._active: set[str] = set()                  # polled every tick
        self._resting: deque[str] = deque()            # ended or stopped: re-checked in turns
        self._resting_members: set[str] = set()
        self._unread_running: deque[str] = deque()
        self._unread: deque[str] = deque()

    # -- what the dashboard asks ---------------------------------------------------------
    @property
    def unread(self) -> int:
        """Episodes found but not yet read (the first ticks of a large tree)."""
        return len(self._unread) + len(self._unread_running)

    def tick(self, budget: float = 0.1) -> bool:
        """Look for changes; True when something changed. Reading new episodes stops after ``budget``
        seconds (the rest waits for the next tick), so a growing tree never holds the caller long."""
        started = time.perf_counter()
        before = self.version
        now = self.clock()
        self._check_folders(now)
        for path in list(self._active):
            self._poll(path, now)
        for _ in range(min(RESTING_PER_TICK, len(self._resting))):
            path = self._resting.popleft()
            if path in self.episodes and path not in self._active:
                self._resting.append(path)
                self._poll(path, now)
            else:   # gone, or running again
                self._resting_members.discard(path)
        while self._unread_running or self._unread:
            queue = self._unread_running or self._unread
            self._refresh(queue.popleft(), now)
            if time.perf_counter() - started > budget:
                break
        if self.cache is not None:
            self.cache.maybe_save(now, complete=not self.unread)
        return self.version != before


    # -- folders above the episodes --------------------------------------------------------
    def _check_folders(self, now: float) -> None:
        hot = [p for p, f in self._folders.items() if f.depth <= 1 or now - f.changed < HOT]
        cold = []
        for _ in range(min(FOLDERS_PER_TICK, len(self._cold))):
            path = self._cold.popleft()
            if path in self._folders:
                cold.append(path)
                self._cold.append(path)
        for path in dict.fromkeys(hot + cold):
            folder = self._folders.get(path)
            if folder is None:
                continue
            try:
                st = os.stat(path)
            except OSError:
                if folder.depth:
                    self._forget_folder(path)
                continue
            if st.st_mtime_ns != folder.mtime or now - st.st_mtime < RACY:
                if st.st_mtime_ns != folder.mtime:
                    folder.changed = now
                folder.mtime = st.st_mtime_ns
                self._list(path, folder)

    def _list(self, path: str, folder: _Folder) -> None:
        try:
            with os.scandir(path) as entries:
                found = {e.name: e for e in entries if not e.name.startswith(".")}
        except OSError:
            return
        if folder.depth == 1:
            self._read_run(path, found)
        if folder.depth == 3:
            names = {n for n, e in found.items() if INSTANCE.fullmatch(n) and _is_dir(e)}
        else:
            names = {n for n, e in found.items() if _is_dir(e)}
        for name in names - folder.children:
            child = os.path.join(path, name)
            if folder.depth == 3:
                self._discover(child)
            else:   # a new folder is looked into at once: a new tree is found in one tick, not four
                if folder.depth == 0:
                    self.runs.setdefault(name, RunFacts(name))
                new = self._folders[child] = _Folder(folder.depth + 1, changed=self.clock())
                self._cold.append(child)
                try:
                    new.mtime = os.stat(child).st_mtime_ns
                except OSError:
                    continue
                self._list(child, new)
        for name in folder.children - names:
            child = os.path.join(path, name)
            if folder.depth == 3:
                self._forget_episode(child)
            else:
                self._forget_folder(child)
        if names != folder.children:
            self.version += 1
        folder.children = names

    def _read_run(self, path: str, found: dict) -> None:
        """The run's mode (run.json) and what its plan files say it will play."""
        facts = self.runs.setdefault(os.path.basename(path), RunFacts(os.path.basename(path)))
        problems = []
        try:
            spec = run_json(Path(path) / "run.json").get("player_models", {}).get("0", {}).get("model_spec", {})
            facts.mode = str(spec.get("mode", "text")) if isinstance(spec, dict) else "text"
        except (RecordsError, AttributeError) as exc:
            problems.append(_short(str(exc), self.root))
        planned = None
        for name in found:
            if name.startswith(PLAN) and name.endswith(".json"):
                try:
                    episodes = read_json(Path(path) / name, SMALL_FILE).get("episodes")
                except (RecordsError, AttributeError) as exc:
                    problems.append(_short(str(exc), self.root))
                    continue
                if isinstance(episodes, int) and episodes >= 0:
                    planned = (planned or 0) + episodes
        before = (facts.mode, facts.planned, facts.problem)
        facts.planned = planned
        facts.problem = "; ".join(problems)
        if (facts.mode, facts.planned, facts.problem) != before:
            self.version += 1

    def _forget_folder(self, path: str) -> None:
        folder = self._folders.pop(path, None)
        if folder is None:
            return
        for name in folder.children:
            child = os.path.join(path, name)
            if folder.depth == 3:
                self._forget_episode(child)
            else:
                self._forget_folder(child)
        if folder.depth == 1:
            self.runs.pop(os.path.basename(path), None)
        self.version += 1

    # -- episodes --------------------------------------------------------------------------
    def _discover(self, path: str) -> None:
        run, game, experiment, instance = Path(path).parts[-4:]
        ep = self.episodes[path] = EpisodeInfo(run, game, experiment, instance, path, changed=self.clock())
        if os.path.exists(os.path.join(path, "error.json")):
            ep.status = ERROR
        elif os.path.exists(os.path.join(path, "completed.json")):
            ep.status = ENDED_UNREAD   # counted as done at once; its outcome when read
        if ep.status in LIVE:
            self.live.add(path)
            self._unread_running.append(path)   # what is playing is read first
        else:
            self.settled_version += 1
            self._unread.append(path)

    def _forget_episode(self, path: str) -> None:
        ep = self.episodes.pop(path, None)
        if ep is not None and ep.status not in LIVE:
            self.settled_version += 1
        self.live.discard(path)
        self._keys.pop(path, None)
        self._dir_times.pop(path, None)
        self._active.discard(path)
        self.version += 1

    def _poll(self, path: str, now: float) -> None:
        if path not in self.episodes:
            return
        try:
            st = os.stat(path)
        except OSError:
            return   # its experiment's folder says when it is gone
        if st.st_mtime_ns != self._dir_times.get(path) or now - st.st_mtime < RACY:
            self._refresh(path, now)
        elif path in self._active:
            self._age(path, now)

    def _refresh(self, path: str, now: float) -> None:
        ep = self.episodes.get(path)
        if ep is None:
            return
        try:
            self._dir_times[path] = os.stat(path).st_mtime_ns
        except OSError:
            return
        stat = _stat(os.path.join(path, "interactions.json"))   # a few stats cost less than listing the folder
        ends = {n: st for n in ("completed.json", "error.json") if (st := _stat(os.path.join(path, n)))}
        markers = tuple(ends)
        key = (markers, (stat.st_ino, stat.st_mtime_ns, stat.st_size) if stat else None)
        if self._keys.get(path) == key:
            self._age(path, now)
            return
        first = path not in self._keys
        self._keys[path] = key
        was = ep.status
        self._read(ep, path, markers, stat, first)
        ep.changed = now
        self._moved(path, ep, was)
        ended = ep.status in ENDED or ep.status == DAMAGED
        if ended and (first or was in LIVE):
            ep.ended_at = max((st.st_mtime for st in ends.values()), default=stat.st_mtime if stat else now)
            self._note_ending(ep)
        if ended:
            self._rest(path)
        else:
            self._active.add(path)
            self._age(path, now)

    def _read(self, ep: EpisodeInfo, path: str, markers: tuple, stat, first: bool) -> None:
        """The episode's row from its files (or from the cache, for an ended episode already read once)."""
        cache_key = (markers, (stat.st_mtime_ns, stat.st_size) if stat else None)
        if markers and self.cache is not None and self.cache.fill(ep, cache_key):
            return
        ep.problem = ""
        if stat and stat.st_size > VIEW_LIMIT:
            self._too_large(ep, path, markers, stat.st_size)
        else:
            self._parse(ep, path, markers, first, stat is not None)
        if markers and self.cache is not None and ep.status != DAMAGED:
            self.cache.keep(ep, cache_key)

    def _too_large(self, ep: EpisodeInfo, path: str, markers: tuple, size: int) -> None:
        """An interactions.json over ``VIEW_LIMIT`` is not parsed (it would hold the dashboard for seconds):
        the row says so, with what the other files tell (running, errored, ended with its outcome unread)."""
        note = f"interactions.json is {size / MB:.0f} MB, over the {VIEW_LIMIT // MB} MB watch reads: not read"
        if "error.json" in markers:
            ep.status, ep.main_score = ERROR, None
            try:
                ep.problem = f"{error_message(read_json(Path(path) / 'error.json', SMALL_FILE))}; {note}"
            except RecordsError:
                ep.problem = note
            return
        ep.status = ENDED_UNREAD if "completed.json" in markers else RUNNING
        ep.main_score, ep.problem = None, note

    def _parse(self, ep: EpisodeInfo, path: str, markers: tuple, first: bool, written: bool) -> None:
        try:
            data = read_json(Path(path) / "interactions.json", VIEW_LIMIT) if written else None
            if data is not None:
                reading = read_interactions(data, since=ep.turns if not first or not markers else 1 << 30)
                ep.turns, ep.goals, ep.goal_count = reading.turns, reading.goals, reading.goal_count
                ep.last_command, ep.repeats, ep.since_progress = (reading.last_command, reading.repeats,
                                                                  reading.since_progress)
                ep.began, ep.finished = reading.began, reading.finished
                ep.scored = reading.scored
                if reading.stamps:
                    ep.last_stamp = self.runs.setdefault(ep.run, RunFacts(ep.run)).add_turns(
                        ep.last_stamp, reading.stamps)
            if "error.json" in markers:
                ep.status, ep.main_score = ERROR, None
                ep.problem = error_message(read_json(Path(path) / "error.json", SMALL_FILE))
            elif "completed.json" in markers:
                if data is None:
                    raise RecordsError("completed.json without interactions.json")
                ep.status, ep.main_score = outcome(data)
            else:
                ep.status = RUNNING if data is not None else STARTING
        except RecordsError as exc:
            ep.status, ep.problem = DAMAGED, _short(str(exc), self.root)

    def _age(self, path: str, now: float) -> None:
        """A running episode not written for ``QUIET_AFTER`` seconds is stopped (and the reverse)."""
        ep = self.episodes[path]
        if ep.status not in (RUNNING, STARTING, STOPPED):
            return
        stamp = self._keys.get(path, ((), None))[1]
        written = stamp[1] / 1e9 if stamp else self._dir_times.get(path, 0) / 1e9
        quiet = now - written > QUIET_AFTER
        if quiet and ep.status != STOPPED:
            was, ep.status = ep.status, STOPPED
            self._moved(path, ep, was)
            self._rest(path)
        elif not quiet and ep.status == STOPPED:
            ep.status = RUNNING if ep.turns else STARTING
            self._moved(path, ep, STOPPED)
            self._active.add(path)

    def _moved(self, path: str, ep: EpisodeInfo, was: str) -> None:
        """``ep`` changed (from status ``was``): what the dashboard keeps of settled episodes is kept
        until one of them changes, so a tick of running episodes costs what they cost."""
        self.version += 1
        if ep.status in LIVE:
            self.live.add(path)
        else:
            self.live.discard(path)
        if was not in LIVE or ep.status not in LIVE:
            self.settled_version += 1

    def _rest(self, path: str) -> None:
        self._active.discard(path)
        if path not in self._resting_members:
            self._resting_members.add(path)
            self._resting.append(path)

    def _note_ending(self, ep: EpisodeInfo) -> None:
        facts = self.runs.setdefault(ep.run, RunFacts(ep.run))
        heapq.heappush(facts.endings, (ep.ended_at, ep.status in (ERROR, DAMAGED)))
        if len(facts.endings) > ENDINGS_KEPT:
            heapq.heappop(facts.endings)


def _stat(path: str):
    try:
        return os.stat(path)
    except OSError:
        return None


def _is_dir(entry) -> bool:
    try:
        return entry.is_dir()
    except OSError:
        return False


def _short(text: str, root: Path) -> str:
    """A problem as a row shows it: paths from the root, one line."""
    return " ".join(text.replace(f"{root}{os.sep}", "").split())[:200]



def root_problem(root: Path) -> str | None:
    """Why ``root`` cannot be watched, in one line; None when it can (an empty folder can: a batch
    about to start writes there). Looks at a bounded number of folders, whatever the tree's size."""
    root = Path(root)
    if not root.exists():
        return f"{root} does not exist: give the records folder of a batch (its --records, default records)"
    if not root.is_dir():
        return f"{root} is not a folder: give the records folder of a batch (its --records, default records)"
    if (root / "interactions.json").exists() or INSTANCE.fullmatch(root.name):
        return f"{root} is one episode: adventure replay {root} steps through it; watch takes its records folder"
    if (root / "run.json").exists():
        return f"{root} is one run's folder: watch the records folder above it (adventure watch {root.parent})"
    try:
        runs = _subfolders(root)
        if not runs:
            strays = sorted(n for n in os.listdir(root) if not n.startswith(".") and n not in RESULTS_FILES)
            return None if not strays else (
                f"{root} holds no clemcore records, only files ({', '.join(strays[:3])}"
                f"{', ...' if len(strays) > 3 else ''}): give the"
                " records folder of a batch (its --records)")
        for run in runs:
            if (run / "run.json").exists() or any(n.startswith(PLAN) for n in os.listdir(run)):
                return None
            if any(INSTANCE.fullmatch(e.name) for game in _subfolders(run) for exp in _subfolders(game)
                   for e in _subfolders(exp)):
                return None
    except OSError as exc:
        return f"{root}: cannot read it ({exc.strerror or exc})"
    return (f"{root} holds no clemcore records (ROOT/<run>/<game>/<experiment>/instance_NNNNN/):"
            " give the records folder of a batch (its --records)")


def _subfolders(path: Path, limit: int = 20) -> list[Path]:
    out = []
    with os.scandir(path) as entries:
        for entry in entries:
            if not entry.name.startswith(".") and _is_dir(entry):
                out.append(Path(entry.path))
                if len(out) >= limit:
                    break
    return out
