"""Evaluation: prompts, parsing and scoring, the runner, and the one entry point every front end
calls (:mod:`quizbot.evaluation.service`)."""

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
