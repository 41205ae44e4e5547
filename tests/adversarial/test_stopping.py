"""``adventure run --procs N`` stopped from outside: SIGTERM (timeout, systemd, Slurm) and SIGKILL of the
parent, with a real process tree and a model server that takes its time (issue 35).

Workers must die with their parent within seconds, stop calling the model, leave every completed
episode intact, and a rerun must play exactly what is left.
"""

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from conftest import adventure
from fake_llm_server import FakeLLMServer, done_after

EPISODES = 8   # instances 0-7 of a clembench experiment: two done before the signal, most still to play
INSTANCES = [f"clembench/home_deliver_three_basic_easy/{i}" for i in range(EPISODES)]
TURNS = 4


def children(pid: int) -> list[int]:
    kids = []
    for task in Path(f"/proc/{pid}/task").iterdir():
        kids += [int(k) for k in (task / "children").read_text().split()]
    return kids


def alive(pid: int) -> bool:
    try:
        status = Path(f"/proc/{pid}/status").read_text()
    except OSError:
        return False
    return "\nState:\tZ" not in status   # a zombie has stopped; only its reaping is left


def completed(root: Path) -> list[Path]:
    return sorted(p.parent for p in root.rglob("completed.json"))


@pytest.mark.slow
@pytest.mark.skipif(not Path("/proc/self/task").is_dir(), reason="reads the process tree from /proc (Linux)")
@pytest.mark.parametrize("sig,ctrl_c", [(signal.SIGTERM, "heard"), (signal.SIGTERM, "ignored"),
                                         (signal.SIGKILL, "heard")], ids=["term", "term-ctrl-c-ignored", "kill"])
def test_workers_die_with_a_stopped_parent_and_a_rerun_resumes(tmp_path, sig, ctrl_c):
    records = tmp_path / "r"
    with FakeLLMServer(responder=done_after(TURNS), delay=0.15) as server:
        command = [sys.executable, "-m", "tui_adventure.cli", "run", *INSTANCES, "--player",
                   f"openai_compatible:fake@{server.url}", "--records", str(records), "--procs", "2"]
        # files, not pipes: orphaned workers would hold a pipe open, and reading it would wait for them
        said = (tmp_path / "out.txt").open("w+"), (tmp_path / "err.txt").open("w+")
        run = subprocess.Popen(command, stdout=said[0], stderr=said[1], text=True, cwd=tmp_path,
                               start_new_session=True, preexec_fn=ignore_ctrl_c if ctrl_c == "ignored" else None)
        try:
            deadline = time.monotonic() + 180
            while len(completed(records)) < 2:   # some episodes done, most still to play
                assert run.poll() is None and time.monotonic() < deadline, (tmp_path / "err.txt").read_text()
                time.sleep(0.1)
            workers = children(run.pid)
            assert len(workers) >= 2, workers
            run.send_signal(sig)
            run.wait(timeout=30)
            out, err = (tmp_path / "out.txt").read_text(), (tmp_path / "err.txt").read_text()
            gone = time.monotonic() + 5
            while any(alive(w) for w in workers) and time.monotonic() < gone:
                time.sleep(0.1)
            assert not any(alive(w) for w in workers), "workers outlived their parent"
            asked = len(server.requests)
            time.sleep(1.0)
            assert len(server.requests) == asked   # nobody is calling the model any more
        finally:
            for pid in [run.pid, *[w for w in locals().get("workers", []) if alive(w)]]:
                try:
                    os.killpg(pid, signal.SIGKILL) if pid == run.pid else os.kill(pid, signal.SIGKILL)
                except ProcessLookupError:
                    pass
        if sig == signal.SIGTERM:   # as cleanly as Ctrl-C: said, and an exit status that says so
            assert run.returncode == 143 and "stopped: finished episodes are kept" in out + err, out + err
            assert "Traceback" not in err
        done = completed(records)
        assert 2 <= len(done) < EPISODES
        for episode in done:        # every completed episode is whole: its last reply ended it
            turns = json.loads((episode / "interactions.json").read_text())["turns"]
            assert len(turns) == TURNS
        server.delay = 0   # the rerun's model answers at once: what it plays is counted, not timed
        again = adventure(*command[3:], cwd=tmp_path)   # the rerun in this process (its workers are processes)
    assert again.returncode == 0, again.stdout + again.stderr
    assert f"skipped {len(done)} (already done)" in again.stdout and f"played {EPISODES - len(done)}," in again.stdout
    assert len(completed(records)) == EPISODES


def ignore_ctrl_c() -> None:
    signal.signal(signal.SIGINT, signal.SIG_IGN)


@pytest.mark.slow
@pytest.mark.parametrize("ctrl_c", ["heard", "ignored"])
def test_sigterm_ends_a_single_process_run_as_ctrl_c_does(tmp_path, ctrl_c):
    """``ignored``: started as a script's background job is (``adventure run ... &`` in a Slurm batch file),
    with SIGINT ignored; a SIGTERM must end it all the same, not leave it playing until SIGKILL."""
    records = tmp_path / "r"
    with FakeLLMServer(responder=done_after(TURNS), delay=0.15) as server:
        command = [sys.executable, "-m", "tui_adventure.cli", "run", *INSTANCES, "--player",
                   f"openai_compatible:fake@{server.url}", "--records", str(records), "--jobs", "2"]
        run = subprocess.Popen(command, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, cwd=tmp_path,
                               preexec_fn=ignore_ctrl_c if ctrl_c == "ignored" else None)
        deadline = time.monotonic() + 180
        while len(completed(records)) < 2:
            assert run.poll() is None and time.monotonic() < deadline, run.communicate()
            time.sleep(0.1)
        run.send_signal(signal.SIGTERM)
        out, err = run.communicate(timeout=30)
        assert run.returncode == 143 and "stopped: finished episodes are kept" in out + err and "Traceback" not in err
        done = completed(records)
        server.delay = 0   # the rerun's model answers at once: what it plays is counted, not timed
        again = adventure(*command[3:], cwd=tmp_path)   # the rerun in this process: no signal is sent to it
    assert f"skipped {len(done)} (already done)" in again.stdout and f"played {EPISODES - len(done)}," in again.stdout
