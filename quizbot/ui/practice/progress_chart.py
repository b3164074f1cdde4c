"""The chart of "My progress" (:func:`progress_chart`): accuracy per day, week or session with its
95% Wilson interval as a bar, drawn here as SVG (the app ships without a plotting library, and
Gradio's plots draw no interval bars).

Periods are categories, one evenly spaced slot each, not positions on a time axis: with one
day of answers the chart is one point with its bar, centred, not a dot squeezed against an
axis (issue 29), and days without answers take no room. Each point carries its period and
figures as ``data-`` attributes and a tooltip, and the SVG names what it shows for screen
readers.
"""

from __future__ import annotations

from collections.abc import Sequence
from datetime import date

from quizbot.practice.service import ProgressPoint
from quizbot.ui.render import format_percent, html_text

__all__ = ["progress_chart"]

_HEIGHT = 260
_TOP, _BOTTOM, _LEFT, _RIGHT = 16, 48, 46, 16
_SLOT = 56  # px per period
_MIN_WIDTH = 300  # fits a phone (390 px) without scrolling
_LABEL_GAP = 60  # px at least between two x labels
_COLOR = "#1f5fbf"
_BAR = "#7a9fd6"
_GRID = "#d9d9d9"
_INK = "#444"


def _label(period: str, by: str) -> str:
    """A period as the x axis says it: "9 Nov" for a day, "wk 9 Nov" for a week (its Monday),
    "#12" for a session."""
    if by == "session":
        return f"#{period}"
    try:
        day = date.fromisoformat(period)
    except ValueError:
        return period
    text = f"{day.day} {day.strftime('%b')}"
    return f"wk {text}" if by == "week" else text


def _text(x: float, y: float, text: str, *, anchor: str = "middle", size: int = 12) -> str:
    return (
        f'<text x="{x:.1f}" y="{y:.1f}" font-size="{size}" text-anchor="{anchor}" '
        f'fill="{_INK}">{html_text(text)}</text>'
    )


def _what(by: str) -> str:
    return {"day": "day (UTC)", "week": "week (UTC, from Monday)"}.get(by, "session")


def progress_chart(points: Sequence[ProgressPoint], by: str) -> str:
    """Overall accuracy per period (``by``: "day", "week" or "session") as an SVG chart in HTML:
    a dot per period with answers, its 95% Wilson interval as a vertical bar, the dots joined in
    order. A note instead when no period has an answer."""
    shown = [p for p in points if p.accuracy.n > 0 and p.accuracy.value is not None]
    if not shown:
        return '<p class="qb-progress-empty">No answers to chart yet.</p>'
    width = max(_MIN_WIDTH, _LEFT + _RIGHT + _SLOT * len(shown))
    inner_w = width - _LEFT - _RIGHT
    inner_h = _HEIGHT - _TOP - _BOTTOM

    def y(value: float) -> float:
        return _TOP + inner_h * (1 - value)

    def x(i: int) -> float:
        return _LEFT + inner_w * (i + 0.5) / len(shown)

    parts: list[str] = []
    for tick in (0, 0.25, 0.5, 0.75, 1):
        parts.append(
            f'<line x1="{_LEFT}" x2="{width - _RIGHT}" y1="{y(tick):.1f}" y2="{y(tick):.1f}" '
            f'stroke="{_GRID}" stroke-width="1"/>'
        )
        parts.append(_text(_LEFT - 6, y(tick) + 4, f"{round(100 * tick)}%", anchor="end"))
    step = max(1, -(-_LABEL_GAP // max(1, inner_w // len(shown))))  # every step-th label
    line = " ".join(f"{x(i):.1f},{y(p.accuracy.value or 0):.1f}" for i, p in enumerate(shown))
    if len(shown) > 1:
        parts.append(
            f'<polyline points="{line}" fill="none" stroke="{_COLOR}" stroke-width="1.5" '
            'stroke-opacity="0.6"/>'
        )
    for i, p in enumerate(shown):
        a = p.accuracy
        value, low, high = a.value or 0.0, a.low or 0.0, a.high or 0.0
        cx = x(i)
        tip = (
            f"{_label(p.period, by)}: {a.k}/{a.n} right, {format_percent(value)} "
            f"(95% CI {format_percent(low)}–{format_percent(high)})"
        )
        parts.append(
            f'<g class="qb-progress-point" data-period="{html_text(p.period)}" '
            f'data-accuracy="{value:.4f}" data-low="{low:.4f}" data-high="{high:.4f}" '
            f'data-n="{a.n}"><title>{html_text(tip)}</title>'
            f'<line class="qb-progress-ci" x1="{cx:.1f}" x2="{cx:.1f}" y1="{y(low):.1f}" '
            f'y2="{y(high):.1f}" stroke="{_BAR}" stroke-width="3"/>'
            f'<line x1="{cx - 6:.1f}" x2="{cx + 6:.1f}" y1="{y(low):.1f}" y2="{y(low):.1f}" '
            f'stroke="{_BAR}" stroke-width="2"/>'
            f'<line x1="{cx - 6:.1f}" x2="{cx + 6:.1f}" y1="{y(high):.1f}" y2="{y(high):.1f}" '
            f'stroke="{_BAR}" stroke-width="2"/>'
            f'<circle cx="{cx:.1f}" cy="{y(value):.1f}" r="5" fill="{_COLOR}"/></g>'
        )
        if i % step == 0:
            parts.append(_text(cx, _HEIGHT - _BOTTOM + 18, _label(p.period, by)))
    parts.append(_text(_LEFT + inner_w / 2, _HEIGHT - 8, f"per {_what(by)}", size=12))
    title = f"Accuracy per {_what(by)} with 95% intervals, {len(shown)} point(s)"
    return (
        '<div class="qb-progress-chart" style="overflow-x:auto">'
        f'<svg role="img" aria-label="{html_text(title)}" width="{width}" height="{_HEIGHT}" '
        f'viewBox="0 0 {width} {_HEIGHT}" xmlns="http://www.w3.org/2000/svg">'
        + "".join(parts)
        + "</svg>"
        f'<p style="margin:0;font-size:0.85em;color:{_INK}">● accuracy (all topics) · '
        "bar: 95% Wilson interval · hover a point for its figures</p></div>"
    )
