"""``adventure eval ROOT``: the results table of ``clem eval`` (results.csv, raw.csv), the comparison of
models with people (comparison.csv, pairs.csv, paired.csv) and results.html, which shows them all.

Like clem eval, models, games, experiments and episodes are read from the last
five parts of each scores.json path (ROOT may be one run's folder or any folder below it: the parts
above ROOT count, see ``records.layout_parts``); only ``Aborted`` and ``Main Score`` feed
the table: % Played = 100 x mean(1 - Aborted), Quality Score = mean of the
Main Scores that are numbers, clemscore = % Played / 100 x Quality Score.
"""

from __future__ import annotations

import html
import math
import os
from pathlib import Path

from ..engine.metrics import ABORTED, MAIN_SCORE
from ..engine.snapshot import OutputRefused, check_output, write_atomic
from ..engine.text import plural
from .csv_out import Ours, write_csv
from ..records.files import RecordsError, layout_parts, read_json


EPISODE_FILES = ("instance.json", "interactions.json", "scores.json")   # any one marks an episode's folder


class NoEpisodes(ValueError):
    """ROOT holds no episode of the records layout: eval would write empty tables as if nothing had been
    scored yet, though the likely mistake is the folder itself (an empty one, worlds/, a typo)."""


def has_episodes(root: Path) -> bool:
    """Whether any episode's folder (ROOT/<run>/<game>/<experiment>/<episode>/, counting the names above a
    run's folder given as ROOT) lies under ``root``; a walk that stops at the first one."""
    above = len(layout_parts(root))
    for folder, _subfolders, files in os.walk(root):
        if above + len(Path(folder).relative_to(root).parts) >= 4 and not set(files).isdisjoint(EPISODE_FILES):
            return True
    return False


def collect(root: Path, problems: list[str] | None = None) -> list[tuple[str, str, str, str, dict]]:
    """Every readable scores.json under ``root``; a damaged one is named in ``problems`` and left out."""
    rows = []
    above = layout_parts(root)   # eval given a run's folder, or deeper: the names above it
    for path in sorted(root.rglob("scores.json")):
        parts = above + path.relative_to(root).parts
        if len(parts) < 5 or not path.is_file():
            continue
        model, game, experiment, episode = parts[-5], parts[-4], parts[-3], parts[-2]
        try:
            data = read_json(path)
            scores = data.get("episode scores", {})
            if not isinstance(scores, dict):
                raise ValueError("'episode scores' is not a mapping")
            check_scores(scores)
        except (OSError, ValueError, TypeError, AttributeError) as exc:
            if problems is not None:
                problems.append(f"{path}: left out, cannot read it ({exc}); run adventure score again")
            continue
        rows.append((model, game, experiment, episode, scores))
    return rows


def check_scores(scores: dict) -> None:
    """ValueError unless the figures eval averages are what clembench writes: Aborted 0 or 1, and a Main Score
    from 0 to 100 (NaN: an aborted episode's). An infinite or out-of-range figure would carry the whole run's
    Quality Score and clemscore with it, so its episode is left out and named instead."""
    if ABORTED in scores and float(scores[ABORTED]) not in (0.0, 1.0):
        raise ValueError(f"{ABORTED} is {scores[ABORTED]!r}, not 0 or 1")
    if MAIN_SCORE in scores:
        main = float(scores[MAIN_SCORE])
        if not (math.isnan(main) or 0.0 <= main <= 100.0):
            raise ValueError(f"{MAIN_SCORE} is {main!r}, not from 0 to 100")


def unscored(root: Path) -> dict[str, dict[str, int]]:
    """Per run: episodes that errored or were left unfinished, which clem eval never counts as played, and
    finished ones not scored yet (eval before score: the table would be empty with nothing said)."""
    out: dict[str, dict[str, int]] = {}
    above = layout_parts(root)
    for path in sorted(root.rglob("instance.json")):
        parts = above + path.relative_to(root).parts
        if len(parts) < 5:
            continue
        if (path.parent / "completed.json").exists():
            kind = "unscored" if not (path.parent / "scores.json").exists() else None
        else:
            kind = "errored" if (path.parent / "error.json").exists() else "incomplete"
        if kind is None:
            continue
        counts = out.setdefault(parts[-5], {"errored": 0, "incomplete": 0, "unscored": 0})
        counts[kind] += 1
    return out


def mixed(root: Path, problems: list[str] | None = None) -> dict[str, dict[str, int]]:
    """Per run: episodes played by more than one player (a person or the oracle took over from the
    run's model), by who played how many turns in all; they are scored, and must be read as such."""
    out: dict[str, dict[str, int]] = {}
    above = layout_parts(root)
    for path in sorted(root.rglob("interactions.json")):
        parts = above + path.relative_to(root).parts
        if len(parts) < 5:
            continue
        try:   # eval reads as score and export do: a FIFO, /dev/zero or deep nesting is a damaged episode
            data = read_json(path)
        except RecordsError as exc:
            if problems is not None:
                problems.append(f"{exc}; whether its episode was mixed is unknown")
            continue
        meta = data.get("meta") if isinstance(data, dict) else None
        if isinstance(meta, dict) and meta.get("mixed") is True and isinstance(meta.get("played_by"), dict):
            run = out.setdefault(parts[-5], {"episodes": 0})
            run["episodes"] += 1
            for who, n in meta["played_by"].items():
                if isinstance(n, int):
                    run[str(who)] = run.get(str(who), 0) + n
    return out


def _mean(values: list[float]) -> float:
    values = [v for v in values if not (isinstance(v, float) and math.isnan(v))]
    return sum(values) / len(values) if values else math.nan


def table(rows) -> tuple[list[str], dict[str, list[float]]]:
    games = sorted({r[1] for r in rows})
    models = sorted({r[0] for r in rows})
    header: list[str] = [Ours("-, clemscore")]   # clem eval's own column name
    for g in games:
        header += [f"{g}, % Played", f"{g}, Quality Score"]
    header += ["all, Average % Played", "all, Average Quality Score"]
    out: dict[str, list[float]] = {}
    for m in models:
        played, quality, clem = [], [], []
        cells = []
        for g in games:
            eps = [r[4] for r in rows if r[0] == m and r[1] == g]
            p = 100.0 * _mean([1 - float(e.get(ABORTED, 0)) for e in eps]) if eps else math.nan
            q = _mean([float(e.get(MAIN_SCORE, math.nan)) for e in eps]) if eps else math.nan
            cells += [p, q]
            played.append(p)
            quality.append(q)
            clem.append(p / 100 * (q if not math.isnan(q) else 0.0))
        out[m] = [round(_mean(clem), 2)] + [round(c, 2) for c in cells] + [round(_mean(played), 2), round(_mean(quality), 2)]
    return header, out


FILES = {
    "results.csv": "the clem eval table: % Played, Quality Score and clemscore per run and game",
    "raw.csv": "every number of every scores.json, one a line (as clem eval writes it)",
    "comparison.csv": "each run, and all participants pooled, on its own instances: mean, 95% bootstrap interval, n",
    "pairs.csv": "per instance, each run's scores beside the participants' mean on it",
    "paired.csv": "each model against each participant and all pooled, on the instances both finished",
    "results.html": "this page",
}


def evaluate(root: str | Path, notes: list[str] | None = None) -> list[Path]:
    """Every file of ``adventure eval`` under ``root`` (``FILES``), the paths written; ``notes`` gets what a
    reader must know (damaged scores left out; per run, errored and unfinished episodes, which are not played).
    ``NoEpisodes``, with nothing written, when ``root`` holds no episode at all."""
    from . import comparison, paired, report

    root = Path(root)
    if not has_episodes(root):
        raise NoEpisodes(f"no episodes under {root}: give a records root (records, a run's --records)"
                         " or one run's folder in it (records/oracle)")
    for name in FILES:   # a pipe, a device or a symlink in the way: refused before any is written
        try:
            check_output(root / name)
        except OutputRefused as exc:
            raise OutputRefused(exc.filename, exc.what, "remove it: eval writes its tables there") from None
    notes = notes if notes is not None else []
    rows = collect(root, notes)
    left_out = unscored(root)
    unfinished_people = sum(counts["incomplete"] for run, counts in left_out.items() if comparison.is_human(run))
    for model, counts in left_out.items():
        waiting = counts.pop("unscored", 0)
        said = [f"{n} {kind}" for kind, n in counts.items() if n]
        word = "episode" if sum(counts.values()) == 1 else "episodes"
        if said:
            notes.append(f"{model}: {' and '.join(said)} {word} not counted as played")
        if waiting:
            notes.append(f"{model}: {plural(waiting, 'finished episode')} without scores.json left out;"
                         f" run adventure score {root} first")
    for model, counts in mixed(root, notes).items():
        turns = ", ".join(f"{who} {n}" for who, n in counts.items() if who != "episodes")
        notes.append(f"{model}: {plural(counts['episodes'], 'mixed episode')}, played by more than one player"
                     f" (turns: {turns}); their scores are not the model's alone")
    header, data = table(rows)
    written = [write_csv(root / "results.csv", [""] + header, ([m] + v for m, v in data.items()))]
    raw: list[list] = []
    for model, game, experiment, episode, scores in rows:
        for metric, value in scores.items():
            if isinstance(value, (int, float)) and not isinstance(value, bool) or value is None:
                raw.append([len(raw), game, model, experiment, episode, metric,
                            float("nan") if value is None else float(value)])
    written.append(write_csv(root / "raw.csv", ["", "game", "model", "experiment", "episode", "metric", "value"], raw))
    cells = comparison.cells(rows)
    found = paired.paired(rows)
    written.append(write_csv(root / "comparison.csv", comparison.COMPARISON_HEADER, comparison.comparison_rows(cells)))
    written.append(write_csv(root / "pairs.csv", comparison.PAIRS_HEADER,
                             comparison.pairs_rows(comparison.pairs(rows))))
    written.append(write_csv(root / "paired.csv", paired.HEADER, (p.row() for p in found)))
    written.append(root / "results.html")
    sections = [f"<h1>Results: {html.escape(root.resolve().name)}</h1><p>{len(rows)} scored episodes in"
                f" {len({r[0] for r in rows})} runs, {sum(comparison.is_human(r[0]) for r in rows)} of them by people."
                " Written by <code>adventure eval</code>.</p>",
                report.headline(rows, found, unfinished_people), report.over_par(rows), report.clem_table(header, data),
                report.unpaired(rows, cells), report.study(root),
                report.files_and_notes([(p.name, FILES[p.name]) for p in written], notes)]
    write_atomic(root / "results.html", report.page(f"Results: {root.resolve().name}", sections)
                 .encode("utf-8", "backslashreplace"))
    return written
