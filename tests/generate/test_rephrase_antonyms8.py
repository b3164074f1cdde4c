"""Opposites said by a predicate, role swaps said by a verb of evidence or a relational noun, and
the predicate readings that keep a faithful change of order (issue 24, eighth round).

Found on a fresh set of rephrasings written by agents who never saw the code; each rule is a
general mechanism (a word that denies a relation in its meaning, a removal where the statement
speaks of having, a verb of evidence that makes its subject the condition...), tested on both
sides with sentences of our own: the corruption it must reject and the faithful rewording it must
keep.
"""

from __future__ import annotations

import pytest

from tests.helpers.rephrase import verdict_of

# (statement, candidate, head, tail, expected verdict)
Case = tuple[str, str, str, str, str]

# Words that deny the relation in their meaning count as a negation (claims.NEGATION): "spares"
# is "does not affect", "immune to" is "cannot get", "mutually exclusive" is "never together";
# "no need for [patients] to avoid [drug]" denies an avoidance, as "no need to avoid" does.
PRIVATIVE: list[Case] = [
    (
        "The disease psoriasis does not affect the anatomic site scalp.",
        "Psoriasis spares the scalp.",
        "psoriasis",
        "scalp",
        "accepted",
    ),
    (
        "The disease psoriasis has the anatomic site scalp.",
        "Psoriasis typically spares the scalp.",
        "psoriasis",
        "scalp",
        "negation flipped",
    ),
    (
        "The disease psoriasis does not originate from the anatomic site scalp.",
        "Psoriasis does not spare the scalp.",
        "psoriasis",
        "scalp",
        "negation flipped",
    ),
    (
        "A patient who takes hydroxyurea may develop leukopenia.",
        "A patient who takes hydroxyurea may be immune to leukopenia.",
        "hydroxyurea",
        "leukopenia",
        "negation flipped",
    ),
    (
        "The disease rosacea may have the associated disease blepharitis.",
        "Rosacea and blepharitis are mutually exclusive.",
        "rosacea",
        "blepharitis",
        "negation flipped",
    ),
    (
        "A patient that suffers from migraine has no need to take ibuprofen.",
        "There is no need for people with migraine to avoid ibuprofen.",
        "migraine",
        "ibuprofen",
        "negation flipped",
    ),
    (
        "A patient that suffers from migraine should not take ibuprofen.",
        "There is a need for people with migraine to avoid ibuprofen.",
        "migraine",
        "ibuprofen",
        "accepted",
    ),
    # "refrain / abstain from", "exempt from", "missing" deny what follows
    (
        "A patient that suffers from migraine has no need to take ibuprofen.",
        "Patients with migraine can refrain from taking ibuprofen.",
        "migraine",
        "ibuprofen",
        "accepted",
    ),
    (
        "A patient that suffers from migraine should take ibuprofen.",
        "Patients with migraine should abstain from taking ibuprofen.",
        "migraine",
        "ibuprofen",
        "negation flipped",
    ),
    (
        "A patient that suffers from anemia does not have the finding pallor.",
        "In patients with anemia, pallor is missing.",
        "anemia",
        "pallor",
        "accepted",
    ),
    (
        "A patient that suffers from anemia has the finding pallor.",
        "In patients with anemia, pallor is missing.",
        "anemia",
        "pallor",
        "negation flipped",
    ),
]

# A claim of having, arising or taking part made one of removing, destroying or obstructing
# (contrasts.removal_added), where the statement speaks of no remedy or damage.
REMOVAL: list[Case] = [
    (
        "A patient that suffers from sarcoidosis has the abnormal cell epithelioid cell.",
        "A person with sarcoidosis eliminates epithelioid cells.",
        "sarcoidosis",
        "epithelioid cell",
        "antonym",
    ),
    (
        "The disease osteosarcoma stems from the normal cell osteoblast.",
        "Osteosarcoma kills normal osteoblasts.",
        "osteosarcoma",
        "osteoblast",
        "antonym",
    ),
    (
        "The gene product collagenase plays a role in the biological process tissue remodeling.",
        "Collagenase hinders the biological process of tissue remodeling.",
        "collagenase",
        "tissue remodeling",
        "antonym",
    ),
    (
        "A patient with vitiligo has the abnormal cell melanocyte.",
        "A patient with vitiligo is losing the abnormal melanocytes.",
        "vitiligo",
        "melanocyte",
        "antonym",
    ),
    (
        "The drug rifampicin may treat the disease tuberculosis.",
        "Rifampicin may help in the eradication of tuberculosis.",
        "rifampicin",
        "tuberculosis",
        "accepted",
    ),
    (
        "The disease osteosarcoma stems from the normal cell osteoblast.",
        "Osteosarcoma clearly arises from normal osteoblasts.",
        "osteosarcoma",
        "osteoblast",
        "accepted",
    ),
]

# Opposite words of time order: "beforehand" joins "before" (data/opposites.csv, sequence row).
SEQUENCE: list[Case] = [
    (
        "A patient who has a burn will develop hypovolemia afterwards.",
        "A patient who has a burn will have developed hypovolemia beforehand.",
        "burn",
        "hypovolemia",
        "antonym",
    ),
    (
        "A patient with sepsis will develop shock after that.",
        "A patient with sepsis will have developed shock ahead of that.",
        "sepsis",
        "shock",
        "antonym",
    ),
]

# A verb of evidence after the first entity makes it the condition (role_checks._condition):
# "[B] may indicate that [A]" is the converse of "If [A], then [B]".
EVIDENCE: list[Case] = [
    (
        "If a patient has lesions in APC gene, then he/she may suffer from colorectal cancer.",
        "Having colorectal cancer may suggest that a patient has lesions in the APC gene.",
        "APC gene",
        "colorectal cancer",
        "roles swapped",
    ),
    (
        "If a patient suffers from neurofibromatosis, then he/she has lesions in NF1 gene.",
        "Lesions in the NF1 gene in a patient indicate neurofibromatosis.",
        "neurofibromatosis",
        "NF1 gene",
        "roles swapped",
    ),
    (
        "If a patient has lesions in RET gene, then he/she may suffer from thyroid cancer.",
        "Thyroid cancer in a patient may be a marker of lesions in the RET gene.",
        "RET gene",
        "thyroid cancer",
        "roles swapped",
    ),
    (
        "If a patient has lesions in RET gene, then he/she may suffer from thyroid cancer.",
        "Lesions in the RET gene may be a marker of thyroid cancer.",
        "RET gene",
        "thyroid cancer",
        "accepted",
    ),
    (
        "If a patient has lesions in APC gene, then he/she may suffer from colorectal cancer.",
        "Lesions in the APC gene may indicate that a patient suffers from colorectal cancer.",
        "APC gene",
        "colorectal cancer",
        "accepted",
    ),
]

# Predicate readings (voice.py) and possessive shapes (possession.py) that tell which way a
# sentence reads: a faithful change of order is kept, a swap in the statement's order rejected.
READINGS: list[Case] = [
    # "blueprint for": the gene first, like "encodes"
    (
        "The gene product myoglobin is encoded by the gene MB.",
        "MB serves as the blueprint for myoglobin.",
        "myoglobin",
        "MB",
        "accepted",
    ),
    (
        "The gene product myoglobin is encoded by the gene MB.",
        "Myoglobin serves as the blueprint for MB.",
        "myoglobin",
        "MB",
        "roles swapped",
    ),
    # "responsible for": the cause first; "responsible for encoding" is read by its verb
    (
        "A rise in serum urate is caused by a loss of uricase.",
        "A loss of uricase is responsible for the rise in serum urate.",
        "serum urate",
        "uricase",
        "accepted",
    ),
    (
        "A rise in serum urate is caused by a loss of uricase.",
        "A rise in serum urate is responsible for the loss of uricase.",
        "serum urate",
        "uricase",
        "roles swapped",
    ),
    (
        "The gene product myoglobin is encoded by the gene MB.",
        "The MB gene is responsible for encoding myoglobin.",
        "myoglobin",
        "MB",
        "accepted",
    ),
    (
        "The gene product myoglobin is encoded by the gene MB.",
        "Myoglobin is responsible for encoding the MB gene.",
        "myoglobin",
        "MB",
        "roles swapped",
    ),
    # "the cause may be [X]": the cause last
    (
        "If the level of cortisol falls, it may be caused by a lesion of the adrenal cortex.",
        "When cortisol levels fall, the cause may be a lesion of the adrenal cortex.",
        "cortisol",
        "adrenal cortex",
        "accepted",
    ),
    # "the site of": the place first, like "is where"
    (
        "Anatomy mitochondrion is where cytochrome c functions.",
        "The mitochondrion is the site of cytochrome c's function.",
        "mitochondrion",
        "cytochrome c",
        "accepted",
    ),
    (
        "Anatomy mitochondrion is where cytochrome c functions.",
        "Cytochrome c is the site of the mitochondrion's function.",
        "mitochondrion",
        "cytochrome c",
        "roles swapped",
    ),
    # "[B] functions as [A]": B owns the function
    (
        "Protease is a biochemical function of the gene product trypsin.",
        "Trypsin functions biochemically as a protease.",
        "Protease",
        "trypsin",
        "accepted",
    ),
    (
        "Protease is a biochemical function of the gene product trypsin.",
        "A protease acts as trypsin.",
        "Protease",
        "trypsin",
        "roles swapped",
    ),
    # "remains unaffected when [A] ...": the affected thing first, like "is affected by"
    (
        "A fall in the level of thyroxine does not affect the activity of calcitonin.",
        "The activity of calcitonin remains unaffected when thyroxine levels fall.",
        "thyroxine",
        "calcitonin",
        "accepted",
    ),
    # "[A] is present as a [N] in [B]": B has A
    (
        "The disease Lynch syndrome may have the molecular abnormality mismatch repair deficiency.",
        "Mismatch repair deficiency may be present as a molecular abnormality in Lynch syndrome.",
        "Lynch syndrome",
        "mismatch repair deficiency",
        "accepted",
    ),
]

# A denied indication only denies an implication; "characteristic of" makes a link a defining
# trait (contrasts.non_implication, degree_added).
STRENGTH: list[Case] = [
    (
        "A patient that has the finding hematuria does not suffer from nephrolithiasis.",
        "The presence of hematuria does not indicate that a patient has nephrolithiasis.",
        "hematuria",
        "nephrolithiasis",
        "claim strength changed",
    ),
    (
        "A patient that suffers from tetanus does not have the finding trismus.",
        "The absence of trismus is characteristic of a patient suffering from tetanus.",
        "tetanus",
        "trismus",
        "claim strength changed",
    ),
    (
        "The disease tetanus is not accompanied by the finding trismus.",
        "Tetanus does not show the characteristic finding of trismus.",
        "tetanus",
        "trismus",
        "accepted",
    ),
]


@pytest.mark.parametrize(
    ("statement", "candidate", "head", "tail", "expected"),
    PRIVATIVE + REMOVAL + SEQUENCE + EVIDENCE + READINGS + STRENGTH,
)
def test_eighth_round(statement: str, candidate: str, head: str, tail: str, expected: str) -> None:
    """Each rule rejects its corruption and keeps the faithful rewording."""
    assert verdict_of(statement, candidate, head, tail) == expected
