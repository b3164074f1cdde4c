"""Creating an assignment: its items are made once, stored and recorded in order."""

from __future__ import annotations

import json
from collections import Counter
from dataclasses import replace
from pathlib import Path

import pytest

from quizbot.domain import AssignmentMode
from quizbot.errors import DuplicateError, InputError
from quizbot.generate.assignments import (
    AssignmentRequest,
    assignment_items,
    fact_key,
    make_assignment,
)
from quizbot.items import StatementItem
from storage import Database
from storage.assignments import list_assignments
from storage.repo import table_counts

REQUEST = AssignmentRequest(name="week1", kb="clinical-core", points=2, seed="7", all_variants=True)


def test_all_variants_keeps_the_sixteen_statements_of_each_fact(db: Database) -> None:
    made = make_assignment(db, REQUEST)
    _, items = assignment_items(db, "week1")
    assert [i.id for i in items] == list(made.item_ids)
    per_fact = Counter(fact_key(i) for i in items)
    assert len(per_fact) == 2 and set(per_fact.values()) == {16}
    sides = Counter((fact_key(i), i.polarity) for i in items if isinstance(i, StatementItem))
    assert set(sides.values()) == {8}
    assert made.config["all_variants"] is True and made.mode == "practice"


def test_without_all_variants_one_variant_per_fact(db: Database) -> None:
    made = make_assignment(
        db,
        AssignmentRequest(
            name="w", kb="clinical-core", points=5, seed="7", mode=AssignmentMode.EXAM
        ),
    )
    _, items = assignment_items(db, "w")
    assert len(items) == 5 and len({fact_key(i) for i in items}) == 5
    assert made.mode == "exam"


def test_the_same_name_twice_is_refused_and_writes_nothing(db: Database) -> None:
    make_assignment(db, REQUEST)
    before = table_counts(db)
    with pytest.raises(DuplicateError) as caught:  # other options: would make other items
        make_assignment(db, replace(REQUEST, points=4, seed="8"))
    assert caught.value.exit_code == 65
    assert table_counts(db) == before
    assert [a.name for a in list_assignments(db)] == ["week1"]


def test_an_items_file_is_validated_whole_before_anything_is_stored(
    db: Database, tmp_path: Path
) -> None:
    make_assignment(db, REQUEST)
    _, items = assignment_items(db, "week1")
    good = [json.dumps(i.to_json()) for i in items[:3]]
    broken = json.loads(good[1])
    del broken["head"]
    path = tmp_path / "items.jsonl"
    path.write_text("\n".join([good[0], json.dumps(broken), good[2]]) + "\n")
    before = table_counts(db)
    with pytest.raises(InputError) as caught:
        make_assignment(db, AssignmentRequest(name="f", kb="clinical-core", items_file=path))
    assert (caught.value.path, caught.value.line, caught.value.field) == (str(path), 2, "head")
    assert table_counts(db) == before
    tampered = json.loads(good[2])
    tampered["label"] = not tampered["label"]
    path.write_text("\n".join([good[0], good[1], json.dumps(tampered)]) + "\n")
    with pytest.raises(InputError) as caught:
        make_assignment(db, AssignmentRequest(name="f", kb="clinical-core", items_file=path))
    assert (caught.value.line, caught.value.field) == (3, "id")
    path.write_text("\n".join(good) + "\n")
    made = make_assignment(db, AssignmentRequest(name="f", kb="clinical-core", items_file=path))
    assert list(made.item_ids) == [i.id for i in items[:3]]


def test_mixed_alternates_formats_and_never_asks_one_fact_both_ways(db: Database) -> None:
    make_assignment(
        db, AssignmentRequest(name="mx", kb="clinical-core", points=6, seed="2", format="mixed")
    )
    _, items = assignment_items(db, "mx")
    kinds = Counter(i.kind for i in items)
    assert kinds["statement"] > 0 and kinds["choice"] > 0
    said = {(i.head, i.relation) for i in items if i.kind == "statement"}
    asked = {(i.head, i.relation) for i in items if i.kind == "choice"}
    assert not said & asked
