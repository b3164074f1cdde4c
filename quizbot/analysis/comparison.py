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
    Model vs students, per model (answers of one student are correlated, and so are answers to
    one item, so none of these treats the pooled answers as independent trials):
      * ``overall``: the difference in accuracy with a two-way cluster-robust t-test, clustered
        by respondent and by item (:func:`quizbot.analysis.clustered.cluster_difference`).
      * one per shared ``relation``: the same test, only where each side has at least
        :data:`~quizbot.analysis.clustered.MIN_ANSWERS_PER_SIDE` answers; below that the row
        carries the figures and the reason, with no p-value (``p_adjusted`` None).
      * ``item_majority``: an item-level paired comparison. Per item, the students' majority
        verdict (more than half of the students who answered it were right; items where exactly
        half were right are left out) is paired with the model's answer, and McNemar's exact
        test compares the two (compare_runs on the paired records). It is reported only with
        at least :data:`~quizbot.analysis.metrics.MIN_SHARED_FOR_MCNEMAR` usable items.
    Each row says what it is in words (``name``) and which side did better (``direction()``).
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
    having drawn easier or harder items. ``standing`` adds the percentile's Wilson interval and
    the one-sample t-test and Wilcoxon signed-rank test on the per-student differences
    (:func:`quizbot.analysis.clustered.versus_cohort`). ``percentile_pooled`` is the simpler
    variant: the model's accuracy on the union of those students' items, ranked among the students'
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

from collections.abc import Sequence
from dataclasses import dataclass
from datetime import date

from quizbot.analysis.compare_csv import CSV_FIELDS
from quizbot.analysis.compare_humans import (
    Student,
    day_of,
    distinct_items,
    first_answers,
    group_row,
    model_percentile,
    model_vs_students,
    no_students_note,
    score_students,
    slices,
    utc_bounds,
)
from quizbot.analysis.compare_models import (
    ModelRun,
    comparable_models,
    model_runs,
    model_vs_model,
    no_models_note,
    run_choices,
    select_runs,
)
from quizbot.analysis.compare_recall import (
    RecallRun,
    recall_groups,
    recall_vs_students,
    student_recall,
)
from quizbot.analysis.compare_rows import (
    STUDENTS,
    ComparisonRow,
    GroupRow,
    HumansVsModels,
    PercentileRow,
    RecallGroupRow,
    RecallTestRow,
    Scope,
    SliceRow,
)
from quizbot.analysis.metrics import Scored
from quizbot.analysis.recall import RecallRecord, recall_records
from quizbot.analysis.reporting import run_records
from quizbot.domain import Outcome, Run
from quizbot.errors import InputError
from quizbot.evaluation.recall import Tiers, parse_tiers
from quizbot.generate.service import load_any_items
from quizbot.items import AnyItem, RecallItem
from storage import Database
from storage.cohorts import HumanAnswer, human_answers, human_cohorts
from storage.repo import get_knowledge_base

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
    "Scope",
    "SliceRow",
    "cohorts",
    "comparable_models",
    "compare",
    "run_choices",
]

DEFAULT_MIN_ITEMS = 5


def cohorts(db: Database) -> list[str]:
    """The distinct cohorts students belong to, sorted."""
    return human_cohorts(db)


@dataclass
class _Gathered:
    """Both sides' answers on the candidate items, before the item set is fixed."""

    given: list[str] | None  # the items asked about, when given
    items: dict[str, AnyItem]
    answers: list[HumanAnswer]  # students' first scored answers
    candidates: set[str]
    runs: list[Run]
    model_records: dict[int, list[Scored]]
    model_recall: dict[int, list[RecallRecord]]


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
    since, until = _checked(db, since, until, min_items, kb)
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
    given, items = _given_items(db, item_ids, kb, notes)

    # Students: first scored answer per (student, item).
    since_at, before_at = utc_bounds(since, until)
    answers = first_answers(
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

    # Models: the runs, and their scored answers on the candidate items.
    runs = select_runs(db, models, run_ids, candidates if assignment_id is None else set(), notes)
    records, recalled = _model_answers(db, runs, candidates, items, tiers)
    gathered = _Gathered(given, items, answers, candidates, runs, records, recalled)
    item_set = _item_set(gathered, notes)
    if not answers:
        notes.append(no_students_note(cohort, since, until, kb))
    if candidates and not runs:
        notes.append(no_models_note(db, models, run_ids))
    result = _assemble(gathered, item_set, tiers, min_items, notes)
    return HumansVsModels(
        filters=filters,
        item_ids=tuple(item_set),
        min_items=min_items,
        groups=tuple(result.groups),
        students=tuple(result.student_rows),
        breakdown=tuple(result.breakdown),
        tests=tuple(result.tests),
        percentiles=tuple(result.percentiles),
        notes=tuple(notes),
        recall=tuple(result.recall_groups),
        recall_tests=tuple(result.recall_tests),
        recall_tiers=tiers.as_json() if result.recall_groups else None,
    )


def _checked(
    db: Database, since: date | None, until: date | None, min_items: int, kb: str | None
) -> tuple[date | None, date | None]:
    """The date range as days, after checking it, ``min_items`` and the knowledge base."""
    since, until = day_of(since), day_of(until)
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
    return since, until


def _given_items(
    db: Database, item_ids: Sequence[str] | None, kb: str | None, notes: list[str]
) -> tuple[list[str] | None, dict[str, AnyItem]]:
    """The items asked about, when given (loading them checks that they exist), in ``kb``."""
    if item_ids is None:
        return None, {}
    given = list(dict.fromkeys(item_ids))
    items = {item.id: item for item in load_any_items(db, given)}
    if kb is not None:
        outside = [i for i in given if items[i].kb != kb]
        if outside:
            notes.append(f"{len(outside)} of the given items are not in {kb!r}; left out")
            given = [i for i in given if items[i].kb == kb]
    if not given:
        notes.append("no items to compare on")
    return given, items


def _model_answers(
    db: Database,
    runs: Sequence[Run],
    candidates: set[str],
    items: dict[str, AnyItem],
    tiers: Tiers,
) -> tuple[dict[int, list[Scored]], dict[int, list[RecallRecord]]]:
    """Each run's scored answers on the candidate items, and its open recall answers rescored
    from their raw text with the one scorer and one set of tiers for everyone (a run's own
    stored tiers could differ from the students')."""
    recall_asked = any(isinstance(items[i], RecallItem) for i in candidates)
    records: dict[int, list[Scored]] = {}
    recalled: dict[int, list[RecallRecord]] = {}
    for run in runs:
        assert run.id is not None
        records[run.id] = [
            r
            for r in run_records(db, run.id)
            if r.item_id in candidates and r.outcome is not Outcome.ERROR
        ]
    for run in runs:
        assert run.id is not None
        found = recall_records(db, run.id, tiers)[0] if recall_asked else []
        recalled[run.id] = [r for r in found if r.item_id in candidates]
    return records, recalled


def _item_set(g: _Gathered, notes: list[str]) -> list[str]:
    """The item set: given, or what both sides answered."""
    if g.given is not None:
        return g.given
    by_models: set[str] = set()
    for records in g.model_records.values():
        by_models.update(r.item_id for r in records)
    for recalled in g.model_recall.values():
        by_models.update(r.item_id for r in recalled)
    dropped = sum(a.item_id not in by_models for a in g.answers)
    if dropped and g.runs:
        notes.append(f"{dropped} student answer(s) on items no selected model answered")
    return sorted(g.candidates & by_models)


@dataclass
class _Assembled:
    """The rows of a comparison, before they are frozen into :class:`HumansVsModels`."""

    model_runs: list[ModelRun]
    groups: list[GroupRow]
    student_rows: list[GroupRow]
    breakdown: list[SliceRow]
    tests: list[ComparisonRow]
    percentiles: list[PercentileRow]
    recall_groups: list[RecallGroupRow]
    recall_tests: list[RecallTestRow]


def _assemble(
    g: _Gathered, item_set: Sequence[str], tiers: Tiers, min_items: int, notes: list[str]
) -> _Assembled:
    """Figures, tests and percentiles of both sides on the item set."""
    in_set = set(item_set)
    shared_answers = [a for a in g.answers if a.item_id in in_set]
    students = score_students(shared_answers, g.items)
    runs = model_runs(g.runs, g.model_records, in_set)
    recallers = student_recall(shared_answers, g.items, tiers)
    recall_runs: list[RecallRun] = [
        (m.label, m.run_id, [r for r in g.model_recall[m.run.id or 0] if r.item_id in in_set])
        for m in runs
    ]
    if g.answers and runs and not item_set:
        notes.append("no item was answered by both students and a model")
    answered = {m.label for m in runs if m.records} | {x[0] for x in recall_runs if x[2]}
    notes.extend(f"{m.label}: answered none of the items" for m in runs
                 if m.label not in answered)  # fmt: skip
    recall_only = {x[0] for x in recall_runs if x[2]} - {m.label for m in runs if m.records}
    groups, breakdown = _groups(students, runs, recall_only)
    tests = model_vs_students(students, runs, notes) + model_vs_model(runs)
    percentiles = [
        model_percentile(m, students, min_items)
        for m in runs
        if students and m.label not in recall_only
    ]
    for p in percentiles:
        if p.n_students == 0:
            notes.append(
                f"{p.model}: no student answered at least {min_items} of its items; no percentile"
            )
    return _Assembled(
        model_runs=runs,
        groups=groups,
        student_rows=[
            group_row(s.name, "student", None, [s.report], len(s.records)) for s in students
        ],
        breakdown=breakdown,
        tests=tests,
        percentiles=percentiles,
        recall_groups=recall_groups(recallers, recall_runs),
        recall_tests=recall_vs_students(recallers, recall_runs),
    )


def _groups(
    students: Sequence[Student], runs: Sequence[ModelRun], recall_only: set[str]
) -> tuple[list[GroupRow], list[SliceRow]]:
    """The pooled students' and each model's headline row and breakdown (a model with only
    open recall answers has its rows in ``recall``)."""
    groups: list[GroupRow] = []
    breakdown: list[SliceRow] = []
    if students:
        reports = [s.report for s in students]
        groups.append(group_row(STUDENTS, "students", None, reports, distinct_items(students)))
        breakdown += slices(STUDENTS, "students", None, reports)
    for m in runs:
        if m.label in recall_only:
            continue
        n_items = len({r.item_id for r in m.records})
        groups.append(group_row(m.label, "model", m.run_id, [m.report], n_items))
        breakdown += slices(m.label, "model", m.run_id, [m.report])
    return groups, breakdown
