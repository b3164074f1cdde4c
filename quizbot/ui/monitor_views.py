"""What the Monitor tab shows, as text and table rows: headline figures, the overview of every
monitor x model, one monitor's description, its nights, model-id changes, alerts and incidents.

Pure functions of :func:`quizbot.monitoring.nights.history` and stored incidents; laid out by
:mod:`quizbot.ui.monitor` (the chart is :mod:`quizbot.ui.monitor_chart`).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from quizbot.monitoring.describe import describe_monitor as asked_by_monitor
from quizbot.monitoring.nights import NightResult
from quizbot.ui.render import format_estimate, html_text, md_escape
from storage import Database

__all__ = [
    "ALERT_HEADERS",
    "ANCHOR",
    "CHANGE_HEADERS",
    "INCIDENT_HEADERS",
    "NIGHT_HEADERS",
    "ROTATING",
    "SEVERITY_COLORS",
    "SEVERITY_ORDER",
    "OverviewRow",
    "accuracy_text",
    "alert_rows",
    "change_rows",
    "default_model",
    "describe_monitor",
    "f1_text",
    "headline_text",
    "headline_value",
    "incident_choice",
    "incident_rows",
    "is_recall",
    "night_rows",
    "overview_html",
    "overview_rows",
    "provider_changes",
    "run_results_text",
    "sdak_text",
]

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
SEVERITY_COLORS = {"critical": "#c92a2a", "warning": "#e67700", "info": "#1971c2"}
SEVERITY_ORDER = {"info": 0, "warning": 1, "critical": 2}


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


def default_model(histories: Sequence[Mapping[str, Any]], incidents: Sequence[Any]) -> str | None:
    """The model the chart opens on: the one with the most severe active incident, else the
    one whose last night alerted or failed, else the first."""
    models = [str(h["model"]) for h in histories]
    if not models:
        return None
    active = [i for i in incidents if i.active and i.model in models]
    if active:
        worst = max(active, key=lambda i: (SEVERITY_ORDER.get(i.severity, 0), i.last_alert_on))
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
            own.sort(key=lambda i: (-SEVERITY_ORDER.get(i.severity, 0), i.id))
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
    color = SEVERITY_COLORS.get(incident.severity, "#868e96")
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
