"""adventure import labyrinth: a Labyrinth scene becomes a skeleton whose TODOs check points at."""

from __future__ import annotations

from pathlib import Path

from conftest import ROOT, adventure

SCENE = ROOT / "tests" / "data" / "labyrinth" / "bridge_scene.json"


def test_a_scene_becomes_a_skeleton_and_check_points_at_each_todo(tmp_path):
    out = tmp_path / "bridge.yaml"
    result = adventure("import", "labyrinth", str(SCENE), "--out", str(out))
    assert result.returncode == 0, result.stderr
    text = out.read_text()
    for expected in ("grizzle:", "persona:", "Cannot resist shiny things", "bridge_creaks:", "silver button",
                     "held: true", "# success condition: The players cross the bridge.",
                     "# failure condition: The bridge snaps", "another player (several players are not supported yet): Hoggle"):
        assert expected in text, expected
    check = adventure("check", str(out))
    assert check.returncode == 1
    lines = check.stdout + check.stderr
    goal_line = text.splitlines().index("  - TODO_success()") + 1
    assert f"bridge.yaml:{goal_line}:" in lines and "TODO_success" in lines


def test_once_the_todos_are_facts_the_world_checks_and_plays(tmp_path):
    out = tmp_path / "bridge.yaml"
    adventure("import", "labyrinth", str(SCENE), "--out", str(out))
    text = out.read_text().replace("TODO_success()", "held_by(silver_button, grizzle)")
    text = text.replace("TODO_failure()", "eaten(ball_of_string)")
    out.write_text(text)
    check = adventure("check", str(out))
    assert check.returncode == 0, check.stdout + check.stderr
    solve = adventure("solve", str(out))
    assert solve.returncode == 0 and "give silver button to grizzle" in solve.stdout


def test_a_file_that_is_no_scene_gets_one_line(tmp_path):
    bad = tmp_path / "x.json"
    bad.write_text('{"hello": 1}')
    result = adventure("import", "labyrinth", str(bad), "--out", str(tmp_path / "o.yaml"))
    assert result.returncode == 1 and "expected a Labyrinth scene" in result.stderr and "Traceback" not in result.stderr
    assert not Path(tmp_path / "o.yaml").exists()
