"""Humans vs models: the same items answered by students and by models, side by side.

The app's "Humans vs models" tab calls only this module. :func:`compare` gathers both sides,
scores them with the metrics every run uses (:mod:`quizbot.analysis.metrics`) and tests the
differences.

Who is compared
    Students: answers given in practice sessions by respondents of kind ``human``, optionally
    only one ``cohort`` and only answers stored between ``since`` and ``until`` (whole UTC days,
    both included). A student who met the same item more than once (in several sessions) counts
    with the FIRST answer in the date range only: later answers follow the feedback practice
    gives and measure learning, not what the student knew. Errors (a question that never
    reached the student) are left out everywhere, as in the metrics.
    Models: for every model asked for (all models with a completed run when neither ``models``
    nor ``run_ids`` is given), its most recently finished completed run that answered at least
    one candidate item; ``run_ids`` name runs explicitly instead (any status, with a note when
    not completed). The date range and cohort apply to students only.

Which items
    ``item_ids`` when given (restricted to ``kb`` if both are given). Otherwise every item that
    a selected student answered and at least one selected model answered, restricted to ``kb``.
    Models are not required to cover the same items; each row says on how many items it rests,
    and model-vs-model tests use the items both answered.

Groups and figures
    ``students`` pools every student as one group: each figure is the sum of the per-student
    counts (k and n of :func:`~quizbot.analysis.metrics.compute_metrics` run per student), so the
    pooled
    accuracy is correct answers / (student, item) answers and the pooled joint accuracy counts
    (student, knowledge point) pairs where that student answered all eight variants. Each
    student also gets a row of their own; each model run one. Rows carry accuracy (average
    accuracy), answer rate and joint accuracy with Wilson 95% intervals, as compute_metrics
    defines them. The breakdown gives accuracy with its interval and n per relation and per
    transform for the pooled students and every model (a heat map: :meth:`HumansVsModels.heatmap`).
    The pooled intervals treat answers as independent; answers of one student are correlated,
    so they are somewhat too narrow.

Tests (difference = b − a; positive means the model did better)
    Model vs students, per model:
      * ``overall`` and one per shared ``relation``: two-proportion z-test of the model's
        accuracy against the pooled students' accuracy, with Newcombe's interval for the
        difference. It runs through :func:`~quizbot.analysis.metrics.compare_runs` with the two
        samples
        given disjoint keys, which makes compare_runs use its independent-samples test. The
        samples share items, so independence is an approximation.
      * ``item_majority``: a paired test on shared items. Per item, the students' majority
        verdict (more than half of the students who answered it were right; items where exactly
        half were right are left out) is paired with the model's answer, and McNemar's exact
        test compares the two (compare_runs on the paired records). McNemar needs both answers
        to come from the same "respondent pair"; the majority vote turns the cohort into one
        such respondent per item. It is reported only with at least
        :data:`~quizbot.analysis.metrics.MIN_SHARED_FOR_MCNEMAR` usable items.
    Model vs model, per pair: compare_runs on their answers (McNemar's exact test on shared
    items, or its two-proportion fallback when fewer are shared).
    Each of the two tables is one family: its p-values are adjusted together with
    Benjamini–Hochberg (:func:`~quizbot.analysis.metrics.benjamini_hochberg`); raw and adjusted are
    both
    reported. Tests whose p-value cannot be computed (an empty side) are not listed.

Percentile of a model within the cohort
    Students count when they answered at least ``min_items`` (default 5) of the items the model
    answered. ``percentile`` is MATCHED: each student is compared with the model on exactly the
    items that student answered, and the model's percentile is the share of students it beats,
    ties counting half (``scipy.stats.percentileofscore(kind="mean")`` of 0 among the
    differences student − model in correct answers). Matching removes the bias of students
    having drawn easier or harder items. ``percentile_pooled`` is the simpler variant: the
    model's accuracy on the union of those students' items, ranked among the students'
    accuracies the same way.

Open recall items
    Recall answers (:class:`~quizbot.items.RecallItem`) are compared apart, on the same items
    and the same students (first answer per student and item) as above. Students' answers are
    rescored from what they typed and each model's from its raw text, with the one scorer
    (:func:`quizbot.evaluation.recall.score_recall`) and ONE set of tiers (``recall_tiers``) for
    everyone, so tier shares are like for like. Figures (``recall``), through
    :func:`quizbot.analysis.recall.group_summary`: for the pooled students and each model,
    overall and per aspect, the mean of each score (F1 first) with a 95% Student-t interval
    (clipped to [0, 1]) and each tier's share with a Wilson 95% interval; each student gets an
    overall row. ``recall_tests``: per model, Welch's unequal-variance t-test of the model's F1
    against the pooled students' F1 (``scipy.stats.ttest_ind(equal_var=False)``), overall and
    on every aspect both answered, with the 95% Welch interval of the difference (model −
    students); the p-values of all these tests form one family, adjusted with
    Benjamini–Hochberg. Pooled students' answers are correlated within a student, so the
    intervals and p-values treat them as more independent than they are (as above). An
    instructor should read the per-aspect rows as exploratory when n is small.

Empty cases never raise: no students, no models or no shared items give empty sections and a
sentence in ``notes``. Values that cannot be computed are None; :meth:`HumansVsModels.as_json`
is strict JSON (no NaN or infinity).
"""

from __future__ import annotations

import csv
import io
import math
from collections import Counter, defaultdict
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, replace
from datetime import UTC, date, datetime, time, timedelta
from itertools import combinations
from typing import Any, Literal

from scipy import stats

from quizbot.analysis.metrics import (
    MIN_SHARED_FOR_MCNEMAR,
    Comparison,
    Proportion,
    Report,
    Scored,
    benjamini_hochberg,
    compare_proportions,
    compare_runs,
    compute_metrics,
)
from quizbot.analysis.recall import (
    RecallRecord,
    group_summary,
    recall_records,
    welch,
    welch_interval,
)
from quizbot.analysis.reporting import run_records
from quizbot.domain import Outcome, Run, RunStatus
from quizbot.errors import InputError
from quizbot.evaluation.recall import TIER_NAMES, Tiers, parse_tiers, score_recall
from quizbot.generate.service import load_any_items
from quizbot.generate.transforms import TRANSFORMS
from quizbot.items import AnyItem, RecallItem
from storage import Database
from storage.cohorts import (
    HumanAnswer,
    completed_runs,
    human_answers,
    human_cohorts,
    models_with_completed_runs,
    scored_item_ids,
)
from storage.repo import get_knowledge_base, get_run

__all__ = [
    "CSV_FIELDS",
    "DEFAULT_MIN_ITEMS",
    "STUDENTS",
    "ComparisonRow",
    "GroupRow",
    "HumansVsModels",
    "PercentileRow",
    "RecallGroupRow",
    "RecallTestRow",
    "SliceRow",
    "cohorts",
    "comparable_models",
    "compare",
]

STUDENTS = "students"
DEFAULT_MIN_ITEMS = 5
CSV_FIELDS = (
    "group",
    "group_kind",
    "run_id",
    "scope",
    "key",
    "metric",
    "value",
    "low",
    "high",
    "k",
    "n",
)

Scope = Literal["relation", "transform"]
_TRANSFORM_ORDER = {t.value: i for i, t in enumerate(TRANSFORMS)}


# --------------------------------------------------------------------------------------------
# Result


@dataclass(frozen=True)
class GroupRow:
    """Headline figures of one group: the pooled students, one student or one model run."""

    group: str  # "students", the student's name, or the model's label
    kind: str  # "students", "student" or "model"
    run_id: int | None
    n_respondents: int
    n_items: int  # distinct items behind the figures
    accuracy: Proportion
    answer_rate: Proportion
    joint_accuracy: Proportion

    @property
    def n(self) -> int:
        """Scored answers behind the figures."""
        return self.accuracy.n

    def metrics(self) -> dict[str, Proportion]:
        """The figures by name, in table order."""
        return {
            "accuracy": self.accuracy,
            "answer_rate": self.answer_rate,
            "joint_accuracy": self.joint_accuracy,
        }

    def as_json(self) -> dict[str, Any]:
        """JSON-ready dict; each figure is ``{"k", "n", "value", "low", "high"}``."""
        return {
            "group": self.group,
            "kind": self.kind,
            "run_id": self.run_id,
            "n_respondents": self.n_respondents,
            "n_items": self.n_items,
            "n": self.n,
            **{name: p.as_json() for name, p in self.metrics().items()},
        }


@dataclass(frozen=True)
class SliceRow:
    """Accuracy of one group on one relation or one transform."""

    group: str
    kind: str
    run_id: int | None
    scope: Scope
    key: str  # the relation or transform name
    accuracy: Proportion

    def as_json(self) -> dict[str, Any]:
        """JSON-ready dict."""
        return {
            "group": self.group,
            "kind": self.kind,
            "run_id": self.run_id,
            "scope": self.scope,
            "key": self.key,
            "n": self.accuracy.n,
            "accuracy": self.accuracy.as_json(),
        }


@dataclass(frozen=True)
class ComparisonRow:
    """One test of a comparison table: group b against group a (difference = b − a)."""

    family: str  # "model_vs_students" or "model_vs_model"
    a: str
    b: str
    scope: str  # "overall", "relation" or "item_majority"
    key: str  # the relation for scope "relation", else ""
    comparison: Comparison
    p_adjusted: float  # Benjamini–Hochberg within the family

    def as_json(self) -> dict[str, Any]:
        """JSON-ready dict: the test's fields plus the adjusted p-value."""
        return {
            "family": self.family,
            "a": self.a,
            "b": self.b,
            "scope": self.scope,
            "key": self.key,
            **self.comparison.as_json(),
            "p_adjusted": self.p_adjusted,
        }


@dataclass(frozen=True)
class PercentileRow:
    """Where a model's accuracy falls among the students' (see the module docstring)."""

    model: str
    run_id: int | None
    n_students: int  # students with at least min_items of the model's items
    below: int  # students who got fewer of their items right than the model did on them
    tied: int
    above: int
    percentile: float | None  # matched, 0..100
    model_accuracy: float | None  # on the union of the counted students' items
    percentile_pooled: float | None
    student_accuracies: tuple[float, ...]  # of the counted students, sorted

    def as_json(self) -> dict[str, Any]:
        """JSON-ready dict."""
        return {
            "model": self.model,
            "run_id": self.run_id,
            "n_students": self.n_students,
            "below": self.below,
            "tied": self.tied,
            "above": self.above,
            "percentile": self.percentile,
            "model_accuracy": self.model_accuracy,
            "percentile_pooled": self.percentile_pooled,
            "student_accuracies": list(self.student_accuracies),
        }


@dataclass(frozen=True)
class RecallGroupRow:
    """Open recall figures of one group, overall or on one aspect (see the module docstring)."""

    group: str
    kind: str  # "students", "student" or "model"
    run_id: int | None
    scope: str  # "overall" or "aspect"
    key: str  # the aspect for scope "aspect", else ""
    n_respondents: int
    n_items: int
    figures: Mapping[str, Any]  # quizbot.analysis.recall.group_summary

    @property
    def n(self) -> int:
        """Answers behind the figures."""
        return int(self.figures.get("n", 0))

    def f1(self) -> Mapping[str, Any]:
        """The mean F1 ``{"mean", "interval", "n"}`` (95% Student-t interval)."""
        figure: Mapping[str, Any] = self.figures["f1"]
        return figure

    def as_json(self) -> dict[str, Any]:
        """JSON-ready dict: the group and its figures."""
        return {
            "group": self.group,
            "kind": self.kind,
            "run_id": self.run_id,
            "scope": self.scope,
            "key": self.key,
            "n_respondents": self.n_respondents,
            "n_items": self.n_items,
            **dict(self.figures),
        }


@dataclass(frozen=True)
class RecallTestRow:
    """Welch's t-test of a model's open recall F1 against the pooled students' (b − a)."""

    a: str
    b: str
    scope: str  # "overall" or "aspect"
    key: str  # the aspect, or ""
    n_a: int
    n_b: int
    mean_a: float | None
    mean_b: float | None
    difference: float | None  # mean_b − mean_a
    difference_interval: tuple[float, float] | None  # 95% Welch interval
    t: float | None  # Welch's t of b − a
    p_value: float | None
    p_adjusted: float | None  # Benjamini–Hochberg over every recall test of the comparison

    def as_json(self) -> dict[str, Any]:
        """JSON-ready dict."""
        return {
            "family": "recall_model_vs_students",
            "metric": "f1",
            "test": "welch_t",
            "a": self.a,
            "b": self.b,
            "scope": self.scope,
            "key": self.key,
            "n_a": self.n_a,
            "n_b": self.n_b,
            "mean_a": self.mean_a,
            "mean_b": self.mean_b,
            "difference": self.difference,
            "difference_interval": (
                None if self.difference_interval is None else list(self.difference_interval)
            ),
            "t": self.t,
            "p_value": self.p_value,
            "p_adjusted": self.p_adjusted,
        }


@dataclass(frozen=True)
class HumansVsModels:
    """Everything :func:`compare` found; every section may be empty (``notes`` say why)."""

    filters: Mapping[str, Any]
    item_ids: tuple[str, ...]
    min_items: int
    groups: tuple[GroupRow, ...]  # pooled students first (when any), then model runs
    students: tuple[GroupRow, ...]  # one per student, by name
    breakdown: tuple[SliceRow, ...]
    tests: tuple[ComparisonRow, ...]
    percentiles: tuple[PercentileRow, ...]
    notes: tuple[str, ...]
    # Open recall items (empty without them): figures per group, overall and per aspect, and
    # Welch's t-tests of each model against the pooled students; graded by ``recall_tiers``.
    recall: tuple[RecallGroupRow, ...] = ()
    recall_tests: tuple[RecallTestRow, ...] = ()
    recall_tiers: Mapping[str, Any] | None = None

    def heatmap(self, scope: Scope) -> tuple[list[str], list[str], list[list[float | None]]]:
        """Accuracy as a grid: (group names, relation or transform names, rows of values).

        Rows follow :attr:`groups`; transforms come in canonical order, relations by name; a
        cell is None where the group has no answer.
        """
        cells = {(s.group, s.key): s.accuracy.value for s in self.breakdown if s.scope == scope}
        keys = sorted({k for _, k in cells}, key=_key_order(scope))
        names = [g.group for g in self.groups]
        return names, keys, [[cells.get((g, k)) for k in keys] for g in names]

    def as_json(self) -> dict[str, Any]:
        """Strict-JSON-ready dict (non-finite numbers become None)."""
        tests: dict[str, list[dict[str, Any]]] = {"model_vs_students": [], "model_vs_model": []}
        for row in self.tests:
            tests[row.family].append(row.as_json())
        out = {
            "filters": dict(self.filters),
            "n_items": len(self.item_ids),
            "item_ids": list(self.item_ids),
            "min_items": self.min_items,
            "groups": [g.as_json() for g in self.groups],
            "students": [s.as_json() for s in self.students],
            "breakdown": {
                scope: [s.as_json() for s in self.breakdown if s.scope == scope]
                for scope in ("relation", "transform")
            },
            "tests": tests,
            "percentiles": [p.as_json() for p in self.percentiles],
            "notes": list(self.notes),
        }
        if self.recall:
            out["recall"] = {
                "tiers": dict(self.recall_tiers or {}),
                "groups": [g.as_json() for g in self.recall],
                "tests": [t.as_json() for t in self.recall_tests],
            }
        strict: dict[str, Any] = _strict(out)
        return strict

    def to_csv(self) -> str:
        """One row per group x scope x metric, columns :data:`CSV_FIELDS` (header first).

        Overall rows (scope ``overall``) carry accuracy, answer_rate and joint_accuracy for the
        pooled students, each model and each student; relation and transform rows carry
        accuracy. Open recall rows (scope ``recall`` overall, ``recall_aspect`` with the aspect
        as key) carry ``recall_f1`` (the mean with its 95% t interval; k empty, n the answers)
        and one ``tier:NAME`` row per tier (the share with its Wilson interval, k of n). Missing
        values are empty cells.
        """
        buffer = io.StringIO()
        writer = csv.DictWriter(buffer, fieldnames=CSV_FIELDS, lineterminator="\n")
        writer.writeheader()
        for row in (*self.groups, *self.students):
            for metric, p in row.metrics().items():
                writer.writerow(_csv_row(row.group, row.kind, row.run_id, "overall", "", metric, p))
        for s in self.breakdown:
            writer.writerow(
                _csv_row(s.group, s.kind, s.run_id, s.scope, s.key, "accuracy", s.accuracy)
            )
        for g in self.recall:
            scope = "recall" if g.scope == "overall" else "recall_aspect"
            f1 = g.f1()
            interval = f1.get("interval") or (None, None)
            writer.writerow(
                _csv_cells(
                    g.group, g.kind, g.run_id, scope, g.key, "recall_f1",
                    (f1.get("mean"), interval[0], interval[1]), None, int(f1.get("n") or 0),
                )
            )  # fmt: skip
            for tier in TIER_NAMES:
                part = g.figures["tiers"][tier]
                low, high = part.get("interval") or (None, None)
                writer.writerow(
                    _csv_cells(
                        g.group, g.kind, g.run_id, scope, g.key, f"tier:{tier}",
                        (part.get("share"), low, high), part["k"], g.n,
                    )
                )  # fmt: skip
        return buffer.getvalue()


def _csv_row(
    group: str, kind: str, run_id: int | None, scope: str, key: str, metric: str, p: Proportion
) -> dict[str, Any]:
    return _csv_cells(group, kind, run_id, scope, key, metric, (p.value, p.low, p.high), p.k, p.n)


def _csv_cells(
    group: str,
    kind: str,
    run_id: int | None,
    scope: str,
    key: str,
    metric: str,
    figure: tuple[float | None, float | None, float | None],
    k: int | None,
    n: int,
) -> dict[str, Any]:
    def cell(x: float | None) -> str:
        return "" if x is None or not math.isfinite(x) else repr(float(x))

    value, low, high = figure
    return {
        "group": group,
        "group_kind": kind,
        "run_id": "" if run_id is None else run_id,
        "scope": scope,
        "key": key,
        "metric": metric,
        "value": cell(value),
        "low": cell(low),
        "high": cell(high),
        "k": "" if k is None else k,
        "n": n,
    }


def _strict(value: Any) -> Any:
    """``value`` with every non-finite float replaced by None (JSON has no NaN or infinity)."""
    if isinstance(value, float):
        return value if math.isfinite(value) else None
    if isinstance(value, dict):
        return {k: _strict(v) for k, v in value.items()}
    if isinstance(value, list | tuple):
        return [_strict(v) for v in value]
    return value


def _key_order(scope: Scope) -> Callable[[str], tuple[int, str]]:
    """Sort key for breakdown names: transforms in canonical order, relations by name."""
    if scope == "transform":
        return lambda k: (_TRANSFORM_ORDER.get(k, len(_TRANSFORM_ORDER)), k)
    return lambda k: (0, k)


# --------------------------------------------------------------------------------------------
# Service


def cohorts(db: Database) -> list[str]:
    """The distinct cohorts students belong to, sorted."""
    return human_cohorts(db)


def comparable_models(db: Database) -> list[str]:
    """Models (as requested in runs) with at least one completed run, sorted."""
    return models_with_completed_runs(db)


@dataclass
class _Student:
    respondent_id: int
    name: str
    records: list[Scored]
    report: Report


@dataclass
class _ModelRun:
    label: str
    run: Run
    records: list[Scored]
    report: Report

    @property
    def run_id(self) -> int | None:
        return self.run.id


def compare(
    db: Database,
    *,
    item_ids: Sequence[str] | None = None,
    kb: str | None = None,
    cohort: str | None = None,
    since: date | None = None,
    until: date | None = None,
    models: Sequence[str] = (),
    run_ids: Sequence[int] = (),
    min_items: int = DEFAULT_MIN_ITEMS,
    assignment_id: int | None = None,
    recall_tiers: str | Tiers | None = None,
) -> HumansVsModels:
    """Compare students with models on the same items (definitions in the module docstring).

    With ``assignment_id`` only answers given in sessions on that assignment count, and the
    models are exactly ``run_ids`` (never a default run: an assignment's results must not pick
    up an unrelated run).

    ``item_ids`` None means every item both sides answered; an empty sequence means no items.
    Open recall items are graded by ``recall_tiers`` ("metric:low:high" or
    :class:`~quizbot.evaluation.recall.Tiers`; None: the defaults), students and every model
    alike. Raises :class:`~quizbot.errors.InputError` for ``since`` after ``until`` or ``min_items``
    below 1, and :class:`~quizbot.errors.NotFoundError` for an unknown knowledge base, item or
    run id. Everything else, including no data at all, comes back as a result with notes.
    """
    if isinstance(item_ids, str):
        item_ids = [item_ids]
    if isinstance(models, str):
        models = [models]
    since, until = _day(since), _day(until)
    if since is not None and until is not None and since > until:
        raise InputError(
            f"the date range starts ({since.isoformat()}) after it ends ({until.isoformat()})",
            hint="pick a start date on or before the end date",
        )
    if min_items < 1:
        raise InputError(
            f"min_items must be at least 1, not {min_items}",
            hint="use the default of 5 or another positive number",
        )
    if kb is not None:
        get_knowledge_base(db, kb)  # NotFoundError names the fix
    tiers = recall_tiers if isinstance(recall_tiers, Tiers) else parse_tiers(recall_tiers)
    notes: list[str] = []
    filters = {
        "item_ids": None if item_ids is None else len(item_ids),
        "kb": kb,
        "cohort": cohort,
        "since": None if since is None else since.isoformat(),
        "until": None if until is None else until.isoformat(),
        "models": list(models),
        "run_ids": list(run_ids),
    }

    # The items asked about, when given; loading them checks that they exist.
    given: list[str] | None = None
    items: dict[str, AnyItem] = {}
    if item_ids is not None:
        given = list(dict.fromkeys(item_ids))
        items = {item.id: item for item in load_any_items(db, given)}
        if kb is not None:
            outside = [i for i in given if items[i].kb != kb]
            if outside:
                notes.append(f"{len(outside)} of the given items are not in {kb!r}; left out")
                given = [i for i in given if items[i].kb == kb]
        if not given:
            notes.append("no items to compare on")

    # Students: first scored answer per (student, item).
    since_at, before_at = _utc_bounds(since, until)
    answers = _first_answers(
        human_answers(
            db,
            item_ids=given,
            kb=kb,
            cohort=cohort,
            since=since_at,
            before=before_at,
            assignment_id=assignment_id,
        ),
        notes,
    )
    candidates = set(given) if given is not None else {a.item_id for a in answers}
    unloaded = sorted(candidates - items.keys())
    if unloaded:
        items.update((item.id, item) for item in load_any_items(db, unloaded))
    recall_asked = any(isinstance(items[i], RecallItem) for i in candidates)

    # Models: the runs, and their scored answers on the candidate items.
    runs = _select_runs(db, models, run_ids, candidates if assignment_id is None else set(), notes)
    model_records: dict[int, list[Scored]] = {}
    for run in runs:
        assert run.id is not None
        model_records[run.id] = [
            r
            for r in run_records(db, run.id)
            if r.item_id in candidates and r.outcome is not Outcome.ERROR
        ]
    # Open recall answers, rescored from their raw text with the one scorer and one set of
    # tiers for everyone (a run's own stored tiers could differ from the students').
    model_recall: dict[int, list[RecallRecord]] = {}
    for run in runs:
        assert run.id is not None
        recalled = recall_records(db, run.id, tiers)[0] if recall_asked else []
        model_recall[run.id] = [r for r in recalled if r.item_id in candidates]

    # The item set: given, or what both sides answered.
    if given is not None:
        item_set = given
    else:
        by_models: set[str] = set()
        for records in model_records.values():
            by_models.update(r.item_id for r in records)
        for recalled in model_recall.values():
            by_models.update(r.item_id for r in recalled)
        item_set = sorted(candidates & by_models)
        dropped = sum(a.item_id not in by_models for a in answers)
        if dropped and runs:
            notes.append(f"{dropped} student answer(s) on items no selected model answered")
    in_set = set(item_set)
    shared_answers = [a for a in answers if a.item_id in in_set]
    students = _students(shared_answers, items)
    model_runs = _model_runs(runs, model_records, in_set)
    student_recall = _student_recall(shared_answers, items, tiers)
    recall_runs = [
        (m.label, m.run_id, [r for r in model_recall[m.run.id or 0] if r.item_id in in_set])
        for m in model_runs
    ]
    recall_groups = _recall_groups(student_recall, recall_runs)
    recall_tests = _recall_vs_students(student_recall, recall_runs)

    if not answers:
        notes.append(_no_students_note(cohort, since, until, kb))
    if candidates and not model_runs:
        notes.append(_no_models_note(db, models, run_ids))
    if answers and model_runs and not item_set:
        notes.append("no item was answered by both students and a model")
    answered = {m.label for m in model_runs if m.records} | {x[0] for x in recall_runs if x[2]}
    notes.extend(f"{m.label}: answered none of the items" for m in model_runs
                 if m.label not in answered)  # fmt: skip

    groups: list[GroupRow] = []
    breakdown: list[SliceRow] = []
    if students:
        reports = [s.report for s in students]
        groups.append(_group_row(STUDENTS, "students", None, reports, _distinct_items(students)))
        breakdown += _slices(STUDENTS, "students", None, reports)
    recall_only = {x[0] for x in recall_runs if x[2]} - {m.label for m in model_runs if m.records}
    for m in model_runs:
        if m.label in recall_only:
            continue  # only open recall answers: its rows are in ``recall``
        n_items = len({r.item_id for r in m.records})
        groups.append(_group_row(m.label, "model", m.run_id, [m.report], n_items))
        breakdown += _slices(m.label, "model", m.run_id, [m.report])
    student_rows = tuple(
        _group_row(s.name, "student", None, [s.report], len(s.records)) for s in students
    )

    tests = _model_vs_students(students, model_runs, notes) + _model_vs_model(model_runs)
    percentiles = tuple(
        _percentile(m, students, min_items)
        for m in model_runs
        if students and m.label not in recall_only
    )
    for p in percentiles:
        if p.n_students == 0:
            notes.append(
                f"{p.model}: no student answered at least {min_items} of its items; no percentile"
            )

    return HumansVsModels(
        filters=filters,
        item_ids=tuple(item_set),
        min_items=min_items,
        groups=tuple(groups),
        students=student_rows,
        breakdown=tuple(breakdown),
        tests=tuple(tests),
        percentiles=percentiles,
        notes=tuple(notes),
        recall=tuple(recall_groups),
        recall_tests=tuple(recall_tests),
        recall_tiers=tiers.as_json() if recall_groups else None,
    )


def _distinct_items(students: Iterable[_Student]) -> int:
    """Distinct items answered by any of ``students``."""
    return len({r.item_id for s in students for r in s.records})


# --------------------------------------------------------------------------------------------
# Gathering


def _day(value: date | None) -> date | None:
    """The day of a date; a datetime counts by its UTC day (a naive one as it is)."""
    if isinstance(value, datetime):
        return (value.astimezone(UTC) if value.tzinfo else value).date()
    return value


def _utc_bounds(since: date | None, until: date | None) -> tuple[datetime | None, datetime | None]:
    """[start of ``since``, start of the day after ``until``) in UTC."""
    start = None if since is None else datetime.combine(since, time(0), tzinfo=UTC)
    end = (
        None if until is None else datetime.combine(until, time(0), tzinfo=UTC) + timedelta(days=1)
    )
    return start, end


def _first_answers(answers: Sequence[HumanAnswer], notes: list[str]) -> list[HumanAnswer]:
    """Scored answers only, and each student's first answer to an item (input is oldest first)."""
    seen: set[tuple[int, str]] = set()
    kept: list[HumanAnswer] = []
    errors = repeats = 0
    for a in answers:
        if a.outcome == Outcome.ERROR.value:
            errors += 1
            continue
        key = (a.respondent_id, a.item_id)
        if key in seen:
            repeats += 1
            continue
        seen.add(key)
        kept.append(a)
    if repeats:
        notes.append(f"{repeats} repeat answer(s) of a student to an item left out (first kept)")
    if errors:
        notes.append(f"{errors} student answer(s) with an error outcome left out")
    return kept


MAX_RUNS_SEARCHED = 100  # per model, newest first: enough for months of nightly runs


def _select_runs(
    db: Database,
    models: Sequence[str],
    run_ids: Sequence[int],
    candidates: set[str],
    notes: list[str],
) -> list[Run]:
    """Explicit runs, then for each other model its most complete finished run on the items.

    A model's default is the completed run that answered most of ``candidates`` (the newest of
    equals), never a failed or partial one, so one small later batch or one monitor night cannot
    replace a full evaluation. Every choice is written to ``notes``, so it is shown.
    """
    selected: list[Run] = []
    for run_id in dict.fromkeys(run_ids):
        run = get_run(db, run_id)  # NotFoundError for an unknown id
        if run.status == RunStatus.FAILED.value:
            raise InputError(
                f"run {run_id} ({run.model_requested}) failed; a failed run is never compared",
                hint="pick a completed run (`quizbot runs list`)",
            )
        if run.status != RunStatus.COMPLETED.value:
            notes.append(
                f"run {run_id} ({run.model_requested}) is {run.status}, not completed; "
                "its answers so far are used"
            )
        selected.append(run)
    if not candidates:
        return selected
    covered = {run.model_requested for run in selected}
    wanted = list(dict.fromkeys(models)) if models or run_ids else comparable_models(db)
    for model in wanted:
        if model in covered:
            continue
        best: tuple[int, Run] | None = None
        for run in completed_runs(db, model)[:MAX_RUNS_SEARCHED]:  # newest first
            overlap = len(scored_item_ids(db, run.id) & candidates)
            if overlap and (best is None or overlap > best[0]):
                best = (overlap, run)
        if best is None:
            notes.append(f"{model}: no completed run answered any of these items")
            continue
        overlap, run = best
        named = f" {run.name!r}" if run.name else ""
        notes.append(
            f"{model}: run {run.id}{named}, the most complete finished run on these items "
            f"({overlap} of {len(candidates)})"
        )
        selected.append(run)
    return selected


def _students(answers: Sequence[HumanAnswer], items: Mapping[str, AnyItem]) -> list[_Student]:
    """Students' true/false and choice answers (open recall answers: :func:`_student_recall`)."""
    records: dict[int, list[Scored]] = defaultdict(list)
    names: dict[int, str] = {}
    for a in answers:
        item = items[a.item_id]
        if isinstance(item, RecallItem):
            continue
        names[a.respondent_id] = a.respondent
        records[a.respondent_id].append(Scored.from_item(item, Outcome(a.outcome), a.parsed_answer))
    students = [_Student(rid, names[rid], rs, compute_metrics(rs)) for rid, rs in records.items()]
    return sorted(students, key=lambda s: (s.name, s.respondent_id))


@dataclass
class _Recaller:
    """One student's open recall answers, rescored."""

    name: str
    records: list[RecallRecord]


def _student_recall(
    answers: Sequence[HumanAnswer], items: Mapping[str, AnyItem], tiers: Tiers
) -> list[_Recaller]:
    """Each student's recall answers scored from what they typed (the scorer models get)."""
    by_student: dict[int, _Recaller] = {}
    for a in answers:
        item = items[a.item_id]
        if not isinstance(item, RecallItem):
            continue
        score = score_recall(item, a.raw_text or "", tiers=tiers)
        student = by_student.setdefault(a.respondent_id, _Recaller(a.respondent, []))
        student.records.append(RecallRecord(item.id, item.aspect, score))
    return sorted(by_student.values(), key=lambda s: s.name)


_RecallRun = tuple[str, int | None, list[RecallRecord]]  # label, run id, records


def _by_aspect(records: Iterable[RecallRecord]) -> dict[str, list[RecallRecord]]:
    groups: dict[str, list[RecallRecord]] = defaultdict(list)
    for r in records:
        groups[r.aspect].append(r)
    return dict(sorted(groups.items()))


def _recall_rows(
    group: str, kind: str, run_id: int | None, n_respondents: int, records: list[RecallRecord],
    *, aspects: bool = True,
) -> list[RecallGroupRow]:  # fmt: skip
    rows = [
        RecallGroupRow(group, kind, run_id, "overall", "", n_respondents,
                       len({r.item_id for r in records}), group_summary(records))
    ]  # fmt: skip
    if aspects:
        rows += [
            RecallGroupRow(group, kind, run_id, "aspect", aspect, n_respondents,
                           len({r.item_id for r in part}), group_summary(part))
            for aspect, part in _by_aspect(records).items()
        ]  # fmt: skip
    return rows


def _recall_groups(
    students: Sequence[_Recaller], runs: Sequence[_RecallRun]
) -> list[RecallGroupRow]:
    """Pooled students, then each model run (overall and per aspect), then each student
    (overall only)."""
    rows: list[RecallGroupRow] = []
    pooled = [r for s in students for r in s.records]
    if pooled:
        rows += _recall_rows(STUDENTS, "students", None, len(students), pooled)
    for label, run_id, records in runs:
        if records:
            rows += _recall_rows(label, "model", run_id, 1, records)
    for s in students:
        rows += _recall_rows(s.name, "student", None, 1, s.records, aspects=False)
    return rows


def _recall_test(
    model: str, scope: str, key: str, a: Sequence[RecallRecord], b: Sequence[RecallRecord]
) -> RecallTestRow:
    xs, ys = [r.score.f1 for r in a], [r.score.f1 for r in b]
    mean_a = sum(xs) / len(xs) if xs else None
    mean_b = sum(ys) / len(ys) if ys else None
    t, p = welch(ys, xs)  # model − students
    return RecallTestRow(
        a=STUDENTS, b=model, scope=scope, key=key, n_a=len(xs), n_b=len(ys),
        mean_a=mean_a, mean_b=mean_b,
        difference=None if mean_a is None or mean_b is None else mean_b - mean_a,
        difference_interval=welch_interval(ys, xs), t=t, p_value=p, p_adjusted=None,
    )  # fmt: skip


def _recall_vs_students(
    students: Sequence[_Recaller], runs: Sequence[_RecallRun]
) -> list[RecallTestRow]:
    """Each model's F1 against the pooled students' (Welch's t), overall and on every aspect
    both answered; p-values adjusted together with Benjamini–Hochberg."""
    pooled = [r for s in students for r in s.records]
    if not pooled:
        return []
    pooled_aspects = _by_aspect(pooled)
    rows: list[RecallTestRow] = []
    for label, _run_id, records in runs:
        if not records:
            continue
        rows.append(_recall_test(label, "overall", "", pooled, records))
        mine = _by_aspect(records)
        for aspect in sorted(mine.keys() & pooled_aspects.keys()):
            rows.append(_recall_test(label, "aspect", aspect, pooled_aspects[aspect], mine[aspect]))
    tested = [i for i, row in enumerate(rows) if row.p_value is not None]
    adjusted = benjamini_hochberg([rows[i].p_value or 0.0 for i in tested])
    for i, p in zip(tested, adjusted, strict=True):
        rows[i] = replace(rows[i], p_adjusted=p)
    return rows


def _model_runs(
    runs: Sequence[Run], records: Mapping[int, list[Scored]], in_set: set[str]
) -> list[_ModelRun]:
    counts = Counter(run.model_requested for run in runs)
    out = []
    for run in runs:
        assert run.id is not None
        label = run.model_requested
        if counts[label] > 1 or label == STUDENTS:
            label = f"{label} (run {run.id})"
        mine = [r for r in records[run.id] if r.item_id in in_set]
        out.append(_ModelRun(label, run, mine, compute_metrics(mine)))
    return out


def _no_students_note(
    cohort: str | None, since: date | None, until: date | None, kb: str | None
) -> str:
    limits = [
        f"cohort {cohort!r}" if cohort is not None else "",
        f"from {since.isoformat()}" if since is not None else "",
        f"until {until.isoformat()}" if until is not None else "",
        f"knowledge base {kb!r}" if kb is not None else "",
    ]
    which = ", ".join(x for x in limits if x)
    return f"no student answers match {which}" if which else "no student answers found"


def _no_models_note(db: Database, models: Sequence[str], run_ids: Sequence[int]) -> str:
    if not models and not run_ids and not comparable_models(db):
        return "no model has a completed run yet (`quizbot eval` makes one)"
    return "no model run answered these items"


# --------------------------------------------------------------------------------------------
# Figures


def _pooled(parts: Iterable[Proportion]) -> Proportion:
    """Sum of counts: the proportion of the union of disjoint samples."""
    k = n = 0
    for p in parts:
        k, n = k + p.k, n + p.n
    return Proportion.of(k, n)


def _group_row(
    group: str, kind: str, run_id: int | None, reports: Sequence[Report], n_items: int
) -> GroupRow:
    return GroupRow(
        group=group,
        kind=kind,
        run_id=run_id,
        n_respondents=len(reports),
        n_items=n_items,
        accuracy=_pooled(r.average_accuracy for r in reports),
        answer_rate=_pooled(r.answer_rate for r in reports),
        joint_accuracy=_pooled(r.joint_accuracy for r in reports),
    )


def _slices(group: str, kind: str, run_id: int | None, reports: Sequence[Report]) -> list[SliceRow]:
    rows: list[SliceRow] = []
    scopes: tuple[Scope, ...] = ("relation", "transform")
    for scope in scopes:
        parts = [r.by_relation if scope == "relation" else r.by_transform for r in reports]
        keys = sorted({k for p in parts for k in p}, key=_key_order(scope))
        for key in keys:
            accuracy = _pooled(p[key].average_accuracy for p in parts if key in p)
            rows.append(SliceRow(group, kind, run_id, scope, key, accuracy))
    return rows


# --------------------------------------------------------------------------------------------
# Tests


def _independent(a: Sequence[Scored], b: Sequence[Scored]) -> Comparison:
    """Two-proportion z-test of b's accuracy vs a's, taking the samples as independent."""
    valid_a = [r for r in a if r.outcome is not Outcome.ERROR]
    valid_b = [r for r in b if r.outcome is not Outcome.ERROR]
    return compare_proportions(
        sum(r.correct for r in valid_a), len(valid_a), sum(r.correct for r in valid_b), len(valid_b)
    )


def _majority(students: Sequence[_Student], model_items: set[str]) -> list[Scored]:
    """One record per item: correct when more than half the students who answered it were."""
    votes: dict[str, list[Scored]] = defaultdict(list)
    for s in students:
        for r in s.records:
            if r.item_id in model_items:
                votes[r.item_id].append(r)
    out = []
    for item_id in sorted(votes):
        rs = votes[item_id]
        right = sum(r.correct for r in rs)
        if 2 * right == len(rs):
            continue  # a tie has no majority
        outcome = Outcome.CORRECT if 2 * right > len(rs) else Outcome.INCORRECT
        out.append(replace(rs[0], outcome=outcome, answer=None))
    return out


def _by_relation(records: Iterable[Scored]) -> dict[str, list[Scored]]:
    groups: dict[str, list[Scored]] = defaultdict(list)
    for r in records:
        groups[r.relation].append(r)
    return groups


_Raw = tuple[str, str, str, str, Comparison]  # a, b, scope, key, test


def _adjusted(family: str, raw: Sequence[_Raw]) -> list[ComparisonRow]:
    """The family's rows with Benjamini–Hochberg p-values; tests without a p-value are dropped."""
    kept: list[_Raw] = []
    p_values: list[float] = []
    for row in raw:
        if row[4].p_value is not None:
            kept.append(row)
            p_values.append(row[4].p_value)
    adjusted = benjamini_hochberg(p_values)
    return [
        ComparisonRow(family, a, b, scope, key, c, p)
        for (a, b, scope, key, c), p in zip(kept, adjusted, strict=True)
    ]


def _model_vs_students(
    students: Sequence[_Student], model_runs: Sequence[_ModelRun], notes: list[str]
) -> list[ComparisonRow]:
    pooled = [r for s in students for r in s.records]
    if not pooled:
        return []
    pooled_by_relation = _by_relation(pooled)
    raw: list[_Raw] = []
    for m in model_runs:
        if not m.records:
            continue
        raw.append((STUDENTS, m.label, "overall", "", _independent(pooled, m.records)))
        mine = _by_relation(m.records)
        for relation in sorted(mine.keys() & pooled_by_relation.keys()):
            comparison = _independent(pooled_by_relation[relation], mine[relation])
            raw.append((STUDENTS, m.label, "relation", relation, comparison))
        majority = _majority(students, {r.item_id for r in m.records})
        paired = compare_runs(majority, m.records)
        if paired.test == "mcnemar_exact":
            raw.append((f"{STUDENTS} (item majority)", m.label, "item_majority", "", paired))
        else:
            notes.append(
                f"{m.label}: {len(majority)} items with a student majority, fewer than "
                f"{MIN_SHARED_FOR_MCNEMAR}; no paired test"
            )
    return _adjusted("model_vs_students", raw)


def _model_vs_model(model_runs: Sequence[_ModelRun]) -> list[ComparisonRow]:
    raw = [
        (a.label, b.label, "overall", "", compare_runs(a.records, b.records))
        for a, b in combinations(model_runs, 2)
        if a.records and b.records
    ]
    return _adjusted("model_vs_model", raw)


def _percentile(m: _ModelRun, students: Sequence[_Student], min_items: int) -> PercentileRow:
    model = {r.item_id: r for r in m.records}
    differences: list[int] = []
    accuracies: list[float] = []
    union: set[str] = set()
    for s in students:
        mine = [r for r in s.records if r.item_id in model]
        if len(mine) < min_items:
            continue
        right = sum(r.correct for r in mine)
        differences.append(right - sum(model[r.item_id].correct for r in mine))
        accuracies.append(right / len(mine))
        union.update(r.item_id for r in mine)
    if not differences:
        return PercentileRow(m.label, m.run_id, 0, 0, 0, 0, None, None, None, ())
    model_accuracy = sum(model[i].correct for i in union) / len(union)
    return PercentileRow(
        model=m.label,
        run_id=m.run_id,
        n_students=len(differences),
        below=sum(d < 0 for d in differences),
        tied=sum(d == 0 for d in differences),
        above=sum(d > 0 for d in differences),
        percentile=float(stats.percentileofscore(differences, 0, kind="mean")),
        model_accuracy=model_accuracy,
        percentile_pooled=float(stats.percentileofscore(accuracies, model_accuracy, kind="mean")),
        student_accuracies=tuple(sorted(accuracies)),
    )
