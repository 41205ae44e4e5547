"""How well ``adventure run --player MODEL --jobs N --procs P`` overlaps model calls.

A fake OpenAI-compatible server (``tests/fake_llm_server.py``, in a process
of its own so it does not share the client's GIL) answers every request
after 50 ms, with ``> done`` on the tenth reply. Episodes are clembench
instances (distinct, so none is skipped as already done), played through
``batches.episodes.run_all`` (one process) or ``batches.processes.run_in_processes`` (``--procs``)
exactly as the command does, records and all. The sequential time per
episode comes from a ``--jobs 1`` run. For each jobs x procs the grid plays
``--per-slot`` episodes for every episode in flight and reports turns per
second and the client's CPU per turn (this process and its worker
processes, not the server's), and the speedup over one episode at a time.

    python benchmarks/bench_model_batch.py [--delay 0.05] [--turns 10] [--jobs 1,4,8,16] [--procs 1,2]
"""

from __future__ import annotations

import argparse
import asyncio
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
from tui_adventure.instances.packaged import INSTANCES  # noqa: E402  (the copy that ships)


def start_server(delay: float, turns: int) -> tuple[subprocess.Popen, int]:
    proc = subprocess.Popen([sys.executable, str(ROOT / "tests" / "fake_llm_server.py"), "--delay", str(delay),
                             "--turns", str(turns)], stdout=subprocess.PIPE, text=True)
    port = int(proc.stdout.readline())
    return proc, port


def world_files(out: Path, n: int) -> list[Path]:
    from tui_adventure.instances.convert import import_instances

    files = sorted(import_instances(INSTANCES, out))
    if len(files) < n:
        raise SystemExit(f"only {len(files)} instances")
    return files


class Quiet:
    def advance(self, summary) -> None:
        pass

    def log(self, text: str) -> None:
        print(text, file=sys.stderr)


def timed_run(files: list[Path], spec: str, jobs: int, procs: int = 1) -> tuple[float, float]:
    """(wall seconds, client CPU seconds: this process and the worker processes it ended) for one run."""
    import resource

    from tui_adventure.batches.episodes import run_all
    from tui_adventure.batches.processes import run_in_processes

    def children() -> float:
        use = resource.getrusage(resource.RUSAGE_CHILDREN)   # the server is not waited for: never counted
        return use.ru_utime + use.ru_stime

    with tempfile.TemporaryDirectory() as records:
        start, cpu, child = time.perf_counter(), time.process_time(), children()
        if procs > 1:
            summary = run_in_processes([str(f) for f in files], spec, records, jobs, procs, Quiet())
        else:
            summary = asyncio.run(run_all(files, spec, Path(records), jobs))
        seconds = time.perf_counter() - start
        cpu = time.process_time() - cpu + children() - child
    if summary.errors or summary.played != len(files):
        raise SystemExit(f"the run went wrong: {summary}")
    return seconds, cpu


def numbers(text: str) -> list[int]:
    return [int(n) for n in text.split(",") if n.strip()]


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n", 1)[0])
    ap.add_argument("--delay", type=float, default=0.05, help="the server's answer time, seconds")
    ap.add_argument("--turns", type=int, default=10, help="replies per episode")
    ap.add_argument("--jobs", type=numbers, default=[1, 4, 8, 16], help="episodes at once per process (a list)")
    ap.add_argument("--procs", type=numbers, default=[1, 2], help="worker processes (a list)")
    ap.add_argument("--per-slot", type=int, default=3, help="episodes per episode in flight, per grid cell")
    ap.add_argument("--sequential", type=int, default=4, help="episodes in the --jobs 1 run")
    args = ap.parse_args()
    proc, port = start_server(args.delay, args.turns)
    spec = f"openai_compatible:fake-bench@http://127.0.0.1:{port}/v1"
    try:
        with tempfile.TemporaryDirectory() as tmp:
            files = world_files(Path(tmp), args.sequential)   # every instance; a cell plays at most all
            timed_run(files[:1], spec, 1)                        # warm-up: imports, parser memos
            seconds, cpu = timed_run(files[:args.sequential], spec, 1)
            per_episode = seconds / args.sequential
            turn_cpu = cpu / (args.sequential * args.turns)
            print(f"{args.turns} turns an episode, {args.delay * 1000:.0f} ms an answer: {per_episode:.3f} s an"
                  f" episode alone ({args.turns * args.delay:.2f} s of it waiting for the server)")
            print(f"client CPU per turn {turn_cpu * 1000:.1f} ms (load, request, engine, records): one core"
                  f" overlaps at most {(args.delay + turn_cpu) / turn_cpu:.1f} episodes")
            print(f"{'jobs':>5} {'procs':>5} {'episodes':>8} {'seconds':>8} {'turns/s':>8} {'speedup':>8}"
                  f" {'cpu ms/turn':>12}")
            for procs in args.procs:
                for jobs in args.jobs:
                    n = min(len(files), jobs * procs * args.per_slot)
                    seconds, cpu = timed_run(files[:n], spec, jobs, procs)
                    print(f"{jobs:>5} {procs:>5} {n:>8} {seconds:>8.2f} {n * args.turns / seconds:>8.1f}"
                          f" {n * per_episode / seconds:>8.2f} {cpu * 1000 / (n * args.turns):>12.1f}")
    finally:
        proc.terminate()
        proc.wait(5)


if __name__ == "__main__":
    sys.path.insert(0, str(ROOT))
    main()
