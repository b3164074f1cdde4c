"""Storage: tables, engine, migrations and the repository functions everything else calls.

Nothing outside this package imports SQLAlchemy or SQLModel or builds SQL.
"""

from __future__ import annotations

from storage.engine import Database, EngineOptions, mask_url, normalize_database_url
from storage.migrate import SchemaStatus, ensure_schema, head_revision, schema_status, upgrade

__all__ = [
    "Database",
    "EngineOptions",
    "SchemaStatus",
    "ensure_schema",
    "head_revision",
    "mask_url",
    "normalize_database_url",
    "open_database",
    "schema_status",
    "upgrade",
]


def open_database(
    url: str, options: EngineOptions | None = None, *, ensure: bool = True
) -> Database:
    """Connect, check the connection works, and (by default) make the schema usable.

    With ``ensure`` an empty database is migrated to the newest schema; an outdated one raises
    :class:`~quizbot.errors.SchemaError` naming ``quizbot db upgrade``.
    """
    db = Database(url, options)
    try:
        db.ping()
        if ensure:
            ensure_schema(db)
    except BaseException:
        db.dispose()
        raise
    return db
