"""How fast the Textual app feels, measured through a real terminal (tmux).

* cold start: from launching ``adventure play worlds/house.yaml`` in a new
  tmux pane to the first room description on screen (target < 1 s);
* a typed command: from tmux delivering ``go north`` + Enter to the kitchen's
  description on screen (target < 50 ms), and the same in process (the
  handler alone: session turn, transcript, panels) without the terminal.

Screen polling costs ~2-4 ms per capture, so terminal figures are upper bounds.
Run: python benchmarks/bench_app.py [--runs 5]
"""

from __future__ import annotations

import argparse
import asyncio
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def tmux(*args: str) -> str:
    return subprocess.run(["tmux", *args], capture_output=True, text=True).stdout


def wait_for(session: str, needle: str, timeout: float = 10.0) -> float:
    start = time.perf_counter()
    while time.perf_counter() - start < timeout:
        if needle in tmux("capture-pane", "-t", session, "-p"):
            return time.perf_counter()
        time.sleep(0.002)
    raise TimeoutError(f"{needle!r} not on screen after {timeout} s")


def through_tmux(runs: int) -> tuple[list[float], list[float]]:
    starts, commands = [], []
    adventure = shutil.which("adventure") or f"{sys.executable} -m tui_adventure.cli"
    for i in range(runs):
        tmp = tempfile.mkdtemp()
        name = f"bench-app-{os.getpid()}-{i}"
        cmd = (f"cd {ROOT} && TUI_ADVENTURE_HOME={tmp}/home {adventure} play worlds/house.yaml "
               f"--records {tmp}/records")
        t0 = time.perf_counter()
        subprocess.run(["tmux", "new-session", "-d", "-s", name, "-x", "100", "-y", "30", cmd], check=True)
        try:
            starts.append(wait_for(name, "umbrella stand") - t0)
            time.sleep(0.3)   # let the first progress search finish so it does not share the turn's time
            tmux("send-keys", "-t", name, "-l", "go north")
            t1 = time.perf_counter()
            tmux("send-keys", "-t", name, "Enter")
            commands.append(wait_for(name, "humming fridge") - t1)
        finally:
            tmux("kill-session", "-t", name)
            shutil.rmtree(tmp, ignore_errors=True)
    return starts, commands


async def in_process(runs: int) -> list[float]:
    from tui_adventure.app import make_app
    from tui_adventure.widgets.command_line import CommandLine

    out = []
    tmp = tempfile.mkdtemp()
    os.environ["TUI_ADVENTURE_HOME"] = f"{tmp}/home"
    app = make_app(ROOT / "worlds" / "house.yaml", records=f"{tmp}/records", saves=f"{tmp}/saves")
    async with app.run_test(size=(100, 30)) as pilot:
        screen = app.screen
        for _ in range(runs):
            for line in ("go north", "go south"):
                t0 = time.perf_counter()
                await screen.on_command_line_entered(CommandLine.Entered(line))
                out.append(time.perf_counter() - t0)
            await pilot.pause()
    shutil.rmtree(tmp, ignore_errors=True)
    return out


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--runs", type=int, default=5)
    args = ap.parse_args()
    ms = lambda xs: f"best {1000 * min(xs):.0f} ms, median {1000 * statistics.median(xs):.0f} ms"  # noqa: E731
    handler = asyncio.run(in_process(args.runs * 4))
    print(f"typed command, in process (handler: turn + transcript + panels): {ms(handler)}")
    if shutil.which("tmux") is None:
        print("tmux not found: terminal figures skipped")
        return
    starts, commands = through_tmux(args.runs)
    print(f"cold start to first frame (tmux, {args.runs} runs): {ms(starts)}  (target < 1000 ms)")
    print(f"typed command to its transcript line (tmux): {ms(commands)}  (target < 50 ms)")


if __name__ == "__main__":
    main()
