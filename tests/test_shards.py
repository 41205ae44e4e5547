"""``adventure run --shard I/N``: shares that together play every episode once, on any machine."""

import os
from pathlib import Path

import pytest

from conftest import adventure


def episodes(root: Path) -> set[str]:
    return {str(p.parent.relative_to(root)) for p in root.rglob("completed.json")}


@pytest.mark.slow
def test_shards_together_play_each_episode_exactly_once(in_tmp):
    counts = []
    for i in (1, 2, 3):
        out = adventure("run", "clembench/home_deliver_three_basic_easy", "--player", "oracle", "--records", f"s{i}",
                        "--shard", f"{i}/3")
        assert out.returncode == 0, out.stderr
        counts.append(len(episodes(in_tmp / f"s{i}")))
    whole = adventure("run", "clembench/home_deliver_three_basic_easy", "--player", "oracle", "--records", "all")
    assert whole.returncode == 0
    shares = [episodes(in_tmp / f"s{i}") for i in (1, 2, 3)]
    assert sum(counts) == 16 and all(counts) and set().union(*shares) == episodes(in_tmp / "all")
    seed = "1" if os.environ.get("PYTHONHASHSEED") != "1" else "2"   # a hash seed other than this process's
    again = adventure("run", "clembench/home_deliver_three_basic_easy", "--player", "oracle", "--records", "s1",
                      "--shard", "1/3", env={"PYTHONHASHSEED": seed}, subprocess=True)
    assert f"played 0, skipped {counts[0]}" in again.stdout      # the same share, whatever the hash seed


def test_a_bad_shard_is_one_line(in_tmp):
    for bad in ("4/3", "0/2", "x", "1-2"):
        out = adventure("run", "house", "--player", "oracle", "--shard", bad)
        assert out.returncode == 2 and "--shard" in out.stderr and "Traceback" not in out.stderr


@pytest.mark.slow
def test_worker_processes_play_what_one_process_plays(in_tmp):
    many = adventure("run", "clembench/home_deliver_three_planning_easy", "--player", "oracle", "--records", "p",
                     "--procs", "2", "--jobs", "2")
    one = adventure("run", "clembench/home_deliver_three_planning_easy", "--player", "oracle", "--records", "o")
    assert many.returncode == one.returncode == 0, many.stderr
    assert "played 16" in many.stdout and episodes(in_tmp / "p") == episodes(in_tmp / "o")
    for root in ("p", "o"):
        assert adventure("score", root).returncode == 0
    scores = {r: sorted((p.parent.name, p.read_text().count('"Success": 1')) for p in (in_tmp / r).rglob("scores.json"))
              for r in ("p", "o")}
    assert scores["p"] == scores["o"]
    assert adventure("run", "house", "--player", "oracle", "--procs", "0").returncode == 2
