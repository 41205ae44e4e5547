"""Visitors' app processes: started ahead of their visitors (``Spares``), each one's relay to its browser
and its watchdog (``VisitorProcess``), and ended with its whole process group (``end_group``).
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import os
import signal
import time
from importlib.metadata import PackageNotFoundError, version

from aiohttp import web

try:   # the page the server sends is textual-serve's; without the [web] extra nothing here can serve it
    SERVE_VERSION = version("textual-serve")
except PackageNotFoundError:
    raise ModuleNotFoundError("textual-serve (the [web] extra) is not installed", name="textual_serve") from None

MAX_MESSAGE_BYTES = 16_384   # a keystroke is ~20 bytes, a pasted line a few hundred
INPUT_BURST = MAX_MESSAGE_BYTES   # bytes of keys a session may send at once (a paste) ...
INPUT_RATE = 4096            # ... and each second after (typing sends 50, moving the mouse up to 1000): more is dropped

START_SECONDS = 120.0        # a process whose app has not started this long after its visitor came is ended
QUIT_SECONDS = 2.0           # a process asked to quit is sent SIGTERM after this, then SIGKILL a second later
REFILL_DELAY = 5.0           # seconds from a visitor taking a spare to its replacement starting (the newcomer's
                             # first screens are drawn first; a starting Python takes a core for a second)
LAST_REFILL_DELAY = 0.5      # the same when no spare is left: the newcomer's consent screen is drawn within it
MAX_STDERR = 4096            # bytes of a process's error output kept for the log
ENVIRONMENT = {**os.environ, "TEXTUAL_DRIVER": "tui_adventure.web.driver:VisitorDriver", "TEXTUAL_FPS": "60",
               "TEXTUAL_COLOR_SYSTEM": "truecolor", "TERM_PROGRAM": "textual",
               "TERM_PROGRAM_VERSION": SERVE_VERSION}


def end_group(process: asyncio.subprocess.Process, sig: int) -> None:
    """``sig`` to ``process`` and everything it started (its own process group, ``Spares._start``)."""
    if process.returncode is None:
        with contextlib.suppress(ProcessLookupError, PermissionError):
            os.killpg(process.pid, sig)


async def end_process(process: asyncio.subprocess.Process, grace: float = QUIT_SECONDS) -> None:
    """Wait ``grace`` seconds for ``process`` to end by itself, then SIGTERM its group, then SIGKILL."""
    for sig, wait in ((signal.SIGTERM, grace), (signal.SIGKILL, 1.0), (None, 1.0)):
        with contextlib.suppress(asyncio.TimeoutError):
            await asyncio.wait_for(process.wait(), wait)
        if process.returncode is not None:
            return
        if sig is not None:
            end_group(process, sig)


class Spares:
    """Visitors' processes started ahead of them (``--await-visitor``): each has imported the app and loaded
    what it plays when its visitor comes, so the page shows the app in a fraction of a cold start."""

    def __init__(self, argv: list[str], count: int) -> None:
        self.argv, self.count = argv, count
        self.ready: list[asyncio.subprocess.Process] = []
        self.starting = 0
        self.untaken: dict[int, asyncio.subprocess.Process] = {}   # started and not taken by a visitor
        self.starts: set[asyncio.Task] = set()
        self.closed = False

    async def _take(self) -> asyncio.subprocess.Process:
        while self.ready:
            process = self.ready.pop(0)
            if process.returncode is None:
                break
        else:
            process = await self._start()
        # the last spare gone: the next visitor may be seconds away, and would wait for a cold start
        asyncio.get_running_loop().call_later(REFILL_DELAY if self.ready else LAST_REFILL_DELAY, self.fill)
        return process

    def fill(self) -> None:
        """Start spares up to ``count`` (later, so a new visitor's first screen is drawn first)."""
        if self.closed:
            return
        for _ in range(self.count - len(self.ready) - self.starting):
            self.starting += 1
            task = asyncio.ensure_future(self._start())
            self.starts.add(task)
            task.add_done_callback(self._started)

    def _started(self, task: asyncio.Task) -> None:
        self.starting -= 1
        self.starts.discard(task)
        if not task.cancelled() and task.exception() is None:
            self.ready.append(task.result())

    async def _start(self) -> asyncio.subprocess.Process:
        """A process in its own process group (ended as a whole), told the server's pid so that it dies with
        the server (``web.visitor.bound``). The group is that of a session of its own (setsid): Python
        3.10, which we support, has no ``process_group=`` (3.11's)."""
        pipe = asyncio.subprocess.PIPE
        env = {**ENVIRONMENT, "ADVENTURE_SERVER_PID": str(os.getpid())}
        process = await asyncio.create_subprocess_exec(*self.argv, stdin=pipe, stdout=pipe, stderr=pipe, env=env,
                                                       start_new_session=True)
        self.untaken[process.pid] = process
        return process

    async def take(self) -> asyncio.subprocess.Process:
        process = await self._take()
        self.untaken.pop(process.pid, None)   # a visitor's now: it ends with their session
        return process

    async def close(self, wait: float = 1.0) -> None:
        """End the spares no visitor took, and wait for them while the loop runs: one reaped after the loop
        has closed makes asyncio print a traceback as the server stops."""
        self.closed = True
        if self.starts:
            await asyncio.wait(set(self.starts), timeout=wait)
        processes = list(self.untaken.values())
        if processes:
            await asyncio.wait([asyncio.ensure_future(end_process(p, grace=0)) for p in processes],
                               timeout=wait + 2)
        self.untaken.clear()
        self.ready.clear()

    def kill_left(self) -> None:
        """The loop is gone (stopped before its shutdown ran): no spare may outlive the server."""
        for pid in self.untaken:
            with contextlib.suppress(OSError):
                os.killpg(pid, signal.SIGKILL)
        self.untaken.clear()


class VisitorProcess:
    """One visitor's app process and the relay between it and their WebSocket (textual's web driver protocol:
    packets ``D`` (the terminal's bytes) and ``M`` (JSON meta) each with a 4-byte length, both ways).

    ``output`` relays the screen until the process ends; ``watchdog`` pings the app and returns when it
    has not answered for ``stall_seconds``; ``end`` asks the app to quit, then ends its process group.
    """

    def __init__(self, process: asyncio.subprocess.Process, websocket: web.WebSocketResponse) -> None:
        self.process, self.websocket = process, websocket
        stdin, stdout, stderr = process.stdin, process.stdout, process.stderr
        assert stdin is not None and stdout is not None and stderr is not None   # started with pipes (Spares._start)
        self.stdin, self.stdout, self.stderr_pipe = stdin, stdout, stderr
        self.exited = False              # the app said it ended (the "exit" meta): a normal end
        self.started = asyncio.Event()   # the app's driver is running (its first line, "__GANGLION__")
        self.answered = time.monotonic()
        self.stderr = bytearray()        # the last MAX_STDERR bytes of the process's error output
        self.typed = 0                   # bytes of keys passed to the app
        self.dropped = 0                 # bytes of keys dropped (over INPUT_BURST and INPUT_RATE)
        self._budget, self._since = float(INPUT_BURST), time.monotonic()

    async def greet(self, line: bytes) -> None:
        self.stdin.write(line)
        await self.stdin.drain()

    async def _send(self, kind: bytes, payload: bytes) -> bool:
        try:
            self.stdin.write(kind + len(payload).to_bytes(4, "big") + payload)
            await self.stdin.drain()
        except (ConnectionError, RuntimeError, OSError):
            return False
        return True

    async def send_input(self, text: str) -> bool:
        """The browser's keys to the app, at most ``INPUT_BURST`` bytes at once and ``INPUT_RATE`` a second
        after: a flood of keys costs the app nothing past that (each key is an event to dispatch), and the
        app's answers to pings do not queue behind it. False when the keys were dropped or the pipe is gone."""
        data = text.encode("utf-8", "replace")
        now = time.monotonic()
        self._budget = min(float(INPUT_BURST), self._budget + (now - self._since) * INPUT_RATE)
        self._since = now
        if len(data) > self._budget:
            self.dropped += len(data)
            return False
        self._budget -= len(data)
        self.typed += len(data)
        return await self._send(b"D", data)

    async def send_meta(self, data: dict) -> bool:
        return await self._send(b"M", json.dumps(data).encode())

    async def output(self) -> None:
        """The app's screen to the browser until the process closes its output."""
        stdout = self.stdout
        drain = asyncio.ensure_future(self._read_stderr())
        try:
            for _ in range(10):   # a line or two of the process's own before the driver's first packet
                line = await stdout.readline()
                if not line or line == b"__GANGLION__\n":
                    self.started.set()
                    break
            while True:
                head = await stdout.readexactly(5)
                payload = await stdout.readexactly(int.from_bytes(head[1:], "big"))
                if head[:1] == b"D":
                    await self.websocket.send_bytes(payload)
                elif head[:1] == b"M":
                    await self._meta(payload)
        except (asyncio.IncompleteReadError, ConnectionError, ValueError):   # ValueError: a line over 64 KiB
            pass
        finally:
            with contextlib.suppress(asyncio.TimeoutError):
                await asyncio.wait_for(drain, 1.0)
            drain.cancel()

    async def _meta(self, payload: bytes) -> None:
        try:
            meta = json.loads(payload)
        except ValueError:
            return
        kind = meta.get("type") if isinstance(meta, dict) else None
        if kind == "pong":
            self.answered = time.monotonic()
        elif kind == "exit":
            self.exited = True
        elif kind == "open_url" and isinstance(meta.get("url"), str):
            await self.websocket.send_str(json.dumps(["open_url", {"url": meta["url"],
                                                                   "new_tab": bool(meta.get("new_tab"))}]))

    async def _read_stderr(self) -> None:
        while chunk := await self.stderr_pipe.read(4096):
            self.stderr += chunk
            del self.stderr[:-MAX_STDERR]

    async def watchdog(self, ping_seconds: float, stall_seconds: float, start_seconds: float = START_SECONDS) -> None:
        """Returns once the app has not started within ``start_seconds``, or has not answered a ping for
        ``stall_seconds`` (its loop is stopped or hung); an app busy for less than that answers late and is
        left alone."""
        with contextlib.suppress(asyncio.TimeoutError):
            await asyncio.wait_for(self.started.wait(), start_seconds)
        if not self.started.is_set():
            return
        self.answered = time.monotonic()
        while (left := self.answered + stall_seconds - time.monotonic()) > 0:
            with contextlib.suppress(asyncio.TimeoutError):   # a stopped process's full pipe blocks the ping
                await asyncio.wait_for(self.send_meta({"type": "ping"}), left)
            await asyncio.sleep(min(ping_seconds, max(0.0, self.answered + stall_seconds - time.monotonic())))

    async def end(self, grace: float = QUIT_SECONDS) -> None:
        """Ask the app to quit (it saves as it goes), then end the process group if it has not."""
        if self.process.returncode is None:
            await self.send_meta({"type": "quit"})
            with contextlib.suppress(OSError):
                self.stdin.close()
        await end_process(self.process, grace)

    def last_error(self) -> str:
        """The last line of the process's error output, printable, for the server's log."""
        lines = self.stderr.decode("utf-8", "replace").strip().splitlines()
        return "".join(c for c in (lines[-1] if lines else "") if c.isprintable())[:300]
