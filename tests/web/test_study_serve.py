"""``adventure study --serve`` and ``adventure play --serve`` as participants meet them: a real server
process, Debian's headless Chromium typing into the page, the records afterwards.

The [web] extra (textual-serve) comes from .ci/setup.sh; without it these fail.
"""

from __future__ import annotations

import json
import re
from contextlib import contextmanager
import urllib.error
import urllib.request
from pathlib import Path

import pytest
from browser import chromium
from conftest import WORLDS, adventure
from .served import Served, Terminal, web_extra

pytestmark = pytest.mark.slow

SOLUTION = (WORLDS / "solutions" / "tutorial.txt").read_text().strip().splitlines()
STUDY = """\
title: Browser pilot
instructions: Type short commands; type done when the task is done.
consent: |
  # Information

  You will play a short text adventure. We record what you type and how long you take.
  Participation is voluntary.
worlds:
  - tutorial
completion_code: C1A2B3C4
"""
PROLIFIC = "?PROLIFIC_PID=5f1a2b3c4d&STUDY_ID=st01&SESSION_ID=se01"


@pytest.fixture(scope="module")
def web():
    web_extra()


@pytest.fixture(scope="module")
def browser(web):
    """One headless Chromium for the module's tests (starting one costs seconds of CPU); each test's
    pages come from ``visit``."""
    from playwright.sync_api import sync_playwright

    with sync_playwright() as p:
        started = chromium(p)
        yield started
        started.close()


@pytest.fixture
def visit(browser):
    """``with visit(**options) as page``: a page in a browser context of its own, as a new visitor's,
    closed on leaving the block (before the server it visits stops)."""

    @contextmanager
    def page(**options):
        context = browser.new_context(**options)
        try:
            yield context.new_page()
        finally:
            context.close()

    return page


@pytest.fixture
def study(tmp_path) -> Path:
    (tmp_path / "study.yaml").write_text(STUDY)
    return tmp_path


def test_a_participant_agrees_plays_a_world_to_the_win_and_gets_the_code(visit, study):
    with Served(["study", "study.yaml", "--records", "rec"], study) as server, \
            visit(viewport={"width": 1100, "height": 700}) as page:
        term = Terminal(page)
        term.open(server.url + PROLIFIC, "Participation is voluntary")
        assert not (study / "rec" / "human-5f1a2b3c4d").exists()   # nothing before the agreement
        code, body = server.get("?participant=5f1a2b3c4d")          # the same participant, a second tab
        assert code == 409 and "already playing" in body
        term.press("Tab")   # to "I agree": an Enter typed ahead does not agree
        term.press("Enter")
        term.wait_for("Press Enter when ready")
        term.press("Enter")
        shown = term.wait_for("post the letter")
        assert "Turn 0/30" in shown and not re.search(r"par \d|Main", shown)   # blind, as in the terminal
        for turn, line in enumerate(SOLUTION + ["done"], 1):
            term.type(line)
            term.wait_for(f"Turn {turn}/30")
        term.wait_for("Press Enter to go on")
        term.press("Enter")
        shown = term.wait_for("C1A2B3C4")
        assert "Your completion code" in shown and "You may close this page now" in shown
        term.press("Enter")   # the code stays on the page
        page.wait_for_timeout(300)
        assert "C1A2B3C4" in term.screen()
        user_agent = page.evaluate("navigator.userAgent")
    episode = study / "rec" / "human-5f1a2b3c4d" / "tutorial" / "tutorial" / "instance_00000"
    assert (episode / "completed.json").exists()
    meta = json.loads((episode / "interactions.json").read_text())["meta"]
    assert meta["completed"] and meta["study"]["participant"] == "5f1a2b3c4d"
    assert meta["study"]["consent"].startswith("20")   # the time it was agreed
    assert meta["study"]["platform"] == {"PROLIFIC_PID": "5f1a2b3c4d", "STUDY_ID": "st01", "SESSION_ID": "se01"}
    assert meta["browser"]["user_agent"] == user_agent and "HeadlessChrome" in user_agent
    assert meta["browser"]["width_px"] == 1100 and meta["browser"]["height_px"] == 700
    assert 80 <= meta["browser"]["columns"] <= 200 and 20 <= meta["browser"]["rows"] <= 60
    roster = json.loads(next((study / "rec" / ".studies").glob("Browser-pilot-*.json")).read_text())
    assert roster["participants"]["5f1a2b3c4d"]["consent"] == meta["study"]["consent"]
    assert adventure("score", "rec", cwd=study).returncode == 0
    assert json.loads((episode / "scores.json").read_text())["episode scores"]["Success"] == 1


def test_declining_ends_the_visit_with_only_the_refusal_kept(visit, study):
    with Served(["study", "study.yaml", "--records", "rec"], study) as server, visit() as page:
        term = Terminal(page)
        term.open(server.url + "?participant=no-thanks", "Participation is voluntary")
        for key in ("Tab", "Tab", "Enter"):
            term.press(key)
        assert "Nothing was recorded but that you declined" in term.wait_for("did not agree")
    roster = json.loads(next((study / "rec" / ".studies").glob("Browser-pilot-*.json")).read_text())
    assert list(roster["declined"]) == ["no-thanks"] and roster["participants"] == {}
    assert [p.name for p in (study / "rec").iterdir()] == [".studies"]


def test_bad_links_get_a_page_saying_why_and_no_app(web, study):
    with Served(["study", "study.yaml", "--records", "rec", "--max-sessions", "1"], study, spares=0) as server:
        for query, words in (("", "names no participant"), ("?participant=../etc", "1 to 64 letters"),
                             ("?participant=a&participant=b", "give it once"),
                             ("?participant=a&PROLIFIC_PID=b", "differ"), ("?participant=" + "x" * 65, "1 to 64")):
            code, body = server.get(query)
            assert code == 400 and words in body and "<!DOCTYPE html>" in body, query
        assert server.get("?participant=first")[0] == 200        # a page holds no place: sessions do
        assert server.get("?participant=second")[0] == 200
        request = urllib.request.Request(server.url + "ws/not-a-ticket/10x10", headers={
            "Connection": "Upgrade", "Upgrade": "websocket", "Sec-WebSocket-Version": "13",
            "Sec-WebSocket-Key": "dGhlIHNhbXBsZSBub25jZQ=="})
        with pytest.raises(urllib.error.HTTPError) as refused:
            urllib.request.urlopen(request, timeout=10)
        assert refused.value.code == 403
    assert not (study / "rec").exists() or not any((study / "rec").glob("human-*"))


def test_an_idle_session_is_closed_and_a_reload_resumes(visit, study):
    with Served(["study", "study.yaml", "--records", "rec", "--idle-timeout", "8"], study) as server, \
            visit() as page:
        term = Terminal(page)
        term.open(server.url + "?participant=idler", "Participation is voluntary")
        term.press("Tab")
        term.press("Enter")
        term.wait_for("Press Enter when ready")
        page.wait_for_selector("body.-closed #ended", state="visible", timeout=60_000)
        assert "Reload the page" in page.inner_text("#ended")
        term.open(server.url + "?participant=idler", "Press Enter when ready")   # consent is not asked again


def test_play_serves_a_world_to_each_visitor(visit, tmp_path):
    with Served(["play", "tutorial", "--records", "rec", "--player", "oracle", "--paused"], tmp_path) as server, \
            visit() as page:
        term = Terminal(page)
        assert "oracle" in term.open(server.url, "post the letter")
        term.wait_for("par 4")   # the researcher's view of a model's run
        term.press("F6")   # one step of the paused player
        term.wait_for("Turn 1/30")


def test_a_phone_sees_turns_par_goals_and_score_and_taps_the_panels(visit, tmp_path):
    """At a phone's 390x844 the terminal fits the page, the figures line stands under the transcript in
    view, and words to tap stand in for the keys a phone lacks."""
    with Served(["play", "tutorial", "--records", "rec"], tmp_path) as server, \
            visit(viewport={"width": 390, "height": 844}) as page:
        term = Terminal(page)
        term.open(server.url, "post the letter")
        shown = term.wait_for("turn 0/30 · par 4 · goals 0/1 · score 0")
        assert "[ ] the letter is in the mailbox" in shown and "Help Panels Menu Quit" in shown
        assert "Inventory" not in shown   # no panel drawn beside the transcript, off the page
        screen = term.page.evaluate("document.querySelector('.xterm-screen').getBoundingClientRect().toJSON()")
        assert screen["x"] >= 0 and screen["right"] <= 390 and screen["bottom"] <= 844
        figures = next(row for row in term.rows() if "turn 0/30" in row["text"])
        assert figures["right"] <= 390 and figures["bottom"] <= 844   # in view, not below the fold
        term.tap("Panels")
        term.wait_for("Inventory")
        term.type("take letter")
        term.wait_for("turn 1/30")


def test_bad_serve_options_are_one_line(web, study):
    import socket

    taken = socket.create_server(("127.0.0.1", 0))
    busy = str(taken.getsockname()[1])
    for args, words in ((["study", "study.yaml", "--serve", "--port", busy], "cannot listen on 127.0.0.1:"),
                        (["study", "nope.yaml", "--serve"], "cannot read the study file"),
                        (["study", "study.yaml", "--serve", "--port", "70000"], "--port must be from 1 to 65535"),
                        (["study", "study.yaml", "--serve", "--max-sessions", "0"], "--max-sessions"),
                        (["study", "study.yaml", "--serve", "--participant", "p1"], "takes no --participant"),
                        (["study", "study.yaml"], "give --participant"),
                        (["play", "nowhere", "--serve"], "nowhere")):
        done = adventure(*args, cwd=study)
        assert done.returncode in (1, 2) and words in done.stderr, (args, done.stderr)
        assert "Traceback" not in done.stderr and len(done.stderr.strip().splitlines()) <= 2, done.stderr
    taken.close()
