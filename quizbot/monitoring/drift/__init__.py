"""Drift statistics for nightly monitoring: pure functions over scored answers, no database.

A monitor asks a model the same **anchor set** every night (for paired comparisons) plus a
**rotating slice** of fresh items. :class:`Night` holds one night's
:class:`~quizbot.analysis.metrics.Scored` records; :func:`night_summary` describes a night;
:func:`detect` compares tonight with the nights before it and returns one :class:`Finding` per
statistic (each maps onto a ``storage.models.DriftResult`` row; the ones with a severity are
alerts).

One module per **metric family**, each behind the small registry of
:mod:`quizbot.monitoring.drift.registry` (:data:`~quizbot.monitoring.drift.registry.FAMILIES`):

- :mod:`~quizbot.monitoring.drift.model_id`: a change of the provider-reported model id;
- :mod:`~quizbot.monitoring.drift.accuracy`: true/false accuracy of the anchor set, the rotating
  slice and each relation (McNemar, its window generalisation, two-proportion z-tests);
- :mod:`~quizbot.monitoring.drift.recall`: open recall nights (Welch on F1, chi-square on tiers);
- :mod:`~quizbot.monitoring.drift.sdak`: SDAK instruction following;
- :mod:`~quizbot.monitoring.drift.cusum`: slow drift of the rotating slice's accuracy;
- :mod:`~quizbot.monitoring.drift.dispersion`: the quasi-binomial dispersion phi that widens the
  z-tests and the CUSUM, and its descriptive finding.

Each family's statistics are described in its own module. What they share:

Answers whose outcome is ``error`` (the question never reached the model) are left out of every
count and test, as in :mod:`quizbot.analysis.metrics`. "Correct" means outcome ``correct``;
abstained and unparsed answers count as not correct. Effects are tonight − baseline, as fractions
(messages say percentage points).

Baseline window
    The previous ``window`` nights of ``history`` (oldest first, completed nights only; the caller
    decides what counts as completed). With fewer than ``min(min_window, window)`` such nights,
    no window test and no CUSUM is run: only the previous-night test and the model-id check.

Correction (one family per night)
    The night's primary tests are every family's tests but the per-relation ones (anchor vs
    previous, anchor vs window, rotating vs window, open recall, SDAK instruction following).
    Relation p-values are first adjusted with Benjamini–Hochberg among themselves (their minimum
    is Simes' test of "no relation moved"); then every primary p-value, and each relation's BH
    value, is multiplied by m, the number of primary tests run that night (the relation family
    counting once), and capped at 1: a Bonferroni correction, so the chance of any false alarm
    on a stable night stays below ``alpha``. ``p_adjusted`` holds the corrected value
    (:func:`quizbot.monitoring.drift.base.finish`).

Severity
    A corrected test with ``p_adjusted < alpha`` is an alert: CRITICAL when the metric fell by at
    least ``critical_effect`` (10 points by default; a fall of exactly that much is CRITICAL),
    WARNING when it fell by less, INFO when it rose (a model that suddenly does better has
    changed too). A CUSUM signal is a WARNING when downward and INFO when upward (a drift, not a
    cliff). A change of the provider-reported model id against the previous night (both known)
    is a WARNING on its own, without a p-value. Everything else has severity None.

Default alpha = 0.01
    A monitor runs every night; at 0.05 a stable model could raise an alert about every three
    weeks and people would learn to ignore them. At 0.01 the corrected tests allow fewer than
    four a year (the tests' simulated stable monitor sees about one, CUSUM included), while a
    10-point fall on 25 points a night still gives adjusted p-values far below 0.01.

Order of :func:`detect`'s findings
    Model-id change; the corrected tests (primary first, in family order, then relations);
    CUSUM; then the descriptive findings (test None, never alerts): ``overall``/``accuracy``,
    ``overall``/``recall_f1`` on recall nights, ``rotating``/``dispersion`` with a window.
"""

from quizbot.monitoring.drift.base import Finding
from quizbot.monitoring.drift.night import Night, without_items
from quizbot.monitoring.drift.policy import DEFAULT_POLICY, DriftPolicy
from quizbot.monitoring.drift.registry import FAMILIES, detect
from quizbot.monitoring.drift.summary import night_summary

__all__ = [
    "DEFAULT_POLICY",
    "FAMILIES",
    "DriftPolicy",
    "Finding",
    "Night",
    "detect",
    "night_summary",
    "without_items",
]
