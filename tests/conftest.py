import asyncio
import gzip
import io
import json
import os
import subprocess as _subprocess
import sys
import tarfile
import tempfile
import threading
import traceback
from functools import lru_cache
from pathlib import Path
from subprocess import CompletedProcess

import pytest

ROOT = Path(__file__).resolve().parent.parent
WORLDS = ROOT / "worlds"
TEST_WORLDS = ROOT / "tests" / "worlds"
DATA = ROOT / "tests" / "data"
CLEM_DATA = DATA / "clembench"   # upstream reference data; every test reads it from the repo (tests/data/README.md)


def jsonl(name: str) -> list[dict]:
    """A gzipped JSON-lines file of tests/data/clembench, e.g. ``sample_traces.jsonl``."""
    with gzip.open(CLEM_DATA / f"{name}.gz", "rt", encoding="utf-8") as fh:
        return [json.loads(line) for line in fh if line.strip()]


def adventure(*args, stdin="", cwd=None, env=None, timeout=120, subprocess=False,
              **popen) -> CompletedProcess:
    """``adventure ARGS`` as a user runs it: text in and out unless ``stdin`` is bytes.

    By default in this process, through the CLI's entry function (``cli_in_process``): arguments in;
    stdout, stderr and the exit code out. ``subprocess=True`` (or any ``popen`` option, or an ``env``
    whose PYTHONPATH differs from this process's) starts ``python -m tui_adventure.cli`` instead:
    for what needs a process of its own (signals, kills, ttys, the module entry point, an install).
    Per-user state (history) goes under ``cwd/home`` when a ``cwd`` is given, else where the autouse
    fixture below points it, so no test touches the real home. ``timeout`` bounds a subprocess; an
    in-process call is bounded by the test's own timeout (pytest-timeout).
    """
    environ = {**os.environ, **({"TUI_ADVENTURE_HOME": str(Path(cwd) / "home")} if cwd is not None else {}),
               **(env or {})}
    if subprocess or popen or environ.get("PYTHONPATH") != os.environ.get("PYTHONPATH"):
        return _subprocess.run([sys.executable, "-m", "tui_adventure.cli", *args], input=stdin, capture_output=True,
                               text=not isinstance(stdin, bytes), timeout=timeout, cwd=cwd, env=environ, **popen)
    return cli_in_process([str(a) for a in args], stdin=stdin, cwd=cwd, env=environ)


def cli_in_process(argv: list[str], stdin: str | bytes = "", cwd=None, env: dict | None = None) -> CompletedProcess:
    """``tui_adventure.cli.main(argv)`` with this process's stdin, stdout and stderr, working folder and
    environment swapped for the call, as a subprocess would have them (pipes, not a terminal), then
    restored. The result is what ``subprocess.run(..., capture_output=True)`` gives: an exit code
    from the return value or ``SystemExit`` (argparse's 2), 130 for Ctrl-C, 1 and the traceback on
    stderr for an uncaught exception; bytes out when ``stdin`` is bytes, else text with newlines
    translated as ``text=True`` does. Where an event loop runs in this thread (an async test) the
    call runs in a thread of its own, as ``asyncio.run`` cannot nest."""
    try:
        asyncio.get_running_loop()
    except RuntimeError:
        return _in_process(argv, stdin, cwd, env)
    done: list = []
    worker = threading.Thread(target=lambda: done.append(_in_process(argv, stdin, cwd, env)))
    worker.start()
    worker.join()
    return done[0]


_IN_PROCESS = threading.Lock()   # one call at a time: the streams, folder and environment are process-wide


def _in_process(argv: list[str], stdin, cwd, env) -> CompletedProcess:
    from tui_adventure.cli.main import main

    raw = stdin if isinstance(stdin, bytes) else stdin.encode("utf-8")

    def stream(data: bytes = b"") -> io.TextIOWrapper:
        return io.TextIOWrapper(io.BytesIO(data), encoding="utf-8", errors="surrogateescape")

    fake_in, fake_out, fake_err = stream(raw), stream(), stream()
    with _IN_PROCESS:
        saved = sys.stdin, sys.stdout, sys.stderr, os.getcwd(), dict(os.environ)
        sys.stdin, sys.stdout, sys.stderr = fake_in, fake_out, fake_err
        try:
            if cwd is not None:
                os.chdir(cwd)
            if env is not None:
                os.environ.clear()
                os.environ.update(env)
            try:
                code = main(argv)
            except SystemExit as exc:
                code = exc.code
                if code is not None and not isinstance(code, int):
                    print(code, file=sys.stderr)
                    code = 1
            except KeyboardInterrupt:
                code = 130
            except Exception:
                traceback.print_exc()
                code = 1
            for fh in (fake_out, fake_err):
                fh.flush()
        finally:
            sys.stdin, sys.stdout, sys.stderr = saved[:3]
            os.chdir(saved[3])
            os.environ.clear()
            os.environ.update(saved[4])
    out, err = fake_out.buffer.getvalue(), fake_err.buffer.getvalue()
    if not isinstance(stdin, bytes):
        out, err = (b.decode("utf-8").replace("\r\n", "\n").replace("\r", "\n") for b in (out, err))
    return CompletedProcess(["adventure", *argv], 0 if code is None else code, out, err)


@lru_cache(maxsize=1)
def records_example() -> Path:
    """clemcore 3.7.2's own results tree (records-example), unpacked once per test session."""
    target = Path(tempfile.mkdtemp(prefix="records-example-"))
    with tarfile.open(CLEM_DATA / "records-example.tar.gz") as tar:
        safe = {"filter": "data"} if hasattr(tarfile, "data_filter") else {}   # Python < 3.10.12 has no filters
        tar.extractall(target, **safe)
    return target / "records-example"


@pytest.fixture
def in_tmp(tmp_path, monkeypatch):
    """Run in an empty temp folder, with per-user state (history, settings) inside it."""
    monkeypatch.setenv("TUI_ADVENTURE_HOME", str(tmp_path / "home"))
    monkeypatch.chdir(tmp_path)
    return tmp_path


@pytest.fixture
def mini():
    from tui_adventure.engine.loading.loader import load_world

    return load_world(TEST_WORLDS / "mini.yaml")


@pytest.fixture
def game(mini):
    from tui_adventure.engine.game import Game

    return Game(mini)


@pytest.fixture(autouse=True)
def _user_files_in_tmp(tmp_path_factory, monkeypatch):
    """No test reads or writes the real ~/.config or ~/.local/state (history, settings)."""
    base = tmp_path_factory.mktemp("user")
    monkeypatch.setenv("TUI_ADVENTURE_HOME", str(base / "state"))
    monkeypatch.setenv("TUI_ADVENTURE_CONFIG", str(base / "config.yaml"))
    monkeypatch.setenv("XDG_CACHE_HOME", str(base / "cache"))   # what model players learn of servers


@pytest.fixture(scope="session")
def openenv_servers(tmp_path_factory):
    """The ``adventure serve`` processes tests/envs/test_serve.py and tests/adversarial/test_serve_hostile.py
    both play on (each start imports OpenEnv: seconds of CPU); see ``start_servers`` there."""
    from envs.test_serve import start_servers

    yield from start_servers(tmp_path_factory)


@pytest.fixture
def server():
    """A scripted OpenAI-compatible / Anthropic server on 127.0.0.1 (tests/fake_llm_server.py)."""
    from fake_llm_server import FakeLLMServer

    s = FakeLLMServer().start()
    yield s
    s.stop()
