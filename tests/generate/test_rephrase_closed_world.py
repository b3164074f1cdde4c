"""Closed-world predicates (issue 24, ninth round): a candidate word that is no listed rewording of
the statement's relation is ``predicate changed``. The corruptions say the opposite, or another
relation, through a verb no rule lists; the faithful rewordings use the statement's own words
inflected or a listed paraphrase of its relation. Entity names are invented; no sentence is taken
from the data.
"""

from __future__ import annotations

import pytest

from quizbot.generate.rephrase import closed_world
from quizbot.generate.rephrase.driver import JUDGEABLE
from tests.helpers.rephrase import verdict_of

# (head, tail, statement, candidates)
Group = tuple[str, str, str, list[str]]

_RAISES = ("Zorvatin", "serum calcium", "Zorvatin raises serum calcium.")
_TREATS = ("Brelcomab", "Kettle syndrome", "Brelcomab may treat Kettle syndrome.")
_PREVENTS = ("Quilstatin", "Morrow fever", "Quilstatin may be able to prevent Morrow fever.")
_ENCODES = ("Tarn gene", "tarnin", "The gene Tarn gene encodes gene product tarnin.")
_STEMS = (
    "Orlen disease",
    "Pell cell",
    "The disease Orlen disease stems from the normal cell Pell cell.",
)
_CAUSED = ("Varnix", "Dellow disease", "Dellow disease can be caused by Varnix.")
_AFTER = ("Hask syndrome", "Trell lesion", "Trell lesion occurs after Hask syndrome.")
_ROLE = (
    "Mobrin",
    "copper transport",
    "The gene product Mobrin plays a role in biological process copper transport.",
)

# Corruptions by a predicate verb no list of opposites has: each passed the open world.
UNLISTED: list[Group] = [
    (
        *_RAISES,
        [
            "Zorvatin stabilises serum calcium.",
            "Zorvatin normalises serum calcium.",
            "Zorvatin drains serum calcium.",
        ],
    ),
    (
        *_TREATS,
        [
            "Brelcomab may intensify Kettle syndrome.",
            "Brelcomab may unmask Kettle syndrome.",
            "Brelcomab may mimic Kettle syndrome.",
            "Brelcomab may accelerate Kettle syndrome.",
            "Brelcomab may prolong Kettle syndrome.",
            "Brelcomab may fuel Kettle syndrome.",
        ],
    ),
    (
        *_PREVENTS,
        [
            "Quilstatin may be able to transmit Morrow fever.",
            "Quilstatin may be able to hasten Morrow fever.",
        ],
    ),
    (
        *_ENCODES,
        [
            "The gene Tarn gene degrades gene product tarnin.",
            "The gene Tarn gene silences gene product tarnin.",
            "The gene Tarn gene cleaves gene product tarnin.",
        ],
    ),
    (
        *_STEMS,
        [
            "The disease Orlen disease depletes the normal cell Pell cell.",
            "The disease Orlen disease starves the normal cell Pell cell.",
        ],
    ),
    (
        *_CAUSED,
        ["Dellow disease can be masked by Varnix.", "Dellow disease can be halted by Varnix."],
    ),
    (*_AFTER, ["Trell lesion heralds Hask syndrome.", "Trell lesion foreshadows Hask syndrome."]),
    (
        *_ROLE,
        [
            "The gene product Mobrin blocks biological process copper transport.",
            "The gene product Mobrin disables copper transport.",
            "The gene product Mobrin sabotages copper transport.",
        ],
    ),
]

# Opposites the statement's own sense does not hold ("lowers" is no wording of "raises"): the
# lists of antonyms know these, the closed world would reject them too.
OPPOSITE: list[Group] = [
    (*_RAISES, ["Zorvatin lowers serum calcium.", "Zorvatin depletes serum calcium."]),
]

# Listed paraphrases of the statement's relation, in either voice, with hedges.
PARAPHRASED: list[Group] = [
    (*_RAISES, ["Zorvatin increases serum calcium.", "Zorvatin elevates serum calcium."]),
    (
        *_TREATS,
        [
            "Brelcomab might be used to manage Kettle syndrome.",
            "Kettle syndrome may be treated with Brelcomab.",
            "Brelcomab may be effective against Kettle syndrome.",
        ],
    ),
    (
        *_PREVENTS,
        [
            "Quilstatin may help prevent Morrow fever.",
            "Quilstatin could protect against Morrow fever.",
            "Quilstatin may offer protection against Morrow fever.",
        ],
    ),
    (*_ENCODES, ["The Tarn gene codes for the gene product tarnin."]),
    (
        *_STEMS,
        [
            "Orlen disease originates from normal Pell cells.",
            "Orlen disease arises from the normal Pell cell.",
        ],
    ),
    (*_CAUSED, ["Varnix can cause Dellow disease.", "Varnix can lead to Dellow disease."]),
    (
        *_AFTER,
        ["Trell lesion develops after Hask syndrome.", "Trell lesion follows Hask syndrome."],
    ),
    (
        *_ROLE,
        [
            "Mobrin is involved in copper transport.",
            "Mobrin takes part in the process of copper transport.",
            "Mobrin contributes to copper transport.",
        ],
    ),
]


def _cases(groups: list[Group]) -> list[tuple[str, str, str, str]]:
    return [(head, tail, statement, c) for head, tail, statement, cs in groups for c in cs]


def test_the_switch_is_on() -> None:
    """Measured on the dev and fresh tune parts and the rewordings (docs/knowledge.md, ninth
    round): the closed world keeps as many faithful rewordings and rejects more corruptions."""
    assert closed_world.CLOSED_WORLD


@pytest.mark.parametrize(("head", "tail", "statement", "candidate"), _cases(UNLISTED))
def test_an_unlisted_predicate_is_rejected(
    head: str, tail: str, statement: str, candidate: str
) -> None:
    """A verb no rule knows as a wording of the relation changes the predicate; the judge model
    may overturn it."""
    assert verdict_of(statement, candidate, head, tail) == "predicate changed"
    assert "predicate changed" in JUDGEABLE


@pytest.mark.parametrize(("head", "tail", "statement", "candidate"), _cases(OPPOSITE))
def test_an_opposite_is_rejected_both_ways(
    head: str, tail: str, statement: str, candidate: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    """An opposite the lists know is rejected (as an antonym) with or without the switch."""
    assert verdict_of(statement, candidate, head, tail) != "accepted"
    monkeypatch.setattr(closed_world, "CLOSED_WORLD", False)
    assert verdict_of(statement, candidate, head, tail) != "accepted"


@pytest.mark.parametrize(("head", "tail", "statement", "candidate"), _cases(UNLISTED))
def test_the_open_world_accepted_them(
    head: str, tail: str, statement: str, candidate: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    """With the switch off, the same corruptions pass: no other rule knows their verbs."""
    monkeypatch.setattr(closed_world, "CLOSED_WORLD", False)
    assert verdict_of(statement, candidate, head, tail) == "accepted"


@pytest.mark.parametrize(("head", "tail", "statement", "candidate"), _cases(PARAPHRASED))
def test_a_listed_paraphrase_is_kept(head: str, tail: str, statement: str, candidate: str) -> None:
    """The statement's relation in other words (its family, a listed paraphrase, a hedge of a
    hedged statement) keeps the claim."""
    assert verdict_of(statement, candidate, head, tail) == "accepted"


@pytest.mark.parametrize(
    ("statement", "candidate", "head", "tail"),
    [
        # the statement's own words inflected or derived
        (
            "A decrease in Kelp protein lowers the activity of Rund kinase.",
            "A decreased Kelp protein lowers Rund kinase activity.",
            "Kelp protein",
            "Rund kinase",
        ),
        # an acronym of an entity, light verbs and generic nouns carry no claim
        (
            "Chronic Vesper Disease may cause Tarrow Edema.",
            "Chronic Vesper Disease (CVD) can lead to Tarrow edema.",
            "Chronic Vesper Disease",
            "Tarrow Edema",
        ),
        (
            "If a patient has lesions in Drell Tissue, then he/she may suffer from Hobb Disease.",
            "Lesions in Drell tissue may indicate that a patient has Hobb Disease.",
            "Drell Tissue",
            "Hobb Disease",
        ),
    ],
)
def test_own_words_and_neutral_words_are_kept(
    statement: str, candidate: str, head: str, tail: str
) -> None:
    """Inflections of the statement's words, entity acronyms and, for a conditional, a verb of
    indication are no new predicate."""
    assert verdict_of(statement, candidate, head, tail) == "accepted"


def test_a_word_of_another_sense_is_no_paraphrase() -> None:
    """A sense is only open when the statement uses it: "suggest" rewords a conditional, not a
    treatment."""
    statement = "Brelcomab may treat Kettle syndrome."
    candidate = "Brelcomab may suggest Kettle syndrome."
    assert verdict_of(statement, candidate, "Brelcomab", "Kettle syndrome") == "predicate changed"
