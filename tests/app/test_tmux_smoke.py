"""The app through a real terminal: start, type a command, Tab, quit (tmux drives it).

tmux comes from ``.ci/setup.sh``; where it is missing this fails (``needs.program``), never skips.
"""

import json
import os
import subprocess
import sys
import time

import pytest

from conftest import ROOT
from needs import program

pytestmark = pytest.mark.slow   # the app in its own process behind a real terminal


def tmux(*args):
    return subprocess.run(["tmux", *args], capture_output=True, text=True)


def screen(name):
    return tmux("capture-pane", "-t", name, "-p").stdout


def wait_for(name, needle, timeout=20.0):
    end = time.monotonic() + timeout
    while time.monotonic() < end:
        text = screen(name)
        if needle in text:
            return text
        time.sleep(0.05)
    raise AssertionError(f"{needle!r} never appeared; the screen was:\n{screen(name)}")


def test_play_in_a_real_terminal(tmp_path):
    program("tmux")
    name = f"smoke-{os.getpid()}"
    cmd = (f"cd {ROOT} && TUI_ADVENTURE_HOME={tmp_path}/home {sys.executable} -m tui_adventure.cli "
           f"play worlds/house.yaml --records {tmp_path}/records; echo EXITED $? ; sleep 30")
    tmux("new-session", "-d", "-s", name, "-x", "100", "-y", "30", cmd)
    try:
        wait_for(name, "umbrella stand")
        tmux("send-keys", "-t", name, "-l", "go north")
        tmux("send-keys", "-t", name, "Enter")
        wait_for(name, "humming fridge")
        tmux("send-keys", "-t", name, "-l", "exam")
        tmux("send-keys", "-t", name, "Tab")
        wait_for(name, "examine")
        tmux("send-keys", "-t", name, "C-q")
        wait_for(name, "EXITED 0")
    finally:
        tmux("kill-session", "-t", name)
    data = json.loads(next((tmp_path / "records" / "human").rglob("interactions.json")).read_text())
    assert data["meta"]["round_count"] == 1


def test_narrow_and_standard_terminals(tmp_path):
    """At 45x40 the panels' figures and goals stand under the transcript, with words to tap; at 80x24 the
    panels stand beside it. Either way nothing is off the right edge and the game goes on."""
    program("tmux")
    for width, height in ((45, 40), (80, 24)):
        name = f"narrow-{os.getpid()}-{width}"
        # the pane's size, not one a test runner left in COLUMNS and LINES (which shutil reads first)
        cmd = (f"unset COLUMNS LINES; cd {ROOT} && TUI_ADVENTURE_HOME={tmp_path}/home {sys.executable} -m "
               f"tui_adventure.cli play tutorial --records {tmp_path}/records-{width}; echo EXITED $? ; sleep 30")
        tmux("new-session", "-d", "-s", name, "-x", str(width), "-y", str(height), cmd)
        try:
            if width < 72:
                text = wait_for(name, "turn 0/30 · par 4 · goals 0/1 · score 0")
                assert "[ ] the letter is in the mailbox" in text and "Inventory" not in text
                assert text.rstrip().splitlines()[-1].split() == ["Help", "Panels", "Menu", "Quit"]
                tmux("send-keys", "-t", name, "-l", "take letter")
                tmux("send-keys", "-t", name, "Enter")
                wait_for(name, "turn 1/30 · par 4")
                tmux("send-keys", "-t", name, "F2")   # the panels, under the transcript
                wait_for(name, "Inventory")
            else:
                text = wait_for(name, "Turn 0/30  par 4")
                assert "Goals 0/1" in text and "turn 0/30 ·" not in text and "Quit" in text
                assert "Ratio 1.00  Invalid 0" in text   # the Score panel whole, its right end on screen
            tmux("send-keys", "-t", name, "C-q")
            wait_for(name, "EXITED 0")
        finally:
            tmux("kill-session", "-t", name)


def test_watch_a_batch_in_a_real_terminal(tmp_path, server, monkeypatch):
    """adventure watch in tmux while adventure run plays against the fake model server: running, then done."""
    from fake_llm_server import done_after
    from model_env import configure_fake_gpt

    program("tmux")
    cwd = configure_fake_gpt(monkeypatch, tmp_path, server)
    server.responder = done_after(12, "> look")
    server.delay = 0.15
    worlds = tmp_path / "worlds"
    worlds.mkdir()
    for k in (1, 2, 3):
        (worlds / f"mini{k}.yaml").write_text((ROOT / "tests" / "worlds" / "mini.yaml").read_text()
                                              .replace("game: mini", f"game: mini{k}"))
    (tmp_path / "records").mkdir()
    name = f"watch-{os.getpid()}"
    cmd = (f"cd {ROOT} && TUI_ADVENTURE_HOME={tmp_path}/home {sys.executable} -m tui_adventure.cli "
           f"watch {tmp_path}/records; echo EXITED $? ; sleep 30")
    tmux("new-session", "-d", "-s", name, "-x", "150", "-y", "30", cmd)
    batch = None
    try:
        wait_for(name, "no runs yet")
        batch = subprocess.Popen([sys.executable, "-m", "tui_adventure.cli", "run", str(worlds), "--player",
                                  "fake-gpt", "--records", str(tmp_path / "records"), "--jobs", "3"], cwd=cwd,
                                 stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
                                 env={**os.environ, "HOME": str(tmp_path / "home")})
        wait_for(name, "running")
        text = wait_for(name, "3 lost")                         # the status line once all three ended
        assert "fake-gpt" in text and "0/3" in text and "done" in text   # the run's row; each last command
        tmux("send-keys", "-t", name, "C-q")
        wait_for(name, "EXITED 0")
    finally:
        tmux("kill-session", "-t", name)
        if batch is not None:
            batch.wait(30)
    assert batch.returncode == 0
