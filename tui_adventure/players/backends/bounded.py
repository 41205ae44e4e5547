"""HTTP clients for the model SDKs in which every request is bounded: one deadline for the whole of it,
and a cap on the bytes of its answer.

An SDK's ``timeout`` bounds each read, not the request: a server that sends a
byte a second, or streams for ever, is never timed out, and an answer of any
size (a model list, a reply, one endless stream event) is read into memory.
A model server is a stranger's program, so the clients made here give each
HTTP request (connecting, the headers, the whole body, a stream included)
until its timeout runs out, counted from its start, and read at most
``MAX_BODY`` bytes of its body as decoded; past either the request ends with
``TooSlow`` (to the SDK, its own timeout) or ``TooLarge``. Answers are asked for in gzip or deflate only,
whose expansion per chunk read is bounded; one that comes in another encoding
is refused.

The clients are the SDKs' own (``openai.DefaultAioHttpClient`` and the like,
built on httpx or httpx2) with ``send`` wrapped: the SDK's timeouts, retries
and response types stay as they are. An SDK may hand the errors on as its
own connection error (openai 2's does), so callers look for them along the
chain of causes with ``bound_broken``.
"""

from __future__ import annotations

import asyncio
import functools
import importlib
import sys
import time

MAX_BODY = 16 * 1024 * 1024   # bytes of one answer, decoded: a model list, a reply or a whole stream
ENCODINGS = ("gzip", "deflate", "identity")   # what answers may come in (Accept-Encoding asks for the first two)
# headers of the answer as it came that no longer describe the body as it is handed on (decoded, counted)
DECODED = ("content-encoding", "content-length", "transfer-encoding")


class Bounds(Exception):
    """A response broke one of the bounds; the message says which, in words a user can act on."""


class TooSlow(Bounds):
    """The whole response did not come within the request's timeout. What is raised is also the HTTP
    library's ``ReadTimeout``, so an SDK treats it as its own timeout (retried, then its timeout error)."""


class TooLarge(Bounds):
    """The response's body is larger than the cap (or comes in an encoding whose size cannot be bounded)."""


def bound_broken(exc: BaseException | None) -> Bounds | None:
    """The ``Bounds`` error behind ``exc`` (itself, or along its causes), None when there is none."""
    seen: set[int] = set()
    while exc is not None and id(exc) not in seen:
        if isinstance(exc, Bounds):
            return exc
        seen.add(id(exc))
        exc = exc.__cause__ or exc.__context__
    return None


def out_of_bounds(spec, exc: Bounds, where: str) -> Exception:
    """What a model player makes of ``exc`` from the server at ``where``: an answer too slow in coming
    whole is asked again (as a timeout is); one too large ends the episode as an error."""
    from .completion import ModelError, Transient

    if isinstance(exc, TooSlow):
        return Transient(f"the answer took longer than the {spec.timeout:g} s the model's timeout allows")
    return ModelError(f"{where}: {exc}")


def megabytes(size: int) -> str:
    return f"{size / (1024 * 1024):g} MB"


@functools.lru_cache(maxsize=None)
def bounded(base: type, max_body: int = MAX_BODY) -> type:
    """``base``, an SDK's async HTTP client class (an httpx or httpx2 ``AsyncClient``), with every
    request bounded: its timeout (the read timeout the SDK sets on each request) is a deadline for
    the whole request, and at most ``max_body`` bytes of its body are read."""
    http = _library(base)
    read_timeout: type = http.ReadTimeout          # the library's classes, known only once it is imported
    byte_stream: type = http.AsyncByteStream

    class Slow(TooSlow, read_timeout):
        pass

    def too_slow(seconds: float | None) -> Slow:
        return Slow(f"no whole answer within {seconds:g} s (the request's timeout)")

    def left_of(deadline: float | None, seconds: float | None) -> float | None:
        """Seconds left before ``deadline`` (None: no deadline); ``Slow`` once it has passed."""
        if deadline is None:
            return None
        left = deadline - time.monotonic()
        if left <= 0:
            raise too_slow(seconds)
        return left

    class Body(byte_stream):
        """The body of ``response``, decoded, read chunk by chunk until the deadline or the cap."""

        def __init__(self, response, deadline: float | None, seconds: float | None) -> None:
            self.response, self.deadline, self.seconds = response, deadline, seconds

        async def __aiter__(self):
            size = 0
            chunks = self.response.aiter_bytes()
            try:
                while True:
                    left = left_of(self.deadline, self.seconds)
                    try:
                        chunk = await _within(anext(chunks), left)
                    except StopAsyncIteration:
                        return
                    except asyncio.TimeoutError:
                        raise too_slow(self.seconds) from None
                    size += len(chunk)
                    if size > max_body:
                        raise TooLarge(f"the answer is larger than {megabytes(max_body)}, more than any"
                                       " model list or reply needs: not read further")
                    yield chunk
            finally:
                await chunks.aclose()

        async def aclose(self) -> None:
            await self.response.aclose()

    class Client(base):
        async def send(self, request, *, stream: bool = False, **kwargs):
            """As the SDK's ``send``, within the request's deadline and the body's cap."""
            seconds = _seconds(request, self)
            deadline = None if seconds is None else time.monotonic() + seconds
            request.headers["Accept-Encoding"] = "gzip, deflate"
            left = left_of(deadline, seconds)
            try:
                response = await _within(super().send(request, stream=True, **kwargs), left)
            except asyncio.TimeoutError:
                raise too_slow(seconds) from None
            encoding = response.headers.get("content-encoding", "identity").strip().lower()
            if encoding not in ENCODINGS:
                await response.aclose()
                raise TooLarge(f"the answer came in the encoding {encoding[:40]!r}, which was not asked"
                               " for and whose size cannot be bounded")
            headers = [(k, v) for k, v in response.headers.multi_items() if k.lower() not in DECODED]
            capped = http.Response(response.status_code, headers=headers, request=response.request,
                                   stream=Body(response, deadline, seconds), extensions=response.extensions)
            if not stream:
                try:
                    await capped.aread()
                except BaseException:
                    await capped.aclose()
                    raise
            return capped

    return Client


def _library(base: type):
    """The module (httpx or httpx2) whose ``AsyncClient`` ``base`` is built on."""
    for cls in base.__mro__:
        package = cls.__module__.split(".")[0]
        if cls.__name__ == "AsyncClient" and package.startswith("httpx"):
            return importlib.import_module(package)
    raise TypeError(f"{base.__name__} is not an httpx or httpx2 AsyncClient")


def _seconds(request, client) -> float | None:
    """The request's timeout: the read timeout its SDK set on it, else the client's (None: no deadline)."""
    timeout = request.extensions.get("timeout") or {}
    seconds = timeout.get("read", client.timeout.read) if isinstance(timeout, dict) else client.timeout.read
    return seconds if isinstance(seconds, (int, float)) and seconds > 0 else None


if sys.version_info >= (3, 11):
    async def _within(awaitable, seconds: float | None):
        """``awaitable``'s result, or ``TimeoutError`` after ``seconds`` (None: no limit)."""
        async with asyncio.timeout(seconds):   # no task per chunk, as wait_for makes before 3.12
            return await awaitable
else:   # pragma: no cover - Python 3.10
    async def _within(awaitable, seconds: float | None):
        return await asyncio.wait_for(awaitable, seconds)
