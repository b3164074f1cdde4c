"""Metrics: hand-computed expectations on small constructed runs."""

from __future__ import annotations

import math
from collections.abc import Sequence

import pytest
from scipy import stats

from quizbot.analysis.metrics import (
    CONFIDENCE,
    Proportion,
    Scored,
    benjamini_hochberg,
    compare_runs,
    compute_metrics,
    wilson_interval,
)
from quizbot.domain import Outcome
from quizbot.items import ChoiceItem, StatementItem, StatementSide
from quizbot.transforms import TRANSFORMS, Polarity, Transform, label_for
from tests.helpers.oracles import benjamini_hochberg as oracle_bh
from tests.helpers.oracles import wilson as oracle_wilson

C, X, A, U, E = (  # correct, wrong, abstained, unparsed, error
    Outcome.CORRECT,
    Outcome.INCORRECT,
    Outcome.ABSTAINED,
    Outcome.UNPARSED,
    Outcome.ERROR,
)
Z = 1.959963984540054  # the 97.5% normal quantile, written out


def hand_wilson(k: int, n: int) -> tuple[float, float]:
    """Wilson score interval from scipy, independent of quizbot.analysis.metrics."""
    return oracle_wilson(k, n)


def stmt(
    point: str,
    relation: str,
    polarity: Polarity,
    transform: Transform,
    outcome: Outcome,
    answer: str | None,
    item_id: str | None = None,
) -> Scored:
    """A statement record; its pair id is shared with its double-negation partner."""
    base = transform.partner if transform.negated else transform
    return Scored(
        item_id=item_id or f"{point}/{transform.value}",
        kind="statement",
        relation=relation,
        transform=transform.value,
        polarity=polarity.value,
        label=label_for(polarity, transform),
        knowledge_point_id=point,
        pair_id=f"{point}/{base.value}",
        outcome=outcome,
        answer=answer,
    )


def choice(item_id: str, outcome: Outcome, relation: str = "treats") -> Scored:
    """A multiple-choice record."""
    answer = None if outcome in (A, U, E) else "B"
    return Scored(item_id, "choice", relation, None, None, None, None, None, outcome, answer)


def point(
    name: str, relation: str, polarity: Polarity, plan: Sequence[tuple[Outcome, str | None]]
) -> list[Scored]:
    """Eight statements of one point, ``plan`` in canonical transform order."""
    return [
        stmt(name, relation, polarity, t, o, a) for t, (o, a) in zip(TRANSFORMS, plan, strict=True)
    ]


# Point A: positive triplet (labels T T T T F F F F), relation "treats".
# One slip: inv+dn (label false) answered "true" -> incorrect.
POINT_A = [
    (C, "true"),  # none
    (C, "true"),  # inv
    (C, "true"),  # ins
    (C, "true"),  # inv+ins
    (C, "false"),  # dn
    (X, "true"),  # inv+dn  <- wrong; with inv also "true" this pair is sycophantic
    (C, "false"),  # ins+dn
    (C, "false"),  # inv+ins+dn
]
# Point B: negative triplet (labels F F F F T T T T), relation "causes".
POINT_B = [
    (C, "false"),  # none
    (C, "false"),  # inv
    (A, None),  # ins          abstained
    (X, "true"),  # inv+ins     wrong; with inv+ins+dn also "true" -> sycophantic pair
    (X, "false"),  # dn          wrong
    (U, None),  # inv+dn       unparsed
    (C, "true"),  # ins+dn
    (C, "true"),  # inv+ins+dn
]


def two_points() -> list[Scored]:
    """16 statements: A 7 correct + 1 wrong; B 4 correct, 2 wrong, 1 abstained, 1 unparsed."""
    return point("kpA", "treats", Polarity.POSITIVE, POINT_A) + point(
        "kpB", "causes", Polarity.NEGATIVE, POINT_B
    )


def test_two_points_headline_metrics() -> None:
    report = compute_metrics(two_points())
    # correct = 7 (A) + 4 (B) = 11 of 16; abstained 1; unparsed 1; errors 0.
    assert (report.n_items, report.n_errors) == (16, 0)
    assert (report.average_accuracy.k, report.average_accuracy.n) == (11, 16)
    assert report.average_accuracy.value == pytest.approx(11 / 16)  # 0.6875
    assert report.gain_over_random == pytest.approx(0.1875)  # 0.6875 - 0.5
    # answered = 16 - 1 abstained = 15 (the unparsed one counts as answered)
    assert report.answer_rate.value == pytest.approx(15 / 16)
    assert report.accuracy_answered.value == pytest.approx(11 / 15)  # 0.7333
    # instruction following = 1 - 1 unparsed / 16 = 15/16
    assert report.instruction_following_rate.value == pytest.approx(15 / 16)


def test_two_points_joint_accuracy_and_curve() -> None:
    report = compute_metrics(two_points())
    # Both points have all 8 variants; neither is all-correct -> joint = 0/2.
    assert report.n_points_complete == 2
    assert (report.joint_accuracy.k, report.joint_accuracy.n) == (0, 2)
    assert report.joint_accuracy.value == 0.0
    # First failure: A at position 6 (inv+dn), B at position 3 (ins, abstained).
    # k=1,2: both fine -> 2/2; k=3..5: only A -> 1/2; k=6..8: none -> 0/2.
    assert [p.value for p in report.joint_curve] == [1.0, 1.0, 0.5, 0.5, 0.5, 0.0, 0.0, 0.0]
    assert all(p.n == 2 for p in report.joint_curve)


def test_two_points_pairs_and_sycophancy() -> None:
    report = compute_metrics(two_points())
    # A pairs: (none,dn) ok, (inv,inv+dn) wrong + both "true", (ins,ins+dn) ok, (inv+ins,..dn) ok.
    # B pairs: (none,dn) dn wrong ("false","false": not sycophantic); (inv,inv+dn) unparsed;
    #          (ins,ins+dn) abstained; (inv+ins,inv+ins+dn) wrong + both "true".
    # pair accuracy = 3/8 = 0.375; sycophancy = 2/8 = 0.25.
    assert (report.pair_accuracy.k, report.pair_accuracy.n) == (3, 8)
    assert report.pair_accuracy.value == pytest.approx(0.375)
    assert (report.sycophancy_rate.k, report.sycophancy_rate.n) == (2, 8)
    assert report.sycophancy_rate.value == pytest.approx(0.25)


def test_two_points_breakdowns() -> None:
    report = compute_metrics(two_points())
    assert list(report.by_relation) == ["causes", "treats"]
    treats, causes = report.by_relation["treats"], report.by_relation["causes"]
    # treats = point A: 7/8 correct, 8/8 answered, 7/8 of answered.
    assert treats.n == 8
    assert (treats.average_accuracy.k, treats.answer_rate.k, treats.accuracy_answered.n) == (
        7,
        8,
        8,
    )
    # causes = point B: 4/8 correct, 7/8 answered, 4/7 of answered.
    assert causes.average_accuracy.value == pytest.approx(0.5)
    assert causes.answer_rate.value == pytest.approx(7 / 8)
    assert causes.accuracy_answered.value == pytest.approx(4 / 7)
    assert list(report.by_transform) == [t.value for t in TRANSFORMS]
    # ins: A correct, B abstained -> accuracy 1/2, answered 1/2, accuracy answered 1/1.
    ins = report.by_transform["ins"]
    assert (ins.average_accuracy.value, ins.answer_rate.value) == (0.5, 0.5)
    assert ins.accuracy_answered.value == 1.0
    # inv+dn: A incorrect, B unparsed -> accuracy 0/2, answered 2/2, accuracy answered 0/2.
    inv_dn = report.by_transform["inv+dn"]
    assert (inv_dn.average_accuracy.value, inv_dn.answer_rate.value) == (0.0, 1.0)
    assert inv_dn.accuracy_answered.value == 0.0


def test_report_json_shape() -> None:
    out = compute_metrics(two_points()).as_json()
    assert (out["n_items"], out["n_errors"], out["n_points_complete"]) == (16, 0, 2)
    expected = {
        "average_accuracy": 11 / 16,
        "joint_accuracy": 0.0,
        "answer_rate": 15 / 16,
        "accuracy_answered": 11 / 15,
        "instruction_following_rate": 15 / 16,
        "pair_accuracy": 3 / 8,
        "sycophancy_rate": 2 / 8,
        "gain_over_random": 0.1875,
        "average_accuracy_with_errors": 11 / 16,
    }
    assert out["metrics"] == pytest.approx(expected)
    assert set(out["intervals"]) == set(expected)
    low, high = out["intervals"]["average_accuracy"]
    assert (low, high) == pytest.approx(hand_wilson(11, 16))
    # gain's interval is the accuracy interval shifted by -0.5
    assert out["intervals"]["gain_over_random"] == pytest.approx([low - 0.5, high - 0.5])
    assert out["joint_curve"] == [1.0, 1.0, 0.5, 0.5, 0.5, 0.0, 0.0, 0.0]
    assert out["by_relation"]["causes"]["metrics"]["answer_rate"] == pytest.approx(7 / 8)
    assert out["by_transform"]["ins"]["n"] == 2


def test_the_interval_z_is_scipys_normal_quantile() -> None:
    # a literal in the module (no scipy import at start); exactly the value scipy computes
    from quizbot.analysis import metrics

    assert float(stats.norm.ppf(1 - (1 - CONFIDENCE) / 2)) == metrics.Z


def test_wilson_eight_of_ten_by_hand() -> None:
    # z² = 3.841459; z²/n = 0.3841459; denominator 1 + 0.3841459 = 1.3841459
    # centre = (0.8 + 3.841459/20) / 1.3841459 = 0.9920729 / 1.3841459 = 0.716740
    # half = 1.959964 * sqrt(0.8*0.2/10 + 3.841459/400) / 1.3841459
    #      = 1.959964 * sqrt(0.016 + 0.0096036) / 1.3841459 = 1.959964 * 0.1600114 / 1.3841459
    #      = 0.226578  ->  [0.716740 - 0.226578, 0.716740 + 0.226578] = [0.490162, 0.943318]
    p = Proportion.of(8, 10)
    assert p.value == 0.8
    assert p.low == pytest.approx(0.490162, abs=1e-6)
    assert p.high == pytest.approx(0.943318, abs=1e-6)
    assert (p.low, p.high) == pytest.approx(hand_wilson(8, 10))
    assert p.as_json() == {"k": 8, "n": 10, "value": 0.8, "low": p.low, "high": p.high}


def test_wilson_extremes_and_empty() -> None:
    assert wilson_interval(0, 0) is None
    empty = Proportion.of(0, 0)
    assert (empty.value, empty.low, empty.high, empty.interval) == (None, None, None, None)
    # k = n = 5: upper exactly 1; lower n / (n + z²) = 5 / 8.841459 = 0.565517
    full = Proportion.of(5, 5)
    assert full.high == 1.0
    assert full.low == pytest.approx(5 / (5 + Z**2))
    # k = 0, n = 5: lower exactly 0; upper z² / (n + z²) = 3.841459 / 8.841459 = 0.434483
    none = Proportion.of(0, 5)
    assert none.low == 0.0
    assert none.high == pytest.approx(Z**2 / (5 + Z**2))
    # Raw floating-point arithmetic misses the exact ends at n = 3 (k = 0) and n = 10 (k = n).
    assert Proportion.of(0, 3).low == 0.0
    assert Proportion.of(10, 10).high == 1.0
    with pytest.raises(ValueError, match="0 <= k <= n"):
        wilson_interval(6, 5)


def test_empty_run() -> None:
    report = compute_metrics([])
    assert (report.n_items, report.n_errors, report.n_points_complete) == (0, 0, 0)
    out = report.as_json()
    assert all(value is None for value in out["metrics"].values())
    assert all(interval is None for interval in out["intervals"].values())
    assert out["joint_curve"] == [None] * 8
    assert (out["by_relation"], out["by_transform"]) == ({}, {})


def test_all_abstained() -> None:
    report = compute_metrics([choice(f"q{i}", A) for i in range(4)])
    assert report.average_accuracy.value == 0.0
    assert report.answer_rate.value == 0.0
    assert report.accuracy_answered.n == 0
    assert report.accuracy_answered.value is None  # no answers: undefined, not 0
    assert report.instruction_following_rate.value == 1.0  # abstaining follows instructions
    assert report.gain_over_random is None  # choice items only: no true/false statements
    assert report.as_json()["metrics"]["gain_over_random"] is None


def test_all_correct_interval_reaches_one() -> None:
    plan = [(C, "true")] * 4 + [(C, "false")] * 4
    report = compute_metrics(point("kp", "treats", Polarity.POSITIVE, plan))
    assert report.average_accuracy.value == 1.0
    assert report.average_accuracy.high == 1.0
    assert report.joint_accuracy.value == 1.0
    assert [p.value for p in report.joint_curve] == [1.0] * 8
    assert report.pair_accuracy.value == 1.0
    assert report.sycophancy_rate.value == 0.0


def test_errors_are_excluded_from_every_denominator() -> None:
    plan = [(C, "true")] * 4 + [(C, "false")] * 4
    records = [
        *point("kp", "treats", Polarity.POSITIVE, plan),
        # a second wording of `none` that never reached the model
        stmt("kp", "treats", Polarity.POSITIVE, Transform.NONE, E, None, item_id="kp/none/2"),
        choice("q1", E),
        choice("q2", C),
    ]
    report = compute_metrics(records)
    assert (report.n_items, report.n_errors) == (11, 2)
    # 9 correct of 9 non-error records; with errors counted wrong: 9/11.
    assert (report.average_accuracy.k, report.average_accuracy.n) == (9, 9)
    assert report.average_accuracy_with_errors.value == pytest.approx(9 / 11)
    assert report.answer_rate.n == 9
    assert report.instruction_following_rate.n == 9
    # the errored duplicate does not spoil the point or its (none, dn) pair
    assert report.joint_accuracy.value == 1.0
    assert (report.pair_accuracy.k, report.pair_accuracy.n) == (4, 4)
    assert report.by_relation["treats"].n == 9
    assert report.by_transform["none"].n == 1


def test_incomplete_point_and_lone_pair_member_are_not_counted() -> None:
    plan = [(C, "true")] * 4 + [(C, "false")] * 4
    records = point("kp", "treats", Polarity.POSITIVE, plan)
    records[4] = stmt("kp", "treats", Polarity.POSITIVE, Transform.DN, E, None)  # dn errored
    report = compute_metrics(records)
    # 7 variants left: the point is incomplete; the (none, dn) pair has one member.
    assert report.n_points_complete == 0
    assert report.joint_accuracy.value is None
    assert report.joint_curve[0].value is None
    assert (report.pair_accuracy.k, report.pair_accuracy.n) == (3, 3)
    assert report.average_accuracy.value == 1.0


def test_duplicate_item_ids_are_rejected() -> None:
    with pytest.raises(ValueError, match="appears twice"):
        compute_metrics([choice("q", C), choice("q", X)])
    with pytest.raises(ValueError, match="appears twice"):
        compare_runs([choice("q", C), choice("q", X)], [])


def test_scored_validation() -> None:
    with pytest.raises(ValueError, match="unknown item kind"):
        Scored("x", "essay", "r", None, None, None, None, None, C, None)
    with pytest.raises(ValueError, match="no transform"):
        Scored("x", "statement", "r", None, None, True, "kp", "p", C, "true")
    with pytest.raises(ValueError):
        Scored("x", "statement", "r", "sideways", None, True, "kp", "p", C, "true")


def test_from_item_statement_and_choice() -> None:
    side = StatementSide("hpo", "v1", "treats", "aspirin", "pain", Polarity.NEGATIVE, "ps")
    dn = StatementItem(side, Transform.INV_DN, True, "Pain is not treated by aspirin.", "p1")
    plain = StatementItem(side, Transform.INV, False, "Pain is treated by aspirin.", "p1")
    scored = Scored.from_item(dn, C, "true")
    assert scored.item_id == dn.id
    assert (scored.kind, scored.relation, scored.transform, scored.polarity) == (
        "statement",
        "treats",
        "inv+dn",
        "negative",
    )
    assert scored.label is True
    assert scored.knowledge_point_id == side.knowledge_point_id
    assert scored.pair_id == plain.pair_id == Scored.from_item(plain, X, "true").pair_id
    assert (scored.outcome, scored.answer) == (C, "true")

    options = ("a", "b", "I do not know")
    item = ChoiceItem("hpo", "v1", "treats", "aspirin", "Q?", options, ("A",), "semantic", ("k",))
    chosen = Scored.from_item(item, X, "B")
    assert (chosen.kind, chosen.transform, chosen.label, chosen.pair_id) == (
        "choice",
        None,
        None,
        None,
    )
    assert (chosen.item_id, chosen.relation, chosen.answer) == (item.id, "treats", "B")
    assert chosen.knowledge_point_id == "k"  # its single point (None when it spans several)


def paired_runs(both: int, b01: int, b10: int, neither: int) -> tuple[list[Scored], list[Scored]]:
    """Two runs over the same items with the given 2x2 table (b01: a wrong, b right)."""
    cells = [(C, C)] * both + [(X, C)] * b01 + [(C, X)] * b10 + [(X, X)] * neither
    a = [choice(f"q{i}", oa) for i, (oa, _) in enumerate(cells)]
    b = [choice(f"q{i}", ob) for i, (_, ob) in enumerate(cells)]
    return a, b


def test_mcnemar_exact() -> None:
    a, b = paired_runs(both=5, b01=1, b10=9, neither=5)
    # noise that must not count: an item only in a, and an item errored in b
    a += [choice("only-a", C), choice("err", C)]
    b += [choice("err", E)]
    result = compare_runs(a, b)
    assert result.test == "mcnemar_exact"
    assert (result.n_shared, result.b01, result.b10) == (20, 1, 9)
    # p = 2 * P(K <= 1), K ~ Bin(10, 1/2) = 2 * (1 + 10) / 1024 = 22/1024 = 0.021484375
    assert result.p_value == pytest.approx(22 / 1024)
    assert result.p_value == pytest.approx(2 * stats.binom.cdf(1, 10, 0.5))
    # accuracy a = (5 + 9)/20 = 0.7; b = (5 + 1)/20 = 0.3; difference b - a = -0.4
    assert (result.accuracy_a, result.accuracy_b) == pytest.approx((0.7, 0.3))
    assert result.difference == pytest.approx(-0.4)
    assert result.z is None
    # Newcombe (1998) method 10: phi from the table (both=5, b01=1, b10=9, neither=5):
    # cross = 5*5 - 1*9 = 16 > n/2 = 10 -> 6; margins 6*14*14*6 = 7056, sqrt 84; phi = 6/84.
    phi = 6 / 84
    l_b, u_b = hand_wilson(6, 20)
    l_a, u_a = hand_wilson(14, 20)
    low = -0.4 - math.sqrt(
        (0.3 - l_b) ** 2 - 2 * phi * (0.3 - l_b) * (u_a - 0.7) + (u_a - 0.7) ** 2
    )
    high = -0.4 + math.sqrt(
        (0.7 - l_a) ** 2 - 2 * phi * (0.7 - l_a) * (u_b - 0.3) + (u_b - 0.3) ** 2
    )
    assert (result.difference_low, result.difference_high) == pytest.approx((low, high))
    assert (low, high) == pytest.approx((-0.61058, -0.10159), abs=1e-5)
    out = result.as_json()
    assert out["test"] == "mcnemar_exact"
    assert out["difference_interval"] == pytest.approx([low, high])


def test_mcnemar_without_discordant_pairs() -> None:
    a, b = paired_runs(both=6, b01=0, b10=0, neither=4)
    result = compare_runs(a, b)
    assert (result.test, result.p_value, result.difference) == ("mcnemar_exact", 1.0, 0.0)
    assert result.difference_low is not None and result.difference_low < 0
    assert result.difference_high is not None and result.difference_high > 0


def test_two_proportion_fallback() -> None:
    # no shared items: a is 6/8 right, b is 2/8 right.
    a = [choice(f"a{i}", C if i < 6 else X) for i in range(8)]
    b = [choice(f"b{i}", C if i < 2 else X) for i in range(8)]
    result = compare_runs(a, b)
    assert result.test == "two_proportion_z"
    assert result.n_shared == 0
    # pooled p = 8/16 = 0.5; se = sqrt(0.5*0.5*(1/8 + 1/8)) = sqrt(0.0625) = 0.25
    # z = (0.25 - 0.75) / 0.25 = -2; p = 2 * (1 - Phi(2)) = 0.0455003
    assert result.z == pytest.approx(-2.0)
    assert result.p_value == pytest.approx(0.0455003, abs=1e-7)
    assert result.difference == pytest.approx(-0.5)
    # Newcombe hybrid score (independent): d ∓ sqrt of squared Wilson half-widths
    l_a, u_a = hand_wilson(6, 8)
    l_b, u_b = hand_wilson(2, 8)
    low = -0.5 - math.sqrt((0.25 - l_b) ** 2 + (u_a - 0.75) ** 2)
    high = -0.5 + math.sqrt((u_b - 0.25) ** 2 + (0.75 - l_a) ** 2)
    assert (result.difference_low, result.difference_high) == pytest.approx((low, high))
    assert result.as_json()["z"] == pytest.approx(-2.0)


def test_test_choice_switches_at_ten_shared_items() -> None:
    assert compare_runs(*paired_runs(3, 2, 2, 2)).test == "two_proportion_z"  # 9 shared
    assert compare_runs(*paired_runs(3, 2, 2, 3)).test == "mcnemar_exact"  # 10 shared


def test_two_proportion_degenerate_cases() -> None:
    all_right = [choice(f"a{i}", C) for i in range(3)]
    also_right = [choice(f"b{i}", C) for i in range(3)]
    same = compare_runs(all_right, also_right)
    assert (same.z, same.p_value, same.difference) == (0.0, 1.0, 0.0)
    nothing = compare_runs(all_right, [])
    assert (nothing.z, nothing.p_value, nothing.difference) == (None, None, None)
    assert nothing.accuracy_a == 1.0
    assert nothing.accuracy_b is None


def test_benjamini_hochberg_textbook() -> None:
    # sorted: 0.005*4/1 = 0.02, 0.01*4/2 = 0.02, 0.03*4/3 = 0.04, 0.04*4/4 = 0.04
    adjusted = benjamini_hochberg([0.01, 0.04, 0.03, 0.005])
    assert adjusted == pytest.approx([0.02, 0.04, 0.04, 0.02])


def test_benjamini_hochberg_monotone_and_capped() -> None:
    # raw m*p/rank: 0.5*3/1 = 1.5, 0.6*3/2 = 0.9, 0.9*3/3 = 0.9 -> running min from the top
    assert benjamini_hochberg([0.9, 0.5, 0.6]) == pytest.approx([0.9, 0.9, 0.9])
    # sorted: 0.01*3/1 = 0.03, 0.02*3/2 = 0.03, 0.8*3/3 = 0.8 (already monotone)
    assert benjamini_hochberg([0.02, 0.01, 0.8]) == pytest.approx([0.03, 0.03, 0.8])
    assert benjamini_hochberg([]) == []
    with pytest.raises(ValueError, match="out of"):
        benjamini_hochberg([0.1, 1.5])
    with pytest.raises(ValueError, match="out of"):
        benjamini_hochberg([math.nan])


@pytest.mark.parametrize(("k", "n"), [(0, 1), (1, 1), (0, 7), (7, 7), (3, 10), (80, 100), (1, 997)])
def test_wilson_matches_scipy_including_the_edges(k: int, n: int) -> None:
    assert wilson_interval(k, n) == pytest.approx(oracle_wilson(k, n), abs=1e-12)


@pytest.mark.parametrize(
    "p_values",
    [[0.01, 0.04, 0.03, 0.005], [0.9, 0.5, 0.6], [0.02, 0.01, 0.8], [0.5], [0.001] * 5,
     [0.2, 0.04, 0.04, 0.9, 0.011, 0.3, 0.049]],
)  # fmt: skip
def test_benjamini_hochberg_matches_scipy(p_values: list[float]) -> None:
    assert benjamini_hochberg(p_values) == pytest.approx(oracle_bh(p_values), abs=1e-12)
