"""Statements and items: 16 per point with the right labels, lineage, pairs and stable ids."""

from __future__ import annotations

from collections import Counter

from quizbot.generate.prototypes import default_prototypes
from quizbot.generate.statements import PointPlan, statements
from quizbot.items import ChoiceItem, StatementItem, item_from_json
from quizbot.kb.clinical import load_clinical_core
from quizbot.kb.model import Triplet, point_id
from quizbot.transforms import TRANSFORMS, Polarity, Transform, label_for

REQUIRED = {
    "id", "kind", "kb", "relation", "head", "tail", "polarity", "transform", "label", "text",
    "prototype", "knowledge_point_id",
}  # fmt: skip


def _items(negative: str | None = "itchy rash") -> list[StatementItem]:
    fact = Triplet("asthma", "has_symptom", "wheeze", group="respiratory")
    return list(statements(load_clinical_core(), [PointPlan(fact, negative)], default_prototypes()))


def test_a_point_yields_sixteen_statements_with_the_right_labels() -> None:
    items = _items()
    assert len(items) == 16
    assert [(i.polarity, i.transform) for i in items] == [
        (p, t) for p in (Polarity.POSITIVE, Polarity.NEGATIVE) for t in TRANSFORMS
    ]
    for item in items:
        assert item.label is label_for(item.polarity, item.transform)
        assert item.tail == ("wheeze" if item.polarity is Polarity.POSITIVE else "itchy rash")
    assert items[0].text == "Recognised features of asthma include wheeze."
    assert items[12].text == "Recognised features of asthma do not include itchy rash."
    assert items[12].label is True


def test_lineage_links_negatives_to_their_fact() -> None:
    items = _items()
    fact_id = point_id("clinical-core", "has_symptom", "asthma", "wheeze")
    negative_id = point_id("clinical-core", "has_symptom", "asthma", "itchy rash")
    assert {i.fact_id for i in items} == {fact_id}
    assert {i.knowledge_point_id for i in items[:8]} == {fact_id}
    assert {i.knowledge_point_id for i in items[8:]} == {negative_id}
    assert {i.positive_tail for i in items[8:]} == {"wheeze"}
    assert items[0].meta == {}  # the fact carried no meta; the group is not copied into it


def test_pairs_join_each_statement_with_its_double_negation() -> None:
    items = _items()
    by_pair = Counter(i.pair_id for i in items)
    assert len(by_pair) == 8 and set(by_pair.values()) == {2}
    for item in items:
        partner = next(o for o in items if o.pair_id == item.pair_id and o is not item)
        assert partner.transform is item.transform.partner
        assert partner.polarity is item.polarity
        assert partner.label is not item.label


def test_a_point_without_a_negative_yields_eight() -> None:
    assert len(_items(negative=None)) == 8


def test_ids_are_versioned_content_hashes() -> None:
    first, again = _items(), _items()
    assert [i.id for i in first] == [i.id for i in again]
    assert len({i.id for i in first}) == 16
    assert all(i.id.startswith("i1:") and len(i.id) == 67 for i in first)
    changed = first[0]._replace(text=first[0].text + " ")
    assert changed.id != first[0].id
    with_meta = first[0]._replace(side=first[0].side._replace(meta={"x": 1}))
    assert with_meta.id == first[0].id  # meta is lineage, not content


def test_json_records_round_trip_and_carry_the_required_fields() -> None:
    for item in _items():
        record = item.to_json()
        assert set(record) >= REQUIRED
        back = item_from_json(record)
        assert back == item and back.id == record["id"]
    choice = ChoiceItem(
        kb="k", kb_version="1", relation="r", head="h", question="Which?",
        options=("a", "b", "I do not know"), answer_keys=("A",), subtype="semantic",
        knowledge_point_ids=("kp1:x",),
    )  # fmt: skip
    assert choice.text == "Which?\nA. a\nB. b\nC. I do not know"
    assert item_from_json(choice.to_json()) == choice


def test_transform_partner_is_an_involution() -> None:
    for t in Transform:
        assert t.partner.partner is t


def test_a_negative_shared_by_two_facts_is_stated_once() -> None:
    wheeze = Triplet("asthma", "has_symptom", "wheeze", group="respiratory")
    cough = Triplet("asthma", "has_symptom", "night cough", group="respiratory")
    plans = [PointPlan(wheeze, "itchy rash"), PointPlan(cough, "itchy rash")]
    items = list(statements(load_clinical_core(), plans, default_prototypes()))
    assert len(items) == 24  # 8 + 8 for the facts, 8 for the one negative point
    assert len({i.id for i in items}) == 24
    negatives = [i for i in items if i.polarity is Polarity.NEGATIVE]
    assert {i.positive_tail for i in negatives} == {"wheeze"}  # the first fact's, in plan order
