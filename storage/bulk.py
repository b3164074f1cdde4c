"""Bulk inserts: many rows into one table through the driver's executemany, fast and exact.

SQLAlchemy's ORM-level and Core executemany spend several microseconds per row in Python
(parameter dictionaries, type processing, ``insertmanyvalues`` compilation); for a bulk
generation of 300,000 items that was most of the time. Here the rows are turned into tuples
once, each column's value passed through *the same bind processor SQLAlchemy would use* for that
column type on the connection's dialect (so the stored values are identical, e.g. JSON text on
SQLite, ``Jsonb`` on PostgreSQL, booleans, UTC timestamps), and handed to the driver's
``executemany`` with one ``INSERT ... ON CONFLICT DO NOTHING``.

NUL bytes are refused here for the whole batch at once (the engine's per-value
``before_cursor_execute`` check is told to skip these statements), with the same message.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Mapping, Sequence
from contextlib import contextmanager
from itertools import chain
from operator import attrgetter
from typing import Any

from sqlalchemy import Connection, Table

from storage.engine import NUL_CHECKED, holds_nul, nul_error

__all__ = ["RowWriter", "sqlite_bulk_cache"]

_is_str: Callable[[Any], bool] = str.__instancecheck__
# SQLite's page cache for one bulk transaction, in KiB (negative: a size, not a page count).
# The default (2 MiB) spills the indexes' pages to the WAL again and again while 300,000 rows
# go in; pages are only allocated as used.
BULK_CACHE_KIB = 262_144


class RowWriter:
    """Inserts objects as rows of ``table``, skipping rows whose key is already stored.

    ``attributes`` names, for each column filled from the objects, the attribute to read;
    ``constants`` gives the value of the other columns (the same for every row, e.g. a KB id
    and a creation time). Every column of the table must be one or the other.
    """

    def __init__(
        self,
        conn: Connection,
        table: Table,
        attributes: Mapping[str, str],
        constants: Mapping[str, Any],
    ) -> None:
        missing = {c.name for c in table.columns} - set(attributes) - set(constants)
        if missing:
            raise ValueError(f"no value for columns {sorted(missing)} of {table.name}")
        self.conn = conn
        dialect = conn.dialect
        names = list(attributes)
        self._get = attrgetter(*(attributes[n] for n in names))
        # (index, processor, what it makes of None): None is common (options of a statement)
        # and its bound value is the same every time.
        self._processors = [
            (i, proc, proc(None))
            for i, name in enumerate(names)
            if (proc := table.c[name].type._cached_bind_processor(dialect)) is not None
        ]
        tail = []
        for name, value in constants.items():
            proc = table.c[name].type._cached_bind_processor(dialect)
            tail.append(proc(value) if proc is not None else value)
        self._tail = tuple(tail)
        columns = [*names, *constants]
        mark = "?" if dialect.paramstyle == "qmark" else "%s"
        quote = dialect.identifier_preparer.quote
        self.sql = (
            f"INSERT INTO {quote(table.name)} ({', '.join(quote(c) for c in columns)}) "
            f"VALUES ({', '.join(mark for _ in columns)}) ON CONFLICT DO NOTHING"
        )

    def rows(self, objects: Sequence[Any]) -> list[tuple[Any, ...]]:
        """The driver's parameters for ``objects``, bind processors applied."""
        get, processors, tail = self._get, self._processors, self._tail
        # A value that is the very object of the previous row's (the lineage dict the eight
        # statements of one side share) takes the previous row's bound value: its processor
        # (json.dumps on SQLite) runs once for them all, and the value bound is the same.
        last_in: list[Any] = [None] * len(processors)
        last_out: list[Any] = [none for _i, _proc, none in processors]
        rows: list[tuple[Any, ...]] = []
        for obj in objects:
            values = list(get(obj))
            for k, (i, proc, none) in enumerate(processors):
                value = values[i]
                if value is not last_in[k]:
                    last_in[k] = value
                    last_out[k] = none if value is None else proc(value)
                values[i] = last_out[k]
            rows.append((*values, *tail))
        return rows

    def insert(self, objects: Sequence[Any]) -> int:
        """Insert ``objects`` (one executemany); return how many rows were new."""
        if not objects:
            return 0
        rows = self.rows(objects)
        _refuse_nul(rows)
        result = self.conn.exec_driver_sql(self.sql, rows, execution_options={NUL_CHECKED: True})
        return int(result.rowcount)


def _refuse_nul(rows: Sequence[tuple[Any, ...]]) -> None:
    """:func:`storage.engine.nul_error` if any value of ``rows`` holds a NUL byte.

    Every string of the batch is searched in one pass (joined in C); values that are not plain
    (psycopg's ``Jsonb``) are checked one by one, in the columns where the first row has one.
    """
    flat = chain.from_iterable(rows)
    joined = "\x01".join(filter(_is_str, flat))
    if "\x00" in joined or "\\u0000" in joined:
        raise nul_error()
    wrapped = [i for i, value in enumerate(rows[0]) if hasattr(value, "obj")]
    for i in wrapped:
        last = None
        for row in rows:
            value = row[i]
            if value is not last and holds_nul(value):  # a value rows share: walked once
                raise nul_error()
            last = value


@contextmanager
def sqlite_bulk_cache(conn: Connection) -> Iterator[None]:
    """On SQLite, a large page cache for this connection while the block runs (then restored);
    nothing on other databases."""
    if conn.dialect.name != "sqlite":
        yield
        return
    before = conn.exec_driver_sql("PRAGMA cache_size").scalar()
    conn.exec_driver_sql(f"PRAGMA cache_size = -{BULK_CACHE_KIB}")
    try:
        yield
    finally:
        conn.exec_driver_sql(f"PRAGMA cache_size = {int(before or -2000)}")
