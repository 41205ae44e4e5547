"""Names that become paths never lead out of their folder (issue 21, paths).

Every entry point that turns an untrusted string into a folder name is tried
with `..`, absolute paths and slashes; each must refuse with a clear message
and write nothing outside the root it was given.
"""

import json
from pathlib import Path

import pytest
import yaml

from conftest import TEST_WORLDS, adventure



def files_under(root: Path) -> set[Path]:
    return {p for p in root.rglob("*") if p.is_file()}


@pytest.fixture
def sandbox(tmp_path):
    """A work folder inside a folder that must stay untouched (``victim``)."""
    victim = tmp_path / "victim"
    victim.mkdir()
    (victim / "scores.json").write_text("{}")
    (victim / "completed.json").write_text("{}")
    work = tmp_path / "a" / "b" / "work"
    work.mkdir(parents=True)
    return work, victim


HOSTILE = ["..", "../..", "../../victim", "/abs/path", "a/b", ".hidden", "x/../../y"]


@pytest.mark.parametrize("name", HOSTILE)
def test_a_world_game_name_that_leaves_the_records_is_refused_by_check(tmp_path, name):
    text = (TEST_WORLDS / "mini.yaml").read_text()
    world = tmp_path / "w.yaml"
    world.write_text(f"game: {json.dumps(name)}\n" + "\n".join(ln for ln in text.splitlines()
                                                              if not ln.startswith("game:")))
    out = adventure("check", str(world), cwd=tmp_path)
    assert out.returncode == 1
    assert f"{world}:1:7: game" in out.stdout and "file names" in out.stdout


def imported_world(tmp_path: Path, experiment: str) -> Path:
    out = adventure("import", "clembench", "--out", str(tmp_path / "imp"), cwd=tmp_path)
    assert out.returncode == 0, out.stderr
    source = next((tmp_path / "imp").rglob("instance_00000.yaml"))
    doc = yaml.safe_load(source.read_text())
    doc["clembench"]["experiment"] = experiment
    target = tmp_path / "hostile.yaml"
    target.write_text(yaml.safe_dump(doc, sort_keys=False))
    return target


@pytest.mark.slow
@pytest.mark.parametrize("experiment", ["../../victim", "/abs/victim"])
def test_an_imported_experiment_name_cannot_steer_a_run(sandbox, experiment):
    work, victim = sandbox
    before = files_under(victim)
    world = imported_world(work, experiment)
    check = adventure("check", str(world), cwd=work)
    assert check.returncode == 1 and "experiment" in check.stdout and "folder names" in check.stdout
    run = adventure("run", str(world), "--player", "oracle", "--records", "r", cwd=work)
    assert run.returncode == 1
    assert files_under(victim) == before
    assert not Path("/abs").exists()


@pytest.mark.parametrize("name", ["../../victim", "/abs", "x/y", ".."])
def test_a_run_name_that_leaves_the_records_is_refused(sandbox, name):
    work, victim = sandbox
    before = files_under(victim)
    out = adventure("repl", "tutorial", "--name", name, "--records", "r", cwd=work, stdin="look\n")
    assert out.returncode == 1 and "cannot be a folder name" in out.stderr
    assert files_under(victim) == before and not (work / "r").exists()


def test_an_instances_file_with_a_hostile_experiment_writes_nothing_outside(sandbox):
    work, victim = sandbox
    from tui_adventure.instances.packaged import INSTANCES

    data = json.loads(INSTANCES.read_text())
    data["experiments"] = data["experiments"][:1]
    data["experiments"][0]["name"] = "../../../victim"
    hostile = work / "instances.json"
    hostile.write_text(json.dumps(data))
    before = files_under(victim)
    out = adventure("import", "clembench", str(hostile), "--out", "out", cwd=work)
    assert out.returncode == 1 and "cannot be a folder name" in out.stderr
    assert "Traceback" not in out.stderr
    assert files_under(victim) == before


@pytest.mark.parametrize("content", ["[]", "{}", '{"experiments": [{"name": "x"}]}', "not json",
                                     '{"experiments": [{"name": "x", "game_instances": [{}]}]}'])
def test_a_broken_instances_file_is_a_message_not_a_traceback(tmp_path, content):
    bad = tmp_path / "instances.json"
    bad.write_text(content)
    out = adventure("import", "clembench", str(bad), "--out", "out", cwd=tmp_path)
    assert out.returncode == 1 and out.stderr.startswith("adventure import: ")
    assert "Traceback" not in out.stderr


def test_a_registry_model_name_that_leaves_the_records_is_refused(sandbox, monkeypatch):
    work, victim = sandbox
    (work / "model_registry.json").write_text(json.dumps([{"model_name": "../../victim", "model_id": "q",
                                                           "backend": "openai_compatible",
                                                           "base_url": "http://127.0.0.1:9/v1"}]))
    before = files_under(victim)
    out = adventure("run", "tutorial", "--player", "../../victim", "--records", "r", cwd=work)
    assert out.returncode != 0 and "Traceback" not in out.stderr
    assert files_under(victim) == before


def test_a_world_action_nested_too_deep_or_too_long_is_a_message(tmp_path):
    deep = "(" * 150 + "held(x)" + ")" * 150
    long = " and ".join(["held(x)"] * 1500)
    for cond in (deep, long):
        world = tmp_path / "w.yaml"
        world.write_text(f"start: hall\nrooms: {{hall: {{}}}}\nobjects: {{x: {{traits: takeable, at: hall}}}}\n"
                         f"actions:\n  - id: poke\n    syntax: ['poke {{obj}}']\n    params: {{obj: thing}}\n"
                         f"    checks:\n      - [\"{cond}\", \"No.\", nope]\n    effects: ['add poked(obj)']\n"
                         f"goal: [held(x)]\n")
        out = adventure("check", str(world), cwd=tmp_path)
        assert out.returncode == 1 and "Traceback" not in out.stderr
        assert "nested more than 100" in out.stdout or "more than 2,000" in out.stdout


def test_an_empty_syntax_pattern_is_a_message(tmp_path):
    world = tmp_path / "w.yaml"
    world.write_text("start: hall\nrooms: {hall: {}}\nobjects: {x: {traits: takeable, at: hall}}\n"
                     "actions:\n  - id: poke\n    syntax: ['']\n    effects: ['add poked(x)']\ngoal: [held(x)]\n")
    out = adventure("check", str(world), cwd=tmp_path)
    assert out.returncode == 1 and "none of them empty" in out.stdout and "Traceback" not in out.stderr
    for command in ("script", "solve"):
        assert "Traceback" not in adventure(command, str(world), cwd=tmp_path).stderr


@pytest.mark.parametrize("name", ["x y", "a/b", ".."])
def test_a_run_whose_name_cannot_be_a_folder_stops_before_its_first_episode(tmp_path, name):
    out = adventure("run", "tutorial", "house", "--player", "oracle", "--name", name, "--records", "r", cwd=tmp_path)
    assert out.returncode == 1 and out.stdout == ""
    assert out.stderr == (f"adventure run: the run name (--name, or the model's name) {name!r} cannot be a folder"
                          " name: use letters, digits and _ . - + : @, at most 128, not starting with . or -\n")
    assert not (tmp_path / "r").exists()
