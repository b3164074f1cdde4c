"""The ``utils.py`` of an exported lm-evaluation-harness task (copied there verbatim).

lm-evaluation-harness loads it by the task YAML's ``!function`` tags: :func:`load` reads the
task's own ``data.jsonl`` beside it (no download), :func:`process_results` reads each reply with
quizbot's own parser and scorer (:func:`quizbot.evaluation.parse.parse_and_score`), so the
harness's ``acc`` is quizbot's ``average_accuracy`` on the same replies. It therefore needs
quizbot importable where ``lm_eval`` runs (``pip install quizbot``).
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

DATA_FILE = "data.jsonl"


def load(**_: Any) -> dict[str, Any]:
    """The task's documents as a ``datasets`` split ``test``, read from ``data.jsonl``."""
    import datasets  # noqa: PLC0415 - lm-evaluation-harness's own dependency

    path = Path(__file__).resolve().with_name(DATA_FILE)
    docs = [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines() if line]
    return {"test": datasets.Dataset.from_list(docs)}


def process_results(doc: dict[str, Any], results: list[str]) -> dict[str, float]:
    """One reply scored as quizbot scores it: ``acc`` (right), ``answered`` (not abstained)
    and ``unparsed`` (no answer could be read), each 0 or 1 (their means are the metrics)."""
    from quizbot.domain import Outcome  # noqa: PLC0415
    from quizbot.evaluation.parse import parse_and_score  # noqa: PLC0415
    from quizbot.items import item_from_json  # noqa: PLC0415

    item = item_from_json(json.loads(doc["item"]))
    reply = results[0] if results else ""
    _, outcome = parse_and_score(reply, item, idk_offered=bool(doc["idk"]))
    return {
        "acc": float(outcome is Outcome.CORRECT),
        "answered": float(outcome is not Outcome.ABSTAINED),
        "unparsed": float(outcome is Outcome.UNPARSED),
    }
