"""What the browser tests share: the [web] extra checked, a served study on a free port, the terminal in a page.

The page's terminal is xterm.js drawing on a canvas, which has no text to read. xterm.js keeps an
accessibility tree of its rows (a ``div`` per row) when ``screenReaderMode`` is on: the test turns it
on in the page's own ``textual.js`` as the browser fetches it (the one change to what is served) and
reads the rows xterm.js itself parsed from the app's output.
"""

from __future__ import annotations

import re
import socket
import subprocess
import sys
import time
import urllib.error
import urllib.request
from pathlib import Path

from needs import module

XTERM_OPTIONS = "allowProposedApi:!0,"
BOX = r"[\u2500-\u259f]"   # box drawing and block elements: borders, scroll bars, the input's frame


def web_extra() -> None:
    """The [web] extra (textual-serve, from .ci/setup.sh) is there; the test fails, naming it, when not."""
    module("textual_serve", "web")


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


class Served:
    """``adventure ARGS --serve`` on a free port of 127.0.0.1, stopped (SIGTERM) on exit.

    ``spares``: the visitor processes it keeps started (``--spares``; each costs a second of CPU to
    start): 1 by default, so a visitor still gets a started one as with the server's default of 2;
    0 where no visitor comes; None leaves the server's default."""

    def __init__(self, args: list[str], cwd: Path, *options: str, spares: int | None = 1) -> None:
        self.port = free_port()
        self.url = f"http://127.0.0.1:{self.port}/"
        self.log = cwd / f"server-{self.port}.log"
        self.command = [sys.executable, "-m", "tui_adventure.cli", *args, "--serve", "--port", str(self.port),
                        *options, *(["--spares", str(spares)] if spares is not None else [])]
        self.cwd = cwd

    def __enter__(self) -> "Served":
        self.out = open(self.log, "w")
        self.proc = subprocess.Popen(self.command, cwd=self.cwd, stdout=self.out, stderr=subprocess.STDOUT)
        deadline = time.monotonic() + 60
        while time.monotonic() < deadline:
            if self.proc.poll() is not None:
                raise AssertionError(f"the server ended: {self.log.read_text()}")
            try:
                self.get("static/css/xterm.css")
                return self
            except OSError:
                time.sleep(0.1)
        raise TimeoutError(f"no answer on {self.url}")

    def __exit__(self, *exc) -> None:
        self.proc.terminate()
        try:
            self.proc.wait(timeout=20)
        finally:
            if self.proc.poll() is None:
                self.proc.kill()
            self.out.close()

    def get(self, path: str) -> tuple[int, str]:
        try:
            with urllib.request.urlopen(self.url + path, timeout=10) as response:
                return response.status, response.read().decode()
        except urllib.error.HTTPError as exc:
            return exc.code, exc.read().decode()


class Terminal:
    """The app in a page: its screen as text, keys typed into it."""

    def __init__(self, page) -> None:
        self.page = page

        def readable(route) -> None:
            response = route.fetch()
            body = response.text()
            assert XTERM_OPTIONS in body, "textual.js changed: find where it makes its Terminal"
            headers = {k: v for k, v in response.headers.items() if k.lower() not in ("content-encoding",
                                                                                      "content-length")}
            route.fulfill(status=response.status, headers=headers,
                          body=body.replace(XTERM_OPTIONS, XTERM_OPTIONS + "screenReaderMode:!0,", 1))

        page.route("**/static/js/textual.js", readable)

    def open(self, url: str, first: str) -> str:
        """Load ``url`` and wait for ``first`` on the screen; the keyboard then types into the terminal."""
        self.page.goto(url)
        shown = self.wait_for(first)
        self.page.focus(".xterm-helper-textarea")
        return shown

    def screen(self) -> str:
        return self.page.evaluate(
            "[...document.querySelectorAll('.xterm-accessibility-tree > div')].map(d => d.textContent).join('\\n')")

    def text(self) -> str:
        """The screen's words in one line: boxes and wrapping gone, so a sentence reads whole."""
        return " ".join(re.sub(BOX, " ", self.screen()).split())

    def wait_for(self, text: str, timeout: float = 30) -> str:
        """The screen's words (``text()``) once ``text`` is among them."""
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            shown = self.text()
            if text in shown:
                return shown
            self.page.wait_for_timeout(50)
        raise AssertionError(f"{text!r} never showed; the screen:\n{self.screen()}")

    def rows(self) -> list[dict]:
        """The terminal's rows as drawn in the page: each one's text and its box (x, y, width, height)."""
        return self.page.evaluate(
            "[...document.querySelectorAll('.xterm-accessibility-tree > div')].map(d => "
            "({text: d.textContent, ...d.getBoundingClientRect().toJSON()}))")

    def tap(self, word: str) -> None:
        """Click the middle of ``word``'s first letter where the terminal draws it, as a finger on a phone would."""
        box = self.page.evaluate("document.querySelector('.xterm-screen').getBoundingClientRect().toJSON()")
        rows = self.rows()
        at = next(i for i, row in enumerate(rows) if word in row["text"])
        columns = len(rows[at]["text"])   # a row's text is padded to the terminal's width
        cell = box["width"] / columns
        self.page.mouse.click(box["x"] + (rows[at]["text"].index(word) + 0.5) * cell,
                              rows[at]["y"] + rows[at]["height"] / 2)

    def type(self, line: str) -> None:
        self.page.keyboard.type(line)
        self.page.keyboard.press("Enter")

    def press(self, key: str) -> None:
        self.page.keyboard.press(key)
