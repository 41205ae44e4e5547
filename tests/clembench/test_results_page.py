"""adventure eval with and without people (issue 33): paired.csv on the instances both finished, every CSV
safe in a spreadsheet, and a results.html that a real browser shows whole at 1000 px."""

from __future__ import annotations

import csv
import io
import re
import shutil
from pathlib import Path

import pytest

from browser import browser_page
from conftest import WORLDS, adventure
from tui_adventure.evaluation.charts import nice_ticks, tick_label

# its module fixture is costly: one worker makes it once for every test here
pytestmark = pytest.mark.xdist_group("results_page")

CSVS = ("results.csv", "raw.csv", "comparison.csv", "pairs.csv", "paired.csv")
PAIRED_HEADER = ["model", "humans", "metric", "experiment", "n_instances", "model_mean", "human_mean", "difference",
                 "low", "high"]
SOLUTIONS = {name: (WORLDS / "solutions" / f"{name}.txt").read_text().strip().splitlines()
             for name in ("tutorial", "house")}


def run(records: Path, player: str, *worlds: str, name: str | None = None) -> None:
    extra = ("--name", name) if name else ()
    out = adventure("run", *worlds, "--player", player, "--records", str(records), *extra)
    assert out.returncode == 0, out.stderr


def participant(records: Path, study: Path, pid: str, text: str) -> None:
    from tui_adventure.repl.loop import run_study
    from tui_adventure.study import StudyRun, load_study

    run_study(StudyRun(load_study(study), pid, records), interactive=False, lines=io.StringIO(text),
              out=io.StringIO())


@pytest.fixture(scope="module")
def with_people(tmp_path_factory) -> Path:
    """alice wins both worlds, bob neither; the oracle and a random player play them too, and one more run
    ("lonely") only a clembench instance nobody else played."""
    base = tmp_path_factory.mktemp("people")
    study = base / "study.yaml"
    study.write_text("title: Two worlds\nworlds:\n  - tutorial\n  - house\norder: fixed\n")
    records = base / "records"
    solved = "\n" + "\n".join(SOLUTIONS["tutorial"] + ["done"]) + "\n\n" + "\n".join(SOLUTIONS["house"] + ["done"])
    participant(records, study, "alice", solved + "\n")
    participant(records, study, "bob", "\ntake letter\nnorth\ndone\n\nwest\ndone\n")
    run(records, "oracle", "tutorial", "house")
    run(records, "random:3", "tutorial", "house")
    run(records, "oracle", "clembench/home_deliver_three_basic_easy/0", name="lonely")
    assert adventure("score", str(records)).returncode == 0
    return records


@pytest.fixture(scope="module")
def models_only(tmp_path_factory) -> Path:
    records = tmp_path_factory.mktemp("models") / "records"
    run(records, "oracle", "tutorial", "house")
    run(records, "random:3", "house")
    assert adventure("score", str(records)).returncode == 0
    return records


def evaluated(tree: Path, tmp_path: Path) -> tuple[Path, str]:
    root = tmp_path / "records"
    shutil.copytree(tree, root)
    out = adventure("eval", str(root))
    assert out.returncode == 0 and "Traceback" not in out.stderr, out.stderr
    return root, out.stdout


def rows(path: Path) -> list[dict]:
    return list(csv.DictReader(path.open(encoding="utf-8")))


def test_eval_names_every_file_it_wrote(models_only, tmp_path):
    root, stdout = evaluated(models_only, tmp_path)
    for name in CSVS + ("results.html",):
        assert f"wrote {root / name}\n" in stdout and (root / name).is_file()
    assert next(csv.reader((root / "paired.csv").open())) == PAIRED_HEADER   # no people: the header alone
    assert len(rows(root / "paired.csv")) == 0


@pytest.mark.slow
def test_paired_csv_compares_on_the_instances_both_finished(with_people, tmp_path):
    root, _ = evaluated(with_people, tmp_path)
    assert next(csv.reader((root / "paired.csv").open())) == PAIRED_HEADER
    found = {(r["model"], r["humans"], r["metric"], r["experiment"]): r for r in rows(root / "paired.csv")}
    pooled = "humans (all participants)"
    oracle = found[("oracle", "human-alice", "Main Score", "all")]
    assert (oracle["n_instances"], oracle["model_mean"], oracle["human_mean"], oracle["difference"]) == \
        ("2", "100.0", "100.0", "0.0")
    assert (oracle["low"], oracle["high"]) == ("0.0", "0.0")
    against_all = found[("oracle", pooled, "Success", "all")]
    assert against_all["n_instances"] == "2" and float(against_all["human_mean"]) == 0.5   # alice won, bob not
    assert float(against_all["difference"]) == 0.5 and float(against_all["low"]) <= 0.5 <= float(against_all["high"])
    # per experiment: one instance gives a difference but no interval
    house = found[("oracle", pooled, "Main Score", "house/house")]
    assert house["n_instances"] == "1" and house["low"] == house["high"] == ""
    # moves over par exists only where both won: alice's games against the oracle's, both optimal
    over = found[("oracle", "human-alice", "moves_over_par", "all")]
    assert over["n_instances"] == "2" and float(over["difference"]) == float(over["model_mean"]) - float(
        over["human_mean"])
    assert found[("oracle", "human-bob", "moves_over_par", "all")]["n_instances"] == "0"
    # a run that shares no instance with the participants has n 0 and no numbers
    lonely = found[("lonely", pooled, "Main Score", "all")]
    assert lonely["n_instances"] == "0" and lonely["difference"] == ""
    assert not any(r[0] == "human-alice" for r in found)   # people are the human groups, never the "model"
    first = (root / "paired.csv").read_bytes()
    assert adventure("eval", str(root)).returncode == 0
    assert (root / "paired.csv").read_bytes() == first      # seeded: the same file byte for byte


def test_every_csv_keeps_a_formula_name_as_text(with_people, tmp_path):
    root = tmp_path / "records"
    shutil.copytree(with_people, root)
    (root / "oracle").rename(root / "=HYPERLINK(1)")
    for run_dir in root.iterdir():
        if (run_dir / "tutorial").is_dir():
            (run_dir / "tutorial").rename(run_dir / "=HYPERLINK(2)")   # a world (game) name
    assert adventure("eval", str(root)).returncode == 0
    for name in CSVS:
        cells = [c for row in csv.reader((root / name).open(encoding="utf-8")) for c in row]
        assert not [c for c in cells if c[:1] in ("=", "@", "+")], name
        assert any(c.startswith("'=HYPERLINK(") for c in cells), name
    assert "-, clemscore" in (root / "results.csv").read_text().splitlines()[0]   # clem eval's own column


def test_a_page_says_so_when_a_model_shares_no_instance_with_people(with_people, tmp_path):
    root, _ = evaluated(with_people, tmp_path)
    page = (root / "results.html").read_text()
    assert "<b>No comparison</b> for lonely (1 instance)" in page
    headline = page.split("<h2>", 2)[1]
    assert ">lonely<" not in headline                           # no row, no dot for it in the headline
    assert "Study</h2>" in page and "By position in the queue" in page and "Per participant" in page


def test_a_random_players_dash_is_explained_under_the_table(models_only, tmp_path):
    root, _ = evaluated(models_only, tmp_path)
    page = (root / "results.html").read_text()
    table = page.split("Results table (as clem eval)", 1)[1].split("<h2>", 1)[0]
    assert "\u2013 Quality Score where % Played is 0" in table and "turn limit" in table
    assert "No runs by people in this tree" in page and "Study</h2>" not in page


def test_axis_ticks_are_round_numbers():
    ticks = nice_ticks(-0.592593, 0.31)
    assert ticks == [-1.0, -0.5, 0.0, 0.5]
    assert [tick_label(t, ticks) for t in ticks] == ["\u22121.0", "\u22120.5", "0", "0.5"]
    ticks = nice_ticks(-0.59, 0.31, count=8)
    assert [tick_label(t, ticks) for t in ticks] == ["\u22120.6", "\u22120.4", "\u22120.2", "0", "0.2", "0.4"]
    assert [tick_label(t, nice_ticks(0, 100)) for t in nice_ticks(0, 100)] == ["0", "50", "100"]


@pytest.mark.slow
@pytest.mark.parametrize("tree", ["with_people", "models_only"])
def test_results_html_reads_whole_in_a_browser_at_1000_px(tree, request, tmp_path):
    root, _ = evaluated(request.getfixturevalue(tree), tmp_path)
    with browser_page(1000, 800) as page:
        page.goto((root / "results.html").as_uri())
        assert page.title().startswith("Results: ")
        assert page.evaluate("document.doctype && document.doctype.name") == "html"
        assert page.evaluate("document.characterSet") == "UTF-8"
        assert page.evaluate("document.documentElement.scrollWidth") <= 1000   # nothing runs off to the side
        boxes = page.evaluate("[...document.querySelectorAll('svg.chart')].map(s => {"
                              " const r = s.getBoundingClientRect(); return [s.getAttribute('aria-label'),"
                              " r.width, r.height, s.querySelectorAll('circle').length]; })")
        labels = [b[0] for b in boxes]
        assert all(w > 100 and h > 40 and dots > 0 for _, w, h, dots in boxes), boxes
        assert "moves over par (won episodes)" in labels
        if tree == "with_people":
            assert "model's Main Score against people's Main Score" in labels
            assert "difference in Main Score (model \u2212 people)" in labels
        text = page.inner_text("body")
        assert not re.search(r"\bnan\b", text, re.IGNORECASE)
        assert not re.search(r"\d\.\d{5,}", text)                            # no -0.592593


def test_a_page_counts_unfinished_human_sessions_that_are_not_compared(models_only, tmp_path):
    import asyncio

    from tui_adventure.evaluation.results import evaluate
    from tui_adventure.engine.loading.loader import load_world
    from tui_adventure.keyboard.session import Session

    root = tmp_path / "records"
    shutil.copytree(models_only, root)
    for new in (False, True):   # records/human and records/human-2, each left after one turn
        s = Session(load_world(WORLDS / "tutorial.yaml"), records=root, saves=tmp_path / "saves", resume=not new)
        asyncio.run(s.submit_line("take letter"))
        s.close()
    evaluate(root)
    page = (root / "results.html").read_text(encoding="utf-8")
    assert "No runs by people" not in page
    assert "2 unfinished human sessions are not compared" in page


@pytest.mark.slow
@pytest.mark.parametrize("tree", ["with_people", "models_only"])
def test_every_table_is_whole_at_1280_px(tree, request, tmp_path):
    root, _ = evaluated(request.getfixturevalue(tree), tmp_path)
    page_text = (root / "results.html").read_text(encoding="utf-8")
    assert re.search(r"\.scroll\{[^}]*overflow-x:auto", page_text)   # a wider one would scroll, never be cut
    with browser_page(1280, 800) as page:
        page.goto((root / "results.html").as_uri())
        widths = page.evaluate("[...document.querySelectorAll('div.scroll')].map(d =>"
                               " [d.firstChild.className, d.scrollWidth, d.clientWidth])")
    assert any(name == "comparison" for name, _, _ in widths)
    assert all(scroll <= client for _, scroll, client in widths), widths
