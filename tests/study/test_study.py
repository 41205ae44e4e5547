"""Studies: a participant plays a queue of worlds blind, resumes, and is compared with models."""

from __future__ import annotations

import csv
import io
import json
from pathlib import Path

import pytest

from conftest import WORLDS, adventure

from tui_adventure.engine.yamlpos import SourceErrors
from tui_adventure.repl.loop import run_study
from tui_adventure.study import StudyRun, latin_row, load_study

TUTORIAL = (WORLDS / "solutions" / "tutorial.txt").read_text().split()
SOLUTIONS = {name: (WORLDS / "solutions" / f"{name}.txt").read_text().strip().splitlines()
             for name in ("tutorial", "tutorial_clembench", "house")}


def study_file(tmp_path: Path, body: str = "") -> Path:
    path = tmp_path / "study.yaml"
    path.write_text(body or "title: Two worlds\ninstructions: Type done when you are finished.\n"
                            "worlds:\n  - tutorial\n  - house\norder: fixed\n")
    return path


def play_piped(run: StudyRun, text: str) -> tuple[int, str]:
    out = io.StringIO()
    status = run_study(run, interactive=False, lines=io.StringIO(text), out=out)
    return status, out.getvalue()


def solved(name: str) -> str:
    return "\n".join(SOLUTIONS[name] + ["done"]) + "\n"


def test_a_participant_plays_two_worlds_from_a_pipe_and_resumes_halfway(tmp_path):
    study = load_study(study_file(tmp_path))
    records = tmp_path / "records"
    # first sitting: the instructions, the first world finished, the second begun, then the input ends
    status, out = play_piped(StudyRun(study, "p01", records), "\n" + solved("tutorial") + "\nnorth\n")
    assert status == 1
    assert "Type done when you are finished." in out
    assert "0 of 2 done; next is world 1 of 2" in out and "1 of 2 done; next is world 2 of 2" in out
    assert "stopped: 1 of 2 worlds done" in out
    run_dir = records / "human-p01"
    assert (run_dir / "tutorial/tutorial/instance_00000/completed.json").exists()
    house = run_dir / "house/house/instance_00000"
    assert not (house / "completed.json").exists()
    # the same command again: straight to the unfinished world, which starts over; the attempt is kept
    status, out = play_piped(StudyRun(study, "p01", records), "\n" + solved("house"))
    assert status == 0
    assert "1 of 2 done; next is world 2 of 2" in out and "All 2 worlds of Two worlds are done" in out
    assert "Posting a Letter" not in out   # the finished world is not played again
    assert (house / "completed.json").exists()
    assert (house / "attempt-1.interactions.json").exists()
    meta = json.loads((house / "interactions.json").read_text())["meta"]
    assert meta["study"]["attempt"] == 2 and meta["study"]["position"] == 2
    assert meta["shown"] == [] and meta["round_count"] == len(SOLUTIONS["house"]) + 1
    assert "mixed" not in meta   # the participant is the run's own player


def test_blind_play_shows_no_par_progress_or_score(tmp_path):
    study = load_study(study_file(tmp_path))
    _, out = play_piped(StudyRun(study, "p02", tmp_path / "records"),
                        "\ntake letter\nscore\nundo\n" + solved("tutorial"))
    lowered = out.lower()
    for word in ("par", "progress", "main score", "goal +1", "all goals achieved", "won after"):
        assert word not in lowered, word
    assert "undo is not available here" in out
    assert "Goals:\n  post the letter" in out or "Goals:" in out


def test_timing_is_in_every_human_turn(tmp_path):
    study = load_study(study_file(tmp_path))
    play_piped(StudyRun(study, "p03", tmp_path / "records"), "\n" + solved("tutorial"))
    folder = tmp_path / "records/human-p03/tutorial/tutorial/instance_00000"
    calls = json.loads((folder / "player_1.requests.json").read_text())["calls"]
    player = [c["call"]["raw_response_obj"]["clem_player"] for c in calls]
    assert all("call_start" in p and "call_duration" in p for p in player)
    interactions = json.loads((folder / "interactions.json").read_text())
    assert all("timestamp" in event for turn in interactions["turns"] for event in turn)
    assert interactions["meta"]["seconds"] >= 0


def test_a_time_limit_ends_the_world_as_aborted(tmp_path, monkeypatch):
    path = study_file(tmp_path, "title: Quick\nworlds:\n  - world: tutorial\n    time_limit: 30\n")
    run = StudyRun(load_study(path), "p04", tmp_path / "records")
    import tui_adventure.keyboard.session as session_module

    clock = [1000.0]
    monkeypatch.setattr(session_module.time, "monotonic", lambda: clock[0])
    session = run.session(run.next_stage())
    clock[0] += 31
    import asyncio

    feedback = asyncio.run(session.submit_line("take letter"))
    assert "time limit ran out" in feedback.text
    meta = json.loads((session.recorder.dir / "interactions.json").read_text())["meta"]
    assert meta["ended_by"] == "time_limit" and meta["round_count"] == 0
    assert (session.recorder.dir / "completed.json").exists()


def test_orders_fixed_shuffled_and_latin(tmp_path):
    worlds = "".join(f"  - {w}\n" for w in ("tutorial", "house", "manor", "clembench/home_deliver_three_basic_easy/0"))
    shuffled = load_study(study_file(tmp_path, f"title: S\norder: shuffled\nworlds:\n{worlds}"))
    first = [s.index for s in StudyRun(shuffled, "ann", tmp_path / "r1").stages]
    again = [s.index for s in StudyRun(shuffled, "ann", tmp_path / "r2").stages]
    assert first == again and sorted(first) == [0, 1, 2, 3]
    assert any([s.index for s in StudyRun(shuffled, f"p{i}", tmp_path / "r1").stages] != first for i in range(8))
    latin = load_study(study_file(tmp_path, f"title: L\norder: latin\nworlds:\n{worlds}"))
    rows = [[s.index for s in StudyRun(latin, f"q{i}", tmp_path / "r3").stages] for i in range(4)]
    for position in range(4):   # every world in every position once
        assert sorted(row[position] for row in rows) == [0, 1, 2, 3]
    assert [s.index for s in StudyRun(latin, "q1", tmp_path / "r3").stages] == rows[1]   # a returning participant


def test_latin_rows_balance_what_follows_what():
    for n in (2, 3, 4, 5):
        rows = [latin_row(n, r) for r in range(n if n % 2 == 0 else 2 * n)]
        follows = {}
        for row in rows:
            for a, b in zip(row, row[1:]):
                follows[(a, b)] = follows.get((a, b), 0) + 1
        assert len(set(follows.values())) == 1 and len(follows) == n * (n - 1)


def test_generated_worlds_and_a_practice_world(tmp_path):
    path = study_file(tmp_path, "title: G\npractice: tutorial\nworlds:\n"
                                "  - generate: {rooms: 4, objects: 6, goals: 1, seeds: [1, 2]}\n")
    study = load_study(path)
    assert [e.world.game for e in study.worlds] == ["generated_house", "generated_house"]
    run = StudyRun(study, "p05", tmp_path / "records")
    assert run.next_stage().practice
    _, out = play_piped(run, "\n" + solved("tutorial") + "\nquit\n")
    assert "practice world" in out and not (tmp_path / "records/human-p05/tutorial").exists()
    assert not StudyRun(study, "p05", tmp_path / "records").next_stage().practice


BAD = [
    ("title: X\nworlds:\n  - nowhere.yaml\n", "study.yaml:3:5:", "nowhere.yaml"),
    ("title: X\nworld:\n  - house\n", "study.yaml:2:1:", "did you mean 'worlds'"),
    ("title: X\nworlds: [house]\norder: random\n", "study.yaml:3:8:", "order must be one of"),
    ("title: X\nworlds: [house]\nshow: [par, scores]\n", "study.yaml:3:7:", "did you mean 'score'"),
    ("title: X\nworlds: [house]\ntime_limit: -5\n", "study.yaml:3:13:", "seconds per world"),
    ("title: X\nworlds:\n  - generate: {rooms: 0}\n", "study.yaml:3:", "--rooms must be"),
    ("worlds: [house]\n", "study.yaml", "needs title"),
    ("title: X\nworlds: [house\n", "study.yaml:", "YAML syntax error"),
    ("title: X\nworlds: [house]\nconsent: [agree]\n", "study.yaml:3:10:", "consent must be text"),
    ("title: X\nworlds: [house]\ncompletion_code: has space\n", "study.yaml:3:18:", "completion_code is 1 to 64"),
    ("title: X\nworlds: [house]\ncompletion_url: javascript:alert(1)\n", "study.yaml:3:17:", "https://"),
    ("title: X\nworlds: [house]\ncompletion_url: https://\n", "study.yaml:3:17:", "names a host"),
    ("title: X\nworlds: [house]\ncompletion_urls: https://x.org\n", "study.yaml:3:1:", "did you mean 'completion_url'"),
]


@pytest.mark.parametrize("text, where, what", BAD)
def test_a_bad_study_file_names_the_place_and_the_fix(tmp_path, text, where, what):
    path = study_file(tmp_path, text)
    with pytest.raises(SourceErrors) as err:
        load_study(path)
    message = str(err.value)
    assert where in message and what in message, message


def test_the_command_refuses_a_participant_id_that_is_a_path(tmp_path):
    path = study_file(tmp_path)
    result = adventure("study", str(path), "--participant", "../x", "--records", str(tmp_path / "r"), "--repl")
    assert result.returncode == 1
    assert "participant ID '../x'" in result.stderr and "Traceback" not in result.stderr
    assert not (tmp_path / "x").exists() and not (tmp_path / "human-..").exists()
    bad = study_file(tmp_path, "title: X\nworlds: []\n")
    result = adventure("study", str(bad), "--participant", "ok", "--records", str(tmp_path / "r"))
    assert result.returncode == 1 and "study.yaml:2:9: worlds must be a non-empty list" in result.stderr


@pytest.mark.slow
def test_eval_compares_two_participants_with_two_programs(tmp_path):
    study = load_study(study_file(tmp_path))
    records = tmp_path / "records"
    play_piped(StudyRun(study, "alice", records), "\n" + solved("tutorial") + "\n" + solved("house"))
    play_piped(StudyRun(study, "bob", records), "\ntake letter\nnorth\ndone\n\nwest\ndone\n")
    for player in ("oracle", "random:3"):
        assert adventure("run", str(WORLDS / "tutorial.yaml"), str(WORLDS / "house.yaml"), "--player", player,
                         "--records", str(records)).returncode == 0
    assert adventure("score", str(records)).returncode == 0
    result = adventure("eval", str(records))
    assert result.returncode == 0, result.stderr
    rows = list(csv.DictReader((records / "comparison.csv").open()))
    overall = {r["group"]: r for r in rows if r["experiment"] == "all" and r["metric"] == "Main Score"}
    assert set(overall) == {"humans (all participants)", "human-alice", "human-bob", "oracle", "random-3"}
    assert float(overall["human-alice"]["mean"]) == 100   # both worlds won
    assert overall["humans (all participants)"]["n"] == "4"   # two participants, two worlds each
    pairs = (records / "pairs.csv").read_text().splitlines()
    assert len(pairs) == 1 + 2 * 4   # per instance: two participants and two programs
    paired = list(csv.DictReader((records / "paired.csv").open()))
    assert {(r["model"], r["humans"]) for r in paired} == {
        (m, h) for m in ("oracle", "random-3") for h in ("humans (all participants)", "human-alice", "human-bob")}
    page = (records / "results.html").read_text()
    assert "<svg" in page and "Models against people" in page and "<script" not in page


def test_a_study_file_that_is_a_fifo_or_an_alias_bomb_is_refused_at_once(tmp_path):
    import os

    fifo = tmp_path / "study.yaml"
    os.mkfifo(fifo)
    with pytest.raises(SourceErrors, match="not a regular file"):
        load_study(fifo)
    bomb = tmp_path / "bomb.yaml"
    bomb.write_text("a: &a [x, x, x, x, x, x, x, x, x]\n" + "".join(
        f"{c}: &{c} [*{p}, *{p}, *{p}, *{p}, *{p}, *{p}, *{p}, *{p}, *{p}]\n" for p, c in zip("abcdefgh", "bcdefghi"))
        + "title: X\nworlds: [house]\n")
    with pytest.raises(SourceErrors):
        load_study(bomb)


def test_the_same_participant_in_two_places_at_once_is_refused(tmp_path):
    from tui_adventure.records.files import Busy

    study = load_study(study_file(tmp_path))
    first = StudyRun(study, "twin", tmp_path / "records")
    session = first.session(first.next_stage())   # playing, with its folder locked
    assert session.recorder is not None
    second = StudyRun(study, "twin", tmp_path / "records")
    with pytest.raises(Busy, match="another adventure process"):
        second.session(second.next_stage())
    assert not (tmp_path / "records/human-twin-2").exists()
    session.recorder.unlock()


def test_clemcore_reads_a_participants_records(tmp_path):
    from clemcore_check import evaluate, require_clemcore, transcribe_all
    from tui_adventure.gamemaster.scoring import score_tree

    require_clemcore()
    path = study_file(tmp_path, "title: C\nworlds:\n  - tutorial\n  - clembench/home_deliver_three_basic_easy/0\n")
    records = tmp_path / "records"
    play_piped(StudyRun(load_study(path), "c1", records),
               "\n" + solved("tutorial") + "\n> go kitchen\n> take apple\ndone\n")
    assert len(score_tree(records)) == 2
    transcripts = transcribe_all(records)
    assert len(transcripts) == 2 and all(p.stat().st_size > 1000 for p in transcripts)
    csv, _table = evaluate(records)
    assert "human-c1" in csv.read_text()


def test_the_shipped_pilot_study_loads():
    from conftest import ROOT

    study = load_study(ROOT / "studies" / "pilot.yaml")
    assert len(study.worlds) == 4 and study.order == "latin" and study.practice is not None
    assert study.show.shown() == [] and all(e.time_limit == 900 for e in study.worlds)


def test_a_participant_and_a_second_play_session_never_share_human_2(tmp_path):
    """``adventure play``'s second session on a world is ``human-2``, and so is study participant ``2``:
    neither may take the other's folder, or one person's finished worlds count as another's."""
    from tui_adventure.catalog import open_world
    from tui_adventure.keyboard.session import Session

    records = tmp_path / "records"
    study = load_study(study_file(tmp_path))
    # participant 2 first: play sessions step over their folder
    play_piped(StudyRun(study, "2", records), "\n" + solved("tutorial"))
    first, second = (Session(open_world(WORLDS / "house.yaml"), records=records, saves=tmp_path / "s")
                     for _ in range(2))   # house: a world participant 2 has not begun
    assert (first.recorder.run_dir.name, second.recorder.run_dir.name) == ("human", "human-3")
    for session in (first, second):
        session.recorder.unlock()
    # a play session's human-2 first: participant 2 of a study in that folder is refused, saying why
    other = tmp_path / "other"
    sessions = [Session(open_world(WORLDS / "tutorial.yaml"), records=other, saves=tmp_path / "s") for _ in range(2)]
    assert sessions[1].recorder.run_dir.name == "human-2"
    result = adventure("study", str(study_file(tmp_path)), "--participant", "2", "--records", str(other), "--repl")
    assert result.returncode == 1 and "Traceback" not in result.stderr
    assert "human-2 holds an `adventure play` session's" in result.stderr and "its own --records" in result.stderr


def _tree(folder: Path) -> dict:
    return {str(p.relative_to(folder)): (p.read_bytes() if p.is_file() else None) for p in folder.rglob("*")}


@pytest.mark.parametrize("consent", [False, True])
def test_check_with_a_participant_changes_nothing_on_disk(tmp_path, monkeypatch, capsys, consent):
    from tui_adventure.cli.main import main

    monkeypatch.chdir(tmp_path)
    study = study_file(tmp_path, "title: Latin three\ninstructions: Type done.\nworlds:\n  - tutorial\n"
                                 "  - house\n  - labyrinth\norder: latin\n"
                                 + ("consent: We record what you type.\n" if consent else ""))
    records = tmp_path / "records"
    first = StudyRun(load_study(study), "p01", records)
    if consent:
        first.agree()
    before = _tree(records)
    assert main(["study", str(study), "--check", "--participant", "test", "--records", str(records)]) == 0
    assert "row 1" in capsys.readouterr().out   # the row the next newcomer would take
    assert _tree(records) == before
    assert StudyRun(load_study(study), "p02", records).row == 1   # no row was taken by the check


def test_quitting_a_study_in_the_terminal_exits_0_and_says_how_to_resume(tmp_path, monkeypatch, capsys):
    from tui_adventure.app import AdventureApp
    from tui_adventure.cli.main import main

    monkeypatch.chdir(tmp_path)
    study = study_file(tmp_path)
    monkeypatch.setattr(AdventureApp, "run", lambda self, *a, **k: None)   # the participant quits at once
    monkeypatch.setattr("tui_adventure.front_ends._terminal", lambda: True)   # as in a terminal
    assert main(["study", str(study), "--participant", "p01", "--records", "my records"]) == 0
    err = capsys.readouterr().err
    assert "progress is saved" in err
    assert f"adventure study {study} --participant p01 --records 'my records'" in err


def test_the_crowd_example_is_ready_for_a_platform_and_is_what_the_readme_serves():
    from conftest import ROOT

    study = load_study(ROOT / "studies" / "crowd.yaml")
    assert study.consent and "consent" in study.consent.lower()
    assert study.completion_code and study.completion_url and study.completion_url.startswith("https://")
    assert study.practice is not None and len(study.worlds) >= 2
    # its worlds are clembench instances: its practice teaches their style, and its instructions say it
    assert study.practice.world.is_clembench() and all(entry.world.is_clembench() for entry in study.worlds)
    assert '"go kitchen"' in study.instructions and "north" not in study.instructions
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    assert "adventure study studies/crowd.yaml --serve" in readme
    assert "adventure study studies/pilot.yaml --participant" in readme   # the pilot stays, for the terminal


def test_the_pause_before_a_world_says_what_the_world_asks(tmp_path):
    study = study_file(tmp_path, "title: Mixed\nworlds:\n  - labyrinth\n  - clembench/home_deliver_three_basic_easy/0\n"
                                 "  - house\norder: fixed\n")
    run = StudyRun(load_study(study), "p1", tmp_path / "records")
    labyrinth, clembench, house = (run.intermission(stage) for stage in run.stages)
    assert "2 characters in turn (Ava, Bo)" in labyrinth
    assert '"go hallway"' in clembench and '"look"' in clembench and "characters" not in clembench
    assert house == "0 of 3 done; next is world 1 of 3. Press Enter when ready."


def test_the_practice_teaches_the_command_style_of_the_studys_worlds(tmp_path):
    chores = study_file(tmp_path, "title: Chores\npractice: tutorial\nworlds:\n"
                                  "  - clembench/home_deliver_three_basic_easy/0\n"
                                  "  - clembench/home_deliver_three_basic_easy/1\n  - house\n")
    run = StudyRun(load_study(chores), "p1", tmp_path / "records")
    _, out = play_piped(run, "\nlook\n" + solved("tutorial_clembench") + "\nquit\n")
    practice = out.split("[0 of 3 done")[0]
    assert '"go pantry"' not in practice and "go pantry " in practice and 'There is no "look"' in practice
    assert "I don't know how to interpret this 'look' action." in practice   # what the worlds after it say
    assert "You put the banana in the refrigerator." in practice and "north" not in practice.split("> look")[1]
    # most worlds classic (the pilot: one clembench instance in four): the classic tutorial, "look" and "north"
    pilot = load_study(study_file(tmp_path, "title: Mixed\npractice: tutorial\nworlds:\n  - house\n  - labyrinth\n"
                                            "  - clembench/home_deliver_three_basic_easy/0\n"))
    assert pilot.practice.world.title == "Posting a Letter" and not pilot.practice.world.is_clembench()
    named = load_study(study_file(tmp_path, "title: Named\npractice: tutorial_clembench\nworlds: [house]\n"))
    assert named.practice.world.is_clembench()   # a tutorial named by the researcher is theirs to choose


def test_a_participant_in_line_mode_reads_the_worlds_place_not_its_id(tmp_path):
    chores = study_file(tmp_path, "title: Chores\npractice: tutorial\nworlds:\n"
                                  "  - clembench/home_deliver_three_basic_easy/0\n  - house\norder: fixed\n")
    run = StudyRun(load_study(chores), "p1", tmp_path / "records")
    _, out = play_piped(run, "\n" + solved("tutorial") + "\n\ndone\n\n" + solved("house"))
    assert "home_deliver" not in out and "#0" not in out
    lines = out.splitlines()
    assert "Chores: Practice" in lines and "Chores: World 1 of 2" in lines and "Chores: World 2 of 2" in lines
