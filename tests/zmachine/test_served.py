"""A story file in browsers: ``adventure study --serve`` of a queue holding one, Debian's headless
Chromium typing a command into the page (as tests/web's served tests)."""

from __future__ import annotations

import json
import shutil

import pytest
from browser import chromium
from stories import STORIES, new_story_game
from web.served import Served, Terminal, web_extra

pytestmark = pytest.mark.slow


@pytest.fixture
def folder(tmp_path):
    web_extra()
    new_story_game().close()   # Jericho there, or the test fails naming the set-up
    shutil.copy(STORIES / "lighthouse.z5", tmp_path / "lighthouse.z5")
    return tmp_path


def test_a_participant_plays_a_command_of_a_story_file_in_a_browser(folder):
    from playwright.sync_api import sync_playwright

    (folder / "study.yaml").write_text("title: Classic pilot\nworlds:\n  - lighthouse.z5\n")
    with Served(["study", "study.yaml", "--records", "rec"], folder) as server, sync_playwright() as p:
        browser = chromium(p)
        try:
            term = Terminal(browser.new_page(viewport={"width": 1100, "height": 700}))
            shown = term.open(server.url + "?participant=zed", "Press Enter when ready")
            assert "classic text adventure" in shown
            term.press("Enter")
            term.wait_for("sea chest")
            term.type("open chest")
            term.wait_for("revealing a brass key")
        finally:
            browser.close()
    episode = folder / "rec" / "human-zed" / "lighthouse" / "lighthouse.z5" / "instance_00000"
    turns = json.loads((episode / "interactions.json").read_text())["turns"]
    said = [e["action"]["content"] for t in turns for e in t if e["action"]["type"] == "get message"]
    assert said == ["open chest"]

