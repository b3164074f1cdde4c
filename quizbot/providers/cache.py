"""Caching of model calls, for interactive use only.

A student or researcher asking a model the same question twice in the app need not pay twice:
:class:`CachedProvider` wraps any provider and keys each call by the model, the whole request
(plain text, chat messages, style, token limit, temperature, stop sequences) and the endpoint it
goes to. Timeouts and concurrency do not change an answer and are not part of the key.

Evaluation and monitoring runs refuse a caching provider (:func:`quizbot.evaluation.runner.execute`
checks
:func:`is_caching`): a drift run served from cache would report yesterday's model as today's.
"""

from __future__ import annotations

import asyncio
import hashlib
from typing import Protocol

import orjson

from quizbot.providers.base import Completion, Provider, Request
from storage import Database
from storage.repo import get_cached_call, put_cached_call

__all__ = ["CachedProvider", "CallStore", "DbCallStore", "call_key", "is_caching"]


def call_key(model: str, request: Request, api_base: str | None = None) -> str:
    """The cache key of one call: sha256 over everything that can change the answer."""
    payload = {
        "model": model,
        "api_base": api_base,
        "text": request.text,
        "messages": [dict(m) for m in request.messages],
        "style": request.style,
        "max_tokens": request.max_tokens,
        "temperature": request.temperature,
        "stop": list(request.stop),
        "options": list(request.options),
    }
    return hashlib.sha256(orjson.dumps(payload, option=orjson.OPT_SORT_KEYS)).hexdigest()


class CallStore(Protocol):
    """Where cached calls live."""

    def get(self, key: str) -> Completion | None:
        """The cached completion for ``key``, if any."""
        ...

    def put(self, key: str, model: str, completion: Completion) -> None:
        """Remember ``completion`` under ``key``."""
        ...


class DbCallStore:
    """Cached calls in the application database (table ``model_call_cache``)."""

    def __init__(self, db: Database) -> None:
        self.db = db

    def get(self, key: str) -> Completion | None:
        """The cached completion for ``key``, marked ``cached``, with no latency."""
        row = get_cached_call(self.db, key)
        if row is None:
            return None
        return Completion(
            text=row.text,
            model=row.provider_model,
            latency_ms=0.0,
            prompt_tokens=row.prompt_tokens,
            completion_tokens=row.completion_tokens,
            total_tokens=row.total_tokens,
            cached=True,
        )

    def put(self, key: str, model: str, completion: Completion) -> None:
        """Store a fresh completion (a second put for one key is ignored)."""
        put_cached_call(
            self.db,
            key=key,
            model=model,
            text=completion.text,
            provider_model=completion.model,
            prompt_tokens=completion.prompt_tokens,
            completion_tokens=completion.completion_tokens,
            total_tokens=completion.total_tokens,
        )


class CachedProvider:
    """A provider that answers repeated calls from a :class:`CallStore`."""

    caching = True

    def __init__(self, inner: Provider, store: CallStore, *, api_base: str | None = None) -> None:
        self.inner = inner
        self.store = store
        self.api_base = api_base

    @property
    def name(self) -> str:
        """The wrapped model's name."""
        return self.inner.name

    @property
    def max_concurrency(self) -> int:
        """The wrapped model's concurrency limit."""
        return self.inner.max_concurrency

    async def complete(self, request: Request) -> Completion:
        """The cached answer if there is one, else the model's (then cached)."""
        key = call_key(self.inner.name, request, self.api_base)
        hit = await asyncio.to_thread(self.store.get, key)
        if hit is not None:
            return hit
        completion = await self.inner.complete(request)
        await asyncio.to_thread(self.store.put, key, self.inner.name, completion)
        return completion

    async def aclose(self) -> None:
        """Close the wrapped provider."""
        await self.inner.aclose()


def is_caching(provider: object) -> bool:
    """True if ``provider`` may answer from a cache."""
    return bool(getattr(provider, "caching", False))
