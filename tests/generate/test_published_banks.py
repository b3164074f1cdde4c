"""The importers against the published files: a few real rows always (tests/data/item_banks/
published/, with their README), the whole files when they are on this machine.

The whole files are looked for under ``QUIZBOT_PUBLISHED_BANKS`` (else ``../shared/data/
item_banks``) in the layout of the MultifacetEval repository: ``multifaceteval/medqa/{MCQ,TFQ,
MAQ}/{test,dev,dev_cot}.json`` and MedQA's ``medqa/questions/...`` JSONL. Without them those tests
skip, saying so.
"""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from quizbot.domain import Outcome
from quizbot.errors import InputError
from quizbot.evaluation.parse import parse_and_score
from quizbot.generate.item_banks import read_item_bank, skip_report_csv
from quizbot.items import ChoiceItem, StatementItem

ROOT = Path(__file__).resolve().parents[2]
PUBLISHED = ROOT / "tests" / "data" / "item_banks" / "published"
WHOLE = Path(os.environ.get("QUIZBOT_PUBLISHED_BANKS") or ROOT.parent / "shared/data/item_banks")


def _choices(path: Path, fmt: str) -> list[ChoiceItem]:
    items = read_item_bank(path, fmt, set_name="p").items
    assert all(isinstance(i, ChoiceItem) for i in items)
    return [i for i in items if isinstance(i, ChoiceItem)]


def _answers_every_key(items: list[ChoiceItem]) -> float:
    """Accuracy, by quizbot's own parser and scorer, of a model replying with every key."""
    right = 0
    for item in items:
        _, outcome = parse_and_score(", ".join(item.answer_keys), item, idk_offered=False)
        right += outcome is Outcome.CORRECT
    return right / len(items)


def test_maq_repeats_keyed_alike_are_kept_and_counted() -> None:
    path = PUBLISHED / "multifaceteval_maq_test.json"
    bank = read_item_bank(path, "multifaceteval-maq", set_name="p")
    items = [i for i in bank.items if isinstance(i, ChoiceItem)]
    assert [(i.head, i.relation) for i in items] == [
        ("7", "maq"), ("7/negated", "maq-negated"), ("14", "maq"), ("14/negated", "maq-negated")
    ]  # fmt: skip
    by_case, _, exact, exact_negated = items
    assert exact.options[0] == exact.options[1] == "Hypothesis testing cannot be performed"
    assert exact.answer_keys == ("A", "B") and exact.meta["repeated_options"] == [["A", "B"]]
    assert exact_negated.answer_keys == ("C", "D", "E")
    # "Von willebrand disease" and "Von Willebrand disease": one text by case, keyed alike.
    assert by_case.meta["repeated_options"] == [["C", "D"]]
    assert by_case.answer_keys == ("B", "C", "D")
    assert bank.repeated_options == 4 and not bank.skipped
    assert _answers_every_key(items) == 1.0


@pytest.mark.parametrize(
    ("file", "fmt", "n", "explained"),
    [
        ("multifaceteval_tfq_dev.json", "multifaceteval-tfq", 2, False),
        ("multifaceteval_tfq_dev_cot.json", "multifaceteval-tfq", 2, True),
        ("multifaceteval_mcq_dev_cot.json", "multifaceteval-mcq", 1, True),
        ("multifaceteval_maq_dev_cot.json", "multifaceteval-maq", 2, True),
    ],
)
def test_the_dev_and_dev_cot_shapes_import(file: str, fmt: str, n: int, explained: bool) -> None:
    items = read_item_bank(PUBLISHED / file, fmt, set_name="p").items
    assert len(items) == n
    metas = [i.side.meta if isinstance(i, StatementItem) else i.meta for i in items]
    has = [("explanation" in m or "explanations" in m) for m in metas]
    assert has == [explained] * n
    if fmt == "multifaceteval-tfq":
        assert [i.label for i in items if isinstance(i, StatementItem)] == [True, False]
        assert all("is the statement above" not in i.text for i in items)


def test_a_contradictory_repeat_refuses_its_row_and_names_both_letters() -> None:
    path = PUBLISHED / "medqa_mainland_test.jsonl"
    with pytest.raises(InputError) as caught:
        read_item_bank(path, "medqa", set_name="p")
    text = str(caught.value)
    assert f"{path}, line 3, field 'options': options A and E say the same" in text
    assert "E is a right answer and A is not" in text and "--skip-invalid" in text
    bank = read_item_bank(path, "medqa", set_name="p", skip_invalid=True)
    assert bank.lines == (1, 2) and [s.line for s in bank.skipped] == [3]
    report = skip_report_csv(path, bank).splitlines()
    assert report[0] == "file,line,field,reason"
    assert report[1].startswith(f"{path},3,options,options A and E say the same")
    # A short meta_info is the relation; a long one (a chapter title with a full-width space) not.
    assert [i.relation for i in bank.items] == ["卫生法规", "medqa"]


def test_options_that_differ_only_by_case_and_key_are_distinct_answers() -> None:
    (item,) = _choices(PUBLISHED / "medqa_mainland_dev.jsonl", "medqa")
    assert item.options[1:4] == ("cCdee", "ccDee", "cCDEe") and item.answer_keys == ("D",)
    assert "repeated_options" not in item.meta and _answers_every_key([item]) == 1.0


def test_medqa_text_quirks_are_kept_as_published() -> None:
    taiwan = _choices(PUBLISHED / "medqa_taiwan_test.jsonl", "medqa")
    assert "\ue2c6" in taiwan[0].options[0] and "\ue4b6" in taiwan[1].question
    path = PUBLISHED / "medqa_taiwan_en_test.jsonl"
    bank = read_item_bank(path, "medqa", set_name="p", skip_invalid=True)
    first = bank.items[0]
    assert isinstance(first, ChoiceItem) and "\u200b" in first.options[3]
    assert [(s.line, s.field) for s in bank.skipped] == [(2, "options")]
    us = _choices(PUBLISHED / "medqa_us_test.jsonl", "medqa")
    assert [i.relation for i in us] == ["step1", "step1"] and _answers_every_key(us) == 1.0


# ---------------------------------------------------------------------------------------------
# The whole published files, when present


def _whole(relative: str) -> Path:
    path = WHOLE / relative
    if not path.is_file():
        pytest.skip(f"{path} is not on this machine (set QUIZBOT_PUBLISHED_BANKS)")
    return path


def test_the_whole_maq_test_file_imports_and_every_key_scores_one() -> None:
    path = _whole("multifaceteval/medqa/MAQ/test.json")
    bank = read_item_bank(path, "multifaceteval-maq", set_name="p")
    items = [i for i in bank.items if isinstance(i, ChoiceItem)]
    assert len({i.meta["source_id"] for i in items}) == 795
    assert sum(i.relation == "maq" for i in items) == 795
    assert sum(i.relation == "maq-negated" for i in items) == 795
    assert not bank.skipped and not bank.duplicates
    assert bank.repeated_options == 640  # measured: 320 rows, both of their questions
    assert _answers_every_key(items) == 1.0


@pytest.mark.parametrize(
    ("relative", "fmt", "n"),
    [
        ("multifaceteval/medqa/MCQ/test.json", "multifaceteval-mcq", 795),
        ("multifaceteval/medqa/TFQ/test.json", "multifaceteval-tfq", 3180),
        ("multifaceteval/medqa/MCQ/dev.json", "multifaceteval-mcq", 5),
        ("multifaceteval/medqa/MCQ/dev_cot.json", "multifaceteval-mcq", 5),
        ("multifaceteval/medqa/TFQ/dev.json", "multifaceteval-tfq", 10),
        ("multifaceteval/medqa/TFQ/dev_cot.json", "multifaceteval-tfq", 10),
        ("multifaceteval/medqa/MAQ/dev.json", "multifaceteval-maq", 10),
        ("multifaceteval/medqa/MAQ/dev_cot.json", "multifaceteval-maq", 10),
        ("medqa/questions/US/test.jsonl", "medqa", 1273),
        ("medqa/questions/US/4_options/phrases_no_exclude_test.jsonl", "medqa", 1273),
        ("medqa/questions/Taiwan/test.jsonl", "medqa", 1413),
    ],
)
def test_whole_published_files_import(relative: str, fmt: str, n: int) -> None:
    bank = read_item_bank(_whole(relative), fmt, set_name="p")
    assert len(bank.items) == n and not bank.skipped


@pytest.mark.parametrize(
    ("relative", "items", "bad_line"),
    [
        ("medqa/questions/Mainland/test.jsonl", 3407, 2459),
        ("medqa/questions/Taiwan/tw_translated_jsonl/en/test-2en.jsonl", 1412, 1264),
    ],
)
def test_whole_files_with_a_contradictory_row(relative: str, items: int, bad_line: int) -> None:
    path = _whole(relative)
    with pytest.raises(InputError, match=f"line {bad_line}, field 'options'"):
        read_item_bank(path, "medqa", set_name="p")
    bank = read_item_bank(path, "medqa", set_name="p", skip_invalid=True)
    assert len(bank.items) == items and [s.line for s in bank.skipped] == [bad_line]
