"""The "Monitor" tab: an overview of every monitor x model first, then one monitor in detail.

The **overview** (:func:`overview_rows`, :func:`overview_html`) lists every monitor x model with
its last night, that night's accuracy (an open recall monitor: its mean F1 with a 95% t
interval and the share basically correct), a 14-night trend (a sparkline and the change against the
7 nights before) and its active incidents (:mod:`quizbot.monitoring.incidents`). An admin gets
the incident actions under it: acknowledge, resolve, or accept the new level as the baseline
(from a chosen night); :func:`incident_action` checks the session's admin flag again on the
server, as the Admin tab's own actions do.

The **detail** of the chosen monitor opens on the model that needs attention
(:func:`default_model`: the most severe active incident, else a last night that alerted or
failed, else the first model). Its chart (:func:`chart_svg`) is an SVG drawn here, since the app
ships without a plotting library and Gradio's line plot cannot fill a band: the nightly accuracy
of the anchor set and of the rotating slice as lines, each 95% Wilson interval as a shaded band,
a marker above each night with alerts, incident spans, accepted baselines and model-id changes.
The tables list the monitor's incidents, nights, model-id changes and alerts; on a phone they
scroll sideways inside their box (the overview turns into cards). Figures come from
:func:`quizbot.monitoring.nights.history` and the stored incidents; nothing is computed here
beyond arranging them.

Monitors are those declared in the schedules file in force (``QUIZBOT_SCHEDULES_FILE`` or the
shipped ``schedules/monitors.toml``) plus any the database remembers. "Run now" runs tonight for
every model of the chosen monitor, exactly as ``quizbot monitor run NAME`` does; it is an admin
action: its row is returned by :func:`build` (hidden until an admin logs in on the Admin tab) and
:func:`run_now` checks the session's admin flag again on the server before doing anything.
"""

from __future__ import annotations

import logging
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from datetime import date
from pathlib import Path
from typing import Any

import gradio as gr
import pandas as pd

from quizbot.errors import InputError, NotFoundError, QuizbotError
from quizbot.monitoring.describe import describe_monitor as asked_by_monitor
from quizbot.monitoring.incidents import accept_baseline, acknowledge, resolve
from quizbot.monitoring.nights import NightResult, history, run_monitor
from quizbot.monitoring.scheduler import schedules_path
from quizbot.ui.boundary import guarded
from quizbot.ui.context import UiContext
from quizbot.ui.monitor_incident import incident_section
from quizbot.ui.render import format_estimate, html_text, md_escape, user_message
from schedules.config import MonitorSpec, find_monitor, load_monitors
from storage import Database
from storage.incidents import list_incidents
from storage.monitoring import list_monitors

__all__ = [
    "ALERT_HEADERS",
    "CHANGE_HEADERS",
    "NIGHT_HEADERS",
    "NOT_ADMIN",
    "accuracy_text",
    "alert_rows",
    "build",
    "change_rows",
    "chart_svg",
    "declared_monitors",
    "default_model",
    "describe_monitor",
    "f1_text",
    "headline_text",
    "headline_value",
    "incident_action",
    "incident_choice",
    "incident_rows",
    "is_recall",
    "monitor_names",
    "night_date",
    "night_rows",
    "overview_html",
    "overview_rows",
    "provider_changes",
    "run_now",
    "run_results_text",
    "sdak_text",
]

log = logging.getLogger(__name__)

NOT_ADMIN = "Only an admin can do this: log in on the **Admin** tab first."

NIGHT_HEADERS = [
    "night",
    "model",
    "status",
    "accuracy (all)",
    "anchor",
    "rotating",
    "n",
    "provider model id",
    "run",
]
CHANGE_HEADERS = ["night", "model", "previous model id", "new model id"]
ALERT_HEADERS = ["night", "model", "severity", "message", "metric", "effect", "p", "webhook"]

ANCHOR, ROTATING = "anchor", "rotating"
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
_SEVERITY_COLORS = {"critical": "#c92a2a", "warning": "#e67700", "info": "#1971c2"}
_SEVERITY_ORDER = {"info": 0, "warning": 1, "critical": 2}
_CHANGE_PREFIX = "id → "


def declared_monitors(ctx: UiContext) -> tuple[Path, list[MonitorSpec], str | None]:
    """The schedules file in force, its monitors, and why it could not be read (or None)."""
    path = schedules_path(ctx.settings)
    try:
        return path, load_monitors(path), None
    except QuizbotError as exc:
        return path, [], user_message(exc)


def monitor_names(specs: Sequence[MonitorSpec], stored: Sequence[str]) -> list[str]:
    """Monitors to offer: those of the schedules file in its order, then others the database has."""
    names = [s.name for s in specs]
    return names + sorted(set(stored) - set(names))


def accuracy_text(scope: Mapping[str, Any]) -> str:
    """``0.500 [0.38–0.62]`` for a scope's accuracy figure, ``-`` when there is none."""
    figure = scope.get("accuracy") or {}
    value = figure.get("value")
    if value is None:
        return "-"
    interval = figure.get("interval")
    band = f" [{interval[0]:.2f}–{interval[1]:.2f}]" if interval else ""
    return f"{value:.3f}{band}"


def f1_text(figure: Mapping[str, Any] | None) -> str:
    """``F1 0.620 [0.51–0.73]`` for an open recall mean F1 figure, ``-`` when there is none."""
    value = (figure or {}).get("mean")
    if value is None:
        return "-"
    interval = (figure or {}).get("interval")
    band = f" [{interval[0]:.2f}–{interval[1]:.2f}]" if interval else ""
    return f"F1 {value:.3f}{band}"


def is_recall(series: Mapping[str, Any] | None) -> bool:
    """Whether a model's history is of an open recall monitor (its nights carry mean F1)."""
    return any(n.get("recall") for n in (series or {}).get("nights") or [])


def headline_text(night: Mapping[str, Any], part: str = "overall") -> str:
    """A night's headline figure in ``part`` (overall, anchor or rotating): mean F1 with its t
    interval for an open recall night, else accuracy with its Wilson interval."""
    recall = night.get("recall")
    if recall:
        figure = (recall.get(part) or {}).get("f1")
        text = f1_text(figure)
        if part == "overall":
            basic = ((recall.get(part) or {}).get("tiers") or {}).get("basically correct") or {}
            if basic.get("share") is not None:
                text += f"; {basic['share']:.0%} basically correct"
        return text
    scope = night.get("metrics" if part == "overall" else part) or {}
    return accuracy_text(scope)


def headline_value(night: Mapping[str, Any]) -> float | None:
    """The number the overview's trend follows: mean F1 (recall) or accuracy, overall."""
    recall = night.get("recall")
    if recall:
        value = ((recall.get("overall") or {}).get("f1") or {}).get("mean")
    else:
        value = ((night.get("metrics") or {}).get("accuracy") or {}).get("value")
    return None if value is None else float(value)


def provider_changes(series: Mapping[str, Any]) -> list[tuple[str, str, str]]:
    """(night, previous id, new id) for each completed night whose reported model id differs
    from the last one reported before it."""
    changes: list[tuple[str, str, str]] = []
    previous: str | None = None
    for night in series["nights"]:
        current = night.get("provider_model")
        if night.get("status") != "completed" or not current:
            continue
        if previous is not None and current != previous:
            changes.append((night["date"], previous, current))
        previous = current
    return changes


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
    left, right, top, bottom = 44, 12, 28, 34
    first, last = _days(nights[0]["date"]), _days(nights[-1]["date"])
    span = max(1, last - first)
    inner_w, inner_h = width - left - right, height - top - bottom

    def x(when: str) -> float:
        if first == last:
            return left + inner_w / 2
        return left + (_days(when) - first) / span * inner_w

    def y(value: float) -> float:
        return top + (1 - value) * inner_h

    parts: list[str] = []
    for tick in (0.0, 0.25, 0.5, 0.75, 1.0):
        parts.append(
            f'<line x1="{left}" x2="{width - right}" y1="{y(tick):.1f}" y2="{y(tick):.1f}" '
            'stroke="#e5e5e5"/>'
        )
        parts.append(_svg_text(left - 6, y(tick) + 4, f"{tick:.2f}", size=12, anchor="end"))
    for incident in incidents:
        start = incident["opened_on"]
        end = incident.get("closed_on") or nights[-1]["date"]
        end = min(end, nights[-1]["date"])
        x0, x1 = x(start), max(x(end), x(start) + 4)
        state = incident["state"]
        fill = "#c92a2a" if state in ("open", "acknowledged") else "#868e96"
        tip = html_text(f"incident #{incident['id']}: {incident['metric']}, {state}")
        parts.append(
            f'<rect class="qb-incident-span" x="{x0 - 2:.1f}" y="{top}" width="{x1 - x0 + 4:.1f}"'
            f' height="{inner_h}" fill="{fill}" fill-opacity="0.08">'
            f"<title>{tip}</title></rect>"
        )
        parts.append(_svg_text(x0, top - 16, f"#{incident['id']} {state}", size=12, color=fill))
        if incident.get("baseline_from"):
            bx = x(incident["baseline_from"])
            parts.append(
                f'<line x1="{bx:.1f}" x2="{bx:.1f}" y1="{top}" y2="{top + inner_h}" '
                'stroke="#2b8a3e" stroke-width="2"/>'
            )
            parts.append(_svg_text(bx + 3, top + inner_h - 4, "baseline", size=12,
                                   color="#2b8a3e"))  # fmt: skip
    for part in (ANCHOR, ROTATING):
        points = [(n["date"], f) for n in nights if (f := _figure(n, part)) is not None]
        if not points:
            continue
        color, light = _COLORS[part], _COLORS[f"{part} {LOW}"]
        upper = [f"{x(d):.1f},{y(f[2]):.1f}" for d, f in points]
        lower = [f"{x(d):.1f},{y(f[1]):.1f}" for d, f in reversed(points)]
        parts.append(
            f'<polygon class="qb-band" points="{" ".join(upper + lower)}" fill="{light}" '
            'fill-opacity="0.45" stroke="none"/>'
        )
        line = " ".join(f"{x(d):.1f},{y(f[0]):.1f}" for d, f in points)
        parts.append(f'<polyline points="{line}" fill="none" stroke="{color}" stroke-width="2"/>')
        parts.extend(
            f'<circle cx="{x(d):.1f}" cy="{y(f[0]):.1f}" r="2.5" fill="{color}"/>'
            for d, f in points
        )
    for when, _previous, _new in provider_changes(series or {}):
        cx = x(when)
        parts.append(
            f'<line x1="{cx:.1f}" x2="{cx:.1f}" y1="{top}" y2="{top + inner_h}" '
            f'stroke="{_CHANGE_COLOR}" stroke-dasharray="4 3"/>'
        )
    by_night: dict[str, list[Mapping[str, Any]]] = {}
    for alert in (series or {}).get("alerts") or []:
        by_night.setdefault(alert["date"], []).append(alert)
    for when, alerts in by_night.items():
        worst = max(alerts, key=lambda a: _SEVERITY_ORDER.get(a["severity"], 0))
        cx = x(when)
        tip = html_text("\n".join(f"{a['severity']}: {a['message']}" for a in alerts))
        parts.append(
            f'<path class="qb-alert-marker" d="M{cx - 5:.1f},{top - 10} L{cx + 5:.1f},{top - 10} '
            f'L{cx:.1f},{top - 2} Z" fill="{_SEVERITY_COLORS[worst["severity"]]}">'
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
        parts.append(_svg_text(x(when), height - 10, label, size=12, anchor=anchor))
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
        *(_swatch(_SEVERITY_COLORS[s], f"▼ {s} alert") for s in ("critical", "warning", "info")),
        *(
            _swatch(_CHANGE_COLOR, f"{_CHANGE_PREFIX}{new} ({when})")
            for when, _previous, new in provider_changes(series or {})
        ),
    ]
    return (
        f'<div class="qb-chart"><div class="qb-chart-title">{html_text(title)}</div>{svg}'
        f'<div class="qb-legend">{"".join(legend)}</div></div>'
    )


def _swatch(color: str, name: str) -> str:
    return (
        f'<span class="qb-swatch"><span style="background:{color}"></span>{html_text(name)}</span>'
    )


def default_model(histories: Sequence[Mapping[str, Any]], incidents: Sequence[Any]) -> str | None:
    """The model the chart opens on: the one with the most severe active incident, else the
    one whose last night alerted or failed, else the first."""
    models = [str(h["model"]) for h in histories]
    if not models:
        return None
    active = [i for i in incidents if i.active and i.model in models]
    if active:
        worst = max(active, key=lambda i: (_SEVERITY_ORDER.get(i.severity, 0), i.last_alert_on))
        return str(worst.model)
    for h in histories:
        nights = h["nights"]
        if nights and (
            nights[-1]["status"] == "failed"
            or any(a["date"] == nights[-1]["date"] for a in h["alerts"])
        ):
            return str(h["model"])
    return models[0]


def _trend(values: Sequence[float]) -> tuple[str, float | None]:
    """A sparkline of ``values`` and the last value minus the mean of up to 7 before it."""
    if not values:
        return "", None
    w, h = 110, 26
    lo, hi = min(values), max(values)
    spread = (hi - lo) or 1.0
    step = w / max(1, len(values) - 1)
    points = " ".join(
        f"{i * step:.1f},{h - 2 - (v - lo) / spread * (h - 4):.1f}" for i, v in enumerate(values)
    )
    before = values[-8:-1]
    delta = values[-1] - sum(before) / len(before) if before else None
    svg = (
        f'<svg class="qb-spark" viewBox="0 0 {w} {h}" width="{w}" height="{h}" aria-hidden="true">'
        f'<polyline points="{points}" fill="none" stroke="#1f5fbf" stroke-width="1.5"/></svg>'
    )
    return svg, delta


@dataclass(frozen=True)
class OverviewRow:
    """One monitor x model on the overview."""

    monitor: str
    model: str
    last_night: str | None
    last_status: str | None
    accuracy: str
    trend: list[float]
    change: float | None  # last accuracy minus the mean of up to 7 nights before it
    incidents: list[Any]  # active incidents, most severe first


def overview_rows(
    histories: Mapping[str, Sequence[Mapping[str, Any]]], incidents: Sequence[Any]
) -> list[OverviewRow]:
    """Every monitor x model: last night, its accuracy, the trend, the active incidents."""
    rows: list[OverviewRow] = []
    for monitor, series_list in histories.items():
        for series in series_list:
            nights = series["nights"]
            done = [n for n in nights if n["status"] == "completed"]
            values = [v for n in done[-14:] if (v := headline_value(n)) is not None]
            before = values[-8:-1]
            own = [
                i
                for i in incidents
                if i.active and i.monitor == monitor and i.model == series["model"]
            ]
            own.sort(key=lambda i: (-_SEVERITY_ORDER.get(i.severity, 0), i.id))
            rows.append(
                OverviewRow(
                    monitor=monitor,
                    model=series["model"],
                    last_night=nights[-1]["date"] if nights else None,
                    last_status=nights[-1]["status"] if nights else None,
                    accuracy=headline_text(done[-1]) if done else "-",
                    trend=values,
                    change=values[-1] - sum(before) / len(before) if before else None,
                    incidents=own,
                )
            )
    return rows


def _badge(incident: Any) -> str:
    color = _SEVERITY_COLORS.get(incident.severity, "#868e96")
    text = f"#{incident.id} {incident.metric} · {incident.severity} · {incident.state}"
    return f'<span class="qb-badge" style="background:{color}">{html_text(text)}</span>'


def _change_text(change: float | None) -> str:
    if change is None:
        return ""
    arrow = "▲" if change > 0 else "▼" if change < 0 else "="
    return f'<span class="qb-change">{arrow} {change * 100:+.1f} pts</span>'


_OVERVIEW_HEADERS = (
    "monitor", "model", "last night", "accuracy (all) or recall F1", "trend (14 nights)",
    "open incidents",
)  # fmt: skip


def overview_html(rows: Sequence[OverviewRow]) -> str:
    """The overview as an HTML table; on a phone each row becomes a card (``OVERVIEW_CSS``)."""
    if not rows:
        return '<p class="qb-empty">No monitor has run a night yet.</p>'
    body = []
    for row in rows:
        status = row.last_status or "-"
        last = html_text(row.last_night or "-")
        if status != "completed":
            last += f" <b>{html_text(status)}</b>"
        spark, _ = _trend(row.trend)
        badges = "".join(_badge(i) for i in row.incidents) or '<span class="qb-none">none</span>'
        cells = (
            html_text(row.monitor),
            f"<code>{html_text(row.model)}</code>",
            last,
            html_text(row.accuracy),
            f"{spark} {_change_text(row.change)}",
            badges,
        )
        body.append(
            "<tr>"
            + "".join(
                f'<td data-label="{label}">{cell}</td>'
                for label, cell in zip(_OVERVIEW_HEADERS, cells, strict=True)
            )
            + "</tr>"
        )
    head = "".join(f"<th>{h}</th>" for h in _OVERVIEW_HEADERS)
    return (
        f'<table class="qb-overview"><thead><tr>{head}</tr></thead>'
        f"<tbody>{''.join(body)}</tbody></table>"
    )


def _statements(night: Mapping[str, Any]) -> str:
    metrics = night.get("metrics") or {}
    n = metrics.get("n_items")
    if n is None:
        return "-"
    errors = metrics.get("n_errors") or 0
    return f"{n}" + (f" ({errors} errors)" if errors else "")


def night_rows(histories: Sequence[Mapping[str, Any]]) -> list[list[Any]]:
    """The nights of every model, newest first (``NIGHT_HEADERS``)."""
    rows: list[list[Any]] = []
    for series in histories:
        for night in series["nights"]:
            rows.append(
                [
                    night["date"],
                    series["model"],
                    night["status"] + (f": {night['error'][:200]}" if night.get("error") else ""),
                    headline_text(night),
                    headline_text(night, ANCHOR),
                    headline_text(night, ROTATING),
                    _statements(night),
                    night.get("provider_model") or "-",
                    night.get("run_id") or "-",
                ]
            )
    rows.sort(key=lambda row: (row[0], row[1]))
    rows.sort(key=lambda row: row[0], reverse=True)
    return rows


def change_rows(histories: Sequence[Mapping[str, Any]]) -> list[list[Any]]:
    """Model-id changes of every model, newest first (``CHANGE_HEADERS``)."""
    rows = [
        [when, series["model"], previous, new]
        for series in histories
        for when, previous, new in provider_changes(series)
    ]
    rows.sort(key=lambda row: (row[0], row[1]))
    rows.sort(key=lambda row: row[0], reverse=True)
    return rows


def _delivery(alert: Mapping[str, Any]) -> str:
    if alert.get("delivered"):
        return "delivered"
    if alert.get("delivery_error"):
        return f"failed: {alert['delivery_error']}"[:200]
    return "-"


def alert_rows(histories: Sequence[Mapping[str, Any]]) -> list[list[Any]]:
    """Alerts of every model, newest night first (``ALERT_HEADERS``)."""
    rows: list[list[Any]] = []
    for series in histories:
        for alert in series["alerts"]:
            effect, p_value = alert.get("effect"), alert.get("p_value")
            rows.append(
                [
                    alert["date"],
                    series["model"],
                    alert["severity"],
                    alert["message"],
                    alert["metric"],
                    "-" if effect is None else f"{effect * 100:+.1f} points",
                    "-" if p_value is None else f"{p_value:.2g}",
                    _delivery(alert),
                ]
            )
    rows.sort(key=lambda row: row[0], reverse=True)  # stable: a night's alerts keep their order
    return rows


def sdak_text(histories: Sequence[Mapping[str, Any]]) -> list[str]:
    """One Markdown line per model whose last night carries SDAK figures (a monitor of
    ``prompt = "sdak"``): its instruction following and pair accuracy with their intervals."""
    lines = []
    for series in histories:
        last = next((n for n in reversed(series["nights"]) if n.get("sdak")), None)
        if last is None:
            continue
        part = last["sdak"]
        metrics, intervals = part.get("metrics") or {}, part.get("intervals") or {}
        shown = "; ".join(
            f"{label} {format_estimate(metrics.get(key), intervals.get(key))}"
            for key, label in (
                ("instruction_following", "instruction following"),
                ("pair_accuracy", "pair accuracy"),
            )
        )
        lines.append(
            f"SDAK, `{series['model']}`, night {last['date']} "
            f"({part.get('n_pairs', 0)} pairs): {shown}."
        )
    return lines


def _no_nights(name: str) -> str:
    return (
        f"No nights yet — run `quizbot monitor run {name}` or press **Run now** "
        "(shown here once an admin has logged in on the Admin tab)."
    )


def describe_monitor(
    name: str,
    definition: Mapping[str, Any] | None,
    histories: Sequence[Mapping[str, Any]],
    db: Database | None = None,
) -> str:
    """A Markdown paragraph: what the monitor asks (:func:`quizbot.monitoring.describe.
    describe_monitor`, the one description ``quizbot monitor list`` and the Admin tab show too),
    of whom, when, and how many nights it has."""
    lines = [f"### {name}"]
    if definition:
        models = ", ".join(f"`{m}`" for m in definition.get("models", []))
        asks = asked_by_monitor(db, definition)
        lines.append(
            f"Models {models}; {md_escape(asks.text)}; at cron `{definition.get('cron')}` "
            f"({definition.get('timezone')})."
            + ("" if definition.get("enabled", True) else " **Disabled** in the schedules file.")
        )
        if definition.get("format") == "recall":
            lines.append("Drift is tested on mean F1 and on the tier shares.")
        if definition.get("prompt") == "sdak":
            lines.append(
                "Asked the SDAK way (the verdict Correct/Incorrect first, then the reason); "
                "drift is also tested on instruction following."
            )
    else:
        lines.append("Not in the schedules file in force; its stored history is shown.")
    nights = [n for series in histories for n in series["nights"]]
    if not nights:
        lines.append(_no_nights(name))
        return "\n\n".join(lines)
    dates = sorted(n["date"] for n in nights)
    alerts = sum(len(series["alerts"]) for series in histories)
    failed = sum(n["status"] == "failed" for n in nights)
    lines.append(
        f"{len({n['date'] for n in nights})} night(s) from {dates[0]} to {dates[-1]}; "
        f"{alerts} alert(s)" + (f"; {failed} failed model-night(s)" if failed else "") + "."
    )
    lines.extend(sdak_text(histories))
    return "\n\n".join(lines)


def run_results_text(results: Sequence[NightResult]) -> str:
    """What "Run now" did, one line per model (Markdown)."""
    if not results:
        return "The monitor has no models."
    lines = []
    for r in results:
        lines.append(f"- {md_escape(r.line())}")
        lines.extend(f"  - {md_escape(e['text'].splitlines()[0])}" for e in r.incidents)
        lines.extend(f"  - {a['severity']}: {md_escape(a['message'])}" for a in r.alerts)
    return "\n".join(lines)


def night_date(text: str | None) -> date | None:
    """The night typed in "Run now" (YYYY-MM-DD), None when empty; :class:`InputError` else."""
    cleaned = (text or "").strip()
    if not cleaned:
        return None
    try:
        return date.fromisoformat(cleaned)
    except ValueError:
        raise InputError(
            f"night {cleaned!r} is not a date",
            hint="write it as YYYY-MM-DD, or leave it empty for tonight",
        ) from None


@guarded(1)
def run_now(ctx: UiContext, admin: bool, name: str | None, when: date | str | None = None) -> str:
    """Run one night (``when``: a date or YYYY-MM-DD text; tonight by default) of monitor
    ``name`` from the schedules file in force, for every model, exactly as ``quizbot monitor
    run NAME --date`` does; admins only (checked here, on the server). Returns Markdown."""
    if not admin:
        return NOT_ADMIN
    if not name:
        return "Choose a monitor first."
    if isinstance(when, str) or when is None:
        when = night_date(when)
    path = schedules_path(ctx.settings)
    spec = find_monitor(load_monitors(path), name)
    results = run_monitor(ctx.db, spec, when=when, settings=ctx.settings)
    return run_results_text(results)


def _frame(headers: list[str], rows: list[list[Any]]) -> Any:
    return pd.DataFrame(rows, columns=headers)


def _histories(ctx: UiContext, name: str) -> list[dict[str, Any]]:
    try:
        return history(ctx.db, name)
    except NotFoundError:  # declared but never run or synced
        return []


OVERVIEW_CSS = """
<style>
.qb-overview { width: 100%; border-collapse: collapse; font-size: 0.92em; }
#qb-monitor-overview .qb-overview th, #qb-monitor-overview .qb-overview td {
  padding: 6px 8px; border: none; border-bottom: 1px solid #e5e5e5; text-align: left;
  vertical-align: middle; }
.qb-overview code { word-break: break-all; }
.qb-badge { display: inline-block; color: #fff; border-radius: 10px; padding: 1px 8px;
  margin: 1px 2px; font-size: 0.85em; white-space: nowrap; }
.qb-none { color: #868e96; }
.qb-change { white-space: nowrap; font-size: 0.9em; }
.qb-chart-title { font-weight: 600; margin: 4px 0; }
.qb-legend { display: flex; flex-wrap: wrap; gap: 4px 14px; font-size: 0.85em; margin-top: 4px; }
.qb-swatch span { display: inline-block; width: 12px; height: 12px; margin-right: 4px;
  vertical-align: -1px; border-radius: 2px; }
@media (max-width: 640px) {
  #qb-monitor-overview .qb-overview thead { display: none; }
  #qb-monitor-overview .qb-overview tr { display: block; border: 1px solid #dee2e6;
    border-radius: 8px; margin-bottom: 10px; padding: 4px 6px; }
  #qb-monitor-overview .qb-overview td { display: flex; gap: 8px; border: none;
    padding: 3px 2px; flex-wrap: wrap; align-items: center; }
  .qb-overview td::before { content: attr(data-label); font-weight: 600; min-width: 96px; }
  #qb-monitor-tables { overflow-x: auto !important; }
  #qb-monitor-incidents, #qb-monitor-changes { min-width: 760px !important; }
  #qb-monitor-nights { min-width: 1300px !important; }
  #qb-monitor-alerts { min-width: 1320px !important; }
}
</style>
"""

INCIDENT_HEADERS = [
    "#",
    "model",
    "metric",
    "kind",
    "state",
    "severity",
    "opened",
    "last alert",
    "alerting nights",
    "closed",
    "note",
]
# Fixed widths, wide enough for each header's longest word in the bold 14 px monospace font
# (8.4 px a character, 16 px padding): Gradio otherwise sizes a column by its data, and a
# header such as "alerting nights" over one-digit counts broke inside its words at 390 px.
INCIDENT_WIDTHS: list[str | int] = ["48px", "120px", "120px", "120px", "130px", "96px",
                                    "112px", "112px", "96px", "112px", "160px"]  # fmt: skip
# Fixed widths (not shares of the screen): on a phone the table keeps them and scrolls sideways
# inside its box, so a date or a status never breaks inside a word.
NIGHT_WIDTHS: list[str | int] = ["112px", "170px", "130px", "180px", "180px", "180px", "90px",
                                 "170px", "64px"]  # fmt: skip
ALERT_WIDTHS: list[str | int] = ["112px", "170px", "96px", "420px", "170px", "120px", "80px",
                                 "130px"]  # fmt: skip
ACTIONS = ("acknowledge", "resolve", "accept")


def incident_rows(incidents: Sequence[Any]) -> list[list[Any]]:
    """One monitor's incidents, newest first (``INCIDENT_HEADERS``)."""
    return [
        [
            i.id,
            i.model,
            i.metric,
            i.kind,
            i.state + (f" (baseline from {i.baseline_from})" if i.baseline_from else ""),
            i.severity,
            i.opened_on.isoformat(),
            i.last_alert_on.isoformat(),
            len({e["night"] for e in i.evidence}),
            i.closed_on.isoformat() if i.closed_on else "-",
            i.note or "",
        ]
        for i in incidents
    ]


def incident_choice(incident: Any) -> tuple[str, int]:
    """A dropdown entry for an incident: (label, id)."""
    label = (
        f"#{incident.id} {incident.monitor} / {incident.model} / {incident.metric} "
        f"({incident.severity}, {incident.state}, since {incident.opened_on})"
    )
    return label, int(incident.id)


@guarded(1)
def incident_action(
    ctx: UiContext,
    admin: bool,
    action: str,
    incident_id: int | None,
    note: str | None = None,
    from_night: str | None = None,
) -> str:
    """Acknowledge, resolve or accept (as the new baseline) an incident; admins only (checked
    here, on the server). Returns Markdown saying what changed and whether the webhook got it."""
    if not admin:
        return NOT_ADMIN
    if action not in ACTIONS:
        raise InputError(f"unknown action {action!r}", hint=f"one of {', '.join(ACTIONS)}")
    if incident_id is None:
        return "Choose an incident first."
    text = (note or "").strip() or None
    by = "admin (app)"
    if action == "acknowledge":
        done = acknowledge(ctx.db, int(incident_id), by=by, note=text, settings=ctx.settings)
    elif action == "resolve":
        done = resolve(ctx.db, int(incident_id), by=by, note=text, settings=ctx.settings)
    else:
        night = None
        if from_night and from_night.strip():
            try:
                night = date.fromisoformat(from_night.strip())
            except ValueError:
                raise InputError(
                    f"baseline night {from_night.strip()!r} is not a date",
                    hint="write it as YYYY-MM-DD, or leave it empty for the night it opened",
                ) from None
        done = accept_baseline(
            ctx.db, int(incident_id), by=by, from_night=night, note=text, settings=ctx.settings
        )
    webhook = (done.events[-1] if done.events else {}).get("webhook", "-")
    extra = f"; drift comparisons now start on {done.baseline_from}" if done.baseline_from else ""
    return (
        f"Incident #{done.id} ({md_escape(done.model)}, {done.metric}) is now "
        f"**{done.state}**{extra}. Webhook: {md_escape(str(webhook))}."
    )


def _overview(ctx: UiContext) -> tuple[str, Any, list[Any]]:
    """The overview's HTML, the action dropdown, and every incident (newest first)."""
    _path, specs, _problem = declared_monitors(ctx)
    names = monitor_names(specs, [m.name for m in list_monitors(ctx.db)])
    histories = {name: _histories(ctx, name) for name in names}
    incidents = list_incidents(ctx.db)
    rows = overview_rows(histories, incidents)
    actionable = [incident_choice(i) for i in incidents if i.state != "accepted"]
    active_first = sorted(actionable, key=lambda c: "(" not in c[0])
    dropdown = gr.Dropdown(choices=active_first, value=active_first[0][1] if active_first else None)
    return OVERVIEW_CSS + overview_html(rows), dropdown, incidents


def build(ctx: UiContext, is_admin: gr.State) -> list[Any]:
    """Lay out the tab; return the admin-only components (hidden until an admin logs in)."""
    gr.Markdown(
        "Nightly knowledge monitors: every night each model answers the **anchor** set (the "
        "same statements every night, compared pairwise) and a **rotating** slice (new "
        "statements every night). Alerts of one model and metric on consecutive nights form "
        "one **incident** (open, acknowledged, resolved, or accepted as the new baseline); "
        "the webhook hears when one opens or changes state."
    )
    gr.Markdown("### Overview: every monitor and model", elem_id="qb-monitor-overview-title")
    overview = gr.HTML(elem_id="qb-monitor-overview")
    with gr.Column(visible=False, elem_id="qb-monitor-incident-actions") as actions:
        with gr.Row():
            incident = gr.Dropdown(
                label="Incident", choices=[], elem_id="qb-monitor-incident", scale=3
            )
            note = gr.Textbox(label="Note (optional)", elem_id="qb-monitor-incident-note", scale=2)
            from_night = gr.Textbox(
                label="New baseline from night (YYYY-MM-DD; empty: the night it opened)",
                elem_id="qb-monitor-from-night",
                scale=2,
            )
        with gr.Row():
            ack = gr.Button("Acknowledge", elem_id="qb-monitor-ack", scale=0)
            accept = gr.Button(
                "Accept new baseline", variant="primary", elem_id="qb-monitor-accept", scale=0
            )
            close = gr.Button("Resolve", elem_id="qb-monitor-resolve", scale=0)
        action_result = gr.Markdown(elem_id="qb-monitor-action-result")
    page, incident_view, flip_sort, incident_html = incident_section(ctx)
    gr.Markdown("### One monitor")
    with gr.Row():
        monitor = gr.Dropdown(label="Monitor", choices=[], elem_id="qb-monitor-name", scale=2)
        model = gr.Dropdown(label="Model (chart)", choices=[], elem_id="qb-monitor-model", scale=2)
        refresh = gr.Button("Refresh", size="sm", elem_id="qb-monitor-refresh", scale=0)
    with gr.Row(visible=False, elem_id="qb-monitor-admin") as admin_row:
        run_date = gr.Textbox(
            label="Night to run (YYYY-MM-DD; empty: tonight)",
            elem_id="qb-monitor-run-date",
            scale=1,
        )
        run = gr.Button("Run now", variant="primary", elem_id="qb-monitor-run", scale=0)
    run_result = gr.Markdown(elem_id="qb-monitor-run-result")
    summary = gr.Markdown(elem_id="qb-monitor-summary")
    plot = gr.HTML(elem_id="qb-monitor-plot")
    gr.Markdown(
        "Lines: accuracy per night; shaded bands: its 95% interval; ▼ above a night: its "
        "alerts (hover for the message); × at the bottom: a failed night; red spans: open "
        "incidents (grey once closed); green line: an accepted baseline; dashed grey lines: "
        "nights on which the provider reported a different model id.",
        elem_id="qb-monitor-plot-caption",
    )
    with gr.Column(elem_id="qb-monitor-tables"):
        incidents_table = gr.Dataframe(
            headers=INCIDENT_HEADERS,
            label="Incidents of this monitor (newest first)",
            interactive=False,
            wrap=True,
            column_widths=INCIDENT_WIDTHS,
            max_height=320,
            elem_id="qb-monitor-incidents",
        )
        nights = gr.Dataframe(
            headers=NIGHT_HEADERS,
            label="Nights (all models, newest first)",
            interactive=False,
            wrap=True,
            max_height=420,
            column_widths=NIGHT_WIDTHS,
            elem_id="qb-monitor-nights",
        )
        changes = gr.Dataframe(
            headers=CHANGE_HEADERS,
            label="Model id changes reported by the provider",
            interactive=False,
            wrap=True,
            elem_id="qb-monitor-changes",
        )
        alerts = gr.Dataframe(
            headers=ALERT_HEADERS,
            label="Alerts (newest first)",
            interactive=False,
            wrap=True,
            max_height=420,
            column_widths=ALERT_WIDTHS,
            elem_id="qb-monitor-alerts",
        )

    @guarded(10, at=2)
    def _view(name: str | None, chosen: str | None) -> tuple[Any, ...]:
        board, dropdown, every = _overview(ctx)
        path, specs, problem = declared_monitors(ctx)
        names = monitor_names(specs, [m.name for m in list_monitors(ctx.db)])
        if name not in names:  # the monitor with the most severe active incident, else the first
            active = [i for i in every if i.active and i.monitor in names]
            worst = max(active, key=lambda i: _SEVERITY_ORDER.get(i.severity, 0), default=None)
            name = worst.monitor if worst else (names[0] if names else None)
        if name is None:
            text = (
                f"No monitors are declared in `{path}`. Add a `[[monitor]]` table "
                "(see the shipped `schedules/monitors.toml`)."
            )
            if problem:
                text = f"The schedules file could not be read: {md_escape(problem)}"
            return (
                gr.Dropdown(choices=[], value=None),
                gr.Dropdown(choices=[], value=None),
                text,
                "",
                _frame(INCIDENT_HEADERS, []),
                _frame(NIGHT_HEADERS, []),
                _frame(CHANGE_HEADERS, []),
                _frame(ALERT_HEADERS, []),
                board,
                dropdown,
            )
        declared = {s.name: s.as_json() for s in specs}
        histories = _histories(ctx, name)
        models = [h["model"] for h in histories]
        own = [i for i in every if i.monitor == name]
        chosen = chosen if chosen in models else default_model(histories, own)
        series = next((h for h in histories if h["model"] == chosen), None)
        text = describe_monitor(name, declared.get(name), histories, ctx.db)
        if problem:
            text += f"\n\n**The schedules file could not be read:** {md_escape(problem)}"
        shown = [i.as_json() for i in own if i.model == chosen]
        return (
            gr.Dropdown(choices=names, value=name),
            gr.Dropdown(choices=models, value=chosen),
            text,
            OVERVIEW_CSS + chart_svg(series, shown),
            _frame(INCIDENT_HEADERS, incident_rows(own)),
            _frame(NIGHT_HEADERS, night_rows(histories)),
            _frame(CHANGE_HEADERS, change_rows(histories)),
            _frame(ALERT_HEADERS, alert_rows(histories)),
            board,
            dropdown,
        )

    outputs = [monitor, model, summary, plot, incidents_table, nights, changes, alerts]
    outputs += [overview, incident]
    gr.on(triggers=None, fn=lambda: _view(None, None), outputs=outputs, api_visibility="private")

    refresh.click(
        page.choices, inputs=incident_view, outputs=incident_view, api_visibility="private"
    )
    gr.on(
        [monitor.input, model.input, refresh.click],
        _view,
        inputs=[monitor, model],
        outputs=outputs,
        api_visibility="private",
    )

    def _run(admin: bool, name: str | None, when: str | None) -> str:
        return run_now(ctx, admin, name, when)

    run.click(
        _run, inputs=[is_admin, monitor, run_date], outputs=run_result, api_visibility="private"
    ).then(_view, inputs=[monitor, model], outputs=outputs, api_visibility="private")

    for button, action in ((ack, "acknowledge"), (close, "resolve"), (accept, "accept")):

        def _act(
            admin: bool, chosen: int | None, text: str | None, night: str | None,
            action: str = action,
        ) -> str:  # fmt: skip
            return incident_action(ctx, admin, action, chosen, text, night)

        button.click(
            _act,
            inputs=[is_admin, incident, note, from_night],
            outputs=action_result,
            api_visibility="private",
        ).then(_view, inputs=[monitor, model], outputs=outputs, api_visibility="private").then(
            page.render, inputs=[incident_view, flip_sort], outputs=incident_html,
            api_visibility="private",
        )  # fmt: skip
    return [actions, admin_row]
