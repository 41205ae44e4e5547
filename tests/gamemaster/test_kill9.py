"""A run killed with SIGKILL in the middle of an episode leaves a readable tree, and a rerun finishes it.

The recorder rewrites interactions.json after every turn by writing a temp
file and renaming it over the old one, so a reader (clem transcribe, a person)
never meets half a file and a crash costs at most the turn in flight.
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time

import pytest

from conftest import ROOT, WORLDS, adventure

SCRIPT = ["go west", "take red book", "go east", "go north", "open fridge", "look", "done"]

SLOW_PLAYER = """
import asyncio, sys
from pathlib import Path
from tui_adventure.batches.episodes import play_episode
from tui_adventure.engine.loading.loader import load_world
from tui_adventure.players.programmatic import ScriptedPlayer

class Slow(ScriptedPlayer):
    async def reply(self, episode, stream=None):
        print("asked", len(episode.turns), flush=True)    # every earlier turn is on disk by now
        await asyncio.sleep(float(sys.argv[3]))
        return await super().reply(episode, stream)

world = load_world(sys.argv[1])
asyncio.run(play_episode(world, Slow.from_file(Path(sys.argv[2])), Path(sys.argv[4])))
"""


@pytest.mark.slow
def test_kill_9_mid_episode_then_rerun(tmp_path):
    script = tmp_path / "script.txt"
    script.write_text("\n".join(SCRIPT) + "\n")
    records = tmp_path / "records"
    world = WORLDS / "house.yaml"
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    proc = subprocess.Popen([sys.executable, "-c", SLOW_PLAYER, str(world), str(script), "1.5", str(records)],
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=env, cwd=tmp_path)
    asked = -1
    deadline = time.monotonic() + 60
    try:
        while asked < 3:
            line = proc.stdout.readline()
            assert line, f"the player process ended early: {proc.stderr.read()}"
            if line.startswith("asked"):
                asked = int(line.split()[1])
            assert time.monotonic() < deadline
        os.kill(proc.pid, signal.SIGKILL)         # while the player thinks about its fourth reply
    finally:
        proc.kill()
        proc.wait(timeout=30)
    assert proc.returncode == -signal.SIGKILL

    folder = next(records.rglob("instance_00000"))
    for path in records.rglob("*.json"):
        json.loads(path.read_text(encoding="utf-8"))   # every file whole
    interactions = json.loads((folder / "interactions.json").read_text(encoding="utf-8"))
    replies = [e["action"]["content"] for turn in interactions["turns"] for e in turn if e["from"] == "Player 1"]
    assert replies == SCRIPT[:3]                      # every finished turn, nothing of the one in flight
    assert interactions["meta"]["round_count"] == 3 and not interactions["meta"]["completed"]
    assert all(turn[-1]["action"]["type"] == "goal_status" for turn in interactions["turns"])
    requests = json.loads((folder / "player_1.requests.json").read_text(encoding="utf-8"))
    assert len(requests["calls"]) == 3
    assert not (folder / "completed.json").exists()

    rerun = adventure("run", str(world), "--player", f"scripted:{script}", "--records", str(records), cwd=tmp_path)
    assert rerun.returncode == 0, rerun.stderr
    assert (folder / "completed.json").exists()
    interactions = json.loads((folder / "interactions.json").read_text(encoding="utf-8"))
    replies = [e["action"]["content"] for turn in interactions["turns"] for e in turn if e["from"] == "Player 1"]
    assert replies == SCRIPT and interactions["meta"]["completed"]
    assert interactions["turns"][-1][-1]["action"]["type"] == "game_result"
