"""A Textual command served to browsers with textual-serve (the ``[web]`` extra).

textual-serve runs the command afresh for each browser that connects and
streams its screen over a websocket, so whatever the terminal app does, the
browser shows: a run on a cluster is watched from a laptop. The server
listens on 127.0.0.1 unless told otherwise; the records it shows (prompts
and all) are for whoever can reach the port, so reach it through an ssh
tunnel rather than opening it to a network.
"""

from __future__ import annotations

import shlex


class ServeUnavailable(RuntimeError):
    """The extra is missing, or the address cannot be listened on; the message says what to do."""


def serve_app(command: list[str], host: str = "127.0.0.1", port: int = 8000, title: str | None = None,
              public_url: str | None = None) -> int:
    """Serve ``command`` (argv) until Ctrl-C; 0 when it stopped."""
    try:
        from textual_serve.server import Server
    except ImportError as exc:
        raise ServeUnavailable(f"--serve needs the [web] extra: pip install 'tui-adventure[web]' ({exc})") from None
    import socket

    try:   # said in one line before the server starts, not as the server's traceback
        with socket.create_server((host, port)):
            pass
    except OSError as exc:
        raise ServeUnavailable(f"cannot listen on {host}:{port} ({exc.strerror or exc}); choose another --port") \
            from None
    Server(shlex.join(command), host=host, port=port, title=title, public_url=public_url).serve()
    return 0
