"""Bulk generation (issue 15): the fast encoder and the one-transaction store give exactly what
the item-by-item path gives, and a failure half-way leaves nothing behind."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any, Literal

import pytest
from orjson import OPT_SORT_KEYS, dumps
from sqlalchemy import Text, cast, select

from quizbot.errors import InputError
from quizbot.generate import service
from quizbot.generate.points import candidate_points
from quizbot.generate.prototypes import default_prototypes
from quizbot.generate.service import GenerateRequest, item_rows, prepare, write
from quizbot.generate.statements import PointPlan, plan_points, statements
from quizbot.items import StatementEncoder, StatementItem, StatementSide, item_from_json
from quizbot.kb.registry import get_kb
from quizbot.transforms import Polarity, Transform
from storage import Database
from storage.models import Item
from storage.repo import NewItem, _insert_ignore, save_items_bulk, table_counts
from storage.types import utcnow


def _odd_statements() -> list[StatementItem]:
    """Statements the generator would not make: rephrased, odd text, one side per statement."""
    side = StatementSide(
        "kb \"quoted\"", "v1", "rel", "Héad\\u0000 ☃", "tail\n\t", Polarity.NEGATIVE,
        "set@1", "true tail", {"z": [1, 2.5, None], "a": "ünï", "nested": {"b": True}},
    )  # fmt: skip
    made = [
        StatementItem(side, Transform.INV_DN, True, 'It is "not" \\ so', "[X] not [Y]", None),
        StatementItem(side, Transform.INS, False, "x\u2028y", "[X] [Y]", "scripted/model ☃"),
        StatementItem(side._replace(positive_tail=""), Transform.NONE, True, "t", "p", None),
    ]
    # Rebuilt from JSON: equal content, but every statement with a side of its own.
    return made + [item_from_json(i.to_json()) for i in made]  # type: ignore[misc]


def _generated(db: Database) -> list[StatementItem]:
    kb, _ = get_kb(db, "clinical-core")
    protos = default_prototypes()
    facts = [t for t in candidate_points(kb) if protos.covers(t.relation)][:300]
    return list(statements(kb, plan_points(kb, facts, seed=5), protos))


def test_the_encoder_gives_every_statement_its_own_ids_and_record(db: Database) -> None:
    items = _generated(db) + _odd_statements()
    # An order the generator never uses: sides interleaved.
    items += items[:40][::-1]
    encoder, records = StatementEncoder(), StatementEncoder()
    for n, item in enumerate(items):
        ids, line = encoder.encode(item)
        assert line == dumps(item.to_json(), option=OPT_SORT_KEYS)
        assert ids == (item.id, item.pair_id, item.knowledge_point_id, item.fact_id)
        # The record alone (what `generate --no-store` writes): on an encoder of its own, and
        # on one that encodes too, the two calls alternating.
        assert records.record(item) == line
        if n % 2:
            assert encoder.record(item) == line


def _stored(db: Database) -> list[tuple[Any, ...]]:
    """Every stored value but the creation time; JSON as the database holds it (as text, so a
    JSON null and an SQL NULL differ)."""
    table = Item.__table__  # type: ignore[attr-defined]
    columns = [
        cast(c, Text) if c.name in {"options", "answer_keys", "lineage"} else c
        for c in table.columns
        if c.name != "created_at"
    ]
    return db.read(
        lambda s: [tuple(r) for r in s.execute(select(*columns).order_by(table.c.id)).all()]
    )


def _rows(db: Database) -> tuple[int, list[NewItem]]:
    generation = prepare(db, GenerateRequest(kb="clinical-core", points=12, seed=2))
    items = list(generation.items())
    choice = list(
        prepare(db, GenerateRequest(kb="clinical-core", points=3, format="choice")).items()
    )
    rows = item_rows([*items, *choice])
    return generation.kb_id, [*rows, rows[0]._replace(id="i1:no-lineage", lineage={})]


def test_bulk_store_writes_the_rows_sqlalchemy_writes(db: Database) -> None:
    kb_id, rows = _rows(db)
    # The reference: SQLAlchemy's own INSERT with its type processing, row by row.
    now = utcnow()
    db.write(lambda s: _insert_ignore(s, Item, [r.row(kb_id, now) for r in rows]))
    reference = _stored(db)
    db.write(lambda s: s.execute(Item.__table__.delete()))  # type: ignore[attr-defined]
    assert table_counts(db)["item"] == 0

    assert save_items_bulk(db, kb_id, [rows[:100], rows[100:]]) == len(rows)
    assert _stored(db) == reference
    assert save_items_bulk(db, kb_id, [rows]) == 0  # idempotent: nothing stored twice
    assert _stored(db) == reference


def test_bulk_store_is_all_or_nothing(db: Database) -> None:
    kb_id, rows = _rows(db)

    def failing() -> Iterator[list[NewItem]]:
        yield rows[:50]
        raise RuntimeError("generation failed half-way")

    with pytest.raises(RuntimeError):
        save_items_bulk(db, kb_id, failing())
    assert table_counts(db)["item"] == 0
    with pytest.raises(InputError, match="NUL"):
        save_items_bulk(db, kb_id, [rows[:50], [rows[60]._replace(text="a\x00b")]])
    with pytest.raises(InputError, match="NUL"):
        lineage = {**rows[61].lineage, "meta": {"note": "a\x00b"}}
        save_items_bulk(db, kb_id, [rows[:50], [rows[61]._replace(lineage=lineage)]])
    assert table_counts(db)["item"] == 0


def test_a_generation_failing_half_way_writes_no_file_and_stores_nothing(
    db: Database, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    generation = prepare(db, GenerateRequest(kb="clinical-core", points=40, seed=1))
    made = list(generation.items())

    def items() -> Iterator[Any]:
        yield from made[:300]
        raise RuntimeError("a model failed")

    monkeypatch.setattr(generation, "items", items)
    out = tmp_path / "out" / "items.jsonl"
    out.parent.mkdir()
    with pytest.raises(RuntimeError):
        write(db, generation, out, chunk=100)
    assert list(out.parent.iterdir()) == []  # neither the file nor its temporary
    assert table_counts(db)["item"] == 0


@pytest.mark.parametrize(
    ("store", "fmt"), [(True, "statements"), (False, "statements"), (False, "choice")]
)
def test_write_matches_item_by_item_serialisation(
    db: Database, tmp_path: Path, store: bool, fmt: Literal["statements", "choice"]
) -> None:
    request = GenerateRequest(kb="clinical-core", points=25, seed=4, store=store, format=fmt)
    generation = prepare(db, request)
    out = tmp_path / "items.jsonl"
    summary = write(db, generation, out, chunk=64)
    expected = b"".join(
        dumps(i.to_json(), option=OPT_SORT_KEYS) + b"\n" for i in generation.items()
    )
    assert out.read_bytes() == expected
    assert summary.n_items == len(expected.splitlines())
    assert summary.stored_new == table_counts(db)["item"] == (summary.n_items if store else 0)
    plans: list[PointPlan] = generation.plans
    assert len(plans) == (25 if fmt == "statements" else 0)


def test_many_points_are_linked_by_one_read_of_every_point_id(
    db: Database, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """From ALL_POINT_IDS_FROM points on, write() links items to their points from one read of
    all the KB's point ids: the stored rows are those of the lookup by key."""
    request = GenerateRequest(kb="clinical-core", points=30, seed=6)
    monkeypatch.setattr(service, "ALL_POINT_IDS_FROM", 10**9)
    write(db, prepare(db, request), tmp_path / "a.jsonl")
    by_key = _stored(db)
    db.write(lambda s: s.execute(Item.__table__.delete()))  # type: ignore[attr-defined]
    monkeypatch.setattr(service, "ALL_POINT_IDS_FROM", 1)
    write(db, prepare(db, request), tmp_path / "b.jsonl")
    assert _stored(db) == by_key
    linked = [row for row in by_key if row[3] is not None]  # column 3: knowledge_point_id
    assert len(linked) == len(by_key) == 480


def test_stored_statements_read_back_as_the_statements_generated(
    db: Database, tmp_path: Path
) -> None:
    """Every column item_rows fills is the statement's own: read back from the database (the
    inverse, item_from_row), each stored statement is the one generated, and its row holds its
    ids."""
    generation = prepare(db, GenerateRequest(kb="clinical-core", points=20, seed=8))
    # The odd statements, of the KB they are stored under (read back from it), without the
    # escaped NUL in their head (refused).
    odd = [
        i._replace(side=i.side._replace(kb="clinical-core", head="Héad ☃"))
        for i in _odd_statements()
    ]
    made: list[StatementItem] = [*generation.items(), *odd]  # type: ignore[list-item]
    assert service.store_items(db, generation.kb, generation.kb_id, made) == len(
        {i.id for i in made}
    )
    back = service.load_items(db, [i.id for i in made])
    assert back == made
    by_id = {row[0]: row for row in _stored(db)}
    columns = [c.name for c in Item.__table__.columns if c.name != "created_at"]  # type: ignore[attr-defined]
    for item in made:
        row = dict(zip(columns, by_id[item.id], strict=True))
        assert (row["kind"], row["pair_key"], row["label"], row["rephrase_model"]) == (
            "statement", item.pair_id, item.label, item.rephrase_model,
        )  # fmt: skip
        assert (row["relation"], row["head"], row["tail"], row["polarity"]) == (
            item.relation, item.head, item.tail, item.polarity.value,
        )  # fmt: skip
        assert (row["transform"], row["text"], row["prototype"]) == (
            item.transform.value, item.text, item.prototype,
        )  # fmt: skip
