"""Records ownership (issue 55, item 6): a session's records are its own. ``play`` and ``repl`` never
continue or write into a study participant's folder, studies never share a roster, a continued game
checks every recorded turn, and no command over the cap is played or kept."""

from __future__ import annotations

import asyncio
import io
import json
from pathlib import Path

import pytest

from tui_adventure.catalog import open_world
from tui_adventure.cli.main import main
from tui_adventure.engine.snapshot import SaveError, load_save
from tui_adventure.gamemaster.episode import Episode
from tui_adventure.keyboard.history import History
from tui_adventure.keyboard.session import Session
from tui_adventure.study import StudyRun, load_study
from tui_adventure.study.queue import is_sitting

EPISODE = Path("tutorial") / "tutorial" / "instance_00000"
MAX_COMMAND = 4096   # characters of a command (engine.text.MAX_COMMAND)


def repl(monkeypatch, capsys, records: Path, *lines: str) -> str:
    """``adventure repl tutorial --records RECORDS`` in-process, its lines piped in; what it said."""
    monkeypatch.setattr("sys.stdin", io.StringIO("".join(f"{line}\n" for line in lines)))
    assert main(["repl", "tutorial", "--records", str(records)]) == 0
    out = capsys.readouterr()
    return out.out + out.err


def test_repl_beside_a_study_leaves_the_participants_folder_alone_and_they_resume(tmp_path, monkeypatch, capsys):
    records = tmp_path / "R"
    (tmp_path / "study.yaml").write_text("title: Pilot\nworlds: [tutorial]\n")
    study = load_study(tmp_path / "study.yaml")
    repl(monkeypatch, capsys, records, "take letter", "quit")            # the operator's own game: R/human
    run = StudyRun(study, "2", records).hold()                        # participant 2: R/human-2, unfinished
    session = run.session(run.next_stage())
    asyncio.run(session.submit_line("take letter"))
    session.close()
    run.release()
    theirs = records / "human-2" / EPISODE / "interactions.json"
    before = theirs.read_bytes()

    said = repl(monkeypatch, capsys, records, "north", "quit")
    assert "continuing your unfinished game" in said and str(records / "human" / EPISODE) in said
    assert theirs.read_bytes() == before                               # not continued, not written
    assert json.loads(before)["meta"]["study"]["participant"] == "2"
    repl(monkeypatch, capsys, records, "north", "done", "quit")         # finished: the next game wants a folder
    repl(monkeypatch, capsys, records, "look", "quit")
    assert theirs.read_bytes() == before and (records / "human-3" / EPISODE).is_dir()

    assert is_sitting(study, records, "2") is None                     # participant 2 is still welcome
    again = StudyRun(study, "2", records).hold()
    try:
        stage = again.next_stage()
        assert stage is not None and not stage.practice and again.done_count() == 0
    finally:
        again.release()


CONSENT = "title: {title}\nconsent: Study {n} records what you type.\norder: latin\nworlds: [tutorial, house]\n"


def test_titles_sharing_a_slug_get_a_roster_and_a_consent_each(tmp_path):
    records = tmp_path / "R"
    studies = []
    for n, title in enumerate(["Pilot A", "Pilot/A", '"Pilot: A"']):
        (tmp_path / f"s{n}.yaml").write_text(CONSENT.format(title=title, n=n))
        studies.append(load_study(tmp_path / f"s{n}.yaml"))

    for study in studies:
        first = StudyRun(study, "p1", records)
        assert first.needs_consent() and first.study.consent.startswith(f"Study {studies.index(study)} ")
        first.agree()
        assert first.row == 0                                          # each study's first newcomer: row 0
    rosters = sorted((records / ".studies").glob("*.json"))
    assert len(rosters) == 3
    assert {json.loads(p.read_text())["study"] for p in rosters} == {"Pilot A", "Pilot/A", "Pilot: A"}
    newcomer = StudyRun(studies[1], "p2", records)
    assert newcomer.needs_consent()                                    # never agreed to Pilot/A's text
    newcomer.agree()
    assert newcomer.row == 1


def test_a_study_with_an_id_keeps_it_and_an_old_roster_stays_readable(tmp_path):
    records = tmp_path / "R"
    (tmp_path / "s.yaml").write_text("title: Old pilot\nconsent: agree?\nworlds: [tutorial]\n")
    (records / ".studies").mkdir(parents=True)
    (records / ".studies" / "Old-pilot.json").write_text(json.dumps(
        {"study": "Old pilot", "participants": {"p1": {"row": 0, "arrived": "x", "consent": "then"}}}))
    study = load_study(tmp_path / "s.yaml")
    assert not StudyRun(study, "p1", records).needs_consent()           # the roster from before ids
    StudyRun(study, "p2", records).agree()
    assert not (records / ".studies" / "Old-pilot.json").exists()      # taken over by this study
    assert set(json.loads((records / ".studies" / f"{study.key}.json").read_text())["participants"]) == {"p1", "p2"}

    (tmp_path / "t.yaml").write_text("title: Named\nid: pilot-2026\nworlds: [tutorial]\n")
    assert load_study(tmp_path / "t.yaml").key == "pilot-2026"
    (tmp_path / "u.yaml").write_text("title: Bad\nid: ../x\nworlds: [tutorial]\n")
    with pytest.raises(Exception, match=r"u.yaml:2:\d+: id is 1 to 64 letters"):
        load_study(tmp_path / "u.yaml")


def play(tmp_path, *commands) -> Session:
    session = Session(open_world("tutorial"), records=tmp_path / "records", saves=tmp_path / "saves", resume=True)
    for command in commands:
        asyncio.run(session.submit_line(command))
    session.close()
    return session


def test_a_tampered_last_turn_is_noticed_on_continuing_and_nothing_is_lost(tmp_path):
    play(tmp_path, "take letter", "north")
    folder = tmp_path / "records" / "human" / EPISODE
    data = json.loads((folder / "interactions.json").read_text())
    last = next(e for e in data["turns"][-1] if e["action"]["type"] == "get message")
    last["action"]["content"] = "open mailbox"                         # the last turn: no context follows it
    (folder / "interactions.json").write_text(json.dumps(data))
    tampered = {p.name: p.read_bytes() for p in folder.iterdir() if p.is_file()}

    session = play(tmp_path, "look")
    assert "could not be continued" in session.continued and "turn 2 (the last) no longer plays" in session.continued
    assert "\n" not in session.continued
    assert len(session.episode.turns) == 1 and session.recorder.run_dir.name == "human-2"
    assert {p.name: p.read_bytes() for p in folder.iterdir() if p.is_file()} == tampered


def test_an_overlong_command_is_refused_in_one_line_and_kept_nowhere(tmp_path):
    history = History(tmp_path / "history.txt")
    session = Session(open_world("tutorial"), records=tmp_path / "records", saves=tmp_path / "saves",
                      history=history)
    long = "take " + "x" * MAX_COMMAND
    feedback = asyncio.run(session.submit_line(long))
    assert feedback.kind == "error" and "\n" not in feedback.text and str(MAX_COMMAND) in feedback.text
    asyncio.run(session.submit_line("take letter"))
    asyncio.run(session.submit_line("save here"))
    session.close()
    assert [t.command for t in session.episode.turns] == ["take letter"]
    records = (tmp_path / "records" / "human" / EPISODE / "interactions.json").read_text()
    assert "x" * 100 not in records
    assert "x" * 100 not in (tmp_path / "history.txt").read_text()
    save = next((tmp_path / "saves").rglob("here.json"))
    assert json.loads(save.read_text())["commands"] == ["take letter"]

    episode = Episode(open_world("tutorial"))                          # a model's reply: long is fine, not its command
    turn = episode.submit(long + "\nbecause I want to")
    assert turn.invalid_format == "command_too_long" and episode.game.commands == []
    doc = json.loads(save.read_text())
    doc["commands"], doc["turn"] = [long], 1
    save.write_text(json.dumps(doc))
    with pytest.raises(SaveError, match="at most 4096"):
        load_save(save, open_world("tutorial"))


def test_a_batch_run_named_after_a_participants_folder_is_refused_in_one_line(tmp_path, capsys):
    records = tmp_path / "R"
    (tmp_path / "study.yaml").write_text("title: Pilot\nworlds: [tutorial]\n")
    run = StudyRun(load_study(tmp_path / "study.yaml"), "2", records).hold()   # participant 2: R/human-2
    session = run.session(run.next_stage())
    asyncio.run(session.submit_line("take letter"))
    session.close()
    run.release()
    theirs = records / "human-2"
    before = sorted(str(p.relative_to(theirs)) for p in theirs.rglob("*"))

    assert main(["run", "tutorial", "--player", "oracle", "--name", "human-2", "--records", str(records)]) == 1
    err = capsys.readouterr().err.strip()
    assert err.count("\n") == 0 and "study participant's folder" in err and "--name" in err
    assert sorted(str(p.relative_to(theirs)) for p in theirs.rglob("*")) == before
