"""The whole clemcore 3.7.2 and this project in one environment, and clemcore's own ``clem`` CLI there.

One ``uv pip install clemcore==3.7.2 <this project>`` into a fresh venv (openai 2.x there, 3.x in the
test venv) must resolve, and pip's own consistency check (``python -m pip check``) must find nothing
broken in what it installed; in it ``adventure run`` writes records that ``clem transcribe`` and ``clem
eval`` take, and ``clem run`` plays an exported game (``adventure export clemgame``) through our game
master: ``-m mock`` is our oracle and wins every instance, and a model gets the prompt, the reading of
its replies, the scores and the end our own runner gives it. The venv is kept under pytest's cache,
keyed by pyproject.toml, so only a change of dependencies (or a fresh clone) installs again, and it keeps
the bytecode its first processes write; set ADVENTURE_CLEMCORE_VENV to a venv that has both to use that one.
"""

from __future__ import annotations

import hashlib
import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from conftest import ROOT, TEST_WORLDS, adventure
from fake_llm_server import FakeLLMServer
from model_env import MODEL_ENV
from needs import uv

# one worker builds the cached venv and runs every test that uses it; a fresh venv takes minutes
pytestmark = [pytest.mark.slow, pytest.mark.clemcore_full, pytest.mark.xdist_group("clemcore_full"),
              pytest.mark.timeout(2400)]

CLEMCORE = "clemcore==3.7.2"
BASIC_EASY = "clembench/home_deliver_three_basic_easy"
# dropped from the environment of the venv's processes: its own venv, and PYTHONDONTWRITEBYTECODE (the venv
# keeps the bytecode its first processes write; compiling all of it at install costs more)
BYTECODE_AND_VENV = ("VIRTUAL_ENV", "PYTHONPATH", "PYTHONDONTWRITEBYTECODE")
EXPORTED = [f"{BASIC_EASY}/0", "clembench/home_deliver_three_planning_hard/3",
            "clembench/home_deliver_three_basic_easy_invlimittwo/13", "house", str(TEST_WORLDS / "scene_bridge.yaml")]
# a native world played with scripted replies by both runners: a parse failure, a ">" prefix, a second line
SCRIPT = ["go east", "open box", "xyzzy the frobnitz", "take brass key", "go west",
          "take book\nI will carry it north.", "> unlock door with key", "open door", "go north",
          "put book on shelf", "done"]


@pytest.fixture(scope="session")
def clem_venv(pytestconfig, tmp_path_factory) -> Path:
    """A venv holding clemcore 3.7.2 and this project (editable), made by one ``uv pip install``; pip is
    seeded into it, for ``pip check`` (in ``played``)."""
    given = os.environ.get("ADVENTURE_CLEMCORE_VENV")
    if given:
        return Path(given)
    key = hashlib.sha256((ROOT / "pyproject.toml").read_bytes() + f"{sys.version}|{CLEMCORE}|{ROOT}|uv".encode())
    cache = getattr(pytestconfig, "cache", None)
    base = cache.mkdir("clemcore-full") if cache is not None else tmp_path_factory.mktemp("clemcore-full")
    venv = base / key.hexdigest()[:16]
    if (venv / "ready").is_file():
        return venv
    for old in base.iterdir():   # an older pyproject's venv, or one whose install broke off
        shutil.rmtree(old, ignore_errors=True)
    binary = uv()
    subprocess.run([binary, "venv", "-q", "--seed", "-p", sys.executable, str(venv)], check=True, timeout=300)
    made = subprocess.run([binary, "pip", "install", "-q", "--python", str(venv / "bin" / "python"),
                           CLEMCORE, "-e", str(ROOT)], capture_output=True, text=True, timeout=1800)
    assert made.returncode == 0, f"clemcore and this project do not install together:\n{made.stderr[-3000:]}"
    (venv / "ready").write_text(CLEMCORE + "\n")
    return venv


def in_venv(venv: Path, *cmd: str, cwd: Path, timeout: int = 900) -> subprocess.CompletedProcess:
    """``cmd`` run from the venv's bin, with no model's keys; it must succeed. PYTHONDONTWRITEBYTECODE is
    dropped: the venv keeps the bytecode its first run writes, so later runs do not compile clemcore's
    imports again."""
    env = {k: v for k, v in os.environ.items() if k not in MODEL_ENV and k not in BYTECODE_AND_VENV}
    env.update(PATH=f"{venv / 'bin'}{os.pathsep}{env.get('PATH', '')}", HOME=str(cwd / "home"))
    out = subprocess.run([str(venv / "bin" / cmd[0]), *cmd[1:]], capture_output=True, text=True, cwd=cwd,
                         env=env, timeout=timeout)
    assert out.returncode == 0, f"{' '.join(cmd)} failed:\n{out.stdout[-2000:]}\n{out.stderr[-4000:]}"
    return out


@pytest.fixture(scope="module")
def played(clem_venv, tmp_path_factory):
    """Everything the tests below read, done once: records by ``adventure run`` (oracle), an exported game
    played by ``clem run -m mock`` and one by ``clem run -m fake-gpt`` (a scripted server), then
    ``clem score``, ``clem transcribe`` and ``clem eval`` over the lot."""
    base = tmp_path_factory.mktemp("clem")
    results = base / "results"
    games = base / "games"
    (base / "home").mkdir()
    in_venv(clem_venv, "adventure", "run", BASIC_EASY, "--player", "oracle", "--records", str(results), cwd=base)
    in_venv(clem_venv, "adventure", "score", str(results), cwd=base)
    for args in ([*EXPORTED, "--name", "ourworlds"], [str(TEST_WORLDS / "scene_two.yaml"), "--name", "twoseats"],
                 [str(TEST_WORLDS / "mini.yaml"), "--name", "scripted"]):
        in_venv(clem_venv, "adventure", "export", "clemgame", *args, "--out", str(games), cwd=base)
    in_venv(clem_venv, "clem", "run", "-g", "ourworlds", "twoseats", "-m", "mock", "-r", str(results), cwd=games)
    with FakeLLMServer().script(*SCRIPT) as server:
        (games / "model_registry.json").write_text(json.dumps(
            [{"model_name": "fake-gpt", "model_id": "qwen-test", "backend": "openai_compatible"}]))
        (games / "key.json").write_text(json.dumps({"openai_compatible": {"api_key": "sk-test-4711",
                                                                          "base_url": server.url}}))
        in_venv(clem_venv, "clem", "run", "-g", "scripted", "-m", "fake-gpt", "-r", str(results), cwd=games)
    version = in_venv(clem_venv, "python", "-c", "import openai; print(openai.__version__)", cwd=base)
    check = in_venv(clem_venv, "python", "-m", "pip", "check", cwd=base)
    for step in ("score", "transcribe", "eval"):
        in_venv(clem_venv, "clem", step, "-r", str(results), cwd=games)
    return {"results": results, "games": games, "openai": version.stdout.strip(), "pip_check": check.stdout,
            "requests": [r.messages for r in server.requests]}


def _scores(path: Path) -> dict:
    return json.loads(path.read_text().replace("NaN", "null"))


def _clemscores(results: Path) -> dict:
    import csv

    with open(results / "results.csv", newline="") as fh:
        return {row[""]: float(row["-, clemscore"]) for row in csv.DictReader(fh)}


def test_one_environment_holds_clemcore_and_us_and_clem_takes_our_records(played):
    assert played["openai"].startswith("2."), played["openai"]   # clemcore's pin, which we now allow
    assert "No broken requirements" in played["pip_check"]
    oracle = played["results"] / "oracle"
    assert len(list(oracle.rglob("transcript.html"))) == 16
    assert _clemscores(played["results"])["oracle"] == 100.0


def test_clem_run_with_mock_is_our_oracle_and_wins_every_instance(played):
    results = played["results"] / "mock"
    episodes = sorted(p.parent for p in results.rglob("interactions.json"))
    assert len(episodes) == len(EXPORTED) + 1
    assert {e.relative_to(results).parts[0] for e in episodes} == {"ourworlds", "twoseats"}
    for episode in episodes:
        assert (episode / "completed.json").is_file() and (episode / "transcript.html").is_file(), episode
        scores = _scores(episode / "scores.json")
        assert scores["episode scores"]["Success"] == 1 and scores["episode scores"]["Main Score"] == 100.0, episode
        assert list(scores)[:2] == ["meta", "players"] and scores["meta"]["game_name"] in ("ourworlds", "twoseats")
    two = json.loads(next((results / "twoseats").rglob("interactions.json")).read_text())
    assert {e["from"] for t in two["turns"] for e in t} == {"GM", "Player 1", "Player 2"}
    assert _clemscores(played["results"])["mock"] == 100.0


def test_clem_runs_records_replay_and_score_the_same_with_adventure(played, tmp_path):
    from tui_adventure.records.files import read_episode
    from tui_adventure.gamemaster.scoring import score_tree

    copy = tmp_path / "mock"
    shutil.copytree(played["results"] / "mock", copy)
    for scores in copy.rglob("scores.json"):
        scores.unlink()
    written = score_tree(copy)
    assert len(written) == len(EXPORTED) + 1
    for ours in written:
        episode = played["results"] / "mock" / ours.parent.relative_to(copy)
        assert _scores(ours) == _scores(episode / "scores.json"), episode
        recorded = read_episode(episode)
        assert recorded.player == "mock" and recorded.replies
        assert len(recorded.replies) == len(json.loads((episode / "interactions.json").read_text())["turns"])


def test_a_scripted_model_plays_the_same_under_both_runners(played, clem_venv, tmp_path):
    """The same replies through ``clem run`` (a model on a scripted server) and ``adventure run`` (the
    script itself, and the model on a server with the same script, with openai 2.x from clemcore's venv):
    the same prompts reach the model, and the turns and the scores come out the same."""
    from tui_adventure.gamemaster.scoring import score_tree

    ours = tmp_path / "ours"
    script = tmp_path / "script.json"
    script.write_text(json.dumps(SCRIPT))
    run = adventure("run", str(TEST_WORLDS / "mini.yaml"), "--player", f"scripted:{script}", "--records", str(ours))
    assert run.returncode == 0, run.stderr
    shutil.copy(played["games"] / "model_registry.json", tmp_path / "model_registry.json")
    with FakeLLMServer().script(*SCRIPT) as server:
        (tmp_path / "key.json").write_text(json.dumps({"openai_compatible": {"api_key": "sk-test-4711",
                                                                             "base_url": server.url}}))
        (tmp_path / "home").mkdir()
        in_venv(clem_venv, "adventure", "run", str(TEST_WORLDS / "mini.yaml"), "--player", "fake-gpt",
                "--records", str(tmp_path / "model"), cwd=tmp_path)
    assert [r.messages for r in server.requests] == played["requests"]   # the prompts, turn by turn
    assert played["requests"][0][0]["role"] == "system"                  # a native world's prompt
    score_tree(ours)
    [theirs] = [p.parent for p in (played["results"] / "fake-gpt").rglob("interactions.json")]
    [mine] = [p.parent for p in ours.rglob("interactions.json")]

    def turns(episode):
        data = json.loads((episode / "interactions.json").read_text())
        return [[(e["from"], e["to"], e["action"]) for e in turn] for turn in data["turns"]]

    assert turns(theirs) == turns(mine) and len(turns(mine)) == len(SCRIPT)
    a, b = _scores(theirs / "scores.json"), _scores(mine / "scores.json")
    assert a["turn scores"] == b["turn scores"] and a["episode scores"] == b["episode scores"]
    assert a["episode scores"]["Main Score"] == 100.0 and a["turn scores"]["2"]["action_parsing_fail"] == 1
