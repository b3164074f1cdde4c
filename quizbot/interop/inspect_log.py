"""A run as an Inspect AI eval log, and its answers as JSONL (``quizbot runs export RUN``).

:func:`eval_log` builds the JSON of Inspect's eval log format (``version`` 2, the ``.json``
flavour ``inspect_ai.log.read_eval_log`` reads and ``inspect view`` shows) from what quizbot
stored, without Inspect installed:

* ``eval``: the task ``quizbot/<run name or id>``, the model as requested, the generation
  settings, the items as the dataset;
* one sample per stored answer, its ``id`` the item id: ``input`` the prompt quizbot sent,
  ``target`` the key as a model should give it (``True``/``False``, the letters ``A, C``), the
  model's raw reply as ``output`` and as an assistant message, and one score ``quizbot`` with
  ``value`` 1 (right) or 0, ``answer`` the parsed answer, ``explanation`` quizbot's parse reason
  and the outcome in its metadata. An answer whose call failed is a sample with an ``error``
  and no score, as quizbot leaves errors out of its metrics;
* ``results``: quizbot's own metrics of the run (``quizbot report``), each as an Inspect metric
  with its 95% interval in ``params``; the whole report is in the log's ``metadata``.

:func:`answer_rows` gives one row per answer in the shape of ``quizbot answers --json``'s answers,
each after its item's ``item_id``, ``item_kind``, ``item_text`` and ``key``.
"""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Any

from quizbot import __version__
from quizbot.analysis.answers import run_answers
from quizbot.analysis.reporting import run_report
from quizbot.domain import Outcome, RunStatus
from quizbot.errors import NotFoundError
from quizbot.generate.service import load_any_items
from quizbot.items import AnyItem, ChoiceItem, RecallItem
from storage import Database
from storage.repo import get_run, list_responses

__all__ = ["SCORER", "answer_rows", "eval_log"]

SCORER = "quizbot"
_STATUS = {RunStatus.COMPLETED: "success", RunStatus.FAILED: "error"}


def _when(moment: datetime | None) -> str:
    if moment is None:
        return ""
    aware = moment if moment.tzinfo else moment.replace(tzinfo=UTC)
    return aware.isoformat()


def _target(item: AnyItem) -> str:
    if isinstance(item, RecallItem):
        return ", ".join(item.answers)
    if isinstance(item, ChoiceItem):
        return ", ".join(item.answer_keys)
    return "True" if item.label else "False"


def _choice(raw: str, model: str) -> dict[str, Any]:
    return {
        "message": {"role": "assistant", "content": raw, "model": model},
        "stop_reason": "stop",
    }


def _metrics(report: dict[str, Any]) -> dict[str, dict[str, Any]]:
    values = report.get("metrics") or {}
    intervals = report.get("intervals") or {}
    out: dict[str, dict[str, Any]] = {}
    for name, value in values.items():
        if isinstance(value, int | float) and not isinstance(value, bool):
            interval = intervals.get(name)
            params = {"interval_95": list(interval)} if interval else {}
            out[name] = {"name": name, "value": float(value), "params": params}
    return out


def eval_log(db: Database, run_id: int) -> dict[str, Any]:
    """Run ``run_id`` as an Inspect eval log (a JSON-ready dict); :class:`NotFoundError` for an
    unknown run or one with no stored answer."""
    run = get_run(db, run_id)
    responses = list_responses(db, run_id=run_id)
    if not responses:
        raise NotFoundError(f"run {run_id} has no stored answer to export")
    items = {item.id: item for item in load_any_items(db, list({r.item_id for r in responses}))}
    report = run_report(db, run_id)
    config = run.config
    model = run.model_requested
    samples: list[dict[str, Any]] = []
    scored = 0
    for response in responses:
        item = items[response.item_id]
        prompt = response.prompt or item.text
        raw = response.raw_text or ""
        sample: dict[str, Any] = {
            "id": response.item_id,
            "epoch": 1 if response.answer_pass is None else response.answer_pass,
            "input": prompt,
            "target": _target(item),
            "messages": [
                {"role": "user", "content": prompt, "source": "input"},
                *([{"role": "assistant", "content": raw, "model": model}] if raw else []),
            ],
            "output": {
                "model": response.provider_model or model,
                "choices": [_choice(raw, model)] if raw else [],
                "completion": raw,
            },
            "metadata": {
                "kind": item.kind,
                "relation": item.relation,
                "item_text": item.text,
                "outcome": response.outcome,
                "parse_reason": response.parse_reason,
                "latency_ms": response.latency_ms,
                "cached": response.cached,
            },
            "created_at": _when(response.created_at),
            "completed_at": _when(response.created_at),
        }
        if response.outcome == Outcome.ERROR:
            message = response.error_text or "the call failed"
            sample["error"] = {"message": message, "traceback": "", "traceback_ansi": ""}
        else:
            scored += 1
            sample["scores"] = {
                SCORER: {
                    "value": 1.0 if response.outcome == Outcome.CORRECT else 0.0,
                    "answer": response.parsed_answer,
                    "explanation": response.parse_reason,
                    "metadata": {"outcome": response.outcome},
                }
            }
        if response.total_tokens is not None:
            sample["model_usage"] = {
                model: {
                    "input_tokens": response.prompt_tokens or 0,
                    "output_tokens": response.completion_tokens or 0,
                    "total_tokens": response.total_tokens,
                }
            }
        samples.append(sample)
    generate = {
        key: config[key]
        for key in ("temperature", "max_tokens", "seed")
        if isinstance(config.get(key), int | float)
    }
    return {
        "version": 2,
        "status": _STATUS.get(RunStatus(run.status), "started"),
        "eval": {
            "eval_id": f"quizbot-run-{run.id}",
            "run_id": f"quizbot-run-{run.id}",
            "created": _when(run.created_at),
            "task": f"quizbot/{run.name or f'run-{run.id}'}",
            "task_id": f"quizbot-run-{run.id}",
            "task_version": 0,
            "dataset": {
                "name": run.name or f"run-{run.id}",
                "samples": len(items),
                "sample_ids": sorted(items),
            },
            "model": model,
            "model_generate_config": generate,
            "model_base_url": base if isinstance(base := config.get("api_base"), str) else None,
            "config": {},
            "packages": {"quizbot": __version__},
            "metadata": {"quizbot_run_id": run.id, "prompt_style": config.get("style")},
        },
        "plan": {"name": "plan", "steps": [{"solver": "quizbot", "params": {}}], "config": {}},
        "results": {
            "total_samples": len(samples),
            "completed_samples": scored,
            "scores": [
                {
                    "name": SCORER,
                    "scorer": SCORER,
                    "scored_samples": scored,
                    "unscored_samples": len(samples) - scored,
                    "params": {},
                    "metrics": _metrics(report),
                }
            ],
        },
        "stats": {
            "started_at": _when(run.started_at or run.created_at),
            "completed_at": _when(run.finished_at),
            "model_usage": {},
        },
        **(
            {"error": {"message": run.error_text, "traceback": "", "traceback_ansi": ""}}
            if run.status == RunStatus.FAILED and run.error_text
            else {}
        ),
        "metadata": {"quizbot_report": report},
        "samples": samples,
    }


def answer_rows(db: Database, run_id: int) -> list[dict[str, Any]]:
    """One row per answer of run ``run_id``: the answer as ``quizbot answers --json`` gives it,
    after its item's ``item_id``, ``item_kind``, ``item_text`` and ``key``."""
    found = run_answers(db, run_id)
    return [
        {"run_id": run_id, "item_id": item.id, "item_kind": item.kind, "item_text": item.text,
         "key": item.key, **answer.as_json()}
        for item in found.items
        for answer in item.answers
    ]  # fmt: skip
