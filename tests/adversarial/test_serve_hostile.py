"""``adventure serve`` under hostile clients, round 2 (issue 35): a real server process, real sockets.

Every case ends with the server healthy and its log free of tracebacks and errors. The server is the one
tests/envs/test_serve.py plays on (tests/conftest.py's ``openenv_servers``): one start fewer.
"""

from __future__ import annotations

import asyncio
import json
import socket
import time
import urllib.error
import urllib.request

import pytest

from envs.test_serve import openenv   # noqa: F401  (the fixture checks the [openenv] extra)

pytestmark = [pytest.mark.serve, pytest.mark.xdist_group("serve")]   # the worker that holds the servers


@pytest.fixture(scope="module")
def server(openenv, openenv_servers):   # noqa: F811
    """The session's "roomy" server (envs/test_serve.py's ``start_servers``: 4 sessions, worlds from a
    folder holding ``mine.yaml`` and ``sub/``); its log is checked when the session ends."""
    return openenv_servers["roomy"]


def health(server) -> int | str:
    try:
        with urllib.request.urlopen(f"{server.url}/health", timeout=5) as r:
            return r.status
    except urllib.error.HTTPError as exc:
        return exc.code
    except OSError as exc:
        return repr(exc)


async def exchange(server, *messages: str | bytes) -> list[dict]:
    from websockets.asyncio.client import connect

    answers = []
    async with connect(f"ws://127.0.0.1:{server.port}/ws") as ws:
        for message in messages:
            await ws.send(message)
            answers.append(json.loads(await asyncio.wait_for(ws.recv(), 20)))
    return answers


def play(server, *messages) -> list[dict]:
    return asyncio.run(asyncio.wait_for(exchange(server, *[m if isinstance(m, str) else json.dumps(m)
                                                           for m in messages]), 60))


RESET = {"type": "reset", "data": {"world": "mine.yaml"}}


def test_a_session_resets_again_with_the_same_settings_and_after_its_episode_ended(server):
    answers = play(server, RESET, RESET, {"type": "step", "data": {"command": "done"}},
                   {"type": "step", "data": {"command": "look"}}, RESET, {"type": "step", "data": {"command": "look"}},
                   {"type": "state"})
    kinds = [a["type"] for a in answers]
    assert kinds == ["observation", "observation", "observation", "error", "observation", "observation", "state"]
    assert answers[2]["data"]["done"] and "reset to play again" in answers[3]["data"]["message"]
    assert answers[5]["data"]["observation"]["turn"] == 1 and answers[6]["data"]["world"] == "mine.yaml"
    assert answers[6]["data"]["step_count"] == 1 and answers[6]["data"]["done"] is False


@pytest.mark.parametrize("frame, why", [
    ("[" * 8000 + "]" * 8000, "nested more than"),
    ('{"type": "reset", "data": {"seed": ' + "9" * 5000 + "}}", "more than 4300 digits"),
    ('{"type": "reset", "data": {"seed": NaN}}', "NaN is not a JSON number"),
    ('{"type": "reset", "data": {"seed": -Infinity}}', "-Infinity is not a JSON number"),
    ('{"type": "reset", "data": ' + '{"a": ' * 40 + "1" + "}" * 40 + "}", "nested more than"),
])
def test_a_frame_python_cannot_parse_is_invalid_json_and_the_session_goes_on(server, frame, why):
    answers = play(server, RESET, frame, {"type": "step", "data": {"command": "look"}})
    assert answers[1]["type"] == "error" and answers[1]["data"]["code"] == "INVALID_JSON"
    assert why in answers[1]["data"]["message"]
    assert answers[2]["type"] == "observation" and answers[2]["data"]["observation"]["turn"] == 1


@pytest.mark.parametrize("body, why", [
    (b'{"seed": Infinity}', "Infinity is not a JSON number"), (b'{"seed": NaN}', "NaN"),
    (b'{"seed": ' + b"9" * 5000 + b"}", "4300 digits"), (b'{"seed": ' + b"[" * 5000 + b"]" * 5000 + b"}", "nested"),
])
def test_http_bodies_python_cannot_parse_are_422(server, body, why):
    code, answer = server.post("/reset", body)
    assert code == 422 and why in answer["detail"]


@pytest.mark.parametrize("seed", [-1, 2 ** 63, 1.5, True, "1", 10 ** 4000])
def test_a_seed_out_of_range_is_a_clear_error(server, seed):
    answer = play(server, {"type": "reset", "data": {"seed": seed}})[0]
    assert answer["type"] == "error" and "seed must be a whole number from 0 to" in answer["data"]["message"]
    if not isinstance(seed, (bool, str)):   # over HTTP, OpenEnv's model turns true and "1" into 1
        code, answer = server.post("/reset", {"seed": seed})
        assert code in (400, 422) and "seed" in json.dumps(answer)


def test_world_names_that_are_not_plain_names_under_the_folder_are_unknown(server):
    folder = server.folder
    for name in ("a" * 300 + ".yaml", "a/" * 200 + "x.yaml", str(folder / "mine.yaml"), f"../{folder.name}/mine.yaml",
                 "sub/../mine.yaml", "./mine.yaml", "sub//../mine.yaml", "mine.yaml\x00", "sub\\..\\mine.yaml",
                 "\udcff.yaml", "clembench/" + "x" * 500, "clembench/../../etc/x"):
        code, answer = server.post("/reset", {"world": name})
        assert code == 400, (name, answer)
        assert "unknown world" in answer["detail"] or "clembench" in answer["detail"], (name, answer)
        said = answer["detail"].replace(repr(name), "")   # the client's own name comes back; nothing else of the disk
        assert str(folder) not in said and "Errno" not in said and "/tmp" not in said, (name, said)
    assert server.post("/reset", {"world": "mine.yaml"})[0] == 200


def test_idle_and_half_open_connections_are_reaped_and_the_refusals_said_once(server):
    sockets = []
    for i in range(80):   # over --max-sessions + 64 connections: nothing, or half a header each
        s = socket.create_connection(("127.0.0.1", server.port))
        if i % 2:
            s.sendall(b"GET /health HTTP/1.1\r\nHost: x\r\n")
        sockets.append(s)
    try:
        time.sleep(0.5)
        assert health(server) == 503   # the limit holds while they are open ...
        for _ in range(10):
            health(server)             # (each refusal would have been a line in the log)
        started = time.monotonic()
        while health(server) != 200:   # ... and they are closed within the request deadline
            assert time.monotonic() - started < 30, "idle connections were never reaped"
            time.sleep(0.5)
        for s in sockets:
            s.settimeout(5)
            assert s.recv(10) == b""   # closed by the server
    finally:
        for s in sockets:
            s.close()


def test_a_text_frame_that_is_not_utf8_is_closed_quietly(server):
    from websockets.asyncio.client import connect
    from websockets.exceptions import ConnectionClosedError
    from websockets.frames import Frame, Opcode

    async def run():
        async with connect(f"ws://127.0.0.1:{server.port}/ws") as ws:
            ws.protocol.send_frame(Frame(Opcode.TEXT, b"\xff\xfe"))
            ws.send_data()
            with pytest.raises(ConnectionClosedError) as closed:
                await asyncio.wait_for(ws.recv(), 10)
            return closed.value.rcvd.code

    assert asyncio.run(run()) == 1007
    assert play(server, RESET)[0]["type"] == "observation"   # and the server carries on
