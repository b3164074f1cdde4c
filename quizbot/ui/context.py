"""What every tab of the app shares: settings, the database, the models on offer, admin checks.

The tabs hold no business logic: they call the services (:mod:`quizbot.practice.service`,
:mod:`quizbot.analysis.comparison`, :mod:`quizbot.monitoring.nights`,
:mod:`quizbot.evaluation.runner`) and render what
those return. Errors a user can fix arrive as :class:`~quizbot.errors.QuizbotError` and are shown
as a message (:func:`quizbot.ui.render.error_markdown`), never as a traceback.
"""

from __future__ import annotations

import logging
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, field

from quizbot import accounts, clock
from quizbot.config import Settings
from quizbot.errors import QuizbotError
from quizbot.providers.local import LOCAL_MODEL
from quizbot.providers.local import status as local_status
from quizbot.ratelimit import RateLimit, RateLimitedError
from storage import Database, shared_state

__all__ = ["BASELINE_MODELS", "SharedRateLimit", "UiContext"]

log = logging.getLogger(__name__)

BASELINE_MODELS = ("baseline/always-true", "baseline/random", "baseline/majority")
ACCOUNTS_RECHECK_S = 2.0  # how long "no accounts yet" is believed before asking again


class _AccountsFlag:
    """Whether accounts exist: once true it stays true (accounts are disabled, never deleted);
    false is asked again after :data:`ACCOUNTS_RECHECK_S`, so the first account locks a running
    local server within seconds."""

    def __init__(self) -> None:
        self._on = False
        self._checked = -1e9
        self._lock = threading.Lock()

    def get(self, db: Database) -> bool:
        if self._on:
            return True
        now = time.monotonic()
        with self._lock:
            if not self._on and now - self._checked >= ACCOUNTS_RECHECK_S:
                self._on = accounts.accounts_exist(db)
                self._checked = now
            return self._on


class SharedRateLimit:
    """``burst`` requests at once, then ``rate`` per second, per key: a token bucket kept in the
    database (:func:`storage.shared_state.take_token`), so every replica of the app takes from
    the same bucket. Keys are prefixed with ``name``; buckets idle long enough to be full again
    are swept at most once a minute per process."""

    SWEEP_EVERY_S = 60.0

    def __init__(
        self, db: Database, name: str, rate: float, burst: int, clock: Callable[[], float]
    ) -> None:
        if rate <= 0 or burst < 1:
            raise ValueError("rate must be > 0 and burst >= 1")
        self.db, self.prefix, self.rate, self.burst = db, f"{name}:", rate, burst
        self._clock = clock
        self._swept = -1e18
        self._lock = threading.Lock()

    def check(self, key: str) -> None:
        """Take one request for ``key``; :class:`RateLimitedError` when it has none left."""
        now = self._clock()
        wait = shared_state.take_token(
            self.db, self.prefix + key, rate=self.rate, burst=self.burst, now=now
        )
        self._sweep(now)
        if wait is not None:
            raise RateLimitedError(wait)

    def _sweep(self, now: float) -> None:
        with self._lock:
            if now - self._swept < self.SWEEP_EVERY_S:
                return
            self._swept = now
        refill_s = self.burst / self.rate
        try:
            shared_state.sweep_rate_buckets(self.db, self.prefix, older_than=now - refill_s)
        except QuizbotError as exc:  # the next sweep tries again; the limit itself held
            log.warning("cannot sweep the %s rate buckets: %s", self.prefix[:-1], exc)


class _AnswerLimit:
    """The practice answers' rate limit, made from the settings on first use: in the database
    on PostgreSQL (shared by the replicas), in memory on SQLite, where one process serves and a
    bucket row would add a committed write (an fsync) to every answer."""

    def __init__(self) -> None:
        self._limit: SharedRateLimit | RateLimit | None = None
        self._lock = threading.Lock()

    def get(self, settings: Settings, db: Database) -> SharedRateLimit | RateLimit:
        with self._lock:
            if self._limit is None:
                per_minute = settings.answers_per_minute
                now = clock.timestamp  # the one clock: the same on every replica; tests move it
                if db.backend == "sqlite":
                    self._limit = RateLimit(per_minute / 60, per_minute, clock=now)
                else:
                    self._limit = SharedRateLimit(db, "answers", per_minute / 60, per_minute, now)
            return self._limit


class _LoginLimits:
    """Login attempts' rate limits, made from the settings on first use: per client address and
    per (username, address), each a token bucket of N at once then N per minute, before any
    password is checked (the lockout comes after). Kept in the database: shared by replicas."""

    def __init__(self) -> None:
        self._limits: tuple[SharedRateLimit, SharedRateLimit] | None = None
        self._lock = threading.Lock()

    def check(self, settings: Settings, db: Database, address: str, name: str) -> None:
        with self._lock:
            if self._limits is None:
                per_address, per_user = (
                    settings.login_per_minute_address,
                    settings.login_per_minute_user,
                )
                now = clock.timestamp  # the one clock: the same on every replica; tests move it
                self._limits = (
                    SharedRateLimit(db, "login-address", per_address / 60, per_address, now),
                    SharedRateLimit(db, "login-user", per_user / 60, per_user, now),
                )
        by_address, by_user = self._limits
        by_address.check(address)
        by_user.check(f"{name.casefold()}\n{address}")


@dataclass(frozen=True)
class UiContext:
    """The app's shared state (one per process; per-browser state lives in ``gr.State``)."""

    settings: Settings
    db: Database
    _accounts: _AccountsFlag = field(default_factory=_AccountsFlag, compare=False, repr=False)
    _answers: _AnswerLimit = field(default_factory=_AnswerLimit, compare=False, repr=False)
    _logins: _LoginLimits = field(default_factory=_LoginLimits, compare=False, repr=False)

    def check_login_rate(self, address: str, name: str) -> None:
        """Take one login attempt of ``name`` from ``address``: raises
        :class:`~quizbot.ratelimit.RateLimitedError` when the address
        (QUIZBOT_LOGIN_PER_MINUTE_ADDRESS) or that name from that address
        (QUIZBOT_LOGIN_PER_MINUTE_USER) has none left."""
        self._logins.check(self.settings, self.db, address, name)

    def check_answer_rate(self, session_id: int) -> None:
        """Take one practice answer of session ``session_id`` from its rate limit
        (``QUIZBOT_ANSWERS_PER_MINUTE`` at once, then as many per minute); raises
        :class:`~quizbot.ratelimit.RateLimitedError` (nothing is recorded) when it has none left."""
        self._answers.get(self.settings, self.db).check(f"session:{session_id}")

    def accounts_mode(self) -> bool:
        """Whether logins are required: an account exists, or an authenticating proxy names
        the user (QUIZBOT_TRUSTED_PROXY_HEADER)."""
        return self.settings.proxy_mode or self._accounts.get(self.db)

    def models(self) -> list[str]:
        """Models a user can pick: configured ones, the local server when it runs, baselines."""
        offered = list(self.settings.models)
        if local_status(self.settings.home) is not None:
            offered.append(f"local/{LOCAL_MODEL}")
        offered.extend(m for m in BASELINE_MODELS if m not in offered)
        return offered

    @property
    def admin_enabled(self) -> bool:
        """Whether admin actions are possible: an admin password (QUIZBOT_ADMIN_PASSWORD, local
        mode) or accounts (admins log in with their account)."""
        return self.settings.admin_password is not None or self.accounts_mode()

    def check_admin(
        self, password: str, address: str | None = None, *, audit_success: bool = True
    ) -> bool:
        """Whether ``password`` is the admin password (constant-time comparison), under the
        login rate limits and the accounts' lockout for ``address``; never in accounts mode,
        where admin rights come with an admin account. Raises
        :class:`~quizbot.ratelimit.RateLimitedError` when the address has no attempt left."""
        secret = self.settings.admin_password
        if secret is None or not password or self.accounts_mode():
            return False
        where = address or "?"
        self.check_login_rate(where, accounts.LOCAL_ADMIN)
        return accounts.admin_password_login(
            self.db,
            password,
            secret.get_secret_value(),
            address=where,
            audit_success=audit_success,
        )
