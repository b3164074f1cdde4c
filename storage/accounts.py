"""Accounts: users, their server-side sessions and the audit log (the only SQL about logins).

Storage keeps what :mod:`quizbot.accounts` decides: password *hashes* (never passwords), the
SHA-256 of each session token (never the token, so a copy of the database opens no session),
failed-login counters and lock times, and one audit row per login attempt or privileged action.
Every function runs one transaction, takes plain values and returns the frozen records of
:mod:`quizbot.domain` (:class:`~quizbot.domain.UserAccount`, :class:`~quizbot.domain.AuditEntry`).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime, timedelta

from sqlalchemy import delete, func, or_, select, update
from sqlalchemy.exc import IntegrityError
from sqlmodel import Session, col

from quizbot.domain import AuditEntry, Role, UserAccount
from quizbot.errors import DuplicateError, InputError, NotFoundError
from storage.engine import Database
from storage.models import AuditLogRow, LoginLockRow, UserRow, UserSessionRow
from storage.records import to_record
from storage.repo import _integrity
from storage.types import utcnow

__all__ = [
    "NewUser",
    "add_audit",
    "add_users",
    "audit_entries",
    "begin_login_attempt",
    "clear_login_locks",
    "count_users",
    "create_session",
    "delete_session",
    "get_user",
    "list_users",
    "login_failed",
    "login_passed",
    "login_record",
    "record_login_success",
    "session_user",
    "set_disabled",
    "set_password_hash",
]

MAX_NAME = 100
MAX_TARGET = 200
MAX_ACTION = 50


@dataclass(frozen=True, slots=True)
class NewUser:
    """An account to create: its name, role, cohort and the hash of its first password."""

    name: str
    role: Role
    password_hash: str
    cohort: str | None = None
    must_change_password: bool = False


def _account(row: UserRow) -> UserAccount:
    return to_record(UserAccount, row)


def count_users(db: Database) -> int:
    """How many accounts exist (disabled ones included): accounts mode is on when this is > 0."""
    return int(db.read(lambda s: s.execute(select(func.count()).select_from(UserRow)).scalar_one()))


def add_users(db: Database, users: Sequence[NewUser]) -> list[UserAccount]:
    """Create these accounts in one transaction: all of them, or none (a name taken raises
    :class:`DuplicateError` naming it)."""
    names = [u.name for u in users]
    repeated = sorted({n for n in names if names.count(n) > 1})
    if repeated:
        raise DuplicateError(f"user {repeated[0]!r} is listed twice")

    def _add(session: Session) -> list[UserAccount]:
        taken = session.execute(select(col(UserRow.name)).where(col(UserRow.name).in_(names)))
        first = next(iter(taken.scalars()), None)
        if first is not None:
            raise DuplicateError(f"user {first!r} already exists")
        rows = [
            UserRow(
                name=u.name,
                role=Role(u.role).value,
                cohort=u.cohort,
                password_hash=u.password_hash,
                must_change_password=u.must_change_password,
            )
            for u in users
        ]
        session.add_all(rows)
        try:
            session.flush()
        except IntegrityError as exc:
            raise _integrity(exc, "user") from None
        return [_account(r) for r in rows]

    return db.write(_add)


def get_user(db: Database, name: str) -> UserAccount | None:
    """The account called ``name``, or None."""

    def _get(session: Session) -> UserAccount | None:
        row = session.execute(select(UserRow).where(col(UserRow.name) == name)).scalar()
        return None if row is None else _account(row)

    return db.read(_get)


def login_record(db: Database, name: str) -> tuple[UserAccount, str] | None:
    """The account called ``name`` with its password hash (for checking a login), or None."""

    def _get(session: Session) -> tuple[UserAccount, str] | None:
        row = session.execute(select(UserRow).where(col(UserRow.name) == name)).scalar()
        return None if row is None else (_account(row), row.password_hash)

    return db.read(_get)


def list_users(db: Database) -> list[UserAccount]:
    """Every account, by name."""
    stmt = select(UserRow).order_by(col(UserRow.name))
    return db.read(lambda s: [_account(r) for r in s.execute(stmt).scalars()])


def _require(session: Session, name: str) -> UserRow:
    row: UserRow | None = session.execute(select(UserRow).where(col(UserRow.name) == name)).scalar()
    if row is None:
        raise NotFoundError(f"no user {name!r}", hint="`quizbot user list` shows the accounts")
    return row


def _end_sessions(session: Session, user_id: int, keep: str | None = None) -> None:
    stmt = delete(UserSessionRow).where(col(UserSessionRow.user_id) == user_id)
    if keep is not None:
        stmt = stmt.where(col(UserSessionRow.token_hash) != keep)
    session.execute(stmt)


def set_disabled(db: Database, name: str, disabled: bool = True) -> UserAccount:
    """Disable (or enable again) an account; disabling ends its sessions at once."""

    def _set(session: Session) -> UserAccount:
        row = _require(session, name)
        row.disabled = disabled
        if disabled and row.id is not None:
            _end_sessions(session, row.id)
        session.flush()
        return _account(row)

    return db.write(_set)


def set_password_hash(
    db: Database,
    name: str,
    password_hash: str,
    *,
    must_change: bool = False,
    now: datetime,
    keep_session: str | None = None,
) -> UserAccount:
    """Replace an account's password hash: clears its failures and lock, ends its sessions
    (all but the one whose token hash is ``keep_session``, when given)."""

    def _set(session: Session) -> UserAccount:
        row = _require(session, name)
        row.password_hash = password_hash
        row.must_change_password = must_change
        row.failed_logins = 0
        row.locked_until = None
        row.password_changed_at = now
        session.execute(delete(LoginLockRow).where(col(LoginLockRow.name) == name))
        if row.id is not None:
            _end_sessions(session, row.id, keep_session)
        session.flush()
        return _account(row)

    return db.write(_set)


def _lock_row(session: Session, name: str, address: str, now: datetime) -> LoginLockRow:
    """The (name, address) row, made if missing (a concurrent insert of the same pair is fine)."""
    stmt = select(LoginLockRow).where(
        col(LoginLockRow.name) == name, col(LoginLockRow.address) == address
    )
    row: LoginLockRow | None = session.execute(stmt).scalar()
    if row is None:
        try:
            with session.begin_nested():
                session.add(LoginLockRow(name=name, address=address, updated_at=now))
        except IntegrityError:
            pass
        found: LoginLockRow = session.execute(stmt).scalar_one()
        return found
    return row


def begin_login_attempt(
    db: Database, name: str, address: str, *, max_failures: int, forget_after: timedelta,
    now: datetime,
) -> datetime | None:  # fmt: skip
    """Count one attempt of ``name`` from ``address`` *before* its password is checked, in one
    atomic update, so parallel guesses cannot check more than ``max_failures`` passwords.

    Returns None when the attempt may check its password, else until when the pair is locked (or
    ``now`` when parallel attempts already used up the count). A pair whose last lock ended more
    than ``forget_after`` ago starts its doubling again."""
    name, address = name[:100], address[:100]

    def _begin(session: Session) -> datetime | None:
        row = _lock_row(session, name, address, now)
        if row.locked_until is not None and row.locked_until + forget_after < now:
            row.locks = 0
            row.locked_until = None
            session.flush()
        session.execute(
            update(LoginLockRow)
            .where(
                col(LoginLockRow.id) == row.id,
                or_(
                    col(LoginLockRow.locked_until).is_(None), col(LoginLockRow.locked_until) <= now
                ),
            )
            .values(failures=col(LoginLockRow.failures) + 1, updated_at=now)
        )
        session.refresh(row)
        if row.locked_until is not None and row.locked_until > now:
            return row.locked_until
        return now if row.failures > max_failures else None

    return db.write(_begin)


def login_passed(db: Database, name: str, address: str) -> None:
    """The password of ``name`` from ``address`` was right: that pair's count and locks go."""
    db.write(
        lambda s: s.execute(
            delete(LoginLockRow).where(
                col(LoginLockRow.name) == name[:100], col(LoginLockRow.address) == address[:100]
            )
        )
    )


def login_failed(
    db: Database, name: str, address: str, *, user_id: int | None, max_failures: int,
    lock_for: timedelta, longest: timedelta, now: datetime,
) -> tuple[int, datetime | None]:  # fmt: skip
    """A wrong password of ``name`` from ``address`` (already counted by
    :func:`begin_login_attempt`): the ``max_failures``-th locks the pair for ``lock_for``, doubled
    for each lock in a row, at most ``longest``. The account's ``failed_logins`` and
    ``locked_until`` (what ``user list`` shows) follow. Returns the pair's failures in a row and
    its lock, if it is locked now."""
    name, address = name[:100], address[:100]

    def _fail(session: Session) -> tuple[int, datetime | None]:
        row = _lock_row(session, name, address, now)
        failures, until = row.failures, None
        if row.failures >= max_failures:
            until = now + min(lock_for * (2 ** min(row.locks, 20)), longest)
            row.failures = 0
            row.locks += 1
            row.locked_until = until
        row.updated_at = now
        if user_id is not None:
            session.execute(
                update(UserRow)
                .where(col(UserRow.id) == user_id)
                .values(failed_logins=col(UserRow.failed_logins) + 1)
            )
            user = session.get(UserRow, user_id)
            if user is not None and until is not None:
                user.locked_until = max(until, user.locked_until or until)
        session.flush()
        return failures, until

    return db.write(_fail)


def clear_login_locks(db: Database, name: str) -> int:
    """End every lock of ``name`` (from every address) and its count of failures; how many
    addresses it was counted from."""

    def _clear(session: Session) -> int:
        gone = session.execute(delete(LoginLockRow).where(col(LoginLockRow.name) == name))
        session.execute(
            update(UserRow)
            .where(col(UserRow.name) == name)
            .values(failed_logins=0, locked_until=None)
        )
        return int(getattr(gone, "rowcount", 0) or 0)

    return db.write(_clear)


def record_login_success(db: Database, user_id: int, *, now: datetime) -> None:
    """A good login: failures back to zero, lock cleared, ``last_login_at`` set."""
    db.write(
        lambda s: s.execute(
            update(UserRow)
            .where(col(UserRow.id) == user_id)
            .values(failed_logins=0, locked_until=None, last_login_at=now)
        )
    )


def create_session(
    db: Database, user_id: int, token_hash: str, *, expires_at: datetime, address: str | None
) -> None:
    """Store a new session (by its token's hash); also drops every session already expired."""

    def _create(session: Session) -> None:
        now = utcnow()
        session.execute(delete(UserSessionRow).where(col(UserSessionRow.expires_at) < now))
        session.add(
            UserSessionRow(
                token_hash=token_hash,
                user_id=user_id,
                expires_at=expires_at,
                address=(address or "")[:100] or None,
            )
        )

    db.write(_create)


def session_user(
    db: Database, token_hash: str, *, now: datetime, idle: timedelta, touch_after: timedelta
) -> UserAccount | None:
    """The enabled account whose session has this token hash, if it is neither expired nor idle
    longer than ``idle``; refreshes ``last_seen_at`` when it is older than ``touch_after`` (so
    that a page of a hundred requests writes at most once)."""
    stmt = (
        select(UserSessionRow, UserRow)
        .join(UserRow, col(UserRow.id) == col(UserSessionRow.user_id))
        .where(col(UserSessionRow.token_hash) == token_hash)
    )
    found = db.read(lambda s: s.execute(stmt).first())
    if found is None:
        return None
    sess, user = found
    if sess.expires_at <= now or sess.last_seen_at + idle <= now or user.disabled:
        return None
    if sess.last_seen_at + touch_after <= now:
        db.write(
            lambda s: s.execute(
                update(UserSessionRow)
                .where(col(UserSessionRow.id) == sess.id)
                .values(last_seen_at=now)
            )
        )
    return _account(user)


def delete_session(db: Database, token_hash: str) -> None:
    """End the session with this token hash (logout); a no-op when there is none."""
    db.write(
        lambda s: s.execute(
            delete(UserSessionRow).where(col(UserSessionRow.token_hash) == token_hash)
        )
    )


def add_audit(
    db: Database,
    action: str,
    *,
    actor: str | None,
    target: str = "",
    ok: bool = True,
    detail: str = "",
    address: str | None = None,
) -> None:
    """Append one line to the audit log (``action`` such as ``login`` or ``assignment.create``)."""
    if not action or len(action) > MAX_ACTION:
        raise InputError(f"audit action must be 1-{MAX_ACTION} characters")
    row = AuditLogRow(
        action=action,
        actor=None if actor is None else actor[:MAX_NAME],
        target=target[:MAX_TARGET],
        ok=ok,
        detail=detail,
        address=None if address is None else address[:100],
    )
    db.write(lambda s: s.add(row))


def audit_entries(
    db: Database, *, limit: int = 100, actor: str | None = None, action: str | None = None
) -> list[AuditEntry]:
    """The newest audit lines first, optionally only one actor's or one action's."""
    stmt = select(AuditLogRow).order_by(col(AuditLogRow.id).desc()).limit(limit)
    if actor is not None:
        stmt = stmt.where(col(AuditLogRow.actor) == actor)
    if action is not None:
        stmt = stmt.where(col(AuditLogRow.action) == action)
    return db.read(lambda s: [to_record(AuditEntry, r) for r in s.execute(stmt).scalars()])
