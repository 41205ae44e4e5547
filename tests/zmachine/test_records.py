"""A story file through the CLI: run, script, score and eval, with records clemcore's tools read."""

from __future__ import annotations

import json

import pytest

from conftest import adventure
from stories import STORIES, walkthrough


def scripted(tmp_path, name: str) -> str:
    script = tmp_path / f"{name}.txt"
    script.write_text("\n".join(walkthrough(name)) + "\n")
    return f"scripted:{script}"


def episode_scores(root) -> dict:
    found = {p.parts[-4]: json.loads(p.read_text()) for p in root.rglob("scores.json")}
    return found


def test_a_run_of_story_files_is_scored_by_their_own_score(tmp_path):
    records = tmp_path / "r"
    won = adventure("run", STORIES / "lighthouse.z5", "--player", scripted(tmp_path, "lighthouse"),
                    "--records", records, cwd=tmp_path)
    assert won.returncode == 0, won.stderr
    lose = tmp_path / "lose.txt"
    lose.write_text((STORIES / "cellar.lose").read_text())
    died = adventure("run", STORIES / "cellar.z5", "--player", f"scripted:{lose}", "--records", records, cwd=tmp_path)
    assert died.returncode == 0, died.stderr
    assert "played 1" in won.stdout and "succeeded 1" in won.stdout and "succeeded 0" in died.stdout
    assert adventure("score", records, cwd=tmp_path).returncode == 0
    scores = episode_scores(records)
    light, cellar = scores["lighthouse"]["episode scores"], scores["cellar"]["episode scores"]
    assert (light["Success"], light["Lose"], light["Aborted"], light["Main Score"]) == (1, 0, 0, 100.0)
    assert (cellar["Success"], cellar["Lose"], cellar["Aborted"]) == (0, 1, 0)
    assert cellar["Main Score"] == 100 * 15 / 25   # a death keeps what was scored (TALES's normalised score)
    turns = [t["score"] for t in scores["lighthouse"]["turn scores"].values()]
    assert turns[0] == 0 and turns[1] == 5 and turns[-1] == 30 and len(turns) == len(walkthrough("lighthouse"))
    assert light["Request Count"] == len(turns)


def test_two_releases_of_one_game_are_two_experiments(tmp_path):
    records = tmp_path / "r"
    for story in ("lighthouse.z5", "lighthouse.z8"):
        ran = adventure("run", STORIES / story, "--player", scripted(tmp_path, "lighthouse"), "--records", records,
                        cwd=tmp_path)
        assert "played 1" in ran.stdout, ran.stdout + ran.stderr
    found = sorted(p.parent.relative_to(records).parts[1:3] for p in records.rglob("interactions.json"))
    assert found == [("lighthouse", "lighthouse.z5"), ("lighthouse", "lighthouse.z8")]


def test_clemcores_tools_read_a_story_files_records(tmp_path):
    from clemcore_check import evaluate, require_clemcore, transcribe_all

    records = tmp_path / "r"
    result = adventure("run", STORIES / "lighthouse.z5", "--player", scripted(tmp_path, "lighthouse"),
                       "--records", records, cwd=tmp_path)
    assert result.returncode == 0, result.stderr
    assert adventure("score", records, cwd=tmp_path).returncode == 0
    require_clemcore()
    transcripts = transcribe_all(records)
    assert len(transcripts) == 1 and "Lamp Room" in transcripts[0].read_text()
    _, frame = evaluate(records)
    assert frame["all, Average Quality Score"].iloc[0] == pytest.approx(100.0)
    assert adventure("eval", records, cwd=tmp_path).returncode == 0


def test_script_plays_a_story_file_line_by_line(tmp_path):
    result = adventure("script", STORIES / "tower.z3", "--jsonl", stdin="\n".join(walkthrough("tower")) + "\n",
                       cwd=tmp_path)
    assert result.returncode == 0, result.stderr
    lines = [json.loads(line) for line in result.stdout.splitlines()]
    assert "Score:" not in lines[1]["observation"]
    assert lines[-1]["done"] is True


@pytest.mark.parametrize("command", [["solve"], ["export", "pddl"], ["export", "clemgame"]])
def test_commands_that_need_our_engine_refuse_a_story_file_in_one_line(tmp_path, command):
    result = adventure(*command, STORIES / "lighthouse.z5", *(["--out", tmp_path / "o"] if "export" in command else []),
                       cwd=tmp_path)
    assert result.returncode == 2
    assert len(result.stderr.strip().splitlines()) == 1 and "story file" in result.stderr
    assert not (tmp_path / "o").exists()


def test_export_called_in_process_refuses_a_story_file_in_one_line(tmp_path):
    """Below the command line's own refusal: ``export.cli.export`` opens our world (``catalog.our_world``),
    which names a story file in one line, before any interpreter is asked for."""
    import io

    from tui_adventure.catalog import our_world
    from tui_adventure.engine.yamlpos import SourceErrors
    from tui_adventure.export.cli import export

    out, err = io.StringIO(), io.StringIO()
    assert export(str(STORIES / "lighthouse.z5"), str(tmp_path / "o"), out, err) == 1
    assert len(err.getvalue().strip().splitlines()) == 1 and "story file" in err.getvalue()
    assert not (tmp_path / "o").exists() and out.getvalue() == ""
    with pytest.raises(SourceErrors, match="story file"):
        our_world(STORIES / "tower.z3")


def test_a_broken_story_file_is_one_line(tmp_path):
    bad = tmp_path / "bad.z5"
    bad.write_bytes(b"\x05" + b"\x00" * 10)
    result = adventure("run", bad, "--player", "random", "--records", tmp_path / "r", cwd=tmp_path)
    assert "bad.z5" in result.stdout + result.stderr and "Traceback" not in result.stderr


def test_the_oracle_follows_a_known_walkthrough_and_says_when_there_is_none(tmp_path):
    import asyncio

    from stories import new_story_game
    from tui_adventure.catalog import open_world
    from tui_adventure.gamemaster.episode import Episode, PlayerFailed, play_turn
    from tui_adventure.players import make_player

    new_story_game().close()
    story = open_world(str(STORIES / "lighthouse.z5"))

    async def play(walk, spec):
        episode = Episode(story)
        episode.play.walkthrough = walk   # what Jericho gives a catalogued game
        player = make_player(spec, story)
        try:
            while not episode.ended:
                await play_turn(episode, player)
        except PlayerFailed as exc:
            return episode, str(exc)
        return episode, None

    episode, failed = asyncio.run(play(walkthrough("lighthouse"), "oracle"))
    assert failed is None and episode.outcome.success and len(episode.turns) == len(walkthrough("lighthouse"))
    _, failed = asyncio.run(play(None, "oracle"))
    assert "neither" in failed
    _, failed = asyncio.run(play(None, "random"))
    assert "cannot list" in failed


def test_without_jericho_a_story_file_is_one_line_naming_the_extra(tmp_path, monkeypatch):
    import sys

    monkeypatch.setitem(sys.modules, "jericho", None)   # import jericho fails as when the extra is missing
    for command in (["run", STORIES / "lighthouse.z5", "--player", "random", "--records", tmp_path / "r"],
                    ["script", STORIES / "lighthouse.z5"]):
        result = adventure(*command, stdin="look\n", cwd=tmp_path)
        said = (result.stdout + result.stderr).strip().splitlines()
        assert "Traceback" not in result.stderr
        assert any("pip install -e '.[zmachine]'" in line for line in said), said


def test_check_reads_a_story_files_header_without_an_interpreter(tmp_path):
    bad = tmp_path / "bad.z5"
    bad.write_bytes(b"\x05" + b"\x00" * 10)
    result = adventure("check", STORIES / "tower.z3", bad, cwd=tmp_path)
    assert result.returncode == 1
    good, broken = result.stdout.strip().splitlines()
    assert "tower.z3: ok (a Z-machine story file, version 3" in good and broken.startswith(str(bad))


@pytest.mark.slow
def test_jobs_on_story_files_spread_over_processes(tmp_path, monkeypatch):
    """A Z-machine turn is mostly Python holding its lock: ``--jobs 2`` alone on story files runs two worker
    processes (one a core), so two cores are busy; our own worlds keep ``--jobs`` as concurrency in one."""
    import tui_adventure.batches.run as batch_run

    spread = []
    real = batch_run.run_in_processes
    monkeypatch.setattr(batch_run, "run_in_processes",
                        lambda files, spec, records, jobs, procs, *a, **k: spread.append((procs, jobs)) or
                        real(files, spec, records, jobs, procs, *a, **k))
    monkeypatch.setattr("os.cpu_count", lambda: 2)
    records = tmp_path / "r"
    ran = adventure("run", STORIES / "lighthouse.z5", STORIES / "lighthouse.z8", "--player",
                    scripted(tmp_path, "lighthouse"), "--records", records, "--jobs", "2", cwd=tmp_path)
    assert ran.returncode == 0, ran.stderr
    assert spread == [(2, 1)] and "played 2" in ran.stdout and "succeeded 2" in ran.stdout
    assert batch_run.story_processes(["house.yaml"], 4, 1, None) == (1, 4)         # our worlds: one process
    assert batch_run.story_processes(["a.z5"] * 8, 4, 1, None) == (2, 2)           # at most one a core
    assert batch_run.story_processes(["a.z5"] * 8, 4, 3, None) == (3, 4)           # --procs given: kept
