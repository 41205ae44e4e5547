"""`adventure import clembench`: one readable world file per instance that plays like upstream."""

import json

import pytest

from conftest import adventure

from clem_helpers import INSTANCES, instances

# its module fixture is costly: one worker makes it once for every test here
pytestmark = pytest.mark.xdist_group("clembench_import")


@pytest.fixture(scope="module")
def imported(tmp_path_factory):
    out = tmp_path_factory.mktemp("imported")
    run = adventure("import", "clembench", str(INSTANCES), "--out", str(out))
    assert run.returncode == 0, run.stderr
    return out



@pytest.mark.slow
def test_one_file_per_instance(imported):
    files = sorted(imported.glob("*/instance_*.yaml"))
    assert len(files) == len(instances()) == 128
    assert (imported / "home_deliver_three_basic_easy" / "instance_00000.yaml").exists()
    assert (imported / "home_deliver_three_planning_hard_invlimittwo" / "instance_00015.yaml").exists()


@pytest.mark.slow
def test_files_are_readable_and_keep_the_instance(imported):
    import yaml

    path = imported / "home_deliver_three_basic_easy" / "instance_00000.yaml"
    text = path.read_text()
    assert text.startswith("# clembench adventuregame v2.1: home_deliver_three_basic_easy, instance 0")
    assert "The player starts in the bedroom." in text
    doc = yaml.safe_load(text)
    original = instances()[("home_deliver_three_basic_easy", 0)]
    assert doc["clembench"]["instance"] == original
    assert doc["clembench"]["prompt"] == original["prompt"]
    assert doc["clembench"]["optimal_turns"] == original["optimal_turns"]
    assert doc["max_turns"] == original["max_turns"] and doc["goal"] == original["goal_state"]
    assert doc["ruleset"] == "adventuregame"
    limited = yaml.safe_load((imported / "home_deliver_three_basic_easy_invlimittwo" / "instance_00000.yaml").read_text())
    assert limited["ruleset"] == "adventuregame_invlimit"


@pytest.mark.slow
def test_every_imported_file_passes_check(imported):
    files = [str(f) for f in sorted(imported.glob("*/instance_*.yaml"))]
    run = adventure("check", *files)
    lines = run.stdout.splitlines()
    assert run.returncode == 0 and len(lines) == 128 and all(": ok (" in ln for ln in lines), lines


def test_solve_reports_upstream_and_exact_par(imported):
    path = imported / "home_deliver_three_basic_easy" / "instance_00000.yaml"
    data = json.loads(adventure("solve", str(path), "--json").stdout)
    assert data["upstream_optimal_turns"] == 10 and data["par"] == 8 and data["optimal"]
    text = adventure("solve", str(path)).stdout
    assert "par 8" in text and "upstream optimal_turns 10" in text


def test_script_speaks_upstream_ids_and_fail_types(imported):
    path = imported / "home_deliver_three_basic_easy" / "instance_00000.yaml"
    out = adventure("script", str(path), "--jsonl", stdin="take pillow\nlook\ngo hallway\n")
    lines = [json.loads(x) for x in out.stdout.splitlines()]
    assert lines[0]["goals"] == ["on(pillow1,table1)", "on(book1,table1)", "on(plate1,table1)"]
    assert lines[0]["observation"].startswith("You are in a bedroom now.")
    assert lines[2]["fail"] == {"phase": "parsing", "type": "undefined_action_verb"}
    assert lines[3]["observation"].startswith("You are in a hallway now.")


def test_header_of_an_instance_without_optimal_turns(tmp_path):
    """An instance may leave out optimal_turns: the header gives no count, never "None turns"."""
    from tui_adventure.instances.convert import import_instances

    one = dict(instances()[("home_deliver_three_basic_easy", 0)])
    del one["optimal_turns"]
    source = tmp_path / "in" / "instances.json"
    source.parent.mkdir()
    source.write_text(json.dumps({"experiments": [{"name": "home_deliver_three_basic_easy", "game_instances": [one]}]}))
    [path] = import_instances(source, tmp_path / "out")
    [line] = [ln for ln in path.read_text().splitlines() if ln.startswith("# The instance's optimal_commands")]
    assert line.startswith("# The instance's optimal_commands: take pillow; go hallway;"), line
