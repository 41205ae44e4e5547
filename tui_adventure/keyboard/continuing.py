"""A person's session that continues their unfinished episode of a world instead of opening a new folder.

Quit the app mid-game and start it again: the game goes on where it stopped, in
the same episode folder, so a run holds one episode per world and person rather
than one unfinished folder per sitting (``human``, ``human-2``, ...). Only the
newest episode of the run continues, and only when it is unfinished; a finished
one stays as it is and the new game gets the next folder. ``--new`` asks for a
fresh episode whatever the last one was.
"""

from __future__ import annotations

from pathlib import Path
from typing import Protocol

from ..records.files import RecordsError
from ..records.recorder import Recorder
from ..records.resume import last_episode, read_back, unfinished
from ..engine.game import Game
from ..engine.text import plural
from ..engine.world import World
from ..zmachine.game import StorySource
from ..gamemaster.episode import Episode
from ..gamemaster.voices import Voices


class Continuing(Protocol):
    """What continuing reads and sets of a person's session (``keyboard.session.Session`` is the one)."""

    world: World | StorySource
    records: Path | None
    record_name: str
    voices: Voices | None
    episode: Episode
    recorder: Recorder | None
    seconds_before: float
    continued: str
    visited: set[str | None]   # room_id()s met (None: a story file that does not say where)

    @property
    def game(self) -> Game | None: ...

    def room_id(self) -> str | None: ...

    def foreign(self, run_dir: Path) -> bool: ...

    def begin(self) -> None: ...


def continue_last(session: Continuing, options: dict) -> bool:
    """Continue the run's last episode of the session's world if it is unfinished (True), its state
    rebuilt from its records; ``session.continued`` says what happened either way. A world with
    model-voiced characters cannot be replayed without asking its voices again: it starts afresh."""
    world = session.world
    assert session.records is not None   # called only for a session that keeps records
    recorder = last_episode(session.records, world, session.record_name, options, skip=session.foreign)
    if recorder is None or not unfinished(recorder) or recorder.clash() or not recorder.lock():
        return False
    if session.voices is not None:
        recorder.unlock()
        session.continued = f"[a new episode: {recorder.dir} is unfinished, but its voiced characters cannot be replayed]"
        return False
    seen = {session.room_id()}
    try:
        read_back(recorder, session.episode, lambda turn: seen.add(session.room_id()))
    except (RecordsError, OSError, ValueError) as exc:
        recorder.unlock()
        session.episode.play.close()
        session.episode = Episode(world, voices=session.voices)
        session.continued = f"[a new episode: the unfinished one could not be continued ({exc})]"
        return False
    session.recorder = recorder
    session.seconds_before = float(recorder.meta_extra.get("seconds") or 0.0)
    session.begin()
    session.visited |= seen
    n = len(session.episode.turns)
    session.continued = (f"[continuing your unfinished game: turn {n + 1}, after {plural(n, 'turn')} played before"
                         f" (records: {recorder.dir}); --new starts a fresh one]")
    return True
