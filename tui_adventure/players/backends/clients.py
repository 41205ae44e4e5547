"""One SDK client per backend configuration and event loop.

A batch plays many episodes at once on one event loop; they share one SDK
client per backend configuration, so connections are pooled and kept alive
instead of opened per episode. SDK clients hold connections bound to the
loop that made them, so the cache is per loop (a test's loop, the app's,
``asyncio.run`` of a batch) and forgets a loop when it is gone.
"""

from __future__ import annotations

import asyncio
import weakref

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
