"""``adventure run --ray local|ADDRESS``: Ray tasks play what a local run plays, and a killed worker's episode
is played again from scratch. Ray (the [ray] extra) comes from .ci/setup.sh; without it these fail.

One run starts its own local Ray (``--ray local``); the others join one cluster the module starts
(``ray start --head``, 2 CPUs, as ``--procs 2`` gives a local Ray), so Ray starts twice, not once a run.
"""

import json
import os
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import pytest

from conftest import ROOT, adventure
from fake_llm_server import FakeLLMServer, done_after
from needs import module

EXPERIMENT = "clembench/home_deliver_three_basic_easy"

pytestmark = pytest.mark.xdist_group("ray")   # one worker starts the module's cluster once


@pytest.fixture(scope="session")
def ray_installed() -> None:
    module("ray", "ray")


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


class Cluster:
    """``ray start --head --block`` with 2 CPUs on free ports, joined at 127.0.0.1 (Ray's own processes
    listen where a local ``ray.init`` puts them: the machine's address); its workers play in
    ``scratch`` (ADVENTURE_RAY_SCRATCH). Stopped by SIGTERM to that command, which ends what it
    started (never ``ray stop``: that ends every Ray cluster of the machine)."""

    def __init__(self, folder: Path) -> None:
        self.scratch = folder / "scratch"
        self.scratch.mkdir()
        port = _free_port()
        self.address = f"127.0.0.1:{port}"
        ports = {option: str(_free_port()) for option in (
            "--dashboard-agent-listen-port", "--dashboard-agent-grpc-port",
            "--runtime-env-agent-port", "--metrics-export-port", "--node-manager-port", "--object-manager-port")}
        self.log = folder / "ray.log"
        # its own temp dir (short: Ray's sockets live there): the machine's default one names the latest
        # cluster, which a plain ray.init() (``--ray local``) would join in place of starting its own
        self.temp = Path(tempfile.mkdtemp(prefix="ray-"))
        # token auth off: a driver joining by address sends no token unless RAY_AUTH_MODE=token is set
        env = {**os.environ, "ADVENTURE_RAY_SCRATCH": str(self.scratch), "TUI_ADVENTURE_HOME": str(folder / "home"),
               "RAY_AUTH_MODE": "disabled"}
        with open(self.log, "w") as log:
            self.proc = subprocess.Popen(
                [str(Path(sys.executable).with_name("ray")), "start", "--head", "--block", "--port", str(port),
                 "--num-cpus", "2", "--include-dashboard", "false",
                 "--disable-usage-stats", "--temp-dir", str(self.temp), *[x for pair in ports.items() for x in pair]],
                cwd=folder, env=env, stdout=log, stderr=subprocess.STDOUT, start_new_session=True)
        deadline = time.monotonic() + 120
        try:
            while "Ray runtime started" not in self.log.read_text():
                assert self.proc.poll() is None and time.monotonic() < deadline, self.log.read_text()
                time.sleep(0.2)
        except BaseException:   # a cluster that did not start is not left running
            self.stop()
            raise

    def stop(self) -> None:
        self.proc.terminate()
        try:
            self.proc.wait(timeout=60)
        except subprocess.TimeoutExpired:
            os.killpg(self.proc.pid, signal.SIGKILL)
            self.proc.wait()
        shutil.rmtree(self.temp, ignore_errors=True)


@pytest.fixture(scope="module")
def cluster(ray_installed, tmp_path_factory):
    started = Cluster(tmp_path_factory.mktemp("ray"))
    yield started
    started.stop()


def episodes(root: Path) -> set[str]:
    return {str(p.parent.relative_to(root)) for p in root.rglob("completed.json")}


def replies(folder: Path) -> list[str]:
    from tui_adventure.records.files import read_json, replies_of

    return replies_of(read_json(folder / "interactions.json"))


@pytest.mark.ray
def test_ray_tasks_write_what_a_local_run_writes(in_tmp, cluster):
    shutil.copy(ROOT / "worlds" / "tutorial.yaml", in_tmp / "tutorial.yaml")   # a file: its text travels
    worlds = [EXPERIMENT, "tutorial.yaml"]
    # local means a Ray of its own: not the one RAY_ADDRESS names (a plain ray.init() would try to join it)
    ray = adventure("run", *worlds, "--player", "oracle", "--records", "r", "--ray", "local", "--procs", "2",
                    env={"RAY_ADDRESS": "127.0.0.1:9"}, timeout=300)
    local = adventure("run", *worlds, "--player", "oracle", "--records", "l")
    assert ray.returncode == local.returncode == 0, ray.stderr
    assert "played 17" in ray.stdout and episodes(in_tmp / "r") == episodes(in_tmp / "l")
    for episode in episodes(in_tmp / "l"):
        mine, theirs = in_tmp / "r" / episode, in_tmp / "l" / episode
        assert replies(mine) == replies(theirs) and replies(mine)
        for same in ("instance.json", "tui_adventure.json"):   # the pointer names the driver's file
            assert (mine / same).read_bytes() == (theirs / same).read_bytes(), (episode, same)
        assert not (mine / "error.json").exists()
    assert json.loads((in_tmp / "r" / "oracle" / "run.json").read_text())["games"].keys() == {"adventuregame",
                                                                                                 "tutorial"}
    for root in ("r", "l"):
        assert adventure("score", root).returncode == 0
    scores = {r: sorted((str(p.parent.relative_to(in_tmp / r)), p.read_text().count('"Success": 1'))
                        for p in (in_tmp / r).rglob("scores.json")) for r in ("r", "l")}
    assert scores["r"] == scores["l"] and len(scores["r"]) == 17
    again = adventure("run", *worlds, "--player", "oracle", "--records", "r", "--ray", cluster.address,
                      timeout=300)   # a cluster's driver reads the same records: nothing is left to play
    assert again.returncode == 0 and "played 0, skipped 17" in again.stdout, again.stdout + again.stderr


@pytest.mark.ray
def test_a_worker_killed_mid_episode_is_played_again_from_scratch(in_tmp, cluster):
    turns = 8   # 3 s an episode: after its first write (a second in) there are two to kill it in
    scratch = cluster.scratch   # where the cluster's workers play
    with FakeLLMServer(responder=done_after(turns), delay=0.4) as server:
        command = [sys.executable, "-m", "tui_adventure.cli", "run", f"{EXPERIMENT}/0", "--player",
                   f"openai_compatible:fake@{server.url}", "--records", "r", "--ray", cluster.address]
        run = subprocess.Popen(command, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        killed = None
        deadline = time.monotonic() + 120
        while killed is None and time.monotonic() < deadline and run.poll() is None:
            for lock in scratch.rglob(".tui_adventure.lock"):
                pid = lock.read_text().strip()
                # mid-episode: two turns on disk (a batch writes quick turns once a second), more to come
                if pid and (lock.parent / "interactions.json").exists() and len(replies(lock.parent)) >= 2:
                    killed = int(pid)
                    os.kill(killed, signal.SIGKILL)
                    break
            time.sleep(0.05)
        out, err = run.communicate(timeout=180)
        asked = len(server.requests)
    assert killed is not None, f"no worker was seen playing: {out}{err}"
    assert run.returncode == 0 and "played 1," in out and "errors 0" in out, out + err
    [episode] = episodes(in_tmp / "r")
    played = replies(in_tmp / "r" / episode)
    assert len(played) == turns and played[-1] == "> done"   # one whole episode, not the killed one's rest
    assert asked >= turns + 2                                 # the killed attempt's requests came first


def test_ray_is_imported_only_for_ray(ray_installed):
    probe = ("import sys, tui_adventure.cli, tui_adventure.batches.run; from tui_adventure.cli import main;"
             "print('ray' in sys.modules)")
    out = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, cwd=ROOT)
    assert out.stdout.strip() == "False", out.stderr


def test_procs_with_a_cluster_address_is_refused(in_tmp):
    out = adventure("run", "house", "--player", "oracle", "--ray", "10.0.0.1:6379", "--procs", "2")
    assert out.returncode == 2 and "--procs" in out.stderr and "Traceback" not in out.stderr


@pytest.mark.slow
def test_a_registry_entry_per_server_sends_its_extra_body(tmp_path, monkeypatch):
    """The vLLM-per-node recipe (docs/batches.md): one entry per server, vLLM's sampling options in
    ``model_config.extra_body``, merged into every request's body as the server expects them."""
    from model_env import clean_config, write_json

    cwd, _ = clean_config(monkeypatch, tmp_path)
    with FakeLLMServer(responder=done_after(2)) as one, FakeLLMServer(responder=done_after(2)) as two:
        write_json(cwd / "model_registry.json", [
            {"model_name": f"qwen-node{i}", "model_id": "Qwen/Qwen2.5-7B-Instruct", "backend": "openai_compatible",
             "base_url": server.url, "model_config": {"extra_body": {"top_k": 1, "repetition_penalty": 1.0 + i}}}
            for i, server in ((1, one), (2, two))])
        for i in (1, 2):
            out = adventure("run", f"{EXPERIMENT}/{i}", "--player", f"qwen-node{i}", "--name", "qwen",
                            "--records", "r", cwd=cwd)
            assert out.returncode == 0 and "played 1," in out.stdout, out.stdout + out.stderr
        for i, server in ((1, one), (2, two)):
            assert server.requests and all(r.body["top_k"] == 1 and r.body["repetition_penalty"] == 1.0 + i
                                           and r.body["model"] == "Qwen/Qwen2.5-7B-Instruct" for r in server.requests)
    assert episodes(cwd / "r") == {f"qwen/adventuregame/home_deliver_three_basic_easy/instance_{i:05d}" for i in (1, 2)}


@pytest.mark.ray
def test_a_broken_world_under_ray_is_named_to_fix_not_to_run_again(in_tmp, cluster):
    Path("worlds").mkdir()
    shutil.copy(ROOT / "tests" / "worlds" / "mini.yaml", "worlds/mini.yaml")
    shutil.copy(ROOT / "tests" / "broken" / "unclosed_quote.yaml", "worlds/unclosed_quote.yaml")
    run = adventure("run", "worlds", "--player", "oracle", "--records", "r", "--ray", cluster.address,
                    timeout=300)
    summary = run.stdout[run.stdout.index("played 1, "):]
    assert run.returncode == 1 and "errors 1 (" in summary and "run again to retry" not in summary, summary
    broken = Path("worlds/unclosed_quote.yaml").resolve()   # the driver ships a world file by its real path
    assert "1 world did not load" in summary and f"\n  {broken}:6:18: YAML syntax error" in summary, summary


@pytest.mark.ray
def test_a_run_refused_under_ray_by_another_kind_of_run_says_what_to_do_not_to_run_again(in_tmp, cluster, server):
    """The driver refuses the episodes before any task goes out; counted and said as a local run does
    (tests/test_cli.py), not under "run again to retry them"."""
    server.responder = lambda request: "> done"
    model = f"openai_compatible:m@{server.url}"
    worlds = [str(ROOT / "tests" / "worlds" / "mini.yaml"), "tutorial"]
    first = adventure("run", *worlds, "--player", model, "--records", "r")   # a text run, played locally
    assert first.returncode == 0 and "played 2," in first.stdout, first.stdout + first.stderr
    out = adventure("run", *worlds, "--player", model, "--mode", "tool", "--name", "m", "--records", "r",
                    "--ray", cluster.address, timeout=300)
    assert out.returncode == 1 and "Traceback" not in out.stderr
    summary = out.stdout[out.stdout.index("played 0, "):]
    assert "errors 2 (" in summary and "run again to retry" not in summary, summary
    assert "2 episodes refused, which running again cannot change" in summary, summary
    assert f"\n  r{os.sep}m holds a run with mode 'text'" in summary and summary.count("holds a run") == 1, summary
    assert out.stdout.count("holds a run") == 2   # as it happened, and under the summary: once each
    assert len(server.requests) == 2              # the text run's; nothing was asked under Ray


@pytest.mark.ray
def test_an_address_where_nothing_answers_is_one_line(in_tmp, ray_installed):
    out = adventure("run", "house", "--player", "oracle", "--ray", "127.0.0.1:1", timeout=60)
    assert out.returncode == 2 and "nothing answers" in out.stdout + out.stderr and "Traceback" not in out.stderr


@pytest.mark.ray
def test_an_address_where_something_else_answers_is_one_line_in_seconds(in_tmp, ray_installed):
    """An HTTP server is no Ray cluster: said at once, where Ray itself would retry for minutes."""
    import http.server
    import threading

    class Quiet(http.server.BaseHTTPRequestHandler):
        def log_message(self, *args) -> None:   # this process's stderr is the CLI's under test
            pass

    web = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Quiet)
    threading.Thread(target=web.serve_forever, daemon=True).start()
    try:
        out = adventure("run", "house", "--player", "oracle", "--ray", f"127.0.0.1:{web.server_address[1]}")
    finally:
        web.shutdown()
        web.server_close()
    assert out.returncode == 2 and "Traceback" not in out.stderr
    assert "not a Ray cluster" in out.stderr and len(out.stderr.strip().splitlines()) == 1, out.stderr
