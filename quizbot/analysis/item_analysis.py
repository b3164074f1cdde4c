"""Item analysis of an assignment: what an instructor reads to keep or drop an item.

Input: each respondent's first answer to each item, as its outcome and parsed answer. Every
respondent who answered under the assignment's protocol counts, students and the models' runs
alike (a model is one respondent like a student); the analysis is given only for assignments
with at least :data:`MIN_RESPONDENTS` respondents, as learning management systems do.

Per item (over the respondents who answered it):

* **difficulty**: the share right (a high value is an easy item), with its Wilson 95% interval;
* **"I do not know" share**: the share who abstained;
* **options**: for a multiple-choice item, the share of respondents whose answer includes each
  letter; for a statement, the shares answering True and False;
* **discrimination**: the corrected point-biserial correlation, Pearson's r between the item
  (1 right, 0 otherwise: wrong or "I do not know") and the rest score (the respondent's right
  answers on every other counted item), over the respondents who answered every counted item.
  Negative values are flagged: the stronger the rest of a respondent's answers, the likelier
  they got this one wrong (a wrong key or a misleading wording). Its 95% interval is Fisher's z
  (n > 3). None when the item or the rest score does not vary.

For the assignment: **KR-20** over the counted items and the complete respondents,
``k/(k−1) · (1 − Σ p_j q_j / σ²)`` with population variances (the classic formula), and Feldt's
95% interval (F with ``n−1`` and ``(n−1)(k−1)`` degrees of freedom). Items retired from the
assignment's scoring are still analysed (``retired``) but left out of every rest score and KR-20.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from quizbot.analysis.clustered import Z95, wilson
from quizbot.domain import Outcome
from quizbot.items import AnyItem, ChoiceItem, StatementItem

__all__ = ["MIN_RESPONDENTS", "Answer", "ItemRow", "Reliability", "analyse"]

MIN_RESPONDENTS = 5
Answer = tuple[str, str | None]  # outcome, parsed answer ("true", "A,C", "idk", ...)


@dataclass(frozen=True)
class ItemRow:
    """One item's figures (see the module docstring)."""

    id: str
    position: int
    kind: str
    n: int  # respondents who answered it
    right: int
    difficulty: float | None
    difficulty_interval: tuple[float, float] | None
    idk_share: float | None
    options: dict[str, float]
    discrimination: float | None
    discrimination_interval: tuple[float, float] | None
    n_complete: int  # respondents behind the discrimination
    retired: bool
    flag: str | None  # "negative discrimination", or None

    def contract(self) -> dict[str, Any]:
        """The entry of ``assignment results --json``'s ``items`` (exactly these keys)."""
        return {
            "id": self.id,
            "difficulty": self.difficulty,
            "discrimination": self.discrimination,
            "idk_share": self.idk_share,
            "options": dict(self.options),
        }

    def as_json(self) -> dict[str, Any]:
        """Every figure, intervals and counts included."""
        return {
            **self.contract(),
            "position": self.position,
            "kind": self.kind,
            "n": self.n,
            "right": self.right,
            "difficulty_interval": _pair(self.difficulty_interval),
            "discrimination_interval": _pair(self.discrimination_interval),
            "n_complete": self.n_complete,
            "retired": self.retired,
            "flag": self.flag,
        }


@dataclass(frozen=True)
class Reliability:
    """KR-20 of the counted items over the complete respondents."""

    kr20: float | None
    interval: tuple[float, float] | None  # Feldt 95%
    n_respondents: int
    n_items: int
    reason: str | None

    def as_json(self) -> dict[str, Any]:
        """JSON-ready dict."""
        return {
            "kr20": self.kr20,
            "interval": _pair(self.interval),
            "n_respondents": self.n_respondents,
            "n_items": self.n_items,
            "reason": self.reason,
        }


def _pair(pair: tuple[float, float] | None) -> list[float] | None:
    return None if pair is None else [pair[0], pair[1]]


def _shares(item: AnyItem, parsed: Sequence[str | None], n: int) -> dict[str, float]:
    if n == 0:
        return {}
    if isinstance(item, StatementItem):
        return {
            "True": sum(p == "true" for p in parsed) / n,
            "False": sum(p == "false" for p in parsed) / n,
        }
    if not isinstance(item, ChoiceItem):
        return {}
    letters = "ABCDEFGHIJKLMNOPQRSTUVWXYZ"[: len(item.options)]
    chosen = [set((p or "").replace(" ", "").split(",")) if p and p != "idk" else set()
              for p in parsed]  # fmt: skip
    return {letter: sum(letter in c for c in chosen) / n for letter in letters}


def _pearson(x: Sequence[float], y: Sequence[float]) -> float | None:
    n = len(x)
    if n < 3:
        return None
    mx, my = sum(x) / n, sum(y) / n
    sxy = sum((a - mx) * (b - my) for a, b in zip(x, y, strict=True))
    sxx = sum((a - mx) ** 2 for a in x)
    syy = sum((b - my) ** 2 for b in y)
    if sxx == 0 or syy == 0:
        return None
    return max(-1.0, min(1.0, sxy / math.sqrt(sxx * syy)))


def _fisher(r: float | None, n: int) -> tuple[float, float] | None:
    if r is None or n <= 3 or abs(r) >= 1:
        return None
    z, half = math.atanh(r), Z95 / math.sqrt(n - 3)
    return math.tanh(z - half), math.tanh(z + half)


def _kr20(rows: Sequence[Sequence[int]]) -> Reliability:
    from scipy import stats  # noqa: PLC0415 - heavy; only results need it

    n = len(rows)
    k = len(rows[0]) if rows else 0
    if n < MIN_RESPONDENTS or k < 2:
        return Reliability(None, None, n, k, _too_few(n, k))
    totals = [sum(r) for r in rows]
    mean = sum(totals) / n
    variance = sum((t - mean) ** 2 for t in totals) / n
    if variance == 0:
        return Reliability(None, None, n, k, "every respondent has the same score")
    pq = sum((p := sum(r[j] for r in rows) / n) * (1 - p) for j in range(k))
    value = k / (k - 1) * (1 - pq / variance)
    df1, df2 = n - 1, (n - 1) * (k - 1)
    low = 1 - (1 - value) * float(stats.f.ppf(0.975, df1, df2))
    high = 1 - (1 - value) * float(stats.f.ppf(0.025, df1, df2))
    return Reliability(value, (low, high), n, k, None)


def _too_few(n: int, k: int) -> str:
    if k < 2:
        return "fewer than 2 counted items"
    return (
        f"{n} respondent(s) answered every counted item; KR-20 and discrimination need "
        f"{MIN_RESPONDENTS}"
    )


def analyse(
    items: Sequence[AnyItem],
    answers: Mapping[str, Mapping[str, Answer]],
    retired: set[str] | frozenset[str] = frozenset(),
) -> tuple[list[ItemRow], Reliability, str | None]:
    """Item rows (in the assignment's order), KR-20, and why there is no analysis (or None).

    ``answers``: respondent -> item id -> (outcome, parsed answer), first answers only, errors
    left out. Fewer than :data:`MIN_RESPONDENTS` respondents give no rows.
    """
    who = sorted(r for r, given in answers.items() if given)
    if len(who) < MIN_RESPONDENTS:
        return (
            [],
            Reliability(None, None, len(who), 0, None),
            (f"item analysis needs at least {MIN_RESPONDENTS} respondents ({len(who)} so far)"),
        )
    right = Outcome.CORRECT.value
    counted = [i.id for i in items if i.id not in retired]
    complete = [r for r in who if all(i in answers[r] for i in counted)]
    matrix = {r: {i: int(answers[r][i][0] == right) for i in counted} for r in complete}
    rows: list[ItemRow] = []
    for position, item in enumerate(items, start=1):
        given = [answers[r][item.id] for r in who if item.id in answers[r]]
        n = len(given)
        k = sum(o == right for o, _ in given)
        rest_items = [i for i in counted if i != item.id]
        usable = complete if len(complete) >= MIN_RESPONDENTS else []
        if item.id in retired:  # analysed against the counted items it is not part of
            usable = [r for r in usable if item.id in answers[r]]
        x = [float(answers[r][item.id][0] == right) for r in usable]
        rest = [float(sum(matrix[r][i] for i in rest_items)) for r in usable]
        r_value = _pearson(x, rest)
        rows.append(
            ItemRow(
                id=item.id, position=position, kind=item.kind, n=n, right=k,
                difficulty=k / n if n else None, difficulty_interval=wilson(k, n),
                idk_share=sum(o == Outcome.ABSTAINED.value for o, _ in given) / n if n else None,
                options=_shares(item, [p for _, p in given], n),
                discrimination=r_value, discrimination_interval=_fisher(r_value, len(usable)),
                n_complete=len(usable), retired=item.id in retired,
                flag="negative discrimination" if r_value is not None and r_value < 0 else None,
            )
        )  # fmt: skip
    reliability = _kr20([[matrix[r][i] for i in counted] for r in complete])
    return rows, reliability, None
