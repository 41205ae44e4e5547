"""``adventure eval ROOT``: the results table of ``clem eval`` (results.csv, results.html, raw.csv).

Like clem eval, models, games, experiments and episodes are read from the last
five parts of each scores.json path; only ``Aborted`` and ``Main Score`` feed
the table: % Played = 100 x mean(1 - Aborted), Quality Score = mean of the
Main Scores that are numbers, clemscore = % Played / 100 x Quality Score.
"""

from __future__ import annotations

import csv
import html
import io
import math
from pathlib import Path

from ..engine.metrics import ABORTED, MAIN_SCORE
from ..engine.snapshot import write_atomic
from .records import RecordsError, read_json


def collect(root: Path, problems: list[str] | None = None) -> list[tuple[str, str, str, str, dict]]:
    """Every readable scores.json under ``root``; a damaged one is named in ``problems`` and left out."""
    rows = []
    for path in sorted(root.rglob("scores.json")):
        parts = path.relative_to(root).parts
        if len(parts) < 5 or not path.is_file():
            continue
        model, game, experiment, episode = parts[-5], parts[-4], parts[-3], parts[-2]
        try:
            data = read_json(path)
            scores = data.get("episode scores", {})
            if not isinstance(scores, dict):
                raise ValueError("'episode scores' is not a mapping")
            for key in (ABORTED, MAIN_SCORE):
                if key in scores:
                    float(scores[key])
        except (OSError, ValueError, TypeError, AttributeError) as exc:
            if problems is not None:
                problems.append(f"{path}: left out, cannot read it ({exc}); run adventure score again")
            continue
        rows.append((model, game, experiment, episode, scores))
    return rows


def unscored(root: Path) -> dict[str, dict[str, int]]:
    """Per run: episodes that errored or were left unfinished, which clem eval never counts as played."""
    out: dict[str, dict[str, int]] = {}
    for path in sorted(root.rglob("instance.json")):
        parts = path.relative_to(root).parts
        if len(parts) < 5 or (path.parent / "completed.json").exists():
            continue
        kind = "errored" if (path.parent / "error.json").exists() else "incomplete"
        counts = out.setdefault(parts[-5], {"errored": 0, "incomplete": 0})
        counts[kind] += 1
    return out


def mixed(root: Path, problems: list[str] | None = None) -> dict[str, dict[str, int]]:
    """Per run: episodes played by more than one player (a person or the oracle took over from the
    run's model), by who played how many turns in all; they are scored, and must be read as such."""
    out: dict[str, dict[str, int]] = {}
    for path in sorted(root.rglob("interactions.json")):
        parts = path.relative_to(root).parts
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


def _cell(value):
    """A CSV cell a spreadsheet will not run as a formula (model names come from files nobody vetted)."""
    if isinstance(value, str) and value[:1] in ("=", "+", "-", "@", "\t", "\r"):
        return "'" + value
    return value


def _mean(values: list[float]) -> float:
    values = [v for v in values if not (isinstance(v, float) and math.isnan(v))]
    return sum(values) / len(values) if values else math.nan


def table(rows) -> tuple[list[str], dict[str, list[float]]]:
    games = sorted({r[1] for r in rows})
    models = sorted({r[0] for r in rows})
    header = ["-, clemscore"]
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


def evaluate(root: str | Path, notes: list[str] | None = None) -> Path:
    """results.csv, raw.csv and results.html under ``root``; ``notes`` gets what a reader must know
    (damaged scores left out; per run, errored and unfinished episodes, which are not played)."""
    root = Path(root)
    notes = notes if notes is not None else []
    rows = collect(root, notes)
    left_out = unscored(root)
    for model, counts in left_out.items():
        said = [f"{n} {kind}" for kind, n in counts.items() if n]
        notes.append(f"{model}: {' and '.join(said)} episode(s) not counted as played")
    for model, counts in mixed(root, notes).items():
        turns = ", ".join(f"{who} {n}" for who, n in counts.items() if who != "episodes")
        notes.append(f"{model}: {counts['episodes']} mixed episode(s), played by more than one player"
                     f" (turns: {turns}); their scores are not the model's alone")
    header, data = table(rows)
    buf = io.StringIO()
    w = csv.writer(buf)
    w.writerow([""] + header)
    for model, values in data.items():
        w.writerow([_cell(model)] + values)
    write_atomic(root / "results.csv", buf.getvalue().encode("utf-8", "backslashreplace"))
    raw = io.StringIO()
    w = csv.writer(raw)
    w.writerow(["", "game", "model", "experiment", "episode", "metric", "value"])
    i = 0
    for model, game, experiment, episode, scores in rows:
        for metric, value in scores.items():
            if isinstance(value, (int, float)) and not isinstance(value, bool) or value is None:
                w.writerow([i, _cell(game), _cell(model), _cell(experiment), _cell(episode), _cell(metric),
                            float("nan") if value is None else float(value)])
                i += 1
    write_atomic(root / "raw.csv", raw.getvalue().encode("utf-8", "backslashreplace"))
    cells = "".join(f"<th>{html.escape(h)}</th>" for h in header)
    body = "".join(f"<tr><th>{html.escape(m)}</th>" + "".join(f"<td>{v}</td>" for v in vals) + "</tr>"
                   for m, vals in data.items())
    versus = _humans_and_models(root, rows, notes)
    extra = "".join(f"<p>{html.escape(n)}</p>" for n in notes)
    write_atomic(root / "results.html", (
        f'<table border="1" class="dataframe"><thead><tr><th></th>{cells}</tr></thead><tbody>{body}</tbody></table>\n'
        + (f"{extra}\n" if extra else "") + versus).encode("utf-8", "backslashreplace"))
    return root / "results.csv"


def _humans_and_models(root: Path, rows, notes: list[str]) -> str:
    """comparison.csv and pairs.csv when people played (``human``, ``human-<ID>``); the HTML to add."""
    from . import comparison

    if not any(comparison.is_human(r[0]) for r in rows):
        return ""
    table = comparison.cells(rows)
    write_atomic(root / "comparison.csv", comparison.comparison_csv(table).encode("utf-8", "backslashreplace"))
    write_atomic(root / "pairs.csv", comparison.pairs_csv(comparison.pairs(rows)).encode("utf-8", "backslashreplace"))
    notes.append("comparison.csv: each run and all participants pooled, per experiment and overall (mean, 95%"
                 " bootstrap interval); pairs.csv: per instance, each run beside the participants' mean")
    return comparison.chart(table) + comparison.table_html(table) + "\n"
