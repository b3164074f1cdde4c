"""An assignment's results as flat rows, written to CSV and JSONL files atomically.

:func:`result_rows` turns :func:`quizbot.analysis.assignments.assignment_results` and
:func:`quizbot.analysis.answers.assignment_answers` into one list of flat dicts, each with a
``record`` field saying what it is:

* ``respondent``: one per student and per model: ``respondent``, ``kind``, ``run_id``,
  ``n_items``, for each of ``accuracy``, ``answer_rate`` and ``joint_accuracy`` the value and
  its Wilson 95% interval and counts (``accuracy``, ``accuracy_low``, ``accuracy_high``,
  ``accuracy_k``, ``accuracy_n``, ...; on a two-pass assignment the with/without-guessing
  figures too), and ``percentile`` (models; null for students);
* ``test``: one per model-vs-students test, with every field comparison.py reports (the raw
  ``p_value`` and the Benjamini–Hochberg ``p_adjusted`` among them); ``respondent`` is the model;
* ``answer``: one per stored answer, the fields of ``quizbot answers --json`` plus the item's
  ``item_id``, ``item_kind`` and ``item_key``.

The figures are exactly those of ``quizbot assignment results --json``. JSONL writes each row as
one JSON object; CSV has one column per field seen (first seen first), lists and dicts as JSON
text, nulls as empty cells. Both are written to a temporary file in the target's folder and
renamed over it, so a reader never sees half a file; a path that cannot be written is an
:class:`~quizbot.errors.InputError` naming it.
"""

from __future__ import annotations

import csv
import io
import json
import os
import tempfile
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from quizbot.analysis.answers import AnswerSet
from quizbot.errors import InputError

__all__ = ["METRICS", "check_target", "result_rows", "to_csv", "to_jsonl", "write_atomic"]

METRICS = ("accuracy", "answer_rate", "joint_accuracy")


def _respondent_row(r: Mapping[str, Any]) -> dict[str, Any]:
    row: dict[str, Any] = {
        "record": "respondent",
        "respondent": r["name"],
        "kind": r["kind"],
        "run_id": r.get("run_id"),
        "n_items": r["n_items"],
    }
    for name in [*METRICS, *(m for m in r["metrics"] if m not in METRICS)]:
        figure = r["metrics"][name]
        row[name] = figure["value"]
        for part in ("low", "high", "k", "n"):
            row[f"{name}_{part}"] = figure[part]
    row["percentile"] = r.get("percentile")
    return row


def result_rows(results: Mapping[str, Any], answers: AnswerSet) -> list[dict[str, Any]]:
    """Respondent rows, then test rows, then answer rows (see the module docstring)."""
    rows = [_respondent_row(r) for r in results["respondents"]]
    for r in results["respondents"]:
        for test in r.get("tests", []):
            rows.append({"record": "test", "respondent": r["name"], "kind": r["kind"], **test})
    for test in results.get("model_tests", []):  # paired tests between two models
        rows.append({"record": "test", "respondent": test["b"], "kind": "model", **test})
    for item in answers.items:
        for answer in item.answers:
            rows.append(
                {
                    "record": "answer",
                    **answer.as_json(),
                    "item_id": item.id,
                    "item_kind": item.kind,
                    "item_key": item.key,
                }
            )
    return rows


def to_jsonl(rows: Sequence[Mapping[str, Any]]) -> str:
    """One JSON object per line."""
    return "".join(json.dumps(row, ensure_ascii=False) + "\n" for row in rows)


def _cell(value: Any) -> Any:
    if value is None:
        return ""
    if isinstance(value, list | dict):
        return json.dumps(value, ensure_ascii=False)
    return value


def to_csv(rows: Sequence[Mapping[str, Any]]) -> str:
    """A header of every field seen (first seen first), then one line per row."""
    fields = list(dict.fromkeys(key for row in rows for key in row))
    buffer = io.StringIO()
    writer = csv.DictWriter(buffer, fieldnames=fields, lineterminator="\n")
    writer.writeheader()
    for row in rows:
        writer.writerow({k: _cell(v) for k, v in row.items()})
    return buffer.getvalue()


def check_target(path: Path) -> None:
    """:class:`~quizbot.errors.InputError` unless ``path`` names a file in an existing folder.

    Called for every target before anything is written, so one bad path leaves no other file
    written either.
    """
    if path.is_dir():
        raise InputError("is a folder, not a file", path=str(path), hint="give a file name")
    if not path.parent.is_dir():
        raise InputError(
            "its folder does not exist", path=str(path), hint="create the folder first"
        )


def write_atomic(path: Path, text: str) -> None:
    """Write ``text`` to ``path`` through a temporary file in the same folder and a rename.

    :class:`~quizbot.errors.InputError` naming the path when it cannot be written (no such
    folder, no permission, a folder in the way); nothing is left behind then.
    """
    check_target(path)
    temp: str | None = None
    try:
        fd, temp = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.", suffix=".tmp")
        with os.fdopen(fd, "w", encoding="utf-8", newline="") as handle:
            handle.write(text)
        Path(temp).replace(path)
        temp = None
    except OSError as exc:
        raise InputError(
            f"cannot write ({exc.strerror or exc})",
            path=str(path),
            hint="check that the folder exists and can be written to",
        ) from None
    finally:
        if temp is not None:
            Path(temp).unlink(missing_ok=True)
