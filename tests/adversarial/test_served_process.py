"""A served study's server as a process of its own, where what happens to that process is the point:
``kill -9`` leaves no visitor process, SIGTERM ends it within seconds with the turns kept, and a visitor
process that dies is said on the page.
"""

from __future__ import annotations

import asyncio
import json
import os
import signal
import time

import pytest

from adversarial.visitors import ServerProcess, alive, closed, open_session, page, run, screen_until


@pytest.mark.slow   # visitor processes
def test_kill_9_of_the_server_leaves_no_visitor_process(tmp_path):
    import aiohttp

    server = ServerProcess(tmp_path, "--spares", "2")
    try:
        async def visit():
            async with aiohttp.ClientSession() as http:
                _, ticket = await page(http, server.url, "?participant=p1")
                ws = await open_session(http, server.url, ticket)
                await screen_until(ws, "Alpha instructions")
                deadline = time.monotonic() + 60
                while len(server.children()) < 3:   # the visitor's and two spares
                    assert time.monotonic() < deadline, server.children()
                    await asyncio.sleep(0.2)
                started = server.children()
                server.proc.kill()
                server.proc.wait(10)
                return started

        started = run(visit())
        deadline = time.monotonic() + 10
        while any(alive(pid) for pid in started) and time.monotonic() < deadline:
            time.sleep(0.1)
        assert not [pid for pid in started if alive(pid)]
    finally:
        server.close()


@pytest.mark.slow   # visitor processes
def test_sigterm_ends_a_server_with_a_session_open_within_5_s_and_its_turns_are_kept(tmp_path):
    import aiohttp

    from tui_adventure.web.server import STOPPING

    server = ServerProcess(tmp_path, "--spares", "1")
    interactions = tmp_path / "rec" / "human-p1" / "tutorial" / "tutorial" / "instance_00000" / "interactions.json"
    try:
        async def visit():
            async with aiohttp.ClientSession() as http:
                _, ticket = await page(http, server.url, "?participant=p1")
                ws = await open_session(http, server.url, ticket)
                await screen_until(ws, "Press Enter")
                await ws.send_json(["stdin", "\r"])
                await screen_until(ws, "Turn 0")
                await ws.send_json(["stdin", "look at the letter\r"])
                await screen_until(ws, "Turn 1")
                deadline = time.monotonic() + 30
                while "look at the letter" not in (interactions.read_text() if interactions.exists() else ""):
                    assert time.monotonic() < deadline
                    await asyncio.sleep(0.1)
                started = server.children()
                server.proc.send_signal(signal.SIGTERM)
                return started, await closed(ws, 10)

        started, reason = run(visit())
        server.proc.wait(timeout=5)   # raises when the server is still there 5 s on
        assert server.proc.returncode == 0 and reason == STOPPING
        assert not [pid for pid in started if alive(pid)]
        turns = json.loads(interactions.read_text())
        assert "look at the letter" in json.dumps(turns)
        assert "Traceback" not in server.text()
    finally:
        server.close()


@pytest.mark.slow
def test_the_page_says_why_its_session_ended_when_the_visitor_process_dies(tmp_path):
    from browser import browser_page

    from tui_adventure.web.server import CRASHED

    server = ServerProcess(tmp_path, "--spares", "0")
    try:
        with browser_page() as page:
            page.goto(server.url + "?participant=p1")
            page.wait_for_selector("body.-first-byte", timeout=60_000)
            (visitor,) = server.children()
            os.kill(visitor, signal.SIGKILL)
            page.wait_for_selector("body.-closed #ended", state="visible", timeout=20_000)
            said = page.inner_text("#ended")
        assert CRASHED in said and "Reload the page" in said
    finally:
        server.close()
