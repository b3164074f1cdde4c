"""Entity names read loosely by the rephrasing validator (:mod:`quizbot.generate.rephrase.entities`,
issue 24, sixth round): a hyphenated compound is of a name word's root only part by part, so a
compound that changes one part ("castration-sensitive" for "Castration-Resistant") or joins a
word to a name word ("myeloid-lymphoid" for "Myeloid") names another entity; a noun of quality
in -ity or -sion is read in its adjective ("obese" for "Obesity", "hypertensive"), a name's
variants in theirs ("anaemic"), an adjective's name in its noun ("apoptosis" for "Apoptotic
Process"); an entity's acronym ("(COPD)") is no
foreign term, and a capitalised word right after an entity that opens the sentence is one.

Every test pairs what a rule lets through with what it must still reject. Sentences are our own.
"""

from __future__ import annotations

import pytest

from quizbot.generate.rephrase.entities import (
    acronym_of,
    adjective_forms,
    loose_span,
    name_forms,
    noun_forms,
    same_root,
)
from tests.helpers.rephrase import verdict_of


@pytest.mark.parametrize(
    ("one", "two", "same"),
    [
        ("castration-resistant", "castration-sensitive", False),
        ("myeloid", "myeloid-lymphoid", False),
        ("colony-stimulating", "colony", False),
        ("post-partum", "postpartum", True),
        ("castration-resistant", "castration-resistance", True),
        ("amputated", "amputation", True),  # words without hyphens: unchanged
    ],
)
def test_hyphenated_compounds_share_a_root_part_by_part(one: str, two: str, same: bool) -> None:
    assert same_root(one, two) is same
    assert same_root(two, one) is same


def test_a_compound_of_name_words_takes_them_all() -> None:
    name = "Refractory HER2-Positive Gastric Carcinoma"
    text = "gastric carcinoma, HER2-positive and refractory"
    assert loose_span(text, name) == (0, len(text))
    assert loose_span("gastric carcinoma, HER2-negative and refractory", name) is None
    # a name word split in the text is still found ("sequence specific" for "Sequence-Specific")
    assert loose_span("binding of DNA, sequence specific", "Sequence-Specific DNA Binding")


_CRPC = ("Enzalutamide may treat Castration-Resistant Prostate Carcinoma.", "Enzalutamide")
_CML = ("Imatinib may treat Chronic Myeloid Leukemia.", "Imatinib")


@pytest.mark.parametrize(
    ("statement", "head", "tail", "candidate", "expected"),
    [
        (
            *_CRPC,
            "Castration-Resistant Prostate Carcinoma",
            "Enzalutamide may treat prostate carcinoma that is castration-resistant.",
            "accepted",
        ),
        (
            *_CRPC,
            "Castration-Resistant Prostate Carcinoma",
            "Enzalutamide may treat prostate carcinoma that is castration-sensitive.",
            "entity missing",
        ),
        (
            *_CML,
            "Chronic Myeloid Leukemia",
            "Imatinib may be used to treat leukemia of the chronic myeloid type.",
            "accepted",
        ),
        (
            *_CML,
            "Chronic Myeloid Leukemia",
            "Imatinib may treat chronic myeloid-lymphoid leukemia.",
            "entity missing",
        ),
    ],
)
def test_a_changed_compound_is_another_entity(
    statement: str, head: str, tail: str, candidate: str, expected: str
) -> None:
    assert verdict_of(statement, candidate, head, tail) == expected


def test_adjectives_of_nouns_of_quality() -> None:
    assert "obese" in adjective_forms("Obesity")
    assert "sterile" in adjective_forms("Sterility")
    assert "spastic" in adjective_forms("Spasticity")
    assert adjective_forms("Tortuosity") == ("tortuous",)
    assert adjective_forms("Fibrosis") == ("fibrotic",)


_OBESE = "If a patient suffers from Obesity, he/she may develop Gallstones."


@pytest.mark.parametrize(
    ("candidate", "expected"),
    [
        ("An obese patient may develop gallstones.", "accepted"),
        ("A patient who is obese may go on to develop gallstones.", "accepted"),
        ("An obese patient may develop kidney stones.", "entity missing"),
        ("A patient who is not obese may develop gallstones.", "negation flipped"),
    ],
)
def test_obese_names_obesity(candidate: str, expected: str) -> None:
    assert verdict_of(_OBESE, candidate, "Obesity", "Gallstones") == expected


def test_acronyms() -> None:
    assert acronym_of("COPD", "Chronic Obstructive Pulmonary Disease")
    assert acronym_of("PTLD", "Post-Transplant Lymphoproliferative Disorder")
    assert acronym_of("TNF-A", "Tumor Necrosis Factor-Alpha")
    assert acronym_of("CPH", "Carcinoma of the Pancreatic Head")  # function words left out
    assert not acronym_of("CLL", "Chronic Obstructive Pulmonary Disease")
    assert not acronym_of("copd", "Chronic Obstructive Pulmonary Disease")  # as written
    assert not acronym_of("TGF", "Tumor Necrosis Factor")


_COPD = "Chronic Obstructive Pulmonary Disease may cause Cor Pulmonale."


@pytest.mark.parametrize(
    ("candidate", "expected"),
    [
        ("Chronic obstructive pulmonary disease (COPD) can lead to cor pulmonale.", "accepted"),
        (
            "Cor pulmonale may be caused by chronic obstructive pulmonary disease (COPD).",
            "accepted",
        ),
        (
            "Chronic obstructive pulmonary disease (CLL) can lead to cor pulmonale.",
            "foreign entity",
        ),
        (
            "Cor pulmonale may be caused by chronic obstructive pulmonary disease (CLL).",
            "foreign entity",
        ),
    ],
)
def test_an_acronym_after_the_entity(candidate: str, expected: str) -> None:
    assert (
        verdict_of(_COPD, candidate, "Chronic Obstructive Pulmonary Disease", "Cor Pulmonale")
        == expected
    )


def test_nouns_of_adjectives_and_forms_of_variants() -> None:
    assert noun_forms("Apoptotic") == ("apoptosis",)
    assert noun_forms("Glycolytic") == ("glycolysis",)
    assert noun_forms("Anaemic") == ("anaemia",)
    assert noun_forms("Apoptotic Process") == ()  # one word only
    assert "hypertensive" in adjective_forms("Hypertension")
    assert "apoptosis" in name_forms("Apoptotic Process")
    assert "anaemic" in name_forms("Anemia")  # the adjective of a British spelling


@pytest.mark.parametrize(
    ("statement", "head", "tail", "candidate", "expected"),
    [
        (
            "The gene product Caspase 3 plays a role in biological process Apoptotic Process.",
            "Caspase 3",
            "Apoptotic Process",
            "Caspase 3 plays a role in apoptosis.",
            "accepted",
        ),
        (
            "The gene product Caspase 3 plays a role in biological process Apoptotic Process.",
            "Caspase 3",
            "Apoptotic Process",
            "Caspase 3 plays a role in necrosis.",
            "entity missing",
        ),
        (
            "If a patient suffers from Hypertension, he/she may develop Stroke.",
            "Hypertension",
            "Stroke",
            "A hypertensive patient may develop a stroke.",
            "accepted",
        ),
        (
            "If a patient suffers from Hypertension, he/she may develop Stroke.",
            "Hypertension",
            "Stroke",
            "A hypotensive patient may develop a stroke.",
            "entity missing",
        ),
        (
            "If a patient suffers from Anemia, he/she may develop Fatigue.",
            "Anemia",
            "Fatigue",
            "An anaemic patient may experience fatigue.",
            "accepted",
        ),
    ],
)
def test_adjectives_and_nouns_in_the_validator(
    statement: str, head: str, tail: str, candidate: str, expected: str
) -> None:
    assert verdict_of(statement, candidate, head, tail) == expected
