"""Per-account limits on model calls made from the app: per batch and per UTC day.

Asking models costs the operator money, so in the app (not the command line, which is the
operator's own tool) each account has two limits, by role (:func:`limits_for`, settings
``QUIZBOT_MAX_BATCH_CALLS`` and ``QUIZBOT_MAX_MODEL_CALLS_PER_DAY`` for instructors,
``QUIZBOT_ADMIN_...`` for admins, 0 meaning none):

- a **batch** may make at most so many calls (questions x models);
- an account may make at most so many calls per **UTC day**.

A call is one question put to one model, whatever retries it took; baselines
(``baseline/...``) call nothing and are free. Calls are *reserved* in the database
(:mod:`storage.spend`) before any model is asked, all at once and atomically, so concurrent
requests cannot overshoot; what was not asked (a model that could not be started, a run that
stopped, an answer served from the call cache) is given back with :meth:`Reservation.release`.
A refusal raises :class:`SpendLimitError` and is written to the audit log (``model.limit``).

In local mode (no accounts, loopback only) there is no account to charge: the local user is the
operator on their own machine, and no limit applies, as for ``quizbot eval``.
"""

from __future__ import annotations

import threading
from collections.abc import Sequence
from dataclasses import dataclass, field
from datetime import date

from quizbot import clock
from quizbot.accounts import record_action
from quizbot.config import Settings
from quizbot.domain import Role
from quizbot.errors import QuizbotError
from storage import Database
from storage import spend as store

__all__ = [
    "Limits",
    "Reservation",
    "SpendLimitError",
    "calls_for",
    "limits_for",
    "reserve",
    "today",
    "used_today",
]


class SpendLimitError(QuizbotError):
    """A request would take an account over its model-call limit; nothing was asked."""

    exit_code = 75  # EX_TEMPFAIL: it works again later (or with a smaller batch)


@dataclass(frozen=True, slots=True)
class Limits:
    """An account's limits: calls per batch and per UTC day (None: no limit)."""

    batch: int | None
    per_day: int | None


def limits_for(settings: Settings, role: Role | None) -> Limits:
    """The limits of ``role`` (students may not ask models at all; the tab is closed to them, so
    they get the instructors' limits as a second lock)."""
    if role is Role.ADMIN:
        batch, day = settings.admin_max_batch_calls, settings.admin_max_model_calls_per_day
    else:
        batch, day = settings.max_batch_calls, settings.max_model_calls_per_day
    return Limits(batch or None, day or None)


def today(settings: Settings) -> date:
    """The UTC day calls are counted on, by quizbot's one clock (:func:`quizbot.clock.now`, the
    same the review queue, sessions and assignments take). ``settings`` is kept for callers."""
    return clock.now().date()


def calls_for(models: Sequence[str], n_questions: int) -> int:
    """The calls of asking ``n_questions`` of each of ``models`` (baselines are free)."""
    return n_questions * sum(1 for m in dict.fromkeys(models) if not m.startswith("baseline/"))


@dataclass(slots=True)
class Reservation:
    """Calls reserved for one request; :meth:`release` gives back what was not used."""

    db: Database | None
    user: str
    day: date
    calls: int
    _left: int = field(default=0, init=False)
    _lock: threading.Lock = field(default_factory=threading.Lock, init=False)

    def __post_init__(self) -> None:
        self._left = self.calls

    def release(self, calls: int) -> None:
        """Give back ``calls`` of this reservation (never more than it still holds)."""
        with self._lock:
            calls = max(0, min(calls, self._left))
            self._left -= calls
        if calls and self.db is not None:
            store.release(self.db, self.user, self.day, calls)


def used_today(db: Database, settings: Settings, user: str) -> int:
    """The calls ``user`` has reserved today (UTC)."""
    return store.calls_on(db, user, today(settings))


def _refuse(db: Database, user: str, what: str, message: str, hint: str) -> SpendLimitError:
    record_action(db, user, "model.limit", what, ok=False, detail=f"{message} ({hint})")
    return SpendLimitError(message, hint=hint)


def reserve(
    db: Database,
    settings: Settings,
    user: str | None,
    role: Role | None,
    calls: int,
    *,
    batch: bool,
    what: str = "",
) -> Reservation:
    """Reserve ``calls`` model calls for ``user`` today, or raise :class:`SpendLimitError`.

    ``batch`` applies the per-batch limit too. ``user`` None is local mode: nothing is limited
    or counted. A refusal is written to the audit log with ``what`` (e.g. ``batch``) as target.
    """
    day = today(settings)
    if user is None:
        return Reservation(None, "", day, 0)
    limits = limits_for(settings, role)
    if batch and limits.batch is not None and calls > limits.batch:
        raise _refuse(
            db,
            user,
            what,
            f"a batch may make at most {limits.batch} model calls; this one would make {calls}",
            "choose fewer knowledge points or models (baselines are free)",
        )
    total = store.reserve(db, user, day, calls, limit=limits.per_day)
    if total is None:
        used = store.calls_on(db, user, day)
        raise _refuse(
            db,
            user,
            what,
            f"limit of {limits.per_day} model calls per day reached; resets at 00:00 UTC",
            f"{used} used today and this needs {calls}; ask fewer models or questions, or wait",
        )
    return Reservation(db, user, day, calls)
