"""Two writers, killed writers and unfinished sessions never lose or mix records (issues 20 and 21)."""

from conftest import adventure
import json
import os
import stat
import subprocess
import sys
from pathlib import Path

import pytest



def spawn(*args, cwd):
    env = {**os.environ, "TUI_ADVENTURE_HOME": str(Path(cwd) / "home")}
    return subprocess.Popen([sys.executable, "-m", "tui_adventure.cli", *args], cwd=cwd, env=env,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)


@pytest.mark.slow
def test_two_runs_on_one_root_play_each_episode_once(tmp_path):
    args = ("run", "clembench/home_deliver_three_basic_easy", "clembench/home_deliver_three_planning_easy",
            "--player", "random:7", "--records", "r")
    first, second = spawn(*args, cwd=tmp_path), spawn(*args, cwd=tmp_path)
    outs = [p.communicate(timeout=300)[0] for p in (first, second)]
    played = sum(int(o.split("played ")[1].split(",")[0]) for o in outs)
    assert played == 32, outs                  # every episode once, between the two
    assert first.returncode == second.returncode == 0
    for interactions in (tmp_path / "r").rglob("interactions.json"):
        data = json.loads(interactions.read_text())
        assert data["meta"]["completed"] and (interactions.parent / "completed.json").exists()
    assert not list((tmp_path / "r").rglob(".*.tmp"))


def test_an_unfinished_session_is_never_overwritten(tmp_path):
    """It is continued (its turns kept, the next appended: issue 36), or with --new left as it is."""
    first = adventure("repl", "house", "--records", "r", cwd=tmp_path, stdin="up\nnorth\nsouth\n")
    assert first.returncode == 0
    second = adventure("repl", "house", "--records", "r", cwd=tmp_path, stdin="down\n")
    third = adventure("repl", "house", "--records", "r", "--new", cwd=tmp_path, stdin="west\n")
    assert second.returncode == third.returncode == 0
    one = json.loads(next((tmp_path / "r" / "human").rglob("interactions.json")).read_text())
    two = json.loads(next((tmp_path / "r" / "human-2").rglob("interactions.json")).read_text())
    assert len(one["turns"]) == 4 and len(two["turns"]) == 1


def test_records_follow_the_umask_and_stale_temp_files_go(tmp_path):
    out = adventure("run", "tutorial", "--player", "oracle", "--records", "r", cwd=tmp_path)
    assert out.returncode == 0
    episode = next((tmp_path / "r").rglob("instance_00000"))
    mode = stat.S_IMODE((episode / "interactions.json").stat().st_mode)
    assert mode == 0o666 & ~_umask()
    (episode / ".interactions.json.abc.tmp").write_text("half")
    (episode / "completed.json").unlink()      # as if killed: played again, the leftover cleaned
    assert adventure("run", "tutorial", "--player", "oracle", "--records", "r", cwd=tmp_path).returncode == 0
    assert not list(episode.glob(".*.tmp"))


def _umask() -> int:
    mask = os.umask(0o022)
    os.umask(mask)
    return mask


def test_records_that_name_a_file_say_so(tmp_path):
    (tmp_path / "recs").write_text("")
    out = adventure("run", "tutorial", "--player", "oracle", "--records", "recs/x", cwd=tmp_path)
    assert out.returncode == 2 and "recs is a file, not a folder" in out.stderr
