"""Engine and transactions: the one place that knows SQLite from PostgreSQL.

SQLite runs in WAL mode with foreign keys on and a busy timeout. Writers open their transaction
with ``BEGIN IMMEDIATE`` so they queue on the busy timeout instead of failing with "database is
locked" when a deferred reader tries to upgrade its lock; readers stay deferred and never block.
Every transaction goes through :meth:`Database.write` or :meth:`Database.read`, which retry
transient lock, deadlock and serialization errors with jittered backoff, so concurrent writers
never surface those errors to a user.

:meth:`Database.unit` groups several of those calls into one write transaction (one commit,
one fsync on SQLite) for a request that reads and writes many times, such as a practice answer.
"""

from __future__ import annotations

import logging
import threading
from collections.abc import Callable
from contextvars import ContextVar
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Literal, TypeVar

from sqlalchemy import event, text
from sqlalchemy.engine import URL, Engine, create_engine, make_url
from sqlalchemy.exc import ArgumentError, DBAPIError, OperationalError
from sqlmodel import Session
from tenacity import (
    Retrying,
    retry_if_exception,
    stop_after_delay,
    wait_random_exponential,
)

from quizbot.errors import ConfigError, InputError, NotFoundError, StorageError

__all__ = [
    "Backend",
    "Database",
    "EngineOptions",
    "mask_url",
    "normalize_database_url",
]

log = logging.getLogger(__name__)

T = TypeVar("T")
Backend = Literal["sqlite", "postgresql"]

_URL_HINT = (
    "use sqlite:///PATH/TO/quizbot.db or postgresql+psycopg://USER:PASSWORD@HOST:5432/DBNAME"
)


def _parse(url: str) -> URL:
    try:
        return make_url(url)
    except ArgumentError:
        raise ConfigError(
            f"DATABASE_URL: cannot parse {url!r} as a database URL", hint=_URL_HINT
        ) from None


def normalize_database_url(url: str) -> str:
    """Check a database URL and return it in the form quizbot uses.

    ``postgres://`` and ``postgresql://`` are rewritten to the psycopg 3 driver that quizbot
    ships; SQLite must be a file (an in-memory database cannot be shared between connections).
    Raises :class:`ConfigError` for anything else.
    """
    parsed = _parse(url)
    backend, _, driver = parsed.drivername.partition("+")
    if backend in {"postgres", "postgresql"}:
        if driver not in {"", "psycopg"}:
            raise ConfigError(
                f"DATABASE_URL: driver {driver!r} is not supported; quizbot uses psycopg 3",
                hint="write the URL as postgresql+psycopg://USER:PASSWORD@HOST:5432/DBNAME",
            )
        parsed = parsed.set(drivername="postgresql+psycopg")
        if not parsed.database:
            raise ConfigError("DATABASE_URL: the PostgreSQL URL names no database", hint=_URL_HINT)
    elif backend == "sqlite":
        if driver not in {"", "pysqlite"}:
            raise ConfigError(
                f"DATABASE_URL: SQLite driver {driver!r} is not supported", hint=_URL_HINT
            )
        if (
            not parsed.database
            or parsed.database == ":memory:"
            or parsed.database.startswith("file::memory:")
        ):
            raise ConfigError(
                "DATABASE_URL: an in-memory SQLite database cannot hold quizbot's data",
                hint="give a file path: sqlite:///PATH/TO/quizbot.db",
            )
        parsed = parsed.set(drivername="sqlite")
    else:
        raise ConfigError(
            f"DATABASE_URL: database {backend!r} is not supported (SQLite and PostgreSQL are)",
            hint=_URL_HINT,
        )
    return parsed.render_as_string(hide_password=False)


def mask_url(url: str) -> str:
    """The URL with any password replaced by ``***``, safe to print and log."""
    return _parse(url).render_as_string(hide_password=True)


@dataclass(frozen=True)
class EngineOptions:
    """Tuning that is not part of the URL."""

    sqlite_synchronous: Literal["FULL", "NORMAL"] = "FULL"
    busy_timeout_ms: int = 30_000  # SQLite: how long a statement waits for the write lock
    # PostgreSQL: how long a statement waits for a lock another transaction holds (its
    # lock_timeout); past it the statement fails as "lock not available" and the whole
    # transaction is retried like SQLite's busy errors, so no wait is ever unbounded.
    lock_timeout_ms: int = 30_000
    pool_size: int = 10
    sqlite_foreign_keys: bool = True  # migrations turn this off, as SQLite's ALTER recipe asks
    echo: bool = False


_SQLITE_TRANSIENT = (
    "database is locked",
    "database table is locked",
    "database schema has changed",
)
_PG_TRANSIENT_SQLSTATES = {"40001", "40P01", "55P03"}  # serialization, deadlock, lock not available


def _is_transient(exc: BaseException) -> bool:
    if not isinstance(exc, DBAPIError):
        return False
    orig = exc.orig
    sqlstate = getattr(orig, "sqlstate", None)
    if sqlstate in _PG_TRANSIENT_SQLSTATES:
        return True
    message = str(orig).lower()
    return isinstance(exc, OperationalError) and any(m in message for m in _SQLITE_TRANSIENT)


# An execution option: the statement's parameters were already checked for NUL bytes (by
# storage/bulk.py, a whole batch at once), so _refuse_nul skips them.
NUL_CHECKED = "quizbot_nul_checked"


def nul_error() -> InputError:
    """The error for text holding a NUL byte (refused alike on both backends)."""
    return InputError(
        "text contains a NUL byte (\\x00), which cannot be stored",
        hint="remove the control character from the input and try again",
    )


def holds_nul(value: Any) -> bool:
    """Whether a statement parameter holds a NUL byte: in text, in JSON already serialised
    (``\\u0000``, SQLite) or in a JSON value psycopg will adapt (``Jsonb(obj)``)."""
    if type(value) is str:
        return "\x00" in value or "\\u0000" in value
    if not hasattr(value, "obj"):
        return False
    stack: list[Any] = [value.obj]
    while stack:
        node = stack.pop()
        if isinstance(node, str):
            if "\x00" in node:
                return True
        elif isinstance(node, dict):
            stack.extend(node.keys())
            stack.extend(node.values())
        elif isinstance(node, list | tuple):
            stack.extend(node)
    return False


def _refuse_nul(
    _conn: Any, _cursor: Any, _statement: str, parameters: Any, _context: Any, executemany: bool
) -> None:
    """Refuse text holding a NUL byte before it reaches the database, on both backends alike.

    PostgreSQL cannot store one (in text, or as ``\\u0000`` in JSON) and SQLite would store it
    silently, so the same input is the same clear :class:`InputError` on either.
    """
    if _context is not None and _context.execution_options.get(NUL_CHECKED):
        return
    rows = parameters if executemany else (parameters,)
    for row in rows or ():
        if isinstance(row, dict):
            values: Any = row.values()
        elif isinstance(row, list | tuple):
            values = row
        else:  # a driver-level statement given one bare value
            values = (row,)
        for value in values:
            if holds_nul(value):
                raise nul_error()


def _install_sqlite_hooks(engine: Engine, options: EngineOptions) -> None:
    @event.listens_for(engine, "connect")
    def _on_connect(dbapi_conn: Any, _record: Any) -> None:
        # The stdlib driver's implicit transactions are replaced by explicit BEGINs below.
        dbapi_conn.isolation_level = None
        cur = dbapi_conn.cursor()
        try:
            cur.execute(f"PRAGMA busy_timeout = {int(options.busy_timeout_ms)}")
            cur.execute("PRAGMA journal_mode = WAL")
            cur.execute(f"PRAGMA synchronous = {options.sqlite_synchronous}")
            cur.execute(f"PRAGMA foreign_keys = {'ON' if options.sqlite_foreign_keys else 'OFF'}")
        finally:
            cur.close()

    @event.listens_for(engine, "begin")
    def _on_begin(conn: Any) -> None:
        write = conn.get_execution_options().get("quizbot_write", False)
        conn.exec_driver_sql("BEGIN IMMEDIATE" if write else "BEGIN")


class _NoLock:
    """A context manager that locks nothing (PostgreSQL needs no process-level write lock)."""

    def __enter__(self) -> None:
        return None

    def __exit__(self, *exc: object) -> None:
        return None


_NO_LOCK = _NoLock()


_BROKEN = "quizbot.unit_broken"  # Session.info key: a write without savepoint failed in it


class UnitBrokenError(RuntimeError):
    """A write without a savepoint failed inside a unit of work and its error was caught:
    the unit's transaction can only be rolled back (a programming error, not the user's)."""


def _check_unbroken(session: Session) -> None:
    if session.info.get(_BROKEN):
        raise UnitBrokenError(
            "a write without a savepoint failed earlier in this unit of work and its error "
            "was caught; the unit is rolled back"
        )


class Database:
    """A connection pool to one database plus quizbot's transaction discipline.

    Use :meth:`write` for anything that changes data and :meth:`read` for queries; both run a
    function inside one transaction and retry it on transient contention errors, so the function
    must not have side effects outside the database.
    """

    def __init__(
        self, url: str, options: EngineOptions | None = None, *, must_exist: bool = False
    ) -> None:
        """Connect lazily to ``url``. ``must_exist``: a SQLite file that is not there is a
        :class:`NotFoundError` (nothing created), for commands that only read."""
        self.url = normalize_database_url(url)
        self.options = options or EngineOptions()
        parsed = make_url(self.url)
        self.backend: Backend = "sqlite" if parsed.get_backend_name() == "sqlite" else "postgresql"
        if self.backend == "sqlite":
            assert parsed.database is not None  # checked by normalize_database_url
            self.sqlite_path: Path | None = Path(parsed.database)
            if must_exist and not self.sqlite_path.is_file():
                raise NotFoundError(
                    f"no SQLite database at {self.sqlite_path}",
                    hint="check DATABASE_URL (or QUIZBOT_HOME) for a typo; "
                    "`quizbot db upgrade` creates a new database",
                )
            self._ensure_sqlite_dir(self.sqlite_path)
            self.engine = create_engine(
                self.url,
                echo=self.options.echo,
                pool_size=self.options.pool_size,
                max_overflow=self.options.pool_size,
                connect_args={
                    "timeout": self.options.busy_timeout_ms / 1000,
                    "check_same_thread": False,
                },
            )
            _install_sqlite_hooks(self.engine, self.options)
        else:
            self.sqlite_path = None
            self.engine = create_engine(
                self.url,
                echo=self.options.echo,
                pool_size=self.options.pool_size,
                max_overflow=self.options.pool_size,
                pool_pre_ping=True,
                connect_args={
                    "connect_timeout": 10,
                    "options": f"-c lock_timeout={int(self.options.lock_timeout_ms)}",
                },
            )
        event.listen(self.engine, "before_cursor_execute", _refuse_nul)
        self._write_engine = self.engine.execution_options(quizbot_write=True)
        # SQLite takes one writer at a time; writers of this process queue on a lock instead of
        # in SQLite's busy handler, whose growing sleeps (up to 100 ms each) made the slowest
        # writes under load ~10x slower than the queue does. Other processes still wait in the
        # busy handler (busy_timeout). PostgreSQL needs no such lock.
        self._write_lock: threading.RLock | None = (
            threading.RLock() if self.backend == "sqlite" else None
        )
        # The session of the unit of work running in this context (thread or task), if any.
        self._unit: ContextVar[Session | None] = ContextVar(
            f"quizbot_unit_{id(self)}", default=None
        )

    @staticmethod
    def _ensure_sqlite_dir(path: Path) -> None:
        try:
            path.parent.mkdir(parents=True, exist_ok=True)
        except OSError as exc:
            raise StorageError(
                f"cannot create the directory for the SQLite database {path} ({exc.strerror})",
                hint="point DATABASE_URL or QUIZBOT_HOME at a writable location",
            ) from exc

    @property
    def masked_url(self) -> str:
        """The URL with the password hidden."""
        return mask_url(self.url)

    def _retrying(self) -> Retrying:
        waits_ms = (
            self.options.busy_timeout_ms
            if self.backend == "sqlite"
            else self.options.lock_timeout_ms
        )
        return Retrying(
            retry=retry_if_exception(_is_transient),
            wait=wait_random_exponential(multiplier=0.005, max=0.5),
            stop=stop_after_delay(max(60.0, 2 * waits_ms / 1000)),
            reraise=True,
            before_sleep=lambda rs: log.debug(
                "transient database contention, retrying (attempt %d)", rs.attempt_number
            ),
        )

    def _run(self, bind: Engine, fn: Callable[[Session], T]) -> T:
        try:
            for attempt in self._retrying():
                with attempt, Session(bind, expire_on_commit=False) as session:
                    with session.begin():
                        result = fn(session)
                    return result
        except OperationalError as exc:
            raise self._unavailable(exc) from exc
        raise AssertionError("unreachable")  # pragma: no cover - Retrying re-raises or returns

    def write(self, fn: Callable[[Session], T], *, savepoint: bool = True) -> T:
        """Run ``fn`` in one write transaction (committed on return) and return its result.

        Inside :meth:`unit` it runs in the unit's transaction, under a savepoint: if ``fn``
        raises, what it wrote is undone and the unit goes on (its caller may catch the error).
        ``savepoint=False`` is for a write whose failure ends the unit anyway (nothing between
        it and the unit catches the error): it runs in the unit's transaction directly, two
        round trips fewer on PostgreSQL (``SAVEPOINT``, ``RELEASE``). Should a caller catch
        its failure all the same, the unit cannot go on: every later read or write in it
        raises, and so does the unit when it returns, so nothing of it is committed.
        """
        shared = self._unit.get()
        if shared is not None:
            _check_unbroken(shared)
            if not savepoint:
                try:
                    return fn(shared)
                except BaseException:
                    shared.info[_BROKEN] = True
                    raise
            with shared.begin_nested():
                return fn(shared)
        if self._write_lock is None:
            return self._run(self._write_engine, fn)
        with self._write_lock:
            return self._run(self._write_engine, fn)

    def read(self, fn: Callable[[Session], T]) -> T:
        """Run ``fn`` in one read transaction and return its result (inside :meth:`unit`, in
        the unit's transaction: it sees what the unit wrote so far)."""
        shared = self._unit.get()
        if shared is not None:
            _check_unbroken(shared)
            return fn(shared)
        return self._run(self.engine, fn)

    def unit(self, fn: Callable[[], T]) -> T:
        """Run ``fn`` as one unit of work: every :meth:`write` and :meth:`read` it makes (through
        any repository function) shares one write transaction, committed when ``fn`` returns
        and rolled back entirely when it raises.

        One commit instead of one per call: on SQLite one fsync and one turn of the write lock
        per request. The whole unit is retried on transient contention errors, so ``fn``, like
        the functions given to :meth:`write`, must have no side effects outside the database.
        A unit inside a unit joins the outer one.
        """
        if self._unit.get() is not None:
            return fn()
        lock = self._write_lock if self._write_lock is not None else _NO_LOCK
        with lock:

            def _whole(session: Session) -> T:
                token = self._unit.set(session)
                try:
                    result = fn()
                finally:
                    self._unit.reset(token)
                _check_unbroken(session)  # a caught failure without a savepoint: roll back
                return result

            return self._run(self._write_engine, _whole)

    def _unavailable(self, exc: OperationalError) -> StorageError:
        first_line = str(exc.orig).strip().splitlines()[0] if exc.orig else str(exc)
        if getattr(exc.orig, "sqlstate", None) == "55P03":  # lock_timeout, retries used up
            hint = (
                "another transaction held a lock longer than QUIZBOT_PG_LOCK_TIMEOUT_MS allows; "
                "try again, and look for a long-running transaction (pg_stat_activity)"
            )
        elif self.backend == "postgresql":
            hint = "check that PostgreSQL is running and that DATABASE_URL is right"
        else:
            hint = "check that the SQLite file is readable and writable and the disk is not full"
        return StorageError(f"database {self.masked_url}: {first_line}", hint=hint)

    def ping(self) -> None:
        """Open a connection and run a trivial query; raise :class:`StorageError` if that fails."""
        try:
            with self.engine.connect() as conn:
                conn.execute(text("SELECT 1"))
        except OperationalError as exc:
            raise self._unavailable(exc) from exc

    def dispose(self) -> None:
        """Close every pooled connection."""
        self.engine.dispose()

    def __repr__(self) -> str:
        return f"Database({self.masked_url!r})"
