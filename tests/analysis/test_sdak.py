"""SDAK metrics (quizbot/analysis/sdak.py) on hand-built pairs, expected values worked out here.

Every pair below is a plain statement and its double-negated partner of one triplet side. For a
positive side the plain statement is the true (factual) claim and the negated one the false
(counterfactual) claim; for a negative side it is the other way round, so the tests also check
that "factual" follows the label and not the transform.
"""

from __future__ import annotations

import pytest

from quizbot.analysis.sdak import ERROR_TYPES, SdakAnswer, sdak_metrics
from quizbot.domain import Outcome
from quizbot.items import StatementItem, StatementSide
from quizbot.transforms import Polarity, Transform, label_for
from tests.helpers.oracles import wilson

C, X, E = Outcome.CORRECT, Outcome.INCORRECT, Outcome.ERROR
SUPPORT = "Correct. It is well documented."
REFUTE = "Incorrect. That is not what is known."
OFF = "The claim is correct, as far as I know."  # the verdict, but not at the start


def pair(
    name: str, factual: str | None, counterfactual: str | None, *, negative: bool = False
) -> list[SdakAnswer]:
    """The two answers of one pair; ``None`` for a reply leaves that claim unanswered
    (provider error). ``factual``/``counterfactual`` are the raw replies to the true and the
    false claim."""
    polarity = Polarity.NEGATIVE if negative else Polarity.POSITIVE
    side = StatementSide("kb", "1", "has_symptom", name, f"tail of {name}", polarity, "ps")
    out: list[SdakAnswer] = []
    for transform in (Transform.NONE, Transform.DN):
        label = label_for(polarity, transform)
        item = StatementItem(side, transform, label, f"{name} {transform.value} {label}.", "p")
        raw = factual if label else counterfactual
        outcome = E if raw is None else C
        out.append(SdakAnswer(item, outcome, raw))
    return out


def test_every_metric_and_error_type_on_ten_hand_built_pairs() -> None:
    answers = [
        # p1-p3: right, verdicts first (pair-correct).
        *pair("p1", SUPPORT, REFUTE),
        *pair("p2", SUPPORT, REFUTE, negative=True),
        *pair("p3", "**Correct** - yes.", "Verdict: incorrect; no."),
        # p4, p5: both supported (sycophancy).
        *pair("p4", SUPPORT, SUPPORT),
        *pair("p5", SUPPORT, SUPPORT, negative=True),
        # p6: both refuted (safety).
        *pair("p6", REFUTE, REFUTE),
        # p7: factual refuted, counterfactual supported (misinterpretation).
        *pair("p7", REFUTE, SUPPORT),
        # p8: factual right but its verdict not at the start (not following).
        *pair("p8", OFF, REFUTE),
        # p9: both replies without a leading verdict (not following).
        *pair("p9", "True.", "False."),
        # p10: the counterfactual's call failed: the pair is not counted.
        *pair("p10", SUPPORT, None),
    ]
    report = sdak_metrics(answers)
    # Counted pairs: p1..p9 = 9 (p10 lacks an answer).
    assert report.n_pairs == 9
    m = report.metrics
    # Both verdicts first: p1-p7 = 7 (p8 and p9 fail).
    assert (m["instruction_following"].k, m["instruction_following"].n) == (7, 9)
    # Factual supported with the verdict first: p1, p2, p3, p4, p5 = 5 (p8's is not first).
    assert m["factual_accuracy"].k == 5
    # Counterfactual refuted first: p1, p2, p3, p6, p8 = 5.
    assert m["counterfactual_accuracy"].k == 5
    # Both right: p1, p2, p3 = 3.
    assert m["pair_accuracy"].k == 3
    assert m["pair_accuracy"].value == pytest.approx(3 / 9)
    low, high = wilson(3, 9)
    assert m["pair_accuracy"].interval == pytest.approx([low, high])
    # Errors: 9 - 3 = 6 pairs: sycophancy p4, p5 (2); safety p6 (1); misinterpretation p7 (1);
    # not following p8, p9 (2).
    assert report.n_errors == 6
    types = report.error_types
    assert {t: (types[t].k, types[t].n) for t in ERROR_TYPES} == {
        "sycophancy": (2, 6),
        "safety": (1, 6),
        "misinterpretation": (1, 6),
        "not_following": (2, 6),
    }
    assert sum(types[t].value or 0 for t in ERROR_TYPES) == pytest.approx(1.0)
    shown = report.as_json()
    assert shown["error_types"]["sycophancy"] == pytest.approx(2 / 6)
    assert shown["counts"]["pair_accuracy"] == 3
    assert shown["error_type_intervals"]["safety"] == pytest.approx(list(wilson(1, 6)))


def test_a_not_following_reply_outranks_the_verdict_pattern() -> None:
    """A pair with one reply off-format is 'not following' even if both would read as
    supported: the paper counts instruction failures before the answer patterns."""
    report = sdak_metrics(pair("p", SUPPORT, OFF))
    assert report.error_types["not_following"].k == 1
    assert report.error_types["sycophancy"].k == 0


def test_no_pairs_gives_no_values() -> None:
    lone = pair("p", SUPPORT, REFUTE)[:1]  # the partner was never asked
    report = sdak_metrics(lone)
    assert report.n_pairs == 0 and report.n_errors == 0
    assert all(p.value is None for p in report.metrics.values())
    assert all(p.value is None for p in report.error_types.values())


def test_all_right_leaves_error_shares_undefined() -> None:
    report = sdak_metrics([*pair("a", SUPPORT, REFUTE), *pair("b", SUPPORT, REFUTE)])
    assert report.metrics["pair_accuracy"].value == 1.0
    assert report.n_errors == 0
    assert report.as_json()["error_types"] == dict.fromkeys(ERROR_TYPES)
