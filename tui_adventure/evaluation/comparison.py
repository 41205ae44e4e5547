"""Humans against models: what ``adventure eval`` adds when a records tree holds human runs.

A human baseline is read per run (each participant, each model) and for all
participants pooled, per experiment and overall: Main Score, success rate,
moves over par and progress rate, each as a mean with a 95% bootstrap
interval (percentile, 2,000 resamples, seeded, so the same tree gives the
same table): comparison.csv, each run on its own instances (unpaired). Per
instance, the pairs put every run's score beside the participants' mean on
the same instance (pairs.csv): the data behind paired.csv (``paired.py``),
kept so a reader can run a test of their own (Wilcoxon, a mixed model) or
draw the scatter plot again.
"""

from __future__ import annotations

import math
import random
from dataclasses import dataclass

from ..engine.metrics import MAIN_SCORE, MOVES_OVER_PAR, PROGRESS_RATE, SUCCESS

METRICS = ((MAIN_SCORE, "Main Score"), (SUCCESS, "success rate"), (MOVES_OVER_PAR, "moves over par"),
           (PROGRESS_RATE, "progress rate"))
HUMANS = "humans (all participants)"
ALL = "all"
RESAMPLES = 2000


def is_human(run: str) -> bool:
    """A run played by people, the one definition every reader uses: ``human`` (adventure play, and
    ``human-2``... for a second session on a world whose ``human`` folder is taken) or ``human-<ID>``
    (a study's participant). Each such run is one participant of the comparison; models and programs
    (the oracle, random) are every other run."""
    return run == "human" or run.startswith("human-")


def number(value) -> float | None:
    """A record's figure as a float; None for no number, NaN (clembench's "none") or an infinity, which no
    episode scores and which would carry every mean and interval it entered with it."""
    if isinstance(value, bool) or not isinstance(value, (int, float)) or not math.isfinite(value):
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
                values = [v for v in (number(r[4].get(key)) for r in chosen) if v is not None]
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
            values = [v for v in (number(r[4].get(key)) for r in people) if v is not None]
            human_mean[key] = sum(values) / len(values) if values else math.nan
        for run, *_rest, scores in sorted(runs):
            out.append({"game": game, "experiment": experiment, "episode": episode, "run": run,
                        "human": is_human(run),
                        **{key: number(scores.get(key)) for key, _ in METRICS},
                        **{f"humans' {key}": human_mean[key] for key, _ in METRICS}})
    return out


COMPARISON_HEADER = ("group", "human", "experiment", "metric", "n", "mean", "ci95_low", "ci95_high")
PAIRS_HEADER = ("game", "experiment", "episode", "run", "human", *(key for key, _ in METRICS),
                *(f"humans' {key}" for key, _ in METRICS))


def _value(x: float | None):
    """A number for a CSV cell (rounded off float noise); None, an empty cell, for NaN or nothing."""
    return None if x is None or (isinstance(x, float) and math.isnan(x)) else round(x, 6)


def comparison_rows(table: list[Cell]) -> list[tuple]:
    return [(c.group, int(c.human), c.experiment, c.metric, c.n, _value(c.mean), _value(c.low), _value(c.high))
            for c in table]


def pairs_rows(found: list[dict]) -> list[tuple]:
    return [(r["game"], r["experiment"], r["episode"], r["run"], int(r["human"]),
             *(_value(r[key]) for key, _ in METRICS), *(_value(r[f"humans' {key}"]) for key, _ in METRICS))
            for r in found]
