"""Charts as SVG text, drawn on the server: bars (stacked or side by side), horizontal bars, ranges.

No script and no style attribute (the page's Content-Security-Policy allows neither inline): only
presentation attributes. Readable without colour: every series has its own fill pattern (solid,
hatched, dotted, ...) shown in a legend, and every bar carries its figure as a direct label. Each
chart has a `<title>` and a `<desc>` (named by `aria-labelledby`); the page adds a table of the
same figures. Every text from outside (board names, places) goes through `markupsafe` escaping,
as in the HTML around it. The drawing scales to its container (a `viewBox`, width 100%).
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import Final

import msgspec
from markupsafe import Markup

WIDTH: Final = 600
INK: Final = "#1d232b"
MUTED: Final = "#66707c"
GRID: Final = "#dde2e8"
# (fill of the pattern's ground, its marks, how they are drawn): one per series, told apart by shape.
_PATTERNS: Final = (
    ("#1f5fbf", "", ""),
    ("#ffffff", "#b35c00", '<path d="M-1,1 l2,-2 M0,6 l6,-6 M5,7 l2,-2" stroke="{ink}" stroke-width="1.6"/>'),
    ("#e8f0fb", "#1f5fbf", '<circle cx="3" cy="3" r="1.4" fill="{ink}"/>'),
    ("#ffffff", "#2e7d32", '<path d="M0,0 l6,6 M6,0 l-6,6" stroke="{ink}" stroke-width="1"/>'),
    ("#fff4e5", "#1d232b", '<path d="M0,3 h6" stroke="{ink}" stroke-width="1.4"/>'),
    ("#ffffff", "#b3261e", '<path d="M3,0 v6" stroke="{ink}" stroke-width="1.4"/>'),
    ("#66707c", "", ""),
    ("#ffffff", "#66707c", '<circle cx="3" cy="3" r="2" fill="none" stroke="{ink}" stroke-width="0.8"/>'),
)


class HBar(msgspec.Struct, kw_only=True, frozen=True):
    """One horizontal bar: its label, its length as a share of the longest (0-1), its figure."""

    label: str
    share: float
    text: str


class Span(msgspec.Struct, kw_only=True, frozen=True):
    """One range: its label, low and high ends, a middle mark, and its figure in words."""

    label: str
    low: float
    high: float
    middle: float
    text: str


def fill(key: str, series: int) -> str:
    """The fill of series number `series` in chart `key`: a colour, or its pattern."""
    ground, ink, _ = _PATTERNS[series % len(_PATTERNS)]
    return f"url(#{key}-p{series % len(_PATTERNS)})" if ink else ground


def _defs(key: str, count: int) -> Markup:
    parts = []
    for i in range(min(count, len(_PATTERNS))):
        ground, ink, marks = _PATTERNS[i]
        if ink:
            parts.append(
                Markup(
                    '<pattern id="{}-p{}" width="6" height="6" patternUnits="userSpaceOnUse">'
                    '<rect width="6" height="6" fill="{}"/>'
                ).format(key, i, ground)
                + Markup(marks.format(ink=ink))
                + Markup("</pattern>")
            )
    return Markup("<defs>{}</defs>").format(Markup("").join(parts))


def _frame(key: str, title: str, desc: str, height: float, body: Markup) -> Markup:
    return Markup(
        # No xmlns: the SVG lives inside HTML, where the parser gives it its namespace.
        '<svg class="chart" id="{key}-chart" role="img"'
        ' viewBox="0 0 {w} {h}" width="100%" aria-labelledby="{key}-title {key}-desc"'
        ' font-family="system-ui, sans-serif" font-size="12">'
        '<title id="{key}-title">{title}</title><desc id="{key}-desc">{desc}</desc>{body}</svg>'
    ).format(key=key, w=WIDTH, h=round(height), title=title, desc=desc, body=body)


def _text(
    x: float,
    y: float,
    text: str,
    *,
    anchor: str = "start",
    size: int = 12,
    color: str = INK,
    rotate: float = 0,
) -> Markup:
    turn = Markup(' transform="rotate({} {:.1f} {:.1f})"').format(rotate, x, y) if rotate else Markup("")
    return Markup('<text x="{:.1f}" y="{:.1f}" text-anchor="{}" font-size="{}" fill="{}"{}>{}</text>').format(
        x, y, anchor, size, color, turn, text
    )


def _rect(x: float, y: float, w: float, h: float, paint: str, *, label: str = "") -> Markup:
    tip = Markup("<title>{}</title>").format(label) if label else Markup("")
    return Markup(
        '<rect x="{:.1f}" y="{:.1f}" width="{:.1f}" height="{:.1f}" fill="{}" stroke="{}"'
        ' stroke-width="0.6">{}</rect>'
    ).format(x, y, max(w, 0), max(h, 0), paint, INK, tip)


def nice_top(value: float) -> float:
    """A round axis end at or above `value`: 1, 2, 5 times a power of ten."""
    if value <= 0:
        return 1
    power = 10.0 ** math.floor(math.log10(value))
    return next(step * power for step in (1, 2, 5, 10) if step * power >= value)


def _legend(key: str, series: Sequence[str], y: float) -> tuple[Markup, float]:
    """Swatches and names, wrapped to the chart's width; returns the legend and its height."""
    parts, x, row = [], 10.0, 0
    for i, name in enumerate(series):
        width = 28 + 7 * min(len(name), 40)
        if x + width > WIDTH and x > 10:
            x, row = 10.0, row + 1
        top = y + row * 20
        parts.append(_rect(x, top, 14, 14, fill(key, i)) + _text(x + 20, top + 11.5, name[:40]))
        x += width
    return Markup("").join(parts), (row + 1) * 20


def bars(
    key: str,
    title: str,
    desc: str,
    *,
    categories: Sequence[str],
    series: Sequence[str],
    values: Sequence[Sequence[int]],
    stacked: bool = True,
) -> Markup:
    """Vertical bars per category: one segment (or bar, side by side) per series.

    Args:
        key: the chart's id prefix (unique on the page).
        title: the chart's title; desc: what it shows, in words.
        categories: the x axis (days, fit buckets); series: the names in the legend.
        values: values[category][series].
        stacked: stack the series (and label the total), else draw them side by side.
    """
    top, left, plot_h = 34.0, 44.0, 210.0
    legend, legend_h = _legend(key, series, 6)
    top += legend_h - 20
    slot = (WIDTH - left - 10) / max(len(categories), 1)
    totals = [sum(v) for v in values] if stacked else [max(v, default=0) for v in values]
    axis_top = nice_top(max(totals, default=0))
    parts = [_defs(key, len(series)), legend]
    for tick in (0, axis_top / 2, axis_top) if axis_top % 2 == 0 else (0, axis_top):
        y = top + plot_h - plot_h * tick / axis_top
        parts.append(
            Markup('<line x1="{:.1f}" x2="{}" y1="{:.1f}" y2="{:.1f}" stroke="{}"/>').format(
                left, WIDTH - 10, y, y, GRID
            )
        )
        parts.append(_text(left - 6, y + 4, f"{tick:g}", anchor="end", color=MUTED))
    rotate = len(categories) > 12
    for c, (category, row) in enumerate(zip(categories, values, strict=True)):
        x0 = left + c * slot + slot * 0.15
        width = slot * 0.7
        base = top + plot_h
        for s, value in enumerate(row):
            h = plot_h * value / axis_top
            label = f"{category}, {series[s]}: {value}"
            if stacked:
                base -= h
                parts.append(_rect(x0, base, width, h, fill(key, s), label=label))
            else:
                w = width / len(row)
                y = top + plot_h - h
                parts.append(_rect(x0 + s * w, y, w, h, fill(key, s), label=label))
                if value:
                    parts.append(_text(x0 + s * w + w / 2, y - 3, str(value), anchor="middle", size=10))
        if stacked and totals[c]:
            parts.append(_text(x0 + width / 2, base - 3, str(totals[c]), anchor="middle", size=10))
        label_y = top + plot_h + 14
        if rotate:
            parts.append(_text(x0 + width / 2, label_y, category, anchor="end", size=10, rotate=-45))
        else:
            parts.append(_text(x0 + width / 2, label_y, category, anchor="middle", size=11))
    height = top + plot_h + (52 if rotate else 24)
    return _frame(key, title, desc, height, Markup("").join(parts))


def hbars(key: str, title: str, desc: str, rows: Sequence[HBar]) -> Markup:
    """Horizontal bars, each with its label on the left and its figure at its end."""
    label_w, row_h = 150.0, 30.0
    room = WIDTH - label_w - 120
    parts = [_defs(key, 1)]
    for i, row in enumerate(rows):
        y = 8 + i * row_h
        parts.append(_text(label_w - 8, y + 15, _cut(row.label, 22), anchor="end", size=11))
        parts.append(
            _rect(
                label_w,
                y + 2,
                room * min(max(row.share, 0.0), 1.0),
                row_h - 10,
                fill(key, 0),
                label=f"{row.label}: {row.text}",
            )
        )
        parts.append(_text(label_w + room * min(max(row.share, 0.0), 1.0) + 6, y + 15, row.text))
    return _frame(key, title, desc, 16 + len(rows) * row_h, Markup("").join(parts))


def spans(key: str, title: str, desc: str, rows: Sequence[Span], *, unit: float = 1000) -> Markup:
    """Ranges on one shared axis (low to high, a mark at the middle), labelled on the left."""
    label_w, row_h, right = 150.0, 30.0, 130.0
    least = min((r.low for r in rows), default=0.0)
    most = max((r.high for r in rows), default=1.0)
    step = nice_top(max(most - least, most / 10) / 4)
    low, high = math.floor(least / step) * step, math.ceil(most / step) * step
    high = high if high > low else low + step
    ticks = [low + i * step for i in range(round((high - low) / step) + 1)]
    room = WIDTH - label_w - right

    def x(value: float) -> float:
        return label_w + room * (value - low) / ((high - low) or 1)

    parts = [_defs(key, 2)]
    top = 22.0
    for tick in ticks:
        parts.append(
            Markup('<line x1="{:.1f}" x2="{:.1f}" y1="{}" y2="{:.1f}" stroke="{}"/>').format(
                x(tick), x(tick), top - 4, top + len(rows) * row_h, GRID
            )
        )
        parts.append(_text(x(tick), top - 8, f"{tick / unit:g}k", anchor="middle", color=MUTED))
    for i, row in enumerate(rows):
        y = top + i * row_h
        parts.append(_text(label_w - 8, y + 17, _cut(row.label, 22), anchor="end", size=11))
        parts.append(
            _rect(
                x(row.low),
                y + 6,
                max(x(row.high) - x(row.low), 3),
                row_h - 14,
                fill(key, 1),
                label=f"{row.label}: {row.text}",
            )
        )
        parts.append(
            Markup('<rect x="{:.1f}" y="{:.1f}" width="3" height="{:.1f}" fill="{}"/>').format(
                x(row.middle) - 1.5, y + 3, row_h - 8, INK
            )
        )
        parts.append(_text(WIDTH - right + 8, y + 17, row.text, size=11))
    return _frame(key, title, desc, top + 10 + len(rows) * row_h, Markup("").join(parts))


def _cut(text: str, length: int) -> str:
    return text if len(text) <= length else text[: length - 1] + "…"


__all__ = ["HBar", "Span", "bars", "fill", "hbars", "nice_top", "spans"]
