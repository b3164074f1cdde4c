"""A per-client request-rate limit (token bucket), for answer submissions and logins.

Each client (an address, an account, a session: whatever key the caller chooses) may make
``burst`` requests at once and ``rate`` per second after that. In memory and per process: it
slows down one client hammering an endpoint, it is not an accounting system.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable
from dataclasses import dataclass

from quizbot.errors import QuizbotError

__all__ = ["RateLimit", "RateLimitedError"]


class RateLimitedError(QuizbotError):
    """A client asked too often; the message says when to try again."""

    exit_code = 75  # EX_TEMPFAIL

    def __init__(self, retry_after: float) -> None:
        super().__init__(
            f"too many requests; try again in {max(1, round(retry_after))} s",
            hint="slow down",
        )
        self.retry_after = retry_after


@dataclass
class _Bucket:
    tokens: float
    updated: float


class RateLimit:
    """``burst`` requests at once, then ``rate`` per second, per client key; thread-safe.

    ``clock`` is injectable for tests. At most ``max_clients`` keys are remembered (the ones
    idle longest are forgotten first), so a flood of new keys cannot grow memory without bound.
    """

    def __init__(
        self,
        rate: float,
        burst: int,
        *,
        clock: Callable[[], float] = time.monotonic,
        max_clients: int = 10_000,
    ) -> None:
        if rate <= 0 or burst < 1:
            raise ValueError("rate must be > 0 and burst >= 1")
        self.rate = rate
        self.burst = burst
        self._clock = clock
        self._max = max_clients
        self._buckets: dict[str, _Bucket] = {}
        self._lock = threading.Lock()

    def check(self, key: str) -> None:
        """Take one request for ``key``; :class:`RateLimitedError` when it has none left."""
        now = self._clock()
        with self._lock:
            bucket = self._buckets.pop(key, None) or _Bucket(float(self.burst), now)
            bucket.tokens = min(self.burst, bucket.tokens + (now - bucket.updated) * self.rate)
            bucket.updated = now
            self._buckets[key] = bucket  # most recently used last
            if len(self._buckets) > self._max:
                del self._buckets[next(iter(self._buckets))]
            if bucket.tokens < 1:
                raise RateLimitedError((1 - bucket.tokens) / self.rate)
            bucket.tokens -= 1
