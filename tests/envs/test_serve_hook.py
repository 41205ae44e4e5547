"""The one place the project extends a library's class rather than calling it: ``adventure serve``'s
``ReapingH11`` (envs/serve_bounds.py) gives uvicorn's h11 protocol a deadline for a request to arrive,
which none of uvicorn's own limits sets (``timeout_keep_alive`` starts only after a first response). It
passes the class through uvicorn's public ``Config(http=...)``; this test fails loudly, naming what
changed, when a uvicorn release moves the hooks it relies on."""

from __future__ import annotations

import inspect

from needs import module


def test_uvicorn_still_has_the_hooks_reaping_relies_on():
    module("uvicorn", "serve")
    from uvicorn.protocols.http.h11_impl import H11Protocol

    for hook in ("connection_made", "on_response_complete", "connection_lost"):
        assert callable(getattr(H11Protocol, hook, None)), f"uvicorn's H11Protocol has no {hook}: update ReapingH11"
    source = inspect.getsource(H11Protocol)
    for name in ("self.conn", "self.transport", "self.loop"):
        assert name in source, f"uvicorn's H11Protocol no longer keeps {name}: update ReapingH11"
    assert "timeout_keep_alive_task" not in inspect.getsource(H11Protocol.connection_made), \
        "uvicorn now arms its keep-alive timeout on a new connection: ReapingH11 may go (serve_bounds.py)"
