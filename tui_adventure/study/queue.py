"""One participant's way through a study: the order of the worlds, where to resume, a session per world.

The records are the state: a world is done when its episode folder under
``human-<ID>`` has ``completed.json``, so quitting and running the same
command again resumes at the first unfinished world, and nothing else needs
to be kept in step. The only other file is the study's list of participants
in the order they arrived, which a Latin square needs to give each newcomer
the next row (and which says whether the practice world was played).
"""

from __future__ import annotations

import hashlib
import json
import random
import re
import time
from dataclasses import dataclass
from datetime import datetime
from pathlib import Path

from ..records.files import DISCARDED, Busy, FolderLock, mark_study, studies_in, study_of
from ..records.recorder import Recorder
from ..engine.names import inside
from ..engine.snapshot import write_atomic
from ..keyboard.history import History
from ..keyboard.session import Session
from .spec import Entry, Study

PARTICIPANT = re.compile(r"[A-Za-z0-9_-]{1,64}")
ROSTER_WAIT = 10.0   # seconds a participant's start waits for others' to write the roster
KEPT = ("interactions.json", "player_1.requests.json", DISCARDED, "error.json", "scores.json")   # an attempt's own files


def check_participant(pid: str) -> str:
    """``pid`` itself when it is letters, digits, ``-`` and ``_`` (it becomes a folder name); ValueError otherwise."""
    if not isinstance(pid, str) or not PARTICIPANT.fullmatch(pid):
        raise ValueError(f"participant ID {pid!r}: use 1 to 64 letters, digits, '-' or '_' (it names the"
                         " participant's records folder, human-<ID>)")
    return pid


def _now() -> str:
    return datetime.now().astimezone().isoformat(timespec="seconds")


def _arrive_in(people: dict, participant: str) -> None:
    if participant not in people:
        people[participant] = {"row": len(people), "arrived": _now()}


CLASSIC_COMMANDS = 'short commands such as "north", "take lamp", "look" and "inventory"'


def is_story_file(world) -> bool:
    """The world is a Z-machine story file (its source says so in its meta), played in its own words."""
    return isinstance(world.meta.get("zmachine"), dict)


def what_it_asks(world) -> str:
    """What a world asks of a participant beyond short commands, in words for lay people (with a leading
    space), or "": several characters played in turn, the clembench worlds' way of moving, and a story
    file's classic commands."""
    said = []
    if is_story_file(world):
        said.append(f"This is a classic text adventure: type {CLASSIC_COMMANDS}; the game answers in its own words.")
    spec = getattr(world, "scene_spec", None)   # a story file has no scenes of ours
    players = spec.players if spec is not None else ()
    if len(players) > 1:
        names = [world.name_of(p) for p in players]
        said.append(f"In this world you play {len(names)} characters in turn ({', '.join(names)}): each turn,"
                    " your command moves the one whose turn it is.")
    if world.is_clembench():
        said.append('Here you move by naming a room, as in "go hallway"; "look" and directions such as'
                    ' "north" are not commands in this world.')
    return "".join(f" {s}" for s in said)


def sitting(study: Study, records: str | Path, participant: str) -> FolderLock:
    """The lock one participant's sitting holds (``StudyRun.hold``); Busy, saying so, while another holds it."""
    folder = inside(Path(records), ".studies", f"{study.key or study.slug}.sittings", check_participant(participant))
    try:
        return FolderLock(folder, "this participant's sitting").acquire()
    except Busy:
        raise Busy(f"participant {participant} is already playing {study.title} (another window, tab or"
                   " terminal); close that one first, then come back to resume") from None


def not_theirs(study: Study, records: str | Path, participant: str) -> str | None:
    """Why ``participant``'s folder (``human-<ID>``) is not theirs to play in, or None: it holds episodes
    another study or ``adventure play`` wrote, which would count as this participant's done worlds."""
    folder = inside(Path(records), f"human-{participant}")
    ours = {study.key, study.title}   # the title: episodes recorded before studies had ids
    marked = study_of(folder, look=0)
    others = ({marked} if marked is not None and marked not in ours else set()) | (studies_in(folder) - ours)
    if not others:
        return None
    whose = "an `adventure play` session's (its second session is also named human-2, -3...)" if None in others \
        else f"another study's ({sorted(o for o in others if o is not None)[0]})"
    return (f"{folder} holds {whose} episodes, not this study's: give this study its own --records folder"
            " (or the participant another ID)")


def is_sitting(study: Study, records: str | Path, participant: str) -> str | None:
    """Why ``participant`` cannot start a sitting now (another holds it, or their folder is not theirs), or None."""
    clash = not_theirs(study, records, participant)
    if clash:
        return clash
    try:
        sitting(study, records, participant).release()
    except Busy as exc:
        return str(exc)
    return None


def latin_row(n: int, row: int) -> list[int]:
    """Row ``row`` of a balanced Latin square over ``n`` worlds (Williams' design): over n rows (2n when n
    is odd) every world stands in every position once and follows every other world once, so neither
    practice nor fatigue favours a world."""
    first, low, high = [], 0, n - 1
    for i in range(n):
        if i % 2 == 0:
            first.append(low)
            low += 1
        else:
            first.append(high)
            high -= 1
    rows = n if n % 2 == 0 else 2 * n
    r = row % rows
    shifted = [(x + r) % n for x in first]
    return shifted if r < n else shifted[::-1]


@dataclass
class Stage:
    """One world of this participant's queue: its place in the queue and in the study file."""

    position: int        # 0-based, in the participant's order
    index: int           # 0-based, in the study file
    entry: Entry
    practice: bool = False


class StudyRun:
    """A participant's queue over ``records``: what is done, what comes next, a session for it."""

    def __init__(self, study: Study, participant: str, records: str | Path = "records",
                 visit: dict | None = None, check: bool = False) -> None:
        """``visit``: how the participant came (a browser's facts, a platform's IDs; ``visit.py``), kept
        in every episode's meta. ``check``: only look (``--check``): a participant not yet on the roster
        is shown the row they would take, and nothing is written."""
        self.study = study
        self.participant = check_participant(participant)
        self.records = Path(records)
        self.visit = dict(visit or {})
        self.run_name = f"human-{participant}"
        self.roster_path = inside(self.records, ".studies", f"{study.key or study.slug}.json")
        # the roster of a study from before studies had ids, named by its title's slug: read, and taken over
        # at the first write, by the study of exactly that title
        self.legacy_roster = inside(self.records, ".studies", f"{study.slug}.json")
        self._lock: FolderLock | None = None
        clash = not_theirs(study, self.records, participant)
        if clash:
            raise ValueError(clash)
        person = self._roster().get("participants", {}).get(participant)
        self.consented: str | None = person.get("consent") if isinstance(person, dict) else None
        if self.needs_consent() or (check and not isinstance(person, dict)):
            # nothing is written before the participant agrees: the order shown (--check) is the one the
            # next newcomer would get
            self._place(len(self._roster().get("participants", {})))
        else:
            self._place(self._arrive())

    def _place(self, row: int) -> None:
        self.row = row
        study, n = self.study, len(self.study.worlds)
        if study.order == "shuffled":
            order = list(range(n))
            seed = hashlib.sha256(f"{study.title}\0{self.participant}".encode()).digest()
            random.Random(seed).shuffle(order)
        elif study.order == "latin":
            order = latin_row(n, row)
        else:
            order = list(range(n))
        self.stages = [Stage(pos, i, study.worlds[i]) for pos, i in enumerate(order)]

    # -- consent -------------------------------------------------------------------------------
    def needs_consent(self) -> bool:
        return bool(self.study.consent) and not self.consented

    def agree(self) -> None:
        """The participant agreed to the study's consent text: kept with its time, and they arrive."""
        when = _now()

        def add(data: dict) -> None:
            people = data["participants"]
            _arrive_in(people, self.participant)
            people[self.participant]["consent"] = when
        self._place(int(self._update_roster(add)["participants"][self.participant]["row"]))
        self.consented = when

    def decline(self) -> None:
        """The participant did not agree: the refusal and its time are all that is kept of them."""
        when = _now()
        self._update_roster(lambda data: data.setdefault("declined", {}).setdefault(self.participant, []).append(when))

    # -- one sitting at a time ---------------------------------------------------------------------
    def hold(self) -> "StudyRun":
        """Hold this participant's place in the study for this process: a second window, tab or terminal
        with the same ID is refused (Busy) instead of playing the same world twice."""
        self._lock = sitting(self.study, self.records, self.participant)
        return self

    def release(self) -> None:
        if self._lock is not None:
            self._lock.release()
            self._lock = None

    # -- the roster ----------------------------------------------------------------------
    def _roster(self) -> dict:
        data = self._read_roster(self.roster_path)
        if not data and not self.roster_path.exists() and self.legacy_roster != self.roster_path:
            legacy = self._read_roster(self.legacy_roster)
            data = legacy if legacy.get("study") == self.study.title else {}
        return data

    @staticmethod
    def _read_roster(path: Path) -> dict:
        try:
            data = json.loads(path.read_text(encoding="utf-8"))
            return data if isinstance(data, dict) and isinstance(data.get("participants"), dict) else {}
        except (OSError, ValueError):
            return {}

    def _update_roster(self, change) -> dict:
        """Read, change and write the roster under a lock: participants who start at once take turns (the lock
        is held for a read and a write, milliseconds), so one waits rather than fails."""
        deadline = time.monotonic() + ROSTER_WAIT
        while True:
            try:
                lock = FolderLock(self.roster_path.parent, "the study's roster").acquire()
                break
            except Busy:
                if time.monotonic() > deadline:
                    raise
                time.sleep(0.01)
        try:
            adopted = not self.roster_path.exists() and bool(self._roster())
            data = self._roster() or {"study": self.study.title, "participants": {}}
            data["id"] = self.study.key
            change(data)
            write_atomic(self.roster_path, json.dumps(data, indent=1).encode())
            if adopted:   # the old roster is this study's now: no other study of that slug finds it
                self.legacy_roster.unlink(missing_ok=True)
            return data
        finally:
            lock.release()

    def _arrive(self) -> int:
        """This participant's row: the order they first arrived in (kept, so a resumed session keeps it)."""
        return int(self._update_roster(lambda data: _arrive_in(data["participants"], self.participant))
                   ["participants"][self.participant]["row"])

    def on_roster(self) -> bool:
        """Whether this participant has arrived (holds a row of the roster)."""
        return isinstance(self._roster().get("participants", {}).get(self.participant), dict)

    def practice_done(self) -> bool:
        return bool(self._roster().get("participants", {}).get(self.participant, {}).get("practice_done"))

    def mark_practice_done(self) -> None:
        self._update_roster(lambda data: data["participants"][self.participant].update(practice_done=True))

    # -- progress ---------------------------------------------------------------------------
    def recorder(self, stage: Stage) -> Recorder:
        return Recorder(self.records, stage.entry.world, self.run_name)

    def done(self, stage: Stage) -> bool:
        return self.recorder(stage).is_done()

    def done_count(self) -> int:
        return sum(1 for s in self.stages if self.done(s))

    def next_stage(self) -> Stage | None:
        """The practice world first (once), then the first world of the queue not finished yet."""
        if self.study.practice is not None and not self.practice_done() and not self.done_count():
            return Stage(-1, -1, self.study.practice, practice=True)
        return next((s for s in self.stages if not self.done(s)), None)

    def intermission(self, stage: Stage | None) -> str:
        """What the participant reads before a world (or after the last)."""
        n = len(self.stages)
        if stage is None:
            return (f"The world of {self.study.title} is done" if n == 1 else
                    f"All {n} worlds of {self.study.title} are done") + ". Thank you!"
        asks = what_it_asks(stage.entry.world)
        if stage.practice:
            teaches = ""
            if any(is_story_file(e.world) for e in self.study.worlds) and not is_story_file(stage.entry.world):
                teaches = f" It teaches the commands this study's games take: {CLASSIC_COMMANDS}."
            return f"First a practice world: it is not recorded.{teaches}{asks} Press Enter when ready."
        done = self.done_count()
        return f"{done} of {n} done; next is world {done + 1} of {n}.{asks} Press Enter when ready."

    def heading(self, stage: Stage) -> str:
        """What a participant reads above the next world, ``stage``: its place in the study, never an
        instance's id ("Pilot: World 2 of 4", "Pilot: Practice")."""
        place = "Practice" if stage.practice else f"World {self.done_count() + 1} of {len(self.stages)}"
        return f"{self.study.title}: {place}"

    # -- sessions --------------------------------------------------------------------------------
    def session(self, stage: Stage) -> Session:
        """A blind (or as the study says) session for ``stage``; an attempt left unfinished is set aside
        first (its files renamed ``attempt-N.*`` in the same folder, so nothing is lost) and the world
        starts again from its first turn."""
        entry = stage.entry
        # a participant's lines and saves are theirs alone: no history file another participant's up-arrow
        # reads, saves in their own folder
        history = History(None)
        saves = inside(self.records, ".studies", f"{self.study.key}.saves", self.participant)
        if stage.practice:
            return Session(entry.world, records=None, show=self.study.show, time_limit=entry.time_limit,
                           history=history, saves=saves)
        mark_study(inside(self.records, self.run_name), self.study.key, self.study.title)
        attempt = self._set_aside(stage)
        meta = {"study": {"id": self.study.key, "title": self.study.title, "participant": self.participant,
                          "order": self.study.order,
                          "row": self.row, "position": stage.position + 1, "of": len(self.stages),
                          "world_index": stage.index, "world": entry.label, "attempt": attempt,
                          **({"time_limit": entry.time_limit} if entry.time_limit else {}),
                          **({"consent": self.consented} if self.consented else {}),
                          **({"platform": self.visit["platform"]} if self.visit.get("platform") else {})}}
        if self.visit.get("browser"):
            meta["browser"] = self.visit["browser"]
        return Session(entry.world, records=self.records, name=self.run_name, show=self.study.show,
                       time_limit=entry.time_limit, meta=meta, history=history, saves=saves)

    def _set_aside(self, stage: Stage) -> int:
        """Rename an unfinished attempt's files out of the way; the number of this attempt (1 for the first)."""
        folder = self.recorder(stage).dir
        earlier = len({p.name.split(".")[0] for p in folder.glob("attempt-*.*")}) if folder.is_dir() else 0
        if not any((folder / name).exists() for name in KEPT):
            return earlier + 1
        lock = FolderLock(folder, "this episode").acquire()   # Busy: the participant plays it elsewhere right now
        try:
            for name in KEPT:
                if (folder / name).exists():
                    (folder / name).rename(folder / f"attempt-{earlier + 1}.{name}")
        finally:
            lock.release()
        return earlier + 2
