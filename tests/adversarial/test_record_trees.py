"""Damaged, hostile and unfinished record trees: score and eval report, never crash, never miscount
(issues 19 and 21)."""

import csv
import json
import shutil
from pathlib import Path

import pytest

from conftest import adventure

EPISODE = Path("oracle") / "tutorial" / "tutorial" / "instance_00000"



@pytest.fixture(scope="module")
def good_tree(tmp_path_factory) -> Path:
    root = tmp_path_factory.mktemp("tree") / "records"
    out = adventure("run", "tutorial", "house", "--player", "oracle", "--records", str(root))
    assert out.returncode == 0, out.stderr
    return root


def copy(tree: Path, tmp_path: Path) -> Path:
    target = tmp_path / "records"
    shutil.copytree(tree, target)
    return target


DAMAGE = {
    "interactions not json": ("interactions.json", "{not json"),
    "interactions a list": ("interactions.json", "[1, 2]"),
    "turns not a list": ("interactions.json", '{"turns": 3}'),
    "turn entries not mappings": ("interactions.json", '{"turns": [[1, 2]]}'),
    "players not a mapping": ("interactions.json", '{"players": 3, "turns": [[{"from": "GM"}]]}'),
    "instance not json": ("instance.json", "\x00\x01"),
    "instance a list": ("instance.json", "[]"),
    "interactions empty": ("interactions.json", ""),
    "interactions binary": ("interactions.json", "\udcff"),
}


@pytest.mark.parametrize("case", sorted(DAMAGE))
def test_score_reports_a_damaged_episode_and_scores_the_others(good_tree, tmp_path, case):
    root = copy(good_tree, tmp_path)
    name, content = DAMAGE[case]
    (root / EPISODE / name).write_bytes(content.encode("utf-8", "surrogateescape"))
    out = adventure("score", str(root))
    assert "Traceback" not in out.stderr
    house = root / "oracle" / "house" / "house" / "instance_00000" / "scores.json"
    assert house.is_file(), out.stdout + out.stderr          # one bad file does not stop the rest
    if out.returncode:
        assert str(root / EPISODE) in out.stderr and "not scored" in out.stderr
        assert "RecordsError" not in out.stderr   # the reader's words, not its class's name


@pytest.mark.parametrize("content", ["{not json", "[]", '{"episode scores": 3}',
                                     '{"episode scores": {"Aborted": "x", "Main Score": 1}}', "",
                                     # a figure that would carry the run's Quality Score and clemscore with it
                                     '{"episode scores": {"Aborted": 0, "Main Score": Infinity}}',
                                     '{"episode scores": {"Aborted": 0, "Main Score": 1e308}}',
                                     '{"episode scores": {"Aborted": -1e308, "Main Score": 50}}'])
def test_eval_leaves_out_a_damaged_scores_file_and_says_so(good_tree, tmp_path, content):
    root = copy(good_tree, tmp_path)
    assert adventure("score", str(root)).returncode == 0
    (root / EPISODE / "scores.json").write_text(content)
    out = adventure("eval", str(root))
    assert out.returncode == 0 and "Traceback" not in out.stderr
    assert f"{root / EPISODE / 'scores.json'}: left out" in out.stdout
    assert (root / "results.csv").is_file()
    assert not {"inf", "-inf", "nan"} & set((root / "results.csv").read_text().replace("\n", ",").split(","))


def test_errored_and_unfinished_episodes_are_not_played(good_tree, tmp_path):
    root = copy(good_tree, tmp_path)
    errored = root / EPISODE
    (errored / "completed.json").unlink()
    (errored / "error.json").write_text('{"error": "ConnectionError"}')
    unfinished = root / "oracle" / "house" / "house" / "instance_00000"
    (unfinished / "completed.json").unlink()
    out = adventure("score", str(root))
    assert "wrote 0 scores.json" in out.stdout and "1 errored" in out.stdout and "1 incomplete" in out.stdout
    assert not (errored / "scores.json").exists() and not (unfinished / "scores.json").exists()
    ev = adventure("eval", str(root))
    assert "oracle: 1 errored and 1 incomplete episodes not counted as played" in ev.stdout
    assert "oracle" not in (root / "results.csv").read_text()   # nothing played: no row, as clem eval


def test_results_csv_cells_never_run_as_spreadsheet_formulas(good_tree, tmp_path):
    root = copy(good_tree, tmp_path)
    (root / "oracle").rename(root / "=HYPERLINK(1)")
    assert adventure("score", str(root)).returncode == 0
    assert adventure("eval", str(root)).returncode == 0
    for name in ("results.csv", "raw.csv"):
        cells = [c for row in csv.reader((root / name).open()) for c in row]
        assert "'=HYPERLINK(1)" in cells and "=HYPERLINK(1)" not in cells


def test_results_html_escapes_and_still_reads(good_tree, tmp_path):
    root = copy(good_tree, tmp_path)
    (root / "oracle").rename(root / "<script>x")
    adventure("score", str(root))
    adventure("eval", str(root))
    page = (root / "results.html").read_text()
    assert "<script>" not in page and "&lt;script&gt;x" in page
    assert json.loads((root / "<script>x" / EPISODE.relative_to("oracle") / "scores.json").read_text())


@pytest.mark.parametrize("case", ["interactions not json", "interactions a list", "interactions empty"])
def test_replay_of_a_damaged_episode_is_a_message(good_tree, tmp_path, case):
    root = copy(good_tree, tmp_path)
    name, content = DAMAGE[case]
    (root / EPISODE / name).write_text(content)
    out = adventure("replay", str(root / EPISODE), timeout=60)
    assert out.returncode == 1 and out.stderr.startswith("adventure replay: ") and "Traceback" not in out.stderr


def test_a_replayed_model_name_that_leaves_the_records_is_refused(good_tree, tmp_path):
    root = copy(good_tree, tmp_path)
    interactions = root / EPISODE / "interactions.json"
    data = json.loads(interactions.read_text())
    data["players"]["Player 1"]["model_name"] = "/../../victim"
    interactions.write_text(json.dumps(data))
    out = adventure("run", "tutorial", "--player", f"replay:{root / EPISODE}", "--records", str(tmp_path / "r2"))
    assert out.returncode == 1 and "cannot be a folder name" in out.stdout + out.stderr
    assert not (tmp_path / "victim").exists() and "Traceback" not in out.stderr


# -- round 2 (issue 35): score, eval and export read every record through one reader -------------------
DEEP = "[" * 100_000 + "]" * 100_000   # RecursionError in Python's own parser
SHALLOWER = "[" * 900 + "]" * 900       # parses, then breaks whatever walks it


@pytest.mark.parametrize("name", ["interactions.json", "instance.json", "player_1.requests.json"])
@pytest.mark.parametrize("nesting", [DEEP, SHALLOWER], ids=["deep", "shallower"])
def test_deep_nesting_in_a_record_is_one_bad_episode(good_tree, tmp_path, name, nesting):
    root = copy(good_tree, tmp_path)
    (root / EPISODE / name).write_text(nesting)
    house = root / "oracle" / "house" / "house" / "instance_00000"
    score = adventure("score", str(root))
    assert "Traceback" not in score.stderr and (house / "scores.json").is_file()
    if name == "interactions.json":
        assert "nested more than 64 levels deep" in score.stderr and "not scored" in score.stderr
    ev = adventure("eval", str(root))
    assert ev.returncode == 0 and "Traceback" not in ev.stderr and (root / "results.csv").is_file()
    export = adventure("export", "trajectories", str(root), "--out", str(tmp_path / "t.jsonl"))
    assert export.returncode == 0 and "Traceback" not in export.stderr
    lines = (tmp_path / "t.jsonl").read_text().splitlines()
    assert any(json.loads(line)["game"] == "house" for line in lines)   # the rest are still exported
    if name != "instance.json":   # an episode's instance.json is optional to both
        assert len(lines) == 1 and "1 unreadable left out" in export.stderr


@pytest.mark.parametrize("meta", ["[1, 2]", '"mixed"', "3", "null"])
def test_eval_reads_a_meta_that_is_not_a_mapping(good_tree, tmp_path, meta):
    root = copy(good_tree, tmp_path)
    assert adventure("score", str(root)).returncode == 0
    interactions = root / EPISODE / "interactions.json"
    data = json.loads(interactions.read_text())
    data["meta"] = json.loads(meta)
    interactions.write_text(json.dumps(data))
    ev = adventure("eval", str(root))
    assert ev.returncode == 0 and "Traceback" not in ev.stderr
    assert "oracle" in (root / "results.csv").read_text()


@pytest.mark.parametrize("kind", ["fifo", "dev-zero"])
def test_eval_refuses_a_fifo_or_an_endless_file_as_score_and_export_do(good_tree, tmp_path, kind):
    import os

    root = copy(good_tree, tmp_path)
    interactions = root / EPISODE / "interactions.json"
    interactions.unlink()
    if kind == "fifo":
        os.mkfifo(interactions)
    else:
        interactions.symlink_to("/dev/zero")
    for command in (["score"], ["eval"], ["export", "trajectories"]):
        out = adventure(*command, str(root), timeout=30)   # a hang fails here as a timeout
        assert "Traceback" not in out.stderr, (command, out.stderr)
    ev = adventure("eval", str(root), timeout=30)
    assert f"{interactions} is not a regular file" in ev.stdout


@pytest.mark.parametrize("command", ["score", "eval"])
@pytest.mark.parametrize("where, said", [("nowhere", "does not exist"), ("a-file", "is not a folder")])
def test_a_root_that_is_not_a_folder_is_one_line_and_nothing_is_made(tmp_path, command, where, said):
    (tmp_path / "a-file").write_text("x")
    out = adventure(command, where, cwd=tmp_path)
    assert out.returncode == 1 and out.stdout == ""
    assert out.stderr == f"adventure {command}: {where} {said}: give a records folder (a run's --records, default records)\n"
    assert sorted(p.name for p in tmp_path.iterdir() if p.name != "home") == ["a-file"]


def test_eval_before_score_says_which_episodes_wait_for_a_score(good_tree, tmp_path):
    root = copy(good_tree, tmp_path)
    out = adventure("eval", str(root))
    assert out.returncode == 0 and "Traceback" not in out.stderr
    assert f"oracle: 2 finished episodes without scores.json left out; run adventure score {root} first" in out.stdout
    assert adventure("score", str(root)).returncode == 0
    assert "without scores.json" not in adventure("eval", str(root)).stdout


def test_a_finished_episode_without_its_interactions_is_named_by_score(good_tree, tmp_path):
    root = copy(good_tree, tmp_path)
    (root / EPISODE / "interactions.json").unlink()
    out = adventure("score", str(root))
    assert out.returncode == 1 and "1 unreadable" in out.stdout
    assert f"{root / EPISODE}: not scored, its interactions.json is missing or not a file" in out.stderr


# -- eval pointed inside the layout: a run's folder, a game, an experiment, one episode -----------------
def _raw_rows(path: Path) -> list[list[str]]:
    return [row[1:] for row in list(csv.reader(path.open()))[1:]]   # without the running index


@pytest.mark.parametrize("below", ["oracle", "oracle/house", "oracle/house/house", "oracle/house/house/instance_00000"])
def test_eval_of_one_run_or_deeper_counts_its_episodes_as_eval_of_the_root_does(good_tree, tmp_path, below):
    root = copy(good_tree, tmp_path)
    assert adventure("score", str(root)).returncode == 0
    assert adventure("eval", str(root)).returncode == 0
    folder = root / below
    out = adventure("eval", str(folder))
    assert out.returncode == 0 and "Traceback" not in out.stderr
    names = Path(below).parts[1:]   # game, experiment, episode below the run
    expected = [row for row in _raw_rows(root / "raw.csv")   # game, model, experiment, episode, metric, value
                if row[1] == "oracle" and (row[0], row[2], row[3])[:len(names)] == names]
    assert expected and _raw_rows(folder / "raw.csv") == expected, out.stdout
    if below == "oracle":   # the one run of the tree: the same table as at the root
        assert (folder / "results.csv").read_text() == (root / "results.csv").read_text()


def test_eval_of_a_run_before_score_names_the_run_and_what_to_do(good_tree, tmp_path):
    root = copy(good_tree, tmp_path)
    out = adventure("eval", str(root / "oracle"))
    assert out.returncode == 0 and "Traceback" not in out.stderr
    assert (f"oracle: 2 finished episodes without scores.json left out; run adventure score {root / 'oracle'} first"
            in out.stdout)


@pytest.mark.parametrize("where", ["an empty folder", "the worlds folder"])
def test_eval_of_a_folder_without_episodes_says_what_root_should_be_and_writes_nothing(tmp_path, where):
    """eval wrote empty tables there and said nothing, as if the run had scored nothing."""
    folder = tmp_path / "here"
    if where == "an empty folder":
        folder.mkdir()
    else:
        shutil.copytree(Path(__file__).resolve().parents[2] / "worlds", folder)
    before = sorted(folder.rglob("*"))
    out = adventure("eval", str(folder))
    assert out.returncode == 1 and out.stdout == ""
    assert out.stderr == (f"adventure eval: no episodes under {folder}: give a records root (records, a run's"
                          " --records) or one run's folder in it (records/oracle)\n")
    assert sorted(folder.rglob("*")) == before


def test_an_infinite_figure_in_a_study_episode_reaches_no_table(tmp_path, monkeypatch, capsys):
    import asyncio

    from tui_adventure.cli.main import main
    from tui_adventure.study import StudyRun, load_study

    records = tmp_path / "R"
    (tmp_path / "study.yaml").write_text("title: Pilot\nworlds: [tutorial]\n")
    run = StudyRun(load_study(tmp_path / "study.yaml"), "2", records).hold()
    session = run.session(run.next_stage())
    for line in ("take letter", "north", "done"):
        asyncio.run(session.submit_line(line))
    session.close()
    run.release()
    assert main(["score", str(records)]) == 0
    interactions = next(records.rglob("interactions.json"))
    data = json.loads(interactions.read_text())
    data["meta"]["seconds"] = 1e999                        # json.dumps writes Infinity
    interactions.write_text(json.dumps(data))
    assert main(["eval", str(records)]) == 0
    capsys.readouterr()
    page = (records / "results.html").read_text()
    assert "Pilot" in page, "no Pilot"
    assert "inf" not in page.replace("info", ""), page[page.replace("info", "").find("inf") - 80:][:120]
