"""A served visitor (``study`` / ``play`` / ``watch --serve``) under hostile use (issue 55): one visitor may not
take the server down, lock others out or outlive it, and plays what the server admitted.

The server runs in this process on 127.0.0.1 (its visitors are real processes);
test_served_process.py has what needs the server as a process of its own (``kill -9``, SIGTERM).
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import os
import re
import signal
import socket
import time
from pathlib import Path

import pytest

from adversarial.visitors import STUDY, closed, open_session, page, pong, run, screen_until, served, study_server


@pytest.mark.slow   # visitor processes
@pytest.mark.parametrize("how", ["killed", "stopped"])
def test_a_visitor_process_that_dies_or_stops_answering_frees_its_seat_and_the_page_says_why(tmp_path, how):
    import aiohttp

    from tui_adventure.web.server import CRASHED, STALLED

    async def scenario():
        async with study_server(tmp_path, max_sessions=1, spares=0, stall_seconds=3, ping_seconds=0.5) as (server, url), \
                aiohttp.ClientSession() as http:
            _, ticket = await page(http, url, "?participant=first")
            ws = await open_session(http, url, ticket)
            await screen_until(ws, "Alpha instructions")
            session = next(iter(server.sessions))
            pid = session.process.pid
            await asyncio.sleep(4)
            assert session in server.sessions and not ws.closed   # an app that answers is left alone
            os.kill(pid, signal.SIGKILL if how == "killed" else signal.SIGSTOP)
            try:
                reason = await closed(ws, 30)
            finally:
                with contextlib.suppress(ProcessLookupError):
                    os.kill(pid, signal.SIGKILL)
            assert session.process.returncode is not None      # no process left behind
            assert not server.sessions                          # the seat is free at once...
            status, ticket = await page(http, url, "?participant=second")
            assert status == 200                                # ...for the next visitor
            ws = await open_session(http, url, ticket)
            await screen_until(ws, "Alpha instructions")
            await ws.close()
            return reason

    assert run(scenario()) == (CRASHED if how == "killed" else STALLED)


@pytest.mark.slow   # visitor processes
def test_page_loads_take_no_seat_and_one_address_holds_few_tickets(tmp_path):
    import aiohttp

    from tui_adventure.web.server import TICKETS_PER_ADDRESS

    async def scenario():
        async with study_server(tmp_path, max_sessions=1, spares=0) as (server, url), \
                aiohttp.ClientSession() as http:
            for i in range(TICKETS_PER_ADDRESS - 1):            # pages that never open their session
                assert (await page(http, url, f"?participant=made-up-{i}"))[0] == 200
            status, ticket = await page(http, url, "?participant=real")
            assert status == 200                                # a page load held no seat
            ws = await open_session(http, url, ticket)
            await screen_until(ws, "Alpha instructions")        # the real session opens
            await ws.close()
            while server.sessions:                              # (its app quitting)
                await asyncio.sleep(0.05)
            for i in range(TICKETS_PER_ADDRESS - 1, TICKETS_PER_ADDRESS + 1):
                status, _ = await page(http, url, f"?participant=made-up-{i}")
            assert status == 429                                # one address: at most TICKETS_PER_ADDRESS
            other = aiohttp.TCPConnector(local_addr=("127.0.0.2", 0))
            async with aiohttp.ClientSession(connector=other) as elsewhere:
                assert (await page(elsewhere, url, "?participant=elsewhere"))[0] == 200   # others still come

    run(scenario())


@pytest.mark.slow   # visitor processes
def test_watch_serve_has_a_session_cap_tickets_and_a_screen_size_cap(tmp_path, caplog):
    import aiohttp

    from tui_adventure.web.server import FULL
    from tui_adventure.web.visitor import CPU_SECONDS, MEMORY_BYTES

    (tmp_path / "records").mkdir()

    async def scenario():
        async with served("watch", ["--", str(tmp_path / "records")], max_sessions=1, spares=0) as (server, url), \
                aiohttp.ClientSession() as http:
            async with http.get(url + "ws/no-ticket/10x10") as refused:
                assert refused.status == 403                    # no session without the page's ticket
            _, first = await page(http, url)
            _, second = await page(http, url)
            ws = await open_session(http, url, first, columns=20000, rows=20000)
            await screen_until(ws, "records")
            pid = next(iter(server.sessions)).process.pid
            await ws.send_str("not json at all")                # malformed: one line in the log
            await ws.send_str('{"kind": "stdin"}')
            await ws.send_str("[")
            await ws.send_json(["resize", {"width": 20000, "height": 20000}])
            await asyncio.sleep(1.5)
            limits = Path(f"/proc/{pid}/limits").read_text()
            assert re.search(rf"Max address space\s+{MEMORY_BYTES}\s", limits), limits   # each visitor bounded
            assert re.search(rf"Max cpu time\s+{CPU_SECONDS}\s", limits), limits
            status = Path(f"/proc/{pid}/status").read_text()
            peak = int(re.search(r"VmHWM:\s+(\d+) kB", status).group(1)) * 1024
            over = await open_session(http, url, second)
            reason = await closed(over, 10)                     # the cap holds
            await ws.close()
            return peak, reason

    with caplog.at_level(logging.WARNING, logger="adventure.serve"):
        peak, reason = run(scenario())
    assert reason == FULL
    assert peak < 400 * 2**20, peak   # a 20000x20000 screen asked for: capped (780 MB uncapped)
    said = [r for r in caplog.records if "not [kind, data] JSON" in r.getMessage()]
    assert len(said) == 1 and not any(r.exc_info for r in caplog.records)


@pytest.mark.slow   # visitor processes
def test_a_connection_that_sends_no_whole_request_is_closed_within_seconds(tmp_path):
    async def scenario():
        async with served("watch", ["--", str(tmp_path)], spares=0) as (server, _):
            silent = socket.create_connection(("127.0.0.1", server.port))
            half = socket.create_connection(("127.0.0.1", server.port))
            half.sendall(b"GET / HTTP/1.1\r\nHost: x\r\n")   # and nothing more
            ends = []
            for s in (silent, half):
                s.settimeout(0)
                deadline = time.monotonic() + 20
                while time.monotonic() < deadline:
                    try:
                        ends.append(s.recv(100))
                        break
                    except BlockingIOError:
                        await asyncio.sleep(0.2)
                s.close()
            return ends

    assert run(scenario()) == [b"", b""]   # closed by the server (aiohttp's default holds them 75 s or more)


@pytest.mark.slow   # visitor processes
def test_a_visitor_plays_the_study_as_the_server_read_it_at_its_start(tmp_path):
    import aiohttp

    async def scenario():
        async with study_server(tmp_path, max_sessions=2, spares=0) as (_, url), \
                aiohttp.ClientSession() as http:
            (tmp_path / "study.yaml").write_text(STUDY.replace("Alpha", "Beta"))   # edited after the start
            _, ticket = await page(http, url, "?participant=p1")
            ws = await open_session(http, url, ticket)           # a process started after the edit
            shown = await screen_until(ws, "instructions for the first study")
            await ws.close()
            return shown

    shown = run(scenario())
    assert "Alpha" in shown and "Beta" not in shown


def test_a_frozen_study_generates_nothing_again(tmp_path, monkeypatch):
    from tui_adventure import generate
    from tui_adventure.study.spec import freeze_study, thaw_study

    (tmp_path / "study.yaml").write_text("title: Made\nworlds:\n  - generate: {rooms: 4, objects: 8, goals: 2,"
                                         " seeds: [1, 2, 3]}\n")
    study, frozen = freeze_study(tmp_path / "study.yaml", tmp_path)
    monkeypatch.setattr(generate, "generate_world", lambda *a, **k: pytest.fail("generated again"))
    thawed = thaw_study(frozen)
    assert [e.label for e in thawed.worlds] == [e.label for e in study.worlds]
    assert [e.world.title for e in thawed.worlds] == [e.world.title for e in study.worlds]


@pytest.mark.slow   # visitor processes
def test_two_megabytes_of_keystrokes_reach_the_app_only_up_to_the_input_bound(tmp_path, caplog):
    import aiohttp

    from tui_adventure.web.processes import INPUT_BURST, INPUT_RATE

    async def scenario():
        argv = [f"--records={tmp_path / 'rec'}", "--player=human", "--", "tutorial"]
        async with served("play", argv, spares=0, stall_seconds=20, ping_seconds=1) as (server, url), \
                aiohttp.ClientSession() as http:
            _, ticket = await page(http, url)
            ws = await open_session(http, url, ticket)
            await screen_until(ws, "Turn 0")
            session = next(iter(server.sessions))
            started = time.monotonic()
            for _ in range(128):                       # 2 MB of ordinary keys, 16 KB a message
                await ws.send_json(["stdin", "x" * 16_000])
            await ws.send_json(["resize", {"width": 90, "height": 30}])
            await screen_until(ws, "Turn 0", 30)       # the app still draws
            await asyncio.sleep(3)
            seconds = time.monotonic() - started
            assert session in server.sessions           # and still answers its pings
            await ws.close()
            return session.visitor.typed, session.visitor.dropped, seconds

    with caplog.at_level(logging.WARNING, logger="adventure.serve"):
        typed, dropped, seconds = run(scenario())
    assert typed <= INPUT_BURST + INPUT_RATE * (seconds + 1) and typed + dropped == 128 * 16_000
    assert len([r for r in caplog.records if "typed faster" in r.getMessage()]) == 1


@pytest.mark.slow   # visitor processes
def test_numbers_made_of_non_ascii_digits_are_the_defaults_not_a_crash(tmp_path, caplog):
    import aiohttp

    (tmp_path / "records").mkdir()

    async def scenario():
        async with served("watch", ["--", str(tmp_path / "records")], max_sessions=1, spares=0) as (_, url), \
                aiohttp.ClientSession() as http:
            async with http.get(url + "?fontsize=%C2%B2") as answer:   # "²": a digit to str.isdigit, not to int
                assert answer.status == 200 and 'data-font-size="16"' in await answer.text()
            _, ticket = await page(http, url)
            ws = await http.ws_connect(f"{url.replace('http', 'ws')}ws/{ticket}/%C2%B2x600?width=%C2%B2&height=30")
            first = await asyncio.wait_for(ws.receive(), 60)            # the app draws
            assert first.type == aiohttp.WSMsgType.BINARY, (first.type, first.data)
            await ws.send_json(["resize", {"width": "\u00b2", "height": "\u00b3"}])
            return await pong(ws)

    with caplog.at_level(logging.WARNING):
        assert run(scenario()) == ["pong", "still here"]
    assert not any(r.exc_info for r in caplog.records)


async def test_a_watch_filter_of_non_ascii_or_endless_digits_is_ignored_and_said(tmp_path):
    from textual.widgets import Input, Static

    from tui_adventure.app import AdventureApp

    (tmp_path / "records").mkdir()
    app = AdventureApp(watch=tmp_path / "records", served=True)

    def status() -> str:
        return str(app.screen.query_one("#watch-status", Static).render())

    async def until(pilot, check) -> None:
        for _ in range(300):
            await pilot.pause()
            if check():
                return
            await asyncio.sleep(0.05)
        raise AssertionError(status())

    async with app.run_test(size=(120, 30)) as pilot:
        await until(pilot, lambda: "no runs yet" in status())
        for typed in ("stuck:\u00b2", "stuck:" + "9" * 5000):      # int() refuses both
            app.screen.query_one("#filter", Input).value = typed
            await until(pilot, lambda typed=typed: f"ignored: {typed[:20]}" in status())
        assert app.is_running


@pytest.mark.slow   # visitor processes
def test_a_deeply_nested_message_is_one_log_line_and_the_session_goes_on(tmp_path, caplog):
    import aiohttp

    (tmp_path / "records").mkdir()

    async def scenario():
        async with served("watch", ["--", str(tmp_path / "records")], max_sessions=1, spares=0) as (_, url), \
                aiohttp.ClientSession() as http:
            _, ticket = await page(http, url)
            ws = await open_session(http, url, ticket)
            first = await asyncio.wait_for(ws.receive(), 60)            # the app draws
            assert first.type == aiohttp.WSMsgType.BINARY, (first.type, first.data)
            await ws.send_str("[" * 5000 + "]" * 5000)                  # RecursionError in Python's parser
            await ws.send_str('["resize", ' + "[" * 5000 + "]" * 5000 + "]")
            return await pong(ws)

    with caplog.at_level(logging.WARNING):
        assert run(scenario()) == ["pong", "still here"]
    assert not any(r.exc_info for r in caplog.records)
    assert len([r for r in caplog.records if "not [kind, data] JSON" in r.getMessage()]) == 1
