"""Story files against our worlds: the app's first frame, and a batch's use of the cores.

* first frame: from launching ``adventure play stories/lighthouse.z5`` in a new tmux pane to its
  first room's text on screen, against ``adventure play house`` the same way; the two alternate
  round by round, so a busy machine slows both alike (target: the story file within 1 s of house);
* a batch: ``adventure run`` of the lighthouse's walkthrough (``--player scripted:...``) as EPISODES
  episodes with ``--jobs N``: wall time, the CPU time of the run's processes, and their ratio, the
  cores kept busy (target: about N, as far as the machine has N cores to give).

Screen polling costs ~2-4 ms per capture, so terminal figures are upper bounds.
Run: python benchmarks/bench_zmachine.py [--rounds 5] [--jobs 1,2] [--episodes 24]
"""

from __future__ import annotations

import argparse
import os
import resource
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
STORY = ROOT / "stories" / "lighthouse.z5"
WALKTHROUGH = ROOT / "stories" / "lighthouse.walkthrough"
# what each world shows first: its first room's description
NEEDLES = {"house": "umbrella stand", str(STORY): "Grey sand runs along the sea"}


def adventure() -> str:
    return shutil.which("adventure") or f"{sys.executable} -m tui_adventure.cli"


SOCKET = f"bench-zmachine-{os.getpid()}"   # a tmux server of this run's own, killed at its end


def tmux(*args: str, check: bool = False) -> str:
    return subprocess.run(["tmux", "-L", SOCKET, *args], capture_output=True, text=True, check=check).stdout


def wait_for(session: str, needle: str, timeout: float = 20.0) -> float:
    start = time.perf_counter()
    while time.perf_counter() - start < timeout:
        if needle in tmux("capture-pane", "-t", session, "-p"):
            return time.perf_counter()
        time.sleep(0.002)
    screen = tmux("capture-pane", "-t", session, "-p")
    raise TimeoutError(f"{needle!r} not on screen after {timeout} s; the screen:\n{screen}")


def first_frame(world: str, run: int) -> float:
    """Seconds from a new tmux pane running ``adventure play WORLD`` to its first room on screen."""
    tmp = tempfile.mkdtemp()
    name = f"bench-z-{os.getpid()}-{run}"
    # this checkout's code (PYTHONPATH), whatever the tmux server's environment holds
    cmd = (f"cd {ROOT} && PYTHONPATH={ROOT} TUI_ADVENTURE_HOME={tmp}/home {adventure()} play {world}"
           f" --records {tmp}/records")
    t0 = time.perf_counter()
    tmux("new-session", "-d", "-s", name, "-x", "100", "-y", "30", cmd, check=True)
    try:
        return wait_for(name, NEEDLES[world]) - t0
    finally:
        tmux("kill-session", "-t", name)
        shutil.rmtree(tmp, ignore_errors=True)


def first_frames(rounds: int) -> dict[str, list[float]]:
    times: dict[str, list[float]] = {w: [] for w in NEEDLES}
    try:
        for i in range(rounds):
            order = list(NEEDLES) if i % 2 == 0 else list(reversed(NEEDLES))   # alternate which goes first
            for world in order:
                times[world].append(first_frame(world, 2 * i + order.index(world)))
    finally:
        tmux("kill-server")
    return times


def batch(jobs: int, episodes: int) -> tuple[float, float, int]:
    """(wall seconds, CPU seconds of the run's processes, episodes written) for one ``adventure run``."""
    tmp = Path(tempfile.mkdtemp())
    try:
        argv = [*adventure().split(), "run", *[str(STORY)] * episodes, "--player", f"scripted:{WALKTHROUGH}",
                "--jobs", str(jobs), "--records", str(tmp / "records")]
        before = resource.getrusage(resource.RUSAGE_CHILDREN)
        t0 = time.perf_counter()
        done = subprocess.run(argv, capture_output=True, text=True, cwd=tmp,
                              env={**os.environ, "PYTHONPATH": str(ROOT), "TUI_ADVENTURE_HOME": str(tmp / "home")})
        wall = time.perf_counter() - t0
        after = resource.getrusage(resource.RUSAGE_CHILDREN)
        if done.returncode != 0:
            raise SystemExit(f"adventure run failed ({done.returncode}): {done.stderr[-2000:]}")
        cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
        written = sum(1 for _ in (tmp / "records").rglob("scores.json"))
        return wall, cpu, written
    finally:
        shutil.rmtree(tmp, ignore_errors=True)


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--rounds", type=int, default=5)
    ap.add_argument("--jobs", default="1,2", help="comma-separated --jobs values")
    ap.add_argument("--episodes", type=int, default=24)
    ap.add_argument("--no-frames", action="store_true")
    args = ap.parse_args()
    ms = lambda xs: f"best {1000 * min(xs):.0f} ms, median {1000 * statistics.median(xs):.0f} ms"  # noqa: E731
    print(f"machine: {os.cpu_count()} cores, load average {os.getloadavg()[0]:.1f}")
    if not args.no_frames:
        if shutil.which("tmux") is None:
            print("tmux not found: first frames skipped")
        else:
            times = first_frames(args.rounds)
            for world, xs in times.items():
                print(f"first frame, adventure play {Path(world).name} ({args.rounds} rounds, alternating): {ms(xs)}")
            gap = statistics.median(times[str(STORY)]) - statistics.median(times["house"])
            print(f"story file's median minus house's: {1000 * gap:+.0f} ms  (target < 1000 ms)")
    for jobs in (int(j) for j in args.jobs.split(",")):
        wall, cpu, written = batch(jobs, args.episodes)
        print(f"adventure run lighthouse.z5 x {args.episodes} --jobs {jobs}: {written} episodes in {wall:.2f} s wall,"
              f" {cpu:.2f} s CPU: {cpu / wall:.2f} cores busy, {1000 * wall / args.episodes:.0f} ms an episode")


if __name__ == "__main__":
    main()
