"""The driver a served visitor's app runs with: textual's web driver, answering the server's pings.

The server (``web.server.VisitorProcess.watchdog``) sends ``{"type": "ping"}`` as a meta packet from time to
time; the answer, ``{"type": "pong"}``, is written by the app's own event loop, so it says that the app is
running, not only that its input thread reads. A process that is stopped or hung answers nothing and is ended.
"""

from __future__ import annotations

from textual.drivers.web_driver import WebDriver


class VisitorDriver(WebDriver):
    """``TEXTUAL_DRIVER=tui_adventure.web.driver:VisitorDriver`` (set by the server for its processes)."""

    def on_meta(self, packet_type: str, payload: dict[str, object]) -> None:
        if packet_type == "ping":
            self._app.call_later(self.write_meta, {"type": "pong"})   # post_message is safe from this thread
        else:
            super().on_meta(packet_type, payload)
