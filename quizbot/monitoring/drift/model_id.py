"""The model-id family: the provider reported another model tonight than the previous night.

A change of the provider-reported model id against the previous night (both known) is a
WARNING on its own, without a test or a p-value (scope ``model_id``, metric ``provider_model``).
"""

from __future__ import annotations

from quizbot.domain import Severity
from quizbot.monitoring.drift.base import Context, Family, Finding
from quizbot.monitoring.drift.night import Night

__all__ = ["ModelIdFamily"]


def _model_change(previous: Night, current: Night) -> Finding | None:
    before, now = previous.provider_model, current.provider_model
    if before is None or now is None or before == now:
        return None
    return Finding(
        scope="model_id",
        metric="provider_model",
        test="model_id_change",
        value=None,
        baseline_value=None,
        effect=None,
        p_value=None,
        p_adjusted=None,
        n=None,
        compared_run_ids=(previous.run_id,),
        severity=Severity.WARNING,
        message=(
            f"the provider reported model {now!r} tonight and {before!r} the previous night; "
            "changes in accuracy may come from the new model"
        ),
    )


class ModelIdFamily(Family):
    """A new provider-reported model id."""

    name = "model_id"

    def changes(self, ctx: Context) -> list[Finding]:
        """The change against the previous night, if any."""
        if ctx.previous is None:
            return []
        found = _model_change(ctx.previous, ctx.current)
        return [] if found is None else [found]
