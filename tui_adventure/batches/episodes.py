"""One process's episodes: each played and recorded by the app's own loop, many at once on one event loop.

Every batch driver (one process, ``--procs`` workers, Ray tasks) ends up here, so an episode of a batch
is recorded exactly as one played in the app.
"""

from __future__ import annotations

import asyncio
import contextlib
import dataclasses
import gc
from dataclasses import dataclass, field
from pathlib import Path

from ..catalog import open_world as load_world
from ..records.recorder import Recorder
from ..records.files import Busy, OtherRun, RecordsError
from ..engine.text import plural
from ..engine.yamlpos import SourceErrors
from ..gamemaster.episode import ContextExhausted, Episode, play_turn
from ..gamemaster.voices import Voices
from ..players import make_player, recorder_options

# Seconds between rewrites of an episode's records while it runs (see Recorder): a batch's turns
# against a fast server come many a second, and each rewrite costs as much CPU as the turn.
CHECKPOINT = 1.0


@dataclass
class Summary:
    played: int = 0
    skipped: int = 0
    succeeded: int = 0
    errors: int = 0    # not played; the worlds that did not load are among them
    busy: int = 0      # being played by another process on the same records
    context_full: int = 0   # played, and ended when the model's context was full (scored as aborted)
    # a world that did not load, as its first mistake (file:line:col: message): kept apart because running
    # again fails the same way until the file is fixed, where a server's failure may pass
    broken: list[str] = field(default_factory=list)
    # an episode refused because its run's folder holds another kind of run (OtherRun), as what to do: the
    # same for every episode of the run, and a rerun is refused alike until --name or --records changes
    refused: list[str] = field(default_factory=list)

    def run_refused(self, exc: OtherRun) -> bool:
        """Count a refused episode; whether its reason is new (worth saying as it happens)."""
        self.errors += 1
        new = str(exc) not in self.refused
        self.refused.append(str(exc))
        return new

    def world_did_not_load(self, exc: SourceErrors) -> None:
        self.errors += 1
        if not exc.errors:
            self.broken.append(str(exc))
            return
        more = len(exc.errors) - 1
        self.broken.append(str(exc.errors[0]) + (f" (and {plural(more, 'more mistake')}: adventure check"
                                                 f" {exc.errors[0].path} lists them)" if more > 0 else ""))

    @classmethod
    def total(cls, parts) -> Summary:
        """The summaries of several workers (as ``dataclasses.asdict`` gives them) as one."""
        out = cls()
        for part in parts:
            for key, value in part.items():
                setattr(out, key, getattr(out, key) + value)
        return out


async def play_episode(world, player, records: Path, on_turn=None, name: str | None = None
                       ) -> tuple[Episode | None, bool]:
    """Play and record one episode; (episode, skipped)."""
    episode = Episode(world, voices=Voices.for_world(world))
    recorder = Recorder(records, world, name or player.name, checkpoint=CHECKPOINT,
                        **recorder_options(player, episode))
    recorder.refuse_other_run()
    if recorder.is_done():
        return None, True
    if not recorder.lock():
        raise Busy(f"{recorder.dir}: another adventure process is playing this episode; left to it")
    if recorder.is_done():   # finished by another run while we waited
        recorder.unlock()
        return None, True
    try:
        recorder.start(episode)
    except RecordsError:
        recorder.unlock()
        raise
    try:
        while not episode.ended:   # a failing player raises PlayerFailed, already recorded as error.json
            try:
                turn = await play_turn(episode, player, recorder)
            except ContextExhausted:
                break              # recorded as played and aborted (context_exhausted)
            if on_turn:
                on_turn(episode, turn)
    finally:
        recorder.flush()   # cancelled (Ctrl-C) between checkpoints: the turns played so far reach the disk
        await recorder.settled()
        recorder.unlock()   # this episode's writer ends here, whatever happened: no lock file stays behind
    if recorder.unwritten is not None:
        raise OSError(f"{recorder.dir}: the records could not be written ({recorder.unwritten})")
    return episode, False


async def run_all(files: list[Path], spec: str, records: Path, jobs: int, progress=None,
                  mode: str = "text", name: str | None = None, max_turns: int | None = None) -> Summary:
    summary = Summary()
    sem = asyncio.Semaphore(max(1, jobs))

    async def one(path: Path) -> None:
        async with sem:
            try:
                world = load_world(path)
            except SourceErrors as exc:
                summary.world_did_not_load(exc)
                if progress:
                    progress.log(str(exc))
                return
            if max_turns is not None:
                world = dataclasses.replace(world, max_turns=max_turns)
            try:
                episode, skipped = await play_episode(world, make_player(spec, world, mode), records, name=name)
            except asyncio.CancelledError:
                raise
            except Busy:
                summary.busy += 1
                return
            except OtherRun as exc:   # a folder holding another kind of run: refused, said once
                if summary.run_refused(exc) and progress:
                    progress.log(str(exc))
                return
            except RecordsError as exc:
                summary.errors += 1
                if progress:
                    progress.log(str(exc))
                return
            except Exception as exc:
                summary.errors += 1
                if progress:
                    progress.log(f"{path}: {type(exc).__name__}: {exc}")
                return
            if skipped:
                summary.skipped += 1
            else:
                assert episode is not None   # play_episode gives an episode whenever it skipped none
                summary.played += 1
                summary.succeeded += int(episode.outcome.success)
                summary.context_full += int(episode.ended_by == "context_exhausted")
            if progress:
                progress.advance(summary)

    from ..players.backends.clients import close_clients

    try:
        with _batch_gc():
            await asyncio.gather(*(one(f) for f in files))
    finally:
        await close_clients()   # the model clients all episodes shared
    return summary


@contextlib.contextmanager
def _batch_gc():
    """The garbage collector set for a batch, and set back after.

    Loading a world per episode allocates tens of thousands of objects, and with the default
    thresholds each load set off collections that walked everything alive (the imports, every
    episode in flight): a fifth of a fast turn's CPU. What exists when the batch starts is frozen
    out of the collector's walks, and it runs less often; cycles are still collected.
    """
    threshold = gc.get_threshold()
    gc.freeze()
    gc.set_threshold(max(threshold[0], 10_000), *threshold[1:])
    try:
        yield
    finally:
        gc.set_threshold(*threshold)
        gc.unfreeze()
