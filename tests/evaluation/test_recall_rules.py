"""The second readings of an open recall entry (quizbot/evaluation/recall_rules.py) and the
names, lay words and reviewed truths added with them (issue 24, audit r10): each rule is checked
on clinical-core's real questions, so a test fails when its rule is dropped."""

from __future__ import annotations

from functools import cache

import pytest

from quizbot.evaluation.recall import match, parse_entries, score_recall
from quizbot.evaluation.recall_rules import (
    age_range,
    ages_recalled,
    note_parts,
    without_qualifier,
)
from quizbot.evaluation.recall_terms import words
from quizbot.generate.recall import plan_recall, recall_items
from quizbot.items import RecallItem
from quizbot.kb.clinical import load_clinical_core


@cache
def _items() -> dict[tuple[str, str], RecallItem]:
    kb = load_clinical_core()
    return {(i.head, i.relation): i for i in recall_items(kb, plan_recall(kb))}


def item(head: str, relation: str) -> RecallItem:
    return _items()[(head, relation)]


def kinds(head: str, relation: str, text: str) -> dict[str, tuple[str, str]]:
    scored = score_recall(item(head, relation), text)
    return {e.text: (e.kind, e.why) for e in scored.match.entries}


# -- parenthetical notes ---------------------------------------------------------------------


def test_the_list_reader_keeps_each_entrys_parentheses_as_its_note() -> None:
    listed, abstained = parse_entries(
        "FLOT (fluorouracil, leucovorin, oxaliplatin, docetaxel), capecitabine, "
        "malignant (necrotising) otitis externa"
    )
    assert not abstained
    assert listed == [
        ("FLOT", "fluorouracil, leucovorin, oxaliplatin, docetaxel"),
        ("capecitabine", ""),
        ("malignant otitis externa", "necrotising"),
    ]
    assert note_parts("e.g. tenofovir, entecavir") == ["tenofovir", "entecavir"]
    assert note_parts("with isoniazid") == []


def test_a_regimen_recalls_the_members_its_parentheses_name() -> None:
    gastric = item("gastric cancer", "treated_with_drug")
    scored = score_recall(gastric, "FLOT (fluorouracil, leucovorin, oxaliplatin, docetaxel)")
    assert set(scored.match.recalled) == {"fluorouracil", "oxaliplatin", "docetaxel"}
    assert scored.match.entries[0].why == "in parentheses"
    # Without its note the regimen's name alone is not known.
    assert score_recall(gastric, "FLOT").match.recalled == ()
    # The note and the entry read together: "tendons (xanthomata, Achilles)".
    fh = item("familial hypercholesterolaemia", "affects_site")
    assert "Achilles tendons" in score_recall(fh, "tendons (xanthomata, Achilles)").match.recalled
    ibs = item("irritable bowel syndrome", "affects_site")
    assert score_recall(ibs, "large bowel (colon)").tier == "basically correct"


def test_a_note_that_says_with_what_names_nothing() -> None:
    tb = item("tuberculosis", "treated_with_drug")
    entry = score_recall(tb, "pyridoxine (with isoniazid)").match.entries[0]
    assert entry.kind != "matched" and entry.golds == ()


# -- trailing qualifiers ---------------------------------------------------------------------


def test_without_qualifier_cuts_at_the_first_circumstance() -> None:
    assert without_qualifier("IV fluids in crisis") == "IV fluids"
    assert without_qualifier("TFTs to exclude other causes") == "TFTs"
    assert without_qualifier("vibration sense with 128 Hz tuning fork") == "vibration sense"
    assert without_qualifier("in crisis") is None
    assert without_qualifier("antispasmodics") is None


def test_an_entry_is_read_again_without_its_qualifier() -> None:
    found = kinds("placenta praevia", "has_symptom", "painless vaginal bleeding in third trimester")
    assert found["painless vaginal bleeding in third trimester"] == (
        "matched",
        "without its qualifier",
    )
    dpn = item("diabetic peripheral neuropathy", "investigated_with")
    scored = score_recall(dpn, "vibration sense with 128 Hz tuning fork")
    assert scored.match.recalled != ()


# -- age groups ------------------------------------------------------------------------------

AGES = ("infants", "children", "adolescents", "young adults", "middle-aged adults", "older adults")


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("children under 5", {"infants", "children"}),
        ("under 6 months", {"infants"}),
        ("older adults (over 50)", {"middle-aged adults", "older adults"}),
        ("adults aged 65+", {"older adults"}),
        ("the under-5s", {"infants", "children"}),
        ("people 65 and over", {"older adults"}),
        ("aged 40-60", {"middle-aged adults"}),
        ("in their 20s-30s", {"young adults"}),
        ("25-45 years", {"young adults"}),
        ("in their 40s and 50s", {"middle-aged adults"}),
        ("women of reproductive age", {"young adults"}),
        ("postmenopausal women", {"middle-aged adults", "older adults"}),
        ("school-age children", {"children"}),
        ("adults", set()),
    ],
)
def test_ages_written_as_numbers_or_life_stages_recall_age_groups(
    text: str, expected: set[str]
) -> None:
    assert set(ages_recalled(text, AGES)) == expected


def test_age_range_reads_months_and_spans() -> None:
    assert age_range("under 6 months") == (0.0, 0.5)
    assert age_range("25-45 years") == (25.0, 46.0)
    assert age_range("over 50") == (50.0, 120.0)
    assert age_range("young adults") is None


def test_an_age_phrase_recalls_the_age_groups_of_the_question() -> None:
    cervical = item("cervical cancer", "typical_age_group")
    found = match(cervical, ["women of reproductive age"])
    assert found.recalled == ("young adults",) and found.entries[0].why == "age"
    ovarian = item("ovarian cancer", "typical_age_group")
    assert set(match(ovarian, ["postmenopausal women"]).recalled) == set(ovarian.answers) & {
        "middle-aged adults",
        "older adults",
    }


# -- names and lay words ---------------------------------------------------------------------


def test_gh_is_growth_hormone() -> None:
    assert words("GH receptor antagonists") == words("growth hormone receptor antagonist")
    assert words("UFH") == words("unfractionated heparin")
    acromegaly = item("acromegaly", "treated_with_drug_class")
    assert match(acromegaly, ["GH receptor antagonists"]).recalled == (
        "growth hormone receptor antagonist",
    )


def test_thoracic_is_of_the_thorax() -> None:
    assert set(words("ultrasound thorax")) == set(words("thoracic ultrasound"))


def test_red_is_erythematous() -> None:
    assert words("red") == words("erythematous") == words("erythema")
    tinea = item("tinea corporis", "has_symptom")
    assert match(tinea, ["raised scaly red active edge"]).recalled == (
        "raised erythematous active edge",
    )


def test_the_course_of_a_finding_is_not_what_it_is() -> None:
    glaucoma = item("primary open-angle glaucoma", "has_complication")
    found = match(glaucoma, ["progressive peripheral visual field loss"])
    assert found.recalled == ("irreversible visual field loss",)


# -- reviewed truths (audit r10) -------------------------------------------------------------


def test_a_good_students_true_entries_are_not_called_wrong() -> None:
    assert kinds("biliary colic", "treated_with_drug_class", "antispasmodics")["antispasmodics"][
        0
    ] == ("extra_truth")
    assert kinds("Kawasaki disease", "affects_site", "mucous membranes")["mucous membranes"][0] == (
        "extra_truth"
    )
    assert kinds("Alzheimer's disease", "has_complication", "fractures")["fractures"][0] == (
        "extra_truth"
    )
    # Still wrong for a disease of another system.
    assert kinds("asthma", "treated_with_drug_class", "antispasmodics")["antispasmodics"][0] == (
        "known_wrong"
    )


def test_the_r10_gold_additions_are_recalled() -> None:
    ipf = item("idiopathic pulmonary fibrosis", "has_symptom")
    assert "finger clubbing" in match(ipf, ["clubbing"]).recalled
    uc = item("ulcerative colitis", "has_complication")
    assert match(uc, ["PSC"]).recalled == ("primary sclerosing cholangitis",)


def test_a_bound_prefix_joins_its_stem_whether_written_with_a_hyphen_or_not() -> None:
    assert words("trans-sphenoidal surgery") == words("transsphenoidal surgery")
    assert words("pre-eclampsia") == words("preeclampsia")
    assert words("pre-eclampsia") != words("eclampsia")
    assert words("anti-CCP") == words("anti CCP")  # anti- stays apart
    acromegaly = item("acromegaly", "treated_with_procedure")
    assert "transsphenoidal pituitary surgery" in acromegaly.answers
    recalled = score_recall(acromegaly, "trans-sphenoidal surgery").match.recalled
    assert recalled == ("transsphenoidal pituitary surgery",)
