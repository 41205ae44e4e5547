"""``adventure run``: episodes without a screen, many at once, with a progress bar.

Every episode goes through the same loop and recorder as the app. An episode
that already has ``completed.json`` is skipped, so a rerun resumes; Ctrl-C
stops the run between turns, and every episode finished before it stays valid
(an interrupted one is simply played again next time).
"""

from __future__ import annotations

import asyncio
from dataclasses import dataclass
from pathlib import Path

from .clembench.records import Busy, Recorder, model_spec_of
from .catalog import expand, open_world as load_world
from .engine.yamlpos import SourceErrors
from .gamemaster.episode import Episode, play_turn
from .players import make_player


@dataclass
class Summary:
    played: int = 0
    skipped: int = 0
    succeeded: int = 0
    errors: int = 0
    busy: int = 0      # being played by another process on the same records


def world_files(paths: list[str]) -> list[str]:
    """Files, folders (their ``*.yaml``) and packaged names (``clembench/<experiment>``) as worlds."""
    return expand(paths)


async def play_episode(world, player, records: Path, on_turn=None) -> tuple[Episode | None, bool]:
    """Play and record one episode; (episode, skipped)."""
    recorder = Recorder(records, world, player.name, **model_spec_of(player))
    if recorder.is_done():
        return None, True
    if not recorder.lock():
        raise Busy(f"{recorder.dir}: another adventure process is playing this episode; left to it")
    if recorder.is_done():   # finished by another run while we waited
        recorder.unlock()
        return None, True
    episode = Episode(world)
    recorder.start(episode)
    while not episode.ended:   # a failing player raises PlayerFailed, already recorded as error.json
        turn = await play_turn(episode, player, recorder)
        if on_turn:
            on_turn(episode, turn)
    if recorder.unwritten is not None:
        raise OSError(f"{recorder.dir}: the records could not be written ({recorder.unwritten})")
    return episode, False


async def run_all(files: list[Path], spec: str, records: Path, jobs: int, progress=None,
                  mode: str = "text") -> Summary:
    summary = Summary()
    sem = asyncio.Semaphore(max(1, jobs))

    async def one(path: Path) -> None:
        async with sem:
            try:
                world = load_world(path)
            except SourceErrors as exc:
                summary.errors += 1
                if progress:
                    progress.log(str(exc))
                return
            try:
                episode, skipped = await play_episode(world, make_player(spec, world, mode), records)
            except asyncio.CancelledError:
                raise
            except Busy:
                summary.busy += 1
                return
            except Exception as exc:
                summary.errors += 1
                if progress:
                    progress.log(f"{path}: {type(exc).__name__}: {exc}")
                return
            if skipped:
                summary.skipped += 1
            else:
                summary.played += 1
                summary.succeeded += int(episode.outcome.success)
            if progress:
                progress.advance(summary)

    from .players.backends.clients import close_clients

    try:
        await asyncio.gather(*(one(f) for f in files))
    finally:
        await close_clients()   # the model clients all episodes shared
    return summary


def run(paths: list[str], spec: str, records: str = "records", jobs: int = 1, mode: str = "text") -> int:
    from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeRemainingColumn

    files = world_files(paths)
    with Progress(TextColumn("{task.description}"), BarColumn(), MofNCompleteColumn(),
                  TextColumn("success {task.fields[success]}"), TimeRemainingColumn()) as bar:
        task = bar.add_task(f"{spec}", total=len(files), success="0/0")

        class Reporter:
            def advance(self, s: Summary) -> None:
                bar.update(task, advance=1, success=f"{s.succeeded}/{s.played}")

            def log(self, text: str) -> None:
                bar.console.print(text)

        try:
            summary = asyncio.run(run_all(files, spec, Path(records), jobs, Reporter(), mode=mode))
        except KeyboardInterrupt:
            bar.console.print("interrupted: finished episodes are kept; run again to resume")
            return 130
    busy = f", {summary.busy} left to another run on the same records" if summary.busy else ""
    print(f"played {summary.played}, skipped {summary.skipped} (already done), "
          f"succeeded {summary.succeeded}, errors {summary.errors}{busy}; records in {records}/")
    return 1 if summary.errors else 0
