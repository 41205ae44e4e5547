"""What ``adventure serve`` bounds that OpenEnv and uvicorn leave open: message sizes and shapes, idle
sessions, connections that never send a whole request, and a log a hostile client cannot flood.

Every message a client sends is parsed here first, with the project's one bounded JSON parser
(``engine.sources.parse_json``): Python's own parser raises RecursionError on deep nesting and a
ValueError from ``int()`` on a number of more than 4,300 digits, and OpenEnv's handler catches
only ``JSONDecodeError``, so either ended the whole session. NaN and Infinity are not JSON either
(a NaN seed reached the reply's encoder and came back as a 500).
"""

from __future__ import annotations

import asyncio
import json
import logging
import time

import h11
from uvicorn.protocols.http.h11_impl import H11Protocol

from ..engine.sources import parse_json

MAX_MESSAGE_BYTES = 16_384    # a step is ~60 bytes, a reset with every option ~400
MAX_MESSAGE_DEPTH = 16        # a reset with infos nests 3 deep
REQUEST_SECONDS = 10.0        # for a request's head and body to arrive, from when the server waits for it
LOG_EVERY = 60.0              # seconds between two log lines of the same kind caused by clients


def _not_json(text: str | bytes) -> str | None:
    """Why ``text`` is not a message this server reads as JSON, or None."""
    try:
        parse_json(text, allow_nan=False, max_depth=MAX_MESSAGE_DEPTH)
    except ValueError as exc:
        return f"not JSON: {exc}"
    return None


class Bounds:
    """ASGI middleware: request and message sizes, the shape of a WebSocket message, the idle timeout.

    It sits outside FastAPI so that an oversized body is refused before anything parses it, and so
    that the idle timeout can close the connection itself rather than only the environment.
    """

    def __init__(self, app, max_bytes: int = MAX_MESSAGE_BYTES, idle_timeout: float | None = None) -> None:
        self.app, self.max_bytes, self.idle_timeout = app, max_bytes, idle_timeout

    async def __call__(self, scope, receive, send) -> None:
        if scope["type"] == "http":
            await self._http(scope, receive, send)
        elif scope["type"] == "websocket":
            await self._websocket(scope, receive, send)
        else:
            await self.app(scope, receive, send)

    async def _http(self, scope, receive, send) -> None:
        declared = dict(scope["headers"]).get(b"content-length", b"0")
        if not declared.isdigit() or int(declared) > self.max_bytes:
            await _refuse(send, 413, f"a request body holds at most {self.max_bytes} bytes")
            return
        body, more = bytearray(), True
        while more:   # a chunked body has no length up front: counted as it comes
            message = await receive()
            if message["type"] != "http.request":
                return
            body += message.get("body", b"")
            more = message.get("more_body", False)
            if len(body) > self.max_bytes:
                await _refuse(send, 413, f"a request body holds at most {self.max_bytes} bytes")
                return
        problem = _not_json(bytes(body)) if body.strip() else None
        if problem is not None:
            await _refuse(send, 422, problem)
            return
        replayed = False

        async def replay():
            nonlocal replayed
            if replayed:
                return await receive()
            replayed = True
            return {"type": "http.request", "body": bytes(body), "more_body": False}

        await self.app(scope, replay, send)

    async def _websocket(self, scope, receive, send) -> None:
        closed, heard, refusal = False, False, None

        async def guarded_receive():
            nonlocal closed, heard
            while True:
                try:
                    message = await asyncio.wait_for(receive(), self.idle_timeout)
                except asyncio.TimeoutError:
                    closed = True
                    await send({"type": "websocket.close", "code": 1001,
                                "reason": f"idle for more than {self.idle_timeout:g} s"})
                    return {"type": "websocket.disconnect", "code": 1001}
                if message["type"] == "websocket.disconnect":
                    closed = True
                if message["type"] != "websocket.receive":
                    return message
                heard = True
                problem, code = self._problem(message)
                if problem is None:
                    return message
                await send({"type": "websocket.send", "text": json.dumps(
                    {"type": "error", "data": {"message": problem, "code": code}})})

        async def guarded_send(message):
            nonlocal refusal
            if closed:   # after a disconnect or an idle close, OpenEnv's own goodbye has nowhere to go (and
                return   # uvicorn would raise it back through OpenEnv's handler, which catches only RuntimeError)
            if message["type"] == "websocket.send" and not heard and '"CAPACITY_REACHED"' in message.get("text", ""):
                refusal = json.loads(message["text"])["data"]["message"]
            elif message["type"] == "websocket.close":
                if refusal is not None:
                    # OpenEnv refuses a session over the limit with an error frame, then closes at once: a client
                    # whose first send meets the closed socket never reads the frame, so the close says it too
                    message = {**message, "code": 1013, "reason": refusal[:120]}
                try:
                    await send(message)
                except OSError:   # the client left first (it closes right after its "close" message)
                    pass
                return
            await send(message)

        await self.app(scope, guarded_receive, guarded_send)

    def _problem(self, message: dict) -> tuple[str | None, str]:
        """Why a WebSocket message is refused here, and the code the answer carries."""
        text = message.get("text")
        if text is None:
            return 'messages are JSON text frames, e.g. {"type": "step", "data": {"command": "look"}}', \
                "VALIDATION_ERROR"
        if len(text) > self.max_bytes or len(text.encode("utf-8", "surrogatepass")) > self.max_bytes:
            return f"a message holds at most {self.max_bytes} bytes", "VALIDATION_ERROR"
        problem = _not_json(text)
        if problem is not None:
            return problem, "INVALID_JSON"
        if not text.lstrip().startswith("{"):
            return 'a message is a JSON object, e.g. {"type": "step", "data": {"command": "look"}}', \
                "VALIDATION_ERROR"
        return None, ""


async def _refuse(send, status: int, message: str) -> None:
    body = json.dumps({"detail": message}).encode()
    await send({"type": "http.response.start", "status": status,
                "headers": [(b"content-type", b"application/json"), (b"content-length", str(len(body)).encode())]})
    await send({"type": "http.response.body", "body": body})


class ReapingH11(H11Protocol):
    """uvicorn's h11 protocol with a deadline for every request to arrive in full.

    uvicorn's ``timeout_keep_alive`` starts only after a response (its issue 160): a connection that
    sends nothing, or half a header, or a body a byte a minute, is kept for ever and counts against
    ``limit_concurrency``, so a few dozen of them made every endpoint answer 503. Here the wait for
    a request's head and body is bounded from the moment the server starts waiting (the connection
    opens, or the last response ends); a request that arrived in full is never cut, however long
    its answer takes, and a WebSocket, once upgraded, is the idle timeout's.
    """

    request_seconds = REQUEST_SECONDS

    def connection_made(self, transport) -> None:
        super().connection_made(transport)
        self._deadline: asyncio.TimerHandle | None = None
        self._arm()

    def on_response_complete(self) -> None:
        super().on_response_complete()
        self._arm()

    def connection_lost(self, exc) -> None:
        if self._deadline is not None:
            self._deadline.cancel()
            self._deadline = None
        super().connection_lost(exc)

    def _arm(self) -> None:
        if self._deadline is not None:
            self._deadline.cancel()
        self._deadline = self.loop.call_later(self.request_seconds, self._reap)

    def _reap(self) -> None:
        self._deadline = None
        if self.transport.is_closing() or self.transport.get_protocol() is not self:
            return   # closed already, or upgraded to a WebSocket
        if self.conn.their_state in (h11.IDLE, h11.SEND_BODY):   # no whole request since the wait began
            self.transport.close()


class QuietLog(logging.Filter):
    """uvicorn's log, as a hostile client cannot make it: one line for what a client caused, and each
    such line at most once a minute, with how many were left out.

    A text frame that is not UTF-8 is answered as it should be (close code 1007), but uvicorn logs it
    as an ERROR with a traceback; a refusal over ``limit_concurrency`` and a malformed request log a
    warning each time, as fast as a client can cause them.
    """

    CLIENT = {"Invalid UTF-8 sequence received from client.": "a client sent a text frame that is not UTF-8"
                                                              " (closed with 1007)",
              "Exceeded concurrency limit.": "connections over the limit answered 503",
              "Invalid HTTP request received.": "malformed HTTP requests answered 400"}

    def __init__(self, every: float = LOG_EVERY, clock=time.monotonic) -> None:
        super().__init__()
        self.every, self.clock = every, clock
        self.last: dict[str, float] = {}
        self.left_out: dict[str, int] = {}

    def filter(self, record: logging.LogRecord) -> bool:
        said = self.CLIENT.get(record.msg) if isinstance(record.msg, str) else None
        if said is None:
            return True
        now = self.clock()
        if now - self.last.get(record.msg, -self.every) < self.every:
            self.left_out[record.msg] = self.left_out.get(record.msg, 0) + 1
            return False
        self.last[record.msg] = now
        more = self.left_out.pop(record.msg, 0)
        record.msg, record.args = said + (f" ({more} more in the last {self.every:g} s)" if more else ""), ()
        record.exc_info, record.exc_text, record.stack_info = None, None, None
        record.levelno, record.levelname = logging.WARNING, "WARNING"
        return True
