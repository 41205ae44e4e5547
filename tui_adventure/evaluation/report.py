"""results.html: one whole page a researcher opens in a browser, with or without people in the tree.

Its headline is the paired view (``paired.py``): each model against the
participants on the instances both finished, with how many there were; a
mean over different instance sets is no comparison, so when a model and the
participants share no instance the page says so instead of drawing one. Then
the charts people expect (each instance as a dot, model against people; the
distribution of moves over par), the ``clem eval`` table, each run's own means
with the instance sets they cover, the study's own analysis, the notes and the
files written. A figure that does not exist is a dash, and the reason is
written under its table; numbers carry the digits they can support.
"""

from __future__ import annotations

import math
from html import escape

from ..engine.metrics import MAIN_SCORE, MOVES_OVER_PAR, PROGRESS_RATE, SUCCESS
from . import charts, study_stats
from .comparison import ALL, HUMANS, METRICS, RESAMPLES, Cell, is_human, number
from .paired import Paired, by_run, experiment_of, overlap

DASH = "\u2013"
LABELS = dict(METRICS)
CSS = """
body{font-family:system-ui,-apple-system,"Segoe UI",sans-serif;margin:0;color:#222;line-height:1.45}
main{max-width:60rem;margin:0 auto;padding:1rem}
h1{font-size:1.5rem}h2{font-size:1.2rem;margin-top:2rem;border-bottom:1px solid #ddd}h3{font-size:1rem}
.scroll{overflow-x:auto;max-width:100%}
table{border-collapse:collapse;font-size:.875rem;margin:.5rem 0}
th,td{border:1px solid #ccc;padding:.2rem .45rem;vertical-align:top}
td.n,td.num{text-align:right;white-space:nowrap}td.sets{min-width:9rem;overflow-wrap:anywhere}
thead th{background:#f4f4f4}
.note{color:#555;font-size:.875rem}
svg.chart{display:block;max-width:100%;height:auto;margin:.5rem 0}
"""


def fmt(metric: str, x, signed: bool = False) -> str:
    """``x`` in the metric's own unit and precision: Main Score to one decimal, rates as whole percentages
    (a difference in percentage points), moves over par to one decimal; a dash for no number."""
    x = number(x)
    if x is None:
        return DASH
    rate = metric in (SUCCESS, PROGRESS_RATE)
    decimals = 0 if rate else 1
    value = round(100 * x if rate else x, decimals) or 0.0   # never "-0.0"
    unit = (" pp" if signed else "%") if rate else ""
    return f"{value:{'+' if signed else ''}.{decimals}f}{unit}".replace("-", "\u2212")


def _interval(metric: str, low, high) -> str:
    if number(low) is None or number(high) is None:
        return DASH
    return f"{fmt(metric, low, True)} to {fmt(metric, high, True)}"


def _table(head: list[str], rows: list[str], cls: str = "") -> str:
    return (f'<div class="scroll"><table class="{cls}"><thead><tr>{"".join(f"<th>{escape(h)}</th>" for h in head)}'
            f'</tr></thead><tbody>{"".join(rows)}</tbody></table></div>')


def _notes(reasons: list[str]) -> str:
    return "".join(f'<p class="note">{escape(r)}</p>' for r in dict.fromkeys(reasons))


def colours(runs: list[str]) -> dict[str, str]:
    models = [r for r in runs if not is_human(r)]
    return {r: charts.HUMAN_COLOUR if is_human(r) or r == HUMANS else charts.PALETTE[models.index(r) %
            len(charts.PALETTE)] for r in list(runs) + [HUMANS]}


# -- the headline: paired --------------------------------------------------------------------
def headline(rows, found: list[Paired], unfinished_people: int = 0) -> str:
    """The paired view; ``unfinished_people``: episodes by people left unfinished, which are not compared
    (said when they are all the people did)."""
    runs = sorted(by_run(rows))
    people = [r for r in runs if is_human(r)]
    out = ["<h2>Models against people, on the instances both finished</h2>"]
    if not people and unfinished_people:
        sessions = "unfinished human session" + ("s" if unfinished_people != 1 else "")
        return "".join(out) + (f"<p>No finished games by people in this tree: {unfinished_people} {sessions}"
                               f" {'is' if unfinished_people == 1 else 'are'} not compared (an episode counts"
                               " once it ends: won, lost, done or out of turns). Each run's own means are below;"
                               " paired.csv has its header only.</p>")
    if not people:
        return "".join(out) + ('<p>No runs by people in this tree (a run folder named <code>human</code> or'
                               ' <code>human-&lt;ID&gt;</code>), so there is nothing to pair: each run\'s own means'
                               ' are below. paired.csv has its header only.</p>')
    if not any(not is_human(r) for r in runs):
        return "".join(out) + "<p>Only people played here: no model to compare them with.</p>"
    out.append(f"<p>Each model against {'the participant' if len(people) == 1 else f'the {len(people)} participants pooled'} (per"
               " instance, the participants' mean), on the instances both finished: <i>n</i> counts them."
               f" Difference = model {DASH} people; 95% paired bootstrap interval ({RESAMPLES:,} resamples of the"
               " instances). paired.csv also has each participant alone and each experiment.</p>")
    shared = overlap(rows)
    apart = [m for m, (_, _, both) in shared.items() if both == 0]
    if apart:
        out.append("<p><b>No comparison</b> for " + ", ".join(
            f"{escape(m)} ({shared[m][0]} instance{'s' if shared[m][0] != 1 else ''})" for m in apart)
            + f": they played no instance the participants ({next(iter(shared.values()))[1]}) finished.</p>")
    body, reasons = [], []
    for p in found:
        if p.humans != HUMANS or p.experiment != ALL or p.model in apart:
            continue
        if p.n == 0:
            reasons.append(f"{DASH}: no shared instance has this figure for both (Main Score is none for an"
                           " aborted episode, moves over par exists only for a won one).")
        elif p.n == 1:
            reasons.append(f"{DASH} interval: one shared instance gives a difference but no interval.")
        first = p.metric == METRICS[0][0]
        body.append(f"<tr><th>{escape(p.model) if first else ''}</th><td>{escape(LABELS[p.metric])}</td>"
                    f'<td class="n">{p.n}</td><td class="num">{fmt(p.metric, p.model_mean)}</td>'
                    f'<td class="num">{fmt(p.metric, p.human_mean)}</td>'
                    f'<td class="num"><b>{fmt(p.metric, p.difference, True)}</b></td>'
                    f'<td class="num">{_interval(p.metric, p.low, p.high)}</td></tr>')
    if body:
        out.append(_table(["model", "metric", "n", "model", "people", "difference", "95% interval"], body, "paired"))
        out.append(_notes(reasons))
        colour = colours(runs)
        lines = [(f"{p.model} (n={p.n})", colour[p.model], p.difference, p.low, p.high) for p in found
                 if p.humans == HUMANS and p.experiment == ALL and p.metric == MAIN_SCORE
                 and p.difference is not None]   # None exactly when no instance is shared (n = 0)
        if lines:
            out.append("<h3>Main Score, model minus people (0: no difference)</h3>" + charts.interval_chart(
                lines, "difference in Main Score (model \u2212 people)", zero=True))
        out.append(scatter(rows))
    return "".join(out)


def scatter(rows) -> str:
    runs = by_run(rows)
    people = [r for r in runs if is_human(r)]
    colour = colours(sorted(runs))
    points = []
    for model in sorted(r for r in runs if not is_human(r)):
        for instance, scores in sorted(runs[model].items()):
            marks = [number(runs[p][instance].get(MAIN_SCORE)) for p in people if instance in runs[p]]
            theirs = [t for t in marks if t is not None]
            mine = number(scores.get(MAIN_SCORE))
            if theirs and mine is not None:
                points.append((model, colour[model], sum(theirs) / len(theirs), mine, "/".join(instance)))
    if not points:
        return ""
    return ("<h3>Each shared instance: the model's Main Score against the participants' mean</h3>"
            + charts.scatter(points, "people's Main Score", "model's Main Score")
            + '<p class="note">On the dashed line the model scores as people do; above it, better. A bigger dot'
            " is several instances at the same point.</p>")


def over_par(rows) -> str:
    """The distribution of moves over par, won episodes, per run (people pooled first)."""
    runs = by_run(rows)
    colour = colours(sorted(runs))
    groups = []
    people = [v for r in sorted(runs) if is_human(r) for v in runs[r].values()]
    if people:
        groups.append(("people (all)", charts.HUMAN_COLOUR, people))
    groups += [(r, colour[r], list(v.values())) for r, v in sorted(runs.items()) if not is_human(r)]
    data = [(label, c, [int(x) for x in (number(s.get(MOVES_OVER_PAR)) for s in eps) if x is not None])
            for label, c, eps in groups]
    chart = charts.distribution(data, "moves over par (won episodes)")
    return ("<h2>Moves over par</h2>" + (
        chart + '<p class="note">Moves over par: a won episode\'s turns, not counting a closing <code>done</code>,'
        " minus par (the exact optimum): 0 is an optimal game. A dot's area is the share of the run's won episodes"
        " at that value; every won episode of each run is here, paired or not. clembench's own turns_over_par"
        " (scores.json) counts the <code>done</code> and uses the instance's stated par.</p>"
        if chart else "<p>No won episode has a par here, so there is no moves over par to show.</p>"))


# -- the clem eval table -------------------------------------------------------------------------
def clem_table(header: list[str], data: dict[str, list[float]]) -> str:
    reasons = []
    body = []
    for model, values in data.items():
        cells = []
        for name, v in zip(header, values):
            if isinstance(v, float) and math.isnan(v):
                game = name.split(",")[0]
                played = values[header.index(f"{game}, % Played")] if f"{game}, % Played" in header else math.nan
                if "Quality" in name and not math.isnan(played) and played == 0:
                    reasons.append(f"{DASH} Quality Score where % Played is 0: clembench's Quality Score is the"
                                   " mean Main Score of the played episodes, and an episode that reaches the turn"
                                   " limit, or whose reply breaks the format, is aborted, not played: this run"
                                   " played none (a random player rarely wins within the turn limit).")
                else:
                    reasons.append(f"{DASH}: the run played no episode of this game.")
                cells.append(f'<td class="num">{DASH}</td>')
            else:
                cells.append(f'<td class="num">{v:g}</td>')
        body.append(f"<tr><th>{escape(model)}</th>{''.join(cells)}</tr>")
    return ("<h2>Results table (as clem eval)</h2>" + _table([""] + header, body, "dataframe")
            + _notes(reasons) + '<p class="note">% Played = 100 \u00d7 share of episodes not aborted; Quality'
            " Score = mean Main Score of the played ones; clemscore = % Played / 100 \u00d7 Quality Score.</p>")


# -- each run on its own ---------------------------------------------------------------------------
def unpaired(rows, table: list[Cell]) -> str:
    runs = by_run(rows)
    runs[HUMANS] = {i: s for r, v in runs.items() if is_human(r) for i, s in v.items()}
    keyed = {(c.group, c.experiment, c.metric): c for c in table}
    body, reasons = [], []
    for group, experiment in dict.fromkeys((c.group, c.experiment) for c in table):
        mine = [i for i in runs.get(group, {}) if experiment == ALL or experiment_of(i) == experiment]
        if experiment == ALL:
            counts: dict[str, int] = {}
            for i in mine:
                counts[experiment_of(i)] = counts.get(experiment_of(i), 0) + 1
            sets = "all: " + ", ".join(f"{escape(e)} {n}" for e, n in sorted(counts.items()))
        else:
            sets = escape(experiment)
        cells = []
        for key, _ in METRICS:
            c = keyed[(group, experiment, key)]
            if not c.n:
                reasons.append(f"{DASH}: no episode with this figure (none finished without aborting, or none won"
                               " for moves over par).")
            # the mean, then its interval and n on a line of their own: the table fits a laptop's width
            interval = f"[{fmt(key, c.low)}, {fmt(key, c.high)}] " if c.n > 1 else ""
            cells.append(f'<td class="num">{fmt(key, c.mean)}<br>{interval}<i>n</i>={c.n}</td>' if c.n
                         else f'<td class="num">{DASH}</td>')
        body.append(f'<tr><th>{escape(group)}</th><td class="sets">{sets}</td><td class="n">{len(mine)}</td>'
                    f'{"".join(cells)}</tr>')
    colour = colours(sorted(r for r in runs if r != HUMANS))
    overall = [(f"{c.group} (n={c.n})", colour[c.group], c.mean, c.low, c.high)
               for c in table if c.experiment == ALL and c.metric == MAIN_SCORE and c.n]
    return ("<h2>Each run on its own instances (unpaired)</h2>"
            '<p class="note">Means over whatever each run played, with a 95% bootstrap interval: compare two rows'
            " only when their instance sets are the same (the paired view above does that for you). <i>n</i>"
            " counts episodes with the figure: two participants on one instance are two.</p>"
            + _table(["run", "instance set", "instances"] + [label for _, label in METRICS], body,
                     "comparison") + _notes(reasons)
            + ("<h3>Main Score per run, on its own instances</h3>"
               + charts.interval_chart(overall, "mean Main Score") if overall else ""))


# -- the study ---------------------------------------------------------------------------------------
def study(root) -> str:
    episodes = study_stats.study_episodes(root)
    if not episodes:
        return ""
    titles = sorted({e.study for e in episodes if e.study})

    def rows_of(summaries, total: bool = False) -> list[str]:
        return [f"<tr><th>{escape(s.key)}</th><td class=\"n\">{s.n}</td><td class=\"num\">{fmt(SUCCESS, s.success)}"
                f"</td><td class=\"num\">{fmt(MAIN_SCORE, s.main_score)}</td><td class=\"num\">"
                f"{_seconds(s.total_seconds if total else s.median_seconds)}</td><td class=\"n\">{s.out_of_time}</td>"
                + (f"<td>{escape(s.extra)}</td>" if total else "") + "</tr>" for s in summaries]

    head = ["worlds", "won", "Main Score", "median time", "out of time"]
    return ("<h2>Study</h2>" + (f"<p>{escape(', '.join(titles))}: {len(episodes)} finished worlds by "
                                f"{len({e.participant for e in episodes})} participants.</p>")
            + "<h3>By position in the queue (learning and fatigue)</h3>"
            + _table(["position"] + head, rows_of(study_stats.by_position(episodes)), "study")
            + '<p class="note">A rise along the queue is learning, a fall fatigue; a Latin-square order spreads'
            " both evenly over the worlds.</p><h3>Time per world</h3>"
            + _table(["world"] + head, rows_of(study_stats.by_world(episodes)), "study")
            + "<h3>Per participant</h3>"
            + _table(["participant", "worlds", "won", "Main Score", "total time", "out of time", ""],
                     rows_of(study_stats.by_participant(episodes), total=True), "study")
            + f'<p class="note">Won and Main Score as in clembench (Main Score {DASH} when every world was aborted);'
            " time from <code>meta.seconds</code>.</p>")


def _seconds(s: float | None) -> str:
    if s is None:
        return DASH
    return f"{s:.0f} s" if s < 120 else f"{s / 60:.1f} min"


# -- the page ------------------------------------------------------------------------------------------
def page(title: str, sections: list[str]) -> str:
    return ('<!doctype html>\n<html lang="en"><head><meta charset="utf-8">'
            '<meta name="viewport" content="width=device-width, initial-scale=1">'
            f"<title>{escape(title)}</title><style>{CSS}</style></head>\n<body><main>\n"
            + "\n".join(s for s in sections if s) + "\n</main></body></html>\n")


def files_and_notes(written: list[tuple[str, str]], notes: list[str]) -> str:
    out = "<h2>Files</h2><ul>" + "".join(f"<li><code>{escape(n)}</code>: {escape(d)}</li>" for n, d in written)
    out += "</ul>"
    if notes:
        out += "<h2>Notes</h2><ul>" + "".join(f"<li>{escape(n)}</li>" for n in notes) + "</ul>"
    return out
