"""Repository functions for item sets: item banks from elsewhere, imported once, used by name.

An item set's items are ordinary ``item`` rows under a knowledge base of their own (source
:data:`ITEM_SET_SOURCE`, no knowledge points), so runs, reports and assignments read them like
generated items. :func:`create_item_set` writes that knowledge base, the items, the set and its
order in ONE transaction: everything or nothing. Like :mod:`storage.repo`, every function takes
plain values and returns frozen records, never table rows.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime
from typing import Any

from sqlalchemy import select
from sqlalchemy.exc import IntegrityError
from sqlmodel import Session, col

from quizbot.errors import DuplicateError, InputError, NotFoundError
from storage.engine import Database
from storage.models import Item, ItemSetItemRow, ItemSetRow, KnowledgeBase
from storage.repo import NewItem, _insert_ignore, _integrity
from storage.types import utcnow

__all__ = [
    "ITEM_SET_SOURCE",
    "ItemSetInfo",
    "create_item_set",
    "find_item_set",
    "get_item_set",
    "list_item_sets",
]

ITEM_SET_SOURCE = "itemset"  # knowledge_base.source of an item set's own knowledge base


@dataclass(frozen=True)
class ItemSetInfo:
    """An imported item set: where it came from, under which licence, and its items in order."""

    id: int
    name: str
    format: str
    licence: str
    source_file: str
    kb_name: str
    n_items: int
    meta: dict[str, Any]
    imported_at: datetime
    item_ids: tuple[str, ...] = ()


def _info(session: Session, row: ItemSetRow, kb_name: str, with_items: bool) -> ItemSetInfo:
    ids: tuple[str, ...] = ()
    if with_items:
        ids = tuple(
            session.execute(
                select(col(ItemSetItemRow.item_id))
                .where(col(ItemSetItemRow.item_set_id) == row.id)
                .order_by(col(ItemSetItemRow.position))
            ).scalars()
        )
    return ItemSetInfo(
        id=row.id or 0,
        name=row.name,
        format=row.format,
        licence=row.licence,
        source_file=row.source_file,
        kb_name=kb_name,
        n_items=row.n_items,
        meta=dict(row.meta),
        imported_at=row.imported_at,
        item_ids=ids,
    )


def create_item_set(
    db: Database,
    *,
    name: str,
    format: str,
    licence: str,
    source_file: str,
    kb_name: str,
    kb_version: str,
    items: Sequence[NewItem],
    meta: dict[str, Any] | None = None,
) -> ItemSetInfo:
    """Store item set ``name`` with ``items`` in this order, all or nothing.

    ``kb_name`` is the knowledge base the items are stored under (created here; it must not
    exist). Raises :class:`DuplicateError` when the set or that knowledge base exists, and
    :class:`InputError` for no items or an item given twice.
    """
    if not items:
        raise InputError("an item set needs at least one item", field="items")
    ids = [item.id for item in items]
    if len(set(ids)) != len(ids):
        raise InputError("an item appears twice", field="items")

    def _do(session: Session) -> ItemSetInfo:
        if session.execute(select(col(ItemSetRow.id)).where(col(ItemSetRow.name) == name)).first():
            raise DuplicateError(f"item set {name!r} already exists", hint="choose another --name")
        if session.execute(
            select(col(KnowledgeBase.id)).where(col(KnowledgeBase.name) == kb_name)
        ).first():
            raise DuplicateError(f"a knowledge base named {kb_name!r} already exists")
        kb = KnowledgeBase(
            name=kb_name,
            version=kb_version,
            title=name,
            description=f"items imported from {source_file} ({format})",
            source=ITEM_SET_SOURCE,
            license=licence,
            meta={"item_set": name, "format": format},
        )
        session.add(kb)
        session.flush()
        assert kb.id is not None
        now = utcnow()
        rows = [item.row(kb.id, now) for item in items]
        for start in range(0, len(rows), 2000):
            _insert_ignore(session, Item, rows[start : start + 2000])
        row = ItemSetRow(
            name=name,
            format=format,
            licence=licence,
            source_file=source_file,
            kb_id=kb.id,
            n_items=len(items),
            meta=dict(meta or {}),
        )
        session.add(row)
        session.flush()
        assert row.id is not None
        session.add_all(
            ItemSetItemRow(item_set_id=row.id, position=i, item_id=item_id)
            for i, item_id in enumerate(ids, start=1)
        )
        session.flush()
        return _info(session, row, kb_name, True)

    try:
        return db.write(_do)
    except IntegrityError as exc:
        raise _integrity(exc, f"item set {name!r}") from None


def find_item_set(db: Database, name: str) -> ItemSetInfo | None:
    """Item set ``name`` with its item ids in order, or ``None``."""

    def _do(session: Session) -> ItemSetInfo | None:
        found = session.execute(
            select(ItemSetRow, col(KnowledgeBase.name))
            .join(KnowledgeBase, col(KnowledgeBase.id) == col(ItemSetRow.kb_id))
            .where(col(ItemSetRow.name) == name)
        ).first()
        return None if found is None else _info(session, found[0], found[1], True)

    return db.read(_do)


def get_item_set(db: Database, name: str) -> ItemSetInfo:
    """Item set ``name`` with its item ids; :class:`NotFoundError` naming the fix if none."""
    found = find_item_set(db, name)
    if found is None:
        raise NotFoundError(
            f"no item set {name!r}",
            hint="see `quizbot items list`, or import one with `quizbot items import`",
        )
    return found


def list_item_sets(db: Database) -> list[ItemSetInfo]:
    """Every item set (without its item ids), by name."""

    def _do(session: Session) -> list[ItemSetInfo]:
        rows = session.execute(
            select(ItemSetRow, col(KnowledgeBase.name))
            .join(KnowledgeBase, col(KnowledgeBase.id) == col(ItemSetRow.kb_id))
            .order_by(col(ItemSetRow.name))
        ).all()
        return [_info(session, row, kb_name, False) for row, kb_name in rows]

    return db.read(_do)
