import gzip
import json
import os
import subprocess
import sys
import tarfile
import tempfile
from functools import lru_cache
from pathlib import Path

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


def adventure(*args, stdin="", cwd=None, env=None, timeout=120, **popen) -> subprocess.CompletedProcess:
    """``adventure ARGS`` in a subprocess, as a user runs it: text in and out unless ``stdin`` is bytes.

    Per-user state (history) goes under ``cwd/home`` when a ``cwd`` is given, else
    where the autouse fixture below points it, so no test touches the real home.
    """
    environ = {**os.environ, **({"TUI_ADVENTURE_HOME": str(Path(cwd) / "home")} if cwd is not None else {}),
               **(env or {})}
    return subprocess.run([sys.executable, "-m", "tui_adventure.cli", *args], input=stdin, capture_output=True,
                          text=not isinstance(stdin, bytes), timeout=timeout, cwd=cwd, env=environ, **popen)


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


@pytest.fixture
def server():
    """A scripted OpenAI-compatible / Anthropic server on 127.0.0.1 (tests/fake_llm_server.py)."""
    from fake_llm_server import FakeLLMServer

    s = FakeLLMServer().start()
    yield s
    s.stop()
