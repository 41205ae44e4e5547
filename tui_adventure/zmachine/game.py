"""A Z-machine story file behind the one game interface (``games.interface.Playable``), over Jericho.

Jericho knows its catalogued games by their checksum: for them, score, moves, location, inventory,
the object tree, victory, its walkthrough and the valid actions come from Jericho. For any other
story file Jericho still plays, and the game's own text serves: the status line Jericho appends to
every reply (the location, then "Score:" and "Moves:"), "*** You have won ***" and any other
"*** ... ***" ending, and the answers to "score" and "inventory", read without spending a move
(the state is saved first and put back after).

Every ``FrotzEnv`` loads its own copy of Jericho's interpreter library (``jericho._load_frotz_lib``
copies ``libfrotz.so`` before loading it), so several games live in one process; each is driven by
one thread at a time; the valid actions are searched on an interpreter of their own, set to the
game's state, so a step never waits for a search.
"""

from __future__ import annotations

import re
import threading
import warnings
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from ..engine.names import is_safe_name
from ..games.interface import Status
from . import story as story_file

MAX_TURNS = 100           # a story file's turn limit unless a run says otherwise (as our worlds' default)
INPUT_LIMIT = 190         # characters of a command given to the game (Jericho's buffer holds 198 bytes)
TREE_LIMIT = 2_000        # object-tree lines shown at most

# the interpreter's own verbs that write or read files in the working folder (Frotz's save, its transcript,
# its command recording): never sent; the workbench's undo, save and restore keep the game instead
FILE_VERBS = frozenset({"save", "restore", "script", "transcript", "unscript", "noscript", "recording", "replay"})
FILE_VERB_ANSWER = ("[The game's own save, restore, transcript and recording are off here: they would write"
                    " files. The workbench's undo, save and restore keep the game.]")

# a version-3 game's status line comes first, as it stood when the command was typed (one move behind)
_LEADING_STATUS = re.compile(r"\A>? ?[^\n]*?\s{2,}(?:Score|Moves|Turns|Time):[^\n]*\n")
_STATUS = re.compile(r"[ ]{8,}(?P<status>[^\n]*?)\s*\Z")
_STATUS_FIELDS = re.compile(r"^(?P<room>.*?)\s*(?:Score:\s*(?P<score>-?\d+)(?:\s*/\s*(?P<max>\d+))?)?\s*"
                            r"(?:(?:Moves|Turns):\s*(?P<moves>\d+))?\s*$")
_ENDING = re.compile(r"\*\*\*\s*([^*\n]{1,80}?)\s*\*\*\*")
_MAX_SCORE = re.compile(r"out of a possible\s+(\d+)", re.IGNORECASE)
_SCORED = re.compile(r"scored\s+(-?\d+)", re.IGNORECASE)


def split_status(text: str) -> tuple[str, str]:
    """(the reply without the status line and the prompt, the status line) of a raw Jericho reply. A
    status line that comes first (version 3's, one move behind) is dropped: the game then shows none."""
    text = _LEADING_STATUS.sub("", text, count=1)
    status = ""
    m = _STATUS.search(text)
    if m:
        status, text = m.group("status").strip(), text[:m.start()]
    text = text.rstrip()
    if text.endswith(">"):
        text = text[:-1].rstrip()
    return text.strip("\n"), status


def read_status(status: str) -> tuple[str, int | None, int | None, int | None]:
    """(room, score, max score, moves) of a status line; None for what it does not show."""
    m = _STATUS_FIELDS.match(status)
    if not m:
        return status, None, None, None
    number = lambda g: int(m.group(g)) if m.group(g) is not None else None   # noqa: E731
    return m.group("room").strip(), number("score"), number("max"), number("moves")


def ending_of(text: str) -> str | None:
    """The "*** ... ***" line a game prints when it ends (Inform's and ZIL's), or None."""
    m = _ENDING.search(text)
    return m.group(1).strip() if m else None


def _plain_command(command: str) -> str:
    """One line of printable ASCII the interpreter reads as typed (a newline would be a second command)."""
    line = " ".join(command.split())
    return "".join(c if " " <= c <= "~" else "?" for c in line)[:INPUT_LIMIT]


def records_name(path: Path) -> str:
    """The records' game name for a story file: its stem, with what names may not hold made ``_``."""
    name = re.sub(r"[^A-Za-z0-9_.+:@-]", "_", path.stem)[:128].lstrip(".-") or "story"
    return name if is_safe_name(name) else "story"


@dataclass
class StoryStep:
    """One command's outcome in a story file (``interface.Step``)."""

    command: str
    observation: str
    done: bool = False
    lost: str | None = None
    fail: dict | None = None
    score: int | None = None            # the score after the command (None: the game does not say)
    ending: str | None = None           # the "*** ... ***" line, when the game ended on this command
    action: str | None = None           # what the game master reads of our engine's steps: nothing here
    goal_score: int = 0                 # the change in score this command made
    scene: list = field(default_factory=list)


def open_story(path: str | Path) -> "StorySource":
    """The story file at ``path``, checked (``story.read_story``) and Jericho there
    (``story.require_jericho``); ``SourceErrors`` of one line otherwise."""
    checked = story_file.read_story(path)
    story_file.require_jericho(path)
    return StorySource(str(path), checked=checked)


def unwrapped_folder() -> Path:
    """Where a Blorb's Z-code is written for Jericho to load (the user's cache)."""
    import os

    base = os.environ.get("XDG_CACHE_HOME") or str(Path.home() / ".cache")
    return Path(base) / "tui-adventure" / "stories"


@dataclass
class StorySource:
    """A story file as a WORLD argument names it: what records, histories and saves read of a source,
    and the games it makes (``new_game``). ``open_story`` checks the file first."""

    path: str
    checked: story_file.Story | None = None
    max_turns: int = MAX_TURNS
    seed: int | None = None
    title: str = ""
    game: str = ""
    par: int | None = None
    goals: list = field(default_factory=list)
    meta: dict = field(default_factory=dict)
    strict: bool = False
    scene: None = None                  # a story file has no scene of ours (World.scene's place)
    intro: str = ""

    def __post_init__(self) -> None:
        path = Path(self.path)
        if self.checked is None:
            self.checked = story_file.read_story(path)
        self.title = self.title or path.stem
        self.game = self.game or records_name(path)
        # the records' experiment is the file's name: lighthouse.z5 and lighthouse.z8 are two experiments
        self.meta = {"zmachine": {"file": path.name, "md5": self.checked.md5, "version": self.checked.version,
                                  "release": self.checked.release, "serial": self.checked.serial},
                     "experiment": records_name(Path(path.name + ".x")), **self.meta}

    def playable(self) -> Path:
        """The file Jericho loads (a Blorb's Z-code unwrapped into the cache)."""
        assert self.checked is not None   # read in __post_init__
        return story_file.playable_file(self.checked, unwrapped_folder())

    @staticmethod
    def is_clembench() -> bool:
        return False

    def new_game(self) -> "StoryGame":
        return StoryGame(self)

    def close(self) -> None:
        """Nothing held: each game holds its own interpreter."""


class StoryGame:
    """One play-through of a story file (``interface.Playable``)."""

    par = None
    goals = None
    engine = None

    def __init__(self, story: StorySource) -> None:
        from jericho import FrotzEnv

        self.story = story
        self.title = story.title
        self._lock = threading.RLock()   # the interpreter is driven by one thread at a time
        self._search = threading.Lock()  # and the valid actions' own interpreter too
        self._searcher: Any = None       # jericho's FrotzEnv (no type stubs), made when first asked: a step never waits for a search
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")   # Jericho warns that an uncatalogued game has no helpers: we know
            self.env = FrotzEnv(str(story.playable()), seed=story.seed)
            if not self.env.bindings and story.seed is None:
                self.env.seed(1)              # Jericho's default for an uncatalogued game changes with time
        self.catalogued = bool(self.env.is_fully_supported and self.env.bindings)
        bindings = self.env.bindings or {}
        walk = bindings.get("walkthrough") if self.catalogued else None
        self.walkthrough: list[str] | None = walk.split("/") if walk else None
        self._max_score: int | None = None
        self._known_score = 0   # the last score read: what stands while the game asks a question
        self.restart()
        self._max_score = self._read_max_score() or None   # fixed for the game: read once, at its start

    # -- playing --------------------------------------------------------------------
    def restart(self) -> None:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            raw, _ = self.env.reset()
        self._first, self._status = split_status(raw)
        self._ending: str | None = None
        self._score: int | None = None
        self._known_score = 0
        self._moves = 0
        self._place: tuple[int, str] | None = None   # (moves, room) when read aside with "look"
        self._read_status()

    def first_observation(self) -> str:
        return self._first

    def step(self, command: str) -> StoryStep:
        with self._lock:
            return self._step(command)

    def _step(self, command: str) -> StoryStep:
        typed = _plain_command(command)
        before = self._score or 0
        if typed.split(" ", 1)[0].lower().strip(".,!") in FILE_VERBS:
            return StoryStep(command, FILE_VERB_ANSWER, score=self._score)
        if self.over:
            # an ended game only asks to restart, restore or quit: nothing more is played
            return StoryStep(command, "[The game is over.]", done=True, score=self._score)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            raw, _, _, _ = self.env.step(typed)
        text, self._status = split_status(raw)
        self._score = None   # read again: from the status line, the ending's own words, or "score"
        self._read_status()
        self._moves_after_step()
        self._ending = self._game_ending(text)
        if self._score is None and self._ending is not None:
            m = _SCORED.search(text)   # "In that game you scored 25 out of a possible 25"
            self._score = int(m.group(1)) if m else None
        self.status()   # the score now, read without spending a move when no status line shows it
        won = self._won_now()
        lost = None if self._ending is None or won else (self._ending or "the game ended")
        return StoryStep(command, text, done=self._ending is not None, lost=lost, score=self._score,
                         ending=self._ending, goal_score=(self._score or 0) - before)

    def _game_ending(self, text: str) -> str | None:
        if self.catalogued:
            if self.env.victory():
                return ending_of(text) or "You have won"
            if self.env.game_over():
                return ending_of(text) or "You have died"
            return None
        return ending_of(text)

    def _won_now(self) -> bool:
        if self._ending is None:
            return False
        if self.catalogued:
            return bool(self.env.victory())
        return "won" in self._ending.lower()

    def _read_status(self) -> None:
        _, score, top, moves = read_status(self._status)
        if self.catalogued:
            score, moves = self.env.get_score(), self.env.get_moves()
        if score is not None:
            self._score = score
        if top is not None:
            self._max_score = top
        if moves is not None:
            self._moves = moves

    def _moves_after_step(self) -> None:
        """A game whose status line shows no moves still counts the commands played."""
        if not self.catalogued and read_status(self._status)[3] is None:
            self._moves += 1

    # -- what the panels read ---------------------------------------------------------
    @property
    def won(self) -> bool:
        return self._won_now()

    @property
    def over(self) -> bool:
        return self._ending is not None

    def location(self) -> str:
        """Jericho's on a catalogued game, else the status line's; a game that shows none (Jericho gives
        a version-3 game's status line no text) answers "look" aside, its first line naming the room."""
        if self.catalogued:
            place = self.env.get_player_location()
            if place is not None and place.name:
                return place.name.capitalize()
        room = read_status(self._status)[0]
        if room:
            return room
        if self.over:   # an ended game answers nothing aside: where it ended
            return self._place[1] if self._place is not None else "?"
        if self._place is None or self._place[0] != self._moves:
            lines = [ln.strip() for ln in self._aside("look").splitlines() if ln.strip()]
            self._place = (self._moves, lines[0][:80] if lines else "?")
        return self._place[1]

    def inventory(self) -> list[str]:
        if self.catalogued:
            return [item.name for item in self.env.get_inventory()]
        text = self._aside("inventory")
        return [line.strip() for line in text.splitlines() if line.strip()]

    def status(self) -> Status:
        score = self._score
        if score is None:   # no status line says it: the game's answer to "score", read aside
            m = _SCORED.search(self._aside("score"))
            # a game waiting for an answer ("Are you sure?") answers no score: the last one stands
            score = self._score = int(m.group(1)) if m else self._known_score
        self._known_score = score
        return Status(score=score, max_score=self._max_score, moves=self._moves)

    def _read_max_score(self) -> int:
        if self.catalogued:
            return self.env.get_max_score()
        m = _MAX_SCORE.search(self._aside("score"))
        return int(m.group(1)) if m else 0

    def _aside(self, command: str) -> str:
        """The game's answer to ``command``, the game then put back as it was (no move spent)."""
        if self.over:
            return ""
        with self._lock:
            return self._answer_aside(command)

    def _answer_aside(self, command: str) -> str:
        moment = self.snapshot()
        try:
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                raw, _, _, _ = self.env.step(command)
            return split_status(raw)[0]
        finally:
            self.restore(moment)

    # -- time travel --------------------------------------------------------------------
    def snapshot(self) -> tuple:
        with self._lock:
            return (self.env.get_state(), self._status, self._ending, self._score, self._moves)

    def restore(self, moment: tuple) -> None:
        with self._lock:
            state, self._status, self._ending, self._score, self._moves = moment
            self.env.set_state(state)
            self._place = None

    # -- what only a catalogued game has ------------------------------------------------
    def valid_actions(self) -> list[str] | None:
        """Jericho's valid actions (catalogued games; needs spaCy's English model installed, never
        downloaded); None otherwise."""
        if not self.catalogued or not story_file.valid_actions_model():
            return None
        with self._lock:   # the moment is taken here; the search runs on an interpreter of its own
            state = self.env.get_state()
        with self._search, warnings.catch_warnings():
            warnings.simplefilter("ignore")
            if self._searcher is None:
                from jericho import FrotzEnv

                self._searcher = FrotzEnv(str(self.story.playable()), seed=self.story.seed)
            self._searcher.set_state(state)
            found = story_file.valid_actions(self._searcher)
        return None if found is None else list(found)

    def object_tree(self) -> list[str] | None:
        """The Z-machine's object tree as indented lines, each object under its parent (catalogued games:
        Jericho reads no other game's object table); None otherwise."""
        if not self.catalogued:
            return None
        return tree_lines(self.env.get_world_objects())

    def close(self) -> None:
        self.env.close()
        if self._searcher is not None:
            self._searcher.close()


def tree_lines(objects: list) -> list[str]:
    """Jericho's object table (``get_world_objects()``) as indented lines, ``NUM: NAME`` under its parent,
    at most ``TREE_LIMIT``. Object n is the list's nth: Jericho leaves the number of some (zork1's rooms'
    parent among them) 0. A damaged table that loops shows each object once."""
    children: dict[int, list[tuple[int, str]]] = {}
    for num, obj in enumerate(objects):
        if num != 0:   # 0 is no object: the parent of the roots, not a node
            children.setdefault(obj.parent, []).append((num, obj.name))
    lines: list[str] = []
    shown: set[int] = set()

    def walk(parent: int, depth: int) -> None:
        for num, name in children.get(parent, []):
            if len(lines) >= TREE_LIMIT or depth > 64:
                return
            if num not in shown:
                shown.add(num)
                lines.append(f"{'  ' * depth}{num}: {name or '(no name)'}")
                walk(num, depth + 1)

    walk(0, 0)
    return lines
