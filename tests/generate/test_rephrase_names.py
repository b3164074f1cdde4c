"""Entity names a rephrasing writes as prose (issue 24): hyphens, spelling, thesaurus order and
qualifiers, type numbers, a repeated word said once, descriptor words before a name. Every test
pairs a faithful spelling with a changed entity that must still be rejected.
"""

from __future__ import annotations

import pytest

from quizbot.generate.rephrase import negation_cues, validate_rephrasing
from quizbot.generate.rephrase.names import name_variants
from quizbot.generate.wording import entity_regex, word_forms


def _check(statement: str, candidate: str, head: str, tail: str) -> str:
    negated = len(negation_cues(statement, mask=(head, tail))) % 2 == 1
    verdict = validate_rephrasing(statement, candidate, head=head, tail=tail, negated=negated)
    return verdict.category if not verdict.ok else "accepted"


@pytest.mark.parametrize(
    ("name", "variant"),
    [
        ("Leukemia, Myeloid, Acute", "Acute Myeloid Leukemia"),
        ("Pneumonia, NOS", "Pneumonia"),
        ("Crohn disease (disorder)", "Crohn disease"),
        ("Postpartum Hemorrhage", "Postpartum haemorrhage"),
        ("Oesophageal tumour", "Esophageal tumor"),
        ("Type 2 diabetes mellitus", "Type II diabetes mellitus"),
        ("Postpartum Hemorrhage", "Post-partum Hemorrhage"),
    ],
)
def test_name_variants(name: str, variant: str) -> None:
    assert variant.casefold() in {v.casefold() for v in name_variants(name)}


def test_name_variants_keep_distinguishing_words() -> None:
    assert "Hepatitis" not in name_variants("Hepatitis (viral)")
    assert not any("1" in v or " I " in v for v in name_variants("Type 2 diabetes mellitus"))


@pytest.mark.parametrize(
    ("name", "text", "found"),
    [
        ("Cell Surface Receptor", "a cell-surface receptor", True),
        ("T-Cell Leukemia Homeobox Protein 3", "T cell leukemia homeobox protein 3", True),
        (
            "Ubiquitin Carboxyl-Terminal Hydrolase 32",
            "ubiquitin carboxyl terminal hydrolase 32",
            True,
        ),
        ("Hodgkin lymphoma", "non-Hodgkin lymphoma", False),
        ("T-Cell Leukemia Homeobox Protein 3", "T cell leukemia homeobox protein 4", False),
    ],
)
def test_entity_regex_hyphens(name: str, text: str, found: bool) -> None:
    assert bool(entity_regex(name).search(text)) is found


def test_latin_plural_on() -> None:
    assert "ganglia" in word_forms("ganglion")
    assert "ganglion" in word_forms("ganglia")


_FC = (
    "Fc Receptor-Like Protein 5",
    "Cell Surface Receptor",
    "Fc Receptor-Like Protein 5 has biochemical function Cell Surface Receptor.",
)
_PPH = (
    "dihydroergocryptine",
    "Postpartum Hemorrhage",
    "dihydroergocryptine may prevent Postpartum Hemorrhage.",
)
_AML = (
    "Leukemia, Myeloid, Acute",
    "Myeloblast",
    "Leukemia, Myeloid, Acute has the abnormal cell Myeloblast.",
)
_CIS = (
    "Intraductal carcinoma and lobular carcinoma in situ",
    "Breast",
    "Intraductal carcinoma and lobular carcinoma in situ has associated anatomic site Breast.",
)
_DM = ("Metformin", "Type 2 diabetes mellitus", "Metformin might treat Type 2 diabetes mellitus.")
_PNA = ("Pneumonia, NOS", "Fever", "Pneumonia, NOS may have Fever.")
_GOLGI = (
    "Albumin",
    "Golgi Apparatus",
    "The gene product Albumin has the associated anatomy Golgi Apparatus.",
)
_HTN = ("tertatolol", "Hypertension", "tertatolol might treat Hypertension.")


@pytest.mark.parametrize(
    ("case", "faithful", "changed", "category"),
    [
        (
            _FC,
            "Fc receptor like protein 5 has the biochemical function of a cell-surface receptor.",
            "Fc receptor like protein 4 has the biochemical function of a cell-surface receptor.",
            "entity missing",
        ),
        (
            _PPH,
            "Dihydroergocryptine may prevent post-partum haemorrhage.",
            "Dihydroergocryptine may prevent antepartum haemorrhage.",
            "entity missing",
        ),
        (
            _AML,
            "Acute myeloid leukaemia has the abnormal cell myeloblast.",
            "Chronic myeloid leukaemia has the abnormal cell myeloblast.",
            "entity missing",
        ),
        (
            _CIS,
            "Intraductal and lobular carcinoma in situ has the breast as its associated"
            " anatomic site.",
            "Intraductal carcinoma in situ has the breast as its associated anatomic site.",
            "entity missing",
        ),
        (
            _DM,
            "Metformin might treat type II diabetes mellitus.",
            "Metformin might treat type I diabetes mellitus.",
            "entity missing",
        ),
        (
            _PNA,
            "Fever may be present in pneumonia.",
            "Fever may be present in sepsis.",
            "entity missing",
        ),
        (
            _GOLGI,
            "The gene product albumin has the associated anatomy of the cellular Golgi apparatus.",
            "The gene product albumin has the associated anatomy of the rough Golgi apparatus.",
            "entity extended",
        ),
        (
            _HTN,
            "Tertatolol might treat human hypertension.",
            "Tertatolol might treat essential hypertension.",
            "entity extended",
        ),
    ],
)
def test_entity_spellings(
    case: tuple[str, str, str], faithful: str, changed: str, category: str
) -> None:
    head, tail, statement = case
    assert _check(statement, faithful, head, tail) == "accepted"
    assert _check(statement, changed, head, tail) == category


_DUCTAL = (
    "Carcinoma, Ductal, Breast",
    "Breast",
    "The disease Carcinoma, Ductal, Breast can stem from the associated anatomic site Breast.",
)


def test_name_holding_the_other_entity() -> None:
    """The head's name holds the tail's: the head's prose form takes one mention of the tail in,
    and the tail must still be named elsewhere."""
    head, tail, statement = _DUCTAL
    faithful = "Ductal carcinoma of the breast can originate in the breast, its associated site."
    dropped = "Ductal carcinoma of the breast can originate in its associated anatomic site."
    assert _check(statement, faithful, head, tail) == "accepted"
    assert _check(statement, dropped, head, tail) == "entity missing"


def test_negation_cue_is_no_antonym() -> None:
    """ "unrelated" is a negation cue, counted by parity: it rewords "not associated" and
    flips "associated"."""
    head, tail = "Influenza", "Myalgia"
    negated = "Myalgia is not associated with Influenza."
    affirmative = "Myalgia is associated with Influenza."
    candidate = "Myalgia is unrelated to influenza."
    assert _check(negated, candidate, head, tail) == "accepted"
    assert _check(affirmative, candidate, head, tail) == "negation flipped"


def test_verb_taking_the_entity_as_object() -> None:
    head, tail = "Catalase", "Hydrogen Peroxide Decomposition"
    statement = (
        "If the production of Catalase decreases, the functionality of Hydrogen Peroxide"
        " Decomposition may decrease."
    )
    faithful = "A decrease in catalase production may reduce hydrogen peroxide decomposition."
    extended = (
        "A decrease in catalase production may reduce peroxisomal hydrogen peroxide decomposition."
    )
    assert _check(statement, faithful, head, tail) == "accepted"
    assert _check(statement, extended, head, tail) == "entity extended"


@pytest.mark.parametrize(
    ("name", "variant"),
    [
        ("Glycolysis Process", "Glycolysis"),
        ("Atypical Mitoses Present", "Atypical Mitoses"),
        ("Cell", "cellular"),
        ("Kidney Stones", "renal Stones"),
        ("Tooth Abscess", "Abscess of teeth"),
        ("Liver Cyst", "Cyst of liver"),
    ],
)
def test_reworded_name_variants(name: str, variant: str) -> None:
    assert variant.casefold() in {v.casefold() for v in name_variants(name)}


def test_reworded_name_variants_keep_what_matters() -> None:
    # only a generic last word is dropped, never a negating or distinguishing one
    assert "Atypical Mitoses" not in name_variants("Atypical Mitoses Absent")
    assert "Glycolysis" not in name_variants("Glycolysis Inhibitor")
    # an organ noun at the end of a longer name is its head, not a modifier
    assert not any("cellular" in v.lower() for v in name_variants("Mast Cell"))


@pytest.mark.parametrize(
    ("statement", "candidate", "head", "tail", "expected"),
    [
        (
            "Gastric Lymphoma may have Atypical Mitoses Present .",
            "Gastric lymphoma may show atypical mitoses.",
            "Gastric Lymphoma",
            "Atypical Mitoses Present",
            "accepted",
        ),
        (
            "Gastric Lymphoma may have Atypical Mitoses Present .",
            "Gastric lymphoma may show atypical nuclei.",
            "Gastric Lymphoma",
            "Atypical Mitoses Present",
            "entity missing",
        ),
        (
            "A reduction in Hexokinase does not affect the process of Glycolysis Process.",
            "Less hexokinase has no effect on glycolysis.",
            "Hexokinase",
            "Glycolysis Process",
            "accepted",
        ),
        (
            "fluoride varnish is not able to prevent Tooth Abscess .",
            "Fluoride varnish cannot prevent dental abscesses.",
            "fluoride varnish",
            "Tooth Abscess",
            "accepted",
        ),
        (
            "fluoride varnish is not able to prevent Tooth Abscess .",
            "Fluoride varnish cannot prevent an abscess of the teeth.",
            "fluoride varnish",
            "Tooth Abscess",
            "accepted",
        ),
        (
            "fluoride varnish is not able to prevent Tooth Abscess .",
            "Fluoride varnish cannot prevent renal abscesses.",
            "fluoride varnish",
            "Tooth Abscess",
            "entity missing",
        ),
        (
            "A patient that suffers from Gastric Lymphoma does not have lesions in Cell.",
            "Patients with gastric lymphoma do not have cellular lesions.",
            "Gastric Lymphoma",
            "Cell",
            "accepted",
        ),
    ],
)
def test_reworded_names_in_the_validator(
    statement: str, candidate: str, head: str, tail: str, expected: str
) -> None:
    assert _check(statement, candidate, head, tail) == expected


# -- a causal link said otherwise, a binding protein named by its function (sixth round) --------


def test_causal_link_and_binding_protein_variants() -> None:
    variants = {v.casefold() for v in name_variants("Pancreatitis due to gallstones")}
    assert {"pancreatitis caused by gallstones", "pancreatitis secondary to gallstones"} <= variants
    assert "pancreatitis" not in variants
    assert {"gallstones-induced pancreatitis", "gallstones-related pancreatitis"} <= variants
    variants = {v.casefold() for v in name_variants("Calcium Binding Protein")}
    assert {"calcium binding", "calcium binding activity", "calcium binding function"} <= variants
    assert not name_variants("Calcium Channel Protein")  # no function in its name


_GALLSTONES = "Cholecystectomy may prevent Pancreatitis due to gallstones."
_CALCIUM = "Calcium Binding Protein is a biochemical function of Calmodulin."


@pytest.mark.parametrize(
    ("statement", "head", "tail", "candidate", "expected"),
    [
        (
            _GALLSTONES,
            "Cholecystectomy",
            "Pancreatitis due to gallstones",
            "Cholecystectomy may prevent pancreatitis caused by gallstones.",
            "accepted",
        ),
        (
            _GALLSTONES,
            "Cholecystectomy",
            "Pancreatitis due to gallstones",
            "Cholecystectomy may prevent pancreatitis resulting from the gallstones.",
            "accepted",
        ),
        (
            _GALLSTONES,
            "Cholecystectomy",
            "Pancreatitis due to gallstones",
            "Cholecystectomy may prevent pancreatitis caused by alcohol.",
            "entity missing",
        ),
        (
            "Corticosteroids may treat Pneumonitis due to radiation.",
            "Corticosteroids",
            "Pneumonitis due to radiation",
            "Corticosteroids may treat radiation-induced pneumonitis.",
            "accepted",
        ),
        (
            "Corticosteroids may treat Pneumonitis due to radiation.",
            "Corticosteroids",
            "Pneumonitis due to radiation",
            "Corticosteroids may treat drug-induced pneumonitis.",
            "entity missing",
        ),
        (
            _CALCIUM,
            "Calmodulin",
            "Calcium Binding Protein",
            "Calcium binding is a biochemical function of calmodulin.",
            "accepted",
        ),
        (
            _CALCIUM,
            "Calmodulin",
            "Calcium Binding Protein",
            "Calcium-binding activity is one of the biochemical functions of calmodulin.",
            "accepted",
        ),
        (
            _CALCIUM,
            "Calmodulin",
            "Calcium Binding Protein",
            "Zinc binding is a biochemical function of calmodulin.",
            "entity missing",
        ),
    ],
)
def test_relinked_names_in_the_validator(
    statement: str, head: str, tail: str, candidate: str, expected: str
) -> None:
    assert _check(statement, candidate, head, tail) == expected


def test_greek_letters_and_activity() -> None:
    assert "Tumor Necrosis Factor-α" in name_variants("Tumor Necrosis Factor-alpha")
    assert "Interferon-gamma" in name_variants("Interferon-γ")
    assert not any("α" in v for v in name_variants("Alphavirus Infection"))
    assert "Protein Kinase" in name_variants("Protein Kinase Activity")


@pytest.mark.parametrize(
    ("statement", "head", "tail", "candidate", "expected"),
    [
        (
            "Adalimumab inhibits Tumor Necrosis Factor-alpha.",
            "Adalimumab",
            "Tumor Necrosis Factor-alpha",
            "Adalimumab inhibits tumor necrosis factor-α.",
            "accepted",
        ),
        (
            "Adalimumab inhibits Tumor Necrosis Factor-alpha.",
            "Adalimumab",
            "Tumor Necrosis Factor-alpha",
            "Adalimumab inhibits tumor necrosis factor-β.",
            "entity missing",
        ),
        (
            "Protein Kinase Activity is a biochemical function of Src.",
            "Src",
            "Protein Kinase Activity",
            "Src functions as a protein kinase.",
            "accepted",
        ),
        (
            "Protein Kinase Activity is a biochemical function of Src.",
            "Src",
            "Protein Kinase Activity",
            "Src functions as a protein phosphatase.",
            "entity missing",
        ),
    ],
)
def test_greek_letters_and_activity_in_the_validator(
    statement: str, head: str, tail: str, candidate: str, expected: str
) -> None:
    assert _check(statement, candidate, head, tail) == expected
