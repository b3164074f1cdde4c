"""A clinician's review file: a KB's negatives and distractors out as CSV, the verdicts back in.

``quizbot kb review KB --out FILE.csv`` writes one row per generated negative (the tail
:class:`~quizbot.generate.negatives.NegativeSampler` puts in place of a fact's true tail) and per
multiple-choice distractor (:func:`~quizbot.generate.choice.choice_questions`), with the seed,
points and relations ``quizbot generate`` would use. A clinician fills the ``verdict`` column:

``false``
    the candidate is false, as intended: stored as a ``reviewed_false`` override, so it is
    among the candidates offered first (a reviewed negative or distractor is the safest);
left empty
    not reviewed: nothing changes;
``true``
    the candidate is actually true: stored as a ``true_not_negative`` override of (head,
    relation, tail), so it is never again a negative or a distractor;
``wrong-fact``
    the true fact listed next to it (head, relation, true_tail) is wrong: stored as a
    ``false_remove`` override, so the fact is no longer asked.

``quizbot kb review KB --import FILE.csv`` reads the file whole first (:func:`read_review`): any
bad row (an unknown verdict, another KB, a missing field...) is reported with file, line and field
and nothing is stored. Importing the same file again stores nothing new.
"""

from __future__ import annotations

import csv
import os
from collections.abc import Sequence
from dataclasses import astuple, dataclass, replace
from pathlib import Path

from quizbot.domain import OverrideKind
from quizbot.errors import InputError
from quizbot.generate.choice import choice_questions
from quizbot.generate.negatives import NegativeSampler
from quizbot.generate.points import candidate_points, stratified
from quizbot.kb.model import KnowledgeBaseData
from storage import Database
from storage.review import NewOverride, add_overrides

__all__ = [
    "COLUMNS",
    "SOURCE",
    "VERDICTS",
    "ImportSummary",
    "ReviewRow",
    "import_review",
    "read_review",
    "review_rows",
    "write_review",
]

COLUMNS = ("kb", "kind", "head", "relation", "tail", "true_tail", "question", "verdict", "note")
VERDICTS = ("false", "true", "wrong-fact")
KINDS = ("negative", "distractor")
SOURCE = "review-csv"
_MAX_TEXT = 500  # head, relation, tail: as the knowledge_point columns
_MAX_NOTE = 10_000
_MAX_PROBLEMS_SHOWN = 20


@dataclass(frozen=True)
class ReviewRow:
    """One row of the review file (the CSV columns, in order)."""

    kb: str
    kind: str  # "negative" or "distractor"
    head: str
    relation: str
    tail: str  # the candidate false tail
    true_tail: str  # negatives: the true tail it replaced; "" for distractors
    question: str  # distractors: the question offering it; "" for negatives
    verdict: str = ""
    note: str = ""


def review_rows(
    kb: KnowledgeBaseData,
    *,
    seed: int | str = "0",
    points: int | None = None,
    relations: Sequence[str] | None = None,
) -> list[ReviewRow]:
    """Every negative, then every distractor, of ``kb``'s points (as ``quizbot generate``
    selects them: all of them, or ``points`` drawn with ``seed``), negatives drawn with ``seed``."""
    if relations:
        unknown = sorted(set(relations) - set(kb.relations))
        if unknown:
            raise InputError(
                f"knowledge base {kb.name!r} has no relation {unknown[0]!r}",
                hint=f"its relations: {', '.join(sorted(kb.relations))}",
            )
    facts = candidate_points(kb, relations or None)
    if points is not None:
        facts = stratified(kb.name, facts, f"seed\x1f{seed}", limit=points)
    sampler = NegativeSampler(kb, seed)
    rows: list[ReviewRow] = []
    for fact in facts:
        negative = sampler.negative(fact)
        if negative is not None:
            rows.append(
                ReviewRow(kb.name, "negative", fact.head, fact.relation, negative, fact.tail, "")
            )
    for question in choice_questions(kb, facts, seed=seed, subtypes=("semantic",)):
        for distractor in question.meta.get("distractors", ()):
            rows.append(
                ReviewRow(
                    kb.name,
                    "distractor",
                    question.head,
                    question.relation,
                    str(distractor),
                    "",
                    question.question,
                )
            )
    return rows


def write_review(rows: Sequence[ReviewRow], out: Path) -> None:
    """Write ``rows`` as CSV with a header (atomically: a failed write leaves no partial file)."""
    tmp = out.with_name(f".{out.name}.{os.getpid()}.tmp")
    try:
        with tmp.open("w", encoding="utf-8", newline="") as handle:
            writer = csv.writer(handle)
            writer.writerow(COLUMNS)
            writer.writerows(astuple(r) for r in rows)
        tmp.replace(out)
    except OSError as exc:
        tmp.unlink(missing_ok=True)
        raise InputError(f"cannot write ({exc.strerror})", path=str(out)) from None


def _problem(path: Path, line: int, field: str | None, message: str) -> str:
    return str(InputError(message, path=str(path), line=line, field=field))


def read_review(path: Path, kb: KnowledgeBaseData) -> list[ReviewRow]:
    """The rows of a marked review file for ``kb``, checked whole.

    Raises one :class:`InputError` naming file, line and field of every problem found (up to
    20 shown): an unreadable file, a missing column, a row of another KB, an unknown kind,
    relation or verdict, an empty or over-long field, a NUL byte, or a ``wrong-fact`` verdict
    without the true tail it is about.
    """
    try:
        text = path.read_text(encoding="utf-8-sig")
    except OSError as exc:
        raise InputError(f"cannot read ({exc.strerror})", path=str(path)) from None
    except UnicodeDecodeError:
        raise InputError("is not UTF-8 text", path=str(path), hint="save it as UTF-8 CSV") from None
    reader = csv.DictReader(text.splitlines(keepends=True))
    header = reader.fieldnames or []
    missing = [c for c in COLUMNS if c not in header]
    if missing:
        raise InputError(
            f"missing column(s) {', '.join(missing)}",
            path=str(path),
            line=1,
            field=missing[0],
            hint="export a fresh file with `quizbot kb review KB --out FILE.csv` and mark it",
        )
    rows: list[ReviewRow] = []
    problems: list[str] = []
    try:
        for raw in reader:
            line = reader.line_num
            values = {c: (raw.get(c) or "") for c in COLUMNS}
            if None in raw:
                problems.append(_problem(path, line, None, "more values than columns"))
                continue
            bad = False
            for column in COLUMNS:
                value = values[column]
                limit = _MAX_NOTE if column in ("note", "question") else _MAX_TEXT
                if "\x00" in value:
                    problems.append(_problem(path, line, column, "contains a NUL byte"))
                    bad = True
                elif len(value) > limit:
                    problems.append(_problem(path, line, column, f"longer than {limit} characters"))
                    bad = True
            if bad:
                continue
            row = ReviewRow(**{c: values[c].strip() for c in COLUMNS})
            verdict = row.verdict.lower()
            checks: list[tuple[bool, str, str]] = [
                (row.kb == kb.name, "kb", f"{row.kb!r} is not {kb.name!r}"),
                (row.kind in KINDS, "kind", f"unknown kind {row.kind!r} (negative or distractor)"),
                (bool(row.head), "head", "is empty"),
                (
                    row.relation in kb.relations,
                    "relation",
                    f"{row.relation!r} is no relation of {kb.name!r}",
                ),
                (bool(row.tail), "tail", "is empty"),
                (
                    verdict in ("", *VERDICTS),
                    "verdict",
                    f"unknown verdict {row.verdict!r} (false, true, wrong-fact or empty)",
                ),
                (
                    verdict != "wrong-fact" or bool(row.true_tail),
                    "true_tail",
                    "is empty, but the verdict wrong-fact is about the true fact it names",
                ),
            ]
            failed = [(field, message) for ok, field, message in checks if not ok]
            problems.extend(_problem(path, line, f, m) for f, m in failed)
            if not failed:
                rows.append(replace(row, verdict=verdict))
    except csv.Error as exc:
        problems.append(_problem(path, reader.line_num, None, f"not valid CSV ({exc})"))
    if problems:
        shown = problems[:_MAX_PROBLEMS_SHOWN]
        more = len(problems) - len(shown)
        raise InputError(
            f"{len(problems)} problem(s); nothing was stored:\n  "
            + "\n  ".join(shown)
            + (f"\n  ... and {more} more" if more else ""),
            hint="fix the rows named and import the file again",
        )
    return rows


@dataclass(frozen=True)
class ImportSummary:
    """What importing a review file did."""

    rows: int
    true: int  # rows marked true
    wrong_fact: int  # rows marked wrong-fact
    reviewed_false: int  # rows marked false
    unchanged: int  # rows left empty
    stored: int  # overrides new to the database

    def as_json(self) -> dict[str, int]:
        """The counts as a JSON object."""
        return {
            "rows": self.rows,
            "true": self.true,
            "wrong_fact": self.wrong_fact,
            "reviewed_false": self.reviewed_false,
            "unchanged": self.unchanged,
            "stored": self.stored,
        }


def import_review(
    db: Database, path: Path, kb: KnowledgeBaseData, *, by: str = ""
) -> ImportSummary:
    """Store the verdicts of a marked review file as overrides of ``kb`` (all or nothing)."""
    rows = read_review(path, kb)
    overrides: dict[tuple[str, str, str, OverrideKind], NewOverride] = {}
    n_true = n_wrong = n_false = 0
    for row in rows:
        if row.verdict == "false":
            n_false += 1
            key = (row.head, row.relation, row.tail, OverrideKind.REVIEWED_FALSE)
        elif row.verdict == "true":
            n_true += 1
            key = (row.head, row.relation, row.tail, OverrideKind.TRUE_NOT_NEGATIVE)
        elif row.verdict == "wrong-fact":
            n_wrong += 1
            key = (row.head, row.relation, row.true_tail, OverrideKind.FALSE_REMOVE)
        else:
            continue
        overrides.setdefault(
            key,
            NewOverride(kb.name, *key, source=SOURCE, note=row.note, created_by=by),
        )
    stored = add_overrides(db, list(overrides.values()))
    unmarked = len(rows) - n_true - n_wrong - n_false
    return ImportSummary(len(rows), n_true, n_wrong, n_false, unmarked, stored)
