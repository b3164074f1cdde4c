"""The label logic of the eight transforms, for both polarities, against a hand-written table."""

from __future__ import annotations

import pytest

from quizbot.transforms import (
    PAIRS,
    TRANSFORMS,
    Polarity,
    Transform,
    describe,
    label_for,
)

# Written out by hand from the logic (dn variants state the negation), not computed.
EXPECTED = {
    ("none", "positive"): True,
    ("inv", "positive"): True,
    ("ins", "positive"): True,
    ("inv+ins", "positive"): True,
    ("dn", "positive"): False,
    ("inv+dn", "positive"): False,
    ("ins+dn", "positive"): False,
    ("inv+ins+dn", "positive"): False,
    ("none", "negative"): False,
    ("inv", "negative"): False,
    ("ins", "negative"): False,
    ("inv+ins", "negative"): False,
    ("dn", "negative"): True,
    ("inv+dn", "negative"): True,
    ("ins+dn", "negative"): True,
    ("inv+ins+dn", "negative"): True,
}


@pytest.mark.parametrize(("transform", "polarity"), sorted(EXPECTED))
def test_label_for_every_transform_and_polarity(transform: str, polarity: str) -> None:
    assert label_for(Polarity(polarity), Transform(transform)) is EXPECTED[(transform, polarity)]


def test_there_are_exactly_eight_transforms_in_paper_order() -> None:
    assert [t.value for t in TRANSFORMS] == [
        "none", "inv", "ins", "inv+ins", "dn", "inv+dn", "ins+dn", "inv+ins+dn",
    ]  # fmt: skip


def test_pairs_join_each_statement_with_its_negation() -> None:
    assert [(a.value, b.value) for a, b in PAIRS] == [
        ("none", "dn"), ("inv", "inv+dn"), ("ins", "ins+dn"), ("inv+ins", "inv+ins+dn"),
    ]  # fmt: skip
    for factual, counterfactual in PAIRS:
        assert counterfactual.partner is factual
        for polarity in Polarity:
            assert label_for(polarity, factual) != label_for(polarity, counterfactual)


def test_descriptions_read_as_the_operations() -> None:
    assert describe(Transform.NONE) == "original statement"
    assert describe(Transform.INV_INS_DN) == "inversion + instantiation + double negation"
    assert describe(Transform.INS) == "instantiation"
