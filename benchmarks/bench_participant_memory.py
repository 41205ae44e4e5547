"""Memory per served participant (``adventure study --serve``): what docs/studies.md quotes, measured.

A study is served as the tests serve one (a server process on a free port of 127.0.0.1, one spare process).
First the idle spare is measured: a visitor's process started ahead of its visitor, the app imported and the
study loaded. Then N visitors (default 3) open their links in headless Chromium (Debian's, through
playwright, as tests/browser.py does), agree, play the practice world (``tutorial``) and one world
(``house``) to the end, and stay on the last screen; each visitor's process is then measured. A process is
found as a child of the server; a visitor's is the one holding its participant's sitting open.

Figures from Linux's ``/proc/PID/smaps_rollup``: RSS (resident, shared pages counted in full) and PSS
(shared pages divided among the processes sharing them: what one more participant adds, near enough).
Run: python benchmarks/bench_participant_memory.py [--visitors 3]
"""

from __future__ import annotations

import argparse
import os
import shutil
import signal
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import bench_study_serve   # this folder is on sys.path when a script here runs

ROOT = Path(__file__).resolve().parent.parent
TUTORIAL = (ROOT / "worlds" / "solutions" / "tutorial.txt").read_text().strip().splitlines()
HOUSE = (ROOT / "worlds" / "solutions" / "house.txt").read_text().strip().splitlines()
STUDY = """\
title: Memory bench
instructions: Type short commands.
consent: |
  We record what you type. Taking part is voluntary.
practice: tutorial
worlds: [house]
"""


def start_server(folder: Path, visitors: int, log) -> tuple[subprocess.Popen, str]:
    """The study served with a seat for each visitor and one spare (bench_study_serve's server)."""
    return bench_study_serve.start_server(folder, visitors + 1, log, spares=1, study=STUDY)


def children(pid: int) -> list[int]:
    return [int(p) for p in Path(f"/proc/{pid}/task/{pid}/children").read_text().split()]


def memory(pid: int) -> tuple[float, float]:
    """(RSS, PSS) of ``pid`` in MB, from /proc/PID/smaps_rollup."""
    fields = {}
    for line in Path(f"/proc/{pid}/smaps_rollup").read_text().splitlines():
        name, _, rest = line.partition(":")
        if rest.strip().endswith("kB"):
            fields[name] = int(rest.split()[0])
    return fields["Rss"] / 1024, fields["Pss"] / 1024


def participant_of(pid: int) -> str | None:
    """The participant whose sitting ``pid`` holds open (a lock file under ``.sittings/ID``), or None."""
    try:
        for fd in Path(f"/proc/{pid}/fd").iterdir():
            target = os.readlink(fd) if fd.is_symlink() else ""
            if ".sittings/" in target:
                return target.split(".sittings/", 1)[1].split("/", 1)[0]
    except OSError:
        pass
    return None


def settled(pid: int, seconds: float = 30) -> tuple[float, float]:
    """``pid``'s memory once its RSS has not moved for a second (a spare still importing grows)."""
    last, deadline = memory(pid), time.monotonic() + seconds
    while time.monotonic() < deadline:
        time.sleep(1.0)
        now = memory(pid)
        if abs(now[0] - last[0]) < 0.1:
            return now
        last = now
    return last


def visit(browser, url: str, name: str) -> object:
    """One participant through consent, the practice and ``house``, left on the last screen; the page."""
    from web.served import Terminal

    page = browser.new_page(viewport={"width": 1100, "height": 700})
    term = Terminal(page)
    term.open(f"{url}?participant={name}", "Taking part is voluntary")
    term.press("Tab")   # to "I agree"
    term.press("Enter")
    for world in (TUTORIAL, HOUSE):
        term.wait_for("Press Enter when ready")
        term.press("Enter")
        term.wait_for("Turn 0/")
        for turn, line in enumerate(world + ["done"], 1):
            term.type(line)
            term.wait_for(f"Turn {turn}/", timeout=60)
        term.wait_for("Press Enter to go on")
        term.press("Enter")
    term.wait_for("Thank you")
    return page


def summary(values: list[float]) -> str:
    return f"median {statistics.median(values):.1f} MB (from {min(values):.1f} to {max(values):.1f})"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--visitors", type=int, default=3, help="participants at once (default 3)")
    args = parser.parse_args()
    signal.signal(signal.SIGTERM, lambda *_: sys.exit(143))   # stopped: the server is still stopped (finally)
    if shutil.which("chromium") is None:
        raise SystemExit("needs Debian's chromium (apt-get install chromium)")
    sys.path.insert(0, str(ROOT / "tests"))
    from playwright.sync_api import sync_playwright

    from browser import chromium

    print(f"{os.cpu_count()} cores; Python {sys.version.split()[0]}; {args.visitors} visitors")
    with tempfile.TemporaryDirectory() as tmp, open(Path(tmp) / "server.log", "w+") as log:
        proc, url = start_server(Path(tmp), args.visitors, log)
        try:
            deadline = time.monotonic() + 60
            while not children(proc.pid) and time.monotonic() < deadline:
                time.sleep(0.2)
            (spare,) = children(proc.pid)
            idle = settled(spare)
            print(f"an idle spare (the app imported, the study loaded): RSS {idle[0]:.1f} MB, PSS {idle[1]:.1f} MB")
            with sync_playwright() as p:
                browser = chromium(p)
                try:
                    pages = [visit(browser, url, f"mem{i}") for i in range(args.visitors)]
                    time.sleep(2)   # the last screens drawn
                    found = {participant_of(pid): pid for pid in children(proc.pid)}
                    figures = [memory(found[f"mem{i}"]) for i in range(args.visitors)]
                    for i, (rss, pss) in enumerate(figures):
                        print(f"visitor mem{i} after a practice and a world: RSS {rss:.1f} MB, PSS {pss:.1f} MB")
                    print(f"per participant: RSS {summary([r for r, _ in figures])}; PSS"
                          f" {summary([s for _, s in figures])}")
                    for page in pages:
                        page.close()
                finally:
                    browser.close()
        finally:
            proc.terminate()
            proc.wait(timeout=30)
            log.seek(0)
            said = log.read()
            if "Traceback" in said or "Error" in said:
                print("the server said:\n" + said[-3000:])


if __name__ == "__main__":
    main()
