"""storage/item_sets.py: a set, its knowledge base and its items are written all or nothing."""

from __future__ import annotations

import pytest

from quizbot.errors import DuplicateError, InputError, NotFoundError
from storage import Database
from storage.item_sets import create_item_set, find_item_set, get_item_set, list_item_sets
from storage.repo import NewItem, get_items, list_knowledge_bases


def _item(n: int) -> NewItem:
    return NewItem(
        id=f"i1:test{n}", kind="choice", relation="mcq", head=str(n), tail="",
        text=f"Q{n}?\nA. x\nB. y", generator_version="g2", options=["x", "y"],
        answer_keys=["A"],
    )  # fmt: skip


def _create(db: Database, name: str, items: list[NewItem], kb: str | None = None) -> None:
    create_item_set(
        db, name=name, format="medqa", licence="CC BY", source_file="f.jsonl",
        kb_name=kb or f"itemset:{name}", kb_version="abc", items=items,
    )  # fmt: skip


def test_create_list_and_get(db: Database) -> None:
    _create(db, "b", [_item(2), _item(1)])
    _create(db, "a", [_item(3)])
    assert [s.name for s in list_item_sets(db)] == ["a", "b"]
    found = get_item_set(db, "b")
    assert found.item_ids == ("i1:test2", "i1:test1") and found.kb_name == "itemset:b"
    assert found.licence == "CC BY" and found.n_items == 2 and found.imported_at.tzinfo
    assert [row.kb for row in get_items(db, ["i1:test1"])] == ["itemset:b"]
    with pytest.raises(NotFoundError, match="no item set 'zz'"):
        get_item_set(db, "zz")


def test_nothing_is_left_behind_when_a_set_cannot_be_stored(db: Database) -> None:
    _create(db, "first", [_item(1)])
    kbs_before = {s.kb.name for s in list_knowledge_bases(db)}
    with pytest.raises(DuplicateError, match="item set 'first' already exists"):
        _create(db, "first", [_item(5)])
    with pytest.raises(DuplicateError, match="knowledge base named 'itemset:first'"):
        _create(db, "other", [_item(6)], kb="itemset:first")
    with pytest.raises(InputError, match="appears twice"):
        _create(db, "twice", [_item(7), _item(7)])
    assert find_item_set(db, "other") is None and find_item_set(db, "twice") is None
    assert {s.kb.name for s in list_knowledge_bases(db)} == kbs_before
    with pytest.raises(NotFoundError):
        get_items(db, ["i1:test5"])
    with pytest.raises(NotFoundError):
        get_items(db, ["i1:test6"])


def test_a_failure_half_way_rolls_back_the_knowledge_base_and_the_items(db: Database) -> None:
    bad = NewItem(id="i1:bad", kind="bogus", relation="r", head="h", tail="", text="?",
                  generator_version="g2")  # fmt: skip
    kbs_before = {s.kb.name for s in list_knowledge_bases(db)}
    with pytest.raises(InputError, match="breaks a database rule"):
        _create(db, "half", [_item(8), bad])
    assert find_item_set(db, "half") is None
    assert {s.kb.name for s in list_knowledge_bases(db)} == kbs_before
    with pytest.raises(NotFoundError):
        get_items(db, ["i1:test8"])
