"""Open recall results: per aspect and overall, mean scores with intervals and tier shares; runs
compared per aspect with Welch's t-test.

Every figure is recomputed from the stored raw text with the one scorer
(:func:`quizbot.evaluation.recall.score_recall`) and the tiers stored with the run (and, for a
run with a judge, its stored verdicts on unverified entries:
:func:`quizbot.evaluation.recall_judge.stored_verdicts`), so a report never depends on what a
parser summary column could hold. The per-entry classes (matched, true but not in the list,
known wrong, unverified, judged) are counted per group (``entries``). Answers whose call failed
(outcome ``error``) are left out; an abstention or an answer with no list scores 0 and is graded
"completely wrong".

Intervals: the mean of a score with a 95% Student-t interval (none below two answers); a tier's
share with a Wilson 95% interval. Comparison: Welch's unequal-variance t-test per aspect and
metric (``scipy.stats.ttest_ind(equal_var=False)``), p-values adjusted over the aspects by
Benjamini-Hochberg (:func:`quizbot.analysis.metrics.benjamini_hochberg`).
"""

from __future__ import annotations

import math
import warnings
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from quizbot.analysis.metrics import CONFIDENCE, benjamini_hochberg, wilson_interval
from quizbot.domain import Outcome
from quizbot.evaluation.recall import (
    ENTRY_KINDS,
    TIER_NAMES,
    RecallScore,
    Tiers,
    cosine_from_summary,
    parse_tiers,
    score_recall,
)
from quizbot.items import RecallItem

if TYPE_CHECKING:
    from storage import Database

__all__ = [
    "METRICS",
    "RecallRecord",
    "entry_counts",
    "group_summary",
    "mean_interval",
    "recall_records",
    "recall_summary",
    "welch",
    "welch_by_aspect",
    "welch_interval",
]

METRICS: tuple[str, ...] = ("precision", "recall", "f1", "rouge1", "bleu1")


@dataclass(frozen=True)
class RecallRecord:
    """One recall answer of a run, rescored."""

    item_id: str
    aspect: str
    score: RecallScore


def mean_interval(values: Sequence[float]) -> dict[str, Any]:
    """Mean, 95% t interval clipped to [0, 1] (None below n = 2) and n of ``values`` (in [0, 1])."""
    from scipy import stats  # noqa: PLC0415 - heavy to import; only results need it

    n = len(values)
    if n == 0:
        return {"mean": None, "interval": None, "n": 0}
    mean = sum(values) / n
    if n < 2:
        return {"mean": mean, "interval": None, "n": n}
    sd = math.sqrt(sum((v - mean) ** 2 for v in values) / (n - 1))
    half = float(stats.t.ppf(1 - (1 - CONFIDENCE) / 2, n - 1)) * sd / math.sqrt(n)
    # Scores lie in [0, 1]; so does the interval.
    return {"mean": mean, "interval": [max(0.0, mean - half), min(1.0, mean + half)], "n": n}


def group_summary(records: Sequence[RecallRecord]) -> dict[str, Any]:
    """Figures of one group of answers: ``n``, each metric's :func:`mean_interval` (``cosine``
    when any answer has one), each tier's ``{"k", "share", "interval"}`` (Wilson 95%) and the
    number of abstentions, and the listed entries by class (:func:`entry_counts`)."""
    n = len(records)
    out: dict[str, Any] = {"n": n}
    for metric in METRICS:
        out[metric] = mean_interval([float(getattr(r.score, metric)) for r in records])
    cosines = [r.score.cosine for r in records if r.score.cosine is not None]
    if cosines:
        out["cosine"] = mean_interval(cosines)
    tiers: dict[str, Any] = {}
    for tier in TIER_NAMES:
        k = sum(r.score.tier == tier for r in records)
        interval = wilson_interval(k, n)
        tiers[tier] = {
            "k": k,
            "share": k / n if n else None,
            "interval": list(interval) if interval else None,
        }
    out["tiers"] = tiers
    out["abstained"] = sum(r.score.abstained for r in records)
    out["entries"] = entry_counts(records)
    return out


def entry_counts(records: Sequence[RecallRecord]) -> dict[str, int]:
    """How many listed entries of ``records`` are of each class (matched, extra_truth,
    known_wrong, unverified), and how many unverified ones a judge called correct or incorrect."""
    counts: dict[str, int] = dict.fromkeys(ENTRY_KINDS, 0)
    judged = {"judged_correct": 0, "judged_incorrect": 0}
    for record in records:
        for entry in record.score.match.entries:
            counts[entry.kind] += 1
            if entry.judge is not None:
                judged[f"judged_{entry.judge}"] += 1
    return {**counts, **judged}


def recall_summary(records: Sequence[RecallRecord], tiers: Mapping[str, Any]) -> dict[str, Any]:
    """Overall and per-aspect figures (the ``recall`` part of ``quizbot report --json``)."""
    aspects: dict[str, list[RecallRecord]] = {}
    for record in records:
        aspects.setdefault(record.aspect, []).append(record)
    return {
        "tiers": dict(tiers),
        "overall": group_summary(records),
        "by_aspect": {name: group_summary(group) for name, group in sorted(aspects.items())},
    }


def recall_records(
    db: Database, run_id: int, tiers: Tiers | None = None
) -> tuple[list[RecallRecord], dict[str, Any]]:
    """The run's recall answers rescored, and the tiers they were graded by: the run's stored
    tiers, or ``tiers`` when given (to grade several runs and people alike)."""
    # Read from the database here only, so the statistics above load without it (drift does).
    from quizbot.evaluation.recall_judge import stored_verdicts  # noqa: PLC0415
    from quizbot.generate.service import load_any_items  # noqa: PLC0415
    from storage.repo import get_run, list_responses  # noqa: PLC0415

    run = get_run(db, run_id)
    if tiers is None:
        tiers = parse_tiers(run.config.get("recall_tiers"))
    responses = [r for r in list_responses(db, run_id=run_id) if r.outcome != Outcome.ERROR]
    items = {item.id: item for item in load_any_items(db, [r.item_id for r in responses])}
    # A run with a judge: its stored verdicts on unverified entries count, as when it was run.
    verdicts = stored_verdicts(db, items, run.config)
    records: list[RecallRecord] = []
    for response in responses:
        item = items[response.item_id]
        if isinstance(item, RecallItem):
            score = score_recall(
                item,
                response.raw_text or "",
                tiers=tiers,
                cosine=cosine_from_summary(response.parsed_answer),
                verdicts=verdicts.get(item.id),
            )
            records.append(RecallRecord(item.id, item.aspect, score))
    return records, tiers.as_json()


def welch(a: Sequence[float], b: Sequence[float]) -> tuple[float | None, float | None]:
    """Welch's t (A − B) and its two-sided p-value; (None, None) below two values on a side.

    Both samples constant: (None, None) when equal, else t = ±inf and p = 0.
    """
    from scipy import stats  # noqa: PLC0415 - heavy to import; only results need it

    # Scores equal but for float noise (4/7 computed two ways) count as equal.
    a, b = [round(x, 12) for x in a], [round(x, 12) for x in b]
    if len(a) < 2 or len(b) < 2:
        return None, None
    if len(set(a)) == 1 and len(set(b)) == 1:
        return (None, None) if a[0] == b[0] else (math.copysign(math.inf, a[0] - b[0]), 0.0)
    with warnings.catch_warnings():
        # One run's scores all equal (every answer right) is a zero variance, not an error.
        warnings.simplefilter("ignore", RuntimeWarning)
        result = stats.ttest_ind(a, b, equal_var=False)
    return float(result.statistic), float(result.pvalue)


def welch_interval(a: Sequence[float], b: Sequence[float]) -> tuple[float, float] | None:
    """95% Welch interval of mean(A) − mean(B) (Welch–Satterthwaite degrees of freedom); None
    below two values on a side or when both samples are constant."""
    from scipy import stats  # noqa: PLC0415 - heavy to import; only results need it

    if len(a) < 2 or len(b) < 2:
        return None
    mean_a, mean_b = sum(a) / len(a), sum(b) / len(b)
    var_a = sum((x - mean_a) ** 2 for x in a) / (len(a) - 1) / len(a)
    var_b = sum((x - mean_b) ** 2 for x in b) / (len(b) - 1) / len(b)
    se2 = var_a + var_b
    if se2 <= 1e-24:
        return None
    df = se2**2 / (var_a**2 / (len(a) - 1) + var_b**2 / (len(b) - 1))
    half = float(stats.t.ppf(1 - (1 - CONFIDENCE) / 2, df)) * math.sqrt(se2)
    difference = mean_a - mean_b
    return difference - half, difference + half


def welch_by_aspect(
    a: Iterable[RecallRecord], b: Iterable[RecallRecord], metric: str = "f1"
) -> dict[str, Any]:
    """Run A vs run B per aspect: means, difference, Welch's t and p (BH-adjusted over aspects).

    Aspects with fewer than two answers in either run get no test (t and p None). Two runs whose
    scores are all equal within each run get t = ±inf and p = 0 when the values differ.
    """
    by_a: dict[str, list[float]] = {}
    by_b: dict[str, list[float]] = {}
    for record in a:
        by_a.setdefault(record.aspect, []).append(float(getattr(record.score, metric)))
    for record in b:
        by_b.setdefault(record.aspect, []).append(float(getattr(record.score, metric)))
    rows: dict[str, dict[str, Any]] = {}
    for aspect in sorted(set(by_a) | set(by_b)):
        xs, ys = by_a.get(aspect, []), by_b.get(aspect, [])
        t, p = welch(xs, ys)
        mean_a = sum(xs) / len(xs) if xs else None
        mean_b = sum(ys) / len(ys) if ys else None
        rows[aspect] = {
            "n_a": len(xs),
            "n_b": len(ys),
            "mean_a": mean_a,
            "mean_b": mean_b,
            "difference": mean_a - mean_b if mean_a is not None and mean_b is not None else None,
            "t": t,
            "p_value": p,
            "p_adjusted": None,
        }
    tested = [aspect for aspect, row in rows.items() if row["p_value"] is not None]
    for aspect, adjusted in zip(
        tested, benjamini_hochberg([rows[x]["p_value"] for x in tested]), strict=True
    ):
        rows[aspect]["p_adjusted"] = adjusted
    return {
        "metric": metric,
        "test": "welch_t",
        "correction": "benjamini_hochberg",
        "by_aspect": rows,
    }
