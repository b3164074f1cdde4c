"""Read-only queries on a SQLite database with the standard library alone, for fast commands.

``quizbot kb list`` would spend most of its time importing SQLAlchemy, SQLModel and Alembic to run
two small queries. :func:`sqlite_kb_summaries` runs them with :mod:`sqlite3`, opening the file
read-only, and only when the database is exactly what the full path would accept without doing
anything: the file exists and its schema is at the newest migration this code knows. Otherwise it
returns None and the caller takes the general path (which creates, migrates or reports).
"""

from __future__ import annotations

import re
import sqlite3
from dataclasses import dataclass
from pathlib import Path

__all__ = ["KbSummaryRow", "light_head_revision", "sqlite_kb_summaries"]

_VERSIONS = Path(__file__).resolve().parent / "migrations" / "versions"
_REVISION = re.compile(r"^revision(?:\s*:\s*[^=]+)?\s*=\s*['\"]([^'\"]+)['\"]", re.MULTILINE)
_DOWN = re.compile(
    r"^down_revision(?:\s*:\s*[^=]+)?\s*=\s*(None|['\"]([^'\"]+)['\"])", re.MULTILINE
)


@dataclass(frozen=True)
class KbSummaryRow:
    """A stored knowledge base as listed: its header and its points per relation."""

    name: str
    version: str
    source: str
    license: str
    relations: dict[str, int]

    @property
    def n_points(self) -> int:
        """Points over every relation."""
        return sum(self.relations.values())


def light_head_revision(versions: Path = _VERSIONS) -> str | None:
    """The newest migration, read from the migration files' text without importing Alembic.

    None unless the files form exactly one head (then the caller asks Alembic, the authority).
    """
    revisions: set[str] = set()
    downs: set[str] = set()
    for path in versions.glob("*.py"):
        text = path.read_text(encoding="utf-8")
        found = _REVISION.search(text)
        if found is None:
            continue
        revisions.add(found.group(1))
        down = _DOWN.search(text)
        if down is None:
            return None  # a merge or an unusual file: not for this reader
        if down.group(2):
            downs.add(down.group(2))
    heads = revisions - downs
    return next(iter(heads)) if len(heads) == 1 else None


def sqlite_kb_summaries(path: Path, timeout_s: float = 30.0) -> list[KbSummaryRow] | None:
    """Every knowledge base in the SQLite file ``path`` by name, or None to take the general path.

    None when the file does not exist, is not at the newest schema, or cannot be read.
    """
    if not path.is_file():
        return None
    head = light_head_revision()
    if head is None:
        return None
    try:
        conn = sqlite3.connect(f"{path.resolve().as_uri()}?mode=ro", uri=True, timeout=timeout_s)
    except sqlite3.Error:
        return None
    try:
        versions = conn.execute("SELECT version_num FROM alembic_version").fetchall()
        if versions != [(head,)]:
            return None
        counts: dict[int, dict[str, int]] = {}
        for kb_id, relation, n in conn.execute(
            "SELECT kb_id, relation, count(*) FROM knowledge_point GROUP BY kb_id, relation"
        ):
            counts.setdefault(int(kb_id), {})[str(relation)] = int(n)
        return [
            KbSummaryRow(
                name, version, source, license, dict(sorted(counts.get(kb_id, {}).items()))
            )
            for kb_id, name, version, source, license in conn.execute(
                "SELECT id, name, version, source, license FROM knowledge_base"
                " WHERE source != 'itemset' ORDER BY name"  # item sets: `quizbot items list`
            )
        ]
    except sqlite3.Error:
        return None
    finally:
        conn.close()
