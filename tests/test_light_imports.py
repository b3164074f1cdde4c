"""The pure parts load without the heavy libraries (issue 27): parsing an answer, computing
metrics and testing drift need neither a database layer, litellm, Gradio nor langchain-core, so a
script or a notebook that only scores answers starts fast and a refactor that pulls one in is seen.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys

import pytest

HEAVY = ("sqlalchemy", "sqlmodel", "litellm", "gradio", "langchain_core")
# What the web app's start does not need: scipy (results and drift tests import it when they
# compute) and langchain-core (the first prompt builds its templates) cost every `quizbot serve`
# start (a restarted replica, every served test app) about a second of CPU between them.
NOT_AT_START = ("scipy", "langchain_core", "litellm", "statsmodels")
PURE = (
    "quizbot.evaluation.parse",
    "quizbot.evaluation.recall",
    "quizbot.analysis.metrics",
    "quizbot.monitoring.drift",
)


def _loaded_after(module: str, heavy: tuple[str, ...] = HEAVY) -> list[str]:
    code = (
        f"import json, sys, {module}; "
        f"print(json.dumps(sorted(m for m in {heavy!r} if m in sys.modules)))"
    )
    env = {
        **os.environ,
        "LITELLM_LOCAL_MODEL_COST_MAP": "True",
        "GRADIO_ANALYTICS_ENABLED": "False",
    }
    done = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, env=env, check=True
    )
    loaded: list[str] = json.loads(done.stdout)
    return loaded


@pytest.mark.parametrize("module", PURE)
def test_a_pure_module_loads_no_heavy_library(module: str) -> None:
    assert _loaded_after(module) == []


def test_the_service_still_loads_them() -> None:
    # the check itself can see a heavy import: the entry point needs the database layer
    assert "sqlalchemy" in _loaded_after("quizbot.evaluation.service")


def test_the_web_app_starts_without_scipy_langchain_or_litellm() -> None:
    assert _loaded_after("quizbot.ui.gate", NOT_AT_START) == []
    # the check sees them when they are loaded
    assert _loaded_after("scipy.stats", NOT_AT_START) == ["scipy"]
