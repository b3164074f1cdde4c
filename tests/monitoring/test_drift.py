"""Drift statistics: hand-computed tests on small nights and time travel over simulated monitors.

The simulated monitor asks 25 knowledge points a night (16 statements each: a fact and its
negative under the eight transforms): 6 anchor points (96 statements, the same every night) and 19
rotating points (304 fresh statements). A scripted model is right with probability p: on anchors
through a fixed uniform draw per (item, seed), so an unchanged model answers them identically every
night; on rotating items by a fresh Bernoulli draw.
"""

from __future__ import annotations

import datetime
import json
import math
from collections.abc import Callable, Sequence
from functools import cache

import numpy as np
import pytest
from scipy import stats

from quizbot.analysis.metrics import Scored
from quizbot.domain import Outcome, Severity
from quizbot.errors import ConfigError, InputError
from quizbot.monitoring.drift import (
    DEFAULT_POLICY,
    DriftPolicy,
    Finding,
    Night,
    detect,
    night_summary,
)
from quizbot.transforms import TRANSFORMS, Polarity, label_for
from tests.helpers.oracles import wilson as oracle_wilson

C, X, A, E = Outcome.CORRECT, Outcome.INCORRECT, Outcome.ABSTAINED, Outcome.ERROR
START = datetime.date(2025, 1, 1)
RELATIONS = ("treats", "causes", "site")
ANCHOR_POINTS, ROTATING_POINTS = 6, 19
Z = 1.959963984540054


# --------------------------------------------------------------------------------------------
# Record builders


def rec(
    item_id: str,
    outcome: Outcome,
    relation: str = "treats",
    point: str | None = None,
) -> Scored:
    """A light true/false statement record (transform 'none', label true)."""
    answer = {C: "true", X: "false"}.get(outcome)
    return Scored(
        item_id, "statement", relation, "none", "positive", True, point, None, outcome, answer
    )


def night(
    day: int,
    anchor: Sequence[Scored] = (),
    rotating: Sequence[Scored] = (),
    model: str | None = "m",
) -> Night:
    """Night number ``day`` (run id = day)."""
    return Night(START + datetime.timedelta(days=day), day, model, anchor, rotating)


def counted(prefix: str, k: int, n: int, relation: str = "treats") -> list[Scored]:
    """n statements, the first k correct, each its own knowledge point."""
    return [rec(f"{prefix}{i}", C if i < k else X, relation) for i in range(n)]


def by_test(findings: Sequence[Finding]) -> dict[tuple[str, str | None], Finding]:
    """Findings by (scope, test)."""
    return {(f.scope, f.test): f for f in findings}


def alerts(findings: Sequence[Finding]) -> list[Finding]:
    """Accuracy findings that raise an alert."""
    return [f for f in findings if f.severity is not None and f.metric == "accuracy"]


def hand_two_proportion(k1: int, n1: int, k2: int, n2: int, phi: float = 1.0) -> float:
    """Two-sided p of the pooled two-proportion z-test, from the textbook formula."""
    pooled = (k1 + k2) / (n1 + n2)
    se = math.sqrt(phi * pooled * (1 - pooled) * (1 / n1 + 1 / n2))
    return float(2 * stats.norm.sf(abs((k1 / n1 - k2 / n2) / se)))


# --------------------------------------------------------------------------------------------
# The simulated monitor


def _point(name: str, relation: str) -> list[tuple[Scored, Scored]]:
    """(right, wrong) records of the 16 statements of one knowledge point."""
    pairs = []
    for polarity in Polarity:
        kp = f"{name}/{polarity.value}"
        for t in TRANSFORMS:
            label = label_for(polarity, t)
            base = t.partner if t.negated else t
            fields = (f"{kp}/{t.value}", "statement", relation, t.value, polarity.value, label)
            rest = (kp, f"{kp}/{base.value}")
            right = Scored(*fields, *rest, C, "true" if label else "false")
            wrong = Scored(*fields, *rest, X, "false" if label else "true")
            pairs.append((right, wrong))
    return pairs


ANCHOR_POOL = [p for j in range(ANCHOR_POINTS) for p in _point(f"a{j}", RELATIONS[j % 3])]


@cache
def rotating_pool(day: int) -> list[tuple[Scored, Scored]]:
    """The fresh rotating statements of night ``day`` (the same across seeds)."""
    return [p for j in range(ROTATING_POINTS) for p in _point(f"r{day}.{j}", RELATIONS[j % 3])]


def pick(pool: Sequence[tuple[Scored, Scored]], right: Sequence[bool]) -> list[Scored]:
    """The right or wrong record of each pool item."""
    return [pair[0] if ok else pair[1] for pair, ok in zip(pool, right, strict=True)]


def simulate(
    seed: int,
    nights: int,
    p_of: Callable[[int], float],
    anchors: bool = True,
    rho: float = 0.0,
) -> list[Night]:
    """Nights 1..``nights`` of the scripted model; ``rho`` > 0 makes rotating answers clustered.

    With rho, each knowledge point (8 statements) gets its own probability from a beta
    distribution with mean p and intra-point correlation rho.
    """
    rng = np.random.default_rng(seed)
    u_anchor = rng.random(len(ANCHOR_POOL))
    out: list[Night] = []
    anchor: list[Scored] = []
    for day in range(1, nights + 1):
        p = p_of(day)
        if anchors and (day == 1 or p != p_of(day - 1)):  # same p, same anchor answers
            anchor = pick(ANCHOR_POOL, (u_anchor < p).tolist())
        if rho:
            total = 1 / rho - 1
            point_p = rng.beta(p * total, (1 - p) * total, size=ROTATING_POINTS * 2)
            right = (rng.random((ROTATING_POINTS * 2, 8)) < point_p[:, None]).ravel()
        else:
            right = rng.random(ROTATING_POINTS * 16) < p
        out.append(night(day, anchor, pick(rotating_pool(day), right.tolist()), "sim-model"))
    return out


def monitor(nights: Sequence[Night], policy: DriftPolicy = DEFAULT_POLICY) -> list[list[Finding]]:
    """detect() on every night with all the nights before it, as the scheduler would."""
    return [detect(nights[:i], nights[i], policy) for i in range(len(nights))]


# --------------------------------------------------------------------------------------------
# Time travel


def test_step_change_alerts_within_three_nights_and_not_before() -> None:
    nights = simulate(seed=11, nights=25, p_of=lambda day: 0.80 if day < 20 else 0.70)
    results = monitor(nights)
    quiet = [(day, f.message) for day, fs in enumerate(results[:19], 1) for f in alerts(fs)]
    assert quiet == []
    alerted = [day for day, fs in enumerate(results, 1) if alerts(fs)]
    assert alerted, "no alert after a 10-point step"
    assert 20 <= alerted[0] <= 22
    first = alerts(results[alerted[0] - 1])
    assert all(f.effect is not None and f.effect < 0 for f in first)
    assert {f.severity for f in first} <= {Severity.WARNING, Severity.CRITICAL}


FALSE_ALARM_SEEDS = 300
FALSE_ALARM_NIGHTS = 10


def test_false_alarm_rate_on_a_stable_model_stays_near_alpha() -> None:
    policy = DriftPolicy()
    first_tested = policy.min_window  # index of the first night with a full baseline
    tested = alarmed = 0
    for seed in range(FALSE_ALARM_SEEDS):
        results = monitor(simulate(1000 + seed, FALSE_ALARM_NIGHTS, lambda _: 0.80), policy)
        for findings in results[first_tested:]:
            tested += 1
            alarmed += bool(alerts(findings))
    rate = alarmed / tested
    print(f"false-alarm rate per stable night: {alarmed}/{tested} = {rate:.4f}")
    # Stricter than 2 * alpha on purpose: without the night's correction the same nights give
    # about 0.017 (raw p < alpha on any test), which this bound catches and 2 * alpha would not.
    assert rate <= policy.alpha


def test_dispersion_keeps_false_alarms_down_when_answers_cluster_by_fact() -> None:
    """With correlated statements, binomial tests alarm often; the quasi-binomial ones do not."""
    binomial = DriftPolicy(overdispersion=False)
    corrected = DriftPolicy()
    counts = {"binomial": 0, "corrected": 0}
    tested = 0
    for seed in range(150):
        nights = simulate(5000 + seed, 10, lambda _: 0.80, anchors=False, rho=0.3)
        for i in range(3, len(nights)):
            tested += 1
            for name, policy in (("binomial", binomial), ("corrected", corrected)):
                counts[name] += bool(alerts(detect(nights[:i], nights[i], policy)))
    assert counts["binomial"] / tested > 5 * corrected.alpha
    assert counts["corrected"] / tested <= 2 * corrected.alpha


# --------------------------------------------------------------------------------------------
# Hand-computed tests


def test_anchor_mcnemar_vs_previous_night_by_hand() -> None:
    # 12 anchors: previously 0..9 right, 10..11 wrong. Tonight 0..4 wrong (b10 = 5),
    # 10 right (b01 = 1). Exact p = 2 * (C(6,0) + C(6,1)) / 2^6 = 14/64.
    before = [rec(f"a{i}", C if i < 10 else X) for i in range(12)]
    now = [rec(f"a{i}", X if i < 5 or i == 11 else C) for i in range(12)]
    findings = detect([night(1, before)], night(2, now))
    f = by_test(findings)[("anchor", "mcnemar_exact_vs_previous")]
    assert f.p_value == pytest.approx(14 / 64)
    assert f.p_adjusted == pytest.approx(14 / 64)  # the only test tonight: m = 1
    assert f.value == pytest.approx(6 / 12)
    assert f.baseline_value == pytest.approx(10 / 12)
    assert f.effect == pytest.approx(-4 / 12)
    assert (f.n, f.compared_run_ids, f.severity) == (12, (1,), None)
    assert "fell 33.3 points vs the previous night" in f.message


def test_large_anchor_drop_is_critical() -> None:
    # 20 anchors all right, then 12 wrong: p = 2 / 2^12; effect -0.6.
    before = [rec(f"a{i}", C) for i in range(20)]
    now = [rec(f"a{i}", X if i < 12 else C) for i in range(20)]
    f = by_test(detect([night(1, before)], night(2, now)))[("anchor", "mcnemar_exact_vs_previous")]
    assert f.p_value == pytest.approx(2 / 2**12)
    assert f.severity is Severity.CRITICAL


def test_anchor_window_test_by_hand() -> None:
    # Items 0..6 right on all three nights (uninformative). Items 7 and 8: right, right, wrong
    # tonight; item 9: right, wrong, right tonight. Each informative item has 2 right answers in
    # 3 nights, so under no change it is right tonight with probability 2/3. Tonight T = 1:
    # P(T <= 1) = (1/3)^3 + 3 (2/3)(1/3)^2 = 7/27, so p = 14/27.
    plans = {i: (C, C, C) for i in range(7)} | {7: (C, C, X), 8: (C, C, X), 9: (C, X, C)}
    nights = [night(d + 1, [rec(f"a{i}", plan[d]) for i, plan in plans.items()]) for d in range(3)]
    policy = DriftPolicy(window=2, min_window=2)
    f = by_test(detect(nights[:2], nights[2], policy))[("anchor", "mcnemar_exact_vs_window")]
    assert f.p_value == pytest.approx(14 / 27)
    # m = 2 (vs previous, vs window; no rotating slice, relation too small): 28/27 capped at 1
    assert f.p_adjusted == 1.0
    assert f.value == pytest.approx(8 / 10)
    assert f.baseline_value == pytest.approx((9 + 0.5) / 10)
    assert f.effect == pytest.approx(-0.15)
    assert (f.n, f.compared_run_ids) == (10, (1, 2))


def test_anchor_window_test_with_one_night_is_mcnemar() -> None:
    before = [rec(f"a{i}", C if i < 10 else X) for i in range(12)]
    now = [rec(f"a{i}", X if i < 5 or i == 11 else C) for i in range(12)]
    findings = by_test(detect([night(1, before)], night(2, now), DriftPolicy(window=1)))
    assert findings[("anchor", "mcnemar_exact_vs_window")].p_value == pytest.approx(14 / 64)
    assert findings[("anchor", "mcnemar_exact_vs_previous")].p_value == pytest.approx(14 / 64)


def test_rotating_two_proportion_by_hand() -> None:
    # Window 80/100, 78/100, 82/100 (pooled 240/300); tonight 65/100.
    # pooled p = 305/400; se = sqrt(p(1-p)(1/100 + 1/300)); z = -0.15/se = -3.0526
    window = [night(d + 1, rotating=counted(f"n{d}.", k, 100)) for d, k in enumerate((80, 78, 82))]
    now = night(4, rotating=counted("t.", 65, 100))
    findings = by_test(detect(window, now, DriftPolicy(overdispersion=False)))
    f = findings[("rotating", "two_proportion_vs_window")]
    pooled = 305 / 400
    z = (0.65 - 0.80) / math.sqrt(pooled * (1 - pooled) * (1 / 100 + 1 / 300))
    assert z == pytest.approx(-3.0526, abs=1e-4)
    p = float(2 * stats.norm.sf(abs(z)))
    assert f.p_value == pytest.approx(p)
    # two tests tonight (rotating, and the one-relation family): Bonferroni m = 2
    assert f.p_adjusted == pytest.approx(2 * p)
    assert (f.value, f.baseline_value, f.n) == (0.65, 0.80, 100)
    assert f.effect == pytest.approx(-0.15)
    assert f.compared_run_ids == (1, 2, 3)
    assert f.severity is Severity.CRITICAL  # adjusted 0.0045 < 0.01 and a 15-point fall
    assert ("relation:treats", "two_proportion_vs_window") in findings


@pytest.mark.parametrize(
    ("tonight", "severity"),
    [(700, Severity.CRITICAL), (720, Severity.WARNING), (880, Severity.INFO), (790, None)],
)
def test_severity_rule(tonight: int, severity: Severity | None) -> None:
    window = [night(d + 1, rotating=counted(f"n{d}.", 800, 1000)) for d in range(3)]
    now = night(4, rotating=counted("t.", tonight, 1000))
    f = by_test(detect(window, now))[("rotating", "two_proportion_vs_window")]
    assert f.severity is severity


def test_dispersion_by_hand() -> None:
    # Each window night: 4 knowledge points of 10 statements with 10, 10, 2, 2 right (24/40).
    # Pearson per night: 4 * (4^2) / (10 * 0.6 * 0.4) = 26.67 on 3 df; phi = 80/9 over 3 nights.
    def points(day: int, right: Sequence[int]) -> list[Scored]:
        return [
            rec(f"d{day}.p{g}.{i}", C if i < k else X, point=f"d{day}.p{g}")
            for g, k in enumerate(right)
            for i in range(10)
        ]

    window = [night(d, rotating=points(d, (10, 10, 2, 2))) for d in (1, 2, 3)]
    now = night(4, rotating=points(4, (5, 5, 5, 5)))
    phi = 3 * (4 * 16 / 2.4) / 9
    findings = by_test(detect(window, now))
    dispersion = findings[("rotating", None)]
    assert dispersion.metric == "dispersion"
    assert dispersion.value == pytest.approx(phi)
    assert dispersion.n == 12
    f = findings[("rotating", "two_proportion_vs_window")]
    assert f.p_value == pytest.approx(hand_two_proportion(20, 40, 72, 120, phi))
    plain = by_test(detect(window, now, DriftPolicy(overdispersion=False)))
    assert plain[("rotating", "two_proportion_vs_window")].p_value == pytest.approx(
        hand_two_proportion(20, 40, 72, 120)
    )


def test_relations_are_corrected_with_benjamini_hochberg_then_bonferroni() -> None:
    # Window: 3 nights with 40/50 right on each of three relations. Tonight: 25/50, 30/50, 40/50.
    def slice_(prefix: str, right: Sequence[int]) -> list[Scored]:
        return [
            r
            for rel, k in zip(RELATIONS, right, strict=True)
            for r in counted(f"{prefix}{rel}.", k, 50, rel)
        ]

    window = [night(d, rotating=slice_(f"n{d}.", (40, 40, 40))) for d in (1, 2, 3)]
    now = night(4, rotating=slice_("t.", (25, 30, 40)))
    findings = by_test(detect(window, now, DriftPolicy(overdispersion=False)))
    raw = [hand_two_proportion(k, 50, 120, 150) for k in (25, 30, 40)]
    # BH by hand for three p-values sorted ascending: p1 < p2 < p3 (here in relation order)
    assert raw[0] < raw[1] < raw[2]
    q3 = raw[2]
    q2 = min(q3, raw[1] * 3 / 2)
    q1 = min(q2, raw[0] * 3)
    m = 2  # the rotating test and the relation family
    for rel, p, q in zip(RELATIONS, raw, (q1, q2, q3), strict=True):
        f = findings[(f"relation:{rel}", "two_proportion_vs_window")]
        assert f.p_value == pytest.approx(p)
        assert f.p_adjusted == pytest.approx(min(1.0, q * m))
    # 'causes' is below alpha on its own but not once the night is corrected
    causes = findings[("relation:causes", "two_proportion_vs_window")]
    assert causes.p_value is not None and causes.p_value < 0.01
    assert causes.severity is None
    assert findings[("relation:treats", "two_proportion_vs_window")].severity is Severity.CRITICAL


def test_small_relations_are_not_tested() -> None:
    window = [night(d, rotating=counted(f"n{d}.", 20, 25)) for d in (1, 2, 3)]
    findings = detect(window, night(4, rotating=counted("t.", 10, 25)))
    assert not [f for f in findings if f.scope.startswith("relation:")]
    assert ("rotating", "two_proportion_vs_window") in by_test(findings)


def test_model_id_change_is_flagged_on_its_own() -> None:
    anchors = [rec(f"a{i}", C) for i in range(12)]
    before = night(1, anchors, model="gpt-x-2024-08-06")
    f = by_test(detect([before], night(2, anchors, model="gpt-x-2024-11-20")))[
        ("model_id", "model_id_change")
    ]
    assert f.severity is Severity.WARNING
    assert (f.p_value, f.p_adjusted, f.effect, f.compared_run_ids) == (None, None, None, (1,))
    assert "gpt-x-2024-11-20" in f.message and "gpt-x-2024-08-06" in f.message
    for model in ("gpt-x-2024-08-06", None):
        assert ("model_id", "model_id_change") not in by_test(
            detect([before], night(2, anchors, model=model))
        )
    unknown_before = night(1, anchors, model=None)
    assert ("model_id", "model_id_change") not in by_test(
        detect([unknown_before], night(2, anchors))
    )


def test_no_window_tests_before_min_window_nights() -> None:
    nights = simulate(seed=3, nights=4, p_of=lambda _: 0.8)
    first = detect([], nights[0])
    assert [(f.scope, f.test, f.baseline_value) for f in first] == [("overall", None, None)]
    early = detect(nights[:2], nights[2])  # two baseline nights, three needed
    assert [(f.scope, f.test) for f in early] == [
        ("anchor", "mcnemar_exact_vs_previous"),
        ("overall", None),
    ]
    assert early[1].baseline_value is None
    later = {(f.scope.split(":")[0], f.test) for f in detect(nights[:3], nights[3])}
    assert {
        ("anchor", "mcnemar_exact_vs_window"),
        ("rotating", "two_proportion_vs_window"),
        ("relation", "two_proportion_vs_window"),
        ("rotating", "cusum"),
    } <= later


def _errored(n: Night, anchor_ids: set[str], rotating_ids: set[str], extra: int) -> Night:
    """The night with some answers turned into provider errors and ``extra`` errored items."""

    def turn(records: Sequence[Scored], ids: set[str]) -> list[Scored]:
        return [
            Scored(
                r.item_id,
                r.kind,
                r.relation,
                r.transform,
                r.polarity,
                r.label,
                r.knowledge_point_id,
                r.pair_id,
                E,
                None,
            )
            if r.item_id in ids
            else r
            for r in records
        ]

    errors = [rec(f"err{n.run_id}.{i}", E, point="err") for i in range(extra)]
    return Night(
        n.date,
        n.run_id,
        n.provider_model,
        turn(n.anchor, anchor_ids),
        [*turn(n.rotating, rotating_ids), *errors],
    )


def _without(n: Night, anchor_ids: set[str], rotating_ids: set[str]) -> Night:
    return Night(
        n.date,
        n.run_id,
        n.provider_model,
        [r for r in n.anchor if r.item_id not in anchor_ids],
        [r for r in n.rotating if r.item_id not in rotating_ids],
    )


def test_error_records_are_ignored() -> None:
    nights = simulate(seed=5, nights=6, p_of=lambda day: 0.8 if day < 6 else 0.7)
    with_errors, removed = [], []
    for i, n in enumerate(nights):
        anchor_ids = {r.item_id for r in n.anchor[i : i + 5]}
        rotating_ids = {r.item_id for r in n.rotating[::7]}
        with_errors.append(_errored(n, anchor_ids, rotating_ids, extra=30))
        removed.append(_without(n, anchor_ids, rotating_ids))
    got = [f.as_json() for f in detect(with_errors[:-1], with_errors[-1])]
    expected = [f.as_json() for f in detect(removed[:-1], removed[-1])]
    assert got == expected
    previous = by_test(detect(with_errors[:-1], with_errors[-1]))[
        ("anchor", "mcnemar_exact_vs_previous")
    ]
    # anchors 4..8 errored last night and 5..9 tonight: 96 - 6 shared answered anchors
    assert previous.n == 90


def _drift_night(day: int, right: int) -> Night:
    """Anchors the same every night; ``right`` of 304 rotating answers right, spread evenly."""
    pool = rotating_pool(day)
    groups = len(pool) // 8
    wrong = {(i % groups) * 8 + i // groups for i in range(len(pool) - right)}
    anchor = pick(ANCHOR_POOL, [i % 5 != 0 for i in range(len(ANCHOR_POOL))])
    return night(day, anchor, pick(pool, [i not in wrong for i in range(len(pool))]))


def test_cusum_catches_slow_drift_that_single_night_tests_miss() -> None:
    # 243/304 right for 12 nights, then 3 fewer (about 1 point) every night.
    rights = [243] * 12 + [243 - 3 * j for j in range(1, 14)]
    nights = [_drift_night(day, k) for day, k in enumerate(rights, 1)]
    policy = DriftPolicy(overdispersion=False)
    results = monitor(nights, policy)

    # The CUSUM by hand: z of each night against the pooled previous (up to 7) nights.
    lower, expected_signal = 0.0, None
    for t in range(3, len(rights)):
        base = rights[max(0, t - 7) : t]
        k_base, n_base = sum(base), 304 * len(base)
        pooled = (rights[t] + k_base) / (304 + n_base)
        se = math.sqrt(pooled * (1 - pooled) * (1 / 304 + 1 / n_base))
        z = (rights[t] / 304 - k_base / n_base) / se
        lower = max(0.0, lower - z - 0.5)
        if lower > 5:
            expected_signal = t
            break
    assert expected_signal is not None and expected_signal >= 15  # the drift starts at index 12

    signal_night = next(t for t, fs in enumerate(results) if alerts(fs))
    assert signal_night == expected_signal
    cusum = by_test(results[signal_night])[("rotating", "cusum")]
    assert cusum.severity is Severity.WARNING
    assert cusum.value == pytest.approx(-lower)
    assert cusum.effect is not None and cusum.effect < 0
    # the single-night tests see nothing: every other finding that night is quiet
    assert [f for f in results[signal_night] if f.severity is not None] == [cusum]
    single = by_test(results[signal_night])[("rotating", "two_proportion_vs_window")]
    assert single.p_value is not None and single.p_value > policy.alpha

    # restart: sums back to zero and no CUSUM until three nights after the signal exist
    for t in range(signal_night + 1, signal_night + 4):
        assert ("rotating", "cusum") not in by_test(results[t])
    resumed = by_test(results[signal_night + 4])[("rotating", "cusum")]
    assert resumed.compared_run_ids == tuple(range(signal_night + 2, signal_night + 5))


# --------------------------------------------------------------------------------------------
# Summary, inputs and errors


def hand_wilson(k: int, n: int) -> list[float]:
    """Wilson score interval from scipy (independent of quizbot)."""
    return list(oracle_wilson(k, n))


def test_night_summary_by_hand() -> None:
    anchor = [r for r, _ in _point("kA", "treats")[:8]]  # the positive side, all right
    plan = (C, C, C, C, C, A, X, E)  # rotating positive side of kB
    rotating = []
    for (right, wrong), outcome in zip(_point("kB", "causes")[:8], plan, strict=True):
        base = right if outcome is C else wrong
        rotating.append(
            Scored(
                base.item_id,
                "statement",
                base.relation,
                base.transform,
                base.polarity,
                base.label,
                base.knowledge_point_id,
                base.pair_id,
                outcome,
                base.answer if outcome in (C, X) else None,
            )
        )
    summary = night_summary(night(1, anchor, rotating, model="m-1"))
    json.dumps(summary)  # JSON-ready
    assert (summary["run_id"], summary["provider_model"], summary["date"]) == (
        1,
        "m-1",
        "2025-01-02",
    )
    overall = summary["overall"]
    assert (overall["n_items"], overall["n_errors"]) == (16, 1)
    assert overall["accuracy"]["k"] == 13 and overall["accuracy"]["n"] == 15
    assert overall["accuracy"]["value"] == pytest.approx(13 / 15)
    assert overall["accuracy"]["interval"] == pytest.approx(hand_wilson(13, 15))
    # kB lost a statement to an error, so only kA is a complete point: 1 of 1
    assert (overall["joint_accuracy"]["k"], overall["joint_accuracy"]["n"]) == (1, 1)
    assert overall["answer_rate"]["value"] == pytest.approx(14 / 15)
    assert summary["anchor"]["accuracy"]["value"] == 1.0
    assert summary["rotating"]["accuracy"]["interval"] == pytest.approx(hand_wilson(5, 7))
    causes = summary["by_relation"]["causes"]
    assert causes["joint_accuracy"] == {"value": None, "k": 0, "n": 0, "interval": None}
    assert summary["by_relation"]["treats"]["joint_accuracy"]["value"] == 1.0


def test_finding_as_json_is_a_drift_result_row() -> None:
    anchors = [rec(f"a{i}", C) for i in range(12)]
    finding = by_test(detect([night(1, anchors, model="a")], night(2, anchors, model="b")))[
        ("model_id", "model_id_change")
    ]
    row = finding.as_json()
    json.dumps(row)
    assert row["severity"] == "warning"
    assert row["compared_run_ids"] == [1]
    assert set(row) >= {
        "scope",
        "metric",
        "test",
        "value",
        "baseline_value",
        "effect",
        "p_value",
        "p_adjusted",
        "n",
        "compared_run_ids",
    }


@pytest.mark.parametrize(
    "bad",
    [
        {"alpha": 0},
        {"alpha": 1.5},
        {"window": 0},
        {"window": True},
        {"cusum_h": 0},
        {"critical_effect": 0},
        {"min_window": 0},
    ],
)
def test_bad_policy_is_a_config_error(bad: dict[str, object]) -> None:
    with pytest.raises(ConfigError) as caught:
        DriftPolicy(**bad)  # type: ignore[arg-type]
    assert caught.value.hint and next(iter(bad)) in caught.value.hint


def test_window_shorter_than_min_window_still_tests() -> None:
    nights = simulate(seed=4, nights=2, p_of=lambda _: 0.8)
    found = {test for _, test in by_test(detect(nights[:1], nights[1], DriftPolicy(window=1)))}
    assert "two_proportion_vs_window" in found


def test_repeated_item_is_an_input_error() -> None:
    with pytest.raises(InputError, match="appears twice"):
        night(1, [rec("x", C)], [rec("x", X)])


def test_nights_out_of_order_are_an_input_error() -> None:
    with pytest.raises(InputError, match="out of order") as caught:
        detect([night(3), night(2)], night(4))
    assert caught.value.hint
    with pytest.raises(InputError):
        detect([night(2)], night(2))
