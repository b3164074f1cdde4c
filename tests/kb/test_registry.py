"""The KB registry on both backends: install, read back, built-ins, prune, all-or-nothing."""

from __future__ import annotations

import contextlib
import json
import threading
from collections import Counter
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from sqlalchemy.exc import DBAPIError

from quizbot.errors import NotFoundError, QuizbotError
from quizbot.kb.importers import read_medlama, read_triplets
from quizbot.kb.model import KnowledgeBaseData, Relation, Triplet
from quizbot.kb.registry import get_kb, install, kb_listing
from storage import Database
from storage.repo import get_knowledge_base, load_knowledge_points, table_counts

CLINICAL_JSON = (
    Path(__file__).resolve().parents[2] / "quizbot" / "kb" / "data" / "clinical_core.json"
)

MEDLAMA_HEADER = (
    "head_cui,head_name,rel,tail_cuis_list,tail_names_list,tail_names,tail_cuis,"
    "tail_cuis_len,tail_names_len,avg_match,avg_rouge_l"
)

RELATIONS = {
    "has_symptom": Relation("has_symptom", "has symptom", "disease", "symptom"),
    "treated_with_drug": Relation("treated_with_drug", "treated with drug", "disease", "drug"),
}


def _kb(triplets: list[tuple[str, str, str]], name: str = "demo") -> KnowledgeBaseData:
    return KnowledgeBaseData(
        name=name,
        version="1",
        source="test",
        relations=RELATIONS,
        triplets=tuple(Triplet(h, r, t, group="grp") for h, r, t in triplets),
    )


BASE = [
    ("gout", "has_symptom", "joint pain"),
    ("gout", "has_symptom", "fever"),
    ("gout", "treated_with_drug", "colchicine"),
    ("asthma", "has_symptom", "wheeze"),
    ("asthma", "treated_with_drug", "salbutamol"),
]


def _stored(db: Database, name: str) -> set[tuple[str, str, str]]:
    row = get_knowledge_base(db, name)
    assert row.id is not None
    return {(p.head, p.relation, p.tail) for p in load_knowledge_points(db, row.id)}


def _kb_counts(db: Database) -> tuple[int, int]:
    counts = table_counts(db)
    return counts["knowledge_base"], counts["knowledge_point"]


def test_install_writes_every_triplet_and_a_second_install_is_a_no_op(db: Database) -> None:
    assert _kb_counts(db) == (0, 0)
    first = install(db, _kb(BASE))
    assert first.unchanged is False
    assert first.added == 5
    assert _kb_counts(db) == (1, 5)
    assert _stored(db, "demo") == set(BASE)

    second = install(db, _kb(BASE))
    assert second.unchanged is True
    assert (second.added, second.removed) == (0, 0)
    assert second.kb_id == first.kb_id
    assert _kb_counts(db) == (1, 5)


def test_stored_points_carry_the_relation_types(db: Database) -> None:
    install(db, _kb(BASE))
    row = get_knowledge_base(db, "demo")
    assert row.id is not None
    types = {(p.relation, p.head_type, p.tail_type) for p in load_knowledge_points(db, row.id)}
    assert types == {
        ("has_symptom", "disease", "symptom"),
        ("treated_with_drug", "disease", "drug"),
    }


def _imported_triplets(tmp_path: Path) -> KnowledgeBaseData:
    file = tmp_path / "facts.csv"
    file.write_text(
        "head,relation,tail,head_type,tail_type,group\n"
        "gout,has_symptom,joint pain,disease,symptom,musculoskeletal\n"
        "gout,has_symptom,fever,disease,symptom,musculoskeletal\n"
        "aspirin,inhibits,cyclooxygenase,drug,enzyme,\n"
        "BRCA1,linked_to,breast cancer,gene,disease,oncology\n",
        encoding="utf-8",
    )
    return read_triplets(file, "facts")


def _imported_medlama(tmp_path: Path) -> KnowledgeBaseData:
    folder = tmp_path / "medlama" / "2021AA"
    folder.mkdir(parents=True)
    (folder / "may_treat_1000.csv").write_text(
        f"{MEDLAMA_HEADER}\n"
        "C0066411,methylnaltrexone,may_treat,['C0009806'],['Constipation'],Constipation,"
        "C0009806,1,1,0.0,0.0\n"
        "C4726693,rimegepant sulfate,may_treat,\"['C0149931', 'C0154723']\","
        "\"['Migraine Disorders', 'Migraine with Aura']\","
        "Migraine Disorders || Migraine with Aura,C0149931 || C0154723,2,2,0.0,0.0\n",
        encoding="utf-8",
    )
    (folder / "occurs_after_1000.csv").write_text(
        f"{MEDLAMA_HEADER}\n"
        "C0001,sepsis,occurs_after,['C0002'],['Pneumonia'],Pneumonia,C0002,1,1,0.0,0.0\n",
        encoding="utf-8",
    )
    return read_medlama(folder.parent, "mini-medlama")


@pytest.mark.parametrize("make", [_imported_triplets, _imported_medlama], ids=["csv", "medlama"])
def test_imported_kb_reads_back_equal(
    db: Database, tmp_path: Path, make: Callable[[Path], KnowledgeBaseData]
) -> None:
    original = make(tmp_path)
    result = install(db, original)
    assert result.added == len(original.triplets)

    back, kb_id = get_kb(db, original.name)
    assert kb_id == result.kb_id
    assert back.name == original.name
    assert back.version == original.version
    assert back.source == original.source

    def facts(kb: KnowledgeBaseData) -> set[tuple[str, str, str, str | None]]:
        return {(t.relation, t.head, t.tail, t.group) for t in kb.triplets}

    assert facts(back) == facts(original)
    assert len(back.triplets) == len(original.triplets)
    assert dict(back.relations) == dict(original.relations)

    def extras(kb: KnowledgeBaseData) -> dict[tuple[str, str, str], tuple[object, ...]]:
        return {
            (t.relation, t.head, t.tail): (t.head_ref, t.tail_ref, t.meta.get("primary"))
            for t in kb.triplets
        }

    assert extras(back) == extras(original)


def test_medlama_primary_flags_survive_the_database(db: Database, tmp_path: Path) -> None:
    install(db, _imported_medlama(tmp_path))
    back, _ = get_kb(db, "mini-medlama")
    flags = {(t.head, t.tail): t.meta["primary"] for t in back.triplets}
    assert flags == {
        ("methylnaltrexone", "Constipation"): True,
        ("rimegepant sulfate", "Migraine Disorders"): True,
        ("rimegepant sulfate", "Migraine with Aura"): False,
        ("sepsis", "Pneumonia"): True,
    }
    refs = {(t.head, t.tail): (t.head_ref, t.tail_ref) for t in back.triplets}
    assert refs[("rimegepant sulfate", "Migraine with Aura")] == ("C4726693", "C0154723")


def test_get_kb_of_an_unknown_name_is_not_found(db: Database) -> None:
    with pytest.raises(NotFoundError) as err:
        get_kb(db, "nope")
    assert "nope" in str(err.value)
    assert "kb import" in str(err.value)


def _clinical_expected() -> Counter[str]:
    """Per-relation triplet counts straight from the packaged JSON."""
    data = json.loads(CLINICAL_JSON.read_text(encoding="utf-8"))
    keys = {
        "symptoms": "has_symptom",
        "sites": "affects_site",
        "drugs": "treated_with_drug",
        "drug_classes": "treated_with_drug_class",
        "procedures": "treated_with_procedure",
        "complications": "has_complication",
        "investigations": "investigated_with",
        "age_groups": "typical_age_group",
    }
    facts = {
        (relation, d["name"], tail)
        for d in data["diseases"]
        for key, relation in keys.items()
        for tail in d.get(key, [])
    }
    facts |= {("prevents", a["agent"], t) for a in data["prevention"] for t in a["prevents"]}
    return Counter(relation for relation, _, _ in facts)


def test_clinical_core_installs_on_first_use_and_is_listed(db: Database) -> None:
    expected = _clinical_expected()
    before = {e.name: e for e in kb_listing(db)}
    assert before["clinical-core"].installed is False
    assert before["clinical-core"].points == 0
    assert _kb_counts(db) == (0, 0)

    kb, kb_id = get_kb(db, "clinical-core")
    assert kb.name == "clinical-core"
    assert get_knowledge_base(db, "clinical-core").id == kb_id
    assert _kb_counts(db) == (1, sum(expected.values()))

    _, again_id = get_kb(db, "clinical-core")
    assert again_id == kb_id
    assert _kb_counts(db) == (1, sum(expected.values()))

    listing = {e.name: e for e in kb_listing(db)}
    core = listing["clinical-core"]
    assert core.installed is True
    assert core.points == sum(expected.values())
    assert core.relations == dict(expected)
    assert core.version == json.loads(CLINICAL_JSON.read_text(encoding="utf-8"))["version"]
    hpo = listing["hpo"]
    assert hpo.installed is False
    assert hpo.points == 0
    assert hpo.relations == {}


def test_prune_removes_dropped_triplets_and_adds_new_ones(db: Database) -> None:
    install(db, _kb(BASE))
    changed = [*BASE[:3], ("migraine", "treated_with_drug", "sumatriptan")]
    result = install(db, _kb(changed), prune=True)
    assert result.unchanged is False
    assert (result.added, result.removed) == (1, 2)
    assert _stored(db, "demo") == set(changed)
    assert _kb_counts(db) == (1, 4)
    back, _ = get_kb(db, "demo")
    assert {(t.head, t.relation, t.tail) for t in back.triplets} == set(changed)


def test_without_prune_old_triplets_are_kept(db: Database) -> None:
    install(db, _kb(BASE))
    result = install(db, _kb([*BASE[:2], ("migraine", "treated_with_drug", "sumatriptan")]))
    assert (result.added, result.removed) == (1, 0)
    assert _stored(db, "demo") == {*BASE, ("migraine", "treated_with_drug", "sumatriptan")}


def test_a_failing_install_leaves_nothing_behind(db: Database) -> None:
    if db.backend != "postgresql":
        pytest.skip("SQLite does not enforce VARCHAR(500), so nothing fails mid-way there")
    good = [(f"disease {i}", "has_symptom", f"symptom {i}") for i in range(200)]
    too_long = ("disease x", "has_symptom", "s" * 501)
    # A storage error now; a user-facing QuizbotError would do as well, as long as nothing stays.
    with pytest.raises((QuizbotError, DBAPIError)):
        install(db, _kb([*good, too_long, *good[:3]], name="broken"))
    assert _kb_counts(db) == (0, 0)
    with pytest.raises(NotFoundError):
        get_knowledge_base(db, "broken")


def test_a_failing_update_keeps_the_previous_content(db: Database) -> None:
    if db.backend != "postgresql":
        pytest.skip("SQLite does not enforce VARCHAR(500), so nothing fails mid-way there")
    install(db, _kb(BASE))
    digest_before = get_knowledge_base(db, "demo").meta["digest"]
    bad = [BASE[0], ("migraine", "has_symptom", "m" * 501)]
    with pytest.raises((QuizbotError, DBAPIError)):
        install(db, _kb(bad), prune=True)
    assert _stored(db, "demo") == set(BASE)
    assert get_knowledge_base(db, "demo").meta["digest"] == digest_before
    assert install(db, _kb(BASE)).unchanged is True


def test_reinstall_updates_the_group_of_a_kept_triplet(db: Database) -> None:
    install(db, _kb(BASE))
    regrouped = KnowledgeBaseData(
        name="demo",
        version="2",
        source="test",
        relations=RELATIONS,
        triplets=tuple(Triplet(h, r, t, group="other") for h, r, t in BASE),
    )
    install(db, regrouped, prune=True)
    back, _ = get_kb(db, "demo")
    assert {t.group for t in back.triplets} == {"other"}


def test_two_processes_installing_a_built_in_at_once_both_get_it(
    db: Database, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Two app replicas start together: both find clinical-core missing, one insert wins and the
    other's fails as a duplicate (PostgreSQL; SQLite's one writer makes the second wait and see
    the first); the loser reads the winner's KB instead of stopping."""
    from quizbot.kb import registry

    real_install = registry.install
    both_ready = threading.Barrier(2)

    def racing_install(*args: Any, **kwargs: Any) -> Any:
        with contextlib.suppress(threading.BrokenBarrierError):
            both_ready.wait(timeout=30)  # both look before either writes (first calls only)
        return real_install(*args, **kwargs)

    monkeypatch.setattr(registry, "install", racing_install)
    other = Database(db.url)
    results: list[int] = []
    errors: list[BaseException] = []

    def start(on: Database) -> None:
        try:
            results.append(get_kb(on, "clinical-core")[1])
        except Exception as exc:  # collected for the assertion below
            errors.append(exc)

    threads = [threading.Thread(target=start, args=(d,)) for d in (db, other)]
    try:
        for t in threads:
            t.start()
        for t in threads:
            t.join()
    finally:
        other.dispose()
    assert errors == [] and len(results) == 2 and results[0] == results[1]
