"""Reason review of SDAK runs: sample the reasons behind correct verdicts, mark them, and the
*accuracy reliability* that follows.

Population
    The answers of a run asked with the SDAK prompt whose verdict is at the start of the reply
    and right (:func:`quizbot.evaluation.parse.parse_sdak`: a true claim called correct, a
    false one called incorrect). Only these are sampled: accuracy reliability is the share of
    correct verdicts whose reason is sound, so a reason behind a wrong verdict says nothing
    about it.

Sample
    The population in a fixed pseudo-random order (sha256 of the seed and the answer id), the
    answers already marked left out, the first ``n`` taken: asking again continues the same
    order, so successive samples together are one simple random sample without replacement.

Accuracy reliability
    sound marks / marks over the population, with a Wilson 95% interval; None before any mark.
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass
from typing import Any

from quizbot.analysis.metrics import Proportion
from quizbot.domain import Outcome
from quizbot.errors import InputError
from quizbot.evaluation.parse import parse_sdak
from quizbot.generate.service import load_any_items
from quizbot.items import StatementItem
from storage import Database
from storage.reasons import mark_reason, run_reason_reviews
from storage.repo import get_run, list_responses

__all__ = ["ReasonEntry", "mark", "reasons", "reliability", "sample_reasons"]

MAX_SAMPLE = 500


@dataclass(frozen=True)
class ReasonEntry:
    """One correct SDAK verdict and its reason, with its mark if it has one."""

    response_id: int
    item_id: str
    claim: str
    label: bool
    verdict: str  # "correct" or "incorrect", as the model said it
    reason: str
    sound: bool | None  # None: not marked yet
    reviewer: str | None

    def as_json(self) -> dict[str, Any]:
        """JSON-ready dict."""
        return {
            "response_id": self.response_id,
            "item_id": self.item_id,
            "claim": self.claim,
            "label": self.label,
            "verdict": self.verdict,
            "reason": self.reason,
            "sound": self.sound,
            "reviewer": self.reviewer,
        }


def _check_sdak(db: Database, run_id: int) -> None:
    run = get_run(db, run_id)
    if run.config.get("prompt") != "sdak":
        raise InputError(
            f"run {run_id} was not asked with the SDAK prompt, so its answers give no reasons",
            hint="evaluate with `quizbot eval --prompt sdak`",
        )


def reasons(db: Database, run_id: int) -> list[ReasonEntry]:
    """Every correct SDAK verdict of the run with its reason and mark (the population)."""
    _check_sdak(db, run_id)
    responses = [r for r in list_responses(db, run_id=run_id) if r.outcome != Outcome.ERROR]
    items = {i.id: i for i in load_any_items(db, [r.item_id for r in responses])}
    marks = run_reason_reviews(db, run_id)
    out: list[ReasonEntry] = []
    for r in responses:
        item = items.get(r.item_id)
        if not isinstance(item, StatementItem):
            continue
        reading = parse_sdak(r.raw_text)
        if not reading.follows or reading.verdict != ("true" if item.label else "false"):
            continue
        mark_row = marks.get(r.id)
        out.append(
            ReasonEntry(
                response_id=r.id,
                item_id=item.id,
                claim=item.text,
                label=item.label,
                verdict="correct" if reading.verdict == "true" else "incorrect",
                reason=reading.reason,
                sound=None if mark_row is None else mark_row.sound,
                reviewer=None if mark_row is None else mark_row.reviewer,
            )
        )
    return out


def _order(seed: str, response_id: int) -> bytes:
    return hashlib.sha256(f"reasons\x1f{seed}\x1f{response_id}".encode()).digest()


def sample_reasons(db: Database, run_id: int, n: int, *, seed: str = "0") -> list[ReasonEntry]:
    """Up to ``n`` unmarked correct verdicts of the run, in the sample's order (see above)."""
    if not 1 <= n <= MAX_SAMPLE:
        raise InputError(f"the sample size must be between 1 and {MAX_SAMPLE}, got {n}")
    unmarked = [entry for entry in reasons(db, run_id) if entry.sound is None]
    unmarked.sort(key=lambda entry: _order(seed, entry.response_id))
    return unmarked[:n]


def mark(db: Database, run_id: int, response_id: int, *, sound: bool, reviewer: str) -> None:
    """Mark the reason of answer ``response_id`` of run ``run_id`` sound or unsound.

    InputError when the answer is not a correct SDAK verdict of that run (nothing stored).
    """
    if not any(entry.response_id == response_id for entry in reasons(db, run_id)):
        raise InputError(
            f"answer {response_id} is not a correct SDAK verdict of run {run_id}",
            hint=f"`quizbot runs review-reasons {run_id} --json` lists the ones to mark",
        )
    mark_reason(db, response_id=response_id, sound=sound, reviewer=reviewer)


def reliability(entries: list[ReasonEntry]) -> dict[str, Any] | None:
    """Accuracy reliability over the marked entries, or None when none is marked."""
    marked = [entry for entry in entries if entry.sound is not None]
    if not marked:
        return None
    share = Proportion.of(sum(bool(entry.sound) for entry in marked), len(marked))
    return {
        "value": share.value,
        "interval": share.interval,
        "sound": share.k,
        "reviewed": share.n,
        "correct_verdicts": len(entries),
    }
