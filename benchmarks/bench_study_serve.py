"""How a study served to browsers (``adventure study --serve``) holds up: first room, and a crowd at once.

* page to first room: headless Chromium (Debian's, through playwright) asks for
  ``/?participant=ID``; timed from the navigation to the consent screen's bytes
  arriving in the page, plus the app's answer to each key on the way to the first
  room (agree, then Enter): the machine's whole share of the wait, nobody's
  reading time (target < 2 s);
* a crowd: N participants (default 20) arrive a little apart and each plays
  ``house`` (its 21-command solution) over textual.js's own WebSocket protocol,
  typing a key every 50 ms (--typing) and thinking a second (--think) between commands; a turn is
  answered when its ``Turn N/60`` is drawn. Each participant is a process of its
  own, so N of them share this machine's cores (target: every turn < 300 ms).

The browser is not used for the crowd: 20 Chromium pages would take the cores
the server is measured on. What the WebSocket carries is what textual.js sends.
Run: python benchmarks/bench_study_serve.py [--pages 5] [--participants 20]
"""

from __future__ import annotations

import argparse
import asyncio
import os
import re
import shutil
import signal
import socket
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
SOLUTION = (ROOT / "worlds" / "solutions" / "house.txt").read_text().strip().splitlines()
STUDY = """\
title: Serve bench
instructions: Type short commands.
consent: |
  We record what you type. Taking part is voluntary.
worlds: [house]
"""
ANSI = re.compile(rb"\x1b\[[0-9;?<>=]*[ -/]*[@-~]|\x1b[PX^_].*?\x1b\\\\|\x1b\][^\x07]*\x07|\x1b.", re.S)


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def start_server(folder: Path, sessions: int, log, spares: int = 2, study: str = STUDY) -> tuple[subprocess.Popen, str]:
    """``adventure study --serve`` of ``study`` in ``folder``, once its page assets answer: (process, url)."""
    (folder / "study.yaml").write_text(study)
    port = free_port()
    proc = subprocess.Popen([sys.executable, "-m", "tui_adventure.cli", "study", "study.yaml", "--serve", "--port",
                             str(port), "--records", "rec", "--max-sessions", str(sessions), "--spares",
                             str(spares)], cwd=folder,
                            stdout=log, stderr=subprocess.STDOUT)
    url = f"http://127.0.0.1:{port}/"
    import urllib.request

    for _ in range(600):
        try:
            urllib.request.urlopen(url + "static/css/xterm.css", timeout=2).close()
            return proc, url
        except OSError:
            time.sleep(0.05)
    raise SystemExit("the server did not start")


# In the page: the time (ms since the navigation began) each marker first arrives over the session's WebSocket,
# from the bytes as they come, before xterm.js draws them (drawing is the browser's share, and a headless one
# draws on the CPU the server is measured on)
WATCH = r"""
(() => {
  const markers = %s, seen = {}, decoder = new TextDecoder();
  let text = "";
  window.__seen = seen;
  const Native = window.WebSocket;
  window.WebSocket = class extends Native {
    constructor(...args) {
      super(...args);
      this.addEventListener("message", (event) => {
        if (typeof event.data === "string") return;
        text = (text + decoder.decode(new Uint8Array(event.data), {stream: true})
                .replace(/\x1b\[[0-9;?<>=]*[ -\/]*[@-~]/g, "")).slice(-20000);
        for (const m of markers) if (!(m in seen) && text.includes(m)) seen[m] = performance.now();
      });
    }
  };
})();
"""
MARKERS = ["Taking part is voluntary", "Press Enter when ready", "Type a command"]


def pages(url: str, runs: int) -> list[tuple[float, float]]:
    """(page to consent drawn, page to first room with the keys pressed at once), in seconds."""
    sys.path.insert(0, str(ROOT / "tests"))
    import json

    from playwright.sync_api import sync_playwright

    from browser import chromium

    out = []
    with sync_playwright() as p:
        browser = chromium(p)
        for i in range(runs):
            page = browser.new_page(viewport={"width": 1200, "height": 800})
            page.add_init_script(WATCH % json.dumps(MARKERS))
            page.goto(f"{url}?participant=page{i}")

            def at(marker: str, page=page) -> float:
                page.wait_for_function(f"window.__seen && {json.dumps(marker)} in window.__seen", timeout=60_000)
                return page.evaluate(f"window.__seen[{json.dumps(marker)}]")

            consent = at(MARKERS[0])
            page.focus(".xterm-helper-textarea")
            pressed = page.evaluate("performance.now()")
            page.keyboard.press("Tab")
            page.keyboard.press("Enter")
            ready = at(MARKERS[1])
            waited = ready - pressed
            pressed = page.evaluate("performance.now()")
            page.keyboard.press("Enter")
            room = at(MARKERS[2])
            waited += room - pressed
            out.append((consent / 1000, (consent + waited) / 1000))
            page.close()
        browser.close()
    return out


async def participant(url: str, name: str, turns: list[float], starts: list[float], think: float,
                      typing: float) -> None:
    """One participant over textual.js's protocol: ["stdin", keys] out, the terminal's bytes in."""
    import aiohttp

    async with aiohttp.ClientSession() as http:
        arrived = time.perf_counter()
        async with http.get(f"{url}?participant={name}") as response:
            ticket = re.search(r'ws/([\w-]+)/', await response.text()).group(1)
        async with http.ws_connect(f"{url.replace('http', 'ws')}ws/{ticket}/1200x800?width=120&height=40") as ws:
            seen = bytearray()   # the screen's text as it comes, escape sequences taken out
            pending = b""        # the end of the last frame, when it may be the start of a sequence

            async def until(pattern: bytes) -> None:
                nonlocal pending
                while pattern not in seen:
                    message = await asyncio.wait_for(ws.receive(), 180)
                    if message.type != aiohttp.WSMsgType.BINARY:
                        if message.type in (aiohttp.WSMsgType.CLOSE, aiohttp.WSMsgType.CLOSED):
                            raise RuntimeError(f"{name}: the session closed")
                        continue
                    data = pending + message.data
                    cut = data.rfind(b"\x1b", max(0, len(data) - 64))
                    data, pending = (data[:cut], data[cut:]) if cut >= 0 else (data, b"")
                    seen.extend(ANSI.sub(b"", data))
                    del seen[:-4096]   # a pattern is looked for in what came since it was asked for

            async def keys(text: str) -> None:
                await ws.send_json(["stdin", text])

            await until(b"Taking part is voluntary")
            await keys("\t")
            await asyncio.sleep(0.2)
            await keys("\r")
            await until(b"Press Enter when ready")
            seen.clear()
            await keys("\r")
            await until(b"Type a command")
            starts.append(time.perf_counter() - arrived)
            for n, command in enumerate(SOLUTION, 1):
                await asyncio.sleep(think)
                for ch in command:
                    await keys(ch)
                    await asyncio.sleep(typing)
                seen.clear()
                sent = time.perf_counter()
                await keys("\r")
                await until(f"Turn {n}/".encode())
                turns.append(time.perf_counter() - sent)


async def crowd(url: str, n: int, spacing: float, think: float, typing: float) -> tuple[list[float], list[float]]:
    turns: list[float] = []
    starts: list[float] = []

    async def arrive(i: int) -> None:
        await asyncio.sleep(i * spacing)   # people do not click the link in the same instant
        await participant(url, f"crowd{i}", turns, starts, think, typing)

    await asyncio.gather(*(arrive(i) for i in range(n)))
    return turns, starts


def cpu_seconds(pid: int) -> float:
    """CPU time of ``pid`` and of its children it has waited for, plus those still running (Linux /proc)."""
    tick = os.sysconf("SC_CLK_TCK")

    def own(p: int, reaped: bool) -> float:
        try:
            fields = Path(f"/proc/{p}/stat").read_text().rsplit(")", 1)[1].split()
        except OSError:
            return 0.0
        utime, stime, cutime, cstime = (int(x) for x in fields[11:15])
        return (utime + stime + (cutime + cstime if reaped else 0)) / tick

    total = own(pid, True)
    for child in Path(f"/proc/{pid}/task/{pid}/children").read_text().split():
        total += own(int(child), True)
    return total


def summary(values: list[float]) -> str:
    ms = sorted(v * 1000 for v in values)
    q = statistics.quantiles(ms, n=100, method="inclusive") if len(ms) > 1 else ms * 99
    return (f"n={len(ms)} median {statistics.median(ms):.0f} ms, p90 {q[89]:.0f}, p99 {q[98]:.0f},"
            f" max {ms[-1]:.0f}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--pages", type=int, default=5)
    parser.add_argument("--participants", type=int, default=20)
    parser.add_argument("--spacing", type=float, default=2.0, metavar="SECONDS",
                        help="between two participants' arrivals (default 2: 20 arrive in 40 s, then play together)")
    parser.add_argument("--spares", type=int, default=2, help="the server's --spares (default 2)")
    parser.add_argument("--warm", type=float, default=5, metavar="SECONDS",
                        help="wait this long after the server starts, for its spares (default 5)")
    parser.add_argument("--think", type=float, default=1.0, metavar="SECONDS", help="between a turn and the next"
                        " command's first key (default 1; people take 5 to 20)")
    parser.add_argument("--typing", type=float, default=0.05, metavar="SECONDS", help="between two keys of a"
                        " command (default 0.05, a fast typist's burst; 40 words a minute is about 0.3)")
    args = parser.parse_args()
    signal.signal(signal.SIGTERM, lambda *_: sys.exit(143))   # stopped: the server is still stopped (finally)
    if shutil.which("chromium") is None:
        raise SystemExit("needs Debian's chromium (apt-get install chromium)")
    print(f"{os.cpu_count()} cores; load average {os.getloadavg()[0]:.1f} at the start")
    with tempfile.TemporaryDirectory() as tmp, open(Path(tmp) / "server.log", "w+") as log:
        proc, url = start_server(Path(tmp), args.participants + 2, log, args.spares)
        time.sleep(args.warm)   # the server's spare processes ready, as before a study's link goes out
        try:
            if args.pages:
                timings = pages(url, args.pages)
                print(f"page to consent screen:  {summary([c for c, _ in timings])}")
                print(f"page to first room:      {summary([r for _, r in timings])}  (target < 2000 ms)")
            if args.participants:
                before, clock = cpu_seconds(proc.pid), time.perf_counter()
                turns, starts = asyncio.run(crowd(url, args.participants, args.spacing, args.think,
                                                         args.typing))
                used, took = cpu_seconds(proc.pid) - before, time.perf_counter() - clock
                print(f"{args.participants} participants at once, page to first room: {summary(starts)}")
                print(f"{args.participants} participants at once, Enter to the turn drawn: {summary(turns)}"
                      f"  (target: max < 300 ms); over 300 ms: {sum(t > 0.3 for t in turns)}")
                print(f"the server and its participants' processes used {used:.1f} CPU s in {took:.0f} s"
                      f" ({used / took:.2f} cores on average; {used / max(1, len(turns)) * 1000:.0f} ms of CPU a turn,"
                      " starts, typing and idle included)")
        finally:
            proc.terminate()
            proc.wait(timeout=30)
            log.seek(0)
            errors = log.read()
            if "Traceback" in errors or "Error" in errors:
                print("the server said:\n" + errors[-3000:])
    print(f"load average {os.getloadavg()[0]:.1f} at the end")


if __name__ == "__main__":
    main()
