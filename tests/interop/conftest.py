"""The interop tests use the real tools of the ``interop`` extra (lm-evaluation-harness, Inspect
AI). Without them a test skips saying so, unless ``QUIZBOT_REQUIRE_INTEROP=1`` (set by CI), where
it fails instead."""

from __future__ import annotations

import importlib.util
import os

import pytest

REQUIRE = os.environ.get("QUIZBOT_REQUIRE_INTEROP", "") in {"1", "true", "yes"}


def need(module: str) -> None:
    """Skip (or fail under QUIZBOT_REQUIRE_INTEROP=1) when ``module`` is not installed."""
    if importlib.util.find_spec(module) is None:
        reason = f"{module} is not installed (pip install -e '.[interop]')"
        if REQUIRE:
            pytest.fail(reason + " and QUIZBOT_REQUIRE_INTEROP is set")
        pytest.skip(reason)
