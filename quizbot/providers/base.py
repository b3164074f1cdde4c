"""The provider seam: one method from a prompt to a completion, for every kind of respondent.

A model behind litellm, a built-in baseline and a scripted test double all implement
:class:`Provider`, so the runner, the scorer and the tables treat them alike.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Literal, Protocol

from quizbot.errors import QuizbotError, redact

__all__ = ["FATAL_KINDS", "Completion", "ErrorKind", "Provider", "ProviderError", "Request"]

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


ErrorKind = Literal[
    "connection", "auth", "not_found", "bad_request", "rate_limit", "timeout", "server", "other"
]
FATAL_KINDS: frozenset[str] = frozenset({"connection", "auth", "not_found", "bad_request"})
"""Kinds that, repeated, mean the model cannot be used at all: a run stops early on them."""


class ProviderError(QuizbotError):
    """A call failed. ``retryable`` marks rate limits, timeouts, connection errors and 5xx.

    ``kind`` says what failed, for the run's fail-fast rule (:data:`FATAL_KINDS`). The message
    is redacted of keys and passwords before it is stored or shown.
    """

    def __init__(
        self,
        message: str,
        *,
        retryable: bool,
        status: int | None = None,
        kind: ErrorKind = "other",
    ) -> None:
        super().__init__(redact(message))
        self.retryable = retryable
        self.status = status
        self.kind: ErrorKind = kind


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
