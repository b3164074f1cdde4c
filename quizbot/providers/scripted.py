"""A scripted provider for tests and demos, used through the same path as real models.

It answers from a function of the request (or a fixed list, in order), can add latency and fail
on chosen calls, and counts what it was asked, so tests can check retries and resumption.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable, Sequence

from quizbot.providers.base import Completion, ProviderError, Request

__all__ = ["ScriptedProvider"]


class ScriptedProvider:
    """Answers by script. ``fail`` decides, per call number, whether to raise (and how)."""

    def __init__(
        self,
        answers: Callable[[Request], str] | Sequence[str],
        *,
        name: str = "scripted/model",
        reported_model: str | None = None,
        latency_s: float = 0.0,
        fail: Callable[[int, Request], ProviderError | None] | None = None,
        max_concurrency: int = 16,
    ) -> None:
        self._answers = answers
        self._name = name
        self.reported_model = reported_model or name
        self.latency_s = latency_s
        self.fail = fail
        self._max_concurrency = max_concurrency
        self.requests: list[Request] = []

    @property
    def name(self) -> str:
        """The scripted model's name."""
        return self._name

    @property
    def max_concurrency(self) -> int:
        """Requests in flight at once."""
        return self._max_concurrency

    @property
    def calls(self) -> int:
        """How many calls were made (including failed ones)."""
        return len(self.requests)

    async def aclose(self) -> None:
        """Nothing to release."""

    async def complete(self, request: Request) -> Completion:
        """The scripted answer (or the scripted failure)."""
        number = len(self.requests)
        self.requests.append(request)
        if self.latency_s:
            await asyncio.sleep(self.latency_s)
        if self.fail is not None:
            error = self.fail(number, request)
            if error is not None:
                raise error
        if callable(self._answers):
            text = self._answers(request)
        else:
            text = self._answers[number % len(self._answers)]
        return Completion(
            text=text,
            model=self.reported_model,
            latency_ms=self.latency_s * 1000,
            prompt_tokens=len(request.text) // 4,
            completion_tokens=1,
            total_tokens=len(request.text) // 4 + 1,
        )
