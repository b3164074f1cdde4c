"""The Monitor tab's incident page: one incident's events, the nights it lived through and the
anchor items that flipped, with the model's own words (:func:`incident_page_html`).

A link in a notification (``/?tab=monitor&incident=N``, :func:`quizbot.monitoring.alerts.
incident_url`) opens the page on that incident. Its tables are HTML of our own: at 390 px each row
becomes a card whose cells carry their header, so no cell is ever cut. Every viewer of the tab
may read it; acting on an incident stays an admin's (:func:`quizbot.ui.monitor.incident_action`).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import gradio as gr

from quizbot.monitoring.alerts import incident_url
from quizbot.monitoring.flips import SORT_KEYS, Flip, FlipReport, incident_flips
from quizbot.ui.boundary import guarded
from quizbot.ui.context import UiContext
from quizbot.ui.render import html_text
from storage.incidents import get_incident, list_incidents

__all__ = [
    "INCIDENT_CSS",
    "IncidentPage",
    "cards_table",
    "incident_page",
    "incident_page_html",
    "incident_section",
]

_SEVERITY_COLORS = {"critical": "#c92a2a", "warning": "#e67700", "info": "#1971c2"}
_SEVERITY_ORDER = {"info": 0, "warning": 1, "critical": 2}


def _choice(incident: Any) -> tuple[str, int]:
    label = (
        f"#{incident.id} {incident.monitor} / {incident.model} / {incident.metric} "
        f"({incident.severity}, {incident.state}, since {incident.opened_on})"
    )
    return label, int(incident.id)


INCIDENT_CSS = """
<style>
.qb-incident-page h4 { margin: 4px 0 6px; }
.qb-incident-page .qb-message { font-size: 1.02em; margin: 6px 0; }
table.qb-cards { width: 100%; border-collapse: collapse; font-size: 0.9em; margin: 4px 0 12px;
  border: none !important; }
table.qb-cards th, table.qb-cards td { padding: 5px 8px; border-bottom: 1px solid #e5e5e5;
  text-align: left; vertical-align: top; overflow-wrap: anywhere; }
table.qb-cards .qb-raw { font-family: ui-monospace, monospace; font-size: 0.92em;
  white-space: pre-wrap; color: #333; }
@media (max-width: 640px) {
  table.qb-cards thead { display: none; }
  table.qb-cards tr { display: block; border: 1px solid #dee2e6; border-radius: 8px;
    margin-bottom: 10px; padding: 4px 6px; }
  #qb-monitor-incident-page table.qb-cards td { display: flex; gap: 8px; border: none !important;
    padding: 3px 2px; }
  table.qb-cards td::before { content: attr(data-label); font-weight: 600; min-width: 92px;
    flex: none; }
}
</style>
"""


def cards_table(headers: Sequence[str], rows: Sequence[Sequence[str]]) -> str:
    """An HTML table of already escaped cells; on a phone each row becomes a card whose cells
    carry their header (``INCIDENT_CSS``), so no cell is ever cut."""
    head = "".join(f"<th>{html_text(h)}</th>" for h in headers)
    body = "".join(
        "<tr>"
        + "".join(
            f'<td data-label="{html_text(h)}">{cell}</td>'
            for h, cell in zip(headers, row, strict=True)
        )
        + "</tr>"
        for row in rows
    )
    return f'<table class="qb-cards"><thead><tr>{head}</tr></thead><tbody>{body}</tbody></table>'


def _figure_cell(entry: Mapping[str, Any]) -> str:
    figure = entry.get("figure") or {}
    if figure.get("value") is None:
        return "-"
    interval = figure.get("interval")
    text = f"{figure['value']:.3f}" + (
        f" [{interval[0]:.2f}–{interval[1]:.2f}]" if interval else ""
    )
    if figure.get("anchors"):
        text += f"; {figure['flipped']} of {figure['anchors']} anchors flipped"
    return html_text(text)


def _answer(outcome: str, answer: str | None, raw: str | None) -> str:
    said = html_text((raw or "").strip()[:400] or "-")
    return f'{html_text(outcome)} ({html_text(answer or "-")})<div class="qb-raw">{said}</div>'


def _event_row(e: Mapping[str, Any]) -> list[str]:
    return [
        html_text(str(e.get("at", ""))[:16]),
        html_text(e["event"]),
        html_text(e.get("by") or "-"),
        html_text(e.get("message") or e.get("note") or ""),
        html_text(str(e.get("webhook", "-"))),
    ]


def _night_row(n: Mapping[str, Any]) -> list[str]:
    alerts = f"{n.get('alerts', 0)}" + (f" (worst {n['worst']})" if n.get("worst") else "")
    return [
        html_text(n["night"]),
        _figure_cell(n),
        html_text(alerts),
        html_text(n.get("notified") or "no (evidence only)"),
    ]


def _flip_row(f: Flip) -> list[str]:
    return [
        html_text(f.relation),
        html_text(f.direction),
        html_text(f.text[:300]),
        _answer(f.before, f.before_answer, f.before_raw),
        _answer(f.after, f.after_answer, f.after_raw),
    ]


def incident_page_html(incident: Any, flips: FlipReport, url: str | None = None) -> str:
    """One incident's page: its state and latest message, the events (who was told what), every
    night it lived through (alerting or not), and the anchor items whose answer changed between
    the night before it opened and its latest night, with the model's own words."""
    color = _SEVERITY_COLORS.get(incident.severity, "#868e96")
    badge = (
        f'<span class="qb-badge" style="background:{color}">'
        f"{html_text(incident.severity)} · {html_text(incident.state)}</span>"
    )
    said = [e for e in incident.events if e.get("message")]
    nightly = [e for e in said if e.get("event") in ("opened", "worsened", "reopened", "resolved")]
    told = nightly or said  # the figures of the latest change, before a person's note
    message = html_text(told[-1]["message"]) if told else ""
    link = f' · <a href="{html_text(url)}">link</a>' if url else ""
    closed = f", closed {incident.closed_on}" if incident.closed_on else ""
    parts = [
        f'<div class="qb-incident-page" id="qb-incident-{incident.id}">',
        f"<h4>Incident #{incident.id} {badge}</h4>",
        f"<div>{html_text(incident.monitor)} / <code>{html_text(incident.model)}</code> / "
        f"{html_text(incident.metric)} ({html_text(incident.kind)}): opened "
        f"{incident.opened_on}, last alert {incident.last_alert_on}{closed}{link}</div>",
        f'<p class="qb-message">{message}</p>' if message else "",
        "<h4>Events</h4>",
        cards_table(
            ["when", "event", "by", "message", "webhook"], [_event_row(e) for e in incident.events]
        ),
        "<h4>Nights (evidence)</h4>",
        cards_table(
            ["night", "figure", "alerts", "notified"], [_night_row(n) for n in incident.nights]
        ),
    ]
    if flips.reference is None or flips.night is None:
        parts.append("<p>No earlier completed night to compare the anchor answers with.</p>")
    else:
        parts.append(
            f"<h4>Anchor items that flipped, {flips.reference} → {flips.night}: "
            f"{len(flips.flips)} of {flips.compared}</h4>"
        )
        headers = ["relation", "change", "item", "before", "after"]
        parts.append(cards_table(headers, [_flip_row(f) for f in flips.flips]))
    parts.append("</div>")
    return INCIDENT_CSS + "".join(parts)


def incident_page(ctx: UiContext, incident_id: int | None, sort_by: str = "relation") -> str:
    """The page of incident ``incident_id`` (empty text for none)."""
    if incident_id is None:
        return "<p>No incident chosen.</p>"
    found = get_incident(ctx.db, int(incident_id))
    flips = incident_flips(ctx.db, found, by=sort_by if sort_by in SORT_KEYS else "relation")
    return incident_page_html(found, flips, incident_url(ctx.settings.public_url, found.id))


@dataclass(frozen=True)
class IncidentPage:
    """The handlers of the incident section, for the tab's other events to chain."""

    choices: Any  # (current id, request) -> the dropdown
    render: Any  # (id, sort) -> the page's HTML


def incident_section(ctx: UiContext) -> tuple[IncidentPage, Any, Any, Any]:
    """Lay out the incident section (a dropdown, the sort, the page) and wire it; returns its
    handlers and its three components."""
    gr.Markdown("### Incident", elem_id="qb-monitor-incident-title")
    with gr.Row():
        incident_view = gr.Dropdown(
            label="Incident (its page: events, nights, flipped anchor items)",
            choices=[],
            elem_id="qb-monitor-incident-view",
            scale=3,
        )
        flip_sort = gr.Radio(
            list(SORT_KEYS),
            value="relation",
            label="Sort flipped items by",
            elem_id="qb-monitor-flip-sort",
            scale=2,
        )
    incident_html = gr.HTML(elem_id="qb-monitor-incident-page")

    @guarded(1)
    def _choices(current: int | None, request: gr.Request | None = None) -> Any:
        """The incident dropdown: the one a link asked for (``?incident=N``), else the one
        shown, else the most severe active incident."""
        every = list_incidents(ctx.db)
        wanted = (request.query_params.get("incident") if request is not None else None) or ""
        ids = {int(i.id) for i in every}
        chosen = int(wanted) if wanted.isdigit() and int(wanted) in ids else current
        if chosen not in ids:
            active = [i for i in every if i.active]
            worst = max(active, key=lambda i: _SEVERITY_ORDER.get(i.severity, 0), default=None)
            chosen = worst.id if worst else (every[0].id if every else None)
        return gr.Dropdown(choices=[_choice(i) for i in every], value=chosen)

    @guarded(1)
    def _page(chosen: int | None, sort_by: str) -> str:
        return incident_page(ctx, chosen, sort_by)

    def _first_choices(request: gr.Request) -> Any:
        return _choices(None, request)

    gr.on(triggers=None, fn=_first_choices, outputs=incident_view, api_visibility="private")
    gr.on(
        [incident_view.change, flip_sort.change],
        _page,
        inputs=[incident_view, flip_sort],
        outputs=incident_html,
        api_visibility="private",
    )
    return IncidentPage(_choices, _page), incident_view, flip_sort, incident_html
