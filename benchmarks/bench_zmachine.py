"""Story files against our worlds: the app's first frame, and a batch's use of the cores.

* first frame: from launching ``adventure play stories/lighthouse.z5`` in a new tmux pane to its
  first room's text on screen, against ``adventure play house`` the same way; the two alternate
  round by round, so a busy machine slows both alike (target: the story file within 1 s of house);
* a batch: ``adventure run`` of EPISODES copies of the lighthouse, each played by a script of
  TURNS ``look`` then the walkthrough (``--player scripted:...``), with ``--jobs N`` (and ``--procs
  P``): wall time, the CPU time of the run's processes, and their ratio, the cores kept busy (target:
  about N, as far as the machine has N cores to give), and the CPU time a turn. On a busy machine
  the cores a run gets are fewer than it asks for, so each thread's time waiting for a core is read
  from ``/proc/PID/task/TID/schedstat`` (sampled every 50 ms) as well: "cores wanted", (running +
  waiting) / wall, is what the run would keep busy on an idle machine with enough cores.

Screen polling costs ~2-4 ms per capture, so terminal figures are upper bounds.
Run: python benchmarks/bench_zmachine.py [--rounds 5] [--batches 1x1,2x1,2x2] [--episodes 8] [--turns 300]
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
    # a session that outlives each measured one, so the server never exits between them
    tmux("new-session", "-d", "-s", "keep", "sleep 3600", check=True)
    try:
        for i in range(rounds):
            order = list(NEEDLES) if i % 2 == 0 else list(reversed(NEEDLES))   # alternate which goes first
            for world in order:
                times[world].append(first_frame(world, 2 * i + order.index(world)))
    finally:
        tmux("kill-server")
    return times


def _tree(root: int) -> list[int]:
    """``root`` and every process below it, from /proc."""
    parents: dict[int, list[int]] = {}
    for entry in os.listdir("/proc"):
        if entry.isdigit():
            try:
                stat = Path(f"/proc/{entry}/stat").read_text()
            except OSError:
                continue
            parents.setdefault(int(stat.rsplit(")", 1)[1].split()[1]), []).append(int(entry))
    out, todo = [], [root]
    while todo:
        pid = todo.pop()
        out.append(pid)
        todo.extend(parents.get(pid, []))
    return out


def _sample(root: int, seen: dict[tuple[int, int], tuple[int, int]]) -> None:
    """Each thread's (ns running, ns waiting for a core) so far, kept in ``seen``."""
    for pid in _tree(root):
        try:
            tids = os.listdir(f"/proc/{pid}/task")
        except OSError:
            continue
        for tid in tids:
            try:
                run, wait, _ = Path(f"/proc/{pid}/task/{tid}/schedstat").read_text().split()
            except (OSError, ValueError):
                continue
            seen[(pid, int(tid))] = (int(run), int(wait))


def batch(jobs: int, procs: int, episodes: int, turns: int) -> dict[str, float]:
    """One ``adventure run`` of ``episodes`` copies of the story file (a run plays a file once: copies
    are other games): wall and CPU seconds, seconds waiting for a core, episodes written."""
    tmp = Path(tempfile.mkdtemp())
    try:
        copies = []
        for i in range(episodes):
            copies.append(tmp / f"lighthouse{i:03d}.z5")
            shutil.copyfile(STORY, copies[-1])
        script = tmp / "script.txt"
        script.write_text("look\n" * turns + WALKTHROUGH.read_text())
        argv = [*adventure().split(), "run", *map(str, copies), "--player", f"scripted:{script}",
                "--jobs", str(jobs), "--procs", str(procs), "--max-turns", str(turns + 50), "--records", str(tmp / "records")]
        before = resource.getrusage(resource.RUSAGE_CHILDREN)
        seen: dict[tuple[int, int], tuple[int, int]] = {}
        t0 = time.perf_counter()
        with subprocess.Popen(argv, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True, cwd=tmp,
                              env={**os.environ, "PYTHONPATH": str(ROOT), "TUI_ADVENTURE_HOME": str(tmp / "home")}) as run:
            while run.poll() is None:
                _sample(run.pid, seen)
                time.sleep(0.05)
            stderr = run.stderr.read()
        wall = time.perf_counter() - t0
        after = resource.getrusage(resource.RUSAGE_CHILDREN)
        if run.returncode != 0:
            raise SystemExit(f"adventure run failed ({run.returncode}): {stderr[-2000:]}")
        cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
        return {"wall": wall, "cpu": cpu, "waited": sum(w for _, w in seen.values()) / 1e9,
                "episodes": sum(1 for _ in (tmp / "records").rglob("completed.json"))}
    finally:
        shutil.rmtree(tmp, ignore_errors=True)


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--rounds", type=int, default=5)
    ap.add_argument("--batches", default="1x1,2x1,2x2", help="comma-separated JOBSxPROCS: --jobs and --procs of each run")
    ap.add_argument("--episodes", type=int, default=8)
    ap.add_argument("--turns", type=int, default=300, help="looks before each episode's walkthrough")
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
    commands = [line for line in WALKTHROUGH.read_text().splitlines() if line.strip()]
    for spec in args.batches.split(","):
        jobs, procs = map(int, spec.split("x"))
        got = batch(jobs, procs, args.episodes, args.turns)
        turns = got["episodes"] * (args.turns + len(commands))
        print(f"adventure run lighthouse.z5 x {args.episodes} --jobs {jobs} --procs {procs}: {got['episodes']} episodes,"
              f" {got['wall']:.1f} s wall, {got['cpu']:.1f} s CPU: {got['cpu'] / got['wall']:.2f} cores busy,"
              f" {(got['cpu'] + got['waited']) / got['wall']:.2f} cores wanted; {1000 * got['cpu'] / max(turns, 1):.1f} ms CPU a turn")

if __name__ == "__main__":
    main()
