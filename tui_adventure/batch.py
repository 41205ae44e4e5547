"""``adventure run``: episodes without a screen, many at once, with a progress bar.

Every episode goes through the same loop and recorder as the app. An episode
that already has ``completed.json`` is skipped, so a rerun resumes; Ctrl-C
stops the run between turns, and every episode finished before it stays valid
(an interrupted one is simply played again next time).
"""

from __future__ import annotations

import asyncio
import contextlib
import dataclasses
import gc
import hashlib
import signal
import threading
import sys
from dataclasses import dataclass
from pathlib import Path
from urllib.parse import urlparse

from .clembench.recorder import Recorder
from .clembench.records import Busy, RecordsError
from .catalog import expand, open_world as load_world
from .engine.yamlpos import SourceErrors
from .gamemaster.episode import ContextExhausted, Episode, play_turn
from .gamemaster.voices import Voices
from .players import learned_note, make_player, recorder_options
from .players.base import ModelBacked

# Seconds between rewrites of an episode's records while it runs (see Recorder): a batch's turns
# against a fast server come many a second, and each rewrite costs as much CPU as the turn.
CHECKPOINT = 1.0


@dataclass
class Summary:
    played: int = 0
    skipped: int = 0
    succeeded: int = 0
    errors: int = 0
    busy: int = 0      # being played by another process on the same records
    context_full: int = 0   # played, and ended when the model's context was full (scored as aborted)


def parse_shard(text: str | None) -> tuple[int, int] | None:
    """``I/N`` (1 <= I <= N) as (I, N); ValueError with the form it takes."""
    if text is None:
        return None
    first, sep, second = text.partition("/")
    try:
        i, n = int(first), int(second)
    except ValueError:
        raise ValueError(f"--shard {text!r}: write I/N, e.g. 2/8 for the second of eight shares") from None
    if not sep or not 1 <= i <= n:
        raise ValueError(f"--shard {text!r}: I/N needs 1 <= I <= N")
    return i, n


def in_shard(world: str, spec: str, shard: tuple[int, int] | None) -> bool:
    """Whether this shard plays (world, player): a hash of both, the same on every machine (no Python
    hash seed), so N machines or SLURM array tasks given 1/N..N/N play every episode exactly once."""
    if shard is None:
        return True
    digest = hashlib.sha256(f"{world}\n{spec}".encode("utf-8")).digest()
    return int.from_bytes(digest[:8], "big") % shard[1] == shard[0] - 1


def _shard_key(world: str) -> str:
    """A world as the same text on every machine: a packaged name as is, a file by its path from the
    current folder (a shard's machines run the same command in the same checkout layout)."""
    path = Path(world)
    if not path.exists():
        return world
    try:
        return path.resolve().relative_to(Path.cwd().resolve()).as_posix()
    except ValueError:
        return path.as_posix()


def world_files(paths: list[str]) -> list[str]:
    """Files, folders (their ``*.yaml``) and packaged names (``clembench/<experiment>``) as worlds."""
    return expand(paths)


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
                summary.errors += 1
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
            except RecordsError as exc:   # a folder holding another kind of run: refused, said once
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
                summary.played += 1
                summary.succeeded += int(episode.outcome.success)
                summary.context_full += int(episode.ended_by == "context_exhausted")
            if progress:
                progress.advance(summary)

    from .players.backends.clients import close_clients

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


def shared_local_server(player, jobs: int) -> str | None:
    """The warning for several jobs asking one server on this machine, or None.

    A local server (llama.cpp, Ollama, one vLLM) answers requests one after
    another or in small batches: parallel jobs wait on each other, and each
    evicts the others' prompt cache, which at temperature 0 can change what a
    small model answers. Runs with --jobs 1 and 2 then differ.
    """
    if jobs <= 1 or not isinstance(player, ModelBacked):
        return None
    url = player.spec.base_url or ""
    if urlparse(url).hostname not in ("127.0.0.1", "localhost", "::1", "0.0.0.0"):
        return None
    return (f"warning: {jobs} jobs share one local server ({url}): each turn waits for the others, and its"
            " prompt cache is shared, so replies can differ from a --jobs 1 run even at temperature 0"
            " (docs/models.md, 'Several jobs, one server')")


PR_SET_PDEATHSIG = 1   # linux/prctl.h


def die_with_parent(parent: int, lifeline) -> None:
    """End this worker when its parent ends, however it ends.

    A parent stopped by SIGKILL (or by SIGTERM before it could end its workers) left them playing the
    whole queue as orphans, still calling the model server. Two ways, so that neither alone has to be
    trusted: on Linux the kernel sends SIGTERM when the parent dies (``PR_SET_PDEATHSIG``); anywhere, a
    thread waits on a pipe whose only writing end the parent holds, and the pipe's end means the
    parent's. Finished episodes are on disk already, the one in flight is played again by the next run.
    """
    import ctypes
    import os
    import signal
    import threading

    if sys.platform.startswith("linux"):
        try:
            ctypes.CDLL(None, use_errno=True).prctl(PR_SET_PDEATHSIG, int(signal.SIGTERM), 0, 0, 0)
        except (OSError, AttributeError):
            pass
    if os.getppid() != parent:   # it died before the line above took effect
        os._exit(143)

    def watch() -> None:
        try:
            lifeline.recv()   # the parent never sends: this returns only when its end closes
        except (EOFError, OSError):
            pass
        os._exit(143)

    threading.Thread(target=watch, name="lifeline", daemon=True).start()


def _worker(worker: int, files: list, spec: str, records: str, jobs: int, mode: str, name, max_turns, queue,
            parent: int | None = None, lifeline=None) -> None:
    """One process of ``--procs``: its share of the episodes on its own event loop; it reports to the
    parent, which owns the progress bar (Ctrl-C is the parent's to handle: it ends the workers)."""
    import signal

    signal.signal(signal.SIGINT, signal.SIG_IGN)
    if lifeline is not None:
        die_with_parent(parent, lifeline)

    class Reporter:
        def advance(self, s: Summary) -> None:
            queue.put(("advance", worker, dataclasses.asdict(s)))

        def log(self, text: str) -> None:
            queue.put(("log", worker, text))

    try:
        summary = asyncio.run(run_all(files, spec, Path(records), jobs, Reporter(), mode=mode, name=name,
                                      max_turns=max_turns))
        queue.put(("done", worker, dataclasses.asdict(summary)))
    except BaseException as exc:   # said in the parent; the episodes finished so far are on disk
        queue.put(("failed", worker, f"{type(exc).__name__}: {exc}"))


def run_in_processes(files: list, spec: str, records: str, jobs: int, procs: int, reporter, **options) -> Summary:
    """``--procs P``: the episodes dealt out to P worker processes (each with ``jobs`` at once), one
    progress bar here. A process of its own per share sidesteps the GIL: the client's CPU per turn
    (requests, records, the engine) no longer queues behind one interpreter."""
    import multiprocessing

    import os

    ctx = multiprocessing.get_context("spawn")
    queue = ctx.Queue()
    lifeline, held = ctx.Pipe(duplex=False)   # the workers read; only this process holds the writing end
    shares = [files[i::procs] for i in range(procs)]
    workers = [ctx.Process(target=_worker, args=(i, share, spec, records, jobs, options.get("mode", "text"),
                                                 options.get("name"), options.get("max_turns"), queue,
                                                 os.getpid(), lifeline),
                           daemon=True) for i, share in enumerate(shares) if share]
    latest: dict[int, dict] = {}
    for w in workers:
        w.start()
    running = len(workers)
    total = Summary()
    try:
        while running:
            kind, worker, data = queue.get()
            if kind == "log":
                reporter.log(data)
                continue
            if kind == "failed":
                reporter.log(f"worker {worker + 1}: {data}")
                running -= 1
                continue
            latest[worker] = data
            total = Summary(**{k: sum(d[k] for d in latest.values()) for k in data})
            if kind == "advance":
                reporter.advance(total)
            else:
                running -= 1
    finally:
        for w in workers:
            if w.is_alive():
                w.terminate()
        for w in workers:
            w.join(5)
        held.close()
    return total


def write_plan(records: Path, run_name: str, episodes: int, shard: tuple[int, int] | None) -> None:
    """How many episodes this batch (or shard) will play in its run, for ``adventure watch``'s "left".
    A plan that cannot be written costs the watcher a column, never the batch."""
    from .clembench.records import now, plan_file, write_json
    from .engine.names import check_name, inside

    try:
        run_dir = inside(records, check_name(run_name, "the run name"))
        run_dir.mkdir(parents=True, exist_ok=True)
        write_json(plan_file(run_dir, shard), {"episodes": episodes, "created": now(),
                                               "shard": f"{shard[0]}/{shard[1]}" if shard else None}, final=False)
    except (OSError, ValueError):
        pass


def run(paths: list[str], spec: str, records: str = "records", jobs: int = 1, mode: str = "text",
        name: str | None = None, max_turns: int | None = None, shard: tuple[int, int] | None = None,
        procs: int = 1, ray: str | None = None) -> int:
    from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeRemainingColumn

    files = [f for f in world_files(paths) if in_shard(_shard_key(f), spec, shard)]
    try:   # a player that cannot be made (an unknown model, a missing SDK) fails the run at once
        probe = make_player(spec, None, mode)
    except (ValueError, OSError) as exc:
        print(f"adventure run: {exc}", file=sys.stderr)
        return 2
    write_plan(Path(records), name or probe.name, len(files), shard)
    for warning in (shared_local_server(probe, jobs * procs), learned_note(probe)):
        if warning:
            print(warning, file=sys.stderr)
    # SIGTERM (timeout, systemd, Slurm) ends a run as Ctrl-C does: the same interrupt, so asyncio cancels the
    # episodes in flight, their turns reach the disk and the workers of --procs are ended
    stopped: list[int] = []

    def stop(signum, frame) -> None:
        stopped.append(signum)
        signal.raise_signal(signal.SIGINT)

    # only the main thread may set a handler; batch.run called from a thread (the app's tests) keeps the default
    main = threading.current_thread() is threading.main_thread()
    previous = signal.signal(signal.SIGTERM, stop) if main else None
    with Progress(TextColumn("{task.description}"), BarColumn(), MofNCompleteColumn(),
                  TextColumn("success {task.fields[success]}"), TimeRemainingColumn()) as bar:
        task = bar.add_task(f"{spec}", total=len(files), success="0/0")

        class Reporter:
            def advance(self, s: Summary) -> None:
                bar.update(task, advance=1, success=f"{s.succeeded}/{s.played}")

            def log(self, text: str) -> None:
                bar.console.print(text)

        try:
            if ray is not None:   # Ray tasks (batch_ray.py); --procs is then the CPUs of a local instance
                from .batch_ray import RayUnavailable, run_on_ray

                try:
                    summary = run_on_ray(files, spec, records, jobs, ray, Reporter(), mode=mode, name=name,
                                         max_turns=max_turns, cpus=procs if procs > 1 else None)
                except RayUnavailable as exc:
                    print(f"adventure run: {exc}", file=sys.stderr)
                    return 2
            elif procs > 1:
                summary = run_in_processes(files, spec, records, jobs, procs, Reporter(), mode=mode, name=name,
                                           max_turns=max_turns)
            else:
                summary = asyncio.run(run_all(files, spec, Path(records), jobs, Reporter(), mode=mode, name=name,
                                              max_turns=max_turns))
        except KeyboardInterrupt:
            bar.console.print(f"{'stopped' if stopped else 'interrupted'}: finished episodes are kept;"
                              " run again to resume")
            return 143 if stopped else 130
        finally:
            if main:
                signal.signal(signal.SIGTERM, previous)
    busy = f", {summary.busy} left to another run on the same records" if summary.busy else ""
    full = (f" ({summary.context_full} ended when the model's context was full: played, scored as aborted)"
            if summary.context_full else "")
    errors = (f"errors {summary.errors} (not played: errored episodes are not counted, as clem eval does;"
              " run again to retry them)" if summary.errors else "errors 0")
    print(f"played {summary.played}{full}, skipped {summary.skipped} (already done), "
          f"succeeded {summary.succeeded}, {errors}{busy}; records in {records}/")
    return 1 if summary.errors else 0
