"""What every tab of the app shares: settings, the database, the models on offer, admin checks.

The tabs hold no business logic: they call the services (:mod:`quizbot.practice.service`,
:mod:`quizbot.analysis.comparison`, :mod:`quizbot.monitoring.nights`,
:mod:`quizbot.evaluation.runner`) and render what
those return. Errors a user can fix arrive as :class:`~quizbot.errors.QuizbotError` and are shown
as a message (:func:`quizbot.ui.render.error_markdown`), never as a traceback.
"""

from __future__ import annotations

import hmac
from dataclasses import dataclass

from quizbot.config import Settings
from quizbot.providers.local import LOCAL_MODEL
from quizbot.providers.local import status as local_status
from storage import Database

__all__ = ["BASELINE_MODELS", "UiContext"]

BASELINE_MODELS = ("baseline/always-true", "baseline/random", "baseline/majority")


@dataclass(frozen=True)
class UiContext:
    """The app's shared state (one per process; per-browser state lives in ``gr.State``)."""

    settings: Settings
    db: Database

    def models(self) -> list[str]:
        """Models a user can pick: configured ones, the local server when it runs, baselines."""
        offered = list(self.settings.models)
        if local_status(self.settings.home) is not None:
            offered.append(f"local/{LOCAL_MODEL}")
        offered.extend(m for m in BASELINE_MODELS if m not in offered)
        return offered

    @property
    def admin_enabled(self) -> bool:
        """Whether an admin password is configured (QUIZBOT_ADMIN_PASSWORD)."""
        return self.settings.admin_password is not None

    def check_admin(self, password: str) -> bool:
        """Whether ``password`` is the admin password (constant-time comparison)."""
        secret = self.settings.admin_password
        if secret is None or not password:
            return False
        return hmac.compare_digest(password.encode(), secret.get_secret_value().encode())
