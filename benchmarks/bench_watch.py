"""How ``adventure watch`` copes with a large tree and a live batch.

A tree of ``--episodes`` ended episodes is made from one oracle episode of a
packaged clembench instance (hard links: the files are read as if distinct,
without the disk space), spread over 4 runs and 100 experiments. Then:

- **open, cold**: a fresh ``RecordsTree`` ticked as the dashboard's worker
  ticks it (0.15 s of first reads a tick): when every episode is counted by
  status (the runs' done/errored columns), and when every ended one is read
  (success, turns, Main Score);
- **open, warm**: the same with the summary cache the first opening saved;
- **the app**: the real dashboard (headless), until its status line shows
  every episode read, with the cache and without;
- **live**: ``--live`` episodes written by another process as a batch writes
  them (one more turn each a second per episode, temp file + rename; each
  ends after 30 turns and a new one starts), while the dashboard runs
  headless for ``--seconds``: the delay from each turn's write to the screen
  showing it (its picture), and the dashboard process's CPU over the window;
  then the same in a real terminal (tmux), where drawing costs too: its CPU;
- **memory**: the tree's Python memory per episode (tracemalloc), and the
  process's peak RSS.

    python benchmarks/bench_watch.py [--episodes 10000] [--live 16] [--seconds 30] [--no-cold-app]
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import resource
import statistics
import subprocess
import sys
import tempfile
import time
from datetime import datetime
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def template(out: Path) -> Path:
    """One ended episode (the oracle on a packaged clembench instance), as a batch writes it."""
    from tui_adventure.batches.episodes import run_all
    from tui_adventure.catalog import expand

    world = expand(["clembench/home_deliver_three_basic_easy"])[0]
    asyncio.run(run_all([world], "oracle", out, 1))
    return next(out.rglob("completed.json")).parent


def make_tree(root: Path, episode: Path, n: int) -> None:
    files = [p for p in episode.iterdir() if p.is_file() and not p.name.startswith(".")]
    for k in range(n):
        run, experiment, instance = f"model-{k % 4}", f"experiment_{(k // 4) % 100:03d}", k // 400
        target = root / run / "adventuregame" / experiment / f"instance_{instance:05d}"
        target.mkdir(parents=True, exist_ok=True)
        for f in files:
            os.link(f, target / f.name)
    for r in range(4):
        (root / f"model-{r}" / "run.json").write_bytes((episode.parent.parent.parent / "run.json").read_bytes())


def open_tree(root: Path, cache_path: Path) -> dict:
    from tui_adventure.watch.cache import SummaryCache
    from tui_adventure.watch.tree import RecordsTree

    cache = SummaryCache(cache_path)
    tree = RecordsTree(root, cache)
    start, cpu = time.perf_counter(), time.process_time()
    tree.tick(0.15)
    counted, counted_cpu = time.perf_counter() - start, time.process_time() - cpu
    ticks = 1
    while tree.unread:
        tree.tick(0.15)
        ticks += 1
    read, read_cpu = time.perf_counter() - start, time.process_time() - cpu
    cache.save()
    return {"counted": counted, "read": read, "ticks": ticks, "episodes": len(tree.episodes),
            "counted_cpu": counted_cpu, "read_cpu": read_cpu}


def memory_per_episode(root: Path, cache_path: Path) -> float:
    import tracemalloc

    from tui_adventure.watch.cache import SummaryCache
    from tui_adventure.watch.tree import RecordsTree

    cache = SummaryCache(cache_path)   # loaded before counting: its rows are the cache's, not the tree's
    tracemalloc.start()
    tree = RecordsTree(root, cache)
    tree.tick(1e9)
    size, _ = tracemalloc.get_traced_memory()
    tracemalloc.stop()
    return size / max(1, len(tree.episodes))


async def app_open(root: Path, n: int) -> float:
    from tui_adventure.app import AdventureApp

    app = AdventureApp(watch=root)
    start, cpu = time.perf_counter(), time.process_time()
    counted = None
    async with app.run_test(headless=True, size=(150, 50)):
        while True:
            picture = getattr(app.screen, "picture", None)
            if picture is not None and picture.status.startswith(f"{n} episodes") and counted is None:
                counted = time.perf_counter() - start   # on screen: every episode, counted by status
            if counted is not None and "to read" not in picture.status:
                return counted, time.perf_counter() - start, time.process_time() - cpu
            await asyncio.sleep(0.01)


# -- live: a writer process and the dashboard -------------------------------------------------
def writer(root: Path, episode: Path, live: int, seconds: float, log: Path) -> None:
    """``live`` episodes written as a batch writes them: a turn a second each, staggered; the writes'
    times go to ``log`` (episode folder, turns, time)."""
    from tui_adventure.engine.snapshot import write_atomic

    data = json.loads((episode / "interactions.json").read_text())
    turns = data["turns"]
    started = time.time()
    serial = 0
    playing = {}
    out = open(log, "w")
    while time.time() - started < seconds:
        while len(playing) < live:
            target = root / "live-model" / "adventuregame" / f"live_{serial % 50:03d}" / f"instance_{serial:05d}"
            target.mkdir(parents=True, exist_ok=True)
            playing[target] = (0, time.time() + (serial % live) / live)
            serial += 1
        for target, (done, due) in list(playing.items()):
            if time.time() < due:
                continue
            done += 1
            now = datetime.now().isoformat()
            shown = []
            for i in range(done):
                turn = json.loads(json.dumps(turns[i % len(turns)]))
                for event in turn:
                    event["timestamp"] = now
                shown.append(turn)
            body = json.dumps({**data, "meta": {**data["meta"], "completed": False}, "turns": shown}).encode()
            write_atomic(target / "interactions.json", body, durable=False)
            out.write(f"{target}\t{done}\t{time.time()}\n")
            if done >= 30:
                write_atomic(target / "completed.json", b'{"timestamp": "now"}', durable=False)
                del playing[target]
            else:
                playing[target] = (done, due + 1.0)
        out.flush()
        time.sleep(0.02)


async def live_app(root: Path, seconds: float) -> tuple[list, float]:
    """The dashboard for ``seconds``: its pictures' (time, {folder: turns}) and its CPU seconds."""
    from tui_adventure.app import AdventureApp
    from tui_adventure.screens.watch import WatchScreen

    shown = []
    real = WatchScreen.show_picture

    def spy(self, picture):
        split = self.board.episode_columns.split
        shown.append((time.time(), {key: int(split(line)[3]) for key, line in picture.episodes if "live-model" in key}))
        real(self, picture)

    WatchScreen.show_picture = spy
    try:
        app = AdventureApp(watch=root)
        async with app.run_test(headless=True, size=(150, 50)):
            while getattr(app.screen, "picture", None) is None or "to read" in app.screen.picture.status:
                await asyncio.sleep(0.05)
            await asyncio.sleep(2)   # settled
            use = resource.getrusage(resource.RUSAGE_SELF)
            cpu, wall = use.ru_utime + use.ru_stime, time.perf_counter()
            await asyncio.sleep(seconds)
            use = resource.getrusage(resource.RUSAGE_SELF)
            share = (use.ru_utime + use.ru_stime - cpu) / (time.perf_counter() - wall)
    finally:
        WatchScreen.show_picture = real
    return shown, share


def terminal_cpu(root: Path, episode: Path, live: int, seconds: float, home: Path) -> float | None:
    """The dashboard's CPU share in a real terminal (tmux, 150x50) while ``live`` episodes are written:
    what a terminal costs to draw is not in the headless figure. None without tmux."""
    import shutil

    if not shutil.which("tmux"):
        return None
    name = f"bench-watch-{os.getpid()}"
    subprocess.run(["tmux", "new-session", "-d", "-s", name, "-x", "150", "-y", "50",
                    f"exec env TUI_ADVENTURE_HOME={home} {sys.executable} -m tui_adventure.cli watch {root}"])
    writer_proc = None
    try:
        pid = int(subprocess.run(["tmux", "list-panes", "-t", name, "-F", "#{pane_pid}"], capture_output=True,
                                 text=True).stdout.split()[0])

        def cpu() -> float:
            fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
            return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")

        end = time.monotonic() + 120
        while time.monotonic() < end:
            screen = subprocess.run(["tmux", "capture-pane", "-t", name, "-p"], capture_output=True, text=True).stdout
            if "episodes" in screen and "to read" not in screen:
                break
            time.sleep(0.2)
        writer_proc = subprocess.Popen([sys.executable, __file__, "--live", str(live), "--writer", str(root),
                                        str(episode), str(seconds + 6), str(home / "terminal-writes.log")])
        time.sleep(3)
        before, started = cpu(), time.monotonic()
        time.sleep(seconds)
        return (cpu() - before) / (time.monotonic() - started)
    finally:
        if writer_proc is not None:
            writer_proc.kill()
            writer_proc.wait()
        subprocess.run(["tmux", "kill-session", "-t", name])


def delays(log: Path, shown: list) -> list[float]:
    out = []
    for line in log.read_text().splitlines():
        folder, turns, at = line.split("\t")
        turns, at = int(turns), float(at)
        seen = next((t for t, rows in shown if t >= at and rows.get(folder, -1) >= turns), None)
        if seen is not None:
            out.append(seen - at)
    return out


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n", 1)[0])
    ap.add_argument("--episodes", type=int, default=10000)
    ap.add_argument("--live", type=int, default=16)
    ap.add_argument("--seconds", type=float, default=30.0)
    ap.add_argument("--no-cold-app", action="store_true", help="skip the app's cold opening (the longest part)")
    ap.add_argument("--writer", nargs=4, metavar=("ROOT", "EPISODE", "SECONDS", "LOG"), help=argparse.SUPPRESS)
    args = ap.parse_args()
    if args.writer:
        root, episode, seconds, log = args.writer
        writer(Path(root), Path(episode), args.live, float(seconds), Path(log))
        return
    with tempfile.TemporaryDirectory() as tmp:
        tmp = Path(tmp)
        os.environ["TUI_ADVENTURE_HOME"] = str(tmp / "home")
        episode = template(tmp / "template")
        size = (episode / "interactions.json").stat().st_size
        root = tmp / "records"
        start = time.perf_counter()
        make_tree(root, episode, args.episodes)
        print(f"tree: {args.episodes} ended episodes (interactions.json {size // 1024} KB each), made in"
              f" {time.perf_counter() - start:.1f} s")
        cold = open_tree(root, tmp / "cache.json")
        print(f"open, cold: every episode counted by status in {cold['counted']:.2f} s ({cold['counted_cpu']:.2f} s"
              f" CPU); every ended one read in {cold['read']:.2f} s ({cold['read_cpu']:.2f} s CPU, {cold['ticks']} ticks)")
        warm = open_tree(root, tmp / "cache.json")
        print(f"open, warm (summary cache): every episode read in {warm['read']:.2f} s ({warm['read_cpu']:.2f} s CPU)")
        print(f"memory: {memory_per_episode(root, tmp / 'cache.json'):.0f} bytes of Python objects per episode")
        from tui_adventure.watch.cache import SummaryCache

        if not args.no_cold_app:
            SummaryCache.for_root(root).path.unlink(missing_ok=True)
        else:   # the app's cache, made as the first opening makes it
            open_tree(root, SummaryCache.for_root(root).path)
        if not args.no_cold_app:
            counted, wall, cpu = asyncio.run(app_open(root, args.episodes))
            print(f"the app, cold: every episode on screen, counted by status, after {counted:.2f} s; every one"
                  f" read after {wall:.2f} s ({cpu:.2f} s CPU)")
        counted, wall, cpu = asyncio.run(app_open(root, args.episodes))
        print(f"the app, warm: every episode counted after {counted:.2f} s, read after {wall:.2f} s ({cpu:.2f} s CPU,"
              " Textual's start included)")

        log = tmp / "writes.log"
        proc = subprocess.Popen([sys.executable, __file__, "--live", str(args.live), "--writer", str(root),
                                 str(episode), str(args.seconds + 8), str(log)])
        try:
            shown, share = asyncio.run(live_app(root, args.seconds))
        finally:
            proc.wait()
        waits = delays(log, shown)
        waits.sort()
        print(f"live: {args.live} episodes, a turn a second each, for {args.seconds:.0f} s: {len(waits)} turns seen;"
              f" write to screen median {statistics.median(waits):.2f} s, 95th percentile"
              f" {waits[int(len(waits) * 0.95)]:.2f} s, max {waits[-1]:.2f} s")
        print(f"live: the dashboard's CPU {share * 100:.1f}% of a core (headless: no terminal to draw)")
        share = terminal_cpu(root, episode, args.live, args.seconds, tmp / "home")
        if share is not None:
            print(f"live, in a terminal (tmux 150x50): the dashboard's CPU {share * 100:.1f}% of a core")
        print(f"peak RSS of this process: {resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024:.0f} MB")


if __name__ == "__main__":
    main()
