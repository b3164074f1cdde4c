"""Incidents, not alerts: what people are told about a monitor, and what they can do about it.

A night's drift tests may raise several alerts, and a model that changed keeps raising them
night after night until the comparison window has caught up with its new level. People are not
told about each: the alerts of one monitor x model x **metric** on consecutive nights form one
**incident**, and the webhook is posted when an incident opens and when its state changes, never
for every night.

Metric
    The measured quantity of an alert, without its scope: the anchor, rotating, per-relation and
    CUSUM accuracy tests are all ``accuracy`` (one behaviour change, one incident), a change of
    the provider-reported model id is ``provider_model``, and a night that could not be run
    (an operational failure, no usable answers) is ``night_failed``, an **operational**
    incident distinct from drift.

States
    ``open`` (new), ``acknowledged`` (someone is on it; later alerts still join it),
    ``resolved`` (back in range, or closed by hand), ``accepted`` (the new level is the new
    baseline). Open and acknowledged incidents are *active*: an alert of their metric joins
    them as evidence (the night, its statistics and p-values) instead of opening another.

Resolving by itself
    A drift incident resolves when its metric has been back in range (a completed night
    without an alert of that metric) for :data:`RESOLVE_AFTER_NIGHTS` consecutive nights; an
    operational incident resolves on the first night that completes. A failed night says
    nothing about drift: it neither extends nor resolves a drift incident. An alert after the
    incident resolved opens a new one.

Accept new baseline
    :func:`accept_baseline` closes a drift incident as ``accepted`` and restarts the drift
    comparison window of its monitor x model from a chosen night (by default the night the
    incident opened): :mod:`quizbot.monitoring.nights` then compares each night only with nights
    from that night on, so the accepted level raises no new alerts. The statistics themselves
    (:mod:`quizbot.monitoring.drift`) are unchanged; the window simply holds fewer nights until
    it fills again (window tests and the CUSUM wait for ``min_window`` nights as they do for a
    new monitor).

Webhook
    One JSON object per event (:func:`quizbot.monitoring.alerts.incident_payload`): ``event``
    (``opened``, ``acknowledged``, ``resolved``, ``accepted``), the incident, and the fields of
    the alert that opened it (``monitor``, ``model``, ``date``, ``severity``, ``metric``,
    ``message`` ...). Delivery never raises; its outcome is stored with the event.
"""

from __future__ import annotations

import logging
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import date, datetime
from typing import Any

from quizbot.domain import Alert, Severity
from quizbot.errors import InputError
from quizbot.monitoring.alerts import incident_payload, post_webhook
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
)
from storage.monitoring import get_monitor, list_nights, mark_alert_delivered
from storage.types import utcnow

__all__ = [
    "OPERATIONAL_METRIC",
    "RESOLVE_AFTER_NIGHTS",
    "Active",
    "NightPlan",
    "accept_baseline",
    "acknowledge",
    "incident_metric",
    "plan_night",
    "resolve",
    "track_night",
]

log = logging.getLogger(__name__)

RESOLVE_AFTER_NIGHTS = 3  # completed nights in range before a drift incident resolves itself
OPERATIONAL_METRIC = "night_failed"
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


@dataclass(frozen=True)
class Active:
    """What planning needs of an active incident."""

    id: int
    metric: str
    severity: str
    quiet_nights: int
    kind: str = IncidentKind.DRIFT.value


@dataclass(frozen=True)
class NightPlan:
    """What one night does to the incidents of its monitor x model."""

    openings: tuple[NewIncident, ...]
    updates: tuple[IncidentUpdate, ...]


def plan_night(
    active: Sequence[Active],
    alerts: Sequence[Alert],
    night: date,
    *,
    completed: bool,
    resolve_after: int = RESOLVE_AFTER_NIGHTS,
) -> NightPlan:
    """Which incidents tonight's ``alerts`` open or join, and which incidents resolve.

    Pure: the same arguments always give the same plan (the bench replays it without a
    database). ``completed`` is False for a failed night.
    """
    by_metric: dict[str, list[Alert]] = {}
    for alert in alerts:
        by_metric.setdefault(incident_metric(alert.metric), []).append(alert)
    current = {a.metric: a for a in active}
    openings: list[NewIncident] = []
    updates: list[IncidentUpdate] = []
    for metric, joined in by_metric.items():
        evidence = tuple(_evidence(a, night) for a in joined)
        worst = _worst([a.severity for a in joined])
        incident = current.get(metric)
        if incident is None:
            kind = IncidentKind.OPERATIONAL if metric == OPERATIONAL_METRIC else IncidentKind.DRIFT
            openings.append(NewIncident(metric, kind, worst, evidence))
        else:
            updates.append(
                IncidentUpdate(
                    id=incident.id,
                    severity=_worst([incident.severity, worst]),
                    quiet_nights=0,
                    last_alert_on=night,
                    evidence=evidence,
                )
            )
    for incident in active:
        if incident.metric in by_metric or not completed:
            continue
        quiet = incident.quiet_nights + 1
        needed = 1 if incident.kind == IncidentKind.OPERATIONAL.value else resolve_after
        done = quiet >= needed
        updates.append(
            IncidentUpdate(
                id=incident.id,
                severity=incident.severity,
                quiet_nights=quiet,
                state=IncidentState.RESOLVED if done else None,
                closed_on=night if done else None,
            )
        )
    return NightPlan(tuple(openings), tuple(updates))


def _webhook(db: Database, monitor: str) -> str | None:
    url = get_monitor(db, monitor).definition.get("webhook")
    return str(url) if url else None


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
) -> dict[str, Any]:
    """Log the event, POST it to the webhook, store its outcome; return the payload."""
    payload = incident_payload(
        incident.as_json(), event, night=night, by=by, note=note, provider_model=provider_model
    )
    log.warning(
        "incident %s %s: monitor %s, %s, %s (%s)",
        incident.id, event, incident.monitor, incident.model, incident.metric, incident.severity,
    )  # fmt: skip
    error = post_webhook(webhook, payload) if webhook else None
    if webhook:
        for alert in alerts:
            mark_alert_delivered(db, alert.id, error)
    add_event(db, incident.id, _event(event, night, by, note, webhook, error))
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
    webhook: str | None,
    provider_model: str | None = None,
) -> list[dict[str, Any]]:
    """Fold one night's stored alerts into the incidents of its monitor x model and post the
    webhook for each incident opened or resolved; return those events' payloads."""
    active = active_incidents(db, monitor_id, model)
    plan = plan_night(
        [Active(i.id, i.metric, i.severity, i.quiet_nights, i.kind) for i in active],
        alerts,
        night,
        completed=completed,
    )
    if not plan.openings and not plan.updates:
        return []
    opened, updated = apply_night(db, monitor_id, model, night, plan.openings, plan.updates)
    payloads: list[dict[str, Any]] = []
    for incident in opened:
        own = [a for a in alerts if incident_metric(a.metric) == incident.metric]
        opening = _announce(
            db, incident, "opened", webhook=webhook, night=night, provider_model=provider_model,
            alerts=own,
        )  # fmt: skip
        payloads.append(opening)
    for incident in updated:
        if incident.state != IncidentState.RESOLVED.value:
            continue
        quiet = f"back in range for {incident.quiet_nights} night(s)"
        resolved = _announce(
            db, incident, "resolved", webhook=webhook, night=night, note=quiet,
            provider_model=provider_model,
        )  # fmt: skip
        payloads.append(resolved)
    return payloads


def acknowledge(db: Database, incident_id: int, *, by: str, note: str | None = None) -> Incident:
    """Mark an open incident acknowledged (later alerts still join it); posts the webhook."""
    return _by_hand(
        db, incident_id, IncidentState.ACKNOWLEDGED, {IncidentState.OPEN}, "acknowledged", by, note
    )


def resolve(db: Database, incident_id: int, *, by: str, note: str | None = None) -> Incident:
    """Close an open or acknowledged incident by hand; posts the webhook."""
    return _by_hand(db, incident_id, IncidentState.RESOLVED, ACTIVE_STATES, "resolved", by, note)


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
) -> Incident:
    before = get_incident(db, incident_id)
    webhook = _webhook(db, before.monitor)
    today = closed_on or datetime.now().astimezone().date()
    changed = change_state(
        db, incident_id, state, allowed_from=allowed, closed_on=today, baseline=baseline,
        note=note,
    )  # fmt: skip
    _announce(db, changed, event, webhook=webhook, by=by, note=note)
    return get_incident(db, incident_id)


def accept_baseline(
    db: Database,
    incident_id: int,
    *,
    by: str,
    from_night: date | None = None,
    note: str | None = None,
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
        closed_on=None, baseline=night,
    )  # fmt: skip
