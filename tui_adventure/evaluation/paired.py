"""Models against people on the same instances: what ``adventure eval`` writes to paired.csv.

A mean over the instances a model played beside a mean over the ones people
played compares unlike things whenever the sets differ (27 instances of three
kinds against one house). The paired view compares each model run with each
group of people only on the instances both finished, instance by instance:

- a *human group* is each participant (each human run, ``comparison.is_human``)
  and all participants pooled, where an instance's pooled score is the mean of
  the participants who finished it;
- per (model, group, metric, experiment or ``all``): ``n_instances`` (the
  instances where both have a number for the metric: both finished it, and for
  Main Score neither aborted, for moves over par both won), the two means over
  those instances, ``difference`` = model - people, and its 95% paired bootstrap
  interval: the instances are resampled with replacement (2,000 times, seeded by
  the row's own names, so the file is the same byte for byte on every run) and
  the 2.5th and 97.5th percentiles of the mean difference taken. The metrics of
  a row that share their instances share the resampled indices too, drawn once. One instance
  gives a difference but no interval (empty ``low``/``high``).
"""

from __future__ import annotations

import random
from dataclasses import dataclass

from .comparison import ALL, HUMANS, METRICS, RESAMPLES, is_human, number

HEADER = ("model", "humans", "metric", "experiment", "n_instances", "model_mean", "human_mean", "difference",
          "low", "high")
Instance = tuple[str, str, str]   # game, experiment, episode


@dataclass(frozen=True)
class Paired:
    model: str
    humans: str
    metric: str
    experiment: str
    n: int
    model_mean: float | None
    human_mean: float | None
    difference: float | None
    low: float | None
    high: float | None

    def row(self) -> tuple:
        return (self.model, self.humans, self.metric, self.experiment, self.n, *(
            None if v is None else round(v, 6) for v in (self.model_mean, self.human_mean, self.difference,
                                                           self.low, self.high)))


def experiment_of(instance: Instance) -> str:
    return f"{instance[0]}/{instance[1]}"


def by_run(rows) -> dict[str, dict[Instance, dict]]:
    """Per run, per instance: its scores (a run plays an instance once; the last one read counts)."""
    out: dict[str, dict[Instance, dict]] = {}
    for run, game, experiment, episode, scores in rows:
        out.setdefault(run, {})[(game, experiment, episode)] = scores
    return out


def human_groups(runs: dict[str, dict[Instance, dict]]) -> dict[str, dict[Instance, dict]]:
    """All participants pooled (per instance and metric, the mean of those with a number), then each one."""
    people = sorted(r for r in runs if is_human(r))
    if not people:
        return {}
    pooled: dict[Instance, dict] = {}
    for instance in sorted({i for p in people for i in runs[p]}):
        pooled[instance] = {}
        for key, _label in METRICS:
            values = [v for v in (number(runs[p][instance].get(key)) for p in people if instance in runs[p])
                      if v is not None]
            if values:
                pooled[instance][key] = sum(values) / len(values)
    return {HUMANS: pooled, **{p: runs[p] for p in people}}


def resamples_of(n: int, seed: str, resamples: int = RESAMPLES) -> list[list[int]]:
    """``resamples`` draws of n instance indices with replacement, from ``seed`` alone (so the file repeats)."""
    rng = random.Random(seed)
    return [[int(rng.random() * n) for _ in range(n)] for _ in range(resamples)]


def paired_bootstrap(differences: list[float], draws: list[list[int]]) -> tuple[float | None, float | None]:
    """The 95% percentile interval of the mean of ``differences`` over ``draws`` (None for fewer than two)."""
    n = len(differences)
    if n < 2:
        return None, None
    if min(differences) == max(differences):   # every resample has the same mean
        return differences[0], differences[0]
    means = sorted(sum(map(differences.__getitem__, idx)) / n for idx in draws)
    return means[int(0.025 * len(means))], means[min(len(means) - 1, int(0.975 * len(means)))]


def shared_pairs(mine: dict[Instance, dict], theirs: dict[Instance, dict], metric: str,
                 experiment: str) -> list[tuple[float, float]]:
    """(model, people) per instance both have a number for, in the instances' order."""
    out = []
    for instance in sorted(set(mine) & set(theirs)):
        if experiment != ALL and experiment_of(instance) != experiment:
            continue
        a, b = number(mine[instance].get(metric)), number(theirs[instance].get(metric))
        if a is not None and b is not None:
            out.append((a, b))
    return out


def compare(model: str, mine: dict[Instance, dict], humans: str, theirs: dict[Instance, dict],
            experiment: str) -> list[Paired]:
    """Every metric of one (model, human group, experiment); the metrics with the same number of instances
    share their resamples (drawn once, seeded by the model, the group, the experiment and that number)."""
    out, draws = [], {}
    for metric, _label in METRICS:
        pairs = shared_pairs(mine, theirs, metric, experiment)
        n = len(pairs)
        if not n:
            out.append(Paired(model, humans, metric, experiment, 0, None, None, None, None, None))
            continue
        if n > 1 and n not in draws and len({a - b for a, b in pairs}) > 1:
            draws[n] = resamples_of(n, f"{model}\0{humans}\0{experiment}\0{n}")
        model_mean, human_mean = sum(a for a, _ in pairs) / n, sum(b for _, b in pairs) / n
        low, high = paired_bootstrap([a - b for a, b in pairs], draws.get(n, []))
        out.append(Paired(model, humans, metric, experiment, n, model_mean, human_mean, model_mean - human_mean,
                          low, high))
    return out


def paired(rows) -> list[Paired]:
    """Every model run against every human group, per metric, overall and per experiment both played."""
    runs = by_run(rows)
    groups = human_groups(runs)
    out = []
    for model in sorted(r for r in runs if not is_human(r)):
        mine = runs[model]
        for humans, theirs in groups.items():
            shared = sorted({experiment_of(i) for i in set(mine) & set(theirs)})
            for experiment in [ALL] + shared:
                out.extend(compare(model, mine, humans, theirs, experiment))
    return out


def overlap(rows) -> dict[str, tuple[int, int, int]]:
    """Per model run: (its instances, the participants' instances, the instances both finished)."""
    runs = by_run(rows)
    people = set().union(*(set(v) for r, v in runs.items() if is_human(r))) if any(map(is_human, runs)) else set()
    return {m: (len(v), len(people), len(set(v) & people)) for m, v in sorted(runs.items()) if not is_human(m)}

