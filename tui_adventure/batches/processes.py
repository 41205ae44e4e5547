"""``--procs P``: a batch's episodes dealt out to worker processes, which die with their parent."""

from __future__ import annotations

import asyncio
import dataclasses
import sys
from pathlib import Path

from .episodes import Summary, run_all


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
        assert parent is not None   # the parent passes its pid with the lifeline (run_in_processes)
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
            total = Summary.total(latest.values())
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
