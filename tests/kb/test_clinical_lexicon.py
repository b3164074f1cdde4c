"""clinical-core's lexicon file: read whole, every name checked against the KB, mistakes named."""

from __future__ import annotations

import csv
import json
from pathlib import Path
from typing import Any

import pytest

from quizbot.errors import InputError
from quizbot.evaluation.recall_context import context_for
from quizbot.kb.clinical import load_clinical_core, read_lexicon, read_review
from quizbot.kb.knowledge import Knowledge
from quizbot.kb.model import KnowledgeBaseData, Lexicon

LEXICON = Path(__file__).resolve().parents[2] / "quizbot" / "kb" / "data" / "clinical_lexicon.json"
AUDITS = Path(__file__).resolve().parents[2] / "docs" / "audits"


def _bare() -> KnowledgeBaseData:
    from dataclasses import replace

    return replace(load_clinical_core(), lexicon=Lexicon(), extra_truths=frozenset())


def _good() -> dict[str, Any]:
    return {
        "version": "1",
        "synonyms": {"essential hypertension": ["high blood pressure"]},
        "parents": {"retina": ["eye"]},
        "classes": {"ramipril": ["ACE inhibitor"]},
        "components": {},
        "generic": [],
        "disease_systems": {"essential hypertension": ["cardiovascular", "renal_urological"]},
        "also_true": [
            {
                "head": "essential hypertension",
                "relation": "treated_with_drug",
                "tail": "furosemide",
                "why": "a loop diuretic is used where thiazides fail or in renal impairment",
            }
        ],
    }


def test_a_good_file_becomes_the_lexicon_and_extra_truths() -> None:
    kb = _bare()
    assert "furosemide" in {t.tail for t in kb.triplets if t.relation == "treated_with_drug"}
    lexicon, extra = read_lexicon(_good(), kb, "lex.json")
    assert lexicon.synonyms["essential hypertension"] == ("high blood pressure",)
    assert lexicon.head_groups["essential hypertension"] == ("cardiovascular", "renal_urological")
    assert extra == {("essential hypertension", "treated_with_drug", "furosemide")}


@pytest.mark.parametrize(
    ("change", "field"),
    [
        (lambda d: d.update(colours={}), "colours"),
        (lambda d: d["synonyms"].update({"hypertensoin": ["x"]}), "synonyms['hypertensoin']"),
        (lambda d: d["classes"].update({"essential hypertension": ["x"]}), "classes"),
        (lambda d: d["disease_systems"].update({"essential hypertension": ["cardio"]}), "disease"),
        (lambda d: d["parents"].update({"retina": "eye"}), "parents['retina']"),
        (lambda d: d["generic"].append("no such procedure"), "generic"),
        (lambda d: d["also_true"].append({"head": "gout", "relation": "x", "tail": "y"}), "also"),
        (
            lambda d: d["also_true"].append(
                {
                    "head": "essential hypertension",
                    "relation": "treated_with_drug",
                    "tail": "ramipril",
                }
            ),
            "also_true[1]",
        ),
    ],
)
def test_every_mistake_names_the_file_and_field(change: Any, field: str) -> None:
    data = _good()
    change(data)
    with pytest.raises(InputError) as caught:
        read_lexicon(data, _bare(), "lex.json")
    message = str(caught.value)
    assert "lex.json" in message
    assert field in message


def test_the_shipped_lexicon_reads_and_is_used() -> None:
    kb = load_clinical_core()
    data = json.loads(LEXICON.read_text("utf-8"))
    assert kb.lexicon.synonyms or kb.lexicon.parents
    also_true = {(a["head"], a["relation"], a["tail"]) for a in data["also_true"]}
    assert also_true <= kb.extra_truths  # with the clinical reviews' findings besides
    # every drug of clinical-core has a class, every site a place in the hierarchy or none needed
    drugs = {t.tail for t in kb.triplets if t.relation == "treated_with_drug"}
    assert len(set(kb.lexicon.classes) & drugs) >= 0.9 * len(drugs)


# --- the clinical review file -----------------------------------------------------------------


def test_review_file_gives_reviewed_false_and_found_true_with_true_winning() -> None:
    kb = _bare()
    data = {
        "false": [
            ["essential hypertension", "has_symptom", "haemoptysis"],
            ["essential hypertension", "has_symptom", "jaundice"],
        ],
        "true": [
            {
                "head": "essential hypertension",
                "relation": "has_symptom",
                "tail": "jaundice",
                "verdict": "unsure",
                "reason": "a second audit disagreed",
            }
        ],
    }
    reviewed, found = read_review(data, kb, "review.json")
    assert reviewed == {("essential hypertension", "has_symptom", "haemoptysis")}
    assert found == {("essential hypertension", "has_symptom", "jaundice")}


@pytest.mark.parametrize(
    ("data", "field"),
    [
        ({"false": [["essential hypertension", "has_symptom"]]}, "false[0]"),
        ({"false": [["no such disease", "has_symptom", "haemoptysis"]]}, "false[0]"),
        ({"false": [["essential hypertension", "has_symptom", "ramipril"]]}, "false[0]"),
        (
            {
                "true": [
                    {
                        "head": "essential hypertension",
                        "relation": "has_symptom",
                        "tail": "haemoptysis",
                        "verdict": "maybe",
                    }
                ]
            },
            "true[0]",
        ),
    ],
)
def test_review_file_mistakes_name_the_field(data: dict[str, Any], field: str) -> None:
    with pytest.raises(InputError) as caught:
        read_review(data, _bare(), "review.json")
    assert "review.json" in str(caught.value)
    assert field in str(caught.value)


def test_the_shipped_review_is_used_and_true_findings_are_never_negatives() -> None:
    kb = load_clinical_core()
    assert len(kb.reviewed_false) > 1000
    assert not kb.reviewed_false & kb.extra_truths
    from quizbot.generate.negatives import NegativeSampler

    sampler = NegativeSampler(kb, seed="fresh")
    chosen = [(t, sampler.choose(t)) for t in kb.triplets]
    reviewed = sum(c is not None and c.tier.endswith("reviewed") for _t, c in chosen)
    assert reviewed / len(chosen) > 0.85, reviewed
    for t, c in chosen:
        assert c is not None
        assert (t.head, t.relation, c.tail) not in kb.extra_truths


@pytest.mark.parametrize(
    ("audit", "min_rows"), [("r6_same_system.csv", 6000), ("r7_own_system.csv", 700)]
)
def test_the_same_system_audits_are_recorded_row_by_row(audit: str, min_rows: int) -> None:
    """Every row of docs/audits/r6_same_system.csv and r7_own_system.csv is in the shipped
    review: a true or unsure one (with its reason) is never offered as false, a false one is
    reviewed false (unless another audit found it true)."""
    kb = load_clinical_core()
    knowledge = Knowledge(kb)
    listed = {(t.head, t.relation, t.tail) for t in kb.triplets}
    with (AUDITS / audit).open(newline="", encoding="utf-8") as handle:
        rows = list(csv.DictReader(handle))
    assert len(rows) >= min_rows
    verdicts = {row["verdict"] for row in rows}
    assert verdicts == {"true", "unsure", "false"}
    for row in rows:
        fact = (row["head"], row["relation"], row["candidate"])
        if row["verdict"] == "false":
            assert fact in kb.reviewed_false or fact in kb.extra_truths, row
        else:
            assert row["reason"], row
            # Found true, so never false: an extra truth, or a listed fact since (r8 added some).
            assert fact in kb.extra_truths or fact in listed, row
            assert not knowledge.safe(*fact), row


def test_the_gold_list_audit_r11_is_in_the_kb_row_by_row() -> None:
    """docs/audits/r11_gold_lists.csv and the shipped KB agree: every addition is a listed gold
    entity of its question, every true row (additions, unsure negatives, extra truths) is never
    offered as false, and the rows left empty (dropped in the second pass) are not listed."""
    kb = load_clinical_core()
    knowledge = Knowledge(kb)
    listed = {(t.head, t.relation, t.tail) for t in kb.triplets}
    with (AUDITS / "r11_gold_lists.csv").open(newline="", encoding="utf-8") as handle:
        rows = list(csv.DictReader(handle))
    review = json.loads((LEXICON.parent / "clinical_review.json").read_text("utf-8"))
    (audit,) = [a for a in review["audits"] if a["name"] == "r11-gold-lists"]
    assert audit["rows"] == len(rows)
    added = [r for r in rows if r["verdict"] == "true" and r["kind"] == "distractor"]
    added = [r for r in added if not r["note"].startswith(("unsure", "extra truth"))]
    assert len(added) == audit["true"]
    for row in rows:
        fact = (row["head"], row["relation"], row["tail"])
        assert row["note"], row
        if row in added:
            assert fact in listed, row
        if row["verdict"] == "true":
            assert not knowledge.safe(*fact), row
        else:
            assert row["verdict"] == "" and fact not in listed, row
    # the two questions behind the completely wrong answers now list what students say
    gold: dict[tuple[str, str], set[str]] = {}
    for t in kb.triplets:
        gold.setdefault((t.head, t.relation), set()).add(t.tail)
    assert {"expectant management", "medical management of miscarriage"} <= gold[
        ("miscarriage", "treated_with_procedure")
    ]
    assert {"dizziness", "dyspnoea"} <= gold[("supraventricular tachycardia", "has_symptom")]


def test_the_recall_names_audit_r12_is_in_the_kb_row_by_row() -> None:
    """docs/audits/r12_recall_names.csv and the shipped KB agree: each lexicon row is a narrower
    name of its class, each reviewed row (true or unsure) is never offered as false, and a true
    one is an extra truth of the KB."""
    kb = load_clinical_core()
    knowledge = Knowledge(kb)
    with (AUDITS / "r12_recall_names.csv").open(newline="", encoding="utf-8") as handle:
        rows = list(csv.DictReader(handle))
    review = json.loads((LEXICON.parent / "clinical_review.json").read_text("utf-8"))
    (audit,) = [a for a in review["audits"] if a["name"] == "r12-recall-names"]
    assert audit["rows"] == len(rows)
    assert (audit["true"], audit["unsure"]) == (
        sum(r["verdict"] == "true" for r in rows),
        sum(r["verdict"] == "unsure" for r in rows),
    )
    for row in rows:
        assert row["note"] and row["verdict"] in {"true", "unsure"}, row
        if row["kind"] == "lexicon_narrower":
            assert kb.lexicon.parents[row["tail"]] == (row["head"],), row
            continue
        fact = (row["head"], row["relation"], row["tail"])
        assert not knowledge.safe(*fact), row
        if row["verdict"] == "true":
            assert fact in kb.extra_truths, row


def test_the_obstetric_truths_audit_r13_is_in_the_kb_row_by_row() -> None:
    """docs/audits/r13_obstetric_truths.csv and the shipped KB agree: every row is a pregnancy
    complication of a non-obstetric disease, reviewed true with its reason, an extra truth of
    the KB and never offered as false; the recall scorer no longer calls it another organ
    system's entity."""
    kb = load_clinical_core()
    knowledge = Knowledge(kb)
    context = context_for("clinical-core")
    assert context is not None
    with (AUDITS / "r13_obstetric_truths.csv").open(newline="", encoding="utf-8") as handle:
        rows = list(csv.DictReader(handle))
    review = json.loads((LEXICON.parent / "clinical_review.json").read_text("utf-8"))
    (audit,) = [a for a in review["audits"] if a["name"] == "r13-obstetric-truths"]
    assert audit["rows"] == audit["true"] == len(rows) > 0
    assert audit["unsure"] == audit["false"] == 0
    assert kb.version == "2026.11.10"
    for row in rows:
        assert row["kind"] == "extra_truth" and row["verdict"] == "true" and row["note"], row
        fact = (row["head"], row["relation"], row["tail"])
        assert "reproductive_obstetric" not in knowledge.groups(row["head"]), row
        assert fact in kb.extra_truths and not knowledge.safe(*fact), row
        assert context.classify(*fact) == (
            "extra_truth",
            "an extra truth of the KB: true of it, not in the list",
        ), row
    assert ("iron-deficiency anaemia", "has_complication", "preterm birth") in kb.extra_truths
