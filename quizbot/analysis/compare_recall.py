"""Open recall items in a humans-vs-models comparison: figures per group and Welch's t-tests.

Students' answers are rescored from what they typed and each model's from its raw text with the
one scorer and one set of tiers (definitions: :mod:`quizbot.analysis.comparison`).
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, replace

from quizbot.analysis.compare_rows import STUDENTS, RecallGroupRow, RecallTestRow
from quizbot.analysis.metrics import benjamini_hochberg
from quizbot.analysis.recall import RecallRecord, group_summary, welch, welch_interval
from quizbot.evaluation.recall import Tiers, score_recall
from quizbot.items import AnyItem, RecallItem
from storage.cohorts import HumanAnswer

__all__ = [
    "RecallRun",
    "Recaller",
    "by_aspect",
    "recall_groups",
    "recall_rows",
    "recall_test",
    "recall_vs_students",
    "student_recall",
]


@dataclass
class Recaller:
    """One student's open recall answers, rescored."""

    name: str
    records: list[RecallRecord]


def student_recall(
    answers: Sequence[HumanAnswer], items: Mapping[str, AnyItem], tiers: Tiers
) -> list[Recaller]:
    """Each student's recall answers scored from what they typed (the scorer models get)."""
    by_student: dict[int, Recaller] = {}
    for a in answers:
        item = items[a.item_id]
        if not isinstance(item, RecallItem):
            continue
        score = score_recall(item, a.raw_text or "", tiers=tiers)
        student = by_student.setdefault(a.respondent_id, Recaller(a.respondent, []))
        student.records.append(RecallRecord(item.id, item.aspect, score))
    return sorted(by_student.values(), key=lambda s: s.name)


RecallRun = tuple[str, int | None, list[RecallRecord]]  # label, run id, records


def by_aspect(records: Iterable[RecallRecord]) -> dict[str, list[RecallRecord]]:
    groups: dict[str, list[RecallRecord]] = defaultdict(list)
    for r in records:
        groups[r.aspect].append(r)
    return dict(sorted(groups.items()))


def recall_rows(
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
            for aspect, part in by_aspect(records).items()
        ]  # fmt: skip
    return rows


def recall_groups(students: Sequence[Recaller], runs: Sequence[RecallRun]) -> list[RecallGroupRow]:
    """Pooled students, then each model run (overall and per aspect), then each student
    (overall only)."""
    rows: list[RecallGroupRow] = []
    pooled = [r for s in students for r in s.records]
    if pooled:
        rows += recall_rows(STUDENTS, "students", None, len(students), pooled)
    for label, run_id, records in runs:
        if records:
            rows += recall_rows(label, "model", run_id, 1, records)
    for s in students:
        rows += recall_rows(s.name, "student", None, 1, s.records, aspects=False)
    return rows


def recall_test(
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


def recall_vs_students(
    students: Sequence[Recaller], runs: Sequence[RecallRun]
) -> list[RecallTestRow]:
    """Each model's F1 against the pooled students' (Welch's t), overall and on every aspect
    both answered; p-values adjusted together with Benjamini–Hochberg."""
    pooled = [r for s in students for r in s.records]
    if not pooled:
        return []
    pooled_aspects = by_aspect(pooled)
    rows: list[RecallTestRow] = []
    for label, _run_id, records in runs:
        if not records:
            continue
        rows.append(recall_test(label, "overall", "", pooled, records))
        mine = by_aspect(records)
        for aspect in sorted(mine.keys() & pooled_aspects.keys()):
            rows.append(recall_test(label, "aspect", aspect, pooled_aspects[aspect], mine[aspect]))
    tested = [i for i, row in enumerate(rows) if row.p_value is not None]
    adjusted = benjamini_hochberg([rows[i].p_value or 0.0 for i in tested])
    for i, p in zip(tested, adjusted, strict=True):
        rows[i] = replace(rows[i], p_adjusted=p)
    return rows
