"""Role rules of the rephrasing validator read through relative clauses and "as its [N]" (issue 24).

Each test pairs a faithful rewording the rule lets through with the role swap it must reject,
so breaking the rule fails one side. Sentences are our own, in the PretexEval relations.
"""

from __future__ import annotations

import pytest

from quizbot.generate.rephrase import negation_cues, validate_rephrasing
from quizbot.generate.rephrase.relational import owner_role, player, read_relation


def _check(statement: str, candidate: str, head: str, tail: str) -> str:
    negated = len(negation_cues(statement, mask=(head, tail))) % 2 == 1
    verdict = validate_rephrasing(statement, candidate, head=head, tail=tail, negated=negated)
    return verdict.category if not verdict.ok else "accepted"


@pytest.mark.parametrize(
    ("between", "after", "family", "flip", "reverse"),
    [
        (" is the anatomic site from which ", " can arise.", "cause", 1, True),
        (" is the condition for which ", " is given.", "treat", 0, True),
        (" is something which ", " can cause.", "cause", 0, True),
        (" is a morphology that often accompanies ", ".", "feature", 1, False),
        (" is the gene product encoded by the ", " gene.", "encode", 1, False),
        (" can be associated with ", " as its cause.", "cause", 0, True),
        (" may be associated with ", " as one of its symptoms.", "feature", 1, True),
        (" frequently displays characteristics of both ", ".", "feature", 0, False),
        (" stems from the normal cell ", ".", "cause", 1, False),  # origin read as cause
        (" is not the result of less ", ".", "cause", 1, False),  # "result of" = "caused by"
        (" is a likely consequence of ", ".", "cause", 1, False),
        (" is the gene product of the ", " gene.", "encode", 1, False),  # "product of" = encoded
        (" may be a treatment option for ", ".", "treat", 0, False),
        (" falls, it may caused by a loss of ", ".", "cause", 1, False),  # bare "caused by"
    ],
)
def test_read_relation_shapes(
    between: str, after: str, family: str, flip: int, reverse: bool
) -> None:
    reading, reversed_ = read_relation(between, after)
    assert reading is not None
    assert (reading.family, reading.flip, reversed_) == (family, flip, reverse)


def test_read_relation_plain_and_symmetric() -> None:
    reading, reversed_ = read_relation(" is associated with ", ".")
    assert reading is not None and reading.symmetric and not reversed_
    mapped, reversed_ = read_relation(" is mapped to ", ".")  # the disease first (seventh round)
    assert mapped is not None and mapped.family == "map" and mapped.flip == 0 and not reversed_


def test_player_by_owner_role() -> None:
    found, _ = read_relation(" is found in ", "")
    assert player(found, ("A", "B"), "feature", 0) == "B"
    found, _ = read_relation(" is characterized by ", "")
    assert player(found, ("A", "B"), "feature", 0) == "A"
    found, _ = read_relation(" causes ", "")
    assert player(found, ("A", "B"), "feature", 0) is None
    assert player(found, ("A", "B"), "cause", 1) == "B"
    assert owner_role("\x1a has the physiologic effect of \x1a") == ("cause", 0)
    assert owner_role("\x1a is the treatment of \x1a") == ("treat", 1)
    assert owner_role("\x1a is the morphology of \x1a") == ("feature", 0)


def test_idioms_read_as_their_family() -> None:
    found, _ = read_relation(" can occur with ", ".")
    assert found is not None and found.symmetric
    found, _ = read_relation(" occurs prior to ", ".")
    assert found is not None and (found.family, found.flip) == ("time", 0)


_ORIGIN = (
    "Osteosarcoma",
    "Bone tissue",
    "The disease Osteosarcoma stems from the normal tissue Bone tissue.",
)
_TREAT = (
    "Metformin",
    "Type 2 diabetes mellitus",
    "Metformin might treat Type 2 diabetes mellitus.",
)
_CAUSE = ("Furosemide", "Diuresis", "Diuresis can be caused by Furosemide.")
_FINDING = ("Pneumonia", "Fever", "Pneumonia may have Fever.")
_MORPH = ("Granuloma", "Sarcoidosis", "Granuloma is the associated morphology of Sarcoidosis.")
_ACCOMP = (
    "Granuloma",
    "Sarcoidosis",
    "Sarcoidosis is often accompanied by the morphology of Granuloma.",
)
_APPENDIX = (
    "Appendicitis",
    "Vermiform appendix",
    "The disease Appendicitis can stem from the associated anatomic site Vermiform appendix.",
)
_GLIOMA = (
    "Glioblastoma",
    "Astrocyte",
    "The disease Glioblastoma stems from the normal cell Astrocyte.",
)
_BARRETT = (
    "Squamous metaplasia",
    "Barrett esophagus",
    "Squamous metaplasia is the associated morphology of Barrett esophagus.",
)
_SPC = (
    "Surfactant protein C",
    "Lung",
    "The gene product Surfactant protein C has the associated anatomy Lung.",
)
_EFFECT = ("Atenolol", "Bradycardia", "Atenolol has physiologic effect of Bradycardia.")
_SEPSIS = ("Sepsis", "Pneumonia", "Sepsis occurs after Pneumonia.")
_GENE = ("INS", "Insulin", "The gene INS encodes gene product Insulin.")


@pytest.mark.parametrize(
    ("case", "faithful", "swapped"),
    [
        (  # relative clause with a preposition
            _ORIGIN,
            "Bone tissue is the normal tissue from which osteosarcoma originates.",
            "Osteosarcoma is the normal tissue from which bone tissue originates.",
        ),
        (
            _TREAT,
            "Type 2 diabetes mellitus might be a condition for which metformin is given.",
            "Metformin might be the condition for which type 2 diabetes mellitus is given.",
        ),
        (  # origin and cause are one family
            _ORIGIN,
            "Osteosarcoma arises from normal bone tissue.",
            "Bone tissue arises from the disease osteosarcoma.",
        ),
        (  # relative clause with its subject inside / of the first entity
            _CAUSE,
            "Furosemide is a drug which can cause diuresis.",
            "Furosemide is something which diuresis can cause.",
        ),
        (  # "associated with ... as its [N]"
            _CAUSE,
            "Diuresis can be associated with furosemide as its cause.",
            "Furosemide can be associated with diuresis as its cause.",
        ),
        (
            _FINDING,
            "Pneumonia may have fever as one of its symptoms.",
            "Fever may be associated with pneumonia as its symptom.",
        ),
        (  # the owner of a relational noun is the whole of a feature reading
            _MORPH,
            "Sarcoidosis is morphologically characterized by granuloma.",
            "Granuloma is morphologically characterized by sarcoidosis.",
        ),
        (  # "often" inside a passive
            _ACCOMP,
            "Granuloma is a morphology that often accompanies sarcoidosis.",
            "The morphology of sarcoidosis often accompanies granuloma.",
        ),
        (  # reduced passive
            _GENE,
            "Insulin is the gene product encoded by the INS gene.",
            "INS is the gene product encoded by the insulin gene.",
        ),
        (  # "where" is "in which"; "arises in" is "originates in"
            _APPENDIX,
            "The vermiform appendix is the anatomic site where appendicitis can arise.",
            "Appendicitis is the anatomic site where the vermiform appendix can arise.",
        ),
        (  # "gives rise to" causes
            _GLIOMA,
            "Normal astrocytes give rise to glioblastoma.",
            "Glioblastoma gives rise to normal astrocytes.",
        ),
        (  # "In [B], the [N] is [A]"
            _BARRETT,
            "In Barrett esophagus, the associated morphology is squamous metaplasia.",
            "In squamous metaplasia, the associated morphology is Barrett esophagus.",
        ),
        (  # "[B] is associated with [A] as its [N]" with a noun of no predicate family
            _SPC,
            "Surfactant protein C is associated with the lung as its anatomy.",
            "The lung is associated with surfactant protein C as its anatomy.",
        ),
        (  # the owner of an "effect" is its cause
            _EFFECT,
            "Bradycardia is a physiologic effect produced by atenolol.",
            "Atenolol is a physiologic effect produced by bradycardia.",
        ),
        (  # "one of the [N]s of" is a relational noun phrase
            _EFFECT,
            "Bradycardia is one of the physiologic effects of atenolol.",
            "Atenolol is one of the physiologic effects of bradycardia.",
        ),
        (  # "prior to" is "before"
            _SEPSIS,
            "Pneumonia occurs prior to sepsis.",
            "Sepsis occurs prior to pneumonia.",
        ),
    ],
)
def test_roles_through_clauses(case: tuple[str, str, str], faithful: str, swapped: str) -> None:
    head, tail, statement = case
    assert _check(statement, faithful, head, tail) == "accepted"
    assert _check(statement, swapped, head, tail) == "roles swapped"


_BURKITT = (
    "Burkitt Lymphoma",
    "MYC Gene Translocation",
    "Molecular abnormality MYC Gene Translocation is not associated with the disease Burkitt"
    " Lymphoma.",
)
_KELOID = ("Keloid", "Scar", "Keloid is the associated morphology of Scar.")
_CYP = (
    "CYP2D6",
    "Cytochrome P450 2D6",
    "The gene CYP2D6 encodes gene product Cytochrome P450 2D6.",
)
_GOLGI = (
    "Golgi Apparatus",
    "Ubiquitin Carboxyl-Terminal Hydrolase 32",
    "Anatomy Golgi Apparatus is not where Ubiquitin Carboxyl-Terminal Hydrolase 32 functions.",
)


@pytest.mark.parametrize(
    ("case", "faithful", "swapped"),
    [
        (  # a label as the complement ("[X] is not a molecular abnormality ...")
            _BURKITT,
            "The MYC gene translocation is not a molecular abnormality associated with Burkitt"
            " lymphoma.",
            "Burkitt lymphoma is not a molecular abnormality associated with the MYC gene"
            " translocation.",
        ),
        (  # "the morphology of [Y]" relates [Y], it does not label it
            _KELOID,
            "Scar is associated with keloid morphology.",
            "Keloid is associated with scar morphology.",
        ),
        (  # "the gene product [Y]" labels [Y] a product, not a gene
            _CYP,
            "Cytochrome P450 2D6 is produced from the CYP2D6 gene.",
            "CYP2D6 is produced from the cytochrome P450 2D6 gene.",
        ),
    ],
)
def test_type_labels(case: tuple[str, str, str], faithful: str, swapped: str) -> None:
    head, tail, statement = case
    assert _check(statement, faithful, head, tail) == "accepted"
    assert _check(statement, swapped, head, tail) == "roles swapped"


def test_label_of_the_next_entity_is_no_complement() -> None:
    """ "[X] is not the Anatomy [Y]": "Anatomy" labels [Y], not [X]."""
    tail, head, statement = _GOLGI
    candidate = (
        "The site of action of Ubiquitin Carboxyl-Terminal Hydrolase 32 is not the Anatomy Golgi"
        " Apparatus."
    )
    assert _check(statement, candidate, head, tail) == "accepted"
    assert _check(statement, candidate.replace("the Anatomy", "the"), head, tail) == "accepted"


@pytest.mark.parametrize(
    ("statement", "candidate", "expected"),
    [
        (
            "A fall in Iodination is not caused by the reduction of Thyroid Peroxidase.",
            "A fall in iodination is not the result of less thyroid peroxidase.",
            "accepted",
        ),
        (
            "A fall in Iodination is not caused by the reduction of Thyroid Peroxidase.",
            "Less thyroid peroxidase is not the result of a fall in iodination.",
            "roles swapped",
        ),
        (
            "If the level of Iodination falls, it may caused by the reduction of Thyroid "
            "Peroxidase.",
            "A fall in iodination may be caused by less thyroid peroxidase.",
            "accepted",
        ),
        (
            "If the level of Iodination falls, it may caused by the reduction of Thyroid "
            "Peroxidase.",
            "Less thyroid peroxidase may be caused by a fall in iodination.",
            "roles swapped",
        ),
    ],
)
def test_result_of_and_bare_caused_by_keep_the_cause(
    statement: str, candidate: str, expected: str
) -> None:
    assert _check(statement, candidate, "Iodination", "Thyroid Peroxidase") == expected


@pytest.mark.parametrize(
    ("candidate", "expected"),
    [
        ("Parathyroid hormone is the product of the PTH gene.", "accepted"),
        ("The PTH gene is the product of parathyroid hormone.", "roles swapped"),
    ],
)
def test_product_of_reads_as_encoded_by(candidate: str, expected: str) -> None:
    statement = "The gene PTH encodes gene product Parathyroid Hormone ."
    assert _check(statement, candidate, "PTH", "Parathyroid Hormone") == expected


@pytest.mark.parametrize(
    ("candidate", "expected"),
    [
        ("Allopurinol may be a treatment option for gout.", "accepted"),
        ("Gout may be a treatment option for allopurinol.", "roles swapped"),
    ],
)
def test_treatment_option_for_reads_as_treatment_for(candidate: str, expected: str) -> None:
    statement = "Gout may be treated by allopurinol"
    assert _check(statement, candidate, "allopurinol", "Gout") == expected
