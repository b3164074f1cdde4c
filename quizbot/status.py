"""What state the database is in: the facts behind ``quizbot db info`` and the app's status page."""

from __future__ import annotations

from dataclasses import asdict, dataclass
from typing import Any

from storage import Database, schema_status
from storage.repo import planner_warnings, table_counts

__all__ = ["DatabaseReport", "database_report", "may_see_database_details"]


@dataclass(frozen=True)
class DatabaseReport:
    """Where the data lives, which schema it has, and how much of it there is.

    A report without details (``detailed=False``) has neither the location, nor the row counts,
    nor the warnings: what the app shows to anyone who is not an administrator.
    """

    url: str | None
    backend: str
    schema_version: str | None
    schema_head: str
    counts: dict[str, int] | None
    warnings: tuple[str, ...] = ()  # what an operator should fix (planner statistics)

    @property
    def up_to_date(self) -> bool:
        """True when the database has every migration this quizbot knows."""
        return self.schema_version == self.schema_head

    def as_json(self) -> dict[str, Any]:
        """The report as the JSON object ``quizbot db info --json`` prints."""
        data = asdict(self)
        data["warnings"] = list(self.warnings)
        data["up_to_date"] = self.up_to_date
        return data


def may_see_database_details(is_admin: bool) -> bool:
    """Whether the viewer may see where the database is and how many rows it holds.

    The one place that decides it: today, an administrator logged in on the Admin tab.
    """
    return is_admin


def database_report(db: Database, *, detailed: bool = True) -> DatabaseReport:
    """Read the report; works on an empty or outdated database without changing it.

    ``detailed=False`` leaves out the database's location, its row counts and the warnings
    (and does not read them).
    """
    status = schema_status(db)
    return DatabaseReport(
        url=db.masked_url if detailed else None,
        backend=db.backend,
        schema_version=status.current,
        schema_head=status.head,
        counts=table_counts(db) if detailed else None,
        warnings=tuple(planner_warnings(db)) if detailed else (),
    )
