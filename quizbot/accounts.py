"""Accounts: who may log in, how a password is checked, what a session is (no web code here).

Passwords are hashed with argon2id (argon2-cffi's defaults, re-hashed on login when those
change); the rules are :func:`check_password`'s. A login (:func:`login`) costs one argon2
verification whether or not the user exists, and answers the same way for an unknown user, a
wrong password, a disabled account and a locked one, so the login form tells an attacker nothing.
:data:`MAX_FAILURES` wrong passwords in a row for one account *from one client address* lock
that name from that address for :data:`LOCK_FOR`, twice as long for each lock in a row (at most
:data:`LONGEST_LOCK`): a stranger cannot lock anyone out from anywhere else. Each attempt is
counted before its password is checked, so parallel guesses cannot check more passwords than
that. An admin ends the locks with :func:`unlock`. Local mode's admin password
(:func:`admin_password_login`) has the same lockout.

A session is a random token (the browser's cookie) whose SHA-256 is stored
(:mod:`storage.accounts`); it lasts :data:`SESSION_LIFETIME` at most and ends after
:data:`SESSION_IDLE` without a request. Every login attempt and every account change is written to
the audit log; :func:`record_action` is how other code records a privileged action.
:func:`change_password` is a user's own change (their current password first); an admin's is
:func:`reset_password`.
"""

from __future__ import annotations

import csv
import hashlib
import hmac
import re
import secrets
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime, timedelta
from functools import lru_cache
from pathlib import Path
from typing import Literal

from argon2 import PasswordHasher
from argon2.exceptions import InvalidHashError, VerificationError

from quizbot import clock
from quizbot.domain import AuditEntry, Role, UserAccount
from quizbot.errors import InputError, NotFoundError
from quizbot.names import check_name as check_given_name
from storage import Database
from storage import accounts as store

__all__ = [
    "LOCAL_ADMIN",
    "LOCK_FOR",
    "LONGEST_LOCK",
    "MAX_FAILURES",
    "MIN_PASSWORD_LENGTH",
    "SESSION_IDLE",
    "SESSION_LIFETIME",
    "Invite",
    "LoginResult",
    "accounts_exist",
    "admin_password_login",
    "audit_log",
    "change_password",
    "check_name",
    "check_password",
    "create_user",
    "disable_user",
    "generate_password",
    "import_cohort",
    "list_users",
    "login",
    "logout",
    "read_cohort_csv",
    "record_action",
    "reset_password",
    "session_account",
    "token_hash",
    "unlock",
    "user",
]

MIN_PASSWORD_LENGTH = 10
MAX_PASSWORD_LENGTH = 1024  # argon2 takes any length; a megabyte "password" is an attack
MAX_FAILURES = 5
LOCK_FOR = timedelta(minutes=15)
LONGEST_LOCK = timedelta(days=1)
FORGET_LOCKS_AFTER = timedelta(days=1)  # a day after its last lock ended, a pair starts over
LOCAL_ADMIN = ":admin"  # the lock name of local mode's admin password (no account has it)
SESSION_LIFETIME = timedelta(hours=12)
SESSION_IDLE = timedelta(hours=2)
SESSION_TOUCH = timedelta(minutes=1)
NAME_PATTERN = re.compile(r"^[A-Za-z0-9][A-Za-z0-9._@-]{0,99}$")
MAX_COHORT = 100
# One-time passwords: 20 characters of an alphabet without look-alikes (about 100 bits).
_OTP_ALPHABET = "abcdefghjkmnpqrstuvwxyz23456789"

_hasher = PasswordHasher()


@lru_cache(maxsize=1)
def _dummy_hash() -> str:
    """A hash of a random password: unknown users are checked against it, costing the same."""
    return _hasher.hash(secrets.token_urlsafe(16))


def _now() -> datetime:
    return clock.now()


def check_name(name: str) -> str:
    """``name`` if it is a valid user name (letters, digits, ``. _ @ -``; 1-100 characters)."""
    if not NAME_PATTERN.fullmatch(name or ""):
        raise InputError(
            f"user name {name[:40]!r} is not allowed",
            field="name",
            hint="use 1-100 letters, digits, '.', '_', '@' or '-', starting with a letter or digit",
        )
    return name


def _check_cohort(cohort: str | None) -> str | None:
    """A cohort name by the rule for names people give (:func:`quizbot.names.check_name`: one
    line, no markup, no path parts), or None for none."""
    if cohort is None or not cohort.strip():
        return None
    return check_given_name(cohort, field="cohort", max_length=MAX_COHORT)


def check_password(password: str, name: str) -> None:
    """Raise :class:`InputError` unless ``password`` follows the rules: at least
    :data:`MIN_PASSWORD_LENGTH` characters, not only whitespace, not the user name."""
    if len(password) < MIN_PASSWORD_LENGTH:
        raise InputError(
            f"the password must have at least {MIN_PASSWORD_LENGTH} characters", field="password"
        )
    if len(password) > MAX_PASSWORD_LENGTH:
        raise InputError(
            f"the password must have at most {MAX_PASSWORD_LENGTH} characters", field="password"
        )
    if not password.strip():
        raise InputError("the password must not be only whitespace", field="password")
    if password.strip().casefold() == name.casefold():
        raise InputError("the password must not be the user name", field="password")


def generate_password() -> str:
    """A random one-time password (20 characters, no look-alike letters, ~100 bits)."""
    return "".join(secrets.choice(_OTP_ALPHABET) for _ in range(20))


def token_hash(token: str) -> str:
    """What storage keeps of a session token: its SHA-256, in hex."""
    return hashlib.sha256(token.encode()).hexdigest()


def accounts_exist(db: Database) -> bool:
    """Whether any account exists (accounts mode is on from the first one)."""
    return store.count_users(db) > 0


def user(db: Database, name: str) -> UserAccount | None:
    """The account called ``name``, or None."""
    return store.get_user(db, name)


def list_users(db: Database) -> list[UserAccount]:
    """Every account, by name."""
    return store.list_users(db)


def record_action(
    db: Database,
    actor: str | None,
    action: str,
    target: str = "",
    *,
    ok: bool = True,
    detail: str = "",
    address: str | None = None,
) -> None:
    """Write one privileged action (``assignment.create``, ``model.batch``...) to the audit log.

    ``actor`` is the account name (None for the command line without an account)."""
    store.add_audit(db, action, actor=actor, target=target, ok=ok, detail=detail, address=address)


def audit_log(db: Database, *, limit: int = 100, actor: str | None = None) -> list[AuditEntry]:
    """The newest audit lines first."""
    return store.audit_entries(db, limit=limit, actor=actor)


def create_user(
    db: Database,
    name: str,
    role: Role | str,
    password: str,
    *,
    cohort: str | None = None,
    actor: str | None = None,
) -> UserAccount:
    """Create an account after checking its name, role and password."""
    check_name(name)
    try:
        role = Role(role)
    except ValueError:
        raise InputError(
            f"unknown role {role!r}", field="role", hint="use student, instructor or admin"
        ) from None
    check_password(password, name)
    (account,) = store.add_users(
        db,
        [
            store.NewUser(
                name=name,
                role=role,
                password_hash=_hasher.hash(password),
                cohort=_check_cohort(cohort),
            )
        ],
    )
    record_action(db, actor, "user.add", name, detail=f"role={role.value}")
    return account


def reset_password(
    db: Database, name: str, password: str, *, actor: str | None = None, temporary: bool = False
) -> UserAccount:
    """Give ``name`` a new password (ending its sessions and clearing a lock); a ``temporary``
    one must be changed at the next login."""
    check_password(password, name)
    account = store.set_password_hash(
        db, name, _hasher.hash(password), must_change=temporary, now=_now()
    )
    record_action(db, actor, "user.reset-password", name)
    return account


def change_password(
    db: Database,
    token: str,
    current: str,
    new: str,
    *,
    address: str | None = None,
    now: datetime | None = None,
) -> UserAccount:
    """The logged-in owner of session ``token`` changes their own password.

    ``current`` must be their password now (a wrong one counts towards the lockout, like a failed
    login, so a borrowed session cannot guess it for long); ``new`` follows the password rules and
    differs from it. Every other session of the account ends; this one stays open. Audit-logged
    either way. Raises :class:`InputError` (field ``current_password`` or ``new_password``).
    """
    now = now or _now()
    account = session_account(db, token, now=now)
    found = None if account is None else store.login_record(db, account.name)
    if account is None or found is None:
        raise InputError("your session has ended; log in again")
    name, stored = account.name, found[1]
    where = address or "?"
    blocked = _begin_attempt(db, name, where, now)
    if blocked is not None or not _verify(stored, current[:MAX_PASSWORD_LENGTH]):
        if blocked is None:
            _failed(db, name, where, account.id, now)
        else:
            _verify(_dummy_hash(), current[:MAX_PASSWORD_LENGTH])
        record_action(
            db, name, "user.change-password", name, ok=False, detail="wrong current password",
            address=address,
        )  # fmt: skip
        raise InputError("the current password is wrong", field="current_password")
    store.login_passed(db, name, where)
    try:
        check_password(new, name)
        if new == current:
            raise InputError("the new password must differ from the current one")
    except InputError as exc:
        record_action(
            db, name, "user.change-password", name, ok=False, detail=exc.message, address=address
        )
        raise InputError(exc.message.split(": ", 1)[-1], field="new_password") from None
    changed = store.set_password_hash(
        db, name, _hasher.hash(new), now=now, keep_session=token_hash(token)
    )
    record_action(
        db, name, "user.change-password", name, detail="other sessions ended", address=address
    )
    return changed


def disable_user(db: Database, name: str, *, actor: str | None = None) -> UserAccount:
    """Disable ``name``: it can no longer log in and its sessions end now."""
    account = store.set_disabled(db, name, True)
    record_action(db, actor, "user.disable", name)
    return account


@dataclass(frozen=True, slots=True)
class Invite:
    """An account made by a cohort import, with the one-time password to hand to its owner."""

    name: str
    role: str
    cohort: str
    password: str


def read_cohort_csv(path: Path) -> list[tuple[str, Role]]:
    """``name,role`` rows of a cohort file (header required; role optional, default student).

    A bad row raises :class:`InputError` naming the file, line and field; nothing is returned
    partially.
    """
    try:
        text = path.read_text(encoding="utf-8-sig")
    except (OSError, UnicodeDecodeError) as exc:
        raise InputError(f"cannot read the file ({exc})", path=str(path)) from None
    reader = csv.DictReader(text.splitlines())
    fields = [f.strip().lower() for f in reader.fieldnames or []]
    if "name" not in fields:
        raise InputError(
            "the header must name a 'name' column (and optionally 'role')",
            path=str(path),
            line=1,
            hint="first line: name,role",
        )
    rows: list[tuple[str, Role]] = []
    for line, raw in enumerate(reader, start=2):
        record = {(k or "").strip().lower(): (v or "").strip() for k, v in raw.items()}
        name = record.get("name", "")
        if not name and not any(record.values()):
            continue  # a blank line
        try:
            check_name(name)
        except InputError as exc:
            raise InputError(
                exc.message.split(": ", 1)[-1], path=str(path), line=line, field="name"
            ) from None
        role_text = record.get("role") or Role.STUDENT.value
        try:
            role = Role(role_text.lower())
        except ValueError:
            raise InputError(
                f"unknown role {role_text[:40]!r} (student, instructor or admin)",
                path=str(path),
                line=line,
                field="role",
            ) from None
        rows.append((name, role))
    if not rows:
        raise InputError("no accounts in the file", path=str(path))
    return rows


def import_cohort(
    db: Database, rows: Sequence[tuple[str, Role]], cohort: str, *, actor: str | None = None
) -> list[Invite]:
    """Create every account of ``rows`` in ``cohort`` (all or none), each with a one-time password
    that must be changed at the first login."""
    cohort_name = _check_cohort(cohort)
    if cohort_name is None:
        raise InputError("a cohort name is required", field="cohort")
    invites = [Invite(name, role.value, cohort_name, generate_password()) for name, role in rows]
    store.add_users(
        db,
        [
            store.NewUser(
                name=i.name,
                role=Role(i.role),
                password_hash=_hasher.hash(i.password),
                cohort=cohort_name,
                must_change_password=True,
            )
            for i in invites
        ],
    )
    record_action(db, actor, "user.import", cohort_name, detail=f"{len(invites)} accounts")
    return invites


Outcome = Literal["ok", "refused", "change_password"]


@dataclass(frozen=True, slots=True)
class LoginResult:
    """What a login attempt gave: a session token (``ok``), a refusal that says nothing more, or
    a request for a new password (a one-time password was right)."""

    outcome: Outcome
    account: UserAccount | None = None
    token: str | None = None
    problem: str | None = None  # a new password that breaks the rules


def _verify(stored: str, password: str) -> bool:
    try:
        return _hasher.verify(stored, password)
    except (VerificationError, InvalidHashError):
        return False


def login(
    db: Database,
    name: str,
    password: str,
    *,
    address: str | None = None,
    new_password: str | None = None,
    now: datetime | None = None,
) -> LoginResult:
    """Check a login and, if it is good, open a session.

    Unknown user, wrong password, disabled and locked accounts are all ``refused`` after the same
    argon2 work. With a right one-time password the answer is ``change_password`` until a
    ``new_password`` that follows the rules comes with it.
    """
    now = now or _now()
    password = password[:MAX_PASSWORD_LENGTH]
    found = store.login_record(db, name) if NAME_PATTERN.fullmatch(name or "") else None
    if found is None:
        _verify(_dummy_hash(), password)
        shown = "".join(ch for ch in name if ch.isprintable())[:100]  # no newlines in the log
        record_action(db, None, "login", shown, ok=False, detail="unknown user", address=address)
        return LoginResult("refused")
    account, stored = found
    where = address or "?"
    blocked = _begin_attempt(db, name, where, now)
    if blocked is not None:
        _verify(_dummy_hash(), password)  # the same work as any other answer
        record_action(db, name, "login", name, ok=False, detail="locked", address=address)
        return LoginResult("refused")
    good = _verify(stored, password)
    if account.disabled:
        record_action(db, name, "login", name, ok=False, detail="disabled", address=address)
        return LoginResult("refused")
    if not good:
        failures, until = _failed(db, name, where, account.id, now)
        detail = (
            f"wrong password; locked from this address until {until:%H:%M} UTC"
            if until is not None
            else f"wrong password ({failures} in a row from this address)"
        )
        record_action(db, name, "login", name, ok=False, detail=detail, address=address)
        return LoginResult("refused")
    store.login_passed(db, name, where)
    if account.must_change_password:
        if new_password is None:
            return LoginResult("change_password", account)
        try:
            check_password(new_password, name)
            if new_password == password:
                raise InputError("the new password must differ from the one-time password")
        except InputError as exc:
            return LoginResult("change_password", account, problem=exc.message)
        account = store.set_password_hash(db, name, _hasher.hash(new_password), now=now)
        record_action(db, name, "user.change-password", name, address=address)
    elif _hasher.check_needs_rehash(stored):
        store.set_password_hash(db, name, _hasher.hash(password), now=now)
    store.record_login_success(db, account.id, now=now)
    token = secrets.token_urlsafe(32)
    store.create_session(
        db, account.id, token_hash(token), expires_at=now + SESSION_LIFETIME, address=address
    )
    record_action(db, name, "login", name, ok=True, address=address)
    return LoginResult("ok", account, token)


def _begin_attempt(db: Database, name: str, address: str, now: datetime) -> datetime | None:
    return store.begin_login_attempt(
        db, name, address, max_failures=MAX_FAILURES, forget_after=FORGET_LOCKS_AFTER, now=now
    )


def _failed(
    db: Database, name: str, address: str, user_id: int | None, now: datetime
) -> tuple[int, datetime | None]:
    return store.login_failed(
        db, name, address, user_id=user_id, max_failures=MAX_FAILURES, lock_for=LOCK_FOR,
        longest=LONGEST_LOCK, now=now,
    )  # fmt: skip


def unlock(db: Database, name: str, *, actor: str | None = None) -> int:
    """End every login lock of ``name`` (from every address, :data:`LOCAL_ADMIN` for local mode's
    admin password) without changing its password; audit-logged. How many addresses it had been
    counted from."""
    if name != LOCAL_ADMIN and user(db, name) is None:
        raise NotFoundError(f"no user {name!r}", hint="`quizbot user list` shows the accounts")
    cleared = store.clear_login_locks(db, name)
    record_action(db, actor, "user.unlock", name, detail=f"{cleared} address(es)")
    return cleared


def admin_password_login(
    db: Database, password: str, secret: str, *, address: str | None, audit_success: bool = True,
    now: datetime | None = None,
) -> bool:  # fmt: skip
    """Whether ``password`` is local mode's admin password ``secret`` (constant time), under the
    accounts' lockout: :data:`MAX_FAILURES` wrong ones from an address lock it there (the lock name
    :data:`LOCAL_ADMIN`), growing as for an account. Failures and locks are audit-logged, and
    a success when ``audit_success``."""
    now = now or _now()
    where = address or "?"
    password = password[:MAX_PASSWORD_LENGTH]
    if _begin_attempt(db, LOCAL_ADMIN, where, now) is not None:
        record_action(
            db, None, "admin.login", LOCAL_ADMIN, ok=False, detail="locked", address=address
        )
        return False
    if password and hmac.compare_digest(password.encode(), secret.encode()):
        store.login_passed(db, LOCAL_ADMIN, where)
        if audit_success:
            record_action(db, None, "admin.login", LOCAL_ADMIN, address=address)
        return True
    failures, until = _failed(db, LOCAL_ADMIN, where, None, now)
    detail = (
        f"wrong password; locked from this address until {until:%H:%M} UTC"
        if until is not None
        else f"wrong password ({failures} in a row)"
    )
    record_action(db, None, "admin.login", LOCAL_ADMIN, ok=False, detail=detail, address=address)
    return False


def session_account(db: Database, token: str, *, now: datetime | None = None) -> UserAccount | None:
    """The account logged in with this session token, or None (unknown, expired, idle, disabled)."""
    if not token or len(token) > 200:
        return None
    return store.session_user(
        db, token_hash(token), now=now or _now(), idle=SESSION_IDLE, touch_after=SESSION_TOUCH
    )


def logout(db: Database, token: str, *, actor: str | None = None) -> None:
    """End this session (a no-op for an unknown token)."""
    if token:
        store.delete_session(db, token_hash(token))
        if actor:
            record_action(db, actor, "logout", actor)
