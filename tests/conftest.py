import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
SHARED = ROOT.parent / "shared"
WORLDS = ROOT / "worlds"
TEST_WORLDS = ROOT / "tests" / "worlds"


@pytest.fixture
def mini():
    from tui_adventure.engine.loader import load_world

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


@pytest.fixture
def server():
    """A scripted OpenAI-compatible / Anthropic server on 127.0.0.1 (tests/fake_llm_server.py)."""
    from fake_llm_server import FakeLLMServer

    s = FakeLLMServer().start()
    yield s
    s.stop()
