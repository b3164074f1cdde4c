"""The cause a candidate names in words must be the statement's (issue 24, eleventh round):
the cause of a causal predicate ("[A] leads to [B]", "[B] is attributed to [A]", "[B] ...
because [A]"), and for a conditional that states no predicate its condition ("If [A]
decreases, [B] may decrease"). Every sentence is written for these tests (none is from a data
set); each rewording is paired with the role swap it must still reject.
"""

from __future__ import annotations

import pytest

from tests.helpers.rephrase import verdict_of

# the prototypes' conditionals: the change of the first entity brings the change of the second
EFFECT_IF = (
    "If the production of Hexokinase 2 decreases, the functionality of Glucose Phosphorylation "
    "may decrease."
)
CAUSED_IF = (
    "If the functionality of Glucose Phosphorylation decreases, it may caused by the reduction "
    "in the production of Hexokinase 2."
)
TAKES = "If a patient takes sumatriptan, he/she may have physiologic effect of Vasoconstriction ."
NOT_CAUSED = (
    "A change of Glycolysis is not caused by the reduction in the production of Hexokinase 2."
)
NO_NEED = "A patient wishes to prevent Cholera has no need to take doxycycline."
HEX, GP = "Hexokinase 2", "Glucose Phosphorylation"


@pytest.mark.parametrize(
    ("statement", "candidate", "head", "tail", "expected"),
    [
        (
            EFFECT_IF,
            "Reduced hexokinase 2 production may lead to decreased glucose "
            "phosphorylation functionality.",
            HEX,
            GP,
            "accepted",
        ),
        (
            EFFECT_IF,
            "Reduced glucose phosphorylation functionality may lead to decreased "
            "production of hexokinase 2.",
            HEX,
            GP,
            "roles swapped",
        ),
        (
            CAUSED_IF,
            "A drop in glucose phosphorylation functionality may be attributed to less "
            "hexokinase 2 production.",
            HEX,
            GP,
            "accepted",
        ),
        (
            CAUSED_IF,
            "A decline in the production of hexokinase 2 may be attributed to reduced "
            "glucose phosphorylation functionality.",
            HEX,
            GP,
            "roles swapped",
        ),
        (
            TAKES,
            "Taking sumatriptan may lead to vasoconstriction.",
            "sumatriptan",
            "Vasoconstriction",
            "accepted",
        ),
        (
            TAKES,
            "Vasoconstriction may lead to taking sumatriptan.",
            "sumatriptan",
            "Vasoconstriction",
            "roles swapped",
        ),
        # a person qualified by the second entity makes it the condition
        (
            NO_NEED,
            "There's no need to take doxycycline for someone who wants to prevent cholera.",
            "doxycycline",
            "Cholera",
            "accepted",
        ),
        (
            NO_NEED,
            "There's no need to prevent cholera for someone who takes doxycycline.",
            "doxycycline",
            "Cholera",
            "roles swapped",
        ),
        (
            NOT_CAUSED,
            "When glycolysis changes, it isn't because less hexokinase 2 is produced.",
            "Hexokinase 2",
            "Glycolysis",
            "accepted",
        ),
        (
            NOT_CAUSED,
            "When hexokinase 2 production changes, it isn't because less glycolysis "
            "is taking place.",
            "Hexokinase 2",
            "Glycolysis",
            "roles swapped",
        ),
    ],
)
def test_the_named_cause_is_the_statements(
    statement: str, candidate: str, head: str, tail: str, expected: str
) -> None:
    assert verdict_of(statement, candidate, head, tail) == expected
