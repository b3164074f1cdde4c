"""Incidents, not alerts: what people are told about a monitor, and what they can do about it.

A night's drift tests may raise several alerts, and a model that changed keeps raising them
night after night until the comparison window has caught up with its new level. People are not
told about each: the alerts of one monitor x model x **metric** form one **incident**, and people
are notified only when an incident's **state changes**, never for every night.

Metric
    The measured quantity of an alert, without its scope: the anchor, rotating, per-relation and
    CUSUM accuracy tests are all ``accuracy`` (one behaviour change, one incident), a change of
    the provider-reported model id is ``provider_model``, and a night that could not be run
    (an operational failure, no usable answers) is ``night_failed``, an **operational**
    incident distinct from drift.

States
    ``open`` (new), ``acknowledged`` (someone is on it), ``resolved`` (back in range, or closed
    by hand), ``accepted`` (the new level is the new baseline). Open and acknowledged incidents
    are *active*: an alert of their metric joins them as evidence (the night, its statistics and
    p-values) instead of opening another.

Evidence without noise
    Every completed night an active incident lives through is added to its record
    (``Incident.nights``: the night's figure for the metric, its alerts, the anchor items that
    flipped against the night before the incident, and whether anyone was told), alerting or
    not. Joining is silent. The webhook is posted (and the log warns) only when the state
    changes (:func:`plan_night`):

    ``opened``     the first alert of a metric with no active incident;
    ``worsened``   tonight's worst alert is more severe than anything notified so far (a WARNING
                   incident that turns CRITICAL notifies once; CRITICAL again is silent);
    ``reopened``   an alert of a metric whose incident resolved within the last ``window``
                   nights (the monitor's drift window): flapping reopens it, with its history,
                   instead of starting a new one;
    ``resolved``   back in range (below), or by hand; ``acknowledged`` and ``accepted`` by hand.

Resolving by itself
    A drift incident resolves when its metric has been back in range (a completed night
    without an alert of that metric) for :data:`RESOLVE_AFTER_NIGHTS` consecutive nights; any
    alert of its metric sets that count back to zero. An operational incident resolves on the
    first night that completes. A failed night says nothing about drift: it neither extends
    nor resolves a drift incident.

Accept new baseline
    :func:`accept_baseline` closes a drift incident as ``accepted`` and restarts the drift
    comparison window of its monitor x model from a chosen night (by default the night the
    incident opened): :mod:`quizbot.monitoring.nights` then compares each night only with nights
    from that night on, so the accepted level raises no new alerts. The statistics themselves
    (:mod:`quizbot.monitoring.drift`) are unchanged; the window simply holds fewer nights until
    it fills again (window tests and the CUSUM wait for ``min_window`` nights as they do for a
    new monitor). An accepted incident never reopens: a later change is a new incident.

Webhook
    One body per event (:mod:`quizbot.monitoring.alerts`): the one-line message with its
    figures ("gpt-x on clinical-core: accuracy 0.91 → 0.78 over 3 nights (−13 points,
    p < 0.001); 21 of 120 anchor items flipped") and a link to the incident
    (``QUIZBOT_PUBLIC_URL``), as Slack-compatible ``{"text": ...}`` or raw JSON (the monitor's
    ``webhook_format``). Delivery never raises; its outcome is stored with the event.
"""

from __future__ import annotations

import logging
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field, replace
from datetime import date, timedelta
from typing import Any

from quizbot import clock
from quizbot.config import Settings, load_settings
from quizbot.domain import Alert, Severity
from quizbot.errors import REDACTED, InputError, QuizbotError
from quizbot.monitoring.alerts import (
    Figures,
    incident_payload,
    incident_url,
    post_webhook,
    webhook_body,
)
from quizbot.monitoring.flips import flipped, reference_night
from schedules.config import default_schedules_file, find_monitor, load_monitors
from storage import Database
from storage.incidents import (
    ACTIVE_STATES,
    Incident,
    IncidentKind,
    IncidentState,
    IncidentUpdate,
    NewIncident,
    active_incidents,
    add_event,
    apply_night,
    change_state,
    get_incident,
    recently_resolved,
)
from storage.monitoring import get_monitor, list_nights, mark_alert_delivered
from storage.types import utcnow

__all__ = [
    "NOTIFYING_EVENTS",
    "OPERATIONAL_METRIC",
    "RESOLVE_AFTER_NIGHTS",
    "Active",
    "NightPlan",
    "Recent",
    "Tonight",
    "accept_baseline",
    "acknowledge",
    "incident_metric",
    "metric_figure",
    "notified_severity",
    "plan_night",
    "resolve",
    "track_night",
]

log = logging.getLogger(__name__)

RESOLVE_AFTER_NIGHTS = 3  # completed nights in range before a drift incident resolves itself
OPERATIONAL_METRIC = "night_failed"
NOTIFYING_EVENTS = ("opened", "worsened", "reopened")  # events that say how severe it is
_RANK = {Severity.INFO.value: 0, Severity.WARNING.value: 1, Severity.CRITICAL.value: 2}


def incident_metric(alert_metric: str) -> str:
    """The metric an alert belongs to: its stored ``scope:metric`` without the scope
    (``anchor:accuracy``, ``relation:treats:accuracy`` -> ``accuracy``)."""
    return alert_metric.rsplit(":", 1)[-1]


def _worst(severities: Sequence[str]) -> str:
    return max(severities, key=lambda s: _RANK.get(s, 0))


def _evidence(alert: Alert, night: date) -> dict[str, Any]:
    return {
        "night": night.isoformat(),
        "alert_id": alert.id,
        "severity": alert.severity,
        "statistic": alert.metric,
        "effect": alert.effect,
        "p_value": alert.p_value,
        "message": alert.message,
        "run_ids": list(alert.run_ids),
    }


def notified_severity(incident: Incident) -> str:
    """The severity people were last told of (the last opened/worsened/reopened event; the
    incident's own for one stored before events carried it)."""
    for event in reversed(incident.events):
        if event.get("event") in NOTIFYING_EVENTS and event.get("severity"):
            return str(event["severity"])
    return incident.severity


@dataclass(frozen=True)
class Active:
    """What planning needs of an active incident (``notified``: the severity people were last
    told of; None means its current severity)."""

    id: int
    metric: str
    severity: str
    quiet_nights: int
    kind: str = IncidentKind.DRIFT.value
    notified: str | None = None


@dataclass(frozen=True)
class Recent:
    """A resolved incident that a recurrence within the window reopens."""

    id: int
    metric: str
    severity: str
    quiet_nights: int = 0


@dataclass(frozen=True)
class NightPlan:
    """What one night does to the incidents of its monitor x model; ``events`` names the
    notification each update makes (``worsened``, ``reopened``, ``resolved``), by incident id.
    Every opening notifies (``opened``); an update not in ``events`` is silent."""

    openings: tuple[NewIncident, ...]
    updates: tuple[IncidentUpdate, ...]
    events: dict[int, str] = field(default_factory=dict)


def _night_entry(
    night: date,
    joined: Sequence[Alert],
    figure: Mapping[str, Any] | None,
    event: str | None,
) -> dict[str, Any]:
    return {
        "night": night.isoformat(),
        "alerts": len(joined),
        "worst": _worst([a.severity for a in joined]) if joined else None,
        **({"figure": dict(figure)} if figure else {}),
        "notified": event,
    }


def plan_night(
    active: Sequence[Active],
    alerts: Sequence[Alert],
    night: date,
    *,
    completed: bool,
    resolve_after: int = RESOLVE_AFTER_NIGHTS,
    resolved: Sequence[Recent] = (),
    figures: Mapping[str, Mapping[str, Any]] | None = None,
) -> NightPlan:
    """Which incidents tonight's ``alerts`` open, join, worsen or reopen, and which resolve.

    ``resolved``: incidents of this monitor x model resolved within the window (newest first),
    which an alert of their metric reopens. ``figures``: tonight's figure per metric, kept in
    each incident's record of the night. Pure: the same arguments always give the same plan
    (the bench replays it without a database). ``completed`` is False for a failed night.
    """
    figures = figures or {}
    by_metric: dict[str, list[Alert]] = {}
    for alert in alerts:
        by_metric.setdefault(incident_metric(alert.metric), []).append(alert)
    current = {a.metric: a for a in active}
    recent: dict[str, Recent] = {}
    for r in resolved:
        recent.setdefault(r.metric, r)
    openings: list[NewIncident] = []
    updates: list[IncidentUpdate] = []
    events: dict[int, str] = {}
    for metric, joined in by_metric.items():
        evidence = tuple(_evidence(a, night) for a in joined)
        worst = _worst([a.severity for a in joined])
        figure = figures.get(metric)
        incident = current.get(metric)
        if incident is None and metric in recent:
            back = recent[metric]
            events[back.id] = "reopened"
            updates.append(
                IncidentUpdate(
                    id=back.id, severity=_worst([back.severity, worst]), quiet_nights=0,
                    last_alert_on=night, evidence=evidence, reopen=True,
                    night=_night_entry(night, joined, figure, "reopened"),
                )
            )  # fmt: skip
        elif incident is None:
            kind = IncidentKind.OPERATIONAL if metric == OPERATIONAL_METRIC else IncidentKind.DRIFT
            entry = _night_entry(night, joined, figure, "opened")
            openings.append(NewIncident(metric, kind, worst, evidence, entry))
        else:
            told = incident.notified or incident.severity
            event = "worsened" if _RANK.get(worst, 0) > _RANK.get(told, 0) else None
            if event:
                events[incident.id] = event
            updates.append(
                IncidentUpdate(
                    id=incident.id, severity=_worst([incident.severity, worst]), quiet_nights=0,
                    last_alert_on=night, evidence=evidence,
                    night=_night_entry(night, joined, figure, event),
                )
            )  # fmt: skip
    for incident in active:
        if incident.metric in by_metric or not completed:
            continue
        quiet = incident.quiet_nights + 1
        needed = 1 if incident.kind == IncidentKind.OPERATIONAL.value else resolve_after
        done = quiet >= needed
        if done:
            events[incident.id] = "resolved"
        updates.append(
            IncidentUpdate(
                id=incident.id,
                severity=incident.severity,
                quiet_nights=quiet,
                state=IncidentState.RESOLVED if done else None,
                closed_on=night if done else None,
                night=_night_entry(
                    night, (), figures.get(incident.metric), "resolved" if done else None
                ),
            )
        )
    return NightPlan(tuple(openings), tuple(updates), events)


@dataclass(frozen=True)
class Tonight:
    """What :func:`track_night` knows of the night besides its alerts: how to describe it and
    where to tell people."""

    monitor: str
    source: str  # the knowledge base, or "item set NAME"
    run_id: int | None = None  # None: the night failed
    summary: Mapping[str, Any] = field(default_factory=dict)
    provider_model: str | None = None
    error: str | None = None
    webhook: str | None = None
    webhook_format: str = "slack"
    public_url: str | None = None
    window: int = 7  # nights within which a resolved incident reopens


def metric_figure(summary: Mapping[str, Any], metric: str) -> dict[str, Any] | None:
    """``{"value", "interval", "n"}`` of ``metric`` in a night's stored summary, or None."""
    part: Mapping[str, Any] = {}
    value = None
    if metric == "accuracy":
        part = ((summary.get("overall") or {}).get("accuracy")) or {}
        value = part.get("value")
    elif metric == "recall_f1":
        part = (((summary.get("recall") or {}).get("overall") or {}).get("f1")) or {}
        value = part.get("mean")
    elif metric == "recall_tiers":
        tiers = (((summary.get("recall") or {}).get("overall") or {}).get("tiers")) or {}
        part = tiers.get("basically correct") or {}
        value = part.get("share")
    elif metric == "sdak_instruction_following":
        sdak = summary.get("sdak") or {}
        value = (sdak.get("metrics") or {}).get("instruction_following")
        part = {
            "interval": (sdak.get("intervals") or {}).get("instruction_following"),
            "n": sdak.get("n_pairs"),
        }
    if value is None:
        return None
    return {"value": float(value), "interval": part.get("interval"), "n": part.get("n")}


class _Describer:
    """Tonight's figure per metric and each incident's figures, reading the reference nights
    (and their answers, for flips) at most once per incident."""

    def __init__(self, db: Database, monitor_id: int, model: str, night: date, t: Tonight):
        self.db, self.monitor_id, self.model, self.night, self.t = db, monitor_id, model, night, t
        self._references: dict[date, Any] = {}

    def reference(self, opened_on: date) -> Any:
        if opened_on not in self._references:
            self._references[opened_on] = reference_night(
                self.db, self.monitor_id, self.model, opened_on
            )
        return self._references[opened_on]

    def figure(self, metric: str, opened_on: date) -> dict[str, Any] | None:
        """Tonight's figure of ``metric`` with the reference night's value and the flips."""
        found = metric_figure(self.t.summary, metric)
        if found is None:
            return None
        ref = self.reference(opened_on)
        if ref is not None:
            before = metric_figure(ref.summary or {}, metric)
            found["before"] = before["value"] if before else None
            found["reference_night"] = ref.scheduled_date.isoformat()
            if metric == "accuracy" and ref.run_id is not None and self.t.run_id is not None:
                compared, flips = flipped(self.db, ref.run_id, self.t.run_id)
                found["anchors"], found["flipped"] = compared, len(flips)
        return found

    def figures(self, incident: Incident | None, metric: str, severity: str,
                alerts: Sequence[Alert]) -> Figures:  # fmt: skip
        """The figures of an event of ``incident`` (None: opening tonight)."""
        opened_on = incident.opened_on if incident is not None else self.night
        own = [a for a in alerts if incident_metric(a.metric) == metric]
        figure = self.figure(metric, opened_on) or {}
        p_values = [a.p_value for a in own if a.p_value is not None]
        detail = None
        if not figure:
            lead = max(own, key=lambda a: _RANK.get(a.severity, 0), default=None)
            detail = lead.message if lead is not None else None
            if metric == OPERATIONAL_METRIC and self.t.error:
                detail = f"the night of {self.night} could not be run: {self.t.error[:300]}"
        return Figures(
            monitor=self.t.monitor,
            model=self.model,
            source=self.t.source,
            metric=metric,
            night=self.night.isoformat(),
            severity=severity,
            before=figure.get("before"),
            after=figure.get("value"),
            interval=figure.get("interval"),
            n=figure.get("n"),
            nights=(self.night - opened_on).days + 1,
            p_value=min(p_values) if p_values else None,
            flipped=figure.get("flipped"),
            anchors=figure.get("anchors"),
            reference_night=figure.get("reference_night"),
            detail=detail,
        )


def _announce(
    db: Database,
    incident: Incident,
    event: str,
    *,
    webhook: str | None,
    night: date | None = None,
    by: str | None = None,
    note: str | None = None,
    provider_model: str | None = None,
    alerts: Sequence[Alert] = (),
    figures: Figures | None = None,
    public_url: str | None = None,
    webhook_format: str = "slack",
) -> dict[str, Any]:
    """Log the event, POST it to the webhook, store its outcome; return the payload."""
    url = incident_url(public_url, incident.id)
    payload = incident_payload(
        incident.as_json(), event, night=night, by=by, note=note, provider_model=provider_model,
        figures=figures, url=url,
    )  # fmt: skip
    log.warning("%s", payload["text"].splitlines()[0])
    body = webhook_body(payload, webhook_format)
    error = post_webhook(webhook, body) if webhook else None
    if webhook:
        for alert in alerts:
            mark_alert_delivered(db, alert.id, error)
    record = _event(event, night, by, note, webhook, error)
    record["severity"] = incident.severity
    record["message"] = payload["message"]
    add_event(db, incident.id, record)
    return payload


def _event(
    event: str,
    night: date | None,
    by: str | None,
    note: str | None,
    webhook: str | None,
    error: str | None,
) -> dict[str, Any]:
    return {
        "event": event,
        "at": utcnow().isoformat(timespec="seconds"),
        "night": night.isoformat() if night else None,
        "by": by,
        "note": note,
        "webhook": "not set" if not webhook else ("failed: " + error if error else "delivered"),
    }


def track_night(
    db: Database,
    monitor_id: int,
    model: str,
    night: date,
    alerts: Sequence[Alert],
    *,
    completed: bool,
    tonight: Tonight,
) -> list[dict[str, Any]]:
    """Fold one night into the incidents of its monitor x model: add the night to each active
    incident's record, open, worsen or reopen incidents on its alerts, resolve those back in
    range; post the webhook for each state change only. Returns those events' payloads."""
    active = active_incidents(db, monitor_id, model)
    since = night - timedelta(days=tonight.window)
    resolved = [i for i in recently_resolved(db, monitor_id, model, since) if i.kind == "drift"]
    describe = _Describer(db, monitor_id, model, night, tonight)
    alerting = {incident_metric(a.metric) for a in alerts}
    opened_on = {i.metric: i.opened_on for i in resolved} | {i.metric: i.opened_on for i in active}
    figures = {
        metric: found
        for metric in alerting | set(opened_on)
        if completed and (found := describe.figure(metric, opened_on.get(metric, night)))
    }
    plan = plan_night(
        [Active(i.id, i.metric, i.severity, i.quiet_nights, i.kind, notified_severity(i))
         for i in active],
        alerts,
        night,
        completed=completed,
        resolved=[Recent(i.id, i.metric, i.severity) for i in resolved],
        figures=figures,
    )  # fmt: skip
    if not plan.openings and not plan.updates:
        return []
    opened, updated = apply_night(db, monitor_id, model, night, plan.openings, plan.updates)
    announced = [(i, "opened") for i in opened]
    announced += [(i, plan.events[i.id]) for i in updated if i.id in plan.events]
    payloads: list[dict[str, Any]] = []
    for incident, event in announced:
        own = [a for a in alerts if incident_metric(a.metric) == incident.metric]
        figures_now = describe.figures(
            None if event == "opened" else incident, incident.metric, incident.severity, own
        )
        note = None
        if event == "resolved":
            note = f"back in range for {incident.quiet_nights} night(s)"
            figures_now = replace(figures_now, p_value=None, detail=note)
        payloads.append(
            _announce(
                db, incident, event, webhook=tonight.webhook, night=night, note=note,
                provider_model=tonight.provider_model, alerts=own, figures=figures_now,
                public_url=tonight.public_url, webhook_format=tonight.webhook_format,
            )
        )  # fmt: skip
    return payloads


def acknowledge(
    db: Database,
    incident_id: int,
    *,
    by: str,
    note: str | None = None,
    settings: Settings | None = None,
) -> Incident:
    """Mark an open incident acknowledged (later nights join it silently); posts the webhook."""
    return _by_hand(
        db, incident_id, IncidentState.ACKNOWLEDGED, {IncidentState.OPEN}, "acknowledged", by, note,
        settings=settings,
    )  # fmt: skip


def resolve(
    db: Database,
    incident_id: int,
    *,
    by: str,
    note: str | None = None,
    settings: Settings | None = None,
) -> Incident:
    """Close an open or acknowledged incident by hand; posts the webhook."""
    return _by_hand(
        db, incident_id, IncidentState.RESOLVED, ACTIVE_STATES, "resolved", by, note,
        settings=settings,
    )  # fmt: skip


@dataclass(frozen=True)
class _Delivery:
    webhook: str | None
    webhook_format: str
    public_url: str | None


def _delivery(db: Database, monitor: str, settings: Settings | None) -> _Delivery:
    """Where a person's action on an incident is posted: the monitor's webhook as the schedules
    file in force declares it (the database keeps only its scheme and host), its body format,
    and the app's public address. No webhook when the monitor is not in that file."""
    settings = settings or load_settings()
    try:
        path = settings.schedules_file or default_schedules_file()
        spec = find_monitor(load_monitors(path), monitor)
    except QuizbotError:
        stored = get_monitor(db, monitor).definition
        url = stored.get("webhook")
        usable = url if url and REDACTED not in str(url) else None
        return _Delivery(usable, str(stored.get("webhook_format") or "slack"), settings.public_url)
    return _Delivery(spec.webhook, spec.webhook_format, settings.public_url)


def _by_hand(
    db: Database,
    incident_id: int,
    state: IncidentState,
    allowed: set[IncidentState] | frozenset[IncidentState],
    event: str,
    by: str,
    note: str | None,
    *,
    closed_on: date | None = None,
    baseline: date | None = None,
    settings: Settings | None = None,
) -> Incident:
    before = get_incident(db, incident_id)
    where = _delivery(db, before.monitor, settings)
    today = closed_on or clock.now().astimezone().date()
    changed = change_state(
        db, incident_id, state, allowed_from=allowed, closed_on=today, baseline=baseline,
        note=note,
    )  # fmt: skip
    _announce(
        db, changed, event, webhook=where.webhook, by=by, note=note,
        public_url=where.public_url, webhook_format=where.webhook_format,
    )  # fmt: skip
    return get_incident(db, incident_id)


def accept_baseline(
    db: Database,
    incident_id: int,
    *,
    by: str,
    from_night: date | None = None,
    note: str | None = None,
    settings: Settings | None = None,
) -> Incident:
    """Accept the level a drift incident found as the new baseline.

    The incident closes as ``accepted`` and the drift comparisons of its monitor x model start
    from ``from_night`` (default: the night the incident opened); nights before it leave the
    comparison window. :class:`InputError` for an operational incident, or a night after the
    last night run for that model; posts the webhook.
    """
    incident = get_incident(db, incident_id)
    if incident.kind != IncidentKind.DRIFT.value:
        raise InputError(
            f"incident {incident_id} is operational (a night that could not be run): "
            "there is no level to accept",
            hint=f"resolve it instead: `quizbot monitor resolve {incident_id}`",
        )
    night = from_night or incident.opened_on
    last = list_nights(db, incident.monitor_id, incident.model, limit=1)
    if last and night > last[0].scheduled_date:
        raise InputError(
            f"--from-night {night} is after the last night run for {incident.model} "
            f"({last[0].scheduled_date})",
            hint=f"choose a night from {incident.opened_on} to {last[0].scheduled_date}",
        )
    allowed = {*ACTIVE_STATES, IncidentState.RESOLVED}
    return _by_hand(
        db, incident_id, IncidentState.ACCEPTED, allowed, "accepted", by,
        note if note is not None else f"new baseline from {night}",
        closed_on=None, baseline=night, settings=settings,
    )  # fmt: skip
