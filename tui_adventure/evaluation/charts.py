"""The charts of results.html, as inline SVG: readable without JavaScript, a network or a plotting library.

Each chart scales to its container (a ``viewBox``, ``width: 100%`` up to its
natural size), so a narrow window never scrolls sideways for it. Axis ticks
fall on round numbers (1, 2 or 5 times a power of ten) and are printed with
no more digits than the step between them needs, so an axis never reads
``-0.592593``. Every mark has a ``<title>`` with its numbers, which a browser
shows on hover.
"""

from __future__ import annotations

import math
from collections import Counter
from typing import Sequence
from html import escape

HUMAN_COLOUR = "#1b7837"
PALETTE = ("#2166ac", "#b2182b", "#762a83", "#e08214", "#01665e", "#8c510a", "#4d4d4d", "#c51b7d")
WIDTH, LABEL, ROW, RIGHT = 640, 230, 22, 24


def nice_ticks(low: float, high: float, count: int = 5) -> list[float]:
    """Round numbers spanning [low, high]: about ``count`` of them, 1, 2 or 5 times a power of ten apart."""
    if not (math.isfinite(low) and math.isfinite(high)):
        return [0.0, 1.0]
    if high - low < 1e-9:
        low, high = low - 1, high + 1
    raw = (high - low) / max(1, count - 1)
    power = 10 ** math.floor(math.log10(raw))
    step = next(m * power for m in (1, 2, 5, 10) if m * power >= raw)
    first = math.floor(low / step + 1e-9) * step
    ticks, t = [], first
    while t < high + step * 0.999:
        ticks.append(round(t, 10))
        t += step
    return ticks


def tick_label(value: float, ticks: list[float]) -> str:
    """``value`` with as many decimals as the ticks' step needs (none for a whole step)."""
    step = abs(ticks[1] - ticks[0]) if len(ticks) > 1 else 1.0
    decimals = max(0, -math.floor(math.log10(step) + 1e-9)) if step < 1 else 0
    text = f"{value:.{decimals}f}"
    return "0" if float(text) == 0 else text.replace("-", "\u2212")


def _svg(width: int, height: int, label: str, body: str) -> str:
    return (f'<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 {width} {height}" width="{width}"'
            f' height="{height}" role="img" aria-label="{escape(label)}" class="chart">'
            f'<title>{escape(label)}</title>{body}</svg>')


class Scale:
    def __init__(self, low: float, high: float, start: float, end: float, count: int = 5) -> None:
        self.ticks = nice_ticks(low, high, count)
        self.low, self.high = self.ticks[0], self.ticks[-1]
        self.start, self.end = start, end

    def __call__(self, v: float) -> float:
        return self.start + (v - self.low) / ((self.high - self.low) or 1.0) * (self.end - self.start)


def _x_axis(scale: Scale, y: float, top: float, caption: str) -> str:
    parts = [f'<line x1="{scale.start:.1f}" y1="{y}" x2="{scale.end:.1f}" y2="{y}" stroke="#888"/>']
    for t in scale.ticks:
        x = scale(t)
        parts.append(f'<line x1="{x:.1f}" y1="{top}" x2="{x:.1f}" y2="{y}" stroke="#eee"/>'
                     f'<text x="{x:.1f}" y="{y + 14}" font-size="11" text-anchor="middle">'
                     f'{tick_label(t, scale.ticks)}</text>')
    parts.append(f'<text x="{(scale.start + scale.end) / 2:.1f}" y="{y + 30}" font-size="12"'
                 f' text-anchor="middle">{escape(caption)}</text>')
    return "".join(parts)


def interval_chart(rows: Sequence[tuple[str, str, float, float | None, float | None]], caption: str,
                   zero: bool = False, digits: int = 3) -> str:
    """A row per (label, colour, value, low, high): a dot at the value and a line across its interval
    (none when the interval is unknown); with ``zero``, a line at 0 (no difference)."""
    if not rows:
        return ""
    ends = [v for _, _, m, lo, hi in rows for v in (m, lo, hi) if v is not None] + ([0.0] if zero else [])
    height = ROW * len(rows) + 50
    scale = Scale(min(ends), max(ends), LABEL, WIDTH - RIGHT)
    top = 8
    body = [_x_axis(scale, height - 40, top, caption)]
    if zero:
        body.append(f'<line x1="{scale(0):.1f}" y1="{top}" x2="{scale(0):.1f}" y2="{height - 40}" stroke="#444"'
                    ' stroke-dasharray="4 3"/>')
    for i, (label, colour, mean, low, high) in enumerate(rows):
        y = top + 10 + i * ROW
        interval = f" [{low:.{digits}g}, {high:.{digits}g}]" if low is not None and high is not None else ""
        body.append(f'<text x="{LABEL - 8}" y="{y + 4}" font-size="12" text-anchor="end">{escape(label)}</text>')
        if low is not None and high is not None:
            body.append(f'<line x1="{scale(low):.1f}" y1="{y}" x2="{scale(high):.1f}" y2="{y}" stroke="{colour}"'
                        ' stroke-width="2"/>')
        body.append(f'<circle cx="{scale(mean):.1f}" cy="{y}" r="5" fill="{colour}"><title>{escape(label)}:'
                    f' {mean:.{digits}g}{interval}</title></circle>')
    return _svg(WIDTH, height, caption, "".join(body))


def scatter(points: list[tuple[str, str, float, float, str]], x_caption: str, y_caption: str,
            low: float = 0.0, high: float = 100.0) -> str:
    """One dot per (series, colour, x, y, what): x the people's score, y the model's, on the same scale,
    with the diagonal where they are equal; a legend names each series."""
    if not points:
        return ""
    size, left, bottom, top = 320, 56, 46, 12
    series = list(dict.fromkeys((s, c) for s, c, *_ in points))
    legend_h = 18 * len(series)
    width, height = size + left + 20, size + top + bottom + legend_h
    xs = Scale(low, high, left, left + size, 6)
    ys = Scale(low, high, top + size, top, 6)
    body = [_x_axis(xs, top + size, top, x_caption)]
    for t in ys.ticks:
        y = ys(t)
        body.append(f'<line x1="{left}" y1="{y:.1f}" x2="{left + size}" y2="{y:.1f}" stroke="#eee"/>'
                    f'<text x="{left - 6}" y="{y + 4:.1f}" font-size="11" text-anchor="end">'
                    f'{tick_label(t, ys.ticks)}</text>')
    body.append(f'<line x1="{left}" y1="{top}" x2="{left}" y2="{top + size}" stroke="#888"/>'
                f'<text x="14" y="{top + size / 2:.1f}" font-size="12" text-anchor="middle"'
                f' transform="rotate(-90 14 {top + size / 2:.1f})">{escape(y_caption)}</text>'
                f'<line x1="{xs(xs.low):.1f}" y1="{ys(ys.low):.1f}" x2="{xs(xs.high):.1f}" y2="{ys(ys.high):.1f}"'
                ' stroke="#999" stroke-dasharray="4 3"/>')
    # several instances often share a point (100, 100): the dot grows with their number
    counts = Counter((s, c, x, y) for s, c, x, y, _ in points)
    whats: dict = {}
    for s, c, x, y, what in points:
        whats.setdefault((s, c, x, y), []).append(what)
    for (s, c, x, y), n in counts.items():
        names = ", ".join(whats[(s, c, x, y)][:5]) + (" ..." if n > 5 else "")
        body.append(f'<circle cx="{xs(x):.1f}" cy="{ys(y):.1f}" r="{4 + 2 * math.sqrt(n - 1):.1f}" fill="{c}"'
                    f' fill-opacity="0.6"><title>{escape(s)}: {y:.3g} against {x:.3g} ({n} instance'
                    f'{"s" if n > 1 else ""}: {escape(names)})</title></circle>')
    for i, (s, c) in enumerate(series):
        y = top + size + bottom + 12 + 18 * i
        body.append(f'<circle cx="{left + 6}" cy="{y - 4}" r="5" fill="{c}"/>'
                    f'<text x="{left + 16}" y="{y}" font-size="12">{escape(s)}</text>')
    return _svg(width, height, f"{y_caption} against {x_caption}", "".join(body))


def distribution(groups: list[tuple[str, str, list[int]]], caption: str) -> str:
    """A row per (label, colour, values): a dot per value that occurs, its area the share of the row's
    values there, so rows with different numbers of episodes read alike."""
    groups = [g for g in groups if g[2]]
    if not groups:
        return ""
    everything = [v for _, _, vs in groups for v in vs]
    height = ROW * len(groups) + 50
    scale = Scale(min(everything + [0]), max(everything + [1]), LABEL, WIDTH - RIGHT)
    top = 8
    body = [_x_axis(scale, height - 40, top, caption)]
    for i, (label, colour, values) in enumerate(groups):
        y = top + 10 + i * ROW
        body.append(f'<text x="{LABEL - 8}" y="{y + 4}" font-size="12" text-anchor="end">{escape(label)}'
                    f' (n={len(values)})</text>')
        for v, n in sorted(Counter(values).items()):
            r = 2 + 8 * math.sqrt(n / len(values))
            body.append(f'<circle cx="{scale(v):.1f}" cy="{y}" r="{r:.1f}" fill="{colour}" fill-opacity="0.7">'
                        f'<title>{escape(label)}: {n} of {len(values)} at {v:+g}</title></circle>')
    return _svg(WIDTH, height, caption, "".join(body))
