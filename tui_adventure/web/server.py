"""``--serve``: the app to browsers, one process per visitor, with a study's rules and a stranger's bounds.

textual-serve gives the page's terminal (xterm.js and ``textual.js``, its
static files); this module is the server around it, on aiohttp's public API:

* the page: a link is checked before anything starts. A study's link must name
  its participant (``study.visit.from_link``); a bad one gets a 400 page, a
  participant already playing (another tab) a 409, a full server a 503, and
  no process. A good one gets a page holding a one-time ticket for its
  WebSocket, so the WebSocket needs no parameters of its own to trust. A ticket
  holds no seat: seats are taken by sessions (an open WebSocket), and one
  address holds at most ``TICKETS_PER_ADDRESS`` tickets at a time;
* the process: started ahead of its visitor from an argument list
  (``--await-visitor``), in its own process group, importing the app and
  loading the world, study or records root, then waiting (``Spares``); who came
  reaches it as one JSON line on its standard input (``study.visit.hello``):
  nothing from a URL meets a shell. The process bounds itself
  (``web.visitor``: memory, CPU time, and death with the server);
* the relay (``VisitorProcess``): textual's web driver protocol between the
  process's pipes and the browser's WebSocket. The process is pinged and ended
  when it stops answering; when it ends for any reason its seat is free at once
  and the page is told why (the WebSocket's close reason, shown by ``page.html``);
* the bounds: sessions at once, the idle time (nothing typed), the screen's
  size, the size of a request and of a WebSocket message, the bytes of keys a
  second, the length of a URL's values, seconds for a connection that sends no
  request;
* stopping: Ctrl+C or SIGTERM ends every session (the app saves each turn as it
  is played) and every process within ``STOP_SECONDS``;
* what it prints: one line saying where it serves, warnings and errors; with
  ``verbose``, a line per request and per session besides.
"""

from __future__ import annotations

import asyncio
import contextlib
import gzip
import logging
import secrets
import signal
import socket
import sys
import tempfile
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from importlib.resources import files
from pathlib import Path

import jinja2
from aiohttp import WSCloseCode, WSMsgType, web

from ..engine.sources import parse_json
from ..study.visit import VisitError, browser, from_link, hello
from .processes import INPUT_RATE, MAX_MESSAGE_BYTES, QUIT_SECONDS, Spares, VisitorProcess, end_group, end_process

STATIC = Path(str(files("textual_serve") / "static"))   # the page's terminal: textual.js, xterm.css, fonts
ICON = Path(__file__).parent / "icon.svg"   # the page's favicon (a browser tab's icon)
PAGE = jinja2.Environment(loader=jinja2.FileSystemLoader(Path(__file__).parent), autoescape=True).get_template(
    "page.html")
TICKET_SECONDS = 60          # a page must open its session within this
TICKETS_PER_ADDRESS = 8      # pages opened from one address and not yet in session
MAX_TICKETS = 1000           # pages not yet in session, from every address
MAX_MESSAGE_DEPTH = 8        # how deep a browser's message may nest (textual.js's nest 2 deep)
MAX_COLUMNS, MAX_ROWS = 500, 200   # the largest screen a browser may ask for (a 4K display at the smallest font)
MAX_PIXELS = 100_000
CONNECTION_SECONDS = 5.0     # a connection that sends no (whole) request is closed after this
PING_SECONDS = 5.0           # how often a session's process is asked whether its app still answers
STALL_SECONDS = 30.0         # a process whose app has not answered for this long is ended
STOP_SECONDS = 4.0           # Ctrl+C or SIGTERM: every session and process ended within this
RELEASE_WAIT = 5.0           # a reload's new page waits this long for the old session to end
SPARES = 2                   # processes kept waiting for the next visitors (--spares)
# what a visitor's process gets: textual's web driver (answering the server's pings), and its terminal
log = logging.getLogger("adventure.serve")
ACCESS_FORMAT = '%a "%r" %s %b'   # a request's line with --verbose (aiohttp's access log format)

# why a session ended, as the page says it (a WebSocket close reason: at most 123 bytes)
ENDED = "The game has ended."
CRASHED = "The game stopped unexpectedly; the turns played so far are saved."
STALLED = "The game stopped answering and was ended; the turns played so far are saved."
STOPPING = "The server is stopping; the turns played so far are saved. Come back later."
FULL = "Every place is taken right now; please try again in a few minutes."


class WebError(ValueError):
    """A server option that cannot work (port, limits), said in one line."""


@dataclass(frozen=True)
class Limits:
    max_sessions: int = 8
    idle_timeout: float | None = 600.0
    spares: int = SPARES
    max_message_bytes: int = MAX_MESSAGE_BYTES
    stall_seconds: float = STALL_SECONDS
    ping_seconds: float = PING_SECONDS

    @classmethod
    def checked(cls, max_sessions: int, idle_timeout: float, spares: int | None = None) -> Limits:
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
    address: str | None
    issued: float = field(default_factory=time.monotonic)


class Session:
    """An open WebSocket with its process: the server ends it (``stop``) when it stops."""

    def __init__(self) -> None:
        self.stopping = asyncio.Event()
        self.finished = asyncio.Event()
        self.process: asyncio.subprocess.Process | None = None   # the visitor's, once taken
        self.visitor: VisitorProcess | None = None


class BrowserServer:
    """``adventure COMMAND ARGV...`` for each visitor; with ``admit`` (a study), each link's participant."""

    def __init__(self, command: str, argv: list[str], host: str, port: int, limits: Limits,
                 admit: Callable[[str], str | None] | None = None, title: str = "tui-adventure",
                 public_url: str | None = None, verbose: bool = False) -> None:
        """``verbose``: a line per request and per session on the log (``serve`` prints it)."""
        self.command, self.host, self.port, self.title = command, host, port, title
        self.verbose = verbose
        self.public_url = public_url or f"http://{host}:{port}"
        self.spares = Spares([sys.executable, "-m", "tui_adventure.cli", command, "--await-visitor", *argv],
                             limits.spares)
        self.limits = limits
        self.admit = admit             # a study: why this participant may not start now (None: they may)
        self.tickets: dict[str, Ticket] = {}
        self.live: dict[str | None, int] = {}   # participant (None outside a study) -> sessions playing
        self.sessions: set[Session] = set()
        self.script: tuple[bytes, bytes] | None = None   # textual.js as it is and compressed

    # -- the server --------------------------------------------------------------------------------
    def make_app(self) -> web.Application:
        app = web.Application(client_max_size=self.limits.max_message_bytes)
        app.add_routes([web.get("/", self.handle_index), web.get("/ws/{ticket}/{screen}", self.handle_websocket),
                        web.get("/static/js/textual.js", self.handle_script), web.static("/static", STATIC),
                        web.get("/favicon.svg", handle_icon), web.get("/favicon.ico", handle_icon)])
        return app

    async def start(self) -> web.AppRunner:
        """Listening, spares starting; ``stop`` with the runner returned ends it."""
        access = logging.getLogger("adventure.serve.access") if self.verbose else None
        runner = web.AppRunner(self.make_app(), handle_signals=False, access_log=access,
                               access_log_format=ACCESS_FORMAT, keepalive_timeout=CONNECTION_SECONDS,
                               shutdown_timeout=1.0)
        await runner.setup()
        await web.TCPSite(runner, self.host, self.port).start()
        self.spares.fill()
        return runner

    async def stop(self, runner: web.AppRunner) -> None:
        """Every session ended (its app asked to quit, its process group ended) and the spares with them,
        within ``STOP_SECONDS``."""
        for session in self.sessions:
            session.stopping.set()
        ending: list[asyncio.Future] = [asyncio.ensure_future(s.finished.wait()) for s in self.sessions]
        ending.append(asyncio.ensure_future(self.spares.close(wait=0.5)))
        await asyncio.wait(ending, timeout=STOP_SECONDS - 1.0)
        await runner.cleanup()

    async def run(self) -> None:
        """Serve until SIGINT or SIGTERM."""
        loop = asyncio.get_running_loop()
        runner = await self.start()
        stopped = asyncio.Event()
        for sig in (signal.SIGINT, signal.SIGTERM):
            loop.add_signal_handler(sig, stopped.set)
        limit = f"{self.limits.idle_timeout:g} s" if self.limits.idle_timeout else "none"
        print(f"adventure {self.command} --serve: {self.title} on {self.public_url}/"
              f"{'?participant=ID' if self.admit else ''}, at most {self.limits.max_sessions} sessions,"
              f" idle timeout {limit} (Ctrl+C stops)", file=sys.stderr, flush=True)
        try:
            await stopped.wait()
        finally:
            await self.stop(runner)

    # -- the page ----------------------------------------------------------------------------------
    async def handle_index(self, request: web.Request) -> web.Response:
        self._expire()
        participant: str | None = None
        platform: dict = {}
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
        if len(self.sessions) >= self.limits.max_sessions:
            return _page(503, "The study is full right now", "Every place is taken; please try again in a few"
                         " minutes.")
        for key in [k for k, t in self.tickets.items() if participant and t.participant == participant]:
            del self.tickets[key]   # a reload: the page before it never opened its session
        address = request.remote
        if sum(t.address == address for t in self.tickets.values()) >= TICKETS_PER_ADDRESS:
            return _page(429, "Too many pages at once", "Too many pages were opened from your address in the"
                         " last minute without starting; close some, wait a minute, then reload.")
        if len(self.tickets) >= MAX_TICKETS:
            return _page(503, "The server is busy", "Please try again in a minute.")
        key = secrets.token_urlsafe(18)
        self.tickets[key] = Ticket(participant, platform, request.headers.get("User-Agent"), address)
        font = _number(request.query.get("fontsize"), 16, 41)
        body = PAGE.render(title=self.title, ticket=key, font_size=font if 8 <= font <= 40 else 16)
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
        columns = _number(request.query.get("width"), 80, MAX_COLUMNS)
        rows = _number(request.query.get("height"), 24, MAX_ROWS)
        width_px, _, height_px = request.match_info["screen"].partition("x")
        facts = browser(ticket.user_agent or request.headers.get("User-Agent"), columns=columns, rows=rows,
                        width_px=_number(width_px, None, MAX_PIXELS), height_px=_number(height_px, None, MAX_PIXELS))
        websocket = web.WebSocketResponse(heartbeat=15, max_msg_size=self.limits.max_message_bytes)
        await websocket.prepare(request)
        if len(self.sessions) >= self.limits.max_sessions:
            await websocket.close(code=WSCloseCode.TRY_AGAIN_LATER, message=FULL.encode())
            return websocket
        session = Session()
        self.sessions.add(session)
        self.live[ticket.participant] = self.live.get(ticket.participant, 0) + 1
        try:
            why = await self._session(session, websocket, hello(ticket.participant, ticket.platform, facts,
                                                                   columns, rows))
            log.info("a session ended: %s", why or "the browser left")
        finally:   # the seat is free before the page hears why its session ended
            self.sessions.discard(session)
            self.live[ticket.participant] -= 1
            if not self.live[ticket.participant]:
                del self.live[ticket.participant]
            session.finished.set()
        with contextlib.suppress(ConnectionError, RuntimeError):
            await websocket.close(code=WSCloseCode.GOING_AWAY if why != ENDED else WSCloseCode.OK,
                                  message=why.encode())
        return websocket

    async def _session(self, session: Session, websocket: web.WebSocketResponse, greeting: bytes) -> str:
        """The visitor's session until one side ends it; why it ended, in the page's words."""
        try:
            session.process = process = await self.spares.take()
        except OSError as exc:   # no process could start (the machine's limits)
            log.warning("a visitor's process could not start: %s", exc)
            return CRASHED
        session.visitor = visitor = VisitorProcess(process, websocket)
        log.info("a session started (pid %s)", process.pid)
        tasks: dict[asyncio.Task, str] = {}
        try:
            await visitor.greet(greeting)
            tasks = {asyncio.ensure_future(visitor.output()): CRASHED,
                     asyncio.ensure_future(visitor.watchdog(self.limits.ping_seconds,
                                                            self.limits.stall_seconds)): STALLED,
                     asyncio.ensure_future(self._relay(websocket, visitor)): "",
                     asyncio.ensure_future(session.stopping.wait()): STOPPING}
            done, _ = await asyncio.wait(tasks, return_when=asyncio.FIRST_COMPLETED)
            first = next(iter(done))
            error = first.exception()
            if error is not None:
                raise error
            why = tasks[first] or first.result()
            if why == CRASHED and (visitor.exited or websocket.closed):
                why = ENDED if visitor.exited else ""   # the app quit, or the browser left first
            if why == CRASHED:
                await end_process(process, 0.5)   # its output closed: its exit status, for the log
                log.warning("a visitor's process (pid %s) ended with %s%s", process.pid, process.returncode,
                            f": {visitor.last_error()}" if visitor.last_error() else "")
            elif why == STALLED:
                log.warning("a visitor's process (pid %s) did not answer for %g s and was ended", process.pid,
                            self.limits.stall_seconds)
                end_group(process, signal.SIGKILL)
            return why
        except (ConnectionError, OSError) as exc:
            log.warning("a session ended: %s", exc)
            return CRASHED
        finally:
            for task in tasks:
                task.cancel()
            await visitor.end(1.0 if session.stopping.is_set() else QUIT_SECONDS)   # within STOP_SECONDS
            for task in tasks:
                with contextlib.suppress(asyncio.CancelledError, Exception):
                    await task

    async def _relay(self, websocket: web.WebSocketResponse, visitor: VisitorProcess) -> str:
        """The browser's messages to the app, until it leaves ("") or types nothing for the idle timeout."""
        last = time.monotonic()
        idle = self.limits.idle_timeout
        said = flooded = False   # a message that is not textual.js's, or keys dropped: once a session
        while True:
            wait = None if idle is None else max(0.0, last + idle - time.monotonic())
            try:
                message = await asyncio.wait_for(websocket.receive(), wait)
            except asyncio.TimeoutError:
                return f"Nothing was typed for {idle:g} s, so the session was closed."
            if message.type != WSMsgType.TEXT:
                if message.type in (WSMsgType.CLOSE, WSMsgType.CLOSING, WSMsgType.CLOSED, WSMsgType.ERROR):
                    return ""
                continue
            try:   # textual.js's messages nest 2 deep; deeper would be RecursionError in Python's parser
                envelope = parse_json(message.data, allow_nan=False, max_depth=MAX_MESSAGE_DEPTH)
            except ValueError:
                envelope = None
            if not isinstance(envelope, list) or not envelope or not isinstance(envelope[0], str):
                if not said:   # not textual.js's [kind, data]: nothing the app could use
                    log.warning("a session sent a message that is not [kind, data] JSON; ignored")
                    said = True
                continue
            kind, data = envelope[0], envelope[1] if len(envelope) > 1 else None
            if kind == "stdin" and isinstance(data, str):
                last = time.monotonic()
                if not await visitor.send_input(data) and visitor.dropped and not flooded:
                    log.warning("a session typed faster than %d bytes a second; keys over it dropped", INPUT_RATE)
                    flooded = True
            elif kind == "resize" and isinstance(data, dict):
                await visitor.send_meta({"type": "resize", "width": _number(data.get("width"), 80, MAX_COLUMNS),
                                         "height": _number(data.get("height"), 24, MAX_ROWS)})
            elif kind == "ping":
                await websocket.send_json(["pong", data])
            elif kind in ("blur", "focus"):
                await visitor.send_meta({"type": kind})


NO_STORE = {"Cache-Control": "no-store", "Referrer-Policy": "no-referrer", "X-Content-Type-Options": "nosniff"}


async def handle_icon(request: web.Request) -> web.Response:
    """The page's icon (a browser asks for /favicon.ico when a page names none)."""
    return web.Response(body=ICON.read_bytes(), content_type="image/svg+xml",
                        headers={"Cache-Control": "public, max-age=86400"})


def _page(status: int, heading: str, message: str) -> web.Response:
    return web.Response(status=status, text=PAGE.render(title=heading, heading=heading, message=message),
                        content_type="text/html", headers=NO_STORE)


def _number(value, default, top: int):
    """A whole number from 1 to ``top`` out of a URL's or a message's value (``top`` when larger);
    ``default`` otherwise. Only ASCII digits count: ``"²"`` is a digit to ``str.isdigit`` that ``int`` refuses."""
    if isinstance(value, str) and value.isascii() and value.isdigit() and len(value) <= 9:
        value = int(value)
    if isinstance(value, int) and not isinstance(value, bool) and value > 0:
        return min(value, top)
    return default


def serve(command: str, argv: list[str], host: str, port: int, limits: Limits,
          admit: Callable[[str], str | None] | None = None, title: str = "tui-adventure",
          public_url: str | None = None, verbose: bool = False) -> int:
    """Serve until Ctrl+C or SIGTERM; ``WebError`` when the port cannot be opened. It prints where it serves,
    warnings and errors; ``verbose``: a line per request and per session besides."""
    if not 1 <= port <= 65535:
        raise WebError(f"--port must be from 1 to 65535, not {port}")
    try:   # before anything starts: aiohttp would find out only after the first processes had
        socket.create_server((host, port), reuse_port=False).close()
    except OSError as exc:
        raise WebError(f"cannot listen on {host}:{port}: {exc.strerror or exc}") from None
    logging.basicConfig(level=logging.INFO if verbose else logging.WARNING, format="adventure serve: %(message)s")
    server = BrowserServer(command, argv, host, port, limits, admit, title, public_url, verbose)
    try:
        asyncio.run(server.run())
    except OSError as exc:
        raise WebError(f"cannot listen on {host}:{port}: {exc.strerror or exc}") from None
    finally:
        server.spares.kill_left()
    print(f"adventure {command} --serve: stopped", file=sys.stderr)
    return 0


def private_folder() -> Path:
    """A folder only this user can read, removed by the caller: what the server hands its visitors."""
    return Path(tempfile.mkdtemp(prefix="adventure-serve-"))
