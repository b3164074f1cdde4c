"""Table rows into the plain records of :mod:`quizbot.domain`, the only shapes that leave storage.

Repository functions convert inside their transaction, so what a caller gets is a frozen value
with every column already loaded and an ``id`` that is set: it cannot lazy-load, be flushed back
by accident, or change under another session. A record's fields are its table's columns, with the
same names (``tests/storage/test_records.py`` holds them to that); :func:`record_columns` selects
exactly those for bulk reads that skip the ORM.
"""

from __future__ import annotations

from dataclasses import fields
from functools import cache
from typing import TYPE_CHECKING, Any, TypeVar

from sqlmodel import SQLModel

if TYPE_CHECKING:
    from _typeshed import DataclassInstance

__all__ = ["record_columns", "to_record", "to_record_or_none"]

R = TypeVar("R", bound="DataclassInstance")


@cache
def _names(record: type[DataclassInstance]) -> tuple[str, ...]:
    return tuple(f.name for f in fields(record))


def to_record(record: type[R], row: SQLModel) -> R:
    """The record of type ``record`` holding ``row``'s values (the row must have its id)."""
    values = {name: getattr(row, name) for name in _names(record)}
    if values.get("id", 0) is None:  # a programming error: convert after the flush, not before
        raise ValueError(f"{type(row).__name__} has no id yet; flush before converting it")
    return record(**values)


def to_record_or_none(record: type[R], row: SQLModel | None) -> R | None:
    """:func:`to_record`, passing ``None`` through (a lookup that found nothing)."""
    return None if row is None else to_record(record, row)


def record_columns(record: type[DataclassInstance], table: type[SQLModel]) -> list[Any]:
    """The columns of ``table`` behind ``record``'s fields, in field order (``record(*row)``)."""
    return [getattr(table, name) for name in _names(record)]
