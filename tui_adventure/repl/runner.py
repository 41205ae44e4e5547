"""One event loop kept across the repl's calls: ``asyncio.Runner`` where Python has it (3.11+).

Python 3.10, which clemcore 3.7.2 and this package both support (Ubuntu 22.04's
own Python), has no ``asyncio.Runner``; ``LoopRunner`` does the two things of
it the repl relies on: one loop for every call (the model clients' sessions
live on it), and Ctrl-C during a call cancels that call's task, lets it unwind
(nothing half-played reaches the records) and then raises KeyboardInterrupt.
"""

from __future__ import annotations

import asyncio
import sys
from typing import Any, Coroutine, Protocol


class Runner(Protocol):
    def run(self, coro: Coroutine) -> Any: ...

    def close(self) -> None: ...


class LoopRunner:
    """``asyncio.Runner``'s run and close, on Python 3.10."""

    def __init__(self) -> None:
        self.loop = asyncio.new_event_loop()
        asyncio.set_event_loop(self.loop)   # as Runner does: code that asks for the current loop gets this one

    def run(self, coro: Coroutine) -> Any:
        task = self.loop.create_task(coro)
        try:
            return self.loop.run_until_complete(task)
        except KeyboardInterrupt:
            if not task.done():
                task.cancel()
                try:
                    self.loop.run_until_complete(task)
                except (asyncio.CancelledError, Exception):
                    pass   # the interrupt is what the caller is told of
            raise

    def close(self) -> None:
        loop = self.loop
        try:
            loop.run_until_complete(loop.shutdown_asyncgens())
            loop.run_until_complete(loop.shutdown_default_executor())
        finally:
            asyncio.set_event_loop(None)
            loop.close()


def new_runner() -> Runner:
    if sys.version_info >= (3, 11):
        return asyncio.Runner()
    return LoopRunner()
