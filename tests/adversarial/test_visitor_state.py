"""A served visitor's state (issue 55, items 5 and 3): a visitor of ``--serve`` never touches the operator's
files (settings, history, saves elsewhere on the server), starts a game of their own, and a sitting whose
holder died is taken over."""

from __future__ import annotations

import pytest

import asyncio
import json
import resource
import subprocess
import sys
from pathlib import Path

from tui_adventure.app import AdventureApp
from tui_adventure.catalog import open_world
from tui_adventure.cli.main import main
from tui_adventure.config import load_config
from tui_adventure.engine.game import Game
from tui_adventure.engine.snapshot import save_game
from tui_adventure.keyboard.history import History, state_dir
from tui_adventure.keyboard.session import Session
from tui_adventure.study import StudyRun, load_study
from tui_adventure.study.queue import is_sitting

SETTINGS = "theme: textual-dark\nspeed: fast\n"


@pytest.mark.slow
async def test_a_served_visitors_theme_holds_for_their_session_only(tmp_path):
    path = tmp_path / "config.yaml"
    path.write_text(SETTINGS)
    session = Session(open_world("tutorial"), records=None, saves=tmp_path / "saves", history=History(None))
    app = AdventureApp(session, config=load_config(path), served=True)
    async with app.run_test(size=(100, 30)) as pilot:
        app.theme = "nord"
        await pilot.pause()
        assert app.theme == "nord"
        titles = [command.title for command in app.get_system_commands(app.screen)]
        assert "Theme" in titles and "Screenshot" not in titles   # a download the server does not serve
    assert path.read_text() == SETTINGS

    at_home = AdventureApp(session, config=load_config(path))   # the operator's own terminal: the choice sticks
    async with at_home.run_test(size=(100, 30)) as pilot:
        at_home.theme = "nord"
        await pilot.pause()
        assert "Screenshot" in [command.title for command in at_home.get_system_commands(at_home.screen)]
    assert "theme: nord" in path.read_text()


def test_restore_takes_only_a_save_name_and_says_the_same_whatever_is_on_disk(tmp_path):
    world = open_world("tutorial")
    elsewhere = tmp_path / "elsewhere"
    real = save_game(Game(world), "real", elsewhere)              # a save on the server, outside the session's folder
    missing = elsewhere / "missing.json"
    session = Session(world, records=None, saves=tmp_path / "mine", history=History(None))
    said = []
    for arg in (str(real), str(missing), "../elsewhere/real", "..", "/etc/passwd", "..\\real"):
        feedback = asyncio.run(session.submit_line(f"restore {arg}"))
        assert feedback.kind == "error" and "\n" not in feedback.text and "elsewhere" not in feedback.text
        said.append(feedback.text)
    assert len(set(said)) == 1 and "never a path" in said[0]
    assert session.episode.turns == []


def test_saves_are_bounded_in_number(tmp_path, monkeypatch):
    monkeypatch.setattr("tui_adventure.keyboard.meta_commands.MAX_SAVES", 3)
    session = Session(open_world("tutorial"), records=None, saves=tmp_path / "mine", history=History(None))
    said = [asyncio.run(session.submit_line(f"save s{n}")) for n in range(4)]
    assert [f.kind for f in said] == ["meta", "meta", "meta", "error"] and "\n" not in said[-1].text
    assert asyncio.run(session.submit_line("save s1")).kind == "meta"     # saving over one still works
    assert len(list((tmp_path / "mine").rglob("*.json"))) == 3


def test_each_visitor_of_play_serve_gets_a_new_game_and_leaves_no_file_of_theirs(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    visitors: list[Session] = []

    def visitor_plays(session, mode="text", paused=False, **how):
        visitors.append(session)
        for line in ("take letter", "save mine"):
            asyncio.run(session.submit_line(line))
        return 0

    # the visitor's process as --serve starts it, its browser's part played by visitor_plays
    monkeypatch.setattr("tui_adventure.front_ends._visitor", lambda: (None, {}))
    monkeypatch.setattr("tui_adventure.app.run_app", visitor_plays)
    monkeypatch.delenv("ADVENTURE_SERVER_PID", raising=False)
    limits = resource.getrlimit(resource.RLIMIT_AS), resource.getrlimit(resource.RLIMIT_CPU)
    for _ in range(2):
        assert main(["play", "--await-visitor", "--records", "R", "--", "tutorial"]) == 0
    # no server started this process: its limits stay (the test's own process would keep them for good)
    assert (resource.getrlimit(resource.RLIMIT_AS), resource.getrlimit(resource.RLIMIT_CPU)) == limits
    first, second = visitors
    assert not second.continued and [t.command for t in second.episode.turns] == ["take letter"]
    assert second.recorder.dir != first.recorder.dir
    assert len(first.recorder.turns) == 1                          # the first visitor's game, as they left it
    assert not (tmp_path / "saves").exists() and not Path(first.saves).exists()   # saves went with the session
    assert not (state_dir() / "history").exists()                  # nor into the operator's history


STUDY = "title: Locks\nworlds: [tutorial]\n"
HOLDER = ("import sys, time\nfrom tui_adventure.study import load_study\nfrom tui_adventure.study.queue import"
          " sitting\nheld = sitting(load_study(sys.argv[1]), sys.argv[2], '2')\nprint('held', flush=True)\ntime.sleep(600)\n")


def test_a_sitting_whose_holder_was_killed_is_taken_over(tmp_path):
    (tmp_path / "study.yaml").write_text(STUDY)
    study, records = load_study(tmp_path / "study.yaml"), tmp_path / "R"
    holder = subprocess.Popen([sys.executable, "-c", HOLDER, str(tmp_path / "study.yaml"), str(records)],
                              stdout=subprocess.PIPE, text=True)
    try:
        assert holder.stdout.readline().strip() == "held"
        assert "already playing" in (is_sitting(study, records, "2") or "")
    finally:
        holder.kill()                                               # a server's crash takes its visitor with it
        holder.wait()
        holder.stdout.close()
    assert is_sitting(study, records, "2") is None
    StudyRun(study, "2", records).hold().release()


@pytest.mark.slow
async def test_a_served_visitor_is_offered_no_model_of_the_operators_registry(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    (tmp_path / "model_registry.json").write_text(json.dumps([{
        "model_name": "operators-paid-model", "model_id": "q", "backend": "openai_compatible",
        "base_url": "http://127.0.0.1:9/v1"}]))
    session = Session(open_world("tutorial"), records=None, saves=tmp_path / "saves", history=History(None))
    served = AdventureApp(session, config=load_config(tmp_path / "config.yaml"), served=True)
    async with served.run_test(size=(100, 30)):
        titles = [command.title for command in served.get_system_commands(served.screen)]
        assert "Player: human" in titles and "Player: oracle" in titles
        assert "Player: operators-paid-model" not in titles
        served.switch_player(served.screen, "operators-paid-model")   # not offered, so not made either
        assert session.is_human

    at_home = AdventureApp(session, config=load_config(tmp_path / "config.yaml"))
    async with at_home.run_test(size=(100, 30)):
        titles = [command.title for command in at_home.get_system_commands(at_home.screen)]
        assert "Player: operators-paid-model" in titles
