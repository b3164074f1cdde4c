"""storage.bulk: a value several rows share (the lineage dict of one statement side) is bound
once, and what is bound and stored is what binding each row alone gives."""

from __future__ import annotations

from typing import Any

import pytest
from sqlalchemy import Text, cast, select

from quizbot.errors import InputError
from storage import Database
from storage.bulk import RowWriter
from storage.models import Item
from storage.repo import (
    _ITEM_ATTRIBUTES,
    NewItem,
    create_knowledge_base,
    save_items_bulk,
    table_counts,
)
from storage.types import utcnow

_TABLE = Item.__table__  # type: ignore[attr-defined]


def _items() -> list[NewItem]:
    """Rows sharing values the way bulk generation shares them, and in ways it does not:
    one dict for adjacent rows, the same dict again after another, equal dicts that are not
    the same object, None after a value, a shared options list."""
    side_a: dict[str, Any] = {"kb_version": "v1", "meta": {"z": [1, 2.5, None], "a": "ünï ☃"}}
    side_b: dict[str, Any] = {"kb_version": "v1", "meta": {}, "positive_tail": None}
    options = ["yes", "no", "I do not know"]
    lineages: list[dict[str, Any]] = [
        side_a, side_a, side_a, side_b, side_a, dict(side_a), {}, {}, side_b, side_b,
    ]  # fmt: skip
    rows = []
    for n, lineage in enumerate(lineages):
        choice = n % 3 == 0
        rows.append(
            NewItem(
                id=f"i1:bulk-{n}",
                kind="choice" if choice else "statement",
                relation="rel",
                head=f"head {n}",
                tail="" if choice else "tail",
                text=f'text {n} "quoted" \\ \n',
                generator_version="g1",
                polarity="positive",
                label=None if choice else n % 2 == 0,
                options=options if choice else None,
                answer_keys=["A"] if choice else None,
                lineage=lineage,
            )
        )
    return rows


def _kb_id(db: Database) -> int:
    kb = create_knowledge_base(db, "bulk-kb", version="1", source="test")
    assert kb.id is not None
    return kb.id


def _plain(value: Any) -> Any:
    """A bound value comparable across rows (psycopg's Jsonb wrapper by what it wraps)."""
    return ("json", value.obj) if hasattr(value, "obj") else value


def test_shared_values_bind_as_each_row_alone_would(db: Database) -> None:
    kb_id = _kb_id(db)
    rows = _items()

    def bound(session: Any) -> tuple[list[list[Any]], list[list[Any]]]:
        writer = RowWriter(
            session.connection(), _TABLE, _ITEM_ATTRIBUTES, {"kb_id": kb_id, "created_at": utcnow()}
        )
        together = [[_plain(v) for v in row] for row in writer.rows(rows)]
        alone = [[_plain(v) for v in writer.rows([r])[0]] for r in rows]
        return together, alone

    together, alone = db.read(bound)
    assert together == alone
    assert len({str(row[-3]) for row in together}) == 3  # three different lineages bound


def _stored(db: Database) -> list[tuple[Any, ...]]:
    columns = [
        cast(c, Text) if c.name in {"options", "answer_keys", "lineage"} else c
        for c in _TABLE.columns
        if c.name != "created_at"
    ]
    return db.read(
        lambda s: [tuple(r) for r in s.execute(select(*columns).order_by(_TABLE.c.id)).all()]
    )


def test_shared_values_are_stored_as_sqlalchemy_stores_each_row(db: Database) -> None:
    kb_id = _kb_id(db)
    rows = _items()
    now = utcnow()
    db.write(lambda s: s.execute(_TABLE.insert(), [r.row(kb_id, now) for r in rows]))
    reference = _stored(db)
    db.write(lambda s: s.execute(_TABLE.delete()))
    assert save_items_bulk(db, kb_id, [rows[:4], rows[4:]]) == len(rows)
    assert _stored(db) == reference


@pytest.mark.parametrize("at", [0, 1, 4])
def test_a_nul_in_a_shared_value_is_refused_wherever_it_comes(db: Database, at: int) -> None:
    kb_id = _kb_id(db)
    rows = _items()
    bad = {"meta": {"note": "a\x00b"}}
    # The bad dict shared by rows `at` and `at + 1`, after rows with other shared dicts.
    rows[at] = rows[at]._replace(lineage=bad)
    rows[at + 1] = rows[at + 1]._replace(lineage=bad)
    with pytest.raises(InputError, match="NUL"):
        save_items_bulk(db, kb_id, [rows])
    assert table_counts(db)["item"] == 0
