"""Providers: every respondent that is not a person answers through one seam.

:func:`get_provider` turns a model string into a provider: ``baseline/...`` for the built-in
baselines, anything else for litellm (``openai/...``, ``anthropic/...``, ``ollama/...``,
``local/...`` for quizbot's local llama.cpp server). :func:`resolve_model_settings` is the one
place that decides how a model is reached: command-line values, then the per-model entry of
``QUIZBOT_MODEL_SETTINGS``, then the local server's address for ``local/...``, then defaults.
Whatever stays unset is left to litellm's own environment variables (``OPENAI_API_BASE``,
``OPENAI_API_KEY``, ...).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

from quizbot.config import Settings
from quizbot.errors import InputError
from quizbot.providers.base import Completion, Provider, ProviderError, Request
from quizbot.providers.baselines import BASELINES, AlwaysTrue, Majority, RandomBaseline

__all__ = [
    "Completion",
    "ModelSettings",
    "Provider",
    "ProviderError",
    "Request",
    "embed",
    "get_provider",
    "resolve_model_settings",
]


@dataclass(frozen=True)
class ModelSettings:
    """How to reach one model: endpoint, key variable, limits."""

    api_base: str | None = None
    api_key_env: str | None = None
    timeout: float = 60.0
    max_concurrency: int = 8
    style: Literal["chat", "completion"] | None = None  # None: chat, completion for local/


DEFAULT_TIMEOUT = 60.0
DEFAULT_CONCURRENCY = 8


def resolve_model_settings(
    model: str,
    settings: Settings | None = None,
    *,
    api_base: str | None = None,
    api_key_env: str | None = None,
    timeout: float | None = None,
    max_concurrency: int | None = None,
) -> ModelSettings:
    """How to reach ``model``: explicit values win, then settings, then the local server.

    ``local/...`` models with no configured address use the running ``quizbot local-model``
    server (:class:`~quizbot.errors.ConfigError` naming the fix when none runs).
    """
    options = settings.model_options(model) if settings is not None else None
    base = api_base or (options.api_base if options else None)
    if model.startswith("local/") and not base and settings is not None:
        from quizbot.providers.local import endpoint  # noqa: PLC0415 - only local models need it

        base = endpoint(settings.home)
    return ModelSettings(
        api_base=base,
        api_key_env=api_key_env or (options.api_key_env if options else None),
        timeout=timeout or (options.timeout if options else None) or DEFAULT_TIMEOUT,
        max_concurrency=max_concurrency
        or (options.max_concurrency if options else None)
        or DEFAULT_CONCURRENCY,
        style=options.style if options else None,
    )


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


async def embed(model: str, texts: list[str], settings: ModelSettings) -> list[list[float]]:
    """Embedding vectors of ``texts`` from ``model`` (litellm's embedding API, any provider).

    ``local/...`` models go to the local server as ``openai/...``, as completions do.
    """
    if "/" not in model:
        raise InputError(
            f"embedding model {model!r} needs a provider prefix",
            hint="e.g. openai/text-embedding-3-small",
        )
    if model.startswith("local/"):
        model = "openai/" + model.removeprefix("local/")
    from quizbot.providers.litellm_provider import embed as litellm_embed  # noqa: PLC0415

    return await litellm_embed(
        model,
        texts,
        api_base=settings.api_base,
        api_key_env=settings.api_key_env,
        timeout=settings.timeout,
    )
