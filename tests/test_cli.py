"""The command-line contract (docs/cli.md): scripts and checks depend on these shapes."""

import json
import os
import shutil
import socket

import pytest

from conftest import ROOT, TEST_WORLDS, adventure

MINI = str(TEST_WORLDS / "mini.yaml")



def test_solve_json_shape():
    out = adventure("solve", MINI, "--json")
    assert out.returncode == 0, out.stderr
    data = json.loads(out.stdout)
    assert set(data) >= {"par", "commands", "optimal", "expanded", "seconds"}
    assert data["par"] == 9 == len(data["commands"]) and data["optimal"] is True


def test_script_jsonl_shape():
    out = adventure("script", MINI, "--jsonl", stdin="take book\nxyzzy\n")
    lines = [json.loads(x) for x in out.stdout.splitlines()]
    assert lines[0]["turn"] == 0 and lines[0]["goals"] == ["on(book,shelf)"] and lines[0]["goals_achieved"] == []
    assert "Hall" in lines[0]["observation"]
    assert lines[1] == {"turn": 1, "command": "take book", "observation": "You take the book.",
                        "goals_achieved": [], "goal_score": 0, "fail": None, "done": False}
    assert lines[2]["fail"] == {"phase": "parsing", "type": "unknown_verb"}


def test_script_goes_on_after_a_win_and_done(tmp_path):
    plan = json.loads(adventure("solve", MINI, "--json").stdout)["commands"]
    cmds = tmp_path / "cmds.txt"
    cmds.write_text("\n".join(plan + ["done", "take book", "look"]) + "\n")
    lines = [json.loads(x) for x in adventure("script", MINI, "--commands", str(cmds), "--jsonl").stdout.splitlines()]
    assert len(lines) == 1 + len(plan) + 3
    assert lines[len(plan)]["done"] is True and lines[len(plan)]["goal_score"] == 1
    assert lines[len(plan) + 1]["done"] is True  # done
    assert lines[len(plan) + 2]["goal_score"] == -1  # the book is taken off the shelf again


def test_check_ok_and_bad(tmp_path):
    assert adventure("check", MINI).returncode == 0
    bad = tmp_path / "bad.yaml"
    bad.write_text("start: nowhere\nrooms:\n  hall: {}\ngoal: [at(player, hall)]\n")
    out = adventure("check", str(bad))
    assert out.returncode == 1 and "Traceback" not in out.stderr
    assert out.stdout.startswith(f"{bad}:1:8: start 'nowhere' is not a room")


def test_run_of_a_folder_with_no_worlds_says_so(tmp_path):
    (tmp_path / "worlds").mkdir()
    (tmp_path / "worlds" / "notes.txt").write_text("not a world")
    out = adventure("run", "worlds", "--player", "oracle", "--records", "r", cwd=tmp_path)
    assert out.returncode == 2 and out.stdout == ""
    assert out.stderr == "adventure run: worlds: a folder with no world files (*.yaml) in it\n"
    assert not (tmp_path / "r").exists()


def _worlds_with_a_broken_one(tmp_path):
    (tmp_path / "worlds").mkdir()
    shutil.copy(MINI, tmp_path / "worlds" / "mini.yaml")
    shutil.copy(ROOT / "tests" / "broken" / "unclosed_quote.yaml", tmp_path / "worlds" / "unclosed_quote.yaml")


@pytest.mark.parametrize("procs", ["1", "2"])
def test_a_broken_world_in_a_batch_is_named_to_fix_not_to_run_again(tmp_path, procs):
    _worlds_with_a_broken_one(tmp_path)
    out = adventure("run", "worlds", "--player", "oracle", "--records", "r", "--procs", procs, cwd=tmp_path)
    assert out.returncode == 1 and "Traceback" not in out.stderr
    summary = out.stdout[out.stdout.index("played 1, "):]
    assert "errors 1 (" in summary and "run again to retry" not in summary, summary
    assert "1 world did not load" in summary and "fix it" in summary, summary
    assert "\n  worlds/unclosed_quote.yaml:6:18: YAML syntax error: this quote is never closed" in summary, summary
    assert (tmp_path / "r" / "oracle" / "mini" / "mini" / "instance_00000" / "completed.json").is_file()
    assert sorted(p.name for p in (tmp_path / "r" / "oracle").iterdir() if p.is_dir()) == ["mini"]


def test_a_run_refused_by_another_kind_of_run_in_its_folder_says_what_to_do_not_to_run_again(tmp_path, server):
    """Each refused episode was counted under "run again to retry them", though a rerun is refused alike."""
    server.responder = lambda request: "> done"
    model = f"openai_compatible:m@{server.url}"
    first = adventure("run", MINI, "tutorial", "--player", model, "--records", "r", cwd=tmp_path)
    assert first.returncode == 0 and "played 2," in first.stdout, first.stdout + first.stderr
    out = adventure("run", MINI, "tutorial", "--player", model, "--mode", "tool", "--name", "m", "--records", "r",
                    cwd=tmp_path)
    assert out.returncode == 1 and "Traceback" not in out.stderr
    summary = out.stdout[out.stdout.index("played 0, "):]
    assert "errors 2 (" in summary and "run again to retry" not in summary, summary
    assert "2 episodes refused, which running again cannot change" in summary, summary
    assert f"\n  r{os.sep}m holds a run with mode 'text'" in summary and summary.count("holds a run") == 1, summary
    assert summary.endswith(": give it another name (--name) or --records folder\n"), summary
    assert out.stdout.count("holds a run") == 2   # as it happened, and under the summary: once each


@pytest.mark.slow
def test_a_batch_tells_a_failed_episode_to_retry_apart_from_a_broken_world(tmp_path):
    _worlds_with_a_broken_one(tmp_path)
    with socket.socket() as s:   # a port nobody listens on: the model's server is down
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    out = adventure("run", "worlds", "--player", f"openai_compatible:m@http://127.0.0.1:{port}/v1",
                    "--records", "r", cwd=tmp_path)
    assert out.returncode == 1 and "Traceback" not in out.stderr
    summary = out.stdout[out.stdout.index("played 0, "):]
    assert "errors 2 (" in summary and "run again to retry 1 episode" in summary, summary
    assert "1 world did not load" in summary and "\n  worlds/unclosed_quote.yaml:6:18: " in summary, summary
    assert next((tmp_path / "r").rglob("error.json")).parent.name == "instance_00000"   # recorded as before


def test_play_without_a_terminal_refuses_at_once_and_names_repl_and_run(monkeypatch, capsys, tmp_path):
    import io

    from tui_adventure.cli.main import main

    monkeypatch.chdir(tmp_path)
    monkeypatch.setattr("sys.stdin", io.StringIO(""))   # as `adventure play house </dev/null`
    monkeypatch.setattr("tui_adventure.app.run_app", lambda *a, **k: 0)   # the app that would spin
    assert main(["play", "house"]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "needs a terminal" in err
    assert "adventure repl" in err and "adventure run" in err
    assert not (tmp_path / "records").exists()


def test_the_other_apps_refuse_without_a_terminal_and_name_what_works(monkeypatch, capsys, tmp_path):
    """replay, watch and a study in the app would draw to a pipe as play did: each says what to use instead."""
    import io

    from tui_adventure.cli.main import main

    monkeypatch.chdir(tmp_path)
    monkeypatch.setattr("sys.stdin", io.StringIO(""))
    monkeypatch.setattr("tui_adventure.app.run_watch_app", lambda *a, **k: 0)
    monkeypatch.setattr("tui_adventure.app.run_study_app", lambda *a, **k: 0)
    monkeypatch.setattr("tui_adventure.app.AdventureApp.run", lambda *a, **k: 0)
    assert main(["run", "tutorial", "--player", "oracle", "--records", "rec"]) == 0
    episode = next((tmp_path / "rec").rglob("interactions.json")).parent
    capsys.readouterr()
    study = tmp_path / "study.yaml"
    study.write_text("title: T\nworlds: [tutorial]\n")
    for argv, instead in ((["replay", str(episode)], "adventure export trajectories"),
                          (["watch", "rec"], "--serve"),
                          (["study", str(study), "--participant", "p1", "--records", "r"], "--repl")):
        assert main(argv) == 2, argv
        err = capsys.readouterr().err
        assert err.count("\n") == 1 and "needs a terminal" in err and instead in err, err


def test_adventure_serve_without_openenv_names_the_openenv_extra(monkeypatch, capsys):
    import sys

    from tui_adventure.cli.main import main

    monkeypatch.setitem(sys.modules, "tui_adventure.envs.serve", None)   # as without openenv-core
    assert main(["serve"]) == 2
    err = capsys.readouterr().err
    assert "pip install 'tui-adventure[openenv]'" in err and "[serve]" not in err
    assert "[web]" in err   # the other --serve, which it is easily taken for


def test_the_extras_are_named_for_what_needs_them():
    import tomllib

    extras = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]["optional-dependencies"]
    assert extras["openenv"] == extras["serve"] and any("openenv" in d for d in extras["openenv"])
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    assert "| `web` |" in readme and "| `openenv` | `adventure serve`" in readme
