"""What a humans-vs-models comparison returns: its rows and the whole result.

:func:`quizbot.analysis.comparison.compare` builds a :class:`HumansVsModels`; its module docstring
defines every figure and test these rows carry. ``as_json`` is strict JSON (non-finite numbers
become None); ``to_csv`` is :func:`quizbot.analysis.compare_csv.result_csv`.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any, Literal

from quizbot.analysis.clustered import CohortStanding
from quizbot.analysis.compare_csv import result_csv
from quizbot.analysis.metrics import Comparison, Proportion
from quizbot.transforms import TRANSFORMS

__all__ = [
    "STUDENTS",
    "TEST_NAMES",
    "ComparisonRow",
    "GroupRow",
    "HumansVsModels",
    "PercentileRow",
    "RecallGroupRow",
    "RecallTestRow",
    "Scope",
    "SliceRow",
    "key_order",
    "strict_json",
]

STUDENTS = "students"
# What each test is called on screen (the JSON keeps the ids in "test").
TEST_NAMES = {
    "cluster_robust_t": "difference in accuracy, clustered by respondent and item (t-test)",
    "mcnemar_exact": "paired on items: McNemar's exact test",
    "two_proportion_z": "two-proportion z-test (answers taken as independent)",
}
Scope = Literal["relation", "transform"]
_TRANSFORM_ORDER = {t.value: i for i, t in enumerate(TRANSFORMS)}


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
    p_adjusted: float | None  # Benjamini–Hochberg within the family; None: figures only
    reason: str = ""  # why there is no p-value (a sub-group below the minimum), when none

    @property
    def name(self) -> str:
        """What the test is, in words (:data:`TEST_NAMES`)."""
        return TEST_NAMES.get(self.comparison.test, self.comparison.test)

    def direction(self) -> str:
        """Which side did better, in words ("b higher than a by 12 points", or "no difference")."""
        d = self.comparison.difference
        if d is None:
            return "no figure"
        if d == 0:
            return "no difference"
        word = "higher" if d > 0 else "lower"
        return f"{self.b} {word} than {self.a} by {abs(d) * 100:.0f} points"

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
            "name": self.name,
            "direction": self.direction(),
            "reason": self.reason or None,
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
    # The percentile's interval and the one-sample tests on per-student differences.
    standing: CohortStanding | None = None

    def as_json(self) -> dict[str, Any]:
        """JSON-ready dict."""
        return {
            "standing": None if self.standing is None else self.standing.as_json(),
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
        keys = sorted({k for _, k in cells}, key=key_order(scope))
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
        strict: dict[str, Any] = strict_json(out)
        return strict

    def to_csv(self) -> str:
        """One row per group x scope x metric (:mod:`quizbot.analysis.compare_csv`)."""
        return result_csv(self)


def strict_json(value: Any) -> Any:
    """``value`` with every non-finite float replaced by None (JSON has no NaN or infinity)."""
    if isinstance(value, float):
        return value if math.isfinite(value) else None
    if isinstance(value, dict):
        return {k: strict_json(v) for k, v in value.items()}
    if isinstance(value, list | tuple):
        return [strict_json(v) for v in value]
    return value


def key_order(scope: Scope) -> Callable[[str], tuple[int, str]]:
    """Sort key for breakdown names: transforms in canonical order, relations by name."""
    if scope == "transform":
        return lambda k: (_TRANSFORM_ORDER.get(k, len(_TRANSFORM_ORDER)), k)
    return lambda k: (0, k)
