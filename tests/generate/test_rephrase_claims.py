"""The claim's strength in :mod:`quizbot.generate.rephrase.claims` (issue 24, sixth round): a
conditional statement quantifies over its condition, so a rewording that opens with "Any" restates
it ("Any impairment of [Y] may be caused by ..." for "If [Y] is impaired, it may be caused by
..."); "any" anywhere else, or after a statement that is no conditional, is still an absolute.

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
