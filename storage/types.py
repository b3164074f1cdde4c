"""Column types shared by every table."""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Any

from sqlalchemy import JSON, DateTime
from sqlalchemy.dialects import postgresql
from sqlalchemy.engine import Dialect
from sqlalchemy.types import TypeDecorator

from quizbot import clock

__all__ = ["JSONType", "UTCDateTime", "utcnow"]

# JSONB on PostgreSQL (indexable, compact); JSON text elsewhere.
JSONType = JSON().with_variant(postgresql.JSONB(), "postgresql")


def utcnow() -> datetime:
    """The current time, timezone-aware in UTC, by quizbot's one clock
    (:func:`quizbot.clock.now`: the real clock, or the time tests and demos set)."""
    return clock.now()


class UTCDateTime(TypeDecorator[datetime]):
    """A timestamp that is always timezone-aware UTC in Python, whatever the backend stores.

    PostgreSQL keeps ``timestamptz``; SQLite has no time zones, so the value is stored as naive UTC
    and made aware again on load. Naive datetimes are refused on write: their meaning is a guess.
    """

    impl = DateTime(timezone=True)
    cache_ok = True

    def process_bind_param(self, value: datetime | None, dialect: Dialect) -> datetime | None:
        if value is None:
            return None
        if value.tzinfo is None or value.utcoffset() is None:
            raise ValueError(f"naive datetime {value!r}: quizbot stores timezone-aware UTC only")
        value = value.astimezone(UTC)
        if dialect.name == "sqlite":
            return value.replace(tzinfo=None)
        return value

    def process_result_value(self, value: Any, dialect: Dialect) -> datetime | None:
        if value is None:
            return None
        if not isinstance(value, datetime):  # pragma: no cover - defensive for odd drivers
            value = datetime.fromisoformat(str(value))
        aware: datetime = value
        if aware.tzinfo is None:
            return aware.replace(tzinfo=UTC)
        return aware.astimezone(UTC)
