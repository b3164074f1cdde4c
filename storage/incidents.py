"""Repository functions for incidents: the alerts of one monitor x model x metric, grouped.

What makes an incident (which alerts join which incident, when one resolves itself) is decided
in :mod:`quizbot.monitoring.incidents`; this module only stores it. :func:`apply_night` writes a
night's openings and updates in one transaction, :func:`change_state` moves one incident to
another state only from the states allowed (one atomic UPDATE, so two people acknowledging at
once cannot both win), and :func:`baseline_from` says from which night the drift comparisons of a
monitor x model start after "accept new baseline".

Functions return :class:`Incident` records, never table rows.
"""

from __future__ import annotations

from collections.abc import Collection, Sequence
from dataclasses import dataclass, field
from datetime import date, datetime
from typing import Any

from sqlalchemy import func, select
from sqlmodel import Session, col

from quizbot.errors import InputError, NotFoundError
from storage.engine import Database
from storage.models import IncidentKind, IncidentState, Monitor, MonitorIncident
from storage.types import utcnow

__all__ = [
    "ACTIVE_STATES",
    "Incident",
    "IncidentKind",
    "IncidentState",
    "IncidentUpdate",
    "NewIncident",
    "active_incidents",
    "add_event",
    "apply_night",
    "baseline_from",
    "change_state",
    "get_incident",
    "list_incidents",
    "recently_resolved",
]

ACTIVE_STATES = frozenset({IncidentState.OPEN, IncidentState.ACKNOWLEDGED})


@dataclass(frozen=True)
class Incident:
    """One incident as stored, with its monitor's name."""

    id: int
    monitor_id: int
    monitor: str
    model: str
    metric: str
    kind: str
    state: str
    severity: str
    opened_on: date
    last_alert_on: date
    quiet_nights: int
    closed_on: date | None
    baseline_from: date | None
    evidence: list[dict[str, Any]]
    events: list[dict[str, Any]]
    note: str | None
    created_at: datetime
    updated_at: datetime
    nights: list[dict[str, Any]] = field(default_factory=list)

    @property
    def active(self) -> bool:
        """Open or acknowledged: later alerts of its metric join it."""
        return self.state in ACTIVE_STATES

    def as_json(self) -> dict[str, Any]:
        """JSON-ready dict (``quizbot monitor incidents --json``)."""
        return {
            "id": self.id,
            "monitor": self.monitor,
            "model": self.model,
            "metric": self.metric,
            "kind": self.kind,
            "state": self.state,
            "severity": self.severity,
            "opened_on": self.opened_on.isoformat(),
            "last_alert_on": self.last_alert_on.isoformat(),
            "quiet_nights": self.quiet_nights,
            "closed_on": self.closed_on.isoformat() if self.closed_on else None,
            "baseline_from": self.baseline_from.isoformat() if self.baseline_from else None,
            "note": self.note,
            "evidence": list(self.evidence),
            "events": list(self.events),
            "nights": list(self.nights),
        }


@dataclass(frozen=True)
class NewIncident:
    """An incident to open: its metric, kind, severity, the first night's evidence and its
    record of the night."""

    metric: str
    kind: IncidentKind
    severity: str
    evidence: Sequence[dict[str, Any]]
    night: dict[str, Any] | None = None


@dataclass(frozen=True)
class IncidentUpdate:
    """What a night changes in an incident (``state`` set: it closes, or with ``reopen`` a
    resolved one opens again)."""

    id: int
    severity: str
    quiet_nights: int
    last_alert_on: date | None = None  # set when tonight alerted
    evidence: Sequence[dict[str, Any]] = field(default_factory=tuple)  # tonight's, appended
    state: IncidentState | None = None
    closed_on: date | None = None
    night: dict[str, Any] | None = None  # tonight's record, appended (replacing a re-run's)
    reopen: bool = False  # a resolved incident that recurred: open again, no longer closed


def _record(row: MonitorIncident, monitor: str) -> Incident:
    assert row.id is not None
    return Incident(
        id=row.id,
        monitor_id=row.monitor_id,
        monitor=monitor,
        model=row.model,
        metric=row.metric,
        kind=row.kind,
        state=row.state,
        severity=row.severity,
        opened_on=row.opened_on,
        last_alert_on=row.last_alert_on,
        quiet_nights=row.quiet_nights,
        closed_on=row.closed_on,
        baseline_from=row.baseline_from,
        evidence=list(row.evidence or []),
        events=list(row.events or []),
        note=row.note,
        created_at=row.created_at,
        updated_at=row.updated_at,
        nights=list(row.nights or []),
    )


def _select() -> Any:
    return select(MonitorIncident, col(Monitor.name)).join(
        Monitor, col(Monitor.id) == col(MonitorIncident.monitor_id)
    )


def active_incidents(db: Database, monitor_id: int, model: str) -> list[Incident]:
    """The open and acknowledged incidents of one monitor x model, oldest first."""
    query = (
        _select()
        .where(
            col(MonitorIncident.monitor_id) == monitor_id,
            col(MonitorIncident.model) == model,
            col(MonitorIncident.state).in_([s.value for s in ACTIVE_STATES]),
        )
        .order_by(col(MonitorIncident.id))
    )
    return db.read(lambda s: [_record(row, name) for row, name in s.execute(query).all()])


def apply_night(
    db: Database,
    monitor_id: int,
    model: str,
    night: date,
    openings: Sequence[NewIncident],
    updates: Sequence[IncidentUpdate],
) -> tuple[list[Incident], list[Incident]]:
    """Store one night's openings and updates in one transaction.

    Returns (the incidents opened, the incidents updated), as stored afterwards. A night's
    evidence replaces any evidence of the same night already held (a re-run night).
    """

    def _do(session: Session) -> tuple[list[Incident], list[Incident]]:
        name = session.execute(
            select(col(Monitor.name)).where(col(Monitor.id) == monitor_id)
        ).scalar_one()
        now = utcnow()
        opened: list[MonitorIncident] = []
        for new in openings:
            row = MonitorIncident(
                monitor_id=monitor_id,
                model=model,
                metric=new.metric,
                kind=new.kind.value,
                state=IncidentState.OPEN.value,
                severity=new.severity,
                opened_on=night,
                last_alert_on=night,
                evidence=list(new.evidence),
                events=[],
                nights=[new.night] if new.night else [],
                created_at=now,
                updated_at=now,
            )
            session.add(row)
            opened.append(row)
        changed: list[MonitorIncident] = []
        for change in updates:
            found = session.get(MonitorIncident, change.id)
            if found is None:
                continue
            row = found
            tonight = night.isoformat()
            if change.evidence:
                kept = [e for e in row.evidence or [] if e.get("night") != tonight]
                row.evidence = [*kept, *change.evidence]
            if change.night is not None:
                kept_nights = [e for e in row.nights or [] if e.get("night") != tonight]
                row.nights = [*kept_nights, change.night]
            row.severity = change.severity
            row.quiet_nights = change.quiet_nights
            if change.last_alert_on is not None:
                row.last_alert_on = change.last_alert_on
            if change.reopen:
                row.state = IncidentState.OPEN.value
                row.closed_on = None
            elif change.state is not None:
                row.state = change.state.value
                row.closed_on = change.closed_on
            row.updated_at = now
            changed.append(row)
        session.flush()
        return [_record(r, name) for r in opened], [_record(r, name) for r in changed]

    return db.write(_do)


def recently_resolved(db: Database, monitor_id: int, model: str, since: date) -> list[Incident]:
    """The resolved incidents of one monitor x model closed on ``since`` or later (or closed by
    hand on a later day than the night being run), newest first: a recurrence reopens them."""
    query = (
        _select()
        .where(
            col(MonitorIncident.monitor_id) == monitor_id,
            col(MonitorIncident.model) == model,
            col(MonitorIncident.state) == IncidentState.RESOLVED.value,
            col(MonitorIncident.closed_on) >= since,
        )
        .order_by(col(MonitorIncident.closed_on).desc(), col(MonitorIncident.id).desc())
    )
    return db.read(lambda s: [_record(row, name) for row, name in s.execute(query).all()])


def add_event(db: Database, incident_id: int, event: dict[str, Any]) -> None:
    """Append one event (a state change and the webhook's answer) to an incident's log."""

    def _do(session: Session) -> None:
        row = session.get(MonitorIncident, incident_id)
        if row is not None:
            row.events = [*(row.events or []), event]

    db.write(_do)


def get_incident(db: Database, incident_id: int) -> Incident:
    """Incident ``incident_id``; :class:`NotFoundError` if there is none."""
    query = _select().where(col(MonitorIncident.id) == incident_id)
    found = db.read(lambda s: s.execute(query).one_or_none())
    if found is None:
        raise NotFoundError(
            f"no incident {incident_id}",
            hint="`quizbot monitor incidents` lists the incidents and their ids",
        )
    return _record(found[0], found[1])


def list_incidents(
    db: Database,
    *,
    monitor: str | None = None,
    model: str | None = None,
    states: Collection[IncidentState] | None = None,
) -> list[Incident]:
    """Incidents, newest first, optionally of one monitor, one model, some states."""
    query = _select()
    if monitor is not None:
        query = query.where(col(Monitor.name) == monitor)
    if model is not None:
        query = query.where(col(MonitorIncident.model) == model)
    if states is not None:
        query = query.where(col(MonitorIncident.state).in_([s.value for s in states]))
    query = query.order_by(col(MonitorIncident.opened_on).desc(), col(MonitorIncident.id).desc())
    return db.read(lambda s: [_record(row, name) for row, name in s.execute(query).all()])


def change_state(
    db: Database,
    incident_id: int,
    state: IncidentState,
    *,
    allowed_from: Collection[IncidentState],
    closed_on: date | None = None,
    baseline: date | None = None,
    note: str | None = None,
) -> Incident:
    """Move an incident to ``state`` if it is in one of ``allowed_from`` (the caller logs the
    event with :func:`add_event` once the webhook has answered).

    :class:`NotFoundError` for an unknown id, :class:`InputError` when its state does not allow
    the change (it is left as it was).
    """
    get_incident(db, incident_id)  # NotFoundError first
    allowed = {s.value for s in allowed_from}

    def _do(session: Session) -> str | None:
        row = session.get(MonitorIncident, incident_id, with_for_update=True)
        assert row is not None
        if row.state not in allowed:
            return row.state
        row.state = state.value
        row.updated_at = utcnow()
        if state not in ACTIVE_STATES:
            row.closed_on = closed_on
        if baseline is not None:
            row.baseline_from = baseline
        if note is not None:
            row.note = note
        return None

    refused = db.write(_do)
    if refused is not None:
        raise InputError(
            f"incident {incident_id} is {refused}; it cannot become {state.value}",
            hint="allowed from: " + ", ".join(sorted(allowed)),
        )
    return get_incident(db, incident_id)


def baseline_from(db: Database, monitor_id: int, model: str) -> date | None:
    """The night the drift comparisons of this monitor x model start from (the latest accepted
    baseline), or ``None`` when no baseline was ever accepted."""
    query = select(func.max(col(MonitorIncident.baseline_from))).where(
        col(MonitorIncident.monitor_id) == monitor_id,
        col(MonitorIncident.model) == model,
        col(MonitorIncident.state) == IncidentState.ACCEPTED.value,
    )
    found: date | None = db.read(lambda s: s.execute(query).scalar_one_or_none())
    return found
