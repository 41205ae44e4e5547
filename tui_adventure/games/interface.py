"""The one game interface: what the game master, the app, the REPL and the envs ask of a game.

Two engines implement it: our own (``games.native.NativeGame``, over ``engine.game.Game``) and the
Z-machine (``zmachine.game.StoryGame``, over Jericho). What every game has is required; what only one
engine has is an optional capability, typed ``X | None`` (None: this game has none), so a front end
shows what is there and never asks which engine it holds.

A ``Step`` is one command's outcome. The engine never ends an episode itself: turn limits, invalid
replies and recording are the episode loop's (``gamemaster.episode``).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Protocol


@dataclass(frozen=True)
class Status:
    """The figures a status line shows."""

    score: int                # the game's score now (our worlds: goals achieved)
    max_score: int | None     # the most it can be (None: the game does not say)
    moves: int                # the commands the game has counted


class Step(Protocol):
    """One command's outcome."""

    command: str
    fail: dict | None         # the command was refused: {"phase", "type"} (a Z-machine game: always None)
    done: bool                # the game says it is over (won, or ended by the player's ``done``)
    lost: str | None          # the game was lost on this command: what it said (None: not lost)
    goal_score: int           # the change in the game's score this command made (our worlds: in goals achieved)
    action: str | None        # "done" when the player ended the game; our engine's action id; else None
    scene: list               # what our engine's scene did after the command (logged); else empty

    @property
    def observation(self) -> str:
        """What the player reads after the command (a Z-machine game's status line taken off)."""
        ...


class Goals(Protocol):
    """A game whose goals are facts (our worlds): what the Goals panel and the planner read."""

    def facts(self) -> list[str]:
        """Every goal, as text, in the world's order."""
        ...

    def achieved(self) -> list[str]:
        """The goals that hold now, sorted."""
        ...


class GameSource(Protocol):
    """A source that makes its own games (a story file's ``zmachine.game.StorySource``); our ``World``s are
    played by our engine instead (``games.open_game``)."""

    def new_game(self) -> Playable:
        """A new play-through."""
        ...


class Playable(Protocol):
    """One play-through of a game: commands in, observations out, and what the panels show.

    Required of every game: ``first_observation``, ``step``, ``won``, ``over``, ``location``,
    ``inventory``, ``status``, ``snapshot``/``restore`` (undo, save and restore are built on them),
    ``restart`` and ``close``. Optional (None where the game has none): ``par``, ``walkthrough``,
    ``goals``, ``valid_actions``, ``object_tree`` and ``engine``.
    """

    title: str                        # the game's name as the title bar shows it

    # read-only members (a game may hold a narrower type, or compute them)
    @property
    def par(self) -> int | None: ...   # the optimal number of moves the world states (our worlds; None: unstated)
    @property
    def walkthrough(self) -> list[str] | None: ...   # a known winning sequence, not proven optimal (Jericho's catalogue)
    @property
    def goals(self) -> Goals | None: ...   # goals as facts (our worlds)
    @property
    def engine(self) -> object | None: ...   # our engine's ``engine.game.Game``, for what only it answers (clembench's
    #                                          bookkeeping, the planner, hot-seat scenes); None for any other engine

    def first_observation(self) -> str:
        """The opening text (a Z-machine game's banner and first room)."""
        ...

    def step(self, command: str) -> Step:
        """Play one command; never raises for what a player types. (A story file's interpreter runs to the
        game's next prompt: a game that never asks again holds its process.)"""
        ...

    @property
    def won(self) -> bool:
        """The game has been won (our worlds: every goal holds; a story file: it said so)."""
        ...

    @property
    def over(self) -> bool:
        """The game has ended itself: it takes no more moves that count (a story file won or lost; one of
        our worlds lost: a won world plays on until the player's ``done``, as clembench's does)."""
        ...

    def location(self) -> str:
        """Where the player is, as the Room panel shows it ("?" when the game does not say)."""
        ...

    def inventory(self) -> list[str]:
        """What the player carries, one line each; reading it spends no move."""
        ...

    def status(self) -> Status:
        """Score, max score and moves now; reading them spends no move."""
        ...

    def snapshot(self) -> tuple:
        """The game's whole state now, for ``restore`` (kept in memory; opaque to callers)."""
        ...

    def restore(self, moment: tuple) -> None:
        """Back to a ``snapshot``'s moment."""
        ...

    def restart(self) -> None:
        """Back to the start."""
        ...

    def valid_actions(self) -> list[str] | None:
        """The commands that would change something here (may take a while: call off the UI thread);
        None when this game cannot tell."""
        ...

    def object_tree(self) -> list[str] | None:
        """The game's objects as indented lines (the debug screen); None when it cannot tell."""
        ...

    def close(self) -> None:
        """Let go of what the game holds (an interpreter); the game is not played again."""
        ...
