"""Item banks from elsewhere: read, validate whole, and store as a named item set.

``quizbot items import --format FORMAT PATH --name NAME`` reads one file, checks every row before
anything is written (each problem names the file, the line and the field; up to
:data:`MAX_PROBLEMS` are listed) and stores the items, with the source format, the file name,
the licence and the import time, as item set NAME (:mod:`storage.item_sets`). The items are
ordinary quizbot items under a knowledge base of their own, ``itemset:NAME``, so ``quizbot eval
--item-set NAME``, assignments and reports use them like generated ones.

Formats (rows of the public releases; small samples in ``tests/data/item_banks/``):

``multifaceteval-mcq``
    MultifacetEval (THUMLP, IJCAI 2024), ``MCQ/*.json``: a JSON list of
    ``[id, "Question: ...\\nOptions: A: ...\\tB: ...", "E"]``. Options are separated by tabs or
    new lines. One choice item per row (relation ``mcq``), with no "I do not know" option.
``multifaceteval-tfq``
    ``TFQ/*.json``: ``[id, statement, negated statement, statement 2, negated statement 2,
    "T", "F", "F", "T"]``. Each statement keeps its clinical stem; the wrapper ", is the
    statement above true or false? Please answer true/false." is stripped (quizbot's prompt puts
    its own). A statement and its negation must have opposite labels; they become a
    factual/counterfactual pair (transforms ``none`` and ``dn``), so pair accuracy and
    sycophancy are reported as for generated statements (relation ``tfq``).
``multifaceteval-maq``
    ``MAQ/*.json``: ``[id, question, negated question, [keys], [keys of the negated question]]``,
    options separated by new lines. Two multi-answer choice items per row (relations ``maq`` and
    ``maq-negated``), scored by exact match and by fractional credit
    (:func:`quizbot.evaluation.parse.partial_credit`).
``medqa``
    MedQA JSONL (Jin et al. 2020): one object a line, ``{"question", "options": {"A": ...},
    "answer", "answer_idx", "meta_info"}``. ``answer``, when given, must be the text of option
    ``answer_idx``. The relation is ``meta_info`` (e.g. ``step1``) when it is a short word, else
    ``medqa``.
``ebmqa``
    quizbot's documented JSONL for EBMQA-like questions (the EBMQA data are not public in a form
    quizbot could read): ``{"id"?, "question", "options": [...], "answer_keys": ["A", ...],
    "type": "numeric" | "semantic", "labels"?: {"discipline": ..., "tier": ..., ...}}``. At most
    five right options; an "I do not know" option may be among the options but is never a key.
    The relation is ``ebmqa-numeric`` or ``ebmqa-semantic``; the labels are kept in the item's
    ``meta`` (sub-label analyses).

``quizbot``
    quizbot's own item JSONL (what ``quizbot generate --out`` writes): statements and choice
    items, each checked (kind, fields, an ``id`` that matches its content) and stored under the
    set's own knowledge base; the item's original knowledge base and id are kept in its
    ``meta`` (``source_kb``, ``source_id``). Open recall items are refused (an item set holds
    statements and choice items).

The published MultifacetEval files come in three shapes per facet: ``test.json`` (the rows
above), ``dev.json`` (the few-shot examples: TFQ rows with ONE statement pair,
``[id, statement, negated statement, label, negated label]``) and ``dev_cot.json`` (the same
rows with one worked explanation per question appended, kept in the item's ``meta`` as
``explanation``). All three import. The rectification facet (``RQ/``) is not a format quizbot
asks: its rows are MCQ rows with an answer to judge.

Options that repeat a text (compared without case and extra spaces) are kept when they are keyed
alike: MultifacetEval's MAQ builds several options from one right answer, so 301 of the 795
test rows repeat a text with the same key (19 more only differ by case). Such items carry
``meta["repeated_options"]`` (the groups of letters) and the import summary counts them. The
very same text (extra spaces aside) as a right answer once and a wrong one another time
contradicts itself: that row is refused, naming both letters. Options that differ only by case
and are keyed differently are kept as distinct answers (see :func:`_repeated_options`).

Every string of a row is checked before anything else: a lone surrogate (``"\\ud800"``, not
Unicode text), a NUL byte or another control character is refused naming the file, the line and
the field; so is JSON nested deeper than :data:`quizbot.jsonl.MAX_DEPTH` or bytes that are not
UTF-8 (with the line they are on).

Rows that repeat an earlier question exactly are skipped (the first is kept) and counted.
A file with any bad row is refused whole, unless ``skip_invalid`` is asked for: then the valid
rows are imported and each bad row is listed in :attr:`BankFile.skipped` (line, field, reason),
which ``quizbot items import --skip-invalid`` writes as a CSV report. A file that is not a JSON
list at all, or whose list breaks off, is refused whole either way.
"""

from __future__ import annotations

import csv
import dataclasses
import hashlib
import io
import json
import re
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from quizbot.errors import InputError
from quizbot.generate.service import item_rows, load_items
from quizbot.items import (
    ChoiceItem,
    StatementItem,
    StatementSide,
    any_item_from_json,
    is_idk_option,
)
from quizbot.jsonl import MAX_DEPTH, depth, loads, read_text
from quizbot.transforms import Polarity, Transform
from storage import Database
from storage.item_sets import ItemSetInfo, create_item_set, get_item_set, list_item_sets

__all__ = [
    "FORMATS",
    "KB_PREFIX",
    "MAX_LICENCE",
    "MAX_NAME",
    "MAX_PROBLEMS",
    "BankFile",
    "Item",
    "Skipped",
    "check_licence",
    "check_set_name",
    "import_item_set",
    "item_set_items",
    "item_sets",
    "read_item_bank",
    "skip_report_csv",
]

Item = StatementItem | ChoiceItem
FORMATS = (
    "multifaceteval-mcq",
    "multifaceteval-tfq",
    "multifaceteval-maq",
    "medqa",
    "ebmqa",
    "quizbot",
)
KB_PREFIX = "itemset:"
MAX_NAME = 60
MAX_LICENCE = 2000
MAX_PROBLEMS = 20
MAX_OPTIONS = 10
MAX_KEYS_EBMQA = 5
MAX_TEXT = 20_000

_NAME_RE = re.compile(r"[^\W_][\w .()+-]*")
_LETTERS = "ABCDEFGHIJ"
_OPTIONS_SPLIT_RE = re.compile(r"\n\s*Options\s*:\s*", re.IGNORECASE)
_OPTION_MARK_RE = re.compile(r"(?:^|[\t\n])[ \t]*([A-J])\s*:\s*")
_QUESTION_PREFIX_RE = re.compile(r"^\s*Question\s*:\s*", re.IGNORECASE)
_TF_WRAPPER_RE = re.compile(
    r"[\s,]*is the statement above true or false\?.*\Z", re.IGNORECASE | re.DOTALL
)
_RELATION_RE = re.compile(r"[\w&.-]{1,40}")
_LABELS = {"t": True, "true": True, "f": False, "false": False}


# ---------------------------------------------------------------------------------------------
# Names and licences


def check_set_name(name: str) -> str:
    """An item set name, stripped; :class:`InputError` unless it is 1-60 letters, digits,
    spaces and ``. _ ( ) + -``, starting with a letter or digit (so no HTML, new lines or path
    parts such as ``/`` or ``..``)."""
    clean = name.strip() if isinstance(name, str) else ""
    if not clean:
        raise InputError("is empty", field="name")
    if len(clean) > MAX_NAME or not _NAME_RE.fullmatch(clean) or ".." in clean:
        raise InputError(
            f"must be 1-{MAX_NAME} letters, digits, spaces or . _ ( ) + -, starting with a "
            "letter or digit (no HTML, new lines, '/', '\\' or '..')",
            field="name",
        )
    return clean


def check_licence(text: str | None) -> str:
    """The licence text, stripped: at most 2000 characters, no control characters but new
    lines and tabs. Shown escaped wherever it is shown."""
    clean = (text or "").strip()
    if len(clean) > MAX_LICENCE:
        raise InputError(f"is longer than {MAX_LICENCE} characters", field="licence")
    if any(ord(c) < 32 and c not in "\n\t" for c in clean):
        raise InputError("holds control characters", field="licence")
    if any("\ud800" <= c <= "\udfff" for c in clean):
        raise InputError("holds a lone surrogate: not Unicode text", field="licence")
    return clean


# ---------------------------------------------------------------------------------------------
# Reading


@dataclass(frozen=True)
class Skipped:
    """A row left out by ``skip_invalid``: where it is and why."""

    line: int | None
    field: str | None
    reason: str


@dataclass
class _Problems:
    path: str
    found: list[InputError] = field(default_factory=list)
    rows: list[Skipped] = field(default_factory=list)
    fatal: bool = False  # the file itself is broken: nothing can be imported

    def add(self, line: int | None, where: str | None, message: str, *, row: bool = True) -> None:
        self.found.append(InputError(message, path=self.path, line=line, field=where))
        if row:
            self.rows.append(Skipped(line, where, message))
        else:
            self.fatal = True

    def raise_if_any(self, *, skip_invalid: bool = False) -> None:
        if not self.found or (skip_invalid and not self.fatal):
            return
        shown = self.found[:MAX_PROBLEMS]
        more = len(self.found) - len(shown)
        retry = "" if self.fatal else " (or import the valid rows with --skip-invalid)"
        if len(self.found) == 1:
            first = self.found[0]
            raise InputError(
                first.message.split(": ", 1)[1] if ": " in first.message else first.message,
                path=first.path,
                line=first.line,
                field=first.field,
                hint=f"nothing was imported; fix the file and import it again{retry}",
            )
        lines = "\n  ".join(e.message for e in shown)
        tail = f"\n  ... and {more} more" if more else ""
        raise InputError(
            f"{len(self.found)} problems, nothing imported:\n  {lines}{tail}",
            hint=f"fix the file and import it again{retry}",
        )


class _RowError(Exception):
    """One row's problem: the field and what is wrong (collected, never shown as is)."""

    def __init__(self, where: str | None, message: str) -> None:
        super().__init__(message)
        self.where = where
        self.message = message


@dataclass(frozen=True)
class BankFile:
    """A validated item bank: its items in file order, each with its line."""

    format: str
    items: tuple[Item, ...]
    lines: tuple[int, ...]
    duplicates: tuple[int, ...]  # lines skipped as exact repeats
    digest: str  # sha256 of the file, first 12 hex digits (the items' kb_version)
    skipped: tuple[Skipped, ...] = ()  # bad rows left out (only with skip_invalid)

    @property
    def repeated_options(self) -> int:
        """How many items repeat an option text (keyed alike, so kept)."""
        return sum(
            1
            for item in self.items
            if isinstance(item, ChoiceItem) and item.meta.get("repeated_options")
        )


def _json_rows(text: str, problems: _Problems) -> Iterator[tuple[int, Any]]:
    """(line, value) of each element of a top-level JSON list, with real line numbers."""
    decoder = json.JSONDecoder()
    pos = 0
    ws = re.compile(r"[\s,]*")
    pos = ws.match(text, pos).end()  # type: ignore[union-attr]
    if not text.startswith("[", pos):
        problems.add(
            1, None, "must be a JSON list of rows (MultifacetEval's release format)", row=False
        )
        return
    pos += 1
    while True:
        pos = ws.match(text, pos).end()  # type: ignore[union-attr]
        if pos >= len(text):
            problems.add(
                text.count("\n", 0, pos) + 1, None, "the list is not closed (']')", row=False
            )
            return
        if text[pos] == "]":
            return
        line = text.count("\n", 0, pos) + 1
        try:
            value, end = decoder.raw_decode(text, pos)
        except json.JSONDecodeError as exc:
            problems.add(exc.lineno, None, f"not valid JSON ({exc.msg})", row=False)
            return
        except RecursionError:
            problems.add(line, None, f"JSON nested more than {MAX_DEPTH} levels deep", row=False)
            return
        pos = end
        if depth(value) > MAX_DEPTH - 1:  # the row is inside the file's list
            problems.add(line, None, f"JSON nested more than {MAX_DEPTH} levels deep")
            continue
        yield line, value


def _jsonl_rows(text: str, problems: _Problems) -> Iterator[tuple[int, Any]]:
    for number, raw in enumerate(text.splitlines(), start=1):
        if not raw.strip():
            continue
        try:
            record = loads(raw)
        except InputError as exc:
            problems.add(number, None, exc.message)
            continue
        if not isinstance(record, dict):
            problems.add(number, None, "each line must be a JSON object")
            continue
        yield number, record


def _text(value: Any, where: str) -> str:
    if not isinstance(value, str) or not value.strip():
        raise _RowError(where, "must be a non-empty string")
    if len(value) > MAX_TEXT:
        raise _RowError(where, f"is longer than {MAX_TEXT} characters")
    return value.strip()


def _source_id(value: Any, where: str) -> str:
    if isinstance(value, bool) or not isinstance(value, int | str) or not str(value).strip():
        raise _RowError(where, "must be a number or a non-empty string")
    if len(str(value)) > 100:
        raise _RowError(where, "is longer than 100 characters")
    return str(value).strip()


def _clean_option(text: str) -> str:
    """An option's text: spaces trimmed, and a stray unmatched quote left by the release's
    text extraction (``... pressure\\n"``) dropped."""
    text = text.strip()
    if text.endswith('"') and text.count('"') % 2 == 1:
        text = text[:-1].rstrip()
    return text


def _split_question(value: Any, where: str) -> tuple[str, tuple[str, ...]]:
    """``"Question: ...\\nOptions: A: ...\\tB: ..."`` -> (question, options A, B, ...)."""
    text = _text(value, where)
    parts = _OPTIONS_SPLIT_RE.split(text)
    if len(parts) < 2:
        raise _RowError(where, "has no 'Options:' part")
    stem = _QUESTION_PREFIX_RE.sub("", "\n".join(parts[:-1])).strip()
    if not stem:
        raise _RowError(where, "has an empty question")
    marks = list(_OPTION_MARK_RE.finditer(parts[-1]))
    letters = "".join(m.group(1) for m in marks)
    if len(marks) < 2 or letters != _LETTERS[: len(marks)] or marks[0].start() != 0:
        raise _RowError(where, f"options must be 'A: ...', 'B: ...' in order (found {letters!r})")
    options: list[str] = []
    for i, mark in enumerate(marks):
        end = marks[i + 1].start() if i + 1 < len(marks) else len(parts[-1])
        option = _clean_option(parts[-1][mark.end() : end])
        if not option:
            raise _RowError(where, f"option {mark.group(1)} is empty")
        options.append(option)
    return stem, tuple(options)


def _keys(value: Any, n_options: int, where: str, *, many: bool) -> tuple[str, ...]:
    raw = value if isinstance(value, list) else [value] if not many else None
    if raw is None or not raw:
        raise _RowError(where, "must be a non-empty list of option letters")
    keys: list[str] = []
    for key in raw:
        if not isinstance(key, str) or key.strip().upper() not in _LETTERS[:n_options]:
            raise _RowError(where, f"{key!r} is not one of the letters A-{_LETTERS[n_options - 1]}")
        keys.append(key.strip().upper())
    if len(set(keys)) != len(keys):
        raise _RowError(where, "names a letter twice")
    return tuple(sorted(keys))


@dataclass(frozen=True)
class _Context:
    kb: str
    version: str
    fmt: str


def _choice(
    ctx: _Context,
    relation: str,
    head: str,
    question: str,
    options: Sequence[str],
    keys: Sequence[str],
    meta: dict[str, Any],
    where: str,
) -> ChoiceItem:
    if len(options) > MAX_OPTIONS:
        raise _RowError(where, f"has more than {MAX_OPTIONS} options")
    repeats = _repeated_options(options, keys, where)
    if repeats:
        meta = {**meta, "repeated_options": repeats}
    if any(is_idk_option(options[_LETTERS.index(k)]) for k in keys):
        raise _RowError(where, "an 'I do not know' option cannot be a right answer")
    return ChoiceItem(
        kb=ctx.kb,
        kb_version=ctx.version,
        relation=relation,
        head=head,
        question=question,
        options=tuple(options),
        answer_keys=tuple(keys),
        subtype="semantic",
        knowledge_point_ids=(),
        meta={"format": ctx.fmt, **meta},
    )


def _repeated_options(options: Sequence[str], keys: Sequence[str], where: str) -> list[list[str]]:
    """The groups of letters whose options say the same (without case and extra spaces) and are
    keyed alike; :class:`_RowError` naming the letters when the very same text (extra spaces
    aside) is a key once and not another time.

    Options that differ only by case and are keyed differently are kept: case can carry the
    meaning (Rh genotypes ``cCdee``, ``ccDee``, ``cCDEe``: MedQA Mainland ``dev.jsonl`` line 427).
    """
    exact: dict[str, list[str]] = {}
    folded: dict[str, list[str]] = {}
    for letter, option in zip(_LETTERS, options, strict=False):
        spaced = " ".join(option.split())
        exact.setdefault(spaced, []).append(letter)
        folded.setdefault(spaced.casefold(), []).append(letter)
    for letters in exact.values():
        right = [letter for letter in letters if letter in keys]
        if right and len(right) != len(letters):
            wrong = [letter for letter in letters if letter not in keys]
            text = options[_LETTERS.index(letters[0])]
            raise _RowError(
                where,
                f"options {' and '.join(letters)} say the same ({_quote(text)}) but "
                f"{', '.join(right)} {'is' if len(right) == 1 else 'are'} a right answer and "
                f"{', '.join(wrong)} {'is' if len(wrong) == 1 else 'are'} not",
            )
    return [
        letters
        for letters in folded.values()
        if len(letters) > 1 and len({letter in keys for letter in letters}) == 1
    ]


def _quote(text: str, limit: int = 60) -> str:
    flat = " ".join(text.split())
    return repr(flat if len(flat) <= limit else flat[: limit - 3] + "...")


def _row(value: Any, sizes: Sequence[int], names: Sequence[str]) -> list[Any]:
    """``value`` as a row of one of the ``sizes`` (the first names the full row's fields)."""
    if not isinstance(value, list) or len(value) not in sizes:
        shown = " or ".join(str(n) for n in sizes)
        raise _RowError(None, f"must be a list of {shown} values: {', '.join(names)}")
    return value


def _explanations(row: Sequence[Any], start: int, where: Sequence[str]) -> dict[str, Any]:
    """The worked explanations a ``dev_cot.json`` row carries after its fields (meta)."""
    found = [_text(row[i], where[i - start]) for i in range(start, len(row))]
    if not found:
        return {}
    return {"explanation": found[0]} if len(found) == 1 else {"explanations": found}


def _mcq(ctx: _Context, value: Any) -> list[Item]:
    row = _row(value, (3, 4), ("id", "question with options", "answer letter", "explanation"))
    source = _source_id(row[0], "[0] id")
    question, options = _split_question(row[1], "[1] question")
    keys = _keys(row[2], len(options), "[2] answer", many=False)
    meta = {"source_id": source, **_explanations(row, 3, ["[3] explanation"])}
    return [_choice(ctx, "mcq", source, question, options, keys, meta, "[1] question")]


def _maq(ctx: _Context, value: Any) -> list[Item]:
    names = ("id", "question", "negated question", "keys", "negated keys",
             "explanation", "negated explanation")  # fmt: skip
    row = _row(value, (5, 7), names)
    source = _source_id(row[0], "[0] id")
    explained = len(row) == 7
    items: list[Item] = []
    for index, relation, negated in ((1, "maq", False), (2, "maq-negated", True)):
        where = f"[{index}] {'negated question' if negated else 'question'}"
        question, options = _split_question(row[index], where)
        keys = _keys(row[index + 2], len(options), f"[{index + 2}] keys", many=True)
        head = f"{source}/negated" if negated else source
        meta: dict[str, Any] = {"source_id": source, "negated": negated, "multi_answer": True}
        if explained:
            meta["explanation"] = _text(row[index + 4], f"[{index + 4}] {names[index + 4]}")
        items.append(_choice(ctx, relation, head, question, options, keys, meta, where))
    return items


def _statement_text(value: Any, where: str) -> str:
    text = _TF_WRAPPER_RE.sub("", _text(value, where)).strip()
    if not text:
        raise _RowError(where, "is only the true/false wrapper")
    return text


def _label(value: Any, where: str) -> bool:
    if isinstance(value, bool):
        return value
    if not isinstance(value, str) or value.strip().lower() not in _LABELS:
        raise _RowError(where, f"must be 'T' or 'F', not {value!r}")
    return _LABELS[value.strip().lower()]


def _tfq(ctx: _Context, value: Any) -> list[Item]:
    names = ("id", "statement", "negated statement", "statement 2", "negated statement 2",
             "label", "negated label", "label 2", "negated label 2")  # fmt: skip
    # test.json: two pairs (9 values); dev.json: one pair (5); dev_cot.json: one pair and the
    # two explanations (7).
    row = _row(value, (9, 5, 7), names)
    source = _source_id(row[0], "[0] id")
    pairs = 2 if len(row) == 9 else 1
    field_names = names if pairs == 2 else (
        "id", "statement", "negated statement", "label", "negated label",
        "explanation", "negated explanation",
    )  # fmt: skip
    extra = _explanations(row, 5, field_names[5:]) if len(row) == 7 else {}
    items: list[Item] = []
    for pair in range(pairs):
        said, negated = 1 + 2 * pair, 2 + 2 * pair
        gap = 2 * pairs  # from a statement to its label
        label = _label(row[said + gap], f"[{said + gap}] {field_names[said + gap]}")
        negated_label = _label(
            row[negated + gap], f"[{negated + gap}] {field_names[negated + gap]}"
        )
        if label == negated_label:
            raise _RowError(
                f"[{negated + gap}] {field_names[negated + gap]}",
                "a statement and its negation must have opposite labels",
            )
        side = StatementSide(
            kb=ctx.kb,
            kb_version=ctx.version,
            relation="tfq",
            head=source,
            tail=f"statement {pair + 1}",
            polarity=Polarity.POSITIVE if label else Polarity.NEGATIVE,
            prototype_set="",
            meta={"format": ctx.fmt, "source_id": source, **extra},
        )
        for index, transform, truth in ((said, Transform.NONE, label),
                                        (negated, Transform.DN, negated_label)):  # fmt: skip
            text = _statement_text(row[index], f"[{index}] {field_names[index]}")
            items.append(StatementItem(side, transform, truth, text, ""))
    return items


def _medqa(ctx: _Context, value: Any) -> list[Item]:
    record: dict[str, Any] = value
    question = _text(record.get("question"), "question")
    raw = record.get("options")
    if not isinstance(raw, dict) or len(raw) < 2:
        raise _RowError("options", 'must be an object of two or more options, {"A": ..., "B": ...}')
    letters = "".join(sorted(str(k).strip().upper() for k in raw))
    if letters != _LETTERS[: len(raw)]:
        raise _RowError("options", f"keys must be A, B, C ... in order (found {letters!r})")
    by_letter = {str(k).strip().upper(): v for k, v in raw.items()}
    options = tuple(_text(by_letter[letter], f"options.{letter}") for letter in letters)
    keys = _keys(record.get("answer_idx"), len(options), "answer_idx", many=False)
    answer = record.get("answer")
    if answer is not None and _text(answer, "answer") != options[_LETTERS.index(keys[0])]:
        raise _RowError("answer", f"is not the text of option {keys[0]} (answer_idx)")
    meta_info = record.get("meta_info")
    short = isinstance(meta_info, str) and _RELATION_RE.fullmatch(meta_info) is not None
    relation = str(meta_info) if short else "medqa"
    head = _source_id(record["id"], "id") if "id" in record else ""
    meta = {"meta_info": meta_info} if isinstance(meta_info, str) else {}
    return [_choice(ctx, relation, head, question, options, keys, meta, "options")]


def _ebmqa(ctx: _Context, value: Any) -> list[Item]:
    record: dict[str, Any] = value
    question = _text(record.get("question"), "question")
    raw = record.get("options")
    if not isinstance(raw, list) or len(raw) < 2:
        raise _RowError("options", "must be a list of two or more option texts")
    options = tuple(_text(o, f"options[{i}]") for i, o in enumerate(raw))
    keys = _keys(record.get("answer_keys"), len(options), "answer_keys", many=True)
    if len(keys) > MAX_KEYS_EBMQA:
        raise _RowError("answer_keys", f"more than {MAX_KEYS_EBMQA} right options")
    kind = record.get("type")
    if kind not in ("numeric", "semantic"):
        raise _RowError("type", "must be 'numeric' or 'semantic'")
    labels = record.get("labels", {})
    if not isinstance(labels, dict) or not all(
        isinstance(k, str) and isinstance(v, str | int | float | bool) for k, v in labels.items()
    ):
        raise _RowError("labels", "must be an object of names to plain values")
    head = _source_id(record["id"], "id") if "id" in record else ""
    meta = {
        "type": kind,
        "labels": labels,
        "multi_answer": kind == "semantic",
        **({"source_id": head} if head else {}),
    }
    return [_choice(ctx, f"ebmqa-{kind}", head, question, options, keys, meta, "options")]


_QUIZBOT_FIELDS = {
    "statement": ("kb", "kb_version", "relation", "head", "tail", "polarity", "prototype_set",
                  "transform", "label", "text", "prototype"),
    "choice": ("kb", "kb_version", "relation", "head", "question", "options", "answer_keys",
               "subtype", "knowledge_point_ids"),
}  # fmt: skip


_QUIZBOT_WIDTHS = {"relation": 100, "head": 500, "tail": 500, "rephrase_model": 200}


def _quizbot(ctx: _Context, value: Any) -> list[Item]:
    """One item of quizbot's own JSONL, checked, moved under the set's knowledge base."""
    record: dict[str, Any] = value
    kind = record.get("kind")
    if kind == "recall":
        raise _RowError(
            "kind", "open recall items cannot be an item set (use `quizbot eval --items FILE`)"
        )
    if kind not in _QUIZBOT_FIELDS:
        raise _RowError("kind", "must be 'statement' or 'choice'")
    for key in _QUIZBOT_FIELDS[kind]:
        if key not in record:
            raise _RowError(key, "is missing")
    for key in ("kb", "relation", "head", "text" if kind == "statement" else "question"):
        _text(record[key], key)
    for key, most in _QUIZBOT_WIDTHS.items():  # the widths of the item table's columns
        if isinstance(record.get(key), str) and len(record[key]) > most:
            raise _RowError(key, f"is longer than {most} characters")
    if not isinstance(record.get("meta", {}), dict):
        raise _RowError("meta", "must be an object")
    try:
        item = any_item_from_json(record)
    except (KeyError, ValueError, TypeError) as exc:
        where = str(exc.args[0]) if isinstance(exc, KeyError) else None
        raise _RowError(where, f"not an item ({exc})") from None
    if "id" in record and record["id"] != item.id:
        raise _RowError("id", "does not match the item's content (edited after it was written?)")
    if isinstance(item, ChoiceItem):
        keys = item.answer_keys
        _repeated_options(item.options, keys, "options")
        meta = {**item.meta, "source_kb": item.kb, "source_id": item.id}
        return [dataclasses.replace(item, kb=ctx.kb, meta=meta)]
    if not isinstance(item, StatementItem):  # pragma: no cover - recall refused above
        raise _RowError("kind", "must be 'statement' or 'choice'")
    side = item.side
    meta = {**side.meta, "source_kb": side.kb, "source_id": item.id}
    moved = side._replace(kb=ctx.kb, meta=meta)
    return [StatementItem(moved, item.transform, item.label, item.text, item.prototype,
                          item.rephrase_model)]  # fmt: skip


def _strings(value: Any, where: str) -> Iterator[tuple[str, str]]:
    """(field, text) of every string in a row, object keys included, walked without recursion."""
    stack: list[tuple[Any, str]] = [(value, where)]
    while stack:
        node, at = stack.pop()
        if isinstance(node, str):
            yield at, node
        elif isinstance(node, dict):
            for key, child in node.items():
                name = f"{at}.{key}" if at else str(key)
                yield name, str(key)
                stack.append((child, name))
        elif isinstance(node, list):
            stack.extend((child, f"{at}[{i}]") for i, child in enumerate(node))


# Characters a published bank's text may not hold: C0/C1 control characters but tab, new line
# and carriage return (NUL among them: PostgreSQL cannot store it), and the bidirectional
# overrides and isolates that make text display in another order than it reads ("Trojan
# source"). Other format characters (a zero-width space) and private-use characters are kept:
# MedQA's Taiwan files hold both (U+200B; U+E2C6 and others for glyphs the source lacked).
_FORBIDDEN = re.compile("[\x00-\x08\x0b\x0c\x0e-\x1f\x7f-\x9f\u202a-\u202e\u2066-\u2069]")
_SURROGATE = re.compile("[\ud800-\udfff]")


def _check_strings(value: Any) -> None:
    """:class:`_RowError` for the first string of a row that cannot be stored or shown safely: a
    lone surrogate (JSON's ``"\\ud800"`` is not Unicode text), a NUL byte or another control
    character, or a bidirectional override (:data:`_FORBIDDEN`)."""
    for at, text in _strings(value, ""):
        if bad := _SURROGATE.search(text):
            raise _RowError(
                at or None,
                f"holds a lone surrogate (\\u{ord(bad.group()):04x}), which is not Unicode text",
            )
        if bad := _FORBIDDEN.search(text):
            char = bad.group()
            what = "a NUL byte" if char == "\x00" else f"the control character U+{ord(char):04X}"
            raise _RowError(at or None, f"contains {what}")


_READERS: dict[str, tuple[bool, Callable[[_Context, Any], list[Item]]]] = {
    # format: (JSON list of rows?, row reader)
    "multifaceteval-mcq": (True, _mcq),
    "multifaceteval-tfq": (True, _tfq),
    "multifaceteval-maq": (True, _maq),
    "medqa": (False, _medqa),
    "ebmqa": (False, _ebmqa),
    "quizbot": (False, _quizbot),
}


def read_item_bank(path: Path, fmt: str, *, set_name: str, skip_invalid: bool = False) -> BankFile:
    """Every item of the file, validated whole; :class:`InputError` listing every problem
    (file, line, field) and nothing else done when there is any. With ``skip_invalid`` the bad
    rows are left out and listed in :attr:`BankFile.skipped` instead (a file that is not a list
    of rows at all is still refused)."""
    if fmt not in _READERS:
        raise InputError(f"unknown format {fmt!r}", field="format", hint=", ".join(FORMATS))
    label = str(path)
    text = read_text(path)
    digest = hashlib.sha256(text.encode("utf-8")).hexdigest()[:12]
    ctx = _Context(KB_PREFIX + set_name, digest, fmt)
    problems = _Problems(label)
    is_list, reader = _READERS[fmt]
    rows = _json_rows(text, problems) if is_list else _jsonl_rows(text, problems)
    items: list[Item] = []
    lines: list[int] = []
    seen: set[str] = set()
    duplicates: list[int] = []
    for line, value in rows:
        try:
            _check_strings(value)
            made = reader(ctx, value)
        except _RowError as bad:
            problems.add(line, bad.where, bad.message)
            continue
        if all(item.id in seen for item in made):
            duplicates.append(line)
            continue
        for item in made:
            if item.id not in seen:
                seen.add(item.id)
                items.append(item)
                lines.append(line)
    problems.raise_if_any(skip_invalid=skip_invalid)
    if not items:
        hint = f"{len(problems.rows)} bad row(s) left out" if problems.rows else None
        raise InputError("no items", path=label, hint=hint)
    return BankFile(
        fmt, tuple(items), tuple(lines), tuple(duplicates), digest, tuple(problems.rows)
    )


def skip_report_csv(path: Path, bank: BankFile) -> str:
    """The rows ``skip_invalid`` left out, as CSV text: file, line, field, reason."""
    out = io.StringIO()
    writer = csv.writer(out, lineterminator="\n")
    writer.writerow(["file", "line", "field", "reason"])
    for row in bank.skipped:
        writer.writerow([str(path), row.line or "", row.field or "", row.reason])
    return out.getvalue()


# ---------------------------------------------------------------------------------------------
# Storing and reading back


def import_item_set(
    db: Database,
    path: Path,
    fmt: str,
    name: str,
    licence: str | None = None,
    *,
    skip_invalid: bool = False,
) -> tuple[ItemSetInfo, BankFile]:
    """Read and validate ``path`` whole, then store its items as item set ``name`` (one
    transaction). Raises :class:`InputError` (bad name, licence or file) or
    :class:`~quizbot.errors.DuplicateError` (the name is taken) and then stores nothing.
    ``skip_invalid`` stores the valid rows and returns the others in ``bank.skipped``."""
    clean = check_set_name(name)
    text = check_licence(licence)
    bank = read_item_bank(path, fmt, set_name=clean, skip_invalid=skip_invalid)
    # A file name that was not UTF-8 on disk reaches Python with surrogates: store it readable.
    source = path.name.encode("utf-8", "replace").decode("utf-8")[:255]
    info = create_item_set(
        db,
        name=clean,
        format=fmt,
        licence=text,
        source_file=source,
        kb_name=KB_PREFIX + clean,
        kb_version=bank.digest,
        items=item_rows(bank.items),
        meta={
            "sha256_12": bank.digest,
            "duplicates_skipped": len(bank.duplicates),
            "invalid_rows_skipped": len(bank.skipped),
            "repeated_options": bank.repeated_options,
        },
    )
    return info, bank


def item_sets(db: Database) -> list[ItemSetInfo]:
    """Every imported item set, by name."""
    return list_item_sets(db)


def item_set_items(db: Database, name: str) -> tuple[ItemSetInfo, list[Item]]:
    """Item set ``name`` and its items in order; :class:`~quizbot.errors.NotFoundError`."""
    info = get_item_set(db, name.strip())
    return info, load_items(db, list(info.item_ids))
