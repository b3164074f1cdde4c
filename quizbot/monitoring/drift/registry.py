"""The registry of metric families and :func:`detect`, which runs them in four stages.

A family (:class:`~quizbot.monitoring.drift.base.Family`) answers up to four questions about
tonight, each a stage of :func:`detect`, run in this order for every family in
:data:`FAMILIES` order:

1. ``changes``: alerts that need no test (a new provider-reported model id);
2. ``tests``: tests before correction (:class:`~quizbot.monitoring.drift.base.Test`); the
   tests of every family are corrected together as the night's one family of tests
   (:func:`~quizbot.monitoring.drift.base.finish`);
3. ``replayed``: statistics replayed over the history (the CUSUM);
4. ``described``: descriptive findings (test None, never alerts).

Adding a metric family is one module with a ``Family`` subclass and one line in
:data:`FAMILIES`; :func:`detect` does not change.
"""

from __future__ import annotations

import itertools
from collections.abc import Sequence

from quizbot.errors import InputError
from quizbot.monitoring.drift.accuracy import AccuracyFamily
from quizbot.monitoring.drift.base import Context, Family, Finding, finish
from quizbot.monitoring.drift.cusum import CusumFamily
from quizbot.monitoring.drift.dispersion import DispersionFamily, dispersion
from quizbot.monitoring.drift.model_id import ModelIdFamily
from quizbot.monitoring.drift.night import Night
from quizbot.monitoring.drift.policy import DEFAULT_POLICY, DriftPolicy
from quizbot.monitoring.drift.recall import RecallFamily
from quizbot.monitoring.drift.sdak import SdakFamily

__all__ = ["FAMILIES", "Context", "Family", "detect"]


# The order is the order of each stage's findings (and of the night's primary tests).
FAMILIES: tuple[Family, ...] = (
    ModelIdFamily(),
    AccuracyFamily(),
    RecallFamily(),
    SdakFamily(),
    CusumFamily(),
    DispersionFamily(),
)


def _check_order(history: Sequence[Night], current: Night) -> None:
    dates = [night.date for night in history] + [current.date]
    for earlier, later in itertools.pairwise(dates):
        if earlier >= later:
            raise InputError(
                f"monitor nights out of order: {earlier} is not before {later}",
                hint="pass earlier nights oldest first, each on its own date, all before tonight",
            )


def detect(
    history: Sequence[Night], current: Night, policy: DriftPolicy = DEFAULT_POLICY
) -> list[Finding]:
    """Every drift statistic of ``current`` against ``history`` (earlier nights, oldest first).

    Order: model-id change, the corrected tests (anchor vs previous, anchor vs window, rotating
    vs window, open recall, SDAK instruction following, relations), CUSUM, then descriptive
    findings. Alerts are the findings with a severity. InputError when the nights are not in
    date order.
    """
    _check_order(history, current)
    window = list(history[-policy.window :])
    estimate, phi, groups = dispersion(window, policy)
    ctx = Context(
        history=history,
        current=current,
        window=window,
        has_window=len(window) >= policy.needed_nights,
        policy=policy,
        phi_estimate=estimate,
        phi=phi,
        groups=groups,
    )
    findings = [f for family in FAMILIES for f in family.changes(ctx)]
    findings += finish([t for family in FAMILIES for t in family.tests(ctx)], policy)
    findings += [f for family in FAMILIES for f in family.replayed(ctx)]
    findings += [f for family in FAMILIES for f in family.described(ctx)]
    return findings
