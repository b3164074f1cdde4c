"""Repository functions for monitors: definitions, the per-night claim, drift results and alerts.

The claim is the ``monitor_night`` row, unique on (monitor, model, scheduled date): whoever
inserts it runs that night, anyone else gets ``None`` and moves on, on SQLite and PostgreSQL alike
and across processes. A failed night, or a claim abandoned longer than ``stale_after`` (its
process died), can be taken over by a single atomic UPDATE, so exactly one taker wins.

Functions return the records of :mod:`quizbot.domain` (:class:`~quizbot.domain.Monitor`,
:class:`~quizbot.domain.NightRecord`, :class:`~quizbot.domain.Alert`), never table rows.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from datetime import date, datetime, timedelta
from typing import Any, NamedTuple

from sqlalchemy import delete, or_, select, update
from sqlalchemy.exc import IntegrityError
from sqlmodel import Session, col

from quizbot import domain
from quizbot.errors import NotFoundError, redact
from storage.engine import Database
from storage.models import Alert, DriftResult, Monitor, MonitorNight, NightStatus
from storage.records import record_columns, to_record, to_record_or_none
from storage.types import utcnow

__all__ = [
    "NewFinding",
    "NightRow",
    "claim_night",
    "finish_night",
    "get_monitor",
    "list_alerts",
    "list_monitors",
    "list_nights",
    "mark_alert_delivered",
    "night_series",
    "save_findings",
    "set_night_run",
    "upsert_monitor",
]

DEFAULT_STALE_AFTER = timedelta(hours=6)


def upsert_monitor(
    db: Database,
    name: str,
    definition: dict[str, Any],
    *,
    source_file: str | None = None,
    enabled: bool = True,
) -> domain.Monitor:
    """Create the monitor row or update its definition (as last loaded from the file).

    ``source_file=None`` keeps the file already recorded (a night run by hand does not know it).
    """

    def _do(session: Session) -> domain.Monitor:
        row = session.execute(select(Monitor).where(col(Monitor.name) == name)).scalar_one_or_none()
        if row is None:
            row = Monitor(
                name=name, definition=definition, source_file=source_file, enabled=enabled
            )
            session.add(row)
        else:
            source = source_file if source_file is not None else row.source_file
            if (row.definition, row.source_file, row.enabled) != (definition, source, enabled):
                row.definition, row.source_file, row.enabled = definition, source, enabled
                row.updated_at = utcnow()
        session.flush()
        return to_record(domain.Monitor, row)

    try:
        return db.write(_do)
    except IntegrityError:  # created by another process meanwhile: update that one
        return db.write(_do)


def get_monitor(db: Database, name: str) -> domain.Monitor:
    """The monitor called ``name``; :class:`NotFoundError` if it never ran or was synced."""
    row = db.read(
        lambda s: to_record_or_none(
            domain.Monitor,
            s.execute(select(Monitor).where(col(Monitor.name) == name)).scalar_one_or_none(),
        )
    )
    if row is None:
        raise NotFoundError(
            f"no monitor named {name!r} in the database",
            hint="`quizbot monitor list` shows the monitors of the schedules file",
        )
    return row


def list_monitors(db: Database) -> list[domain.Monitor]:
    """Every monitor, by name."""
    stmt = select(*record_columns(domain.Monitor, Monitor)).order_by(col(Monitor.name))
    return db.read(lambda s: [domain.Monitor(*row) for row in s.execute(stmt).all()])


def claim_night(
    db: Database,
    monitor_id: int,
    model: str,
    scheduled_date: date,
    claimed_by: str,
    *,
    now: datetime | None = None,
    stale_after: timedelta = DEFAULT_STALE_AFTER,
) -> domain.NightRecord | None:
    """Claim one monitor x model x night; ``None`` if someone else holds or finished it.

    A ``failed`` night, or a ``claimed`` one older than ``stale_after``, is taken over (its
    run, if any, is kept so the work resumes rather than restarts).
    """
    now = now or utcnow()
    row = MonitorNight(
        monitor_id=monitor_id,
        model=model,
        scheduled_date=scheduled_date,
        claimed_by=claimed_by,
        created_at=now,
    )

    def _insert(session: Session) -> domain.NightRecord:
        session.add(row)
        session.flush()
        return to_record(domain.NightRecord, row)

    try:
        return db.write(_insert)
    except IntegrityError:
        pass

    def _take_over(session: Session) -> domain.NightRecord | None:
        taken = session.execute(
            update(MonitorNight)
            .where(
                col(MonitorNight.monitor_id) == monitor_id,
                col(MonitorNight.model) == model,
                col(MonitorNight.scheduled_date) == scheduled_date,
                or_(
                    col(MonitorNight.status) == NightStatus.FAILED.value,
                    (col(MonitorNight.status) == NightStatus.CLAIMED.value)
                    & (col(MonitorNight.created_at) < now - stale_after),
                ),
            )
            .values(
                status=NightStatus.CLAIMED.value,
                claimed_by=claimed_by,
                created_at=now,
                error_text=None,
                finished_at=None,
            )
            .returning(col(MonitorNight.id))
        ).scalar_one_or_none()
        if taken is None:
            return None
        return to_record_or_none(domain.NightRecord, session.get(MonitorNight, taken))

    return db.write(_take_over)


def set_night_run(db: Database, night_id: int, run_id: int) -> None:
    """Remember the run a night is using (so a takeover resumes it)."""
    db.write(
        lambda s: s.execute(
            update(MonitorNight).where(col(MonitorNight.id) == night_id).values(run_id=run_id)
        )
    )


def finish_night(
    db: Database,
    night_id: int,
    *,
    status: NightStatus,
    provider_model: str | None = None,
    summary: dict[str, Any] | None = None,
    error_text: str | None = None,
) -> None:
    """Close a night as completed (with its summary) or failed (with the error)."""
    values: dict[str, Any] = {"status": status.value, "finished_at": utcnow()}
    if provider_model is not None:
        values["provider_model"] = provider_model
    if summary is not None:
        values["summary"] = summary
    values["error_text"] = redact(error_text) if error_text is not None else None
    db.write(
        lambda s: s.execute(
            update(MonitorNight).where(col(MonitorNight.id) == night_id).values(**values)
        )
    )


def list_nights(
    db: Database,
    monitor_id: int,
    model: str | None = None,
    *,
    status: NightStatus | None = None,
    before: date | None = None,
    limit: int | None = None,
) -> list[domain.NightRecord]:
    """Nights of a monitor (optionally one model), oldest first; ``limit`` keeps the latest."""
    query = select(*record_columns(domain.NightRecord, MonitorNight)).where(
        col(MonitorNight.monitor_id) == monitor_id
    )
    if model is not None:
        query = query.where(col(MonitorNight.model) == model)
    if status is not None:
        query = query.where(col(MonitorNight.status) == status.value)
    if before is not None:
        query = query.where(col(MonitorNight.scheduled_date) < before)
    query = query.order_by(col(MonitorNight.scheduled_date).desc(), col(MonitorNight.model))
    if limit is not None:
        query = query.limit(limit)
    rows = db.read(lambda s: [domain.NightRecord(*row) for row in s.execute(query).all()])
    rows.reverse()
    return rows


class NightRow(NamedTuple):
    """One night as the monitor page shows it: plain values and only the summary parts asked."""

    model: str
    scheduled_date: date
    run_id: int | None
    provider_model: str | None
    status: str
    error_text: str | None
    parts: dict[str, Any]


def night_series(
    db: Database,
    monitor_id: int,
    model: str | None = None,
    *,
    parts: Sequence[str] = ("overall", "anchor", "rotating"),
) -> list[NightRow]:
    """A monitor's nights, oldest first, with only ``parts`` of each stored summary.

    The database extracts the parts (JSON path on SQLite, ``->`` on PostgreSQL), so a year of
    nights costs one small query instead of decoding every full summary.
    """
    summary = col(MonitorNight.summary)
    query = select(
        col(MonitorNight.model),
        col(MonitorNight.scheduled_date),
        col(MonitorNight.run_id),
        col(MonitorNight.provider_model),
        col(MonitorNight.status),
        col(MonitorNight.error_text),
        *(summary[part] for part in parts),
    ).where(col(MonitorNight.monitor_id) == monitor_id)
    if model is not None:
        query = query.where(col(MonitorNight.model) == model)
    query = query.order_by(col(MonitorNight.scheduled_date), col(MonitorNight.model))
    rows = db.read(lambda s: s.execute(query).all())
    return [
        NightRow(
            model=row[0],
            scheduled_date=row[1],
            run_id=row[2],
            provider_model=row[3],
            status=row[4],
            error_text=row[5],
            parts={part: row[6 + i] or {} for i, part in enumerate(parts)},
        )
        for row in rows
    ]


@dataclass(frozen=True)
class NewFinding:
    """A drift result to store, and the alert to raise with it (``alert_message`` set)."""

    scope: str
    metric: str
    test: str | None = None
    value: float | None = None
    baseline_value: float | None = None
    effect: float | None = None
    p_value: float | None = None
    p_adjusted: float | None = None
    n: int | None = None
    compared_run_ids: tuple[int, ...] = ()
    severity: str | None = None
    alert_message: str | None = None


def save_findings(
    db: Database, night_id: int, findings: Sequence[NewFinding]
) -> list[domain.Alert]:
    """Store a night's drift results and their alerts in one transaction; return the alerts."""

    def _do(session: Session) -> list[domain.Alert]:
        # A re-run of the night replaces its findings, never duplicates them.
        session.execute(delete(Alert).where(col(Alert.monitor_night_id) == night_id))
        session.execute(delete(DriftResult).where(col(DriftResult.monitor_night_id) == night_id))
        alerts: list[Alert] = []
        for finding in findings:
            result = DriftResult(
                monitor_night_id=night_id,
                scope=finding.scope,
                metric=finding.metric,
                test=finding.test,
                value=finding.value,
                baseline_value=finding.baseline_value,
                effect=finding.effect,
                p_value=finding.p_value,
                p_adjusted=finding.p_adjusted,
                n=finding.n,
                compared_run_ids=list(finding.compared_run_ids),
            )
            session.add(result)
            if finding.severity is None or finding.alert_message is None:
                continue
            session.flush()
            alert = Alert(
                monitor_night_id=night_id,
                drift_result_id=result.id,
                severity=finding.severity,
                metric=f"{result.scope}:{result.metric}",
                effect=result.effect,
                p_value=result.p_adjusted if result.p_adjusted is not None else result.p_value,
                message=finding.alert_message,
                run_ids=list(result.compared_run_ids),
            )
            session.add(alert)
            alerts.append(alert)
        session.flush()
        return [to_record(domain.Alert, alert) for alert in alerts]

    return db.write(_do)


def list_alerts(
    db: Database, monitor_id: int, model: str | None = None
) -> list[tuple[domain.Alert, domain.NightRecord]]:
    """A monitor's alerts with their nights, oldest first."""
    query = (
        select(Alert, MonitorNight)
        .join(MonitorNight, col(Alert.monitor_night_id) == col(MonitorNight.id))
        .where(col(MonitorNight.monitor_id) == monitor_id)
    )
    if model is not None:
        query = query.where(col(MonitorNight.model) == model)
    query = query.order_by(col(MonitorNight.scheduled_date), col(Alert.id))
    return db.read(
        lambda s: [
            (to_record(domain.Alert, a), to_record(domain.NightRecord, n))
            for a, n in s.execute(query).all()
        ]
    )


def mark_alert_delivered(db: Database, alert_id: int, error: str | None = None) -> None:
    """Record the webhook delivery (or why it failed)."""
    values: dict[str, Any] = (
        {"delivered_at": utcnow(), "delivery_error": None}
        if error is None
        else {"delivery_error": redact(error)[:2000]}
    )
    db.write(lambda s: s.execute(update(Alert).where(col(Alert.id) == alert_id).values(**values)))
