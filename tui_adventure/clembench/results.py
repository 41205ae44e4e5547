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
import json
import math
from pathlib import Path

from ..engine.metrics import ABORTED, MAIN_SCORE


def collect(root: Path) -> list[tuple[str, str, str, str, dict]]:
    rows = []
    for path in sorted(root.rglob("scores.json")):
        parts = path.relative_to(root).parts
        if len(parts) < 5:
            continue
        model, game, experiment, episode = parts[-5], parts[-4], parts[-3], parts[-2]
        data = json.loads(path.read_text(encoding="utf-8"))
        rows.append((model, game, experiment, episode, data.get("episode scores", {})))
    return rows


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


def evaluate(root: str | Path) -> Path:
    root = Path(root)
    rows = collect(root)
    header, data = table(rows)
    buf = io.StringIO()
    w = csv.writer(buf)
    w.writerow([""] + header)
    for model, values in data.items():
        w.writerow([model] + values)
    (root / "results.csv").write_text(buf.getvalue(), encoding="utf-8")
    raw = io.StringIO()
    w = csv.writer(raw)
    w.writerow(["", "game", "model", "experiment", "episode", "metric", "value"])
    i = 0
    for model, game, experiment, episode, scores in rows:
        for metric, value in scores.items():
            if isinstance(value, (int, float)) and not isinstance(value, bool) or value is None:
                w.writerow([i, game, model, experiment, episode, metric, float("nan") if value is None else float(value)])
                i += 1
    (root / "raw.csv").write_text(raw.getvalue(), encoding="utf-8")
    cells = "".join(f"<th>{html.escape(h)}</th>" for h in header)
    body = "".join(f"<tr><th>{html.escape(m)}</th>" + "".join(f"<td>{v}</td>" for v in vals) + "</tr>"
                   for m, vals in data.items())
    (root / "results.html").write_text(
        f'<table border="1" class="dataframe"><thead><tr><th></th>{cells}</tr></thead><tbody>{body}</tbody></table>\n',
        encoding="utf-8")
    return root / "results.csv"
