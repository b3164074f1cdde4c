"""Scrubbing secrets out of text stored before redaction existed (``quizbot db scrub-secrets``).

Rows written today are redacted on the way in (:class:`storage.repo.NewResponse`,
``update_run``, :mod:`storage.monitoring`); older ones may still hold a key a provider echoed.
:func:`scrub` passes every stored value of the columns that can hold provider or webhook text
(:data:`TEXT_COLUMNS`, and the strings inside :data:`JSON_COLUMNS`) through a cleaning function
(the caller gives :func:`quizbot.errors.redact`) and writes back the values it changed, all in one
transaction. Running it again changes nothing.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from sqlalchemy import select, update
from sqlmodel import Session, SQLModel, col

from storage.engine import Database
from storage.models import (
    Alert,
    AuditLogRow,
    EvalRun,
    ModelCallCache,
    Monitor,
    MonitorIncident,
    MonitorNight,
    RecallJudgement,
    RephraseCache,
    Response,
)

__all__ = ["JSON_COLUMNS", "TEXT_COLUMNS", "scrub"]

# Text columns that can hold what a provider, a webhook or an error said.
TEXT_COLUMNS: tuple[tuple[type[SQLModel], str], ...] = (
    (Response, "raw_text"),
    (Response, "error_text"),
    (EvalRun, "error_text"),
    (MonitorNight, "error_text"),
    (Alert, "message"),
    (Alert, "delivery_error"),
    (MonitorIncident, "note"),
    (ModelCallCache, "text"),
    (RephraseCache, "text"),
    (AuditLogRow, "detail"),
    (RecallJudgement, "reply"),
)
# JSON columns whose strings can hold an endpoint, a webhook URL or a webhook's answer.
JSON_COLUMNS: tuple[tuple[type[SQLModel], str], ...] = (
    (EvalRun, "config"),
    (Monitor, "definition"),
    (MonitorNight, "summary"),
    (MonitorIncident, "evidence"),
    (MonitorIncident, "events"),
)
_CHUNK = 2000


def _clean_json(value: Any, clean: Callable[[str], str]) -> Any:
    if isinstance(value, str):
        return clean(value)
    if isinstance(value, list):
        return [_clean_json(v, clean) for v in value]
    if isinstance(value, dict):
        return {k: _clean_json(v, clean) for k, v in value.items()}
    return value


def _scrub_column(
    session: Session, model: type[SQLModel], name: str, clean: Callable[[str], Any], write: bool
) -> int:
    key = model.id  # type: ignore[attr-defined]
    column = getattr(model, name)
    changed: list[tuple[int, Any]] = []
    last = None
    while True:  # by id ranges: a large table is never held in memory at once
        stmt = select(key, column).where(col(column).is_not(None)).order_by(key).limit(_CHUNK)
        if last is not None:
            stmt = stmt.where(key > last)
        rows = session.execute(stmt).all()
        for row_id, value in rows:
            new = clean(value)
            if new != value:
                changed.append((row_id, new))
        if len(rows) < _CHUNK:
            break
        last = rows[-1][0]
    if write:
        for row_id, new in changed:
            session.execute(update(model).where(key == row_id).values({name: new}))
    return len(changed)


def scrub(db: Database, clean: Callable[[str], str], *, dry_run: bool = False) -> dict[str, int]:
    """Pass every value of :data:`TEXT_COLUMNS` (and every string inside :data:`JSON_COLUMNS`)
    through ``clean`` and store those it changes, in one transaction (``dry_run``: store
    nothing). Returns how many rows changed (or would change) per ``table.column``."""

    def _scrub(session: Session) -> dict[str, int]:
        counts: dict[str, int] = {}
        for model, name in TEXT_COLUMNS:
            n = _scrub_column(session, model, name, clean, not dry_run)
            counts[f"{model.__tablename__}.{name}"] = n
        for model, name in JSON_COLUMNS:
            n = _scrub_column(session, model, name, lambda v: _clean_json(v, clean), not dry_run)
            counts[f"{model.__tablename__}.{name}"] = n
        return counts

    return db.write(_scrub)
