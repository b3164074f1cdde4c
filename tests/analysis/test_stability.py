"""Stability of permutation runs and sub-label breakdowns: hand-built answers, expected values
computed here (scipy for Spearman), never read from the code under test."""

from __future__ import annotations

import math

import pytest
from scipy import stats

from quizbot.analysis.stability import Asked, stability_report
from quizbot.analysis.sublabels import item_labels, random_chance, sub_label_report
from quizbot.domain import Outcome
from quizbot.evaluation.permutations import Variant
from quizbot.items import I_DO_NOT_KNOW, ChoiceItem, StatementItem, StatementSide
from quizbot.transforms import Polarity, Transform
from tests.helpers.oracles import wilson

C, X, A, U, E = (
    Outcome.CORRECT,
    Outcome.INCORRECT,
    Outcome.ABSTAINED,
    Outcome.UNPARSED,
    Outcome.ERROR,
)


def choice(options: tuple[str, ...], keys: tuple[str, ...], **meta: object) -> ChoiceItem:
    return ChoiceItem(
        kb="kb", kb_version="1", relation=str(meta.pop("relation", "r")), head="h",
        question=str(meta.pop("question", "Q?")), options=options, answer_keys=keys,
        subtype=str(meta.pop("subtype", "semantic")), knowledge_point_ids=("p",), meta=meta,
    )  # fmt: skip


def asked(of: str, index: int, idk: bool, options: tuple[str, ...], outcome: Outcome,
          answer: str | None) -> Asked:  # fmt: skip
    item = choice(options, ("A",))
    return Asked(Variant(of, index, idk, tuple(range(len(options)))), item, outcome, answer)


def test_stability_per_order_spread_consistency_and_idk_effect() -> None:
    ab, ba = ("p", "q"), ("q", "p")
    answers = [
        # item 1: says "p" in every order (consistent) -> correct in order 0, wrong in order 1
        asked("i1", 0, False, ab, C, "A"),
        asked("i1", 1, False, ba, X, "B"),
        # item 2: "p" then "p"... as letters "A" then "A": different contents -> inconsistent
        asked("i2", 0, False, ab, C, "A"),
        asked("i2", 1, False, ba, C, "A"),
        # item 3: unreadable twice: never consistent
        asked("i3", 0, False, ab, U, None),
        asked("i3", 1, False, ba, U, None),
        # item 4: a failed call in order 1: not complete, left out of consistency and order 1
        asked("i4", 0, False, ab, C, "A"),
        asked("i4", 1, False, ba, E, None),
        # with IDK: item 1 abstains in both orders (consistent), item 2 answers then abstains
        asked("i1", 0, True, (*ab, I_DO_NOT_KNOW), A, "idk"),
        asked("i1", 1, True, (*ba, I_DO_NOT_KNOW), A, "idk"),
        asked("i2", 0, True, (*ab, I_DO_NOT_KNOW), C, "A"),
        asked("i2", 1, True, (*ba, I_DO_NOT_KNOW), A, "C"),
    ]
    # Item 2's "C" with IDK is the IDK letter: abstained as the scorer classes it.
    report = stability_report({"k": 2, "idk_both": True}, answers)
    assert report["k"] == 2 and report["idk_both"] is True
    without = report["conditions"]["without_idk"]
    # order 0: i1 C, i2 C, i3 U, i4 C -> 3/4; order 1: i1 X, i2 C, i3 U (i4 error) -> 1/3
    acc = [3 / 4, 1 / 3]
    assert [r["accuracy"] for r in without["by_order"]] == pytest.approx(acc)
    assert [r["n"] for r in without["by_order"]] == [4, 3]
    assert without["by_order"][0]["accuracy_interval"] == pytest.approx(list(wilson(3, 4)))
    assert without["by_order"][1]["answer_rate"] == 1.0
    mean = sum(acc) / 2
    sd = math.sqrt(sum((a - mean) ** 2 for a in acc) / (2 - 1))
    assert without["spread"]["sd"] == pytest.approx(sd)
    assert without["spread"]["range"] == pytest.approx(3 / 4 - 1 / 3)
    assert without["consistency"]["k"] == 1 and without["consistency"]["n"] == 3
    assert without["consistency"]["interval"] == pytest.approx(list(wilson(1, 3)))
    with_idk = report["conditions"]["with_idk"]
    assert with_idk["consistency"]["k"] == 1 and with_idk["consistency"]["n"] == 2
    effect = report["idk_effect"]
    assert effect["answer_rate_with_idk"] == pytest.approx(1 / 4)
    assert effect["answer_rate_without_idk"] == pytest.approx(7 / 7)
    assert effect["answer_rate_change"] == pytest.approx(1 / 4 - 1)
    assert effect["accuracy_without_idk"] == pytest.approx(4 / 7)
    assert effect["accuracy_with_idk"] == pytest.approx(1 / 4)


def test_one_order_has_no_standard_deviation() -> None:
    report = stability_report({"k": 1}, [asked("i", 0, True, ("p", "q"), C, "A")])
    assert report["conditions"]["with_idk"]["spread"]["sd"] is None
    assert "idk_effect" not in report


def statement(relation: str, system: str | None, label: bool) -> StatementItem:
    meta = {"system": system} if system else {}
    side = StatementSide("kb", "1", relation, "h", f"t{relation}{system}{label}",
                         Polarity.POSITIVE, "p", meta=meta)  # fmt: skip
    return StatementItem(side, Transform.NONE, label, f"h {relation} t.", "proto")


def test_labels_of_kb_items() -> None:
    numeric = choice(("below 0.5", "0.5 to 0.8", "above 0.8", I_DO_NOT_KNOW), ("B",),
                     subtype="numeric", ranges=["below", "between", "above"])  # fmt: skip
    assert item_labels(numeric)["tier"] == "between"
    assert item_labels(numeric)["question_type"] == "numeric"
    frequency = choice(("rare", "frequent", I_DO_NOT_KNOW), ("A",), subtype="frequency",
                       band="rare")  # fmt: skip
    assert item_labels(frequency)["tier"] == "rare"
    grouped = choice(("a", "b", I_DO_NOT_KNOW), ("A",), group="cardiovascular")
    assert item_labels(grouped)["organ_system"] == "cardiovascular"
    assert item_labels(statement("treats", "renal", True))["organ_system"] == "renal"
    assert item_labels(statement("treats", None, True))["question_type"] == "statement"
    imported = choice(("a", "b"), ("A",), labels={"discipline": "x", "tier": 2})
    assert item_labels(imported)["discipline"] == "x" and item_labels(imported)["tier"] == "2"
    # Chance: 1/2 for statements, 1/n content options, 1/(2^n - 1) for multi-answer questions.
    assert random_chance(statement("r", None, True)) == 0.5
    assert random_chance(grouped) == 1 / 2
    assert random_chance(choice(("a", "b", "c", I_DO_NOT_KNOW), ("A", "C"))) == 1 / 7


def test_sub_labels_by_organ_system_with_spearman_and_guessing() -> None:
    systems = ["renal", "renal", "cardio", "cardio", "cardio", "neuro", "neuro", "skin", "skin"]
    labels = [True, False, True, True, False, True, True, False, False]
    outcomes = [C, A, C, X, A, X, X, C, C]
    answers = [
        (statement(f"r{i % 2}", s, lab), o, None)
        for i, (s, lab, o) in enumerate(zip(systems, labels, outcomes, strict=True))
    ]
    answers.append((statement("r9", "renal", True), E, None))  # a failed call: left out
    report = sub_label_report(answers)
    assert report is not None
    # Majority key over the distinct items (the errored one included): 6 True, 4 False.
    assert report["majority_key"] == "True"
    groups = report["by_label"]["organ_system"]["groups"]
    rates, accs = [], []
    for name in sorted(set(systems)):
        rows = [(lab, o) for s, lab, o in zip(systems, labels, outcomes, strict=True) if s == name]
        n = len(rows)
        correct = sum(o is C for _, o in rows)
        answered = sum(o is not A for _, o in rows)
        group = groups[name]
        assert group["n"] == n
        assert group["average_accuracy"] == pytest.approx(correct / n)
        assert group["answer_rate"] == pytest.approx(answered / n)
        assert group["random_guess"] == 0.5
        assert group["majority_guess"] == pytest.approx(sum(lab for lab, _ in rows) / n)
        rates.append(answered / n)
        accs.append(correct / answered)
    expected = stats.spearmanr(rates, accs)
    got = report["by_label"]["organ_system"]["spearman"]
    assert got["rho"] == pytest.approx(float(expected.statistic))
    assert got["p_value"] == pytest.approx(float(expected.pvalue))
    gap = report["by_label"]["organ_system"]["gap"]
    assert (gap["best"], gap["worst"]) == ("skin", "neuro") and gap["value"] == 1.0
    assert report["overall"]["n"] == 9
    # Too few groups for a correlation: none rather than a meaningless one.
    assert report["by_label"]["relation"]["spearman"] is None


def test_no_answers_no_sub_labels() -> None:
    assert sub_label_report([]) is None
    assert sub_label_report([(statement("r", None, True), E, None)]) is None
