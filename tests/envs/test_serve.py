"""``adventure serve`` as a client meets it: a real server process on 127.0.0.1, OpenEnv's own client.

The ``[openenv]`` extra's OpenEnv comes from ``.ci/setup.sh``; without it these fail, naming that
command. The two servers start together, once a session (importing OpenEnv takes seconds: see
``start_servers``; tests/adversarial/test_serve_hostile.py plays on them too), and each test talks to
one of them over the network, as any client would; the last test stops one with SIGTERM.
"""

from __future__ import annotations

import asyncio
import importlib
import json
import os
import signal
import socket
import subprocess
import sys
import time
import urllib.error
import urllib.request

import pytest

from conftest import ROOT
from needs import module

pytestmark = [pytest.mark.serve, pytest.mark.xdist_group("serve")]   # one worker starts the servers once
# (the group holds every module that plays on them)


@pytest.fixture(scope="session")
def openenv():
    module("openenv", "openenv")
    return importlib.import_module("tui_adventure.envs.serve")


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


class Server:
    folder = None   # the --worlds folder, when one is given

    def __init__(self, *args: str, cwd=None) -> None:
        self.port = _free_port()
        self.url = f"http://127.0.0.1:{self.port}"
        env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(ROOT), os.environ.get("PYTHONPATH", "")])}
        self.proc = subprocess.Popen([sys.executable, "-m", "tui_adventure.cli", "serve", "--port", str(self.port),
                                      *args], stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=env,
                                     cwd=cwd)
        self.err: str | None = None

    def wait_ready(self, timeout: float = 180) -> "Server":   # importing OpenEnv: 25 s alone on a busy machine
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            assert self.proc.poll() is None, self.proc.communicate()[1]
            try:
                with urllib.request.urlopen(f"{self.url}/health", timeout=2) as r:
                    if json.load(r)["status"] == "healthy":
                        return self
            except OSError:
                time.sleep(0.2)
        raise TimeoutError(f"adventure serve did not answer on {self.url}")

    def post(self, path: str, body: bytes | dict) -> tuple[int, dict]:
        data = body if isinstance(body, bytes) else json.dumps(body).encode()
        req = urllib.request.Request(self.url + path, data=data, headers={"content-type": "application/json"})
        try:
            with urllib.request.urlopen(req, timeout=10) as r:
                return r.status, json.load(r)
        except urllib.error.HTTPError as exc:
            return exc.code, json.load(exc)

    def stop(self) -> str:
        """SIGTERM, unless it has ended; what it wrote to stderr (kept: read once, asked again at teardown)."""
        if self.err is None:
            if self.proc.poll() is None:
                self.proc.terminate()
            self.err = self.proc.communicate(timeout=15)[1] or ""
        return self.err


def start_servers(tmp_path_factory):
    """The session's ``adventure serve`` processes (tests/conftest.py's ``openenv_servers``), started
    together: "roomy" (4 sessions, worlds from a folder) and "tight" (1 session, closed after 1.5 s
    idle). Whatever the clients did, no server logged a traceback or an error, and "roomy" said its
    refusals once a minute, not once each."""
    folder = tmp_path_factory.mktemp("served")
    (folder / "mine.yaml").write_text((ROOT / "worlds" / "tutorial.yaml").read_text(encoding="utf-8"), encoding="utf-8")
    (folder / "manor").write_text("not a world", encoding="utf-8")   # a packaged name is never a file here
    (folder / "sub").mkdir()
    started = {"roomy": Server("--max-sessions", "4", "--worlds", str(folder), cwd=folder),
               "tight": Server("--max-sessions", "1", "--idle-timeout", "1.5")}
    started["roomy"].folder = folder
    try:
        yield {name: s.wait_ready() for name, s in started.items()}
    finally:
        logs = {name: s.stop() for name, s in started.items()}
    for name, log in logs.items():
        assert "Traceback" not in log and "ERROR" not in log, f"{name}: {log}"
    assert logs["roomy"].count("answered 503") <= 2, logs["roomy"]   # test_serve_hostile's 80 connections


@pytest.fixture(scope="module")
def servers(openenv, openenv_servers):
    return openenv_servers


@pytest.fixture(scope="module")
def house():
    from tui_adventure.envs.env import AdventureEnv
    from tui_adventure.catalog import open_world
    from tui_adventure.engine.planning.planner import Planner

    plan = Planner(open_world("house")).solve().commands
    env = AdventureEnv(world="house", infos=["turn", "goal_score"])
    first, _ = env.reset()
    return plan, [first] + [env.step(c)[0] for c in plan], len(env.world.goals)


def _client(openenv, server: Server):
    return openenv.AdventureClient(base_url=server.url, message_timeout_s=20)


def test_two_concurrent_clients_play_house_to_the_goal(openenv, servers, house):
    plan, texts, n_goals = house
    server = servers["roomy"]

    async def play(lag: int, log: list):
        async with _client(openenv, server) as env:
            result = await env.reset()
            assert result.observation.text == texts[0] and result.observation.world == "house"
            rewards = []
            for i, command in enumerate(plan, 1):
                await asyncio.sleep(0.002 * lag * (i % 3))   # the two sessions' steps interleave unevenly
                result = await env.step(command)
                log.append((lag, i))
                obs = result.observation
                assert obs.text == texts[i], (lag, command)   # the other session's moves leave no trace here
                assert obs.turn == i and result.done == (i == len(plan))
                rewards.append(result.reward)
            assert obs.goal_score == n_goals and len(obs.goals_achieved) == n_goals and obs.truncated is False
            assert sum(rewards) == n_goals
            state = await env.state()
            assert state.step_count == len(plan) and state.done and state.world == "house"
            with pytest.raises(RuntimeError, match="the episode has ended: reset"):
                await env.step("look")
            return state.episode_id

    async def both():
        log: list = []
        ids = await asyncio.gather(play(1, log), play(2, log))
        return ids, log

    (a, b), log = asyncio.run(asyncio.wait_for(both(), 60))
    assert a != b
    firsts = [lag for lag, _ in log]
    assert firsts[: len(plan)] != [firsts[0]] * len(plan)   # really interleaved, not one after the other


def test_reset_names_a_world_only_from_the_allowed_set(openenv, servers):
    server = servers["roomy"]

    async def run():
        async with _client(openenv, server) as env:
            for bad, why in (("nope", "unknown world 'nope'"), ("/etc/passwd", "unknown world"),
                             ("../" * 12 + "etc/hostname", "unknown world"), ("clembench/none/0", "clembench"),
                             (7, "world must be a non-empty string")):
                with pytest.raises(RuntimeError, match=why):
                    await env.reset(world=bad)
            with pytest.raises(RuntimeError, match="unknown reset option 'wrld'"):
                await env.reset(wrld="house")
            with pytest.raises(RuntimeError, match="infos must be a list drawn from"):
                await env.reset(infos=["admissible_commands"])   # the server offers the cheap ones only
            with pytest.raises(RuntimeError, match="at most 200 characters"):
                await env.step("look " * 50)
            mine = await env.reset(world="mine.yaml", seed=3)   # a file under --worlds
            assert mine.observation.world == "mine.yaml" and mine.observation.turn == 0
            packaged = await env.reset(world="clembench/home_deliver_three_basic_easy/0", rules="clembench")
            assert packaged.observation.goals
            assert (await env.step("> look")).observation.text
            return (await env.state()).step_count

    assert asyncio.run(asyncio.wait_for(run(), 30)) == 1


def test_malformed_messages_are_answered_and_the_session_goes_on(openenv, servers):
    from websockets.asyncio.client import connect

    server = servers["roomy"]

    async def run():
        async with connect(f"ws://127.0.0.1:{server.port}/ws") as ws:
            answers = []
            for raw in ("{not json", "[1, 2]", '"step"', b"\x00\x01", '{"type": "jump"}', '{"type": "step"}',
                        '{"type": "step", "data": {"command": 3}}', json.dumps({"type": "x", "pad": "a" * 20_000})):
                await ws.send(raw)
                answers.append(json.loads(await ws.recv()))
            await ws.send(json.dumps({"type": "reset", "data": {}}))
            reset = json.loads(await ws.recv())
            return answers, reset

    answers, reset = asyncio.run(asyncio.wait_for(run(), 20))
    assert all(a["type"] == "error" for a in answers)
    codes = [a["data"]["code"] for a in answers]
    assert codes[0] == "INVALID_JSON" and codes[4] == "UNKNOWN_TYPE"
    assert "JSON object" in answers[1]["data"]["message"] and "text frames" in answers[3]["data"]["message"]
    assert "at most 16384 bytes" in answers[-1]["data"]["message"]
    assert reset["type"] == "observation" and reset["data"]["observation"]["turn"] == 0


def test_http_errors_are_clear(servers):
    server = servers["roomy"]
    assert server.post("/reset", {"world": "nope"})[0] == 400
    code, body = server.post("/step", {"action": {"command": "look"}})
    assert code == 409 and "reset first" in body["detail"]
    assert server.post("/step", b'{"action": {"comm')[0] == 422
    code, body = server.post("/reset", b"{" + b" " * 20_000 + b"}")
    assert code == 413 and "16384 bytes" in body["detail"]
    code, body = server.post("/reset", {"world": "manor"})
    assert code == 200 and "manor" in body["observation"]["text"].lower() and body["done"] is False


def test_sessions_are_bounded_in_number_and_idle_time(openenv, servers):
    server = servers["tight"]   # one session, closed after 1.5 s idle

    async def run():
        first = _client(openenv, server)
        await first.reset()
        second = _client(openenv, server)
        # the refusal comes as an error frame or, when the client's first send meets the closed socket,
        # as the close's code 1013 (try again later) and reason
        with pytest.raises(Exception, match=r"Server at capacity: 1/1 sessions active"):
            await second.reset()
        await second.close()
        await asyncio.sleep(3.5)   # past the idle timeout
        with pytest.raises(Exception):   # noqa: B017  (the server closed the idle connection: the client raises its own)
            await first.step("look")
        await first.close()
        async with _client(openenv, server) as third:   # and its slot is free again
            return (await third.reset()).observation.turn

    assert asyncio.run(asyncio.wait_for(run(), 20)) == 0


def test_sigterm_stops_the_server_cleanly(openenv, servers):
    """Last in the file: it stops the "tight" server the session test played on (one server start fewer)."""
    server = servers["tight"]
    deadline = time.monotonic() + 30
    err = None
    while err is None:   # the one seat is free once the server has seen the test above close its session
        with _client(openenv, server).sync() as env:
            try:
                env.reset()   # a session still open when the signal comes
            except Exception as exc:   # the refusal comes as an error frame or a closed socket
                assert "capacity" in str(exc) and time.monotonic() < deadline, exc
                time.sleep(0.2)
                continue
            server.proc.send_signal(signal.SIGTERM)
            err = server.stop()
    assert server.proc.returncode == 0, err
    assert "Traceback" not in err and "stopped" in err
