"""How well ``adventure run --player MODEL --jobs N`` overlaps model calls.

A fake OpenAI-compatible server (``tests/fake_llm_server.py``, in a process
of its own so it does not share the client's GIL) answers every request
after 50 ms, with ``> done`` on the tenth reply. Episodes are clembench
instances (distinct, so none is skipped as already done), played through
``batch.run_all`` exactly as the command does, records and all. The
sequential time per episode comes from a ``--jobs 1`` run; the speedup for
N is N episodes one after another divided by N episodes with ``--jobs N``.

    python benchmarks/bench_model_batch.py [--delay 0.05] [--turns 10] [--max-jobs 16]
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
from tui_adventure.clembench.packaged import INSTANCES  # noqa: E402  (the copy that ships)


def start_server(delay: float, turns: int) -> tuple[subprocess.Popen, int]:
    proc = subprocess.Popen([sys.executable, str(ROOT / "tests" / "fake_llm_server.py"), "--delay", str(delay),
                             "--turns", str(turns)], stdout=subprocess.PIPE, text=True)
    port = int(proc.stdout.readline())
    return proc, port


def world_files(out: Path, n: int) -> list[Path]:
    from tui_adventure.clembench.instances import import_instances

    files = sorted(import_instances(INSTANCES, out))
    if len(files) < n:
        raise SystemExit(f"only {len(files)} instances")
    return files


def timed_run(files: list[Path], spec: str, jobs: int) -> tuple[float, float]:
    """(wall seconds, this process's CPU seconds) for one ``run_all``."""
    from tui_adventure.batch import run_all

    with tempfile.TemporaryDirectory() as records:
        start, cpu = time.perf_counter(), time.process_time()
        summary = asyncio.run(run_all(files, spec, Path(records), jobs))
        seconds, cpu = time.perf_counter() - start, time.process_time() - cpu
    if summary.errors or summary.played != len(files):
        raise SystemExit(f"the run went wrong: {summary}")
    return seconds, cpu


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n", 1)[0])
    ap.add_argument("--delay", type=float, default=0.05, help="the server's answer time, seconds")
    ap.add_argument("--turns", type=int, default=10, help="replies per episode")
    ap.add_argument("--max-jobs", type=int, default=16)
    ap.add_argument("--sequential", type=int, default=4, help="episodes in the --jobs 1 run")
    args = ap.parse_args()
    proc, port = start_server(args.delay, args.turns)
    spec = f"openai_compatible:fake-bench@http://127.0.0.1:{port}/v1"
    try:
        with tempfile.TemporaryDirectory() as tmp:
            files = world_files(Path(tmp), args.max_jobs)
            timed_run(files[:1], spec, 1)                        # warm-up: imports, parser memos
            seconds, cpu = timed_run(files[:args.sequential], spec, 1)
            per_episode = seconds / args.sequential
            turn_cpu = cpu / (args.sequential * args.turns)
            print(f"{args.turns} turns an episode, {args.delay * 1000:.0f} ms an answer: {per_episode:.3f} s an"
                  f" episode alone ({args.turns * args.delay:.2f} s of it waiting for the server)")
            print(f"client CPU per turn {turn_cpu * 1000:.1f} ms (load, request, engine, records): one core"
                  f" overlaps at most {(args.delay + turn_cpu) / turn_cpu:.1f} episodes")
            print(f"{'jobs':>5} {'seconds':>8} {'speedup':>8} {'x N':>6} {'cpu ms/turn':>12}")
            n = 1
            while n <= args.max_jobs:
                seconds, cpu = timed_run(files[:n], spec, n)
                speedup = n * per_episode / seconds
                print(f"{n:>5} {seconds:>8.3f} {speedup:>8.2f} {speedup / n:>6.2f} {cpu * 1000 / (n * args.turns):>12.1f}")
                n *= 2
    finally:
        proc.terminate()
        proc.wait(5)


if __name__ == "__main__":
    sys.path.insert(0, str(ROOT))
    main()
