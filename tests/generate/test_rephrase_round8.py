"""The eighth round's rules (issue 24): an acronym spelled out, an adverb and participle
reworded, a verb before an entity, what only a gene has ("mutations in"), a genetic relational
noun ("a genetic basis of"), what is found in a place ("the presence of") and a site moved to its
neighbourhood ("the adjacent"). Every sentence is written for these tests; each rule is paired
with a corruption it must still reject.
"""

from __future__ import annotations

import pytest

from quizbot.generate.rephrase import negation_cues, validate_rephrasing
from quizbot.generate.rephrase.spelling import reworded_span


def _check(statement: str, candidate: str, head: str, tail: str) -> str:
    negated = len(negation_cues(statement, mask=(head, tail))) % 2 == 1
    verdict = validate_rephrasing(statement, candidate, head=head, tail=tail, negated=negated)
    return verdict.category if not verdict.ok else "accepted"


@pytest.mark.parametrize(
    ("name", "text", "found"),
    [
        ("APC Gene", "the Adenomatous Polyposis Coli gene", "Adenomatous Polyposis Coli gene"),
        ("CML", "Chronic Myeloid Leukemia", "Chronic Myeloid Leukemia"),
        ("ARDS", "Acute Respiratory Distress Syndrome", "Acute Respiratory Distress Syndrome"),
        (
            "MEN Syndrome",
            "Multiple Endocrine-Neoplasia syndromes",
            "Multiple Endocrine-Neoplasia syndromes",
        ),
        # initials out of order, too few, lower-case ordinary words: no spelling of the acronym
        ("APC Gene", "the Polyposis Adenomatous Coli gene", None),
        ("APC Gene", "the Adenomatous Polyposis gene", None),
        ("CML", "a chronic medical leave", None),
        ("Surgically Induced Menopause", "surgical menopause", "surgical menopause"),
        (
            "Surgically Induced Menopause",
            "menopause induced by surgical means",
            "menopause induced by surgical means",
        ),
        ("Genetically Determined Trait", "a genetic trait", "genetic trait"),
        # the adverb's adjective must be there: only the participle may go
        ("Surgically Induced Menopause", "menopause", None),
        ("Surgically Induced Menopause", "natural menopause", None),
        ("Surgically Induced Menopause", "menopause induced by natural means", None),
    ],
)
def test_reworded_span(name: str, text: str, found: str | None) -> None:
    span = reworded_span(text, name)
    assert (None if span is None else text[span[0] : span[1]]) == found


@pytest.mark.parametrize(
    ("candidate", "expected"),
    [
        (
            "Colorectal Adenoma is not associated with the Adenomatous Polyposis Coli gene.",
            "accepted",
        ),
        (
            "Colorectal Adenoma is associated with the Adenomatous Polyposis Coli gene.",
            "negation flipped",
        ),
        (
            "Colorectal Adenoma is not associated with the Attenuated Polyposis gene.",
            "entity missing",
        ),
    ],
)
def test_acronym_spelled_out(candidate: str, expected: str) -> None:
    statement = "Colorectal Adenoma is not associated with the gene APC Gene."
    assert _check(statement, candidate, "Colorectal Adenoma", "APC Gene") == expected


_CAUSES = "Bilateral Oophorectomy may cause Surgically Induced Menopause."
_CAUSED = "Surgically Induced Menopause may be caused by Bilateral Oophorectomy."


@pytest.mark.parametrize(
    ("statement", "candidate", "expected"),
    [
        (_CAUSES, "Bilateral oophorectomy may cause surgical menopause.", "accepted"),
        (
            _CAUSED,
            "Menopause produced through surgical means may be caused by bilateral oophorectomy.",
            "accepted",
        ),
        (_CAUSES, "Bilateral oophorectomy may cause menopause.", "entity missing"),
        (_CAUSES, "Bilateral oophorectomy may cause natural menopause.", "entity missing"),
    ],
)
def test_adverb_and_participle(statement: str, candidate: str, expected: str) -> None:
    head, tail = "Bilateral Oophorectomy", "Surgically Induced Menopause"
    assert _check(statement, candidate, head, tail) == expected


@pytest.mark.parametrize(
    ("statement", "candidate", "expected"),
    [
        (
            "If a patient takes Amoxicillin, he/she can treat Otitis Media.",
            "Taking Amoxicillin enables patients to fight Otitis Media.",
            "accepted",
        ),
        (
            "Amoxicillin does not treat Otitis Media.",
            "Amoxicillin does not fight Otitis Media.",
            "accepted",
        ),
        (
            "Amoxicillin treats Otitis Media.",
            "Amoxicillin fights Otitis Media.",
            "accepted",
        ),
        # a modifier is still a modifier: after a preposition "to", after a verb in -s
        (
            "Amoxicillin causes Otitis Media.",
            "Amoxicillin leads to purulent Otitis Media.",
            "entity extended",
        ),
        (
            "Amoxicillin causes Otitis Media.",
            "Amoxicillin causes purulent Otitis Media.",
            "entity extended",
        ),
    ],
)
def test_verb_before_entity(statement: str, candidate: str, expected: str) -> None:
    assert _check(statement, candidate, "Amoxicillin", "Otitis Media") == expected


@pytest.mark.parametrize(
    ("candidate", "expected"),
    [
        ("Mutations in COL1A1 are linked to Osteogenesis Imperfecta.", "accepted"),
        ("COL1A1 is linked to mutations in Osteogenesis Imperfecta.", "roles swapped"),
        ("The COL1A1 gene has been tied to variants in Osteogenesis Imperfecta.", "roles swapped"),
        # a gene is mutated in a disease: the disease is not made the gene
        ("COL1A1 is mutated in Osteogenesis Imperfecta.", "accepted"),
    ],
)
def test_only_a_gene_has_mutations(candidate: str, expected: str) -> None:
    statement = "Gene COL1A1 is associated with the disease Osteogenesis Imperfecta."
    assert _check(statement, candidate, "COL1A1", "Osteogenesis Imperfecta") == expected


@pytest.mark.parametrize(
    ("candidate", "expected"),
    [
        ("The FBN1 Gene has been recognised as a genetic basis of Marfan Syndrome.", "accepted"),
        (
            "Marfan Syndrome has been recognised as a genetic basis of the FBN1 Gene.",
            "roles swapped",
        ),
    ],
)
def test_genetic_relational_noun(candidate: str, expected: str) -> None:
    statement = "The disease Marfan Syndrome is mapped to gene FBN1 Gene."
    assert _check(statement, candidate, "Marfan Syndrome", "FBN1 Gene") == expected


@pytest.mark.parametrize(
    ("candidate", "expected"),
    [
        ("Hodgkin Lymphoma does not involve the presence of Reed-Sternberg Cell.", "accepted"),
        ("Reed-Sternberg Cell does not involve the presence of Hodgkin Lymphoma.", "roles swapped"),
        (
            "The abnormal cell type Hodgkin Lymphoma is not found in Reed-Sternberg Cell.",
            "roles swapped",
        ),
    ],
)
def test_presence_in_a_place(candidate: str, expected: str) -> None:
    statement = (
        "The abnormal cell type Reed-Sternberg Cell is not detected within Hodgkin Lymphoma."
    )
    assert _check(statement, candidate, "Reed-Sternberg Cell", "Hodgkin Lymphoma") == expected


@pytest.mark.parametrize(
    ("candidate", "expected"),
    [
        ("Retinoblastoma arises from the Retina.", "accepted"),
        ("Retinoblastoma arises from the tissue adjacent to the Retina.", "extra qualifier"),
        ("Retinoblastoma arises from the neighbouring Retina.", "extra qualifier"),
    ],
)
def test_site_moved_to_its_neighbourhood(candidate: str, expected: str) -> None:
    statement = "The disease Retinoblastoma is stem from the associated anatomic site Retina."
    assert _check(statement, candidate, "Retinoblastoma", "Retina") == expected


_STAGED = (
    "If a patient has Lymph Node Metastasis, then he/she may suffer from Colon Adenocarcinoma "
    "by Dukes Stage."
)


@pytest.mark.parametrize(
    ("candidate", "expected"),
    [
        (
            "A patient with Lymph Node Metastasis may suffer from Colon Adenocarcinoma, which is "
            "classified according to the Dukes staging system.",
            "accepted",
        ),
        (
            "A patient with Lymph Node Metastasis may suffer from Colon Adenocarcinoma, as "
            "classified by the TNM staging system.",
            "entity missing",
        ),
        (
            "A patient with Lymph Node Metastasis may suffer from Colon Adenocarcinoma.",
            "entity missing",
        ),
        (
            "A patient with Lymph Node Metastasis does not suffer from Colon Adenocarcinoma, "
            "which is classified according to the Dukes staging system.",
            "negation flipped",
        ),
    ],
)
def test_name_classified_in_a_clause(candidate: str, expected: str) -> None:
    tail = "Colon Adenocarcinoma by Dukes Stage"
    assert _check(_STAGED, candidate, "Lymph Node Metastasis", tail) == expected
