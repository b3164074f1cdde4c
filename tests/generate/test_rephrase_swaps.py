"""Role swaps that carry an entity's labels, possessives, fronted phrases and mapping (issue 24,
seventh round).

Found by ``bench/role_swap_probes.py``, which exchanges head and tail mechanically in faithful
rewordings, also with the entities' kind labels carried along and with "the [N] of [E]" written
"[E]'s [N]". Each rule is tested on both sides: the role swap it must reject and the faithful
rewording it must keep. Sentences are our own.
"""

from __future__ import annotations

import pytest

from tests.helpers.rephrase import verdict_of

# (statement, candidate, head, tail, expected verdict)
Case = tuple[str, str, str, str, str]

# Mapping is read in one voice: the disease is mapped, "is mapped to" and "maps to" alike
# (:mod:`quizbot.generate.voice`, family "map"); the gene mapped to the disease swaps the roles.
MAPPED: list[Case] = [
    (
        "Cystic fibrosis is mapped to the gene CFTR.",
        "The CFTR gene maps to cystic fibrosis.",
        "Cystic fibrosis",
        "CFTR",
        "roles swapped",
    ),
    (
        "Cystic fibrosis is mapped to the gene CFTR.",
        "The gene CFTR has been mapped to cystic fibrosis.",
        "Cystic fibrosis",
        "CFTR",
        "roles swapped",
    ),
    (
        "Cystic fibrosis is mapped to the gene CFTR.",
        "Cystic fibrosis maps to the CFTR gene.",
        "Cystic fibrosis",
        "CFTR",
        "accepted",
    ),
    (
        "Cystic fibrosis is mapped to the gene CFTR.",
        "CFTR is the gene to which cystic fibrosis is mapped.",
        "Cystic fibrosis",
        "CFTR",
        "accepted",
    ),
    (
        "The disease Wilson disease is mapped to gene ATP7B.",
        "ATP7B gene has been mapped to the disease Wilson disease.",
        "Wilson disease",
        "ATP7B",
        "roles swapped",
    ),
]

# Kind labels next to an entity ("the gene product [X]", "[X] gene") are left out before the
# shapes are read (:func:`quizbot.generate.rephrase.labels.unlabelled`), so a role swap that
# carries them along is read like one without them.
LABELS: list[Case] = [
    (
        "The gene INS encodes the gene product insulin.",
        "INS gene is the gene product encoded by insulin.",
        "INS",
        "insulin",
        "roles swapped",
    ),
    (
        "The gene INS encodes the gene product insulin.",
        "Insulin is the gene product encoded by the INS gene.",
        "INS",
        "insulin",
        "accepted",
    ),
    (
        "The gene product albumin has the associated anatomy liver.",
        "The anatomy associated with the liver is the gene product albumin.",
        "albumin",
        "liver",
        "roles swapped",
    ),
    (
        "The gene product albumin has the associated anatomy liver.",
        "The anatomy associated with the gene product albumin is the liver.",
        "albumin",
        "liver",
        "accepted",
    ),
    (
        "The gene product albumin has the associated anatomy liver.",
        "The liver is associated with the gene product albumin as its anatomy.",
        "albumin",
        "liver",
        "roles swapped",
    ),
    (
        "The gene product albumin has the associated anatomy liver.",
        "The gene product albumin is associated with the liver as its anatomy.",
        "albumin",
        "liver",
        "accepted",
    ),
]

# A possessive reads as the of-phrase it stands for ("[A] is [B]'s effect" = "[A] is the effect
# of [B]"): whose relation it is, in both directions.
GENITIVES: list[Case] = [
    (
        "Furosemide has the physiologic effect diuresis.",
        "Furosemide is diuresis's physiologic effect.",
        "Furosemide",
        "diuresis",
        "roles swapped",
    ),
    (
        "Furosemide has the physiologic effect diuresis.",
        "Diuresis is furosemide's physiologic effect.",
        "Furosemide",
        "diuresis",
        "accepted",
    ),
    (
        "Diuresis can be caused by furosemide.",
        "Diuresis can be furosemide's cause.",
        "furosemide",
        "Diuresis",
        "roles swapped",
    ),
    (
        "Diuresis can be caused by furosemide.",
        "Furosemide can be diuresis's cause.",
        "furosemide",
        "Diuresis",
        "accepted",
    ),
    (
        "Asthma can present with wheeze.",
        "Asthma can be wheeze's feature.",
        "Asthma",
        "wheeze",
        "roles swapped",
    ),
    (
        "Asthma can present with wheeze.",
        "Wheeze can be asthma's feature.",
        "Asthma",
        "wheeze",
        "accepted",
    ),
    (
        "Hexokinase has the biochemical function glucose phosphorylation.",
        "Hexokinase is glucose phosphorylation's biochemical function.",
        "Hexokinase",
        "glucose phosphorylation",
        "roles swapped",
    ),
    (
        "Hexokinase has the biochemical function glucose phosphorylation.",
        "Glucose phosphorylation is hexokinase's biochemical function.",
        "Hexokinase",
        "glucose phosphorylation",
        "accepted",
    ),
]

# The kinds the words around an entity give it are read with possessives as of-phrases too
# ("for [X]'s development" = "for the development of [X]": [X] is the condition).
GENITIVE_KINDS: list[Case] = [
    (
        "The disease meningioma can stem from the anatomic site meninges.",
        "The meninges are a potential origin site for meningioma's development.",
        "meningioma",
        "meninges",
        "accepted",
    ),
    (
        "The disease meningioma can stem from the anatomic site meninges.",
        "Meningioma is a potential origin site for the meninges' development.",
        "meningioma",
        "meninges",
        "roles swapped",
    ),
    (
        "The disease meningioma can stem from the anatomic site meninges.",
        "Meningioma is a potential origin site for meninges's development.",
        "meningioma",
        "meninges",
        "roles swapped",
    ),
]

# A prepositional phrase set before the clause goes with its verb ("In [A], [B] plays a role" =
# "[B] plays a role in [A]"; :func:`quizbot.generate.rephrase.labels.unlabelled`).
FRONTED: list[Case] = [
    (
        "The finding wheeze may be present in asthma.",
        "In asthma, the finding wheeze may be present.",
        "wheeze",
        "asthma",
        "accepted",
    ),
    (
        "The finding wheeze may be present in asthma.",
        "In wheeze, the finding asthma may be present.",
        "wheeze",
        "asthma",
        "roles swapped",
    ),
    (
        "Albumin plays a role in the liver.",
        "In albumin, the liver plays a role.",
        "Albumin",
        "liver",
        "roles swapped",
    ),
    (
        "Albumin plays a role in the liver.",
        "In the liver, albumin plays a role.",
        "Albumin",
        "liver",
        "accepted",
    ),
    (
        "Metformin can treat type 2 diabetes.",
        "For metformin, type 2 diabetes may be a treatment.",
        "Metformin",
        "type 2 diabetes",
        "roles swapped",
    ),
    (
        "Metformin can treat type 2 diabetes.",
        "For type 2 diabetes, metformin may be a treatment.",
        "Metformin",
        "type 2 diabetes",
        "accepted",
    ),
    (
        "Apoptosis plays a role in the thymus.",
        "In apoptosis, the thymus plays a role.",
        "Apoptosis",
        "thymus",
        "roles swapped",
    ),
]


@pytest.mark.parametrize(("statement", "candidate", "head", "tail", "expected"), MAPPED)
def test_mapped(statement: str, candidate: str, head: str, tail: str, expected: str) -> None:
    assert verdict_of(statement, candidate, head, tail) == expected


@pytest.mark.parametrize(("statement", "candidate", "head", "tail", "expected"), LABELS)
def test_labels(statement: str, candidate: str, head: str, tail: str, expected: str) -> None:
    assert verdict_of(statement, candidate, head, tail) == expected


@pytest.mark.parametrize(("statement", "candidate", "head", "tail", "expected"), GENITIVES)
def test_genitives(statement: str, candidate: str, head: str, tail: str, expected: str) -> None:
    assert verdict_of(statement, candidate, head, tail) == expected


@pytest.mark.parametrize(("statement", "candidate", "head", "tail", "expected"), GENITIVE_KINDS)
def test_genitive_kinds(
    statement: str, candidate: str, head: str, tail: str, expected: str
) -> None:
    assert verdict_of(statement, candidate, head, tail) == expected


@pytest.mark.parametrize(("statement", "candidate", "head", "tail", "expected"), FRONTED)
def test_fronted(statement: str, candidate: str, head: str, tail: str, expected: str) -> None:
    assert verdict_of(statement, candidate, head, tail) == expected
