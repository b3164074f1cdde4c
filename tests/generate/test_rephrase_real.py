"""The rephrasing validator on real LLM rephrasings (issue 24): each rule, then the shared data.

The rule tests use the PretexEval authors' kind of wording; each fails when its rule is broken
("ineffective" no longer negating, a swapped tail no longer caught...). The data tests read
``../shared/data/pretexeval/rephrasings_{real,corrupt}_dev.jsonl`` and skip when it is absent.
"""

from __future__ import annotations

import pytest

from quizbot.errors import InputError
from quizbot.generate.rephrase import (
    JUDGEABLE,
    Rephraser,
    RephraseResult,
    ScriptedCompleter,
    negation_cues,
    validate_rephrasing,
)
from quizbot.generate.rephrase.dev_data import HELD, TUNE, default_dir, load_cases, part_of
from quizbot.generate.rephrase.lexicon import looks_medical
from quizbot.generate.rephrase.roles import kinds_before, role_swap


def _check(statement: str, candidate: str, head: str, tail: str, *, negated: bool = False) -> str:
    verdict = validate_rephrasing(statement, candidate, head=head, tail=tail, negated=negated)
    return verdict.category if not verdict.ok else "accepted"


TERTATOLOL = ("Hypertension cannot be treated by tertatolol", "tertatolol", "Hypertension")


# -- polarity -------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "text",
    [
        "Tertatolol is ineffective in the treatment of hypertension.",
        "There is an absence of neoplastic cells in angiomyosarcoma.",
        "Josamycin propionate lacks the capacity to prevent infections.",
        "Dihydroergocryptine is unable to prevent haemorrhage.",
        "A patient has no need to take tertatolol.",
        "Amoxicillin is contraindicated in this patient.",
    ],
)
def test_morphological_and_lexical_negation_counts_as_a_negation(text: str) -> None:
    assert len(negation_cues(text)) % 2 == 1, negation_cues(text)


def test_ineffective_keeps_a_negated_statement_and_effective_flips_it() -> None:
    statement, head, tail = TERTATOLOL
    faithful = "Tertatolol is ineffective in the treatment of hypertension."
    flipped = "Tertatolol is effective in the treatment of hypertension."
    assert _check(statement, faithful, head, tail, negated=True) == "accepted"
    assert _check(statement, flipped, head, tail, negated=True) == "negation flipped"


def test_an_inserted_negation_is_caught_even_in_free_wording() -> None:
    statement = "josamycin propionate may be able to prevent Bacterial Infections ."
    head, tail = "josamycin propionate", "Bacterial Infections"
    good = (
        "Josamycin propionate has the potential to inhibit the development of bacterial infections."
    )
    bad = "Josamycin propionate does not have the potential to inhibit bacterial infections."
    assert _check(statement, good, head, tail) == "accepted"
    assert _check(statement, bad, head, tail) == "negation flipped"


# -- entities -------------------------------------------------------------------------------


def test_entities_with_articles_case_plural_and_reordered_words_are_found() -> None:
    statement = "Mixed ductal and lobular carcinoma in situ of breast is not the associated site."
    assert (
        _check(
            "The gene product T-Cell Leukemia Homeobox Protein 3 plays a role in biological "
            "process DNA Binding .",
            "The protein T-Cell Leukemia Homeobox Protein 3 is involved in the biological "
            "process of binding to DNA.",
            "T-Cell Leukemia Homeobox Protein 3",
            "DNA Binding",
        )
        == "accepted"
    )
    assert statement  # the plural and article case:
    assert (
        _check(
            "Angiomyosarcoma has the abnormal cell Neoplastic Cell .",
            "Angiomyosarcoma is characterized by the presence of the neoplastic cells.",
            "Angiomyosarcoma",
            "Neoplastic Cell",
        )
        == "accepted"
    )


def test_a_dropped_entity_is_missing() -> None:
    statement, head, tail = TERTATOLOL
    assert _check(
        statement, "Tertatolol is ineffective in treating it.", head, tail, negated=True
    ) == ("entity missing")


@pytest.mark.parametrize(
    "candidate",
    [
        "An individual with Neoplastic Epithelial Cells is not afflicted with Angiomyosarcoma.",
        "An individual with neoplastic cells in the eye is not afflicted with Angiomyosarcoma.",
        "An individual with neoplastic cells and carcinoma is not afflicted with Angiomyosarcoma.",
    ],
)
def test_a_foreign_medical_term_is_rejected(candidate: str) -> None:
    statement = (
        "A patient that has the abnormal cell Neoplastic Cell does not suffer from Angiomyosarcoma."
    )
    verdict = _check(statement, candidate, "Angiomyosarcoma", "Neoplastic Cell", negated=True)
    assert verdict in ("foreign entity", "extra claim", "entity missing"), verdict


def test_looks_medical_knows_endings_organs_and_everyday_words() -> None:
    assert looks_medical("hepatitis") and looks_medical("kidney") and looks_medical("hydrolase")
    assert not looks_medical("increase") and not looks_medical("determine")


# -- roles ----------------------------------------------------------------------------------


def test_a_voice_change_keeps_the_roles_and_a_swap_is_caught() -> None:
    statement = "Postpartum Hemorrhage may be prevented by dihydroergocryptine"
    head, tail = "dihydroergocryptine", "Postpartum Hemorrhage"
    voice = "Dihydroergocryptine may have a preventive effect on Postpartum Hemorrhage."
    swap = "Postpartum Hemorrhage may have a preventive effect on Dihydroergocryptine."
    assert _check(statement, voice, head, tail) == "accepted"
    assert _check(statement, swap, head, tail) == "roles swapped"


def test_giving_a_disease_the_drug_role_is_a_role_swap() -> None:
    statement = "Taking dihydroergocryptine have no effect on preventing Postpartum Hemorrhage."
    swap = (
        "Administration of Postpartum Hemorrhage does not exert a preventive influence on "
        "dihydroergocryptine."
    )
    verdict = _check(statement, swap, "dihydroergocryptine", "Postpartum Hemorrhage", negated=True)
    assert verdict == "roles swapped"


def test_role_kinds_from_the_words_around_an_entity() -> None:
    assert kinds_before("A patient taking ", "") == {"agent"}
    assert kinds_before("Administration of ", "") == {"agent"}
    assert kinds_before("a patient who suffers from ", "") == {"condition"}
    assert kinds_before("The ", " gene is") == {"product"}
    assert role_swap(({"agent"}, set()), (set(), {"agent"})) == "agent"
    assert role_swap(({"agent"}, set()), ({"agent"}, {"condition"})) is None


# -- antonyms, strength, claims ---------------------------------------------------------------


@pytest.mark.parametrize(
    "candidate",
    [
        "Angiomyosarcoma is characterized by the disappearance of Neoplastic Cells.",
        "Angiomyosarcoma is protective against Neoplastic Cells.",
    ],
)
def test_a_reversing_word_is_an_antonym(candidate: str) -> None:
    statement = "Angiomyosarcoma has the abnormal cell Neoplastic Cell ."
    assert _check(statement, candidate, "Angiomyosarcoma", "Neoplastic Cell") == "antonym"


def test_a_remedy_made_a_cause_is_an_antonym() -> None:
    statement = "josamycin propionate is not able to prevent Bacterial Infections ."
    candidate = "Josamycin propionate lacks the capacity to cause Bacterial Infections."
    verdict = _check(
        statement, candidate, "josamycin propionate", "Bacterial Infections", negated=True
    )
    assert verdict == "antonym"


def test_hedges_that_keep_the_claim_pass_and_absolutes_do_not() -> None:
    statement = (
        "If a patient has the abnormal cell Neoplastic Cell, then he/she may suffer from "
        "Angiomyosarcoma."
    )
    head, tail = "Angiomyosarcoma", "Neoplastic Cell"
    hedge = (
        "The presence of Neoplastic Cells in a patient may indicate a diagnosis of Angiomyosarcoma."
    )
    absolute = "The presence of Neoplastic Cells in a patient always indicates Angiomyosarcoma."
    assert _check(statement, hedge, head, tail) == "accepted"
    assert _check(statement, absolute, head, tail) == "claim strength changed"


def test_a_qualifier_or_a_coordinated_item_adds_a_claim() -> None:
    statement = "Statin may be used to treat stroke."
    assert _check(
        statement, "Statin may be used to treat stroke in the elderly.", "Statin", "stroke"
    ) == ("extra qualifier")
    assert _check(
        statement, "Statin may be used to treat stroke and gout.", "Statin", "stroke"
    ) in (
        "foreign entity",
        "extra claim",
    )


# -- the shared data --------------------------------------------------------------------------

# The tune part's floor is its level after the general rules of tests/generate/
# test_rephrase_general.py (72/74 faithful, 333/333 corruptions). The held-back part was measured
# after the first tuning (39/49 = 79.6%, 247/251 = 98.4%) and again after the general rules
# (2026-11-29: 40/49 faithful accepted = 81.6%, 247/251 corruptions and meaning changes rejected =
# 98.4%); its floor guards that level and is raised only after measuring, never by tuning on it.
GOALS = {TUNE: (0.97, 1.0), HELD: (0.81, 0.98)}


def _cases() -> list:  # type: ignore[type-arg]
    folder = default_dir()
    if not (folder / "rephrasings_real_dev.jsonl").exists():
        pytest.skip(f"shared PretexEval rephrasings not found in {folder}")
    return load_cases(folder)


def test_the_split_by_head_is_deterministic_and_about_a_third() -> None:
    cases = _cases()
    heads = {c.head for c in cases}
    held = {h for h in heads if part_of(h) == HELD}
    assert 0.2 <= len(held) / len(heads) <= 0.5
    assert all(c.part == part_of(c.head) for c in cases)
    assert {c.part for c in cases} == {TUNE, HELD}


@pytest.mark.parametrize("part", [TUNE, HELD])
def test_real_rephrasings_meet_the_goals(part: str) -> None:
    cases = [c for c in _cases() if c.part == part]
    faithful = [c for c in cases if c.expect == "accept"]
    bad = [c for c in cases if c.expect == "reject"]
    kept = sum(
        validate_rephrasing(
            c.statement, c.candidate, head=c.head, tail=c.tail, negated=c.negated
        ).ok
        for c in faithful
    )
    caught = sum(
        not validate_rephrasing(
            c.statement, c.candidate, head=c.head, tail=c.tail, negated=c.negated
        ).ok
        for c in bad
    )
    faithful_goal, reject_goal = GOALS[part]
    assert kept / len(faithful) >= faithful_goal, f"{kept}/{len(faithful)} faithful accepted"
    assert caught / len(bad) >= reject_goal, f"{caught}/{len(bad)} corruptions rejected"


def test_a_malformed_data_file_names_file_line_and_field(tmp_path) -> None:  # type: ignore[no-untyped-def]
    (tmp_path / "rephrasings_real_dev.jsonl").write_text(
        '{"statement": "A", "rephrased": "B", "head": "A", "tail": "", "judged": "faithful"}\n'
    )
    (tmp_path / "rephrasings_corrupt_dev.jsonl").write_text("")
    with pytest.raises(InputError) as caught:
        load_cases(tmp_path)
    assert "line 1" in str(caught.value) and "'tail'" in str(caught.value)


# -- the optional judge -----------------------------------------------------------------------


class _Judge:
    model = "scripted/judge"

    def __init__(self, answer: bool | Exception) -> None:
        self.answer = answer
        self.asked: list[str] = []

    def confirm(self, statement: str, rewrite: str) -> bool:
        self.asked.append(rewrite)
        if isinstance(self.answer, Exception):
            raise self.answer
        return self.answer


STATIN = ("Statin may be used to treat stroke.", "Statin", "stroke")


def _rephrase(reply: str, judge: _Judge) -> RephraseResult:
    statement, head, tail = STATIN
    rephraser = Rephraser(ScriptedCompleter({statement: reply}), max_attempts=1, judge=judge)
    return rephraser.rephrase(statement, head=head, tail=tail, negated=False)


def test_a_judge_may_confirm_a_rejection_the_rules_cannot_weigh() -> None:
    judge = _Judge(True)
    done = _rephrase("Statin may be used to treat stroke in the elderly.", judge)
    assert done.rephrased and "confirmed by scripted/judge" in done.reason
    assert judge.asked == ["Statin may be used to treat stroke in the elderly."]
    refused = _rephrase("Statin may be used to treat stroke in the elderly.", _Judge(False))
    assert not refused.rephrased and refused.reason.startswith("extra qualifier")


@pytest.mark.parametrize(
    "reply",
    [
        "Statin may not be used to treat stroke.",  # negation
        "Statin may be used to treat it.",  # entity
        "Stroke may be used to treat statin.",  # roles
        "Statin may be used to treat stroke and Gout.",  # foreign entity
    ],
)
def test_a_judge_is_never_asked_about_negation_entities_or_roles(reply: str) -> None:
    judge = _Judge(True)
    done = _rephrase(reply, judge)
    assert not done.rephrased and judge.asked == []
    assert done.reason.split(":", 1)[0] not in JUDGEABLE


def test_a_failing_judge_leaves_the_rejection_standing() -> None:
    statement, head, tail = STATIN
    judge = _Judge(RuntimeError("down"))
    rephraser = Rephraser(
        ScriptedCompleter({statement: "Statin may be used to treat stroke in the elderly."}),
        max_attempts=1,
        judge=judge,
    )
    done = rephraser.rephrase(statement, head=head, tail=tail, negated=False)
    assert not done.rephrased and rephraser.stats.judge_errors == 1
    assert "judge confirmed 0 of 1 (1 failed)" in rephraser.stats.summary()
