"""Humans against models: what ``adventure eval`` adds when a records tree holds human runs.

A human baseline is read per run (each participant, each model) and for all
participants pooled, per experiment and overall: Main Score, success rate,
turns over par and progress rate, each as a mean with a 95% bootstrap
interval (percentile, 2,000 resamples, seeded, so the same tree gives the
same table). Per instance, the pairs put every run's score beside the
participants' mean on the same instance, which is what a paired test or a
scatter plot needs. The chart in results.html is inline SVG: a dot for each
mean and a line for its interval, readable without JavaScript.
"""

from __future__ import annotations

import csv
import html
import io
import math
import random
from dataclasses import dataclass

from ..engine.metrics import MAIN_SCORE, PROGRESS_RATE, SUCCESS, TURNS_OVER_PAR

METRICS = ((MAIN_SCORE, "Main Score"), (SUCCESS, "success rate"), (TURNS_OVER_PAR, "turns over par"),
           (PROGRESS_RATE, "progress rate"))
HUMANS = "humans (all participants)"
ALL = "all"
RESAMPLES = 2000


def is_human(run: str) -> bool:
    """A run played by people: ``human`` (adventure play) or ``human-<ID>`` (a study's participant)."""
    return run == "human" or run.startswith("human-")


def _number(value) -> float | None:
    if isinstance(value, bool) or not isinstance(value, (int, float)) or math.isnan(value):
        return None
    return float(value)


def bootstrap(values: list[float], resamples: int = RESAMPLES, seed: int = 0) -> tuple[float, float, float]:
    """(mean, low, high): the mean and its 95% percentile bootstrap interval (NaN for no values)."""
    if not values:
        return math.nan, math.nan, math.nan
    mean = sum(values) / len(values)
    if len(values) == 1:
        return mean, mean, mean
    rng = random.Random(seed)
    n = len(values)
    means = sorted(sum(rng.choices(values, k=n)) / n for _ in range(resamples))
    return mean, means[int(0.025 * resamples)], means[min(resamples - 1, int(0.975 * resamples))]


@dataclass
class Cell:
    group: str        # a run, or HUMANS
    human: bool
    experiment: str   # game/experiment, or ALL
    metric: str
    n: int
    mean: float
    low: float
    high: float


def cells(rows) -> list[Cell]:
    """Every run's (and the pooled participants') mean and interval, per experiment and overall."""
    groups: dict[str, list] = {}
    for row in rows:
        groups.setdefault(row[0], []).append(row)
    if any(is_human(g) for g in groups):
        groups[HUMANS] = [r for r in rows if is_human(r[0])]
    out = []
    for group in sorted(groups, key=lambda g: (not (g == HUMANS or is_human(g)), g != HUMANS, g)):
        mine = groups[group]
        experiments = sorted({f"{r[1]}/{r[2]}" for r in mine})
        for experiment in experiments + [ALL]:
            chosen = [r for r in mine if experiment == ALL or f"{r[1]}/{r[2]}" == experiment]
            for key, _label in METRICS:
                values = [v for v in (_number(r[4].get(key)) for r in chosen) if v is not None]
                mean, low, high = bootstrap(values)
                out.append(Cell(group, group == HUMANS or is_human(group), experiment, key, len(values),
                                mean, low, high))
    return out


def pairs(rows) -> list[dict]:
    """Per instance and run: its scores beside the participants' mean on the same instance."""
    by_instance: dict[tuple, list] = {}
    for row in rows:
        by_instance.setdefault(row[1:4], []).append(row)
    out = []
    for (game, experiment, episode), runs in sorted(by_instance.items()):
        people = [r for r in runs if is_human(r[0])]
        if not people:
            continue
        human_mean = {}
        for key, _label in METRICS:
            values = [v for v in (_number(r[4].get(key)) for r in people) if v is not None]
            human_mean[key] = sum(values) / len(values) if values else math.nan
        for run, *_rest, scores in sorted(runs):
            out.append({"game": game, "experiment": experiment, "episode": episode, "run": run,
                        "human": is_human(run),
                        **{key: _number(scores.get(key)) for key, _ in METRICS},
                        **{f"humans' {key}": human_mean[key] for key, _ in METRICS}})
    return out


def _fmt(x: float) -> str:
    return "" if x is None or math.isnan(x) else f"{x:.4g}"


def comparison_csv(table: list[Cell]) -> str:
    buf = io.StringIO()
    w = csv.writer(buf)
    w.writerow(["group", "human", "experiment", "metric", "n", "mean", "ci95_low", "ci95_high"])
    for c in table:
        w.writerow([c.group, int(c.human), c.experiment, c.metric, c.n, _fmt(c.mean), _fmt(c.low), _fmt(c.high)])
    return buf.getvalue()


def pairs_csv(found: list[dict]) -> str:
    buf = io.StringIO()
    if not found:
        return ""
    w = csv.DictWriter(buf, fieldnames=list(found[0]))
    w.writeheader()
    for row in found:
        w.writerow({k: (_fmt(v) if isinstance(v, float) else int(v) if isinstance(v, bool) else
                        "" if v is None else v) for k, v in row.items()})
    return buf.getvalue()


# -- the chart ----------------------------------------------------------------------------
WIDTH, LABEL, ROW = 640, 220, 18
HUMAN_COLOUR, MODEL_COLOUR = "#1b7837", "#2166ac"


def chart(table: list[Cell]) -> str:
    """One inline SVG per metric, overall: a row per run, a dot at the mean and a line across its interval."""
    parts = []
    for key, label in METRICS:
        mine = [c for c in table if c.experiment == ALL and c.metric == key and c.n]
        if not mine:
            continue
        top = max(max(c.high for c in mine), 1.0 if key != MAIN_SCORE else 100.0)
        low = min(0.0, min(c.low for c in mine))
        span = (top - low) or 1.0
        height = ROW * len(mine) + 30

        def x(v: float) -> float:
            return LABEL + (v - low) / span * (WIDTH - LABEL - 20)

        rows = []
        for i, c in enumerate(mine):
            y = 20 + i * ROW
            colour = HUMAN_COLOUR if c.human else MODEL_COLOUR
            rows.append(f'<text x="{LABEL - 6}" y="{y + 4}" text-anchor="end" font-size="11">'
                        f'{html.escape(c.group)} (n={c.n})</text>'
                        f'<line x1="{x(c.low):.1f}" y1="{y}" x2="{x(c.high):.1f}" y2="{y}" stroke="{colour}"'
                        f' stroke-width="2"/><circle cx="{x(c.mean):.1f}" cy="{y}" r="4" fill="{colour}">'
                        f'<title>{html.escape(c.group)}: {c.mean:.3g} [{c.low:.3g}, {c.high:.3g}]</title></circle>')
        axis = (f'<line x1="{x(low):.1f}" y1="{height - 8}" x2="{x(top):.1f}" y2="{height - 8}" stroke="#888"/>'
                f'<text x="{x(low):.1f}" y="{height}" font-size="10">{low:g}</text>'
                f'<text x="{x(top):.1f}" y="{height}" font-size="10" text-anchor="end">{top:.3g}</text>')
        parts.append(f'<h3>{html.escape(label)} (mean, 95% bootstrap interval)</h3>'
                     f'<svg xmlns="http://www.w3.org/2000/svg" width="{WIDTH}" height="{height + 4}"'
                     f' role="img" aria-label="{html.escape(label)}">{"".join(rows)}{axis}</svg>')
    legend = (f'<p><span style="color:{HUMAN_COLOUR}">&#9679; people</span> &nbsp; '
              f'<span style="color:{MODEL_COLOUR}">&#9679; models and programs</span></p>')
    return "<h2>Humans and models</h2>" + legend + "".join(parts) if parts else ""


def table_html(table: list[Cell]) -> str:
    head = "".join(f"<th>{html.escape(label)}</th>" for _, label in METRICS)
    body = []
    keyed = {(c.group, c.experiment, c.metric): c for c in table}
    for group, experiment in dict.fromkeys((c.group, c.experiment) for c in table):
        cells_ = []
        for key, _ in METRICS:
            c = keyed[(group, experiment, key)]
            cells_.append(f"<td>{_fmt(c.mean)} [{_fmt(c.low)}, {_fmt(c.high)}] n={c.n}</td>" if c.n else "<td>-</td>")
        body.append(f"<tr><th>{html.escape(group)}</th><td>{html.escape(experiment)}</td>{''.join(cells_)}</tr>")
    return (f'<table border="1" class="comparison"><thead><tr><th>run</th><th>experiment</th>{head}</tr></thead>'
            f'<tbody>{"".join(body)}</tbody></table>')
