"""The real clemcore 3.7.2 code accepts a clembench results tree.

Runs clemcore's own transcript builder and evaluator (tests/clemcore_check.py)
on a copy of tests/data/clembench/records-example.tar.gz, a tree written by the real
`clem run/score/transcribe/eval`. Needs the light install (bash .ci/clemcore.sh):
without it these tests FAIL, they never skip.
"""

import html
import json
import math
import shutil

import pytest

import clemcore_check
from clemcore_check import evaluate, require_clemcore, transcribe_all
from conftest import records_example

EXAMPLE = records_example()
MODELS = {"human", "local-scripted"}
GAME = "adventuregame"
COLUMNS = [
    "-, clemscore",
    f"{GAME}, % Played",
    f"{GAME}, Quality Score",
    "all, Average % Played",
    "all, Average Quality Score",
]
GENERATED = ("transcript.html", "transcript.tex", "raw.csv", "results.csv", "results.html")


@pytest.fixture
def tree(tmp_path):
    require_clemcore()
    assert EXAMPLE.is_dir(), f"missing reference tree {EXAMPLE}"
    root = tmp_path / "results"
    shutil.copytree(EXAMPLE, root)
    for name in GENERATED:
        for f in root.rglob(name):
            f.unlink()
    assert not any(root.rglob("transcript.*")) and not (root / "results.csv").exists()
    return root


def _episodes(root):
    return sorted(root.rglob("interactions.json"))


@pytest.mark.slow
def test_transcribe_all_writes_a_transcript_per_episode(tree):
    episodes = _episodes(tree)
    assert len(episodes) == 3
    written = transcribe_all(tree)
    assert sorted(written) == sorted(f.parent / "transcript.html" for f in episodes)
    for f in episodes:
        rec = json.loads(f.read_text())
        page = (f.parent / "transcript.html").read_text(encoding="utf8")
        meta = rec["meta"]
        assert f"episode {meta['game_id']} with {meta['results_folder']}" in page
        responses = [
            e["action"]["content"]
            for turn in rec["turns"]
            for e in turn
            if e["from"].startswith("Player") and isinstance(e["action"]["content"], str)
        ]
        assert responses, f"{f}: no player responses to look for"
        for text in responses:
            assert html.escape(text).replace("\n", "<br/>") in page, f"{f}: {text!r} not in transcript"
        tex = (f.parent / "transcript.tex").read_text(encoding="utf8")
        assert meta["experiment_name"].replace("_", r"\_") in tex


def test_transcripts_match_the_clem_cli_output(tree):
    """Our per-file calls produce byte-identical files to `clem transcribe`."""
    transcribe_all(tree)
    for f in _episodes(tree):
        rel = f.parent.relative_to(tree)
        for name in ("transcript.html", "transcript.tex"):
            assert (f.parent / name).read_bytes() == (EXAMPLE / rel / name).read_bytes(), rel / name


def _expected_from_scores(root):
    """% Played, Quality Score and clemscore per model, from the scores.json files."""
    out = {}
    for model in MODELS:
        eps = [json.loads(p.read_text())["episode scores"] for p in sorted((root / model).rglob("scores.json"))]
        assert eps, model
        played = 100 * sum(1 - e["Aborted"] for e in eps) / len(eps)
        mains = [e["Main Score"] for e in eps if not math.isnan(e["Main Score"])]
        quality = sum(mains) / len(mains)
        out[model] = {"played": played, "quality": quality, "clemscore": round(played / 100 * quality, 2)}
    return out


@pytest.mark.slow
def test_evaluate_results_table_agrees_with_scores(tree):
    import pandas as pd  # here, not at module level: without the light install the fixture fails first

    csv, df = evaluate(tree)
    assert csv == tree / "results.csv"
    assert (tree / "results.html").is_file() and (tree / "raw.csv").is_file()
    table = pd.read_csv(csv, index_col=0)
    for got in (df, table):
        # exact model names: a tree one level too shallow would show up as extra rows/games
        assert set(got.index) == MODELS
        assert list(got.columns) == COLUMNS
    expected = _expected_from_scores(tree)
    for model, exp in expected.items():
        row = table.loc[model]
        assert row[f"{GAME}, % Played"] == pytest.approx(exp["played"])
        assert row[f"{GAME}, Quality Score"] == pytest.approx(exp["quality"])
        assert row["all, Average % Played"] == pytest.approx(exp["played"])
        assert row["all, Average Quality Score"] == pytest.approx(exp["quality"])
        assert row["-, clemscore"] == pytest.approx(exp["clemscore"])
    # the reference tree: local-scripted won its one episode; human won one, aborted one
    assert expected["local-scripted"] == {"played": 100.0, "quality": 100.0, "clemscore": 100.0}
    assert expected["human"] == {"played": 50.0, "quality": 100.0, "clemscore": 50.0}
    # and clem eval's own results.csv in the reference tree says the same
    assert table.equals(pd.read_csv(EXAMPLE / "results.csv", index_col=0))


def test_damaged_interactions_make_transcribe_all_raise(tree):
    bad = tree / "human" / GAME / "home_deliver_three_basic_easy" / "instance_00001" / "interactions.json"
    rec = json.loads(bad.read_text())
    del rec["players"]
    bad.write_text(json.dumps(rec))
    with pytest.raises(RuntimeError) as err:
        transcribe_all(tree)
    assert str(bad) in str(err.value) and "players" in str(err.value)


def test_evaluate_refuses_a_played_key(tree):
    f = next(tree.rglob("scores.json"))
    s = json.loads(f.read_text())
    s["episode scores"]["Played"] = 1
    f.write_text(json.dumps(s))
    with pytest.raises(RuntimeError, match="PlayedScoreError"):
        evaluate(tree)


def test_require_clemcore_fails_not_skips_when_missing(monkeypatch):
    monkeypatch.setattr(clemcore_check, "_missing", lambda: ["clemcore is not installed"])
    with pytest.raises(pytest.fail.Exception) as err:
        require_clemcore()
    assert "bash .ci/clemcore.sh" in str(err.value)
