"""Evaluation: prompts, parsing and scoring, the runner, and the one entry point every front end
calls (:mod:`quizbot.evaluation.service`).

The names below are loaded on first use (PEP 562), so importing the pure parts (``parse``,
``recall``) does not load the database layer, litellm or langchain-core with the service.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from quizbot.evaluation.runner import RunConfig, RunSummary
    from quizbot.evaluation.service import (
        EvalSpec,
        ModelOverrides,
        ProviderFactory,
        ReadyRun,
        evaluate,
        prompt_style,
        reopen,
        start,
    )

_HOMES = {
    "RunConfig": "quizbot.evaluation.runner",
    "RunSummary": "quizbot.evaluation.runner",
    "EvalSpec": "quizbot.evaluation.service",
    "ModelOverrides": "quizbot.evaluation.service",
    "ProviderFactory": "quizbot.evaluation.service",
    "ReadyRun": "quizbot.evaluation.service",
    "evaluate": "quizbot.evaluation.service",
    "prompt_style": "quizbot.evaluation.service",
    "reopen": "quizbot.evaluation.service",
    "start": "quizbot.evaluation.service",
}

__all__ = [
    "EvalSpec",
    "ModelOverrides",
    "ProviderFactory",
    "ReadyRun",
    "RunConfig",
    "RunSummary",
    "evaluate",
    "prompt_style",
    "reopen",
    "start",
]


def __getattr__(name: str) -> Any:
    """Load an exported name from its module on first use."""
    home = _HOMES.get(name)
    if home is None:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    return getattr(importlib.import_module(home), name)
