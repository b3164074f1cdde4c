"""Students in a humans-vs-models comparison: their answers, figures and the tests against them.

Which student answers count (:func:`first_answers`: the first scored answer per student and
item), each student's scored records (:func:`score_students`), the groups' figures
(:func:`group_row`, :func:`slices`), the model-vs-students family (:func:`model_vs_students`)
and a model's percentile within the cohort (:func:`model_percentile`). Definitions:
:mod:`quizbot.analysis.comparison`.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, replace
from datetime import UTC, date, datetime, time, timedelta

from quizbot.analysis.clustered import (
    MIN_ANSWERS_PER_SIDE,
    ClusteredTest,
    cluster_difference,
    versus_cohort,
)
from quizbot.analysis.compare_models import ModelRun, RawTest, adjusted
from quizbot.analysis.compare_rows import (
    STUDENTS,
    ComparisonRow,
    GroupRow,
    PercentileRow,
    Scope,
    SliceRow,
    key_order,
)
from quizbot.analysis.metrics import (
    MIN_SHARED_FOR_MCNEMAR,
    Comparison,
    Proportion,
    Report,
    Scored,
    compare_proportions,
    compare_runs,
    compute_metrics,
)
from quizbot.domain import Outcome
from quizbot.items import AnyItem, RecallItem
from storage.cohorts import HumanAnswer

__all__ = [
    "Student",
    "by_relation",
    "clustered",
    "day_of",
    "distinct_items",
    "first_answers",
    "group_row",
    "independent",
    "item_majority",
    "model_percentile",
    "model_vs_students",
    "no_students_note",
    "pooled_proportion",
    "score_students",
    "slices",
    "to_comparison",
    "utc_bounds",
]


@dataclass
class Student:
    respondent_id: int
    name: str
    records: list[Scored]
    report: Report


# --------------------------------------------------------------------------------------------
# Gathering


def day_of(value: date | None) -> date | None:
    """The day of a date; a datetime counts by its UTC day (a naive one as it is)."""
    if isinstance(value, datetime):
        return (value.astimezone(UTC) if value.tzinfo else value).date()
    return value


def utc_bounds(since: date | None, until: date | None) -> tuple[datetime | None, datetime | None]:
    """[start of ``since``, start of the day after ``until``) in UTC."""
    start = None if since is None else datetime.combine(since, time(0), tzinfo=UTC)
    end = (
        None if until is None else datetime.combine(until, time(0), tzinfo=UTC) + timedelta(days=1)
    )
    return start, end


def first_answers(answers: Sequence[HumanAnswer], notes: list[str]) -> list[HumanAnswer]:
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


def score_students(answers: Sequence[HumanAnswer], items: Mapping[str, AnyItem]) -> list[Student]:
    """Students' true/false and choice answers (open recall answers: :func:`student_recall`)."""
    records: dict[int, list[Scored]] = defaultdict(list)
    names: dict[int, str] = {}
    for a in answers:
        item = items[a.item_id]
        if isinstance(item, RecallItem):
            continue
        names[a.respondent_id] = a.respondent
        records[a.respondent_id].append(Scored.from_item(item, Outcome(a.outcome), a.parsed_answer))
    students = [Student(rid, names[rid], rs, compute_metrics(rs)) for rid, rs in records.items()]
    return sorted(students, key=lambda s: (s.name, s.respondent_id))


def no_students_note(
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


# --------------------------------------------------------------------------------------------
# Figures


def pooled_proportion(parts: Iterable[Proportion]) -> Proportion:
    """Sum of counts: the proportion of the union of disjoint samples."""
    k = n = 0
    for p in parts:
        k, n = k + p.k, n + p.n
    return Proportion.of(k, n)


def group_row(
    group: str, kind: str, run_id: int | None, reports: Sequence[Report], n_items: int
) -> GroupRow:
    return GroupRow(
        group=group,
        kind=kind,
        run_id=run_id,
        n_respondents=len(reports),
        n_items=n_items,
        accuracy=pooled_proportion(r.average_accuracy for r in reports),
        answer_rate=pooled_proportion(r.answer_rate for r in reports),
        joint_accuracy=pooled_proportion(r.joint_accuracy for r in reports),
    )


def slices(group: str, kind: str, run_id: int | None, reports: Sequence[Report]) -> list[SliceRow]:
    rows: list[SliceRow] = []
    scopes: tuple[Scope, ...] = ("relation", "transform")
    for scope in scopes:
        parts = [r.by_relation if scope == "relation" else r.by_transform for r in reports]
        keys = sorted({k for p in parts for k in p}, key=key_order(scope))
        for key in keys:
            accuracy = pooled_proportion(p[key].average_accuracy for p in parts if key in p)
            rows.append(SliceRow(group, kind, run_id, scope, key, accuracy))
    return rows


# --------------------------------------------------------------------------------------------
# Tests


def independent(a: Sequence[Scored], b: Sequence[Scored]) -> Comparison:
    """Two-proportion z-test of b's accuracy vs a's, taking the samples as independent."""
    valid_a = [r for r in a if r.outcome is not Outcome.ERROR]
    valid_b = [r for r in b if r.outcome is not Outcome.ERROR]
    return compare_proportions(
        sum(r.correct for r in valid_a), len(valid_a), sum(r.correct for r in valid_b), len(valid_b)
    )


def item_majority(students: Sequence[Student], model_items: set[str]) -> list[Scored]:
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


def by_relation(records: Iterable[Scored]) -> dict[str, list[Scored]]:
    groups: dict[str, list[Scored]] = defaultdict(list)
    for r in records:
        groups[r.relation].append(r)
    return groups


def model_vs_students(
    students: Sequence[Student], model_runs: Sequence[ModelRun], notes: list[str]
) -> list[ComparisonRow]:
    pooled = [r for s in students for r in s.records]
    if not pooled:
        return []
    raw: list[RawTest] = []
    descriptive: list[ComparisonRow] = []
    for m in model_runs:
        if not m.records:
            continue
        overall = clustered(students, m, None, min_per_side=1)
        if overall.p_value is None:
            descriptive.append(
                ComparisonRow("model_vs_students", STUDENTS, m.label, "overall", "",
                              to_comparison(overall), None, overall.reason or "")
            )  # fmt: skip
        else:
            raw.append((STUDENTS, m.label, "overall", "", to_comparison(overall)))
        for relation in sorted({r.relation for r in m.records} & {r.relation for r in pooled}):
            found = clustered(students, m, relation, min_per_side=MIN_ANSWERS_PER_SIDE)
            if found.p_value is None:  # too few answers: the figures, without a p-value
                descriptive.append(
                    ComparisonRow("model_vs_students", STUDENTS, m.label, "relation", relation,
                                  to_comparison(found), None, found.reason or "")
                )  # fmt: skip
            else:
                raw.append((STUDENTS, m.label, "relation", relation, to_comparison(found)))
        majority = item_majority(students, {r.item_id for r in m.records})
        paired = compare_runs(majority, m.records)
        if paired.test == "mcnemar_exact":
            raw.append((f"{STUDENTS} (item majority)", m.label, "item_majority", "", paired))
        else:
            notes.append(
                f"{m.label}: {len(majority)} items with a student majority, fewer than "
                f"{MIN_SHARED_FOR_MCNEMAR}; no paired test"
            )
    return adjusted("model_vs_students", raw) + descriptive


def clustered(
    students: Sequence[Student], m: ModelRun, relation: str | None, *, min_per_side: int
) -> ClusteredTest:
    """The model's accuracy against the pooled students', clustered by respondent and item
    (:func:`quizbot.analysis.clustered.cluster_difference`), overall or on one relation."""
    rows = [
        (f"student:{s.name}", r.item_id, r.correct, False)
        for s in students
        for r in s.records
        if relation is None or r.relation == relation
    ]
    rows += [
        ("model", r.item_id, r.correct, True)
        for r in m.records
        if relation is None or r.relation == relation
    ]
    return cluster_difference(rows, min_per_side=min_per_side)


def to_comparison(test: ClusteredTest) -> Comparison:
    """A clustered test in the shape every comparison row carries (``z`` holds its t)."""
    low, high = test.interval if test.interval is not None else (None, None)
    df = "" if test.df is None else f", t with {test.df} df"
    return Comparison(
        test="cluster_robust_t", ci_method=f"two-way cluster-robust (respondent, item){df}",
        n_shared=test.n_items, b01=0, b10=0, n_a=test.n_a, n_b=test.n_b,
        accuracy_a=test.accuracy_a, accuracy_b=test.accuracy_b, difference=test.difference,
        difference_low=low, difference_high=high, z=test.t, p_value=test.p_value,
    )  # fmt: skip


def model_percentile(m: ModelRun, students: Sequence[Student], min_items: int) -> PercentileRow:
    from scipy import stats  # noqa: PLC0415 - heavy to import; only results need it

    model = {r.item_id: r for r in m.records}
    differences: list[int] = []
    shares: list[float] = []  # the same differences as accuracies (student − model)
    accuracies: list[float] = []
    union: set[str] = set()
    for s in students:
        mine = [r for r in s.records if r.item_id in model]
        if len(mine) < min_items:
            continue
        right = sum(r.correct for r in mine)
        differences.append(right - sum(model[r.item_id].correct for r in mine))
        shares.append(differences[-1] / len(mine))
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
        standing=versus_cohort(shares),
    )


def distinct_items(students: Iterable[Student]) -> int:
    """Distinct items answered by any of ``students``."""
    return len({r.item_id for s in students for r in s.records})
