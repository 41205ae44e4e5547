"""What every model backend shares: the answer it hands back, its errors, and one client per loop.

A batch plays many episodes at once on one event loop; they share one SDK
client per backend configuration, so connections are pooled and kept alive
instead of opened per episode. SDK clients hold connections bound to the
loop that made them, so the cache is per loop (a test's loop, the app's,
``asyncio.run`` of a batch) and forgets a loop when it is gone.
"""

from __future__ import annotations

import asyncio
import weakref
from dataclasses import dataclass, field


@dataclass
class ToolCall:
    id: str
    name: str
    arguments: str            # JSON text, as the model wrote it


@dataclass
class Completion:
    text: str
    tool_calls: list[ToolCall]
    raw: dict                 # the provider's whole response, as a dict (what clemcore records)
    sent: list                # the messages as sent (clemcore's manipulated_prompt_obj)
    tokens_in: int | None = None
    tokens_out: int | None = None
    extra: dict = field(default_factory=dict)


class ModelError(RuntimeError):
    """A backend gave up (after its retries) or was refused: the episode ends as an error."""


class Transient(RuntimeError):
    """The answer broke off or could not be read: worth asking again."""


def is_transport_error(exc: BaseException) -> bool:
    """A connection that broke while a body was read (httpx's or httpx2's TransportError, by name:
    which of the two an SDK uses depends on its version)."""
    return any(c.__name__ in ("TransportError", "StreamError") and c.__module__.split(".")[0].startswith("httpx")
               for c in type(exc).__mro__)


_CLIENTS: "weakref.WeakKeyDictionary[asyncio.AbstractEventLoop, dict]" = weakref.WeakKeyDictionary()


def shared_client(key: tuple, factory):
    """The client for ``key`` on the running loop, made by ``factory()`` the first time."""
    loop = asyncio.get_running_loop()
    clients = _CLIENTS.setdefault(loop, {})
    client = clients.get(key)
    if client is None:
        client = clients[key] = factory()
    return client


async def close_clients() -> None:
    """Close the running loop's clients (end of a batch), so no connection outlives its loop."""
    try:
        loop = asyncio.get_running_loop()
    except RuntimeError:
        return
    clients = _CLIENTS.pop(loop, {})
    for client in clients.values():
        try:
            await client.close()
        except Exception:   # closing is best effort: a broken connection is closed already
            pass
