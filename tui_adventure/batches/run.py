"""``adventure run``: episodes without a screen, many at once, with a progress bar.

Every episode goes through the same loop and recorder as the app. An episode
that already has ``completed.json`` is skipped, so a rerun resumes; Ctrl-C
stops the run between turns, and every episode finished before it stays valid
(an interrupted one is simply played again next time).
"""

from __future__ import annotations

import asyncio
import signal
import sys
import threading
from pathlib import Path
from urllib.parse import urlparse

from ..catalog import expand, is_story
from ..engine.text import plural, visible
from ..players import learned_note, make_player
from ..players.base import ModelBacked
from .episodes import Summary, run_all
from .processes import run_in_processes
from .shards import in_shard, shard_key


SHOWN_BROKEN = 20   # worlds that did not load named under a run's summary; a folder of them can be long


def world_files(paths: list[str]) -> list[str]:
    """Files, folders (their ``*.yaml``) and packaged names (``clembench/<experiment>``) as worlds."""
    return expand(paths)


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


def write_plan(records: Path, run_name: str, episodes: int, shard: tuple[int, int] | None) -> None:
    """How many episodes this batch (or shard) will play in its run, for ``adventure watch``'s "left".
    A plan that cannot be written costs the watcher a column, never the batch."""
    from ..records.files import now, plan_file, write_json
    from ..engine.names import check_name, inside

    try:
        run_dir = inside(records, check_name(run_name, "the run name"))
        run_dir.mkdir(parents=True, exist_ok=True)
        write_json(plan_file(run_dir, shard), {"episodes": episodes, "created": now(),
                                               "shard": f"{shard[0]}/{shard[1]}" if shard else None}, final=False)
    except (OSError, ValueError):
        pass


def story_processes(files: list, jobs: int, procs: int, ray: str | None) -> tuple[int, int]:
    """``(procs, jobs)`` for a run. A run of story files asked for ``--jobs N`` alone gets up to N processes
    (at most one a core), the N episodes dealt out among them: a Z-machine turn is mostly Python holding its
    lock, so N episodes in one process use one core. Anything else, or ``--procs``/``--ray`` given, is kept."""
    if jobs <= 1 or procs > 1 or ray is not None or not any(is_story(f) for f in files):
        return procs, jobs
    import os

    procs = min(jobs, os.cpu_count() or 1, len(files))
    return procs, -(-jobs // procs) if procs > 1 else jobs


def run(paths: list[str], spec: str, records: str = "records", jobs: int = 1, mode: str = "text",
        name: str | None = None, max_turns: int | None = None, shard: tuple[int, int] | None = None,
        procs: int = 1, ray: str | None = None) -> int:
    from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeRemainingColumn

    empty = next((p for p in paths if Path(p).is_dir() and not world_files([p])), None)
    if empty is not None:   # a mistyped folder played nothing and exited 0, as if all were done
        print(visible(f"adventure run: {empty}: a folder with no world files (*.yaml) in it"), file=sys.stderr)
        return 2
    files = [f for f in world_files(paths) if in_shard(shard_key(f), spec, shard)]
    try:   # a player that cannot be made (an unknown model, a missing SDK) fails the run at once
        probe = make_player(spec, None, mode)
    except (ValueError, OSError) as exc:
        print(visible(f"adventure run: {exc}"), file=sys.stderr)
        return 2
    from ..engine.names import UnsafeName, check_name

    try:   # else every episode errors alike, and the summary says to run again
        check_name(name or probe.name, "the run name (--name, or the model's name)")
    except UnsafeName as exc:   # 1, as repl refuses the same name (and as the run ended before)
        print(visible(f"adventure run: {exc}"), file=sys.stderr)
        return 1
    from ..records.files import foreign_to

    run_dir = Path(records) / (name or probe.name)
    if foreign_to(run_dir, None):   # a study participant's folder is the study's: a batch never writes there
        print(visible(f"adventure run: {run_dir} is a study participant's folder: give the run another name"
                      " (--name) or --records folder"), file=sys.stderr)
        return 1
    write_plan(Path(records), name or probe.name, len(files), shard)
    procs, jobs = story_processes(files, jobs, procs, ray)
    for warning in (shared_local_server(probe, jobs * procs), learned_note(probe)):
        if warning:
            print(visible(warning), file=sys.stderr)
    # SIGTERM (timeout, systemd, Slurm) ends a run as Ctrl-C does: the same interrupt, so asyncio cancels the
    # episodes in flight, their turns reach the disk and the workers of --procs are ended
    stopped: list[int] = []
    episodes: list[asyncio.Task] = []   # the single-process run's main task, once its loop runs

    def stop(signum, frame) -> None:
        stopped.append(signum)
        if signal.getsignal(signal.SIGINT) is not signal.SIG_IGN:
            signal.raise_signal(signal.SIGINT)
            return
        # started with Ctrl-C ignored, as a script's background job is (``adventure run ... &`` in a Slurm
        # batch file): a SIGINT would be lost and the run would play on until SIGKILL, and asyncio, seeing
        # SIGINT ignored, set no handler of its own. Its loop is ended as that handler would: the main task
        # cancelled, which cancels the episodes in flight. An interrupt raised here instead would land in
        # whichever task runs, which then dies with it unretrieved (a traceback on stderr).
        if len(stopped) == 1 and episodes and not episodes[0].done():
            episodes[0].cancel()
            episodes[0].get_loop().call_soon_threadsafe(lambda: None)   # wakes the loop from its select
            return
        raise KeyboardInterrupt

    async def single_process():
        episodes.append(asyncio.current_task())
        return await run_all(files, spec, Path(records), jobs, Reporter(), mode=mode, name=name,
                             max_turns=max_turns)

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
                bar.console.print(visible(text), markup=False)

        try:
            if ray is not None:   # Ray tasks (on_ray.py); --procs is then the CPUs of a local instance
                from .on_ray import RayUnavailable, run_on_ray

                try:
                    summary = run_on_ray(files, spec, records, jobs, ray, Reporter(), mode=mode, name=name,
                                         max_turns=max_turns, cpus=procs if procs > 1 else None)
                except RayUnavailable as exc:
                    print(visible(f"adventure run: {exc}"), file=sys.stderr)
                    return 2
            elif procs > 1:
                summary = run_in_processes(files, spec, records, jobs, procs, Reporter(), mode=mode, name=name,
                                           max_turns=max_turns)
            else:
                summary = asyncio.run(single_process())
        except (KeyboardInterrupt, asyncio.CancelledError) as exc:
            if isinstance(exc, asyncio.CancelledError) and not stopped:
                raise
            bar.console.print(visible(f"{'stopped' if stopped else 'interrupted'}: finished episodes are kept;"
                                      " run again to resume"))
            return 143 if stopped else 130
        finally:
            if main:
                signal.signal(signal.SIGTERM, previous)
    busy = f", {summary.busy} left to another run on the same records" if summary.busy else ""
    full = (f" ({summary.context_full} ended when the model's context was full: played, scored as aborted)"
            if summary.context_full else "")
    print(visible(f"played {summary.played}{full}, skipped {summary.skipped} (already done), "
                  f"succeeded {summary.succeeded}, {errors_said(summary)}{busy}; records in {records}/"))
    for refusal in sorted(set(summary.refused)):   # one a run's folder, however many episodes it refused
        print(visible(f"  {refusal}"))
    for mistake in sorted(summary.broken)[:SHOWN_BROKEN]:
        print(visible(f"  {mistake}"))
    if len(summary.broken) > SHOWN_BROKEN:
        print(visible(f"  and {plural(len(summary.broken) - SHOWN_BROKEN, 'more world')} that did not load"
                      " (adventure check FILE names every mistake in one)"))
    return 1 if summary.errors else 0


def errors_said(summary: Summary) -> str:
    """The errors of a run and what to do about them: an episode that failed in play (a server down, a
    timeout) may pass when run again; a world that did not load fails the same way until it is fixed, and
    an episode refused by another kind of run in its folder until the run gets another --name or --records."""
    if not summary.errors:
        return "errors 0"
    broken, refused = len(summary.broken), len(summary.refused)
    retry = summary.errors - broken - refused
    said = ["not played: errored episodes are not counted, as clem eval does"]
    if retry:
        said.append(f"run again to retry {plural(retry, 'episode') if broken or refused else 'them'}")
    if refused:
        said.append(f"{plural(refused, 'episode')} refused, which running again cannot change: do as said below")
    if broken:
        said.append(f"{plural(broken, 'world')} did not load, which running again cannot change: fix"
                    f" {'it' if broken == 1 else 'them'} (below), then run again")
    return f"errors {summary.errors} ({'; '.join(said)})"
