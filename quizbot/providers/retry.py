"""The retry policy, in one place: which failures are retried, how long to wait, when to stop.

Retried: :class:`~quizbot.providers.base.ProviderError` with ``retryable`` (rate limits, timeouts,
connection errors, 5xx). Not retried: other 4xx (a bad request stays bad). Waits grow
exponentially with full jitter. Tests replace :data:`WAIT` to run without sleeping.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from typing import Any, TypeVar

from tenacity import (
    AsyncRetrying,
    RetryCallState,
    retry_if_exception,
    stop_after_attempt,
    wait_random_exponential,
)

from quizbot.providers.base import ProviderError

__all__ = ["WAIT", "call_with_retries", "is_retryable"]

T = TypeVar("T")

# Jittered exponential backoff: up to 0.5 s, 1 s, 2 s ... capped at 20 s.
WAIT: Any = wait_random_exponential(multiplier=0.5, max=20)


def is_retryable(exc: BaseException) -> bool:
    """True for failures worth another try."""
    return isinstance(exc, ProviderError) and exc.retryable


async def call_with_retries(
    call: Callable[[], Awaitable[T]],
    *,
    attempts: int = 6,
    on_retry: Callable[[RetryCallState], None] | None = None,
    give_up: Callable[[], bool] | None = None,
) -> T:
    """Run ``call``, retrying retryable failures up to ``attempts`` tries in all.

    ``give_up()`` returning true stops retrying at once (a run that has decided its model
    cannot be reached does not keep knocking).
    """

    def should_retry(exc: BaseException) -> bool:
        return is_retryable(exc) and not (give_up is not None and give_up())

    retrying = AsyncRetrying(
        retry=retry_if_exception(should_retry),
        wait=WAIT,
        stop=stop_after_attempt(attempts),
        reraise=True,
        before_sleep=on_retry,
    )
    async for attempt in retrying:
        with attempt:
            return await call()
    raise AssertionError("unreachable")  # pragma: no cover - reraise=True
