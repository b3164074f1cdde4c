"""The lexicon of opposites (:mod:`quizbot.generate.opposites`, issue 24, fifth round) and how
the rephrasing validator uses it: an opposite in words no earlier list held is an antonym, a
same-side synonym is a rewording, a converse is faithful when the entities change places, and a
word inside the statement's entity names is the name's, not the claim's.

Sentences are our own.
"""

from __future__ import annotations

import pytest

from quizbot.generate.opposites import lexicon, lexicon_clash, word_forms_of
from quizbot.generate.wording import antonym_clash
from tests.helpers.rephrase import verdict_of


def _words(text: str) -> list[str]:
    return text.lower().replace(".", "").replace(",", "").split()


def test_the_lexicon_holds_several_hundred_pairs() -> None:
    rows = lexicon()
    assert len(rows) >= 60
    assert sum(len(r.sides[0]) * len(r.sides[1]) for r in rows) >= 1000
    assert lexicon() is rows  # read once


def test_word_forms() -> None:
    assert {"widens", "widened", "widening"} <= word_forms_of("widen")
    assert {"thinner", "thinned", "thinning"} <= word_forms_of("thin")
    assert "think" not in word_forms_of("thin")
    assert {"intensifies", "intensified"} <= word_forms_of("intensify")


# (statement words, candidate words): one per family of the lexicon that no earlier list held
_CLASHES = [
    ("if \x1a decreases \x1a may be influenced", "when \x1a soars \x1a may be affected"),
    ("the likelihood of \x1a is higher", "\x1a slashes the odds of \x1a"),  # quantity
    ("the likelihood of \x1a is higher", "\x1a shrinks the chance of \x1a"),
    ("\x1a can dilate \x1a", "\x1a can constrict \x1a"),  # vessels
    ("\x1a can dilate \x1a", "\x1a can narrow \x1a"),  # vessels
    ("\x1a makes \x1a expand", "\x1a makes \x1a shrink"),  # growth
    ("\x1a thickens \x1a", "\x1a thins \x1a"),  # thickness
    ("\x1a accelerates \x1a", "\x1a slows \x1a"),  # speed
    ("\x1a has a sudden onset in \x1a", "\x1a has a gradual onset in \x1a"),  # onset pace
    ("\x1a causes transient \x1a", "\x1a causes permanent \x1a"),  # duration
    ("\x1a is a localized form of \x1a", "\x1a is a widespread form of \x1a"),  # extent
    ("\x1a is beneficial in \x1a", "\x1a is detrimental in \x1a"),  # worth
    ("\x1a ameliorates \x1a", "\x1a exacerbates \x1a"),  # course of an effect
    ("\x1a is often accompanied by \x1a", "\x1a is occasionally accompanied by \x1a"),  # frequency
    ("\x1a confirms \x1a", "\x1a refutes \x1a"),  # certainty
    ("\x1a permits \x1a", "\x1a forbids \x1a"),  # permission
    ("\x1a promotes the production of \x1a", "\x1a promotes the degradation of \x1a"),  # production
    ("\x1a is an excitatory \x1a", "\x1a is an inhibitory \x1a"),  # signal
    ("\x1a is symmetric in \x1a", "\x1a is asymmetric in \x1a"),  # symmetry
    ("\x1a is an acidic \x1a", "\x1a is an alkaline \x1a"),  # ph
    ("\x1a causes a dry \x1a", "\x1a causes a wet \x1a"),  # moisture
    ("\x1a is a unilateral \x1a", "\x1a is a bilateral \x1a"),  # laterality
]


@pytest.mark.parametrize(("statement", "candidate"), _CLASHES)
def test_an_opposite_in_new_words_clashes(statement: str, candidate: str) -> None:
    assert lexicon_clash(_words(statement), _words(candidate)) is not None
    assert antonym_clash(_words(statement), _words(candidate)) is not None


# same side, or a fixed phrase in which the word does not carry its sense
_KEPT = [
    ("if \x1a decreases \x1a may be influenced", "when \x1a falls \x1a may be affected"),
    ("the likelihood of \x1a is higher", "\x1a heightens the odds of \x1a"),
    ("\x1a can dilate \x1a", "\x1a can widen \x1a"),
    ("\x1a is beneficial in \x1a", "\x1a is helpful in \x1a"),
    ("\x1a is often accompanied by \x1a", "\x1a is frequently accompanied by \x1a"),
    # a statement with both sides keeps both: no flip
    (
        "if \x1a decreases the likelihood of \x1a is higher",
        "a fall in \x1a raises the likelihood of \x1a",
    ),
    # "gives rise to" is no rise, "falls under" no fall, "the lower limb" no lessening
    ("\x1a decreases \x1a", "\x1a gives rise to less \x1a"),
    ("\x1a increases \x1a", "\x1a falls under \x1a and raises it"),
    ("the likelihood of \x1a is higher", "\x1a in the lower limb raises the chance of \x1a"),
]


@pytest.mark.parametrize(("statement", "candidate"), _KEPT)
def test_a_same_side_word_or_fixed_phrase_does_not_clash(statement: str, candidate: str) -> None:
    assert lexicon_clash(_words(statement), _words(candidate)) is None


def test_a_flipped_half_of_a_two_sided_statement_clashes() -> None:
    statement = _words("if \x1a decreases the likelihood of \x1a is higher")
    assert lexicon_clash(statement, _words("a fall in \x1a lowers the likelihood of \x1a"))


def test_opposite_prefixes() -> None:
    assert antonym_clash(["intracellular"], ["extracellular"]) == ("intracellular", "extracellular")
    assert antonym_clash(["preoperative"], ["postoperative"]) == ("preoperative", "postoperative")
    assert antonym_clash(["reversible"], ["irreversible"]) == ("reversible", "irreversible")
    assert antonym_clash(["compensated"], ["decompensated"]) is not None
    # a short base is no negation: "apart" for "part", "deliver" for "liver"
    assert antonym_clash(["part"], ["apart"]) is None
    assert antonym_clash(["liver"], ["deliver"]) is None


@pytest.mark.parametrize(
    ("candidate", "expected"),
    [
        ("When potassium falls, muscle weakness may be affected.", "accepted"),
        ("When potassium soars, muscle weakness may be affected.", "antonym"),
        ("A surge in potassium may influence muscle weakness.", "antonym"),
    ],
)
def test_the_validator_rejects_a_new_opposite(candidate: str, expected: str) -> None:
    statement = "If Potassium decreases, Muscle weakness may be influenced."
    assert verdict_of(statement, candidate, "Potassium", "Muscle weakness") == expected


@pytest.mark.parametrize(
    ("candidate", "expected"),
    [
        ("Fever comes prior to rash.", "accepted"),
        ("Fever occurs subsequent to rash.", "antonym"),
        # the converse with the entities exchanged says the same
        ("Rash occurs after fever.", "accepted"),
    ],
)
def test_a_converse_is_an_opposite_only_in_the_same_order(candidate: str, expected: str) -> None:
    assert verdict_of("Fever occurs before Rash.", candidate, "Fever", "Rash") == expected


@pytest.mark.parametrize(
    ("statement", "candidate", "head", "tail"),
    [
        (
            "Physiotherapy may treat Left ventricular failure in the right patient.",
            "Physiotherapy may treat left ventricular failure (failure of the left ventricle)"
            " in the right patient.",
            "Physiotherapy",
            "Left ventricular failure",
        ),
        (
            "Exercise may treat High blood pressure and low mood.",
            "Exercise may treat high blood pressure, that is blood pressure that is high, and"
            " low mood.",
            "Exercise",
            "High blood pressure",
        ),
    ],
)
def test_an_opposite_inside_an_entity_name_does_not_fire(
    statement: str, candidate: str, head: str, tail: str
) -> None:
    # "left" and "high" belong to the tail's name: written again outside the name's span they
    # are still the name's words, not opposites of the statement's "right" and "low"
    assert verdict_of(statement, candidate, head, tail) == "accepted"


@pytest.mark.parametrize(
    ("statement", "candidate", "clash"),
    [
        ("if \x1a decreases \x1a may decrease", "when \x1a falls \x1a may go up", True),
        ("\x1a increases the level of \x1a", "\x1a makes the level of \x1a tail off", True),
        ("\x1a raises the level of \x1a", "the level of \x1a is cut back by \x1a", True),
        ("\x1a lowers the level of \x1a", "\x1a makes the level of \x1a shoot up", True),
        ("if \x1a decreases \x1a may decrease", "when \x1a falls \x1a may go down too", False),
        ("\x1a increases the level of \x1a", "\x1a makes the level of \x1a go up", False),
    ],
)
def test_a_phrasal_verb_of_quantity_reads_as_its_word(
    statement: str, candidate: str, clash: bool
) -> None:
    assert (lexicon_clash(_words(statement), _words(candidate)) is not None) is clash


def test_the_validator_reads_a_phrasal_opposite() -> None:
    statement = (
        "If the production of Calmodulin decreases, the functionality of Calcium Binding "
        "Protein may decrease."
    )
    head, tail = "Calmodulin", "Calcium Binding Protein"
    flipped = "When calmodulin production falls, calcium-binding function may go up."
    kept = "When calmodulin production falls, calcium-binding function may go down too."
    assert verdict_of(statement, flipped, head, tail) == "antonym"
    assert verdict_of(statement, kept, head, tail) == "accepted"
