"""One episode of a records tree as the dashboard keeps it: a few figures, never its transcript.

A watched tree may hold tens of thousands of episodes, so each is reduced to
what its row shows (turn, goals, last command, outcome) the moment it is
read, and the parsed file is dropped. The outcome of a finished episode is
clembench's, from the scorer (``score_interactions``): the dashboard never
counts success or Main Score its own way.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from datetime import datetime

from ..records.files import RecordsError, is_player
from ..records.scorer import score_interactions
from ..engine import metrics as m
from ..zmachine.story import is_story_path

# What an episode is doing, as its files say.
STARTING = "starting"    # instance.json, no turn yet
RUNNING = "running"      # turns written lately, no end yet
STOPPED = "stopped"      # no end, and nothing written for a while: its batch was stopped (a rerun plays it again)
ENDED_UNREAD = "ended"   # completed.json seen, its outcome not read yet (the first ticks of a large tree)
SUCCESS = "success"
LOST = "lost"
ABORTED = "aborted"
ERROR = "error"          # error.json: the player failed (a server gave up)
DAMAGED = "damaged"      # a record file that cannot be read
DONE = (SUCCESS, LOST, ABORTED, ENDED_UNREAD)
ENDED = DONE + (ERROR,)
LIVE = (RUNNING, STARTING, STOPPED)   # what changes turn by turn; the rest changes only when a rerun starts it again
STATUSES = (RUNNING, STARTING, STOPPED, SUCCESS, LOST, ABORTED, ENDED_UNREAD, ERROR, DAMAGED)

STUCK_TURNS = 10       # "stuck": no goal reached in this many turns...
STUCK_REPEATS = 3      # ...or the same command this many turns in a row
COMMAND_CHARS = 80     # a row keeps this much of the last command


@dataclass(slots=True)
class EpisodeInfo:
    """An episode's row. ``changed`` is when the watcher last saw it change (its own clock);
    ``ended_at`` the modification time of its last write once it ended (to order endings)."""

    run: str
    game: str
    experiment: str
    instance: str
    path: str = ""            # its folder (the tree's key for it)
    world: str = ""           # as a person names it: the game, or an upstream experiment and its instance
    status: str = STARTING
    turns: int = 0
    goals: int = 0
    goal_count: int = 0
    last_command: str = ""
    repeats: int = 0          # the last command was played this many turns in a row
    since_progress: int = 0   # turns since a goal was last reached (or since the start)
    main_score: float | None = None
    scored: bool = False      # goals/goal_count are the game's score/max score (a story file's)
    problem: str = ""         # why it errored, or which file cannot be read
    changed: float = 0.0
    ended_at: float = 0.0
    last_stamp: float | None = None   # the writer's clock at its newest turn (seconds per turn)
    began: float | None = None        # the writer's clock at its first and last turn, all turns read
    finished: float | None = None     # (a settled run's turns per minute)

    @property
    def key(self) -> str:
        return f"{self.run}/{self.game}/{self.experiment}/{self.instance}"

    def __post_init__(self) -> None:
        if not self.world:   # made once: every sort and filter of thousands of rows reads it
            number = self.instance.removeprefix("instance_").lstrip("0") or "0"
            # our worlds: the game; a story file: its file's name (the experiment); else the instance's number
            own = self.game == self.experiment or is_story_path(self.experiment)
            self.world = self.experiment if own else f"{self.experiment} #{number}"

    def stuck(self, turns: int = STUCK_TURNS) -> bool:
        """Playing on without getting anywhere: no goal in ``turns`` turns, or one command over and over."""
        return self.status == RUNNING and (self.since_progress >= turns or self.repeats >= STUCK_REPEATS)


@dataclass(frozen=True, slots=True)
class Reading:
    """What one read of an interactions.json gives (see ``read_interactions``)."""

    turns: int
    goals: int
    goal_count: int
    last_command: str
    repeats: int
    since_progress: int
    stamps: tuple[float, ...]   # the writer's clock at each turn from ``since`` on (for seconds per turn)
    began: float | None = None      # the writer's clock at the first and the last turn (None: not stamped)
    finished: float | None = None
    scored: bool = False            # goals/goal_count are a story file's score/max score


def command_of(reply: str) -> str:
    """The command a reply played, as a row shows it: its first line, without the ``>``."""
    text = reply.strip()
    text = text[1:] if text.startswith(">") else text
    return text.split("\n", 1)[0].strip()[:COMMAND_CHARS]


def read_interactions(data, since: int = 0) -> Reading:
    """The row's figures from a parsed interactions.json; ``RecordsError`` when it is not one.
    ``since``: the turns already seen, whose timestamps are not wanted again. An episode of a game scored
    by its own score (a story file: each turn's ``action_info`` holds ``score``) counts points, not goals:
    ``goals`` is its score, ``goal_count`` its max score (0: unstated), ``since_progress`` the turns
    since it last rose."""
    if not isinstance(data, dict) or not isinstance(data.get("turns"), list):
        raise RecordsError("interactions.json is not a clemcore interactions object")
    goals = 0
    last_goals = 0
    best_at = -1   # the index of the turn that last reached a goal
    commands: list[str] = []
    stamps: list[float] = []
    began: float | None = None
    finished: float | None = None
    scored = False
    top = 0
    for index, turn in enumerate(data["turns"]):
        if not isinstance(turn, list):
            raise RecordsError(f"interactions.json: turn {index} is not a list of events")
        reply = None
        for event in turn:
            action = event.get("action") if isinstance(event, dict) else None
            if not isinstance(action, dict):
                continue
            kind = action.get("type")
            if kind == "get message" and reply is None and is_player(event.get("from")):
                reply = str(action.get("content", ""))
                stamp = _stamp(event.get("timestamp"))
                if not math.isnan(stamp):
                    began = stamp if began is None else min(began, stamp)
                    finished = stamp if finished is None else max(finished, stamp)
                if index >= since:
                    stamps.append(stamp)
            elif kind == "action_info" and isinstance(action.get("content"), dict) \
                    and isinstance(action["content"].get("score"), int):
                scored, goals = True, action["content"]["score"]
                top = action["content"].get("max_score") if isinstance(action["content"].get("max_score"), int) else 0
            elif kind in ("goal_status", "game_result") and not scored:
                content = action.get("content")
                achieved = content.get("goal_states_achieved") if isinstance(content, dict) else None
                if isinstance(achieved, list):
                    goals = len(achieved)
        if goals > last_goals:
            best_at = index
        last_goals = goals
        commands.append(command_of(reply) if reply is not None else "")
    repeats = 0
    for command in reversed(commands):
        if command != commands[-1]:
            break
        repeats += 1
    info = data.get("adventure_info")
    goal_count = top if scored else info.get("goal_count") if isinstance(info, dict) else None
    return Reading(len(commands), goals, goal_count if isinstance(goal_count, int) else 0,
                   commands[-1] if commands else "", repeats, len(commands) - 1 - best_at, tuple(stamps),
                   began, finished, scored)


def _stamp(text) -> float:
    try:
        return datetime.fromisoformat(str(text)).timestamp()
    except ValueError:
        return math.nan


def outcome(data) -> tuple[str, float | None]:
    """A completed episode's status and Main Score, as clembench's scorer sees it (NaN: None)."""
    try:
        scores = score_interactions(data)["episode scores"]
    except (KeyError, TypeError, AttributeError, IndexError, ValueError) as exc:
        raise RecordsError(f"interactions.json cannot be scored ({type(exc).__name__}: {exc})") from None
    main = scores.get(m.MAIN_SCORE)
    main = None if not isinstance(main, (int, float)) or math.isnan(main) else float(main)
    if scores.get(m.ABORTED):
        return ABORTED, main
    return (SUCCESS if scores.get(m.SUCCESS) else LOST), main


def error_message(data) -> str:
    """One line from clemcore's error.json: the exception's name and message."""
    if not isinstance(data, dict):
        return "error.json is not an object"
    text = f"{data.get('error', 'error')}: {data.get('message', '')}".strip().rstrip(":")
    return " ".join(text.split())[:200]
