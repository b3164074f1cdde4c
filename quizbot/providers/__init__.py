"""Providers: every respondent that is not a person answers through one seam.

:func:`get_provider` turns a model string into a provider: ``baseline/...`` for the built-in
baselines, anything else for litellm (``openai/...``, ``anthropic/...``, ``ollama/...``,
``local/...`` for quizbot's local llama.cpp server).
"""

from __future__ import annotations

from dataclasses import dataclass

from quizbot.errors import InputError
from quizbot.providers.base import Completion, Provider, ProviderError, Request
from quizbot.providers.baselines import BASELINES, AlwaysTrue, Majority, RandomBaseline

__all__ = [
    "Completion",
    "ModelSettings",
    "Provider",
    "ProviderError",
    "Request",
    "get_provider",
]


@dataclass(frozen=True)
class ModelSettings:
    """How to reach one model: endpoint, key variable, limits."""

    api_base: str | None = None
    api_key_env: str | None = None
    timeout: float = 60.0
    max_concurrency: int = 8


def get_provider(
    model: str,
    settings: ModelSettings | None = None,
    *,
    seed: int | str = 0,
    majority_answer: str = "True",
) -> Provider:
    """The provider for ``model``. Baselines need no network; others go through litellm."""
    settings = settings or ModelSettings()
    if model.startswith("baseline/"):
        if model == "baseline/random":
            return RandomBaseline(seed)
        if model == "baseline/always-true":
            return AlwaysTrue()
        if model == "baseline/majority":
            return Majority(majority_answer)
        raise InputError(f"unknown baseline {model!r}", hint=f"one of: {', '.join(BASELINES)}")
    if model.startswith("local/"):
        # quizbot's local llama.cpp server (quizbot local-model start): OpenAI-compatible.
        if not settings.api_base:
            raise InputError(
                f"{model} needs the local model server's address",
                hint="start it with `quizbot local-model start`",
            )
        model = "openai/" + model.removeprefix("local/")
    if "/" not in model:
        raise InputError(
            f"model {model!r} needs a provider prefix",
            hint="write it as litellm does, e.g. openai/gpt-4o-mini, anthropic/claude-3-5-haiku, "
            "ollama/llama3, or a baseline/...",
        )
    from quizbot.providers.litellm_provider import LiteLLMProvider  # noqa: PLC0415 - heavy import

    return LiteLLMProvider(
        model,
        api_base=settings.api_base,
        api_key_env=settings.api_key_env,
        timeout=settings.timeout,
        max_concurrency=settings.max_concurrency,
    )
