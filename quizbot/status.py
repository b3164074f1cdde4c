"""What state the database is in: the facts behind ``quizbot db info`` and the app's status page."""

from __future__ import annotations

from dataclasses import asdict, dataclass
from typing import Any

from storage import Database, schema_status
from storage.repo import table_counts

__all__ = ["DatabaseReport", "database_report"]


@dataclass(frozen=True)
class DatabaseReport:
    """Where the data lives, which schema it has, and how much of it there is."""

    url: str
    backend: str
    schema_version: str | None
    schema_head: str
    counts: dict[str, int]

    @property
    def up_to_date(self) -> bool:
        """True when the database has every migration this quizbot knows."""
        return self.schema_version == self.schema_head

    def as_json(self) -> dict[str, Any]:
        """The report as the JSON object ``quizbot db info --json`` prints."""
        data = asdict(self)
        data["up_to_date"] = self.up_to_date
        return data


def database_report(db: Database) -> DatabaseReport:
    """Read the report; works on an empty or outdated database without changing it."""
    status = schema_status(db)
    return DatabaseReport(
        url=db.masked_url,
        backend=db.backend,
        schema_version=status.current,
        schema_head=status.head,
        counts=table_counts(db),
    )
