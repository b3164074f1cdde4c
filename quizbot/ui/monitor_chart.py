"""The Monitor tab's chart (:func:`chart_svg`): an SVG drawn here, since the app ships without a
plotting library and Gradio's line plot cannot fill a band. One model's nightly accuracy (or open
recall mean F1) of the anchor set and of the rotating slice as lines with their 95% intervals as
shaded bands, alert markers, failed nights, incident spans, accepted baselines and model-id changes.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from datetime import date
from typing import Any

from quizbot.ui.monitor_views import (
    ANCHOR,
    ROTATING,
    SEVERITY_COLORS,
    SEVERITY_ORDER,
    is_recall,
    provider_changes,
)
from quizbot.ui.render import html_text

__all__ = ["chart_svg"]

LOW, HIGH = "95% low", "95% high"
_COLORS = {
    ANCHOR: "#1f5fbf",
    f"{ANCHOR} {LOW}": "#a9c6f0",
    f"{ANCHOR} {HIGH}": "#a9c6f0",
    ROTATING: "#d9480f",
    f"{ROTATING} {LOW}": "#f7c1a1",
    f"{ROTATING} {HIGH}": "#f7c1a1",
}
_CHANGE_COLOR = "#6c757d"
_CHANGE_PREFIX = "id → "


def _figure(night: Mapping[str, Any], part: str) -> tuple[float, float, float] | None:
    """(value, low, high) of a night's accuracy in ``part`` (mean F1 on a recall night), or
    None."""
    recall = night.get("recall")
    if recall:
        figure = (recall.get(part) or {}).get("f1") or {}
        value = figure.get("mean")
    else:
        figure = (night.get(part) or {}).get("accuracy") or {}
        value = figure.get("value")
    if value is None or night.get("status") != "completed":
        return None
    interval = figure.get("interval") or [value, value]
    return float(value), float(interval[0]), float(interval[1])


def _days(when: str) -> int:
    return date.fromisoformat(when).toordinal()


def _svg_text(x: float, y: float, text: str, *, size: int = 13, anchor: str = "start",
              color: str = "#444") -> str:  # fmt: skip
    return (
        f'<text x="{x:.1f}" y="{y:.1f}" font-size="{size}" fill="{color}" '
        f'text-anchor="{anchor}">{html_text(text)}</text>'
    )


def chart_svg(
    series: Mapping[str, Any] | None,
    incidents: Sequence[Mapping[str, Any]] = (),
    *,
    width: int = 600,
    height: int = 300,
) -> str:
    """The chart of one model as HTML: an SVG and its legend.

    Per night: the accuracy of the anchor set and of the rotating slice as lines, each 95%
    Wilson interval as a **shaded band** (an open recall monitor: their mean F1, each 95%
    Student-t interval as the band); a marker above the night for each of its alerts
    (coloured by severity, the message as its tooltip) and a grey cross for a failed night; a
    dashed grey vertical at each change of the provider-reported model id; each incident
    (``Incident.as_json()``) as a shaded span from its first alerting night to its close (or
    today's last night), and an accepted baseline as a green vertical. Empty text when the
    model has no nights.
    """
    nights = list((series or {}).get("nights") or [])
    if not nights:
        return ""
    axes = _Axes.of(nights, width, height)
    parts = _grid(axes)
    for incident in incidents:
        parts += _incident_span(axes, incident, nights[-1]["date"])
    for part in (ANCHOR, ROTATING):
        parts += _accuracy_line(axes, nights, part)
    for when, _previous, _new in provider_changes(series or {}):
        cx = axes.x(when)
        parts.append(
            f'<line x1="{cx:.1f}" x2="{cx:.1f}" y1="{axes.top}" y2="{axes.top + axes.inner_h}" '
            f'stroke="{_CHANGE_COLOR}" stroke-dasharray="4 3"/>'
        )
    parts += _night_marks(axes, nights, (series or {}).get("alerts") or [])
    recall = is_recall(series)
    what = "open recall mean F1" if recall else "accuracy"
    svg = (
        f'<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 {width} {height}" width="100%" '
        f'role="img" aria-label="{what} per night" style="max-width:760px;height:auto">'
        + "".join(parts)
        + "</svg>"
    )
    title = f"{series['monitor']} · {series['model']}" if series else ""
    if recall:
        title += f" · {what}"
    legend = [
        _swatch(_COLORS[ANCHOR], ANCHOR),
        _swatch(_COLORS[ROTATING], ROTATING),
        _swatch(_COLORS[f"{ANCHOR} {LOW}"], "95% interval (band)"),
        *(_swatch(SEVERITY_COLORS[s], f"▼ {s} alert") for s in ("critical", "warning", "info")),
        *(
            _swatch(_CHANGE_COLOR, f"{_CHANGE_PREFIX}{new} ({when})")
            for when, _previous, new in provider_changes(series or {})
        ),
    ]
    return (
        f'<div class="qb-chart"><div class="qb-chart-title">{html_text(title)}</div>{svg}'
        f'<div class="qb-legend">{"".join(legend)}</div></div>'
    )


@dataclass(frozen=True)
class _Axes:
    """Where the chart's plot area is and how a night and a value map onto it."""

    width: int
    height: int
    first: int  # the first night's ordinal
    last: int
    left: int = 44
    right: int = 12
    top: int = 28
    bottom: int = 34

    @classmethod
    def of(cls, nights: Sequence[Mapping[str, Any]], width: int, height: int) -> _Axes:
        return cls(width, height, _days(nights[0]["date"]), _days(nights[-1]["date"]))

    @property
    def inner_w(self) -> int:
        return self.width - self.left - self.right

    @property
    def inner_h(self) -> int:
        return self.height - self.top - self.bottom

    def x(self, when: str) -> float:
        if self.first == self.last:
            return self.left + self.inner_w / 2
        span = max(1, self.last - self.first)
        return self.left + (_days(when) - self.first) / span * self.inner_w

    def y(self, value: float) -> float:
        return self.top + (1 - value) * self.inner_h


def _grid(axes: _Axes) -> list[str]:
    """The horizontal lines at 0, 0.25, ..., 1 with their labels."""
    parts: list[str] = []
    left, right, width, y = axes.left, axes.right, axes.width, axes.y
    for tick in (0.0, 0.25, 0.5, 0.75, 1.0):
        parts.append(
            f'<line x1="{left}" x2="{width - right}" y1="{y(tick):.1f}" y2="{y(tick):.1f}" '
            'stroke="#e5e5e5"/>'
        )
        parts.append(_svg_text(left - 6, y(tick) + 4, f"{tick:.2f}", size=12, anchor="end"))
    return parts


def _incident_span(axes: _Axes, incident: Mapping[str, Any], last_night: str) -> list[str]:
    """An incident's shaded span, its label, and its accepted baseline (if any)."""
    x, top, inner_h = axes.x, axes.top, axes.inner_h
    start = incident["opened_on"]
    end = incident.get("closed_on") or last_night
    end = min(end, last_night)
    x0, x1 = x(start), max(x(end), x(start) + 4)
    state = incident["state"]
    fill = "#c92a2a" if state in ("open", "acknowledged") else "#868e96"
    tip = html_text(f"incident #{incident['id']}: {incident['metric']}, {state}")
    parts = [
        f'<rect class="qb-incident-span" x="{x0 - 2:.1f}" y="{top}" width="{x1 - x0 + 4:.1f}"'
        f' height="{inner_h}" fill="{fill}" fill-opacity="0.08">'
        f"<title>{tip}</title></rect>",
        _svg_text(x0, top - 16, f"#{incident['id']} {state}", size=12, color=fill),
    ]
    if incident.get("baseline_from"):
        bx = x(incident["baseline_from"])
        parts.append(
            f'<line x1="{bx:.1f}" x2="{bx:.1f}" y1="{top}" y2="{top + inner_h}" '
            'stroke="#2b8a3e" stroke-width="2"/>'
        )
        parts.append(_svg_text(bx + 3, top + inner_h - 4, "baseline", size=12,
                               color="#2b8a3e"))  # fmt: skip
    return parts


def _accuracy_line(axes: _Axes, nights: Sequence[Mapping[str, Any]], part: str) -> list[str]:
    """The band, line and dots of ``part`` (anchor or rotating) over the nights that have it."""
    x, y = axes.x, axes.y
    points = [(n["date"], f) for n in nights if (f := _figure(n, part)) is not None]
    if not points:
        return []
    color, light = _COLORS[part], _COLORS[f"{part} {LOW}"]
    upper = [f"{x(d):.1f},{y(f[2]):.1f}" for d, f in points]
    lower = [f"{x(d):.1f},{y(f[1]):.1f}" for d, f in reversed(points)]
    line = " ".join(f"{x(d):.1f},{y(f[0]):.1f}" for d, f in points)
    return [
        f'<polygon class="qb-band" points="{" ".join(upper + lower)}" fill="{light}" '
        'fill-opacity="0.45" stroke="none"/>',
        f'<polyline points="{line}" fill="none" stroke="{color}" stroke-width="2"/>',
        *(
            f'<circle cx="{x(d):.1f}" cy="{y(f[0]):.1f}" r="2.5" fill="{color}"/>'
            for d, f in points
        ),
    ]


def _night_marks(
    axes: _Axes, nights: Sequence[Mapping[str, Any]], alerts: Sequence[Mapping[str, Any]]
) -> list[str]:
    """Alert markers above their nights, crosses for failed nights, and the date labels."""
    x, y, top = axes.x, axes.y, axes.top
    parts: list[str] = []
    by_night: dict[str, list[Mapping[str, Any]]] = {}
    for alert in alerts:
        by_night.setdefault(alert["date"], []).append(alert)
    for when, found in by_night.items():
        worst = max(found, key=lambda a: SEVERITY_ORDER.get(a["severity"], 0))
        cx = x(when)
        tip = html_text("\n".join(f"{a['severity']}: {a['message']}" for a in found))
        parts.append(
            f'<path class="qb-alert-marker" d="M{cx - 5:.1f},{top - 10} L{cx + 5:.1f},{top - 10} '
            f'L{cx:.1f},{top - 2} Z" fill="{SEVERITY_COLORS[worst["severity"]]}">'
            f"<title>{when}\n{tip}</title></path>"
        )
    for night in nights:
        if night.get("status") == "failed":
            cx, cy = x(night["date"]), y(0) - 6
            parts.append(
                f'<path d="M{cx - 4:.1f},{cy - 4:.1f} L{cx + 4:.1f},{cy + 4:.1f} M{cx + 4:.1f},'
                f'{cy - 4:.1f} L{cx - 4:.1f},{cy + 4:.1f}" stroke="#495057" stroke-width="2">'
                f"<title>{html_text(night['date'] + ': failed')}</title></path>"
            )
    last_index = len(nights) - 1
    ticks = sorted({round(i * last_index / 4) for i in range(5)})
    for i in ticks:
        when = nights[i]["date"]
        anchor = "start" if i == 0 else "end" if i == last_index else "middle"
        label = when if i in (0, last_index) else when[5:]
        parts.append(_svg_text(x(when), axes.height - 10, label, size=12, anchor=anchor))
    return parts


def _swatch(color: str, name: str) -> str:
    return (
        f'<span class="qb-swatch"><span style="background:{color}"></span>{html_text(name)}</span>'
    )
