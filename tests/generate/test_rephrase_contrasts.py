"""Claim changes without a negation or entity change, for the rephrasing validator (issue 24,
:mod:`quizbot.generate.rephrase.contrasts`): a firm claim made a non-implication, a qualifier
made its opposite, a remedy made the way to get the disease.

Each rule is tested on both sides: the faithful rewording it lets through and the change it
must reject. Sentences are our own.
"""

from __future__ import annotations

import pytest

from quizbot.generate.rephrase import negation_cues
from quizbot.generate.rephrase.contrasts import (
    degree_added,
    kept_qualifiers,
    non_implication,
    opposite_qualifier,
    remedy_to_onset,
    risk_dropped,
)
from tests.helpers.rephrase import verdict_of

_verdict = verdict_of


def _words(text: str) -> list[str]:
    return text.lower().replace(".", "").split()


def test_non_implication() -> None:
    orig = "A patient with \x1a does not suffer from \x1a."
    assert non_implication(orig, "Patients with \x1a do not have \x1a.") is None
    for cand in (
        "Having \x1a does not mean a patient has \x1a.",
        "\x1a doesn't imply \x1a.",
        "\x1a is no guarantee of \x1a.",
    ):
        finding = non_implication(orig, cand)
        assert finding is not None and finding[0] == "claim strength changed", cand
    # what is known in place of what is
    for cand in ("\x1a is not known to cause \x1a.", "There is no evidence that \x1a has \x1a."):
        finding = non_implication(orig, cand)
        assert finding is not None and finding[0] == "claim strength changed", cand
    # the statement's own phrase may be kept
    assert non_implication("\x1a does not imply \x1a.", "\x1a doesn't imply \x1a.") is None


@pytest.mark.parametrize(
    ("candidate", "expected"),
    [
        ("Renal cell carcinoma arises from healthy epithelium.", "accepted"),
        ("Renal cell carcinoma arises from abnormal epithelium.", "antonym"),
    ],
)
def test_normal_made_abnormal(candidate: str, expected: str) -> None:
    statement = "The disease Renal Cell Carcinoma stems from the normal tissue Epithelium."
    assert _verdict(statement, candidate, "Renal Cell Carcinoma", "Epithelium") == expected


@pytest.mark.parametrize(
    ("candidate", "expected"),
    [
        ("Ribosomal protein L7 carries out its function in the cytoplasm.", "accepted"),
        ("Ribosomal protein L7 carries out its function outside the cytoplasm.", "antonym"),
    ],
)
def test_place_made_its_outside(candidate: str, expected: str) -> None:
    statement = "Anatomy Cytoplasm is where Ribosomal Protein L7 functions."
    assert _verdict(statement, candidate, "Ribosomal Protein L7", "Cytoplasm") == expected


def test_opposite_qualifier_words() -> None:
    assert opposite_qualifier(_words("stems from normal cells"), _words("abnormal cells")) == (
        "antonym",
        "'abnormal' reverses the statement's qualifier",
    )
    assert opposite_qualifier(_words("abnormal cells"), _words("normal cells")) is not None
    assert opposite_qualifier(_words("normal tissue"), _words("diseased tissue")) is not None
    assert opposite_qualifier(_words("where it works"), _words("works beyond it")) is not None
    # both sides in the statement: nothing to reverse
    assert opposite_qualifier(_words("normal or abnormal"), _words("abnormal")) is None
    # "in" is a whole word only: "inward" is no place word
    assert opposite_qualifier(_words("works inward"), _words("works outside")) is None


@pytest.mark.parametrize(
    ("candidate", "expected"),
    [
        ("Taking fluoride varnish can help a patient avoid developing caries.", "accepted"),
        ("Fluoride varnish can keep a patient from developing caries.", "accepted"),
        ("Fluoride varnish can inhibit the development of caries.", "accepted"),
        ("Taking fluoride varnish can help a patient develop caries.", "antonym"),
    ],
)
def test_remedy_made_onset(candidate: str, expected: str) -> None:
    statement = "If a patient takes Fluoride Varnish, he/she can prevent Caries."
    assert _verdict(statement, candidate, "Fluoride Varnish", "Caries") == expected


def test_kept_qualifiers() -> None:
    had = _words("the disease stems from the normal tissue")
    assert kept_qualifiers(had, _words("it arises from healthy tissue")) == {"healthy"}
    assert kept_qualifiers(_words("it stems from tissue"), _words("healthy tissue")) == set()


def test_remedy_to_onset_words() -> None:
    had = _words("if a patient takes it he can prevent it")
    assert remedy_to_onset(had, _words("it can help a patient get it")) is not None
    assert remedy_to_onset(had, _words("it lowers the chance to develop it")) is None
    assert remedy_to_onset(had, _words("it can inhibit a patient developing it")) is None
    # no remedy in the statement: a verb of getting the disease is no reversal
    assert remedy_to_onset(_words("it is linked to it"), _words("people develop it")) is None


def test_firm_negation_made_non_implication_in_the_validator() -> None:
    statement = "A patient that has lesions in Liver does not suffer from Gallstone Ileus."
    head, tail = "Liver", "Gallstone Ileus"
    assert (
        _verdict(
            statement, "Patients with lesions in the liver do not have gallstone ileus.", head, tail
        )
        == "accepted"
    )
    assert (
        _verdict(
            statement,
            "Having lesions in the liver does not mean a patient has gallstone ileus.",
            head,
            tail,
        )
        == "claim strength changed"
    )


def test_degree_added() -> None:
    had = _words("it is not associated with it")
    assert degree_added(had, _words("it is not linked to it")) is None
    assert degree_added(had, _words("it is not directly linked to it")) == (
        "claim strength changed",
        "'directly' narrows the claim",
    )
    assert degree_added(_words("it is a major cause"), _words("a major cause it is")) is None


@pytest.mark.parametrize(
    ("candidate", "expected"),
    [
        ("Statin use is not linked to rhabdomyolysis.", "accepted"),
        ("Statin use is not significantly linked to rhabdomyolysis.", "claim strength changed"),
        ("Statin use is not known to be linked to rhabdomyolysis.", "claim strength changed"),
    ],
)
def test_degree_and_knowledge_in_the_validator(candidate: str, expected: str) -> None:
    statement = "Statin Use is not associated with Rhabdomyolysis."
    assert _verdict(statement, candidate, "Statin Use", "Rhabdomyolysis") == expected


@pytest.mark.parametrize(
    ("had", "brought"),
    [
        ("arises from normal cells", "arises from malignant cells"),
        ("stains positive for it", "stains negative for it"),
        ("it is upregulated", "it is downregulated"),
        ("activation of it", "deactivation of it"),
        ("if it decreases its function may decrease", "its function may improve"),
        ("the risk is higher", "the risk is minimized"),
        ("linked to the development of it", "linked to the resolution of it"),
    ],
)
def test_more_opposite_qualifiers(had: str, brought: str) -> None:
    finding = opposite_qualifier(_words(had), _words(brought))
    assert finding is not None and finding[0] == "antonym"
    # the same words on the statement's side are a rewording
    assert opposite_qualifier(_words(had), _words(had)) is None


def test_helping_a_disease_along_is_no_remedy() -> None:
    had = _words("if a patient takes it he can prevent it")
    assert remedy_to_onset(had, _words("taking it can contribute to it")) is not None
    assert remedy_to_onset(had, _words("taking it can favour it")) is not None


def test_independent_of_is_a_negation() -> None:
    assert negation_cues("Gout is independent of hyperuricemia.") == ("independent of",)
    statement = "The disease Gout is not associated with disease Hyperuricemia ."
    assert _verdict(
        statement, "Gout is independent of hyperuricemia.", "Gout", "Hyperuricemia"
    ) == ("accepted")
    assert _verdict(
        "The disease Gout is associated with disease Hyperuricemia .",
        "Gout is independent of hyperuricemia.",
        "Gout",
        "Hyperuricemia",
    ) == ("negation flipped")


def test_healthy_is_no_healing() -> None:
    had = _words("linked to the development of normal tissue")
    assert opposite_qualifier(had, _words("linked to the development of healthy tissue")) is None


def test_risk_dropped() -> None:
    had = _words("if a patient has it the likelihood of it is higher")
    assert risk_dropped(had, _words("patients with it are more prone to it")) is None
    assert risk_dropped(had, _words("it predisposes patients to it")) is None
    assert risk_dropped(had, _words("patients with it will develop it")) == (
        "claim strength changed",
        "the risk became a certainty",
    )
    assert risk_dropped(_words("it is linked to it"), _words("it goes with it")) is None


def test_risk_made_certain_in_the_validator() -> None:
    statement = (
        "If a patient suffers from Ulcerative Colitis, then the likelihood of he/she suffering "
        "from Colorectal Carcinoma is higher."
    )
    head, tail = "Ulcerative Colitis", "Colorectal Carcinoma"
    faithful = "Ulcerative colitis raises a patient's risk of colorectal carcinoma."
    certain = "Patients with ulcerative colitis will develop colorectal carcinoma."
    assert _verdict(statement, faithful, head, tail) == "accepted"
    assert _verdict(statement, certain, head, tail) == "claim strength changed"


def test_ridding_of_a_disease_is_a_remedy() -> None:
    had = _words("if a patient takes it he can treat it")
    assert remedy_to_onset(had, _words("taking it can help a patient get rid of it")) is None
    assert remedy_to_onset(had, _words("taking it helps patients who get it recover")) is None
    assert remedy_to_onset(had, _words("taking it can help a patient get it")) is not None
    # a word that merely starts like the outside side is no opposite of a place
    assert opposite_qualifier(_words("it functions in it"), _words("an extra step in it")) is None


def test_degree_word_intensifying_a_negation_keeps_the_claim() -> None:
    had = _words("it is not associated with it")
    assert degree_added(had, _words("it is entirely unrelated to it")) is None
    assert degree_added(had, _words("it is not entirely related to it")) is not None
