"""The CUSUM family: slow drift of the rotating slice's accuracy that no single night shows.

CUSUM (test ``cusum``, scope ``rotating``)
    A two-sided tabular CUSUM on the rotating slice's nightly accuracy for slow drift that no
    single night shows. Each night t is standardised by its baseline window exactly as in the
    rotating test (z_t, the night's two-proportion statistic against the pooled window, with
    phi), and S⁺ = max(0, S⁺ + z_t − k), S⁻ = max(0, S⁻ − z_t − k), k = ``cusum_k``. A signal is
    S⁺ > h or S⁻ > h (h = ``cusum_h``). The statistic is replayed over the history passed in on
    each call, so ``detect`` stays a pure function of its arguments; pass the window plus a few
    weeks of nights (with k = 0.5 the sums forget old nights within days on a stable model). It
    starts at zero on the first night that has enough baseline nights. Restart: after a signal on
    night s both sums go back to zero and the CUSUM's baseline may only use nights after s, so it
    sleeps until ``min_window`` new nights exist (the old level must not make the new one signal
    again).
    With the defaults (k = 0.5, h = 5) the in-control average run length of a two-sided CUSUM of
    standard normal values is about 470 nights. The finding's ``value`` is the larger arm,
    signed (−S⁻ or +S⁺, in standard errors); ``effect`` is the mean deviation of accuracy from
    baseline over the nights since that arm last left zero.
    A signal is a WARNING when downward and INFO when upward (a drift, not a cliff).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from quizbot.domain import Severity
from quizbot.monitoring.drift.base import Context, Family, Finding, two_proportion
from quizbot.monitoring.drift.dispersion import dispersion
from quizbot.monitoring.drift.night import Night
from quizbot.monitoring.drift.policy import DriftPolicy

__all__ = ["CusumFamily"]


@dataclass
class _Arm:
    """One side of the CUSUM: its sum and the deviations since it last left zero."""

    total: float = 0.0
    deviation: float = 0.0
    nights: int = 0

    def update(self, step: float, deviation: float) -> None:
        self.total = max(0.0, self.total + step)
        if self.total == 0.0:
            self.deviation, self.nights = 0.0, 0
        else:
            self.deviation += deviation
            self.nights += 1


def _cusum(nights: Sequence[Night], policy: DriftPolicy) -> Finding | None:
    """Replay the CUSUM over ``nights`` (the last is tonight) and report tonight's state."""
    upper, lower = _Arm(), _Arm()
    start = 0  # first night the baseline may use (moves past a signal: the restart)
    finding = None
    for t, night in enumerate(nights):
        window = nights[max(start, t - policy.window) : t]
        finding = None
        if len(window) < policy.needed_nights:
            continue
        k_base = sum(n._tally.rotating_k for n in window)
        n_base = sum(n._tally.rotating_n for n in window)
        k_now, n_now = night._tally.rotating_k, night._tally.rotating_n
        if not n_now or not n_base:
            continue
        z, _ = two_proportion(k_now, n_now, k_base, n_base, dispersion(window, policy)[1])
        deviation = k_now / n_now - k_base / n_base
        upper.update(z - policy.cusum_k, deviation)
        lower.update(-z - policy.cusum_k, deviation)
        arm, sign = (lower, -1.0) if lower.total >= upper.total else (upper, 1.0)
        signal = arm.total > policy.cusum_h
        if t == len(nights) - 1:
            mean = arm.deviation / arm.nights if arm.nights else 0.0
            direction = "down" if sign < 0 else "up"
            message = (
                f"rotating-slice accuracy CUSUM {arm.total:.2f} standard errors {direction} "
                f"over {arm.nights} nights (threshold {policy.cusum_h:g}; "
                f"mean deviation {mean * 100:+.1f} points)"
                if arm.nights
                else "rotating-slice accuracy CUSUM at zero: no drift accumulated"
            )
            if signal:
                message = f"slow drift {direction}: {message}; restarted"
            finding = Finding(
                scope="rotating",
                metric="accuracy",
                test="cusum",
                value=sign * arm.total,
                baseline_value=k_base / n_base,
                effect=mean,
                p_value=None,
                p_adjusted=None,
                n=n_now,
                compared_run_ids=tuple(n.run_id for n in window),
                severity=(Severity.WARNING if sign < 0 else Severity.INFO) if signal else None,
                message=message,
            )
        if signal:
            upper, lower, start = _Arm(), _Arm(), t + 1
    return finding


class CusumFamily(Family):
    """The CUSUM, replayed over the history and tonight."""

    name = "cusum"

    def replayed(self, ctx: Context) -> list[Finding]:
        """Tonight's CUSUM finding, once enough baseline nights exist."""
        found = _cusum([*ctx.history, ctx.current], ctx.policy)
        return [] if found is None else [found]
