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

Rows that repeat an earlier question exactly are skipped (the first is kept) and counted.
"""

from __future__ import annotations

import hashlib
import json
import re
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from quizbot.errors import InputError
from quizbot.generate.service import item_rows, load_items
from quizbot.generate.transforms import Polarity, Transform
from quizbot.items import ChoiceItem, StatementItem, StatementSide, is_idk_option
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
    "check_licence",
    "check_set_name",
    "import_item_set",
    "item_set_items",
    "item_sets",
    "read_item_bank",
]

Item = StatementItem | ChoiceItem
FORMATS = ("multifaceteval-mcq", "multifaceteval-tfq", "multifaceteval-maq", "medqa", "ebmqa")
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
    return clean


# ---------------------------------------------------------------------------------------------
# Reading


@dataclass
class _Problems:
    path: str
    found: list[InputError] = field(default_factory=list)

    def add(self, line: int | None, where: str | None, message: str) -> None:
        self.found.append(InputError(message, path=self.path, line=line, field=where))

    def raise_if_any(self) -> None:
        if not self.found:
            return
        shown = self.found[:MAX_PROBLEMS]
        more = len(self.found) - len(shown)
        if len(self.found) == 1:
            first = self.found[0]
            raise InputError(
                first.message.split(": ", 1)[1] if ": " in first.message else first.message,
                path=first.path,
                line=first.line,
                field=first.field,
                hint="nothing was imported; fix the file and import it again",
            )
        lines = "\n  ".join(e.message for e in shown)
        tail = f"\n  ... and {more} more" if more else ""
        raise InputError(
            f"{len(self.found)} problems, nothing imported:\n  {lines}{tail}",
            hint="fix the file and import it again",
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


def _json_rows(text: str, problems: _Problems) -> Iterator[tuple[int, Any]]:
    """(line, value) of each element of a top-level JSON list, with real line numbers."""
    decoder = json.JSONDecoder()
    pos = 0
    ws = re.compile(r"[\s,]*")
    pos = ws.match(text, pos).end()  # type: ignore[union-attr]
    if not text.startswith("[", pos):
        problems.add(1, None, "must be a JSON list of rows (MultifacetEval's release format)")
        return
    pos += 1
    while True:
        pos = ws.match(text, pos).end()  # type: ignore[union-attr]
        if pos >= len(text):
            problems.add(text.count("\n", 0, pos) + 1, None, "the list is not closed (']')")
            return
        if text[pos] == "]":
            return
        line = text.count("\n", 0, pos) + 1
        try:
            value, end = decoder.raw_decode(text, pos)
        except json.JSONDecodeError as exc:
            problems.add(exc.lineno, None, f"not valid JSON ({exc.msg})")
            return
        yield line, value
        pos = end


def _jsonl_rows(text: str, problems: _Problems) -> Iterator[tuple[int, Any]]:
    for number, raw in enumerate(text.splitlines(), start=1):
        if not raw.strip():
            continue
        try:
            record = json.loads(raw)
        except json.JSONDecodeError as exc:
            problems.add(number, None, f"not valid JSON ({exc.msg})")
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
    if len({o.casefold() for o in options}) != len(options):
        raise _RowError(where, "has the same option twice")
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


def _row(value: Any, size: int, names: Sequence[str]) -> list[Any]:
    if not isinstance(value, list) or len(value) != size:
        raise _RowError(None, f"must be a list of {size} values: {', '.join(names)}")
    return value


def _mcq(ctx: _Context, value: Any) -> list[Item]:
    row = _row(value, 3, ("id", "question with options", "answer letter"))
    source = _source_id(row[0], "[0] id")
    question, options = _split_question(row[1], "[1] question")
    keys = _keys(row[2], len(options), "[2] answer", many=False)
    return [_choice(ctx, "mcq", source, question, options, keys, {"source_id": source}, "[1]")]


def _maq(ctx: _Context, value: Any) -> list[Item]:
    row = _row(value, 5, ("id", "question", "negated question", "keys", "negated keys"))
    source = _source_id(row[0], "[0] id")
    items: list[Item] = []
    for index, relation, negated in ((1, "maq", False), (2, "maq-negated", True)):
        where = f"[{index}] {'negated question' if negated else 'question'}"
        question, options = _split_question(row[index], where)
        keys = _keys(row[index + 2], len(options), f"[{index + 2}] keys", many=True)
        head = f"{source}/negated" if negated else source
        meta = {"source_id": source, "negated": negated, "multi_answer": True}
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
    row = _row(value, 9, names)
    source = _source_id(row[0], "[0] id")
    items: list[Item] = []
    for pair in (0, 1):
        said, negated = 1 + 2 * pair, 2 + 2 * pair
        label = _label(row[said + 4], f"[{said + 4}] {names[said + 4]}")
        negated_label = _label(row[negated + 4], f"[{negated + 4}] {names[negated + 4]}")
        if label == negated_label:
            raise _RowError(
                f"[{negated + 4}] {names[negated + 4]}",
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
            meta={"format": ctx.fmt, "source_id": source},
        )
        for index, transform, truth in ((said, Transform.NONE, label),
                                        (negated, Transform.DN, negated_label)):  # fmt: skip
            text = _statement_text(row[index], f"[{index}] {names[index]}")
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


_READERS: dict[str, tuple[bool, Callable[[_Context, Any], list[Item]]]] = {
    # format: (JSON list of rows?, row reader)
    "multifaceteval-mcq": (True, _mcq),
    "multifaceteval-tfq": (True, _tfq),
    "multifaceteval-maq": (True, _maq),
    "medqa": (False, _medqa),
    "ebmqa": (False, _ebmqa),
}


def read_item_bank(path: Path, fmt: str, *, set_name: str) -> BankFile:
    """Every item of the file, validated whole; :class:`InputError` listing every problem
    (file, line, field) and nothing else done when there is any."""
    if fmt not in _READERS:
        raise InputError(f"unknown format {fmt!r}", field="format", hint=", ".join(FORMATS))
    label = str(path)
    try:
        data = path.read_bytes()
        text = data.decode("utf-8-sig")
    except OSError as exc:
        raise InputError(f"cannot read ({exc.strerror})", path=label) from None
    except UnicodeDecodeError:
        raise InputError("is not UTF-8 text", path=label) from None
    digest = hashlib.sha256(data).hexdigest()[:12]
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
    problems.raise_if_any()
    if not items:
        raise InputError("no items", path=label)
    return BankFile(fmt, tuple(items), tuple(lines), tuple(duplicates), digest)


# ---------------------------------------------------------------------------------------------
# Storing and reading back


def import_item_set(
    db: Database, path: Path, fmt: str, name: str, licence: str | None = None
) -> tuple[ItemSetInfo, BankFile]:
    """Read and validate ``path`` whole, then store its items as item set ``name`` (one
    transaction). Raises :class:`InputError` (bad name, licence or file) or
    :class:`~quizbot.errors.DuplicateError` (the name is taken) and then stores nothing."""
    clean = check_set_name(name)
    text = check_licence(licence)
    bank = read_item_bank(path, fmt, set_name=clean)
    info = create_item_set(
        db,
        name=clean,
        format=fmt,
        licence=text,
        source_file=path.name[:255],
        kb_name=KB_PREFIX + clean,
        kb_version=bank.digest,
        items=item_rows(bank.items),
        meta={"sha256_12": bank.digest, "duplicates_skipped": len(bank.duplicates)},
    )
    return info, bank


def item_sets(db: Database) -> list[ItemSetInfo]:
    """Every imported item set, by name."""
    return list_item_sets(db)


def item_set_items(db: Database, name: str) -> tuple[ItemSetInfo, list[Item]]:
    """Item set ``name`` and its items in order; :class:`~quizbot.errors.NotFoundError`."""
    info = get_item_set(db, name.strip())
    return info, load_items(db, list(info.item_ids))
