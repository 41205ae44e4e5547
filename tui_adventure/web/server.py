"""``--serve``: the app to browsers through textual-serve, one process per visitor, with a study's rules.

textual-serve's ``Server`` gives the page's terminal (xterm.js, ``textual.js``)
and ``AppService`` the relay between a browser's WebSocket and an app process.
What this module changes and why:

* the page: a link is checked before anything starts. A study's link must name
  its participant (``study.visit.from_link``); a bad one gets a 400 page, a
  participant already playing (another tab) a 409, a full server a 503, and
  no process. A good one gets a page holding a one-time ticket for its
  WebSocket, so the WebSocket needs no parameters of its own to trust;
* the process: textual-serve starts a shell command when a browser connects.
  Here processes are started ahead of their visitors from an argument list
  (``create_subprocess_exec``, ``--await-visitor``), import the app and load
  the study, and wait: a page then meets a warm process (``Spares``), and who
  came (participant, browser, platform IDs) reaches it as one JSON line on its
  standard input (``study.visit.hello``): nothing from a URL meets a shell;
* the bounds: sessions at once, the idle time (nothing typed), the size of a
  request and of a WebSocket message, the length of a URL's values;
* the page is this package's own (``page.html``): no third-party fonts, and
  addresses relative to the page so a reverse proxy's https and path carry over.

``AppService._open_app_process`` is textual-serve's private method; the
``[web]`` extra pins textual-serve to 1.1.x, whose method this replaces.
"""

from __future__ import annotations

import asyncio
import contextlib
import gzip
import json
import os
import secrets
import signal
import socket
import sys
import time
from dataclasses import dataclass, field
from importlib.metadata import version
from pathlib import Path
from typing import Callable

import jinja2
from aiohttp import WSMsgType, web
from textual_serve.app_service import AppService
from textual_serve.server import Server

from ..study.visit import VisitError, browser, from_link, hello

STATIC = Path(__import__("textual_serve").__file__).parent / "static"
PAGE = jinja2.Environment(loader=jinja2.FileSystemLoader(Path(__file__).parent), autoescape=True).get_template(
    "page.html")
TICKET_SECONDS = 60          # a page must open its session within this
MAX_MESSAGE_BYTES = 16_384   # a keystroke is ~20 bytes, a pasted line a few hundred
MAX_CELLS = 1000             # columns or rows a browser may ask for
RELEASE_WAIT = 5.0           # a reload's new page waits this long for the old session to end
REFILL_DELAY = 5.0           # seconds from a visitor taking a spare to its replacement starting (the newcomer's
                             # first screens are drawn first; a starting Python takes a core for a second)
LAST_REFILL_DELAY = 0.5      # the same when no spare is left: the newcomer's consent screen is drawn within it
SPARES = 2                   # processes kept waiting for the next visitors (--spares)
# what textual-serve's AppService gives its app's environment: Textual's web driver and its terminal
ENVIRONMENT = {**os.environ, "TEXTUAL_DRIVER": "textual.drivers.web_driver:WebDriver", "TEXTUAL_FPS": "60",
               "TEXTUAL_COLOR_SYSTEM": "truecolor", "TERM_PROGRAM": "textual",
               "TERM_PROGRAM_VERSION": version("textual-serve")}


class WebError(ValueError):
    """A server option that cannot work (port, limits), said in one line."""


@dataclass(frozen=True)
class Limits:
    max_sessions: int = 8
    idle_timeout: float | None = 600.0
    spares: int = SPARES
    max_message_bytes: int = MAX_MESSAGE_BYTES

    @classmethod
    def checked(cls, max_sessions: int, idle_timeout: float, spares: int | None = None) -> "Limits":
        """``spares`` left unsaid is the default, capped at ``max_sessions`` (a one-seat study needs no two)."""
        if not 1 <= max_sessions <= 10_000:
            raise WebError("--max-sessions must be from 1 to 10000")
        if not 0 <= idle_timeout <= 7 * 24 * 3600:
            raise WebError("--idle-timeout must be 0 (never) or up to a week of seconds")
        if spares is None:
            spares = min(SPARES, max(max_sessions, 0))
        if not 0 <= spares <= max_sessions:
            raise WebError("--spares must be from 0 to --max-sessions")
        return cls(max_sessions, idle_timeout or None, spares)


@dataclass
class Ticket:
    participant: str | None
    platform: dict
    user_agent: str | None
    issued: float = field(default_factory=time.monotonic)


class Spares:
    """Visitors' processes started ahead of them (``--await-visitor``): each has imported the app and loaded
    the study when its visitor comes, so the page shows the app in a fraction of a cold start."""

    def __init__(self, argv: list[str], count: int) -> None:
        self.argv, self.count = argv, count
        self.ready: list[asyncio.subprocess.Process] = []
        self.starting = 0
        self.untaken: dict[int, asyncio.subprocess.Process] = {}   # started and not taken by a visitor
        self.starts: set[asyncio.Task] = set()

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
        pipe = asyncio.subprocess.PIPE
        process = await asyncio.create_subprocess_exec(*self.argv, stdin=pipe, stdout=pipe, stderr=pipe,
                                                       env=ENVIRONMENT)
        self.untaken[process.pid] = process
        return process

    async def take(self) -> asyncio.subprocess.Process:
        process = await self._take()
        self.untaken.pop(process.pid, None)   # a visitor's now: it ends with their session
        return process

    async def close(self, wait: float = 5.0) -> None:
        """End the spares no visitor took, and wait for them while the loop runs: one reaped after the loop
        has closed makes asyncio print a traceback as the server stops."""
        if self.starts:
            await asyncio.wait(set(self.starts), timeout=wait)
        processes = list(self.untaken.values())
        for process in processes:
            with contextlib.suppress(ProcessLookupError):
                process.terminate()
        if processes:
            await asyncio.wait([asyncio.ensure_future(p.wait()) for p in processes], timeout=wait)
            for process in processes:
                if process.returncode is None:
                    with contextlib.suppress(ProcessLookupError):
                        process.kill()
        self.untaken.clear()
        self.ready.clear()

    def kill_left(self) -> None:
        """The loop is gone (stopped before its shutdown ran): no spare may outlive the server."""
        for pid in self.untaken:
            with contextlib.suppress(OSError):
                os.kill(pid, signal.SIGKILL)
        self.untaken.clear()


class VisitorProcess(AppService):
    """One visitor's app process: a spare, told who came by one line on its standard input."""

    def __init__(self, spares: Spares, greeting: bytes, **kwargs) -> None:
        super().__init__(" ".join(spares.argv), **kwargs)   # textual-serve logs the command; no shell runs it
        self.spares, self.greeting = spares, greeting

    async def _open_app_process(self, width: int = 80, height: int = 24):
        self._process = process = await self.spares.take()
        self._stdin = process.stdin
        process.stdin.write(self.greeting)
        await process.stdin.drain()
        return process


class BrowserServer(Server):
    """``adventure COMMAND ARGV...`` for each visitor; with ``admit`` (a study), each link's participant."""

    def __init__(self, command: str, argv: list[str], host: str, port: int, limits: Limits,
                 admit: Callable[[str], str | None] | None = None, title: str = "tui-adventure") -> None:
        super().__init__(command, host=host, port=port, title=title, statics_path=STATIC)
        self.spares = Spares([sys.executable, "-m", "tui_adventure.cli", command, "--await-visitor", *argv],
                             limits.spares)
        self.limits = limits
        self.admit = admit             # a study: why this participant may not start now (None: they may)
        self.tickets: dict[str, Ticket] = {}
        self.live: dict[str | None, int] = {}   # participant (None outside a study) -> sessions playing
        self.sessions = 0
        self.script: tuple[bytes, bytes] | None = None   # textual.js as it is and compressed

    # -- the page ----------------------------------------------------------------------------------
    async def _make_app(self) -> web.Application:
        app = web.Application(client_max_size=self.limits.max_message_bytes)
        app.add_routes([web.get("/", self.handle_index), web.get("/ws/{ticket}/{screen}", self.handle_websocket),
                        web.get("/static/js/textual.js", self.handle_script), web.static("/static", self.statics_path)])
        app.on_startup.append(self.on_startup)
        app.on_shutdown.append(self.on_shutdown)
        return app

    async def on_shutdown(self, app: web.Application) -> None:
        await self.spares.close()

    async def on_startup(self, app: web.Application) -> None:
        self.spares.fill()
        limit = f"{self.limits.idle_timeout:g} s" if self.limits.idle_timeout else "none"
        print(f"adventure {self.command} --serve: {self.title} on {self.public_url}/"
              f"{'?participant=ID' if self.admit else ''}, at most {self.limits.max_sessions} sessions,"
              f" idle timeout {limit} (Ctrl+C stops)", file=sys.stderr, flush=True)

    def initialize_logging(self) -> None:
        """Only problems: a line per request would drown the one line that says where the server is."""
        import logging

        logging.basicConfig(level=logging.WARNING, format="adventure serve: %(message)s")

    async def handle_index(self, request: web.Request) -> web.Response:
        self._expire()
        participant, platform = None, {}
        if self.admit is not None:
            try:
                participant, platform = from_link({k: request.query.getall(k) for k in set(request.query)})
            except VisitError as exc:
                return _page(400, "This link does not work", str(exc))
            await self._wait_released(participant)
            refusal = "this participant is already playing in another tab or window; close it, then reload" \
                if self.live.get(participant) else self.admit(participant)
            if refusal:
                return _page(409, "Already playing", refusal)
        if self.sessions + len(self.tickets) >= self.limits.max_sessions:
            return _page(503, "The study is full right now", "Every place is taken; please try again in a few"
                         " minutes.")
        for key in [k for k, t in self.tickets.items() if participant and t.participant == participant]:
            del self.tickets[key]   # a reload: the page before it never opened its session
        key = secrets.token_urlsafe(18)
        self.tickets[key] = Ticket(participant, platform, request.headers.get("User-Agent"))
        font = request.query.get("fontsize", "16")
        body = PAGE.render(title=self.title, ticket=key, font_size=int(font) if font.isdigit() and
                           8 <= int(font) <= 40 else 16)
        return web.Response(text=body, content_type="text/html", headers=NO_STORE)

    async def handle_script(self, request: web.Request) -> web.Response:
        """textual.js (half a megabyte) compressed once and cached by browsers: a participant on a slow line
        waits for a quarter of it, once."""
        if self.script is None:
            raw = (STATIC / "js" / "textual.js").read_bytes()
            self.script = raw, gzip.compress(raw, 9)
        raw, packed = self.script
        headers = {"Content-Type": "application/javascript", "Cache-Control": "public, max-age=86400",
                   "Vary": "Accept-Encoding"}
        if "gzip" in request.headers.get("Accept-Encoding", ""):
            return web.Response(body=packed, headers={**headers, "Content-Encoding": "gzip"})
        return web.Response(body=raw, headers=headers)

    def _expire(self) -> None:
        now = time.monotonic()
        for key in [k for k, t in self.tickets.items() if now - t.issued > TICKET_SECONDS]:
            del self.tickets[key]

    async def _wait_released(self, participant: str) -> None:
        """A reload closes the old page's session as the new page asks for one: give it time to end."""
        deadline = time.monotonic() + RELEASE_WAIT
        while self.live.get(participant) and time.monotonic() < deadline:
            await asyncio.sleep(0.05)

    # -- a session ---------------------------------------------------------------------------------
    async def handle_websocket(self, request: web.Request) -> web.StreamResponse:
        self._expire()
        ticket = self.tickets.pop(request.match_info["ticket"], None)
        if ticket is None:
            return _page(403, "This page has expired", "Reload it to start again.")
        if self.live.get(ticket.participant) and self.admit is not None:
            return _page(409, "Already playing", "this participant is already playing in another tab")
        columns = _number(request.query.get("width"), 80, MAX_CELLS)
        rows = _number(request.query.get("height"), 24, MAX_CELLS)
        width_px, _, height_px = request.match_info["screen"].partition("x")
        facts = browser(ticket.user_agent or request.headers.get("User-Agent"), columns=columns, rows=rows,
                        width_px=_number(width_px, None, 100_000), height_px=_number(height_px, None, 100_000))
        greeting = hello(ticket.participant, ticket.platform, facts, columns, rows)
        websocket = web.WebSocketResponse(heartbeat=15, max_msg_size=self.limits.max_message_bytes)
        self.sessions += 1
        self.live[ticket.participant] = self.live.get(ticket.participant, 0) + 1
        service = None
        try:
            await websocket.prepare(request)
            service = VisitorProcess(self.spares, greeting, write_bytes=websocket.send_bytes,
                                     write_str=websocket.send_str, close=websocket.close,
                                     download_manager=self.download_manager)
            await service.start(columns, rows)
            await self._relay(websocket, service)
        except asyncio.CancelledError:
            pass
        except (ConnectionError, OSError) as exc:
            print(f"adventure {self.command} --serve: a session ended: {exc}", file=sys.stderr)
        finally:
            if service is not None:
                await service.stop()
            await websocket.close()
            self.sessions -= 1
            self.live[ticket.participant] -= 1
            if not self.live[ticket.participant]:
                del self.live[ticket.participant]
        return websocket

    async def _relay(self, websocket: web.WebSocketResponse, service: VisitorProcess) -> None:
        """The browser's messages to the app, until it leaves or types nothing for the idle timeout."""
        last = time.monotonic()
        idle = self.limits.idle_timeout
        while True:
            wait = None if idle is None else max(0.0, last + idle - time.monotonic())
            try:
                message = await asyncio.wait_for(websocket.receive(), wait)
            except asyncio.TimeoutError:
                await websocket.close(code=1001, message=f"idle for more than {idle:g} s".encode())
                return
            if message.type != WSMsgType.TEXT:
                if message.type in (WSMsgType.CLOSE, WSMsgType.CLOSING, WSMsgType.CLOSED, WSMsgType.ERROR):
                    return
                continue
            try:
                envelope = json.loads(message.data)
            except ValueError:
                continue
            if not isinstance(envelope, list) or not envelope or not isinstance(envelope[0], str):
                continue   # not textual.js's [kind, data]: nothing the app could use
            kind, data = envelope[0], envelope[1] if len(envelope) > 1 else None
            if kind == "stdin" and isinstance(data, str):
                last = time.monotonic()
                await service.send_bytes(data.encode("utf-8", "replace"))
            elif kind == "resize" and isinstance(data, dict):
                await service.set_terminal_size(_number(data.get("width"), 80, MAX_CELLS),
                                                _number(data.get("height"), 24, MAX_CELLS))
            elif kind == "ping":
                await websocket.send_json(["pong", data])
            elif kind == "blur":
                await service.blur()
            elif kind == "focus":
                await service.focus()


NO_STORE = {"Cache-Control": "no-store", "Referrer-Policy": "no-referrer", "X-Content-Type-Options": "nosniff"}


def _page(status: int, heading: str, message: str) -> web.Response:
    return web.Response(status=status, text=PAGE.render(title=heading, heading=heading, message=message),
                        content_type="text/html", headers=NO_STORE)


def _number(value, default, top: int):
    """A whole number from 1 to ``top`` out of a URL's or a message's value; ``default`` otherwise."""
    if isinstance(value, int) and not isinstance(value, bool):
        return value if 0 < value <= top else default
    if isinstance(value, str) and value.isdigit() and len(value) <= 6 and 0 < int(value) <= top:
        return int(value)
    return default


def serve(command: str, argv: list[str], host: str, port: int, limits: Limits,
          admit: Callable[[str], str | None] | None = None, title: str = "tui-adventure") -> int:
    """Serve until Ctrl+C or SIGTERM; ``WebError`` when the port cannot be opened."""
    if not 1 <= port <= 65535:
        raise WebError(f"--port must be from 1 to 65535, not {port}")
    try:   # before anything starts: aiohttp would find out only after the first processes had
        socket.create_server((host, port), reuse_port=False).close()
    except OSError as exc:
        raise WebError(f"cannot listen on {host}:{port}: {exc.strerror or exc}") from None
    server = BrowserServer(command, argv, host, port, limits, admit, title)
    try:
        server.serve()
    except OSError as exc:
        raise WebError(f"cannot listen on {host}:{port}: {exc.strerror or exc}") from None
    finally:
        server.spares.kill_left()
    print(f"adventure {command} --serve: stopped", file=sys.stderr)
    return 0


