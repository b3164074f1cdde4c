"""Any model litellm can reach: the only module in quizbot that imports litellm.

Endpoints and keys: an explicit ``api_base`` (from settings or ``--api-base``), the name of an
environment variable holding the key (keys are read from the environment only, never stored), or
litellm's own environment variables (``OPENAI_API_BASE``, ``OPENAI_API_KEY`` for ``openai/...``,
``ANTHROPIC_API_KEY``...), which keep working untouched. litellm's own retries are off: quizbot's
retry policy (quizbot/providers/retry.py) applies to every provider alike.

Prices: quizbot never shows, stores or limits by a model's cost (spend limits count calls,
quizbot/spend.py). litellm still prices every call, and for a model missing from its price list
(a local server, a fine-tune, the benchmark stub) each call failed that lookup again, trying
every known name and generalisation (about a tenth of a call's CPU). So the first provider for
such a model tells litellm once that its price is zero (:func:`_price_unknown_model_once`); the
prices of models litellm knows are left alone.
"""

from __future__ import annotations

import os
import threading
import time
from collections.abc import Mapping
from typing import Any

# quizbot/__init__.py (always imported before this submodule) has already forced
# LITELLM_LOCAL_MODEL_COST_MAP, so importing litellm here makes no network call.
import litellm
from litellm import exceptions as llm_errors
from litellm.llms.custom_httpx.async_client_cleanup import close_litellm_async_clients

from quizbot.errors import ConfigError, redact, register_secret
from quizbot.providers.base import Completion, ErrorKind, ProviderError, Request

__all__ = ["LiteLLMProvider"]

litellm.suppress_debug_info = True  # no "Give Feedback" banners on every failed call
litellm.telemetry = False

# Providers constructed and not yet closed, across threads (see LiteLLMProvider.aclose).
_open_lock = threading.Lock()
_open_providers = 0

# Model strings whose price has been looked up (and, if litellm had none, set to zero).
_priced: set[str] = set()
_ZERO_PRICE = {
    "input_cost_per_token": 0.0,
    "output_cost_per_token": 0.0,
    "cache_creation_input_token_cost": 0.0,
    "cache_read_input_token_cost": 0.0,
}


def _litellm_knows(model: str) -> bool:
    """Whether litellm's model list has ``model`` (it raises a plain Exception when not)."""
    try:
        litellm.get_model_info(model)
    except Exception:
        return False
    return True


def _price_unknown_model_once(model: str) -> None:
    """Register a zero price with litellm for ``model`` if litellm has no price for it.

    Without one, litellm's cost calculation fails (and is retried under every alias) on every
    call, and the response's cost is None. With it, the cost is 0.0, computed at once. quizbot
    reads neither figure. Models litellm knows keep their prices; each model is checked once per
    process (under the caller's lock).
    """
    if model in _priced:
        return
    _priced.add(model)
    if _litellm_knows(model):
        return  # and its price: leave it
    try:
        _, provider, _, _ = litellm.get_llm_provider(model)
    except Exception:  # an unknown provider fails at the call, with quizbot's error
        return
    litellm.register_model({model: {**_ZERO_PRICE, "litellm_provider": provider}})


class LiteLLMProvider:
    """A model reached through ``litellm.acompletion`` (chat) or ``atext_completion``."""

    def __init__(
        self,
        model: str,
        *,
        api_base: str | None = None,
        api_key_env: str | None = None,
        timeout: float = 60.0,
        max_concurrency: int = 8,
        extra: Mapping[str, Any] | None = None,
    ) -> None:
        self._name = model
        self.api_base = api_base
        self.api_key_env = api_key_env
        self.timeout = timeout
        self._max_concurrency = max_concurrency
        self.extra = dict(extra or {})
        if api_key_env and not os.environ.get(api_key_env):
            raise ConfigError(
                f"model {model!r} reads its API key from {api_key_env}, which is not set",
                hint=f"export {api_key_env}=... before running",
            )
        if api_key_env:
            register_secret(os.environ[api_key_env])  # whatever the variable is called
        global _open_providers  # noqa: PLW0603 - see aclose
        with _open_lock:
            _open_providers += 1
            _price_unknown_model_once(model)
        self._closed = False

    @property
    def name(self) -> str:
        """The litellm model string."""
        return self._name

    @property
    def max_concurrency(self) -> int:
        """Requests in flight at once for this model."""
        return self._max_concurrency

    def _kwargs(self, request: Request) -> dict[str, Any]:
        kwargs: dict[str, Any] = {
            "model": self._name,
            "max_tokens": request.max_tokens,
            "temperature": request.temperature,
            "timeout": self.timeout,
            "num_retries": 0,
            **self.extra,
        }
        if request.stop:
            kwargs["stop"] = list(request.stop)
        if self.api_base:
            kwargs["api_base"] = self.api_base
        if self.api_key_env:
            kwargs["api_key"] = os.environ[self.api_key_env]
        elif (
            self._name.startswith("openai/")
            and (self.api_base or os.environ.get("OPENAI_API_BASE"))
            and not os.environ.get("OPENAI_API_KEY")
        ):
            # A local OpenAI-compatible server (llama.cpp, the stub) takes no key, but the
            # OpenAI client refuses to send a request without one.
            kwargs["api_key"] = "no-key-needed"
        return kwargs

    @staticmethod
    def _secrets(kwargs: Mapping[str, Any]) -> tuple[str, ...]:
        key = kwargs.get("api_key")
        return (key,) if isinstance(key, str) and key != "no-key-needed" else ()

    async def aclose(self) -> None:
        """Release this provider; the last one open in the process closes litellm's clients.

        litellm's HTTP clients are process-wide and cached: closing them while another run (in
        the app or the scheduler) still uses them breaks its calls, and leaving closed clients
        in the cache breaks every later call. So only the last open provider closes them, and
        it empties the cache so the next call builds fresh ones (a CLI run still exits clean).
        """
        global _open_providers  # noqa: PLW0603 - a process-wide count is the point
        if self._closed:
            return
        self._closed = True
        with _open_lock:
            _open_providers -= 1
            last = _open_providers == 0
        if last:
            await close_litellm_async_clients()  # type: ignore[no-untyped-call]
            litellm.in_memory_llm_clients_cache.flush_cache()  # type: ignore[no-untyped-call]

    async def complete(self, request: Request) -> Completion:
        """One call, classified into quizbot's errors; no retries here."""
        kwargs = self._kwargs(request)
        started = time.perf_counter()
        try:
            if request.style == "completion":
                response: Any = await litellm.atext_completion(prompt=request.text, **kwargs)
                text = response.choices[0].text or ""
            else:
                messages = [dict(m) for m in request.messages] or [
                    {"role": "user", "content": request.text}
                ]
                response = await litellm.acompletion(messages=messages, **kwargs)
                text = response.choices[0].message.content or ""
        except Exception as exc:
            raise _classify(exc, self._secrets(kwargs)) from exc
        latency = (time.perf_counter() - started) * 1000
        usage = getattr(response, "usage", None)
        return Completion(
            text=text,
            model=str(getattr(response, "model", None) or self._name),
            latency_ms=latency,
            prompt_tokens=getattr(usage, "prompt_tokens", None),
            completion_tokens=getattr(usage, "completion_tokens", None),
            total_tokens=getattr(usage, "total_tokens", None),
        )


async def embed(
    model: str,
    texts: list[str],
    *,
    api_base: str | None = None,
    api_key_env: str | None = None,
    timeout: float = 60.0,
) -> list[list[float]]:
    """Embedding vectors of ``texts`` from ``model`` through ``litellm.aembedding`` (any provider).

    Failures are classified into :class:`ProviderError` like completions (keys redacted).
    """
    kwargs: dict[str, Any] = {"model": model, "timeout": timeout, "num_retries": 0}
    if api_base:
        kwargs["api_base"] = api_base
    if api_key_env:
        if not os.environ.get(api_key_env):
            raise ConfigError(
                f"embedding model {model!r} reads its API key from {api_key_env}, which is not set",
                hint=f"export {api_key_env}=... before running",
            )
        kwargs["api_key"] = os.environ[api_key_env]
    elif model.startswith("openai/") and api_base and not os.environ.get("OPENAI_API_KEY"):
        kwargs["api_key"] = "no-key-needed"
    secrets = LiteLLMProvider._secrets(kwargs)
    try:
        response: Any = await litellm.aembedding(input=texts, **kwargs)
        data = sorted(response.data, key=lambda d: d["index"] if isinstance(d, dict) else d.index)
        return [
            [float(x) for x in (d["embedding"] if isinstance(d, dict) else d.embedding)]
            for d in data
        ]
    except Exception as exc:
        raise _classify(exc, secrets) from exc


_CONNECTION_CLASSES = (
    "APIConnectionError",
    "ConnectError",
    "ConnectionRefusedError",
    "ConnectTimeout",
)


def _connection_failed(exc: BaseException) -> bool:
    """litellm reports a refused connection as a 500 ("Connection error."): look beneath it."""
    seen: BaseException | None = exc
    for _ in range(8):  # the cause chain is short; never loop on a cycle
        if seen is None:
            return False
        if type(seen).__name__ in _CONNECTION_CLASSES or "connection error" in str(seen).lower():
            return True
        seen = seen.__cause__ or seen.__context__
    return False


def _kind(exc: Exception, status: int | None) -> ErrorKind:
    if isinstance(exc, llm_errors.AuthenticationError) or status in {401, 403}:
        return "auth"
    text = str(exc).lower()
    if "missing credentials" in text or (
        "api_key" in text and ("must be set" in text or "not set" in text)
    ):
        return "auth"  # litellm reports a missing key as a 500
    if isinstance(exc, llm_errors.NotFoundError) or status == 404:
        return "not_found"
    if isinstance(exc, llm_errors.RateLimitError) or status == 429:
        return "rate_limit"
    if isinstance(exc, llm_errors.Timeout):
        return "timeout"
    if isinstance(exc, llm_errors.APIConnectionError) or _connection_failed(exc):
        return "connection"
    if isinstance(exc, llm_errors.BadRequestError) or status in {400, 422}:
        return "bad_request"
    if (status or 0) >= 500 or isinstance(
        exc, llm_errors.InternalServerError | llm_errors.ServiceUnavailableError
    ):
        return "server"
    return "other"


def _classify(exc: Exception, secrets: tuple[str, ...] = ()) -> ProviderError:
    status = getattr(exc, "status_code", None)
    status = status if isinstance(status, int) else None
    kind = _kind(exc, status)
    retryable = kind in {"connection", "rate_limit", "timeout", "server"}
    first = str(exc).strip().splitlines()[0] if str(exc).strip() else type(exc).__name__
    message = redact(f"{type(exc).__name__}: {first[:300]}", secrets)
    return ProviderError(message, retryable=retryable, status=status, kind=kind)
