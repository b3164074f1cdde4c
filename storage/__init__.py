"""Storage: tables, engine, migrations and the repository functions everything else calls.

Nothing outside this package imports SQLAlchemy or SQLModel or builds SQL.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from storage.engine import Database, EngineOptions, mask_url, normalize_database_url
    from storage.migrate import SchemaStatus, ensure_schema, head_revision, schema_status, upgrade

# Imported on first use (PEP 562), so that a light module of this package (storage.quick, for
# `quizbot kb list`) can be imported without SQLAlchemy and Alembic (~0.7 s).
_LAZY = {
    "Database": "storage.engine",
    "EngineOptions": "storage.engine",
    "mask_url": "storage.engine",
    "normalize_database_url": "storage.engine",
    "SchemaStatus": "storage.migrate",
    "ensure_schema": "storage.migrate",
    "head_revision": "storage.migrate",
    "schema_status": "storage.migrate",
    "upgrade": "storage.migrate",
}


def __getattr__(name: str) -> Any:
    module = _LAZY.get(name)
    if module is None:
        raise AttributeError(f"module 'storage' has no attribute {name!r}")
    import importlib  # noqa: PLC0415

    value = getattr(importlib.import_module(module), name)
    globals()[name] = value
    return value


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
    from storage.engine import Database  # noqa: PLC0415
    from storage.migrate import ensure_schema  # noqa: PLC0415

    db = Database(url, options)
    try:
        db.ping()
        if ensure:
            ensure_schema(db)
    except BaseException:
        db.dispose()
        raise
    return db
