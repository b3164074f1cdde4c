"""The claim's strength in :mod:`quizbot.generate.rephrase.claims` (issue 24, sixth round): a
conditional statement quantifies over its condition, so a rewording that opens with "Any" restates
it ("Any impairment of [Y] may be caused by ..." for "If [Y] is impaired, it may be caused by
..."); "any" anywhere else, or after a statement that is no conditional, is still an absolute.
A statement of risk may be said with another word of risk ("likelihood"), no hedge; "diagnosed
with" after a person is a verb of having, not the predicate "diagnose".

Sentences are our own.
"""

from __future__ import annotations

import pytest

from quizbot.generate.rephrase.claims import strength_change
from tests.helpers.rephrase import verdict_of

_IF = (
    "If Bone Mineralization is impaired, it may be caused by a reduction in the production of "
    "Vitamin D Receptor."
)
_PLAIN = "Vitamin D Receptor plays a role in Bone Mineralization."


@pytest.mark.parametrize(
    ("statement", "candidate", "expected"),
    [
        (
            _IF,
            "Any impairment of bone mineralization may be caused by reduced production of "
            "vitamin D receptor.",
            "accepted",
        ),
        (
            _IF,
            "Impaired bone mineralization may be caused by any reduction in the production of "
            "vitamin D receptor.",
            "claim strength changed",
        ),
        (
            _IF,
            "Any impairment of bone mineralization is always caused by reduced production of "
            "vitamin D receptor.",
            "claim strength changed",
        ),
        (
            _PLAIN,
            "Any vitamin D receptor plays a role in bone mineralization.",
            "claim strength changed",
        ),
    ],
)
def test_any_restates_a_conditional_only_at_the_start(
    statement: str, candidate: str, expected: str
) -> None:
    assert verdict_of(statement, candidate, "Vitamin D Receptor", "Bone Mineralization") == expected


def test_strength_change_on_masked_text() -> None:
    mask = "\x1a\x1a\x1a"
    statement = f"If {mask} decreases, {mask} may decrease."
    assert strength_change(statement, f"Any decrease in {mask} may lower {mask}.", False) is None
    assert strength_change(f"{mask} lowers {mask}.", f"Any {mask} lowers {mask}.", False)


_RISK = "Smoking increases the risk of Lung Cancer."


@pytest.mark.parametrize(
    ("candidate", "expected"),
    [
        ("Smoking raises the likelihood of developing lung cancer.", "accepted"),
        ("Smoking makes lung cancer more likely.", "accepted"),
        ("Smoking increases the chance of getting lung cancer.", "accepted"),
        ("Smoking may increase the risk of lung cancer.", "claim strength changed"),
        ("Smoking possibly raises the likelihood of lung cancer.", "claim strength changed"),
        ("Smoking lowers the likelihood of lung cancer.", "antonym"),
    ],
)
def test_another_word_of_risk_is_no_hedge(candidate: str, expected: str) -> None:
    assert verdict_of(_RISK, candidate, "Smoking", "Lung Cancer") == expected


_UNSUITABLE = (
    "If a patient suffers from Type 2 Diabetes Mellitus, then Metformin is not a suitable drug "
    "for him/her."
)


@pytest.mark.parametrize(
    ("candidate", "expected"),
    [
        (
            "Metformin is not an appropriate medication for a patient with type 2 diabetes "
            "mellitus.",
            "accepted",
        ),
        (
            "Metformin is not an appropriate medication for a patient diagnosed with type 2 "
            "diabetes mellitus.",
            "accepted",
        ),
        (
            "Type 2 diabetes mellitus is not an appropriate medication for a patient with "
            "metformin.",
            "roles swapped",
        ),
    ],
)
def test_verbs_of_having_tie_the_patient_alike(candidate: str, expected: str) -> None:
    assert verdict_of(_UNSUITABLE, candidate, "Metformin", "Type 2 Diabetes Mellitus") == expected


def test_diagnosed_after_a_person_is_no_diagnosis() -> None:
    statement = "Metformin may treat Type 2 Diabetes Mellitus."
    head, tail = "Metformin", "Type 2 Diabetes Mellitus"
    kept = "Metformin may treat patients diagnosed with type 2 diabetes mellitus."
    changed = "Metformin may be used to diagnose type 2 diabetes mellitus in patients."
    assert verdict_of(statement, kept, head, tail) == "accepted"
    assert verdict_of(statement, changed, head, tail) == "predicate changed"
