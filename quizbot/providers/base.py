"""The provider seam: one method from a prompt to a completion, for every kind of respondent.

A model behind litellm, a built-in baseline and a scripted test double all implement
:class:`Provider`, so the runner, the scorer and the tables treat them alike.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Literal, Protocol

from quizbot.errors import QuizbotError

__all__ = ["Completion", "Provider", "ProviderError", "Request"]

Style = Literal["chat", "completion"]


@dataclass(frozen=True)
class Request:
    """What to ask: the prompt as plain text (completion APIs) and as chat messages."""

    text: str
    messages: tuple[Mapping[str, str], ...] = ()
    style: Style = "chat"
    max_tokens: int = 16
    temperature: float = 0.0
    stop: tuple[str, ...] = ()
    options: tuple[str, ...] = field(default=(), compare=False)  # choice letters, for baselines


@dataclass(frozen=True)
class Completion:
    """What came back, with what is needed to replay and account for the call."""

    text: str
    model: str  # the model id the provider reported (silent upgrades show here)
    latency_ms: float
    prompt_tokens: int | None = None
    completion_tokens: int | None = None
    total_tokens: int | None = None
    cached: bool = False


class ProviderError(QuizbotError):
    """A call failed. ``retryable`` marks rate limits, timeouts, connection errors and 5xx."""

    def __init__(self, message: str, *, retryable: bool, status: int | None = None) -> None:
        super().__init__(message)
        self.retryable = retryable
        self.status = status


class Provider(Protocol):
    """Anything that can answer a :class:`Request`."""

    @property
    def name(self) -> str:
        """The model string the user asked for, e.g. ``openai/gpt-4o-mini``."""
        ...

    @property
    def max_concurrency(self) -> int:
        """How many requests may be in flight at once."""
        ...

    async def complete(self, request: Request) -> Completion:
        """Answer one request; raise :class:`ProviderError` on failure."""
        ...

    async def aclose(self) -> None:
        """Release connections; called when a run is done with the provider."""
        ...
