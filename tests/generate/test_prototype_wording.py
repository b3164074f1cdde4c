"""Wording a clinician accepts: each statement is right under its key, for a fact and a negative.

A negative is a tail that is simply not part of the head's textbook picture, so every form says
whether the tail is a *recognised* feature / site / cause, a *standard* treatment option, or a
*recognised* use; the dn partner negates exactly that claim. Claims of impossibility ("cannot",
"never") are false for a negative (a patient with aortic stenosis can still develop perianal
fistulae, from Crohn's disease), and unqualified claims about one patient are false for a true fact
(not every patient with osteoarthritis has diseased hips). The worked examples below are real
clinical-core facts with the negatives a clinician reviewed; docs/prototypes.md justifies every
template.
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from quizbot.generate.prototypes import default_prototypes
from quizbot.kb.clinical import CLINICAL_RELATIONS
from quizbot.kb.hpo import RELATIONS as HPO_RELATIONS
from quizbot.transforms import TRANSFORMS, Polarity, Transform, label_for

POOL = default_prototypes()
BUILT_IN = sorted({*CLINICAL_RELATIONS, *HPO_RELATIONS})
ALL = sorted({r for r, _ in POOL.prototypes})
NEGATED = [t for t in TRANSFORMS if t.negated]

# The softened negations a dn form may use: "not part of the recognised picture", never "cannot".
SOFT_NEGATION = re.compile(
    r"\b(?:is|are) not (?:a recognised|a standard|recognised)\b|\bdo(?:es)? not include\b"
)
IMPOSSIBILITY = re.compile(r"\b(?:cannot|can't|never|impossible|unable)\b", re.IGNORECASE)
# Patient-level forms of clinical facts must hedge: a modal, or the recognised/standard framing.
HEDGE = re.compile(r"\b(?:can|may|recognised|standard)\b")


def _template(relation: str, transform: Transform) -> str:
    return POOL.prototypes[(relation, transform)].template


def test_the_built_in_relations_are_all_in_the_pool() -> None:
    assert BUILT_IN and POOL.missing(BUILT_IN) == []


@pytest.mark.parametrize("relation", ALL)
def test_no_dn_form_claims_impossibility(relation: str) -> None:
    for transform in NEGATED:
        template = _template(relation, transform)
        assert not IMPOSSIBILITY.search(template), (relation, transform, template)


@pytest.mark.parametrize("relation", BUILT_IN)
def test_built_in_dn_forms_use_a_softened_negation(relation: str) -> None:
    for transform in NEGATED:
        template = _template(relation, transform)
        assert SOFT_NEGATION.search(template), (relation, transform, template)


@pytest.mark.parametrize("relation", BUILT_IN)
def test_built_in_dn_forms_are_their_positive_partner_negated(relation: str) -> None:
    """Same sentence, one negation added: the dn form denies exactly what its partner claims."""
    edits = [
        (" is a ", " is not a "),
        (" are a ", " are not a "),
        (" is ", " is not "),
        (" includes ", " does not include "),
        (" include ", " do not include "),
    ]
    for transform in NEGATED:
        positive = _template(relation, transform.partner)
        negated = _template(relation, transform)
        candidates = {positive.replace(a, b, 1) for a, b in edits if a in positive}
        assert negated in candidates, (relation, transform, positive, negated)


@pytest.mark.parametrize("relation", BUILT_IN)
def test_built_in_patient_forms_speak_of_a_person_and_hedge(relation: str) -> None:
    for transform in (Transform.INS, Transform.INV_INS, Transform.INS_DN, Transform.INV_INS_DN):
        template = _template(relation, transform)
        assert re.search(r"\b(?:patient|person|family)\b", template), (relation, template)
        assert HEDGE.search(template), (relation, transform, template)


def test_templates_never_put_an_article_before_a_placeholder() -> None:
    for (relation, transform), proto in POOL.prototypes.items():
        assert not re.search(r"\b(?:a|an)\s+\[[XY]\]", proto.template, re.IGNORECASE), (
            relation,
            transform,
        )


# Worked checks: (relation, head, true tail, negative tail, transform) -> sentence and its key.
WORKED = [
    # The clinician's first finding: a negative's ins+dn form claimed impossibility.
    (
        "has_symptom",
        Transform.INS_DN,
        "aortic stenosis",
        "perianal fistulae",
        Polarity.NEGATIVE,
        "If a patient with aortic stenosis has perianal fistulae, this is not a recognised "
        "feature of the condition.",
    ),
    (
        "has_symptom",
        Transform.INS,
        "Crohn's disease",
        "perianal fistulae",
        Polarity.POSITIVE,
        "If a patient with Crohn's disease has perianal fistulae, this is a recognised feature "
        "of the condition.",
    ),
    # The second: "A patient with obesity may require ICD insertion" was keyed false but is
    # true of some patients; the claim is now about managing the obesity itself.
    (
        "treated_with_procedure",
        Transform.INS,
        "obesity",
        "implantable cardioverter-defibrillator insertion",
        Polarity.NEGATIVE,
        "For a patient with obesity, the procedure implantable cardioverter-defibrillator "
        "insertion is a standard option for managing the condition.",
    ),
    (
        "treated_with_procedure",
        Transform.INS_DN,
        "obesity",
        "implantable cardioverter-defibrillator insertion",
        Polarity.NEGATIVE,
        "For a patient with obesity, the procedure implantable cardioverter-defibrillator "
        "insertion is not a standard option for managing the condition.",
    ),
    # The third: a site involved in some patients only, stated with a possibility, not a fact.
    (
        "affects_site",
        Transform.INS,
        "osteoarthritis",
        "hips",
        Polarity.POSITIVE,
        "In a patient with osteoarthritis, involvement of the hips is a recognised possibility.",
    ),
    (
        "affects_site",
        Transform.INV_INS_DN,
        "osteoarthritis",
        "hips",
        Polarity.POSITIVE,
        "Signs of disease in the hips are not a recognised finding in a patient with "
        "osteoarthritis.",
    ),
    (
        "prevents",
        Transform.INV_DN,
        "BCG vaccine",
        "measles",
        Polarity.NEGATIVE,
        "Prevention of measles is not a recognised use of BCG vaccine.",
    ),
    (
        "has_inheritance",
        Transform.DN,
        "Marfan syndrome",
        "Autosomal recessive inheritance",
        Polarity.NEGATIVE,
        "Recognised modes of inheritance of Marfan syndrome do not include Autosomal recessive "
        "inheritance.",
    ),
]
# Each sentence above is clinically true or false as written; this is its truth.
TRUTH = [True, True, False, True, True, False, True, True]


@pytest.mark.parametrize(
    ("case", "truth"),
    list(zip(WORKED, TRUTH, strict=True)),
    ids=[f"{c[0]}-{c[1].value}-{c[4].value}" for c in WORKED],
)
def test_worked_examples_read_as_intended_and_their_key_matches_the_truth(
    case: tuple[str, Transform, str, str, Polarity, str], truth: bool
) -> None:
    relation, transform, head, tail, polarity, expected = case
    assert POOL.render(relation, transform, head, tail) == expected
    assert label_for(polarity, transform) is truth


def test_docs_table_lists_every_template_of_the_pool() -> None:
    """docs/prototypes.md justifies each template; a changed template must be re-justified."""
    doc = (Path(__file__).resolve().parents[2] / "docs" / "prototypes.md").read_text("utf-8")
    rows = {line for line in doc.splitlines() if line.startswith("| ")}
    for (relation, transform), proto in POOL.prototypes.items():
        cell = proto.template.replace("|", "\\|")
        assert any(row.startswith(f"| {transform.value} | {cell} |") for row in rows), (
            relation,
            transform,
        )
