"""What the served-visitor tests share: a server in this process on 127.0.0.1 (its visitors are real
processes) or as a process of its own (``ServerProcess``), and a visitor's side of the websocket.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import os
import re
import signal
import socket
import subprocess
import sys
import time
from functools import partial
from pathlib import Path

from web.served import free_port

STUDY = """\
title: Served bounds
instructions: Alpha instructions for the first study.
worlds:
  - tutorial
"""


@contextlib.asynccontextmanager
async def served(command: str, argv: list[str], admit=None, **limits):
    from tui_adventure.web.server import BrowserServer, Limits

    server = BrowserServer(command, argv, "127.0.0.1", free_port(), Limits(**limits), admit)
    runner = await server.start()
    try:
        yield server, f"http://127.0.0.1:{server.port}/"
    finally:
        await server.stop(runner)


def study_server(folder: Path, **limits):
    from tui_adventure.study.queue import is_sitting
    from tui_adventure.study.spec import freeze_study

    (folder / "study.yaml").write_text(STUDY)
    (folder / "frozen").mkdir()
    study, frozen = freeze_study(folder / "study.yaml", folder / "frozen")
    records = folder / "rec"
    return served("study", [f"--records={records}", f"--frozen={frozen}", "--", str(folder / "study.yaml")],
                  partial(is_sitting, study, records), **limits)


async def page(http, url: str, query: str = "") -> tuple[int, str | None]:
    async with http.get(url + query) as answer:
        found = re.search(r'new URL\("ws/([^/"]+)/', await answer.text())
        return answer.status, found.group(1) if found else None


async def open_session(http, url: str, ticket: str, columns: int = 100, rows: int = 30):
    return await http.ws_connect(f"{url.replace('http', 'ws')}ws/{ticket}/800x600?width={columns}&height={rows}")


async def screen_until(ws, words: str, timeout: float = 60) -> str:
    """The terminal's text the app sent until ``words`` is in it (escape sequences dropped)."""
    import aiohttp

    seen = ""
    deadline = time.monotonic() + timeout
    while words not in re.sub(r"\x1b\[[0-9;?]*[A-Za-z]", "", seen):
        message = await asyncio.wait_for(ws.receive(), max(0.1, deadline - time.monotonic()))
        assert message.type == aiohttp.WSMsgType.BINARY, (message.type, message.data, message.extra)
        seen += message.data.decode("utf-8", "replace")
    return seen


async def closed(ws, timeout: float = 60) -> str:
    """The close reason the page would show, once the server closes the session."""
    import aiohttp

    deadline = time.monotonic() + timeout
    while True:
        message = await asyncio.wait_for(ws.receive(), max(0.1, deadline - time.monotonic()))
        if message.type in (aiohttp.WSMsgType.CLOSE, aiohttp.WSMsgType.CLOSED):
            return message.extra or ""


def run(coroutine, timeout: float = 120):
    return asyncio.run(asyncio.wait_for(coroutine, timeout))


async def pong(ws):
    """The session's answer to a ping (the messages drawn before it skipped), or why it ended instead."""
    import aiohttp

    await ws.send_json(["ping", "still here"])
    while True:
        message = await asyncio.wait_for(ws.receive(), 30)
        if message.type == aiohttp.WSMsgType.TEXT:
            await ws.close()
            return json.loads(message.data)
        if message.type != aiohttp.WSMsgType.BINARY:
            return message.type, message.data, message.extra


class ServerProcess:
    """``adventure study study.yaml --serve`` in ``folder`` on a free port of 127.0.0.1."""

    def __init__(self, folder: Path, *options: str) -> None:
        (folder / "study.yaml").write_text(STUDY)
        self.port = free_port()
        self.url = f"http://127.0.0.1:{self.port}/"
        self.log = open(folder / "server.log", "w+")
        self.proc = subprocess.Popen([sys.executable, "-m", "tui_adventure.cli", "study", "study.yaml", "--records",
                                      "rec", "--serve", "--port", str(self.port), *options], cwd=folder,
                                     stdout=self.log, stderr=subprocess.STDOUT)
        deadline = time.monotonic() + 60
        while True:
            assert self.proc.poll() is None and time.monotonic() < deadline, self.text()
            with contextlib.suppress(OSError), socket.create_connection(("127.0.0.1", self.port), timeout=1):
                break
            time.sleep(0.1)

    def text(self) -> str:
        self.log.seek(0)
        return self.log.read()

    def children(self) -> set[int]:
        """The processes this server started that are still alive (not zombies)."""
        out = set()
        for stat in Path("/proc").glob("[0-9]*/environ"):
            with contextlib.suppress(OSError):
                if f"ADVENTURE_SERVER_PID={self.proc.pid}\0".encode() in stat.read_bytes() and alive(int(stat.parent.name)):
                    out.add(int(stat.parent.name))
        return out

    def close(self) -> None:
        if self.proc.poll() is None:
            self.proc.kill()
            self.proc.wait(10)
        for pid in self.children():
            with contextlib.suppress(ProcessLookupError):
                os.kill(pid, signal.SIGKILL)
        self.log.close()


def alive(pid: int) -> bool:
    try:
        return Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0] != "Z"
    except OSError:
        return False
