"""Reading item banks from elsewhere (MultifacetEval, MedQA, EBMQA-style): shapes, keys, errors.

The sample files in tests/data/item_banks/ are our own questions written in the public releases'
shapes (MultifacetEval's JSON lists of rows, MedQA's JSONL, quizbot's EBMQA-like JSONL).
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from quizbot.errors import InputError
from quizbot.evaluation.parse import partial_credit
from quizbot.evaluation.prompts import build_prompt
from quizbot.generate.item_banks import (
    FORMATS,
    check_licence,
    check_set_name,
    read_item_bank,
)
from quizbot.items import ChoiceItem, StatementItem
from quizbot.transforms import Transform

DATA = Path(__file__).resolve().parents[1] / "data" / "item_banks"


def _read(fmt: str, name: str) -> list[StatementItem | ChoiceItem]:
    return list(read_item_bank(DATA / name, fmt, set_name="s").items)


def test_multifaceteval_mcq_rows_become_choice_items_without_idk() -> None:
    items = _read("multifaceteval-mcq", "multifaceteval_mcq.json")
    assert [i.head for i in items] == ["1", "2", "3", "4"]
    first = items[0]
    assert isinstance(first, ChoiceItem) and first.kb == "itemset:s"
    assert first.question.startswith("A 58-year-old man") and "Options" not in first.question
    assert first.options[2] == "Right coronary artery" and first.answer_keys == ("C",)
    assert len(first.options) == 5 and not first.has_idk
    third = items[2]  # options on new lines, and the release's stray closing quote
    assert isinstance(third, ChoiceItem)
    assert third.options[-1] == "Intravenous fluids alone" and third.answer_keys == ("C",)
    assert [len(i.options) for i in items if isinstance(i, ChoiceItem)] == [5, 4, 5, 4]


def test_multifaceteval_tfq_rows_become_two_counterfactual_pairs_without_the_wrapper() -> None:
    items = _read("multifaceteval-tfq", "multifaceteval_tfq.json")
    assert len(items) == 12 and all(isinstance(i, StatementItem) for i in items)
    statements = [i for i in items if isinstance(i, StatementItem)]
    assert [s.label for s in statements[:4]] == [True, False, False, True]
    assert [s.label for s in statements[4:8]] == [False, True, True, False]
    assert all("is the statement above" not in s.text for s in statements)
    assert statements[0].text.endswith('Statement: "The right coronary artery is the most '
                                       'likely occluded artery."')  # fmt: skip
    assert [s.transform for s in statements[:2]] == [Transform.NONE, Transform.DN]
    # A statement and its negation share a pair; the two claims of a row are two pairs.
    assert statements[0].pair_id == statements[1].pair_id != statements[2].pair_id
    assert statements[2].pair_id == statements[3].pair_id
    prompt = build_prompt(statements[1], style="chat").text
    assert prompt.endswith('occluded artery." Is the statement above true or false? '
                           "Please answer True or False.")  # fmt: skip


def test_multifaceteval_maq_rows_become_a_question_and_its_negation() -> None:
    items = _read("multifaceteval-maq", "multifaceteval_maq.json")
    choice = [i for i in items if isinstance(i, ChoiceItem)]
    assert len(choice) == 6 == len(items)
    assert [(c.relation, c.answer_keys) for c in choice[:2]] == [
        ("maq", ("A", "C", "E")),
        ("maq-negated", ("B", "D")),
    ]
    assert choice[0].options == ("Metoprolol", "Amlodipine", "Bisoprolol", "Lisinopril",
                                 "Atenolol")  # fmt: skip
    assert "are not beta blockers" in choice[1].question
    assert all(c.meta["multi_answer"] for c in choice)


def test_medqa_and_ebmqa_lines() -> None:
    medqa = _read("medqa", "medqa.jsonl")
    assert [(i.relation, getattr(i, "answer_keys", None)) for i in medqa] == [
        ("step2&3", ("B",)),
        ("step1", ("C",)),
        ("step1", ("B",)),
    ]
    ebm = _read("ebmqa", "ebmqa.jsonl")
    assert [i.relation for i in ebm] == ["ebmqa-numeric", "ebmqa-numeric", "ebmqa-semantic",
                                         "ebmqa-semantic"]  # fmt: skip
    semantic = ebm[2]
    assert isinstance(semantic, ChoiceItem) and semantic.answer_keys == ("A", "B", "D")
    assert semantic.has_idk and semantic.meta["labels"] == {
        "discipline": "haematology",
        "organ_system": "blood",
    }


def test_partial_credit_by_hand() -> None:
    item = ChoiceItem("k", "1", "r", "h", "Q?", ("a", "b", "c", "d", "e"), ("A", "C", "E"),
                      "semantic", ())  # fmt: skip
    assert partial_credit(item, "A,C,E") == 1.0
    assert partial_credit(item, "A,C") == pytest.approx(2 / 3)
    assert partial_credit(item, "A,B,C") == pytest.approx(1 / 3)  # 2 right - 1 wrong, of 3
    assert partial_credit(item, "A,B,D") == 0.0  # 1 - 2 < 0: floored
    assert partial_credit(item, "A,B,C,D,E") == pytest.approx(1 / 3)  # 3 - 2
    assert partial_credit(item, "idk") == 0.0 and partial_credit(item, None) == 0.0


def _write(tmp_path: Path, name: str, text: str) -> Path:
    path = tmp_path / name
    path.write_text(text, encoding="utf-8")
    return path


def test_every_problem_of_a_file_is_reported_with_its_line_and_field(tmp_path: Path) -> None:
    rows = [
        [1, "Question: Q?\nOptions: A: x\tB: y", "B"],  # fine
        [2, "Question: Q?\nOptions: A: x\tC: y", "A"],  # letters skip B
        [3, "Question: Q?\nOptions: A: x\tB: y", "F"],  # key out of range
        [4, "Q? with no options", "A"],
        ["", "Question: Q?\nOptions: A: x\tB: y", "A"],  # empty id
        [6, "Question: Q?"],  # too short
    ]
    path = _write(tmp_path, "mcq.json", json.dumps(rows, indent=4))
    with pytest.raises(InputError) as caught:
        read_item_bank(path, "multifaceteval-mcq", set_name="s")
    text = str(caught.value)
    assert "5 problems, nothing imported" in text
    # Each row starts on its own line of the pretty-printed list: 2, 7, 12, ...
    assert f"{path}, line 7, field '[1] question': options must be 'A: ...'" in text
    assert f"{path}, line 12, field '[2] answer': 'F' is not one of the letters A-B" in text
    assert f"{path}, line 17, field '[1] question': has no 'Options:' part" in text
    assert f"{path}, line 22, field '[0] id'" in text
    assert f"{path}, line 27: must be a list of 3 or 4 values" in text


def test_tfq_labels_of_a_pair_must_disagree(tmp_path: Path) -> None:
    row = [9, "s1", "s1 not", "s2", "s2 not", "T", "T", "F", "T"]
    path = _write(tmp_path, "tfq.json", json.dumps([row]))
    with pytest.raises(InputError, match=r"line 1, field '\[6\] negated label': a statement"):
        read_item_bank(path, "multifaceteval-tfq", set_name="s")


def test_medqa_answer_must_match_its_option_and_lines_are_counted(tmp_path: Path) -> None:
    good = {"question": "Q?", "options": {"A": "x", "B": "y"}, "answer_idx": "A", "answer": "x"}
    bad = {**good, "answer": "y"}
    path = _write(tmp_path, "m.jsonl", "\n".join([json.dumps(good), "", json.dumps(bad), "{"]))
    with pytest.raises(InputError) as caught:
        read_item_bank(path, "medqa", set_name="s")
    text = str(caught.value)
    assert f"{path}, line 3, field 'answer': is not the text of option A" in text
    assert f"{path}, line 4: not valid JSON" in text


def test_ebmqa_idk_is_never_a_key_and_at_most_five_keys(tmp_path: Path) -> None:
    base = {"question": "Q?", "type": "semantic", "options": ["a", "b", "I do not know"]}
    six = {**base, "options": list("abcdefg"), "answer_keys": list("ABCDEF")}
    twice = {**base, "answer_keys": ["A", " a"]}  # the same letter, however it is written
    rows = [{**base, "answer_keys": ["C"]}, six, {**base, "answer_keys": ["A"], "type": "x"}, twice]
    path = _write(tmp_path, "e.jsonl", "\n".join(json.dumps(r) for r in rows))
    with pytest.raises(InputError) as caught:
        read_item_bank(path, "ebmqa", set_name="s")
    text = str(caught.value)
    assert "line 1, field 'options': an 'I do not know' option cannot be a right answer" in text
    assert "line 2, field 'answer_keys': more than 5 right options" in text
    assert "line 3, field 'type'" in text
    assert "line 4, field 'answer_keys': names a letter twice" in text


def test_repeated_rows_are_skipped_once(tmp_path: Path) -> None:
    row = [1, "Question: Q?\nOptions: A: x\tB: y", "B"]
    path = _write(tmp_path, "mcq.json", json.dumps([row, row]))
    bank = read_item_bank(path, "multifaceteval-mcq", set_name="s")
    assert len(bank.items) == 1 and bank.duplicates == (1,)


@pytest.mark.parametrize(
    "name",
    ["", "  ", "a/b", "..", "a..b", "<b>x</b>", "two\nlines", "x" * 61, "-lead", "back\\slash"],
)
def test_bad_set_names_are_refused(name: str) -> None:
    with pytest.raises(InputError, match="field 'name'"):
        check_set_name(name)


def test_good_names_and_licences() -> None:
    assert check_set_name("  MedQA US (4 options) v1.0  ") == "MedQA US (4 options) v1.0"
    assert check_set_name("ÉtudeMédicale_2") == "ÉtudeMédicale_2"
    assert check_licence(" CC BY 4.0\nThanks to the authors ") == "CC BY 4.0\nThanks to the authors"
    with pytest.raises(InputError, match="control"):
        check_licence("bad\x00licence")
    with pytest.raises(InputError, match="longer"):
        check_licence("x" * 2001)


def test_an_unknown_format_is_a_user_error(tmp_path: Path) -> None:
    assert set(FORMATS) >= {"medqa", "ebmqa"}
    with pytest.raises(InputError, match="unknown format"):
        read_item_bank(_write(tmp_path, "x.json", "[]"), "nope", set_name="s")
