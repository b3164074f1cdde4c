"""The one clock of quizbot's business time: what every part that decides by the time of day asks.

Practice sessions (when an idle one ends), accounts (login sessions, lockouts, login rate limits),
assignments (when one opens and closes), the model-call day count, the spaced-review queue and
the timestamps storage writes all take "now" from :func:`now` (or :func:`timestamp`, the same
moment in seconds since the epoch). So one move of this clock moves all of them together:

- ``QUIZBOT_CLOCK_FILE`` (tests and demos, read on every call): a file holding an ISO 8601 time
  (UTC when it names no zone) that is taken as now until the file changes; unset, the real clock.
- :func:`frozen` (tests in the same process): now is the given time, or what the given function
  returns, until the ``with`` block ends; it wins over the file.

How long something took (a request's latency, a monitor's run time) is measured with
``time.monotonic`` or ``time.perf_counter`` instead: those are durations, not times of day.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from datetime import UTC, datetime
from pathlib import Path

from quizbot.errors import ConfigError

__all__ = ["CLOCK_FILE_ENV", "frozen", "now", "read_clock_file", "timestamp"]

CLOCK_FILE_ENV = "QUIZBOT_CLOCK_FILE"

_override: Callable[[], datetime] | None = None


def read_clock_file(path: Path) -> datetime:
    """The time written in ``path``, in UTC; :class:`ConfigError` when it holds no ISO 8601 time
    or cannot be read."""
    try:
        moment = datetime.fromisoformat(path.read_text(encoding="utf-8").strip())
    except (OSError, ValueError) as exc:
        reason = exc.strerror if isinstance(exc, OSError) else "not an ISO 8601 time"
        raise ConfigError(
            f"{CLOCK_FILE_ENV}={path}: cannot read the time in it ({reason})",
            hint="write a time such as 2026-11-24T12:00:00+00:00 into it, or unset it",
        ) from None
    if moment.tzinfo is None:
        moment = moment.replace(tzinfo=UTC)
    return moment.astimezone(UTC)


def now() -> datetime:
    """Now, timezone-aware in UTC: the time set by :func:`frozen`, else the time in
    ``QUIZBOT_CLOCK_FILE`` when it is set, else the real clock."""
    override = _override
    if override is not None:
        return override().astimezone(UTC)
    path = os.environ.get(CLOCK_FILE_ENV)
    if not path:  # unset or empty: the real clock (an empty setting means unset, as elsewhere)
        return datetime.now(UTC)
    return read_clock_file(Path(path))


def timestamp() -> float:
    """:func:`now` in seconds since the epoch (what the rate limits' token buckets count in)."""
    return now().timestamp()


@contextmanager
def frozen(at: datetime | Callable[[], datetime]) -> Iterator[None]:
    """Within the block, :func:`now` is ``at`` (a timezone-aware time), or whatever ``at()``
    returns at each call (a test moving time by hand). Blocks nest; the previous clock comes
    back when the block ends. For tests: it changes the clock of the whole process."""
    global _override  # noqa: PLW0603 - the process's one clock is the point of this module
    if isinstance(at, datetime):
        if at.tzinfo is None:
            raise ValueError("a frozen time needs a time zone")
        moment = at
        source: Callable[[], datetime] = lambda: moment  # noqa: E731
    else:
        source = at
    before, _override = _override, source
    try:
        yield
    finally:
        _override = before
