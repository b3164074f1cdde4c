"""The PretexEval authors' real rephrasings and their corruptions, split for tuning and measuring.

``../shared/data/pretexeval/rephrasings_real_dev.jsonl`` holds rephrasings judged by a careful
reader (``faithful``, ``changed``, ``debatable``) and ``rephrasings_corrupt_dev.jsonl`` deliberate
corruptions of them. Both are split by the statement's head, deterministically: a head whose
SHA-256 (of its case-folded name) is divisible by 3 is *held back* (about a third), every other head
is for *tuning*. The validator is tuned on the tune part only and measured once on the held-back
part. Nothing here is copied into the repository; the files are read where they are.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

from quizbot.errors import InputError
from quizbot.generate.rephrase.validator import negation_cues

__all__ = ["DevCase", "default_dir", "load_cases", "part_of"]

TUNE = "tune"
HELD = "held-back"


def default_dir() -> Path:
    """``../shared/data/pretexeval`` relative to the project root."""
    return Path(__file__).resolve().parents[3].parent / "shared" / "data" / "pretexeval"


def part_of(head: str) -> str:
    """``"held-back"`` for about a third of the heads (by a hash of the name), else ``"tune"``."""
    digest = hashlib.sha256(head.casefold().encode("utf-8")).hexdigest()
    return HELD if int(digest, 16) % 3 == 0 else TUNE


@dataclass(frozen=True, slots=True)
class DevCase:
    """One statement and candidate with what a validator must do with it.

    ``expect`` is ``"accept"`` (a faithful rephrasing), ``"reject"`` (a meaning change or a
    corruption) or ``"skip"`` (debatable: left out of the rates). ``kind`` is the reader's
    judgement or the corruption's kind.
    """

    statement: str
    candidate: str
    head: str
    tail: str
    negated: bool
    expect: str
    kind: str
    part: str


def _rows(path: Path) -> Iterator[tuple[int, dict[str, str]]]:
    try:
        lines = path.read_text(encoding="utf-8").splitlines()
    except OSError as exc:
        raise InputError(f"cannot read ({exc.strerror or exc})", path=str(path)) from None
    for number, line in enumerate(lines, 1):
        if not line.strip():
            continue
        try:
            row = json.loads(line)
        except ValueError:
            raise InputError("not a JSON object", path=str(path), line=number) from None
        if not isinstance(row, dict):
            raise InputError("not a JSON object", path=str(path), line=number)
        yield number, row


def _field(row: dict[str, str], name: str, path: Path, number: int) -> str:
    value = row.get(name)
    if not isinstance(value, str) or not value.strip():
        raise InputError("missing or empty", path=str(path), line=number, field=name)
    return value


def load_cases(directory: Path | None = None) -> list[DevCase]:
    """Every real rephrasing and every corruption as a :class:`DevCase` (real ones first).

    A corruption takes the head and tail of the real rephrasing of the same statement.
    ``negated`` is read off the statement (an odd number of negation cues). Raises
    :class:`~quizbot.errors.InputError` (file, line, field) on a malformed file.
    """
    folder = directory or default_dir()
    real_path = folder / "rephrasings_real_dev.jsonl"
    corrupt_path = folder / "rephrasings_corrupt_dev.jsonl"
    cases: list[DevCase] = []
    entities: dict[str, tuple[str, str]] = {}
    for number, row in _rows(real_path):
        statement = _field(row, "statement", real_path, number)
        head = _field(row, "head", real_path, number)
        tail = _field(row, "tail", real_path, number)
        judged = _field(row, "judged", real_path, number)
        entities[statement] = (head, tail)
        expect = (
            "accept"
            if judged.startswith("faithful")
            else "reject"
            if judged == "changed"
            else "skip"
        )
        cases.append(_case(statement, row, real_path, number, head, tail, expect, judged))
    for number, row in _rows(corrupt_path):
        statement = _field(row, "statement", corrupt_path, number)
        if statement not in entities:
            raise InputError(
                "no real rephrasing of this statement", path=str(corrupt_path), line=number
            )
        head, tail = entities[statement]
        kind = _field(row, "kind", corrupt_path, number)
        cases.append(_case(statement, row, corrupt_path, number, head, tail, "reject", kind))
    return cases


def _case(
    statement: str,
    row: dict[str, str],
    path: Path,
    number: int,
    head: str,
    tail: str,
    expect: str,
    kind: str,
) -> DevCase:
    candidate = _field(row, "rephrased", path, number)
    negated = len(negation_cues(statement, mask=(head, tail))) % 2 == 1
    return DevCase(statement, candidate, head, tail, negated, expect, kind, part_of(head))
