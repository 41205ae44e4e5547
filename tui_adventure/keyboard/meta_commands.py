"""The meta-commands a person types beside game commands (undo, save, score...): none takes game time.

One table, ``COMMANDS``, names each with its help line and its function
(``restore``, which awaits, is run apart); the session runs them
(``Session.meta``) and both front ends show the result as a ``Feedback``. What blind play allows is decided here once: undo, restart,
save and restore need ``Visibility.undo``, and ``score`` tells a blind player
only what a model could count for itself.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Callable, Protocol

from ..engine.snapshot import SaveError, list_saves, save_file_name, save_game
from .figures import par_label
from ..gamemaster.episode import Turn
from ..engine.text import plural
from ..engine.game import Game
from ..engine.world import World
from ..zmachine.game import StorySource
from ..gamemaster.episode import Episode
from ..zmachine.saves import list_story_saves, save_story
from .completion import GameWords, Words
from .figures import Panels, Visibility
from .panel_data import metrics_so_far


class Playing(Protocol):
    """What a meta-command reads and calls of the session it runs in (``keyboard.session.Session`` is the one)."""

    world: World | StorySource
    episode: Episode
    saves: Path
    show: Visibility

    @property
    def words(self) -> Words | GameWords: ...

    @property
    def game(self) -> Game | None: ...

    def look(self) -> str: ...

    def example_commands(self) -> str: ...

    def undo(self, n: int = 1, kind: str = "undo") -> int: ...

    def restart(self, kind: str = "restart") -> None: ...

    async def restore(self, name: str) -> None: ...

    def panels(self, progress: bool = False) -> Panels: ...

META_COMMANDS = {
    "undo": "undo [N]: take back the last turn (or N turns)",
    "restart": "restart: start the episode again",
    "save": "save [NAME]: save the game (in saves/, a folder per world)",
    "restore": "restore [NAME]: go back to a saved game (the newest when no name)",
    "saves": "saves: list the saved games of this world",
    "help": "help: what you can type",
    "score": "score: goals, turns, par and scores so far",
    "quit": "quit: leave (the records so far are kept)",
}
UNDOING = ("undo", "restart", "save", "restore", "saves")   # what Visibility.undo allows
MAX_SAVES = 100   # saves of one world in one folder: a served visitor's cannot grow without end


@dataclass
class Feedback:
    """What one typed line did: ``turn`` (a game turn), ``meta`` (no game time), ``restart`` (a new
    episode: the transcript starts again), ``error`` or ``quit``."""

    kind: str
    text: str
    turn: Turn | None = None


def _undo(session: Playing, arg: str) -> Feedback:
    try:
        n = int(arg) if arg else 1
    except ValueError:
        return Feedback("error", f"undo takes a number of turns, not {arg!r}")
    done = session.undo(n)
    if not done:
        return Feedback("error", "Nothing to undo.")
    return Feedback("meta", f"[undid {plural(done, 'turn')}]\n{session.look()}")


def _restart(session: Playing, arg: str) -> Feedback:
    session.restart()
    return Feedback("restart", f"[restarted]\n{session.episode.play.first_observation()}")


def saves_of(session: Playing) -> list:
    """This world's saves in the session's folder (a story file's: the saves of its Z-code)."""
    world = session.world
    if not isinstance(world, World):
        return list_story_saves(world, session.saves)
    return list_saves(session.saves, world)


def _save(session: Playing, arg: str) -> Feedback:
    name = arg or "quicksave"
    saves = saves_of(session)
    replaced = any(s.name == name for s in saves)
    if not replaced and len(saves) >= MAX_SAVES:
        return Feedback("error", f"There are {MAX_SAVES} saves of this world already: save over one of them"
                                 " (saves lists them) instead of adding one.")
    if session.game is None:   # a story file: its commands, replayed on restore (zmachine/saves.py)
        played = [t.command for t in session.episode.turns if t.command is not None]
        path = save_story(session.world, played, name, session.saves)
    else:
        path = save_game(session.game, name, session.saves)
    return Feedback("meta", f"[saved to {path}{', replacing the earlier save of that name' if replaced else ''}]")


def _own_save(arg: str) -> str:
    """``arg`` when it names a save of this session's own folder; for anything else (a path, ``..``, an
    absolute name) SaveError, whose words are the same whatever is on disk and never echo ``arg``."""
    try:
        save_file_name(arg)
    except SaveError:
        raise SaveError("restore takes the name of one of your saves (saves lists them), never a path: no /,"
                        " \\ or leading '.'") from None
    return arg


async def _restore(session: Playing, arg: str) -> Feedback:
    if arg:
        _own_save(arg)
    else:
        saves = saves_of(session)
        if not saves:
            return Feedback("error", f"No saves of this world in {session.saves}/.")
        arg = saves[0].name
    await session.restore(arg)
    return Feedback("meta", f"[restored {arg}: turn {len(session.episode.turns)}]\n{session.look()}")


def _saves(session: Playing, arg: str) -> Feedback:
    saves = saves_of(session)
    if not saves:
        return Feedback("meta", f"No saves of this world in {session.saves}/.")
    return Feedback("meta", "\n".join(f"{s.name}  (turn {s.turn}, {s.saved_at})" for s in saves))


def _help(session: Playing, arg: str) -> Feedback:
    verbs = ", ".join(session.words.help_verbs)
    lines = [f"Type a command and press Enter, e.g. {session.example_commands()}.",
             f"Verbs: {verbs}.", "", "Meta-commands (no game time):"]
    lines += [f"  {text}" for text in META_COMMANDS.values()]
    if session.world.is_clembench():
        lines += ["", "This is a clembench instance: a reply without \">\" gets one added; "
                      "type the \">\" yourself to send a reply exactly as written."]
    if session.episode.planning:
        lines += ["Planning variant: write your next actions after a bar, e.g."
                  " \"go kitchen | take apple, go hallway\" (without one, the plan is left empty)."]
    return Feedback("meta", "\n".join(lines))


def _score(session: Playing, arg: str) -> Feedback:
    p = session.panels(progress=True)
    if p.scored is not None or session.game is None:   # a game with a score of its own (a story file)
        lines = [f"Turns: {p.turns}/{p.max_turns}"]
        if p.scored is not None:
            score, top, moves = p.scored
            lines[:0] = [f"Score: {score} of {top if top else '?'}, in {plural(moves, 'move')}"]
            lines.append(f"Main score so far: {p.main_score:g}")
        if p.walkthrough is not None:
            lines.append(f"A known walkthrough takes {plural(p.walkthrough, 'command')} (not proven optimal)")
        return Feedback("meta", "\n".join(lines))
    if not (session.show.score or session.show.par):
        return Feedback("meta", "\n".join([f"Turns: {p.turns}", "Goals:"] + [f"  {g}" for g, _ in p.goals]))
    lines = [f"Goals: {p.goals_achieved}/{p.goal_count}" + "".join(
                 f"\n  [{'x' if ok else ' '}] {g}" for g, ok in p.goals),
             f"Turns: {p.turns}/{p.max_turns}, par {par_label(p.par, p.par_upstream)}",
             f"Main score so far: {p.main_score:g}"]
    if p.progress is not None:
        lines.append(f"Progress: {100 * p.progress:.0f}% of the optimal plan")
    m = metrics_so_far(session, p.par) if session.show.score and session.show.par else None
    if m is not None:
        over = f"Moves over par {p.moves_over_par:+d}, " if p.moves_over_par is not None else ""   # once won
        lines.append(f"{over}Turn ratio {m.turn_ratio:.2f}, full rating {m.full_rating:.2f}")
        lines.append(f"Repeated commands {100 * m.repetition_rate:.0f}%, invalid commands {m.invalid_commands},"
                     f" goal score {m.goal_score:+d}")
    return Feedback("meta", "\n".join(lines))


def _quit(session: Playing, arg: str) -> Feedback:
    return Feedback("quit", "")


async def run(session: Playing, word: str, arg: str = "") -> Feedback:
    """The meta-command ``word``; its error (a bad save name...) as an error Feedback, never raised."""
    if word in UNDOING and not session.show.undo:
        return Feedback("error", f"{word} is not available here: a model player cannot {word} either.")
    try:
        if word == "restore":
            return await _restore(session, arg)
        return COMMANDS[word](session, arg)
    except SaveError as exc:
        return Feedback("error", str(exc))


COMMANDS: dict[str, Callable[[Playing, str], Feedback]] = {   # restore awaits: run calls it apart
    "undo": _undo, "restart": _restart, "save": _save, "saves": _saves,
    "help": _help, "score": _score, "quit": _quit}
