"""`quizbot kb list`'s fast path: the same listing as the database layer's, or none at all."""

from __future__ import annotations

import sqlite3
from pathlib import Path

from quizbot.kb import registry
from quizbot.kb.listing import BUILTIN_NAMES, quick_listing
from quizbot.kb.model import KnowledgeBaseData, Relation, Triplet
from quizbot.kb.registry import install, kb_listing
from storage import head_revision, open_database
from storage.quick import light_head_revision, sqlite_kb_summaries

RELATIONS = {"has_symptom": Relation("has_symptom", "has symptom", "disease", "symptom")}


def _kb(name: str, n: int) -> KnowledgeBaseData:
    triplets = tuple(Triplet(f"d{i}", "has_symptom", f"s{i}") for i in range(n))
    return KnowledgeBaseData(
        name=name,
        version="v1",
        source="test",
        relations=RELATIONS,
        triplets=triplets,
        license="free",
    )


def test_builtin_names_are_the_registry_s() -> None:
    assert tuple(registry.BUILTINS) == BUILTIN_NAMES


def test_the_light_head_is_alembic_s() -> None:
    assert light_head_revision() == head_revision()


def test_the_light_head_needs_one_head(tmp_path: Path) -> None:
    for revision, down in (("0001", "None"), ("0002", '"0001"'), ("0003", '"0001"')):
        (tmp_path / f"{revision}.py").write_text(
            f'revision: str = "{revision}"\ndown_revision: str | None = {down}\n'
        )
    assert light_head_revision(tmp_path) is None  # two heads: 0002 and 0003
    (tmp_path / "0003.py").unlink()
    assert light_head_revision(tmp_path) == "0002"


def test_the_quick_listing_equals_the_database_layer_s(tmp_path: Path) -> None:
    path = tmp_path / "quizbot.db"
    db = open_database(f"sqlite:///{path}")
    try:
        assert quick_listing(path) == kb_listing(db)  # built-ins only
        install(db, _kb("zeta", 3))
        install(db, _kb("alpha", 5))
        expected = kb_listing(db)
    finally:
        db.dispose()
    assert [e.name for e in expected] == ["alpha", "clinical-core", "hpo", "zeta"]
    assert quick_listing(path) == expected


def test_no_quick_listing_for_a_missing_or_outdated_database(tmp_path: Path) -> None:
    path = tmp_path / "quizbot.db"
    assert quick_listing(None) is None
    assert quick_listing(path) is None
    assert not path.exists()  # nothing created: the general path creates and migrates
    db = open_database(f"sqlite:///{path}")
    db.dispose()
    with sqlite3.connect(path) as conn:
        conn.execute("UPDATE alembic_version SET version_num = '0001'")
    assert sqlite_kb_summaries(path) is None
    path.write_bytes(b"not a database at all")
    assert sqlite_kb_summaries(path) is None
