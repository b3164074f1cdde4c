"""Which failures are retried: never a refused key or a bad request; always a timeout."""

from __future__ import annotations

import asyncio

import pytest
from tenacity import wait_none

from quizbot.providers import ProviderError
from quizbot.providers import retry as retry_module
from quizbot.providers.base import ErrorKind
from quizbot.providers.retry import call_with_retries


@pytest.fixture(autouse=True)
def _no_wait(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(retry_module, "WAIT", wait_none())


def _attempts(error: ProviderError, attempts: int = 6) -> int:
    calls = 0

    async def call() -> str:
        nonlocal calls
        calls += 1
        raise error

    with pytest.raises(ProviderError):
        asyncio.run(call_with_retries(call, attempts=attempts))
    return calls


@pytest.mark.parametrize("kind", ["auth", "bad_request", "not_found"])
def test_errors_that_cannot_heal_are_tried_once(kind: ErrorKind) -> None:
    assert _attempts(ProviderError("no", retryable=False, kind=kind)) == 1


@pytest.mark.parametrize("kind", ["timeout", "rate_limit", "server", "connection"])
def test_transient_errors_are_tried_up_to_the_limit(kind: ErrorKind) -> None:
    assert _attempts(ProviderError("later", retryable=True, kind=kind), attempts=4) == 4


def test_giving_up_stops_retrying_at_once() -> None:
    calls = 0

    async def call() -> str:
        nonlocal calls
        calls += 1
        raise ProviderError("refused", retryable=True, kind="connection")

    with pytest.raises(ProviderError):
        asyncio.run(call_with_retries(call, attempts=6, give_up=lambda: calls >= 2))
    assert calls == 2


def test_litellm_timeouts_are_classified_retryable_and_missing_keys_not() -> None:
    from litellm import exceptions as llm_errors

    from quizbot.providers.litellm_provider import _classify

    timeout = _classify(llm_errors.Timeout("took too long", model="m", llm_provider="openai"))
    assert (timeout.kind, timeout.retryable) == ("timeout", True)
    missing = _classify(
        llm_errors.InternalServerError(
            "Missing credentials. The api_key client option must be set",
            llm_provider="openai",
            model="m",
        )
    )
    assert (missing.kind, missing.retryable) == ("auth", False)
