"""The rephrasing validator (on real prototypes) and the rephrasing driver."""

from __future__ import annotations

import json
import logging
from collections import Counter
from collections.abc import Iterator
from pathlib import Path
from typing import NamedTuple

import pytest

from quizbot.generate.prototypes import default_prototypes
from quizbot.generate.rephrase import (
    DEMONSTRATIONS,
    CompletionText,
    JsonlRephraseCache,
    MemoryRephraseCache,
    Rephraser,
    RephraseResult,
    RephraseStats,
    ScriptedCompleter,
    Verdict,
    build_prompt,
    clean_candidate,
    negation_cues,
    validate_rephrasing,
)
from quizbot.generate.wording import word_forms
from quizbot.transforms import TRANSFORMS, Transform


class Case(NamedTuple):
    relation: str
    transform: Transform
    head: str
    tail: str
    original: str
    paraphrase: str


# Real prototypes from prototypes.csv, instantiated; each with a faithful paraphrase.
FAITHFUL = [
    Case(
        "may_treat",
        Transform.NONE,
        "floxacillin",
        "Bacterial Infections",
        "Recognised uses of floxacillin include treating Bacterial Infections.",
        "Accepted uses of floxacillin include the treatment of Bacterial Infections.",
    ),
    Case(
        "may_treat",
        Transform.DN,
        "floxacillin",
        "Bacterial Infections",
        "Recognised uses of floxacillin do not include treating Bacterial Infections.",
        "Accepted uses of floxacillin don't include the treatment of Bacterial Infections.",
    ),
    Case(
        "has_symptom",
        Transform.INS,
        "community-acquired pneumonia",
        "productive cough",
        "If a patient with community-acquired pneumonia has productive cough, this is a "
        "recognised feature of the condition.",
        "If a patient with community-acquired pneumonia has productive cough, this is a known "
        "feature of the illness.",
    ),
    Case(
        "has_symptom",
        Transform.INV_INS_DN,
        "community-acquired pneumonia",
        "productive cough",
        "In a patient presenting with productive cough, recognised causes do not include "
        "community-acquired pneumonia.",
        "For a patient who presents with productive cough, the known causes do not include "
        "community-acquired pneumonia.",
    ),
    Case(
        "associated_gene",
        Transform.NONE,
        "Marfan syndrome",
        "FBN1",
        "Genes associated with Marfan syndrome include FBN1.",
        "Genes linked to Marfan syndrome include FBN1.",
    ),
    Case(
        "associated_gene",
        Transform.INV_DN,
        "Marfan syndrome",
        "FBN1",
        "Variants in the gene FBN1 are not a recognised cause of Marfan syndrome.",
        "Variants of the gene FBN1 are not a known cause of Marfan syndrome.",
    ),
    Case(
        "associated_morphology_of",
        Transform.INV,
        "Embryonal carcinoma",
        "Neoplasms, Germ Cell and Embryonal",
        "The disorder Neoplasms, Germ Cell and Embryonal is characterised by the morphology "
        "Embryonal carcinoma.",
        "The disorder Neoplasms, Germ Cell and Embryonal is marked by the morphology "
        "Embryonal carcinoma.",
    ),
    Case(
        "treated_with_drug",
        Transform.INS_DN,
        "viral pharyngitis",
        "amoxicillin/clavulanic acid",
        "For a patient with viral pharyngitis, treatment with amoxicillin/clavulanic acid is not "
        "a standard option.",
        "For a patient who has viral pharyngitis, treatment with amoxicillin/clavulanic acid is "
        "not a standard choice.",
    ),
    Case(
        "has_phenotype",
        Transform.INV_INS,
        "Marfan syndrome",
        "Arachnodactyly",
        "In a patient who shows Arachnodactyly, recognised underlying diagnoses include Marfan "
        "syndrome.",
        "When a patient shows Arachnodactyly, known underlying diagnoses include Marfan syndrome.",
    ),
    Case(
        "may_prevent",
        Transform.INV_INS_DN,
        "amoxicillin",
        "Influenza",
        "For a patient at risk of Influenza, recognised preventive options do not include "
        "amoxicillin.",
        "For a patient at risk of Influenza, accepted preventive options do not include "
        "amoxicillin.",
    ),
    Case(
        "gene_encodes_gene_product",
        Transform.INV,
        "FBN1",
        "Fibrillin-1",
        "The gene product Fibrillin-1 is encoded by FBN1.",
        "The gene product Fibrillin-1 is coded for by FBN1.",
    ),
    Case(
        "may_treat",
        Transform.NONE,
        "St. John's wort (Hypericum perforatum)",
        "Depressive disorder",
        "Recognised uses of St. John's wort (Hypericum perforatum) include treating Depressive "
        "disorder.",
        "Accepted uses of St. John's wort (Hypericum perforatum) include the treatment of "
        "Depressive disorder.",
    ),
    # Negation words inside entities are not negation cues.
    Case(
        "gene_associated_with_disease",
        Transform.NONE,
        "EGFR",
        "Non-small cell lung carcinoma",
        "EGFR is associated with the disease Non-small cell lung carcinoma.",
        "EGFR has an association with the disease Non-small cell lung carcinoma.",
    ),
    Case(
        "affects_site",
        Transform.DN,
        "Non-Hodgkin lymphoma",
        "lymph nodes",
        "Recognised sites of involvement in Non-Hodgkin lymphoma do not include the lymph nodes.",
        "Known sites of involvement in Non-Hodgkin lymphoma do not include the lymph nodes.",
    ),
    Case(
        "has_phenotype",
        Transform.INS,
        "No Known Allergy syndrome",
        "Hypotonia",
        "If a patient with No Known Allergy syndrome shows Hypotonia, this is a recognised "
        "feature of the condition.",
        "If a patient who has No Known Allergy syndrome shows Hypotonia, this is a known "
        "feature of the condition.",
    ),
]


def _ids(case: Case) -> str:
    return f"{case.relation}/{case.transform.value}"


@pytest.mark.parametrize("case", FAITHFUL, ids=_ids)
def test_faithful_paraphrase_of_a_real_prototype_is_accepted(case: Case) -> None:
    verdict = validate_rephrasing(
        case.original,
        case.paraphrase,
        head=case.head,
        tail=case.tail,
        negated=case.transform.negated,
    )
    assert verdict.ok, verdict.reason
    assert verdict.reason == "accepted"


def test_table_originals_are_what_the_pool_renders() -> None:
    pool = default_prototypes()
    for case in FAITHFUL:
        rendered = pool.render(case.relation, case.transform, case.head, case.tail)
        assert rendered == case.original, _ids(case)


def test_every_pool_prototype_reads_with_its_transforms_polarity() -> None:
    """The negation lexicon agrees with every shipped template, even with tricky entities."""
    pool = default_prototypes()
    head, tail = "Non-Hodgkin lymphoma", "No Known Allergy"
    relations = {relation for relation, _ in pool.prototypes}
    assert len(relations) > 20
    for relation in relations:
        for transform in TRANSFORMS:
            text = pool.render(relation, transform, head, tail)
            cues = negation_cues(text, mask=(head, tail))
            assert len(cues) % 2 == int(transform.negated), (relation, transform, text, cues)


# (original case, candidate, expected category)
BASE = FAITHFUL[0]  # floxacillin / Bacterial Infections, affirmative
BASE_DN = FAITHFUL[1]
PNEUMONIA = FAITHFUL[2]
MARFAN = FAITHFUL[4]
MARFAN_INV_DN = FAITHFUL[5]

REJECTED = [
    # entity dropped / altered
    (BASE, "Floxacillin may be used to treat infections.", "entity missing"),
    (BASE, "Flucloxacillin can be used to treat Bacterial Infections.", "entity missing"),
    (MARFAN, "Marfan syndrome is linked to the gene FBN12.", "entity missing"),
    (
        PNEUMONIA,
        "If a patient with atypical pneumonia has productive cough, this is a recognised feature "
        "of the condition.",
        "entity missing",
    ),
    (
        BASE,
        "Floxacillin is used to treat Bacterial Infections, as floxacillin kills them.",
        "entity duplicated",
    ),
    # negation
    (BASE, "Floxacillin can not be used to treat Bacterial Infections.", "negation flipped"),
    (BASE, "Floxacillin is never used to treat Bacterial Infections.", "negation flipped"),
    (BASE, "Floxacillin fails to treat Bacterial Infections.", "negation flipped"),
    (BASE, "Floxacillin is seldom used to treat Bacterial Infections.", "negation flipped"),
    (MARFAN, "Marfan syndrome is rarely associated with the gene FBN1.", "negation flipped"),
    (BASE_DN, "Floxacillin can be used to treat Bacterial Infections.", "negation flipped"),
    (BASE_DN, "Floxacillin is a possible treatment for Bacterial Infections.", "negation flipped"),
    (
        BASE_DN,
        "It is not true that floxacillin cannot treat Bacterial Infections.",
        "negation flipped",
    ),
    # a hedge swapped in for the negation keeps the parity but weakens the claim
    (
        MARFAN_INV_DN,
        "Variants in the gene FBN1 are rarely a recognised cause of Marfan syndrome.",
        "claim strength changed",
    ),
    # order / roles
    (BASE, "Bacterial Infections may be used to treat floxacillin.", "roles swapped"),
    (BASE, "Floxacillin may be treated with Bacterial Infections.", "roles swapped"),
    (BASE, "Bacterial Infections may benefit floxacillin.", "order swapped"),
    # over-claiming
    (BASE, "Floxacillin is always used to treat Bacterial Infections.", "claim strength changed"),
    (BASE, "Only floxacillin can be used to treat Bacterial Infections.", "claim strength changed"),
    (BASE, "Floxacillin is guaranteed to treat Bacterial Infections.", "claim strength changed"),
    (BASE, "Floxacillin must be used to treat Bacterial Infections.", "claim strength changed"),
    (
        PNEUMONIA,
        "Every patient with community-acquired pneumonia can develop productive cough.",
        "claim strength changed",
    ),
    (
        MARFAN,
        "Marfan syndrome is associated with all variants of the gene FBN1.",
        "claim strength changed",
    ),
    (
        PNEUMONIA,
        "A patient with community-acquired pneumonia usually develops productive cough.",
        "claim strength changed",
    ),
    # shape
    (BASE, "", "empty"),
    (BASE, '""', "empty"),
    (
        BASE,
        "Floxacillin may be used to treat Bacterial Infections. It is a penicillin.",
        "multiple sentences",
    ),
    (BASE, "Can floxacillin be used to treat Bacterial Infections?", "question"),
    (BASE, "Floxacillin can be used\nto treat Bacterial Infections.", "newline"),
    (BASE, "Sure, floxacillin can be used to treat Bacterial Infections.", "instruction echo"),
    (BASE, "Here is the statement: Floxacillin treats Bacterial Infections.", "instruction echo"),
    (
        BASE,
        "Floxacillin treats Bacterial Infections. Statement: Aspirin treats pain.",
        "instruction echo",
    ),
    (BASE, "Recognised uses of  floxacillin include treating  Bacterial Infections", "unchanged"),
    (
        BASE,
        "Recognised uses of floxacillin, a narrow-spectrum beta-lactam antibiotic of the "
        "penicillin class that resists penicillinase and is given by mouth or by injection, "
        "include treating Bacterial Infections in hospital and in general practice.",
        "length changed",
    ),
    (
        Case(
            "has_symptom",
            Transform.INV_INS_DN,
            "flu",
            "fever",
            "In a patient presenting with fever, the differential diagnosis does not include flu.",
            "",
        ),
        "Fever does not mean flu.",
        "length changed",
    ),
]


@pytest.mark.parametrize(
    ("case", "candidate", "category"),
    REJECTED,
    ids=[f"{c}:{cand[:30]}" for _, cand, c in REJECTED],
)
def test_bad_rephrasing_is_rejected_with_its_reason(
    case: Case, candidate: str, category: str
) -> None:
    verdict = validate_rephrasing(
        case.original, candidate, head=case.head, tail=case.tail, negated=case.transform.negated
    )
    assert not verdict.ok
    assert verdict.category == category, verdict.reason
    assert verdict.reason.startswith(f"{category}: ")


def test_original_whose_cues_contradict_negated_rejects_everything() -> None:
    verdict = validate_rephrasing(
        BASE.original, BASE.paraphrase, head=BASE.head, tail=BASE.tail, negated=True
    )
    assert verdict.category == "negation unclear"


@pytest.mark.parametrize(
    "wrapped",
    [
        '"Accepted uses of floxacillin include the treatment of Bacterial Infections."',
        '"Accepted uses of floxacillin include the treatment of Bacterial Infections".',
        "“Accepted uses of floxacillin include the treatment of Bacterial Infections.”",
        "Rephrased: Accepted uses of floxacillin include the treatment of Bacterial Infections.",
        'Rewritten statement: "Accepted uses of floxacillin include the treatment of Bacterial '
        'Infections."',
        "  Paraphrase:   Accepted uses of floxacillin include the treatment of Bacterial "
        "Infections.  ",
    ],
)
def test_wrapping_quotes_and_label_are_stripped_then_accepted(wrapped: str) -> None:
    assert clean_candidate(wrapped) == BASE.paraphrase
    verdict = validate_rephrasing(
        BASE.original, wrapped, head=BASE.head, tail=BASE.tail, negated=False
    )
    assert verdict.ok, verdict.reason


def test_quote_stripping_keeps_apostrophes_and_inner_quotes() -> None:
    assert clean_candidate("'Crohn's disease can present with diarrhoea.'") == (
        "Crohn's disease can present with diarrhoea."
    )
    inner = '"Floxacillin" can treat "Bacterial Infections"'
    assert clean_candidate(inner) == inner


def test_doubly_quoted_text_is_rejected() -> None:
    verdict = validate_rephrasing(
        BASE.original,
        "\"'Accepted uses of floxacillin include the treatment of Bacterial Infections.'\"",
        head=BASE.head,
        tail=BASE.tail,
        negated=False,
    )
    assert verdict.category == "instruction echo"


def test_entity_match_ignores_case_and_whitespace() -> None:
    verdict = validate_rephrasing(
        "The disorder Neoplasms, Germ Cell and Embryonal is characterised by the morphology "
        "Embryonal carcinoma.",
        "The disorder neoplasms,  germ cell and EMBRYONAL is marked by the morphology "
        "embryonal carcinoma.",
        head="Embryonal carcinoma",
        tail="Neoplasms, Germ Cell and Embryonal",
        negated=False,
    )
    assert verdict.ok, verdict.reason


def test_negation_cues_mask_entities_and_count_neither_nor_once() -> None:
    assert (
        negation_cues("Non-Hodgkin lymphoma can affect the spleen.", mask=("Non-Hodgkin lymphoma",))
        == ()
    )
    assert negation_cues("Non-Hodgkin lymphoma can affect the spleen.") == ("non-hodgkin",)
    assert negation_cues("X doesn't cause Y.") == ("doesn't",)
    assert len(negation_cues("Neither X nor Z causes Y.")) == 1
    assert negation_cues("X fails  to cause Y.") == ("fails to",)


def test_demonstrations_pass_the_validator() -> None:
    assert any(negated for *_, negated in DEMONSTRATIONS)
    for statement, rewritten, head, tail, negated in DEMONSTRATIONS:
        verdict = validate_rephrasing(statement, rewritten, head=head, tail=tail, negated=negated)
        assert verdict.ok, (statement, verdict.reason)


def test_prompt_is_few_shot_and_ends_with_the_statement() -> None:
    prompt = build_prompt(BASE.original)
    assert prompt.endswith(f"Statement: {BASE.original}\nRewritten:")
    assert prompt.count("Statement: ") == 4
    assert prompt.count("Rewritten: ") == 3
    assert prompt.startswith("Rewrite each medical statement")


# ---------------------------------------------------------------------------------------------
# Driver
# ---------------------------------------------------------------------------------------------


def _rephrase(rephraser: Rephraser, case: Case = BASE) -> RephraseResult:
    return rephraser.rephrase(
        case.original, head=case.head, tail=case.tail, negated=case.transform.negated
    )


def test_accepted_rephrasing_is_cached_and_a_hit_avoids_the_completer() -> None:
    completer = ScriptedCompleter({BASE.original: " " + BASE.paraphrase})
    cache = MemoryRephraseCache()
    rephraser = Rephraser(completer, cache)
    first = _rephrase(rephraser)
    assert (first.text, first.rephrased, first.model, first.attempts) == (
        BASE.paraphrase,
        True,
        "scripted/rephraser",
        1,
    )
    assert cache.get("scripted/rephraser", BASE.original) == BASE.paraphrase
    second = _rephrase(rephraser)
    assert completer.calls == 1
    assert (second.text, second.reason, second.attempts) == (BASE.paraphrase, "cache hit", 0)
    assert rephraser.stats.summary() == "rephrased 2 of 2 (cache 1)"


def test_prefilled_cache_is_used_without_asking() -> None:
    completer = ScriptedCompleter({})
    cache = MemoryRephraseCache()
    cache.put("scripted/rephraser", BASE.original, BASE.paraphrase)
    result = _rephrase(Rephraser(completer, cache))
    assert result.rephrased and result.text == BASE.paraphrase
    assert completer.calls == 0


def test_cache_is_per_model() -> None:
    cache = MemoryRephraseCache()
    cache.put("other/model", BASE.original, BASE.paraphrase)
    completer = ScriptedCompleter({BASE.original: BASE.paraphrase})
    _rephrase(Rephraser(completer, cache))
    assert completer.calls == 1


def test_cached_text_that_no_longer_validates_is_asked_again() -> None:
    cache = MemoryRephraseCache()
    cache.put("scripted/rephraser", BASE.original, "Floxacillin never treats Bacterial Infections.")
    completer = ScriptedCompleter({BASE.original: BASE.paraphrase})
    result = _rephrase(Rephraser(completer, cache))
    assert completer.calls == 1
    assert result.text == BASE.paraphrase and result.reason == "accepted"


def test_invalid_output_falls_back_with_reason_and_caches_nothing() -> None:
    bad = "Floxacillin cannot be used to treat Bacterial Infections."
    completer = ScriptedCompleter({BASE.original: bad})
    cache = MemoryRephraseCache()
    rephraser = Rephraser(completer, cache)
    result = _rephrase(rephraser)
    assert result.text == BASE.original
    assert (result.rephrased, result.model, result.attempts) == (False, None, 2)
    assert result.reason.startswith("negation flipped: ")
    assert completer.calls == 2
    assert len(cache) == 0
    assert rephraser.stats.rejected == Counter({"negation flipped": 2})
    assert rephraser.stats.summary() == "rephrased 0 of 1 (cache 0); rejected: negation flipped 2"


def test_a_validator_that_fails_rejects_the_candidate_and_the_generation_goes_on(
    monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture
) -> None:
    def broken(*args: object, **kwargs: object) -> object:
        raise ValueError("zip() argument 2 is longer than argument 1")

    monkeypatch.setattr("quizbot.generate.rephrase.driver.judge", broken)
    completer = ScriptedCompleter({BASE.original: BASE.paraphrase})
    rephraser = Rephraser(completer, MemoryRephraseCache())
    with caplog.at_level(logging.ERROR, logger="quizbot.generate.rephrase.driver"):
        result = _rephrase(rephraser)
    assert (result.text, result.rephrased) == (BASE.original, False)  # the prototype stays
    assert result.reason == "validator error: ValueError"
    assert rephraser.stats.rejected == Counter({"validator error": 2})
    assert BASE.paraphrase in caplog.text  # the sentence that broke it is in the log


def test_retry_succeeds_on_second_attempt_with_the_same_prompt() -> None:
    answers: Iterator[str] = iter(["Sure! Here you go.", BASE.paraphrase])
    completer = ScriptedCompleter(lambda _statement: next(answers))
    cache = MemoryRephraseCache()
    result = _rephrase(Rephraser(completer, cache))
    assert (result.text, result.rephrased, result.attempts) == (BASE.paraphrase, True, 2)
    assert completer.prompts[0] == completer.prompts[1] == build_prompt(BASE.original)
    assert cache.get("scripted/rephraser", BASE.original) == BASE.paraphrase


def test_max_attempts_bounds_the_calls() -> None:
    completer = ScriptedCompleter(lambda _s: "")
    result = _rephrase(Rephraser(completer, MemoryRephraseCache(), max_attempts=3))
    assert completer.calls == 3 and result.attempts == 3 and result.reason.startswith("empty")
    with pytest.raises(ValueError, match="max_attempts"):
        Rephraser(completer, MemoryRephraseCache(), max_attempts=0)


def test_only_the_first_line_of_a_base_model_completion_is_used() -> None:
    completion = f" {BASE.paraphrase}\n\nStatement: Aspirin treats pain.\nRewritten: Pain..."
    completer = ScriptedCompleter({BASE.original: completion})
    result = _rephrase(Rephraser(completer, MemoryRephraseCache()))
    assert result.text == BASE.paraphrase and result.rephrased


class _Exploding:
    model = "broken/model"

    def __init__(self) -> None:
        self.calls = 0

    def complete(self, prompt: str) -> CompletionText:
        self.calls += 1
        raise TimeoutError("provider timed out")


def test_completer_exception_falls_back_with_a_warning(caplog: pytest.LogCaptureFixture) -> None:
    completer = _Exploding()
    cache = MemoryRephraseCache()
    rephraser = Rephraser(completer, cache)
    with caplog.at_level(logging.WARNING, logger="quizbot.generate.rephrase"):
        result = _rephrase(rephraser)
    assert result.text == BASE.original and not result.rephrased
    assert result.reason == "completer error: TimeoutError: provider timed out"
    assert completer.calls == 1
    assert len(cache) == 0
    assert "provider timed out" in caplog.text
    assert rephraser.stats.summary() == "rephrased 0 of 1 (cache 0); completer errors 1"


def test_scripted_completer_without_an_answer_is_a_fallback_not_a_crash() -> None:
    result = _rephrase(Rephraser(ScriptedCompleter({}), MemoryRephraseCache()))
    assert not result.rephrased and result.reason.startswith("completer error: LookupError")


def test_stats_summary_format() -> None:
    stats = RephraseStats(
        requested=1600,
        rephrased=1234,
        cache_hits=900,
        rejected=Counter({"negation flipped": 12, "entity missing": 30}),
    )
    assert stats.summary() == (
        "rephrased 1,234 of 1,600 (cache 900); rejected: entity missing 30, negation flipped 12"
    )
    assert stats.kept_original == 366


# ---------------------------------------------------------------------------------------------
# JSONL cache
# ---------------------------------------------------------------------------------------------


def test_jsonl_cache_survives_reopen(tmp_path: Path) -> None:
    path = tmp_path / "cache" / "rephrase.jsonl"
    cache = JsonlRephraseCache(path)
    cache.put("m1", "Statement one.", "Rewritten one.")
    cache.put("m1", "Statement one.", "Rewritten one.")  # already stored: no second line
    cache.put("m2", "Statement one.", "Rewritten by m2.")
    assert len(path.read_text("utf-8").splitlines()) == 2
    again = JsonlRephraseCache(path)
    assert again.get("m1", "Statement one.") == "Rewritten one."
    assert again.get("m2", "Statement one.") == "Rewritten by m2."
    assert again.get("m1", "Statement two.") is None
    assert "Statement one." not in path.read_text("utf-8")  # keyed by hash


def test_jsonl_cache_tolerates_a_truncated_last_line(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    path = tmp_path / "rephrase.jsonl"
    JsonlRephraseCache(path).put("m", "Statement one.", "Rewritten – one.")
    with path.open("ab") as handle:
        handle.write('{"model": "m", "sha256": "ab", "text": "Cut – off'.encode()[:-2])
    with caplog.at_level(logging.WARNING, logger="quizbot.generate.rephrase"):
        cache = JsonlRephraseCache(path)
    assert "skipped 1 unreadable line" in caplog.text
    assert len(cache) == 1 and cache.get("m", "Statement one.") == "Rewritten – one."
    cache.put("m", "Statement two.", "Rewritten two.")
    reopened = JsonlRephraseCache(path)
    assert len(reopened) == 2
    assert reopened.get("m", "Statement two.") == "Rewritten two."


def test_rephraser_with_jsonl_cache_needs_no_completer_after_restart(tmp_path: Path) -> None:
    path = tmp_path / "rephrase.jsonl"
    first = _rephrase(
        Rephraser(ScriptedCompleter({BASE.original: BASE.paraphrase}), JsonlRephraseCache(path))
    )
    assert first.rephrased
    completer = _Exploding()
    completer.model = "scripted/rephraser"
    second = _rephrase(Rephraser(completer, JsonlRephraseCache(path)))
    assert second.reason == "cache hit" and second.text == BASE.paraphrase
    assert completer.calls == 0


# --------------------------------------------------------------------------------------------
# Entity forms, voice, antonyms, predicates and new content
# --------------------------------------------------------------------------------------------


def _judge_case(original: str, candidate: str, head: str, tail: str, **kw: object) -> Verdict:
    return validate_rephrasing(
        original,
        candidate,
        head=head,
        tail=tail,
        negated=bool(kw.pop("negated", False)),
        synonyms=kw.pop("synonyms", None),  # type: ignore[arg-type]
    )


@pytest.mark.parametrize(
    "candidate",
    [
        "A bacterial infection may be treated with Floxacillin.",  # plural and case
        "The bacterial infections may be treated with floxacillin.",  # article
        "Floxacillin may be used to treat bacterial infections.",  # active for passive
    ],
)
def test_case_article_plural_and_voice_are_accepted(candidate: str) -> None:
    verdict = _judge_case(
        "Bacterial infections may be treated with floxacillin.",
        candidate,
        "floxacillin",
        "bacterial infections",
    )
    assert verdict.ok, verdict.reason


def test_medical_plurals_and_articles_inside_the_entity() -> None:
    assert word_forms("glomerulus") >= {"glomerulus", "glomeruli"}
    assert word_forms("arthritis") >= {"arthritis", "arthritides"}
    assert word_forms("vertebrae") >= {"vertebra", "vertebrae"}
    assert word_forms("FBN1") == {"fbn1"}
    verdict = _judge_case(
        "The small joints of the hands can be affected by rheumatoid arthritis.",
        "Small joints of hands can be affected by rheumatoid arthritis.",
        "rheumatoid arthritis",
        "small joints of the hands",
    )
    assert verdict.ok, verdict.reason


def test_listed_synonym_counts_as_the_entity_and_unlisted_does_not() -> None:
    original = "A patient with hypertension is a candidate for treatment with amlodipine."
    candidate = "A patient with hypertension is a candidate for treatment with Norvasc."
    args = ("hypertension", "amlodipine")
    assert _judge_case(original, candidate, *args).category == "entity missing"
    verdict = _judge_case(original, candidate, *args, synonyms={"Amlodipine": ["Norvasc"]})
    assert verdict.ok, verdict.reason


def test_a_common_lay_name_counts_as_the_entity() -> None:
    original = "A patient with hypertension is a candidate for treatment with amlodipine."
    candidate = "A patient with high blood pressure is a candidate for treatment with amlodipine."
    verdict = _judge_case(original, candidate, "hypertension", "amlodipine")
    assert verdict.ok, verdict.reason


def test_an_entity_that_merely_contains_the_original_is_rejected() -> None:
    original = "ATPase plays a role in the biological process hydrolysis."
    for candidate in (
        "ATPase plays a role in the biological process ATP hydrolysis.",  # foreign entity
        "ATPase plays a role in the biological process of protein hydrolysis.",
    ):
        verdict = _judge_case(original, candidate, "ATPase", "hydrolysis")
        assert verdict.category in ("entity extended", "foreign entity"), verdict.reason
    verdict = _judge_case(
        "The gene product insulin is encoded by INS.",
        "The gene product insulin receptor is encoded by INS.",
        "INS",
        "insulin",
    )
    assert verdict.category == "entity extended", verdict.reason


@pytest.mark.parametrize(
    ("original", "candidate", "head", "tail"),
    [
        (
            "Metformin may be used to treat type 2 diabetes mellitus.",
            "Type 2 diabetes mellitus may be treated with metformin.",
            "metformin",
            "type 2 diabetes mellitus",
        ),
        (
            "Photophobia can be a clinical feature of migraine.",
            "Migraine can present with photophobia.",
            "migraine",
            "photophobia",
        ),
        (
            "The condition post-herpetic neuralgia occurs after herpes zoster.",
            "The event herpes zoster precedes post-herpetic neuralgia.",
            "post-herpetic neuralgia",
            "herpes zoster",
        ),
        (
            "Influenza can be prevented by influenza vaccine.",
            "The influenza vaccine can prevent influenza.",
            "influenza",
            "influenza vaccine",
        ),
    ],
)
def test_voice_change_with_roles_kept_is_accepted(
    original: str, candidate: str, head: str, tail: str
) -> None:
    verdict = _judge_case(original, candidate, head, tail)
    assert verdict.ok, verdict.reason


@pytest.mark.parametrize(
    ("original", "candidate", "head", "tail"),
    [
        (
            "Metformin may be used to treat type 2 diabetes mellitus.",
            "Metformin may be treated with type 2 diabetes mellitus.",
            "metformin",
            "type 2 diabetes mellitus",
        ),
        (
            "Photophobia can be a clinical feature of migraine.",
            "Photophobia can present with migraine.",
            "migraine",
            "photophobia",
        ),
        (
            "The condition post-herpetic neuralgia occurs after herpes zoster.",
            "The condition post-herpetic neuralgia occurs before herpes zoster.",
            "post-herpetic neuralgia",
            "herpes zoster",
        ),
        (
            "Variants in the gene CFTR are associated with cystic fibrosis.",
            "Variants in the gene cystic fibrosis are associated with CFTR.",
            "cystic fibrosis",
            "CFTR",
        ),
    ],
)
def test_role_swap_is_rejected(original: str, candidate: str, head: str, tail: str) -> None:
    verdict = _judge_case(original, candidate, head, tail)
    assert verdict.category == "roles swapped", verdict.reason


@pytest.mark.parametrize(
    ("original", "candidate", "category"),
    [
        ("Aspirin can help to prevent stroke.", "Aspirin can help to cause stroke.", "antonym"),
        (
            "A person who receives statin has a lower risk of stroke.",
            "A person who receives statin has a higher risk of stroke.",
            "antonym",
        ),
        (
            "The presence of statin in a patient can be related to stroke.",
            "The disappearance of statin in a patient can be related to stroke.",
            "antonym",
        ),
        ("Statin may be used to treat stroke.", "Statin may worsen stroke.", "antonym"),
        (
            "Statin may be used to treat stroke.",
            "Statin may be used to prevent stroke.",
            "predicate changed",
        ),
        (
            "Statin may be used to treat stroke.",
            "Statin may be used to treat stroke in the elderly.",
            "extra qualifier",
        ),
    ],
)
def test_antonyms_predicate_swaps_and_new_content_are_rejected(
    original: str, candidate: str, category: str
) -> None:
    verdict = _judge_case(
        original, candidate, "statin" if "tatin" in original else "aspirin", "stroke"
    )
    assert verdict.category == category, verdict.reason


def test_same_side_words_are_faithful_substitutes() -> None:
    verdict = _judge_case(
        "A person who receives statin has a lower risk of stroke.",
        "A person who receives statin has a reduced risk of stroke.",
        "statin",
        "stroke",
    )
    assert verdict.ok, verdict.reason


def test_rephraser_passes_synonyms_to_the_validator() -> None:
    statement = "A patient with hypertension is a candidate for treatment with amlodipine."
    reply = "A patient with hypertension is a candidate for treatment with Norvasc."
    completer = ScriptedCompleter({statement: reply})
    plain = Rephraser(completer).rephrase(
        statement, head="hypertension", tail="amlodipine", negated=False
    )
    assert not plain.rephrased
    rephraser = Rephraser(completer, synonyms={"amlodipine": ("Norvasc",)})
    done = rephraser.rephrase(statement, head="hypertension", tail="amlodipine", negated=False)
    assert done.rephrased and done.text == reply


# --------------------------------------------------------------------------------------------
# The hand-written rewordings: acceptance and rejection goals
# --------------------------------------------------------------------------------------------

DATA = Path(__file__).parent / "data"
REWORDINGS = DATA / "rewordings.jsonl"
# Written by a second author who never read the validator, and split by fact: the validator was
# tuned on rewordings.jsonl and on rewordings_dev.jsonl, never on this half. Do not tune on it;
# add new faithful or corrupted examples to the other files instead.
HELD_OUT = DATA / "rewordings_heldout.jsonl"
FAITHFUL_GOAL = 0.85
# The validator accepts by default after strict checks (issue 24: tuned on real LLM rephrasings,
# see test_rephrase_real.py). Words it does not know are no longer rejected, so a corruption that
# only adds an unknown claim ("a lower mortality after", "regulated by") can pass: these goals
# guard the level measured when that design came in (2026-11-29: 99.0% here, 92.3% held out;
# the enumerating validator before it caught 99.5% but kept 10.5% of real faithful rephrasings).
CORRUPTED_GOAL = 0.985
HELD_OUT_CORRUPTED_GOAL = 0.92


def _rates(path: Path) -> tuple[dict[tuple[bool, str], float], str, Counter[bool]]:
    records = [json.loads(line) for line in path.read_text("utf-8").splitlines() if line]
    right: Counter[tuple[bool, str]] = Counter()
    total: Counter[tuple[bool, str]] = Counter()
    for record in records:
        verdict = validate_rephrasing(
            record["original"],
            record["candidate"],
            head=record["head"],
            tail=record["tail"],
            negated=record["negated"],
            synonyms=record.get("synonyms"),
        )
        for group in ("all", record["kind"]):
            key = (record["faithful"], group)
            total[key] += 1
            right[key] += verdict.ok == record["faithful"]
    rates = {key: right[key] / total[key] for key in total}
    report = ", ".join(
        f"{'kept' if faithful else 'caught'} {group} {rate:.1%}"
        for (faithful, group), rate in sorted(rates.items())
    )
    return rates, report, Counter(r["faithful"] for r in records)


def test_rewordings_meet_the_acceptance_and_rejection_goals() -> None:
    rates, report, counts = _rates(REWORDINGS)
    assert counts[True] >= 150 and counts[False] >= 250
    assert rates[(True, "all")] >= FAITHFUL_GOAL, report
    assert rates[(False, "all")] >= CORRUPTED_GOAL, report


def test_held_out_rewordings_meet_the_goals_too() -> None:
    rates, report, counts = _rates(HELD_OUT)
    assert counts[True] >= 70 and counts[False] >= 100
    assert rates[(True, "all")] >= FAITHFUL_GOAL, report
    assert rates[(False, "all")] >= HELD_OUT_CORRUPTED_GOAL, report


def test_a_change_of_capitals_alone_is_a_rewording_not_unchanged() -> None:
    verdict = _judge_case(
        "Marfan syndrome is associated with the gene FBN1.",
        "Marfan Syndrome is associated with the gene FBN1.",
        "Marfan syndrome",
        "FBN1",
    )
    assert verdict.ok, verdict.reason


# --------------------------------------------------------------------------------------------
# Claim strength: hedges, modals, quantifiers and absolutes are compared between the sentences
# --------------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("original", "candidate", "negated"),
    [
        ("Gout is caused by urate crystals.", "Gout may be caused by urate crystals.", False),
        ("Gout is caused by urate crystals.", "Gout could be caused by urate crystals.", False),
        (
            "Gout is not caused by urate crystals.",
            "Gout might not be caused by urate crystals.",
            True,
        ),
        (
            "Colchicine is a treatment for gout.",
            "Colchicine is one possible treatment for gout.",
            False,
        ),
        (
            "Colchicine is a treatment for gout.",
            "Colchicine is probably a treatment for gout.",
            False,
        ),
        (
            "Colchicine is a treatment for gout.",
            "Colchicine is sometimes a treatment for gout.",
            False,
        ),
        (
            "Colchicine is a treatment for gout.",
            "Colchicine is one of several treatments for gout.",
            False,
        ),
        (
            "Colchicine is a treatment for gout.",
            "Colchicine should be a treatment for gout.",
            False,
        ),
        (
            "Colchicine is not a treatment for gout.",
            "Colchicine is never a treatment for gout.",
            True,
        ),
        (
            "Tophi are a clinical feature of gout.",
            "Tophi are a clinical feature of gout in any patient.",
            False,
        ),
        ("Gout can affect the first toe.", "Gout affects the first toe.", False),
    ],
)
def test_a_change_of_claim_strength_is_rejected(
    original: str, candidate: str, negated: bool
) -> None:
    head = "Colchicine" if "olchicine" in original else "gout"
    tail = {"Colchicine": "gout"}.get(head) or next(
        t for t in ("urate crystals", "Tophi", "first toe") if t in original
    )
    verdict = _judge_case(original, candidate, head, tail, negated=negated)
    assert verdict.category == "claim strength changed", verdict.reason


@pytest.mark.parametrize(
    ("original", "candidate", "negated"),
    [
        ("Gout can affect the first toe.", "Gout may affect the first toe.", False),
        ("Gout cannot affect the first toe.", "Gout can't affect the first toe.", True),
        ("Gout cannot affect the first toe.", "Gout does not affect the first toe.", True),
        (
            "Gout cannot show tophi in the first toe.",
            "Gout cannot show any tophi in the first toe.",
            True,
        ),
        (
            "Gout gives an increased likelihood of first toe pain.",
            "Gout makes first toe pain more likely.",
            False,
        ),
    ],
)
def test_the_same_claim_strength_in_other_words_is_accepted(
    original: str, candidate: str, negated: bool
) -> None:
    verdict = _judge_case(original, candidate, "gout", "first toe", negated=negated)
    assert verdict.category != "claim strength changed", verdict.reason


# --------------------------------------------------------------------------------------------
# Entity forms: modes of inheritance and a symptom after its site
# --------------------------------------------------------------------------------------------

_PKD = (
    "Polycystic kidney disease follows autosomal dominant inheritance.",
    "autosomal dominant inheritance",
)


@pytest.mark.parametrize(
    "candidate",
    [
        "Polycystic kidney disease is inherited in an autosomal dominant manner.",
        "Polycystic kidney disease is inherited in an autosomal dominant pattern.",
        "Polycystic kidney disease follows an autosomal dominant pattern of inheritance.",
        "Polycystic kidney disease follows an autosomal dominant inheritance pattern.",
    ],
)
def test_a_mode_of_inheritance_may_read_as_a_manner_or_pattern(candidate: str) -> None:
    verdict = _judge_case(_PKD[0], candidate, "Polycystic kidney disease", _PKD[1])
    assert verdict.ok, verdict.reason


@pytest.mark.parametrize(
    ("candidate", "category"),
    [
        (
            "Polycystic kidney disease is inherited in an autosomal recessive manner.",
            "entity missing",
        ),
        ("Polycystic kidney disease is inherited in a dominant pattern.", "entity missing"),
        (
            "Polycystic kidney disease is not inherited in an autosomal dominant manner.",
            "negation flipped",
        ),
    ],
)
def test_another_mode_of_inheritance_is_still_rejected(candidate: str, category: str) -> None:
    verdict = _judge_case(_PKD[0], candidate, "Polycystic kidney disease", _PKD[1])
    assert verdict.category == category, verdict.reason


def test_inheritance_wording_needs_an_inheritance_entity() -> None:
    verdict = _judge_case(
        "Post-herpetic neuralgia follows herpes zoster.",
        "Post-herpetic neuralgia is inherited in herpes zoster.",
        "Post-herpetic neuralgia",
        "herpes zoster",
    )
    assert verdict.category == "predicate changed", verdict.reason


@pytest.mark.parametrize(
    ("candidate", "ok"),
    [
        ("Cholecystitis presents with pain in the right upper quadrant.", True),
        ("Cholecystitis presents with tenderness over the right upper quadrant.", False),
        ("Cholecystitis presents with pain in the left upper quadrant.", False),
        ("Cholecystitis presents with severe pain in the right upper quadrant.", False),
        ("Cholecystitis presents with pain in the upper quadrant.", False),
    ],
)
def test_a_symptom_may_follow_its_site(candidate: str, ok: bool) -> None:
    verdict = _judge_case(
        "Cholecystitis presents with right upper quadrant pain.",
        candidate,
        "Cholecystitis",
        "right upper quadrant pain",
    )
    assert verdict.ok is ok, verdict.reason


# --------------------------------------------------------------------------------------------
# Reorderings: origin, "has Y as one of its features", patient clauses, symmetric phrases
# --------------------------------------------------------------------------------------------

REORDERED = [
    # (original, candidate, head, tail)
    (
        "The stomach is the site of origin of gastric lymphoma.",
        "Gastric lymphoma originates in the stomach.",
        "gastric lymphoma",
        "stomach",
    ),
    (
        "Arachnodactyly is a clinical feature of Marfan syndrome.",
        "Marfan syndrome has arachnodactyly as one of its clinical features.",
        "Marfan syndrome",
        "Arachnodactyly",
    ),
    (
        "Arachnodactyly is a clinical feature of Marfan syndrome.",
        "Arachnodactyly is one of the clinical features seen in Marfan syndrome.",
        "Marfan syndrome",
        "Arachnodactyly",
    ),
    (
        "In a patient with septic shock, noradrenaline is the first-line vasopressor treatment.",
        "Noradrenaline is the first-line vasopressor treatment for a patient with septic shock.",
        "noradrenaline",
        "septic shock",
    ),
    (
        "In a patient with ulcerative colitis, the rectum is a commonly affected site.",
        "The rectum is commonly affected in a patient with ulcerative colitis.",
        "ulcerative colitis",
        "rectum",
    ),
    (
        "FBN1 is not a gene associated with Marfan syndrome.",
        "Marfan syndrome is not associated with the FBN1 gene.",
        "Marfan syndrome",
        "FBN1",
    ),
    (
        "Influenza vaccine prevents influenza.",
        "Vaccination with influenza vaccine protects against influenza.",
        "influenza vaccine",
        "influenza",
    ),
]


@pytest.mark.parametrize(("original", "candidate", "head", "tail"), REORDERED)
def test_a_reordering_with_a_known_predicate_keeps_the_roles(
    original: str, candidate: str, head: str, tail: str
) -> None:
    verdict = _judge_case(original, candidate, head, tail, negated=" not " in original)
    assert verdict.ok, verdict.reason


SWAPPED = [
    # (original, candidate, head, tail): each gives an entity the other's role
    (
        "The stomach is the site of origin of gastric lymphoma.",
        "The stomach originates in gastric lymphoma.",
        "gastric lymphoma",
        "stomach",
    ),
    (
        "Gastric lymphoma originates in the stomach.",
        "Gastric lymphoma is the site of origin of the stomach.",
        "gastric lymphoma",
        "stomach",
    ),
    (
        "Arachnodactyly is a clinical feature of Marfan syndrome.",
        "Arachnodactyly has Marfan syndrome as one of its clinical features.",
        "Marfan syndrome",
        "Arachnodactyly",
    ),
    (
        "Arachnodactyly is a clinical feature of Marfan syndrome.",
        "Marfan syndrome is one of the clinical features seen in arachnodactyly.",
        "Marfan syndrome",
        "Arachnodactyly",
    ),
    (
        "In a patient with septic shock, noradrenaline is the first-line vasopressor treatment.",
        "A patient with septic shock is the first-line vasopressor treatment for noradrenaline.",
        "noradrenaline",
        "septic shock",
    ),
    (
        "In a patient with ulcerative colitis, the rectum is a commonly affected site.",
        "The rectum commonly affects a patient with ulcerative colitis.",
        "ulcerative colitis",
        "rectum",
    ),
    (
        "In a patient with septic shock, noradrenaline is the first-line vasopressor treatment.",
        "Noradrenaline is treated with the first-line vasopressor in a patient with septic shock.",
        "noradrenaline",
        "septic shock",
    ),
    (
        "FBN1 is a gene associated with Marfan syndrome.",
        "The gene Marfan syndrome is associated with FBN1.",
        "Marfan syndrome",
        "FBN1",
    ),
    (
        "FBN1 is a gene associated with Marfan syndrome.",
        "Marfan syndrome is a gene associated with FBN1.",
        "Marfan syndrome",
        "FBN1",
    ),
]


@pytest.mark.parametrize(("original", "candidate", "head", "tail"), SWAPPED)
def test_a_reordering_that_swaps_roles_is_rejected(
    original: str, candidate: str, head: str, tail: str
) -> None:
    verdict = _judge_case(original, candidate, head, tail)
    assert not verdict.ok
    assert verdict.category in {"roles swapped", "order swapped"}, verdict.reason
