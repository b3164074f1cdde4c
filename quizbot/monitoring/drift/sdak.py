"""The SDAK family: nights of a monitor of ``prompt = "sdak"``.

Their statements are also read the SDAK way (``Night.sdak``; the paper's pair metrics of
:func:`quizbot.analysis.sdak.sdak_metrics` go into the summary's ``sdak``). The accuracy
family's tests run on their scored answers as on any night. With a baseline window whose nights
were asked the SDAK way too, one more primary test joins the night's family (same
Bonferroni correction, same severities):

``two_proportion_vs_window`` (scope ``sdak``, metric ``sdak_instruction_following``)
    The pooled two-proportion z-test of the accuracy family, on the share of
    factual/counterfactual pairs whose two replies both give the verdict at their start:
    tonight's pairs (anchor and rotating) against the window nights' pairs pooled, widened
    by phi, the quasi-binomial dispersion of the window's pairs grouped by knowledge point
    (computed as for accuracy, max(1, phi) when ``overdispersion``). The anchor pairs recur
    in the window, which makes the test conservative for them.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Sequence
from dataclasses import dataclass

from quizbot.analysis.sdak import SdakAnswer, sdak_metrics
from quizbot.monitoring.drift.base import Context, Family, Test, pooled_window_test
from quizbot.monitoring.drift.dispersion import floor, pearson
from quizbot.monitoring.drift.night import Night
from quizbot.monitoring.drift.policy import DriftPolicy

__all__ = ["Following", "SdakFamily"]


@dataclass(frozen=True)
class Following:
    """SDAK instruction following of one night: pairs following (k) of pairs counted (n), and
    the Pearson chi-square of its knowledge points about the night's share (for phi)."""

    k: int
    n: int
    pearson: float
    pearson_df: int

    @classmethod
    def of(cls, answers: Sequence[SdakAnswer]) -> Following:
        """Count ``answers`` by knowledge point with the one SDAK reader (a pair never spans
        two knowledge points)."""
        by_point: dict[str, list[SdakAnswer]] = defaultdict(list)
        for answer in answers:
            by_point[answer.item.knowledge_point_id].append(answer)
        points = []
        for group in by_point.values():
            share = sdak_metrics(group).metrics["instruction_following"]
            if share.n:
                points.append((share.k, share.n))
        k, n = sum(p[0] for p in points), sum(p[1] for p in points)
        chi, df = pearson(points, k, n)
        return cls(k=k, n=n, pearson=chi, pearson_df=df)


def following(night: Night) -> Following:
    """``night``'s instruction following, counted once per night."""
    return night.memo("sdak_following", lambda n: Following.of(n.sdak))


def _following_vs_window(
    window: Sequence[Night], current: Night, policy: DriftPolicy
) -> Test | None:
    """SDAK instruction following, tonight's pairs against the window's pooled (module doc)."""
    base = [following(night) for night in window]
    now = following(current)
    k_base, n_base = sum(f.k for f in base), sum(f.n for f in base)
    k_now, n_now = now.k, now.n
    if not n_now or not n_base:
        return None
    chi = sum(f.pearson for f in base)
    df = sum(f.pearson_df for f in base)
    phi = floor(chi / df if df else None, policy)
    return pooled_window_test(
        "sdak",
        "SDAK instruction following",
        (k_now, n_now, k_base, n_base),
        window,
        phi,
        metric="sdak_instruction_following",
    )


class SdakFamily(Family):
    """Instruction following, tonight's pairs against the window's."""

    name = "sdak"

    def tests(self, ctx: Context) -> list[Test]:
        """The test, on an SDAK night with a window."""
        if not (ctx.has_window and ctx.current.sdak):
            return []
        found = _following_vs_window(ctx.window, ctx.current, ctx.policy)
        return [] if found is None else [found]
