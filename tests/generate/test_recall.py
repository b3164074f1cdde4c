"""Open recall items: aspects of a KB, one question per disease x aspect, gold with lineage."""

from __future__ import annotations

from pathlib import Path

import pytest

from quizbot.errors import InputError
from quizbot.evaluation.prompts import (
    RECALL_INSTRUCTION,
    build_prompt,
    build_prompts,
    select_demonstrations,
)
from quizbot.generate.recall import aspects_of, plan_recall, recall_items
from quizbot.items import RecallItem
from quizbot.kb.hpo import load_hpo
from quizbot.kb.model import KnowledgeBaseData
from quizbot.kb.registry import load_builtin
from tests.kb.test_hpo import write_kb


@pytest.fixture(scope="module")
def clinical() -> KnowledgeBaseData:
    return load_builtin("clinical-core")


def test_clinical_core_aspects_are_its_disease_lists(clinical: KnowledgeBaseData) -> None:
    names = {a.relation: a.name for a in aspects_of(clinical)}
    assert names == {
        "has_symptom": "symptoms",
        "affects_site": "anatomical sites",
        "treated_with_drug": "medications",
        "treated_with_procedure": "procedures",
        "has_complication": "complications",
        "investigated_with": "investigations",
        "typical_age_group": "age groups",
        "treated_with_drug_class": "drug classes",
    }  # "prevents" has an agent, not a disease, as its head


def test_one_item_per_disease_and_aspect_with_the_kb_tails_as_gold(
    clinical: KnowledgeBaseData,
) -> None:
    items = list(recall_items(clinical, plan_recall(clinical)))
    expected: dict[tuple[str, str], list[str]] = {}
    for t in clinical.triplets:
        if t.relation != "prevents":
            expected.setdefault((t.relation, t.head), []).append(t.tail)
    assert {(i.relation, i.head): list(i.answers) for i in items} == expected
    assert len({i.id for i in items}) == len(items)
    hypertension = {i.relation: i for i in items if i.head == "essential hypertension"}
    symptoms = hypertension["has_symptom"]
    assert symptoms.question == "What are the main symptoms and signs of essential hypertension?"
    assert "high blood pressure" in symptoms.synonyms["raised blood pressure"]
    sites = hypertension["affects_site"]
    assert "urinary tract" in sites.broader["kidneys"]
    assert "glomeruli" in sites.narrower["kidneys"]
    assert "beta-blocker" in hypertension["treated_with_drug"].broader["bisoprolol"]


def test_a_limited_plan_is_drawn_by_seed_and_relations_are_checked(
    clinical: KnowledgeBaseData,
) -> None:
    a = plan_recall(clinical, limit=5, seed="1", relations=["has_symptom"])
    again = plan_recall(clinical, limit=5, seed="1", relations=["has_symptom"])
    other = plan_recall(clinical, limit=5, seed="2", relations=["has_symptom"])
    assert len(a.pairs) == 5 and a == again and a != other
    assert {aspect.relation for aspect, _, _ in a.pairs} == {"has_symptom"}
    with pytest.raises(InputError, match="no recall aspect"):
        plan_recall(clinical, relations=["prevents"])
    short = plan_recall(clinical, max_answers=2)
    assert short.too_long > 0 and all(len(gold) <= 2 for _, _, gold in short.pairs)


def test_hpo_aspects_are_phenotypes_genes_and_inheritance(tmp_path: Path) -> None:
    kb = load_hpo(write_kb(tmp_path / "hpo"))
    assert [a.name for a in aspects_of(kb)] == ["phenotypes", "genes", "inheritance"]
    items = {(i.aspect, i.head): i for i in recall_items(kb, plan_recall(kb))}
    marfan = items[("phenotypes", "Marfan syndrome")]
    assert marfan.answers == ("arachnodactyly",)
    assert marfan.synonyms == {"arachnodactyly": ("spider fingers",)}
    assert marfan.broader["arachnodactyly"] == ("abnormality of finger", "abnormality of the hand")
    assert items[("genes", "Marfan syndrome")].answers == ("FBN1",)


def test_recall_prompts_in_both_styles_with_demonstrations_from_other_diseases(
    clinical: KnowledgeBaseData,
) -> None:
    items = list(recall_items(clinical, plan_recall(clinical, limit=60, seed="p")))
    asked, pool = items[0], items[1:]
    demos = select_demonstrations(asked, pool, k=3, seed="s")
    assert len(demos) == 3 and all(d.head != asked.head for d in demos)
    assert all(d.relation == asked.relation for d in demos)  # same aspect first
    # Other aspects of the same disease would give the disease away: never demonstrations.
    everything = list(recall_items(clinical, plan_recall(clinical)))
    same_disease = [i for i in everything if i.head == asked.head and i.id != asked.id]
    assert same_disease and select_demonstrations(asked, same_disease, k=3, seed="s") == ()
    first = demos[0]
    assert isinstance(first, RecallItem)
    completion = build_prompt(asked, demonstrations=demos, style="completion")
    assert completion.text.endswith(f"{asked.question}\n{RECALL_INSTRUCTION}\nAnswer:")
    assert f"Answer: {', '.join(first.answers)}" in completion.text
    chat = build_prompt(asked, demonstrations=demos, style="chat")
    assert [m["role"] for m in chat.messages] == ["user", "assistant"] * 3 + ["user"]
    assert chat.messages[1]["content"] == ", ".join(first.answers)
    assert chat.messages[-1]["content"] == f"{asked.question}\n{RECALL_INSTRUCTION}"
    # Items evaluated together never demonstrate one another.
    both = build_prompts(items[:2], items, k=2, seed="s", style="chat")
    for prompt, other in zip(both, reversed(items[:2]), strict=True):
        assert other.question not in prompt.text
