"""Consent before the first world, the completion code at the end, and the links a browser arrives by."""

from __future__ import annotations

import io
import json

import pytest

from conftest import WORLDS, adventure

from tui_adventure.repl.loop import run_study
from tui_adventure.study import StudyRun, load_study
from tui_adventure.study.visit import VisitError, await_hello, browser, from_link, hello

SOLUTION = (WORLDS / "solutions" / "tutorial.txt").read_text().strip().splitlines()
STUDY = ("title: Consent first\nconsent: |\n  We record what you type.\n  Taking part is voluntary.\n"
         "worlds: [tutorial]\norder: latin\ncompletion_code: C0DE42\n"
         "completion_url: https://app.prolific.com/submissions/complete?cc=C0DE42\n")


def piped(run: StudyRun, text: str) -> tuple[int, str]:
    out = io.StringIO()
    return run_study(run, interactive=False, lines=io.StringIO(text), out=out), out.getvalue()


@pytest.fixture
def study(tmp_path):
    (tmp_path / "study.yaml").write_text(STUDY)
    return load_study(tmp_path / "study.yaml")


def roster(tmp_path) -> dict:
    return json.loads(next((tmp_path / "records/.studies").glob("Consent-first-*.json")).read_text())


def test_agreeing_is_recorded_with_its_time_and_the_end_gives_the_code(tmp_path, study):
    run = StudyRun(study, "yes1", tmp_path / "records")
    assert run.needs_consent() and not (tmp_path / "records").exists()   # nothing kept before the answer
    status, out = piped(run, "yes\n\n" + "\n".join(SOLUTION + ["done"]) + "\n")
    assert status == 0 and "Taking part is voluntary." in out
    assert "Your completion code: C0DE42" in out and "Finish at: https://app.prolific.com/" in out
    agreed = roster(tmp_path)["participants"]["yes1"]["consent"]
    meta = json.loads((tmp_path / "records/human-yes1/tutorial/tutorial/instance_00000/interactions.json")
                      .read_text())["meta"]
    assert meta["study"]["consent"] == agreed and "browser" not in meta
    assert not StudyRun(study, "yes1", tmp_path / "records").needs_consent()   # asked once


def test_declining_keeps_only_the_refusal_and_takes_no_latin_row(tmp_path, study):
    status, out = piped(StudyRun(study, "no1", tmp_path / "records"), "no\n\n")
    assert status == 1 and "Nothing was recorded but that you declined" in out
    data = roster(tmp_path)
    assert data["participants"] == {} and len(data["declined"]["no1"]) == 1
    assert not (tmp_path / "records/human-no1").exists()
    later = StudyRun(study, "later", tmp_path / "records")
    later.agree()
    assert later.row == 0   # the refusal took no row of the Latin square


def test_the_end_of_a_pipe_at_the_consent_question_keeps_nothing(tmp_path, study):
    status, _ = piped(StudyRun(study, "gone", tmp_path / "records"), "")
    assert status == 1 and not (tmp_path / "records").exists()


def test_one_sitting_per_participant(tmp_path, study):
    from tui_adventure.records.files import Busy

    first = StudyRun(study, "twin", tmp_path / "records").hold()
    with pytest.raises(Busy, match="already playing Consent first"):
        StudyRun(study, "twin", tmp_path / "records").hold()
    first.release()
    StudyRun(study, "twin", tmp_path / "records").hold().release()


def test_a_second_terminal_with_the_same_id_is_refused_in_one_line(tmp_path, study):
    run = StudyRun(study, "twin", tmp_path / "records").hold()
    try:
        done = adventure("study", str(tmp_path / "study.yaml"), "--participant", "twin", "--records",
                         str(tmp_path / "records"), "--repl", stdin="yes\n")
    finally:
        run.release()
    assert done.returncode == 1 and "already playing" in done.stderr and "Traceback" not in done.stderr


LINKS = [
    ({"participant": ["p-1"]}, ("p-1", {})),
    ({"PROLIFIC_PID": ["5f0a"], "STUDY_ID": ["s1"], "SESSION_ID": ["x"]},
     ("5f0a", {"PROLIFIC_PID": "5f0a", "STUDY_ID": "s1", "SESSION_ID": "x"})),
    ({"participant": ["same"], "PROLIFIC_PID": ["same"], "fontsize": ["20"]}, ("same", {"PROLIFIC_PID": "same"})),
]


@pytest.mark.parametrize("query, expected", LINKS)
def test_a_link_names_its_participant(query, expected):
    assert from_link(query) == expected


@pytest.mark.parametrize("query, words", [
    ({}, "names no participant"), ({"participant": ["../x"]}, "1 to 64"), ({"participant": [""]}, "1 to 64"),
    ({"participant": ["a b"]}, "1 to 64"), ({"participant": ["a", "a"]}, "give it once"),
    ({"participant": ["a"], "PROLIFIC_PID": ["b"]}, "differ"), ({"participant": ["a"], "STUDY_ID": ["$(id)"]}, "STUDY_ID"),
])
def test_a_bad_link_is_refused_saying_why(query, words):
    with pytest.raises(VisitError, match=words):
        from_link(query)


def test_the_visit_handed_to_the_participants_process_is_checked_again():
    import os

    facts = browser("Mozilla/5.0\x1b[31m" + "x" * 1000, columns=120, rows=40, width_px=1280, height_px=0)
    assert facts == {"user_agent": "Mozilla/5.0[31m" + "x" * 497, "columns": 120, "rows": 40, "width_px": 1280}

    def heard(line: bytes):
        read, write = os.pipe()
        os.write(write, line + b"keys the app reads next")
        os.close(write)
        try:
            return await_hello(read), os.read(read, 100)
        finally:
            os.close(read)

    told, rest = heard(hello("p1", {"PROLIFIC_PID": "p1"}, facts, 120, 40))
    assert told == ("p1", {"platform": {"PROLIFIC_PID": "p1"}, "browser": facts}, 120, 40)
    assert rest == b"keys the app reads next"   # nothing past the line is taken from the app
    assert heard(b'{"participant": null}\n')[0] == (None, {}, 80, 24)
    for bad in (b"[1]\n", b"{\n", b'{"participant": "../x"}\n', b'{"platform": {"X": "y"}}\n',
                b'{"platform": {"STUDY_ID": "../x"}}\n', b'{"browser": 3}\n', b"no line", b"x" * 9000 + b"\n"):
        with pytest.raises(VisitError):
            heard(bad)
