"""Accounts on both databases: hashes not passwords, rules, lockout, sessions, the audit log."""

from __future__ import annotations

import time
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Literal

import pytest
from argon2 import PasswordHasher

from quizbot import accounts
from quizbot.domain import Role
from quizbot.errors import DuplicateError, InputError
from storage import Database
from storage import accounts as store

PASSWORD = "correct horse battery"


@pytest.fixture(autouse=True)
def _argon2_cost(request: pytest.FixtureRequest) -> None:
    """Lockout, sessions and the audit log are tested with argon2 at its lowest cost (fixture
    ``quick_argon2``: a dozen hashes at 1.2-1.4 s each made these the slowest storage tests);
    the test marked ``real_argon2`` keeps the product's parameters (the hash stored), and
    parallel guesses race through checks as long as a real one (``_SlowChecks``)."""
    if request.node.get_closest_marker("real_argon2") is None:
        request.getfixturevalue("quick_argon2")


def _stored_hash(db: Database, name: str) -> str:
    found = store.login_record(db, name)
    assert found is not None
    return found[1]


@pytest.mark.real_argon2
def test_a_password_is_stored_only_as_an_argon2_hash(db: Database) -> None:
    account = accounts.create_user(db, "alice", Role.STUDENT, PASSWORD, cohort="y1")
    assert (account.name, account.role, account.cohort) == ("alice", "student", "y1")
    stored = _stored_hash(db, "alice")
    real = PasswordHasher()  # argon2-cffi's defaults, not the tests' quick ones
    assert stored.startswith(
        f"$argon2id$v=19$m={real.memory_cost},t={real.time_cost},p={real.parallelism}$"
    )
    assert PASSWORD not in stored
    assert accounts.accounts_exist(db)


@pytest.mark.parametrize(
    ("password", "why"),
    [
        ("short", "at least 10"),
        (" " * 12, "whitespace"),
        ("\t\n" * 6, "whitespace"),
        ("Alice.Smith", "user name"),
    ],
)
def test_password_rules(db: Database, password: str, why: str) -> None:
    with pytest.raises(InputError, match=why):
        accounts.create_user(db, "alice.smith", "student", password)
    assert not accounts.accounts_exist(db)


def test_names_and_roles_are_checked(db: Database) -> None:
    with pytest.raises(InputError, match="not allowed"):
        accounts.create_user(db, "<b>x</b>", "student", PASSWORD)
    with pytest.raises(InputError, match="unknown role"):
        accounts.create_user(db, "bob", "root", PASSWORD)
    accounts.create_user(db, "bob", "admin", PASSWORD)
    with pytest.raises(DuplicateError):
        accounts.create_user(db, "bob", "student", PASSWORD)


def test_login_opens_a_session_whose_token_is_not_stored(db: Database) -> None:
    accounts.create_user(db, "alice", "student", PASSWORD)
    result = accounts.login(db, "alice", PASSWORD, address="10.0.0.1")
    assert result.outcome == "ok"
    assert result.token and len(result.token) >= 40
    account = accounts.session_account(db, result.token)
    assert account is not None and account.name == "alice"
    assert accounts.session_account(db, result.token + "x") is None
    # the database holds the token's hash only: a copy of it opens no session
    assert accounts.session_account(db, accounts.token_hash(result.token)) is None
    accounts.logout(db, result.token, actor="alice")
    assert accounts.session_account(db, result.token) is None


def test_sessions_expire_and_end_when_idle(db: Database) -> None:
    accounts.create_user(db, "alice", "student", PASSWORD)
    now = datetime.now(UTC)
    token = accounts.login(db, "alice", PASSWORD, now=now).token
    assert token is not None
    later = now + accounts.SESSION_IDLE - timedelta(minutes=5)
    assert accounts.session_account(db, token, now=later) is not None  # and touches it
    # seen at `later`: still alive an idle period after the login, not after `later`
    last_seen = later + accounts.SESSION_IDLE / 2
    assert accounts.session_account(db, token, now=last_seen) is not None
    # Unused for longer than the idle period, well inside its lifetime: the session has ended,
    # and a later request does not bring it back.
    idle_end = last_seen + accounts.SESSION_IDLE + timedelta(minutes=1)
    assert idle_end < now + accounts.SESSION_LIFETIME
    assert accounts.session_account(db, token, now=idle_end) is None
    assert accounts.session_account(db, token, now=idle_end + timedelta(minutes=1)) is None
    assert accounts.session_account(db, token, now=now + accounts.SESSION_LIFETIME) is None


def test_a_session_past_its_lifetime_ends_even_when_used_all_along(db: Database) -> None:
    accounts.create_user(db, "alice", "student", PASSWORD)
    now = datetime.now(UTC)
    token = accounts.login(db, "alice", PASSWORD, now=now).token
    assert token is not None
    step = accounts.SESSION_IDLE / 2
    seen = now
    while seen + step < now + accounts.SESSION_LIFETIME:
        seen += step
        assert accounts.session_account(db, token, now=seen) is not None
    assert accounts.session_account(db, token, now=now + accounts.SESSION_LIFETIME) is None


def test_unknown_wrong_disabled_and_locked_are_refused_alike(db: Database) -> None:
    accounts.create_user(db, "alice", "student", PASSWORD)
    accounts.create_user(db, "carol", "student", PASSWORD)
    accounts.disable_user(db, "carol")
    outcomes = {
        accounts.login(db, "nobody", PASSWORD),
        accounts.login(db, "alice", "wrong password!"),
        accounts.login(db, "carol", PASSWORD),
    }
    assert outcomes == {accounts.LoginResult("refused")}
    accounts.login(db, "evil\nname", PASSWORD)
    newest = accounts.audit_log(db, limit=1)[0]
    assert (newest.actor, newest.target, newest.detail) == (None, "evilname", "unknown user")


def test_five_failures_lock_the_account_even_against_the_right_password(db: Database) -> None:
    accounts.create_user(db, "alice", "student", PASSWORD)
    now = datetime.now(UTC)
    for _ in range(accounts.MAX_FAILURES):
        assert accounts.login(db, "alice", "wrong password!", now=now).outcome == "refused"
    locked = accounts.user(db, "alice")
    assert locked is not None and locked.locked_until == now + accounts.LOCK_FOR
    assert accounts.login(db, "alice", PASSWORD, now=now + timedelta(minutes=1)).outcome == (
        "refused"
    )
    after = now + accounts.LOCK_FOR + timedelta(seconds=1)
    assert accounts.login(db, "alice", PASSWORD, now=after).outcome == "ok"
    entries = accounts.audit_log(db, actor="alice")
    details = [e.detail for e in entries if e.action == "login"]
    assert details[0] == "" and details[1] == "locked"
    assert sum("locked from this address until" in d for d in details) == 1


def test_fewer_failures_than_the_limit_are_forgotten_after_a_good_login(db: Database) -> None:
    accounts.create_user(db, "alice", "student", PASSWORD)
    for _ in range(accounts.MAX_FAILURES - 1):
        accounts.login(db, "alice", "wrong password!")
    assert accounts.login(db, "alice", PASSWORD).outcome == "ok"
    for _ in range(accounts.MAX_FAILURES - 1):
        accounts.login(db, "alice", "wrong password!")
    account = accounts.user(db, "alice")
    assert account is not None and account.locked_until is None


def test_disabling_and_resetting_end_the_sessions(db: Database) -> None:
    accounts.create_user(db, "alice", "student", PASSWORD)
    first = accounts.login(db, "alice", PASSWORD).token
    assert first is not None
    accounts.reset_password(db, "alice", "a brand new password")
    assert accounts.session_account(db, first) is None
    assert accounts.login(db, "alice", PASSWORD).outcome == "refused"
    second = accounts.login(db, "alice", "a brand new password").token
    assert second is not None
    accounts.disable_user(db, "alice")
    assert accounts.session_account(db, second) is None


def test_a_cohort_import_is_all_or_nothing_and_asks_for_a_new_password(
    db: Database, tmp_path: Path
) -> None:
    path = tmp_path / "y1.csv"
    path.write_text("name,role\nann\nben,instructor\n\n", encoding="utf-8")
    invites = accounts.import_cohort(db, accounts.read_cohort_csv(path), "year 1")
    assert [(i.name, i.role, i.cohort) for i in invites] == [
        ("ann", "student", "year 1"),
        ("ben", "instructor", "year 1"),
    ]
    assert len({i.password for i in invites}) == 2
    ann = invites[0]
    assert accounts.login(db, "ann", ann.password).outcome == "change_password"
    weak = accounts.login(db, "ann", ann.password, new_password="short")
    assert weak.outcome == "change_password" and weak.problem and "10" in weak.problem
    done = accounts.login(db, "ann", ann.password, new_password=PASSWORD)
    assert done.outcome == "ok" and done.token
    assert accounts.login(db, "ann", ann.password).outcome == "refused"
    # a name already taken: nothing of the second file is created
    again = tmp_path / "y2.csv"
    again.write_text("name\ncleo\nann\n", encoding="utf-8")
    with pytest.raises(DuplicateError, match="ann"):
        accounts.import_cohort(db, accounts.read_cohort_csv(again), "year 2")
    assert accounts.user(db, "cleo") is None


def test_a_bad_cohort_file_names_its_line_and_field(tmp_path: Path) -> None:
    path = tmp_path / "bad.csv"
    path.write_text("name,role\nann,student\nben,wizard\n", encoding="utf-8")
    with pytest.raises(InputError, match=r"bad\.csv, line 3, field 'role'"):
        accounts.read_cohort_csv(path)
    path.write_text("who\nann\n", encoding="utf-8")
    with pytest.raises(InputError, match="'name' column"):
        accounts.read_cohort_csv(path)


def test_actions_are_audited_newest_first(db: Database) -> None:
    accounts.record_action(db, "ins", "assignment.create", "week-1", detail="40 items")
    accounts.record_action(db, "ins", "model.batch", "openai/gpt", ok=False, address="::1")
    entries = accounts.audit_log(db, actor="ins")
    assert [(e.action, e.target, e.ok) for e in entries] == [
        ("model.batch", "openai/gpt", False),
        ("assignment.create", "week-1", True),
    ]
    assert entries[0].address == "::1" and entries[1].detail == "40 items"
    with pytest.raises(InputError):
        accounts.record_action(db, "ins", "")


def test_a_lock_holds_one_address_and_grows_with_each_lock_in_a_row(db: Database) -> None:
    accounts.create_user(db, "alice", "student", PASSWORD)
    now = datetime.now(UTC)
    for _ in range(accounts.MAX_FAILURES):
        accounts.login(db, "alice", "wrong password!", address="10.9.9.9", now=now)
    # the owner elsewhere is not locked out by a stranger
    assert accounts.login(db, "alice", PASSWORD, address="10.1.1.1", now=now).outcome == "ok"
    assert accounts.login(db, "alice", PASSWORD, address="10.9.9.9", now=now).outcome == "refused"
    later = now + accounts.LOCK_FOR + timedelta(seconds=1)
    for _ in range(accounts.MAX_FAILURES):
        accounts.login(db, "alice", "wrong password!", address="10.9.9.9", now=later)
    # the second lock in a row lasts twice as long
    still = later + accounts.LOCK_FOR + timedelta(seconds=1)
    assert accounts.login(db, "alice", PASSWORD, address="10.9.9.9", now=still).outcome == (
        "refused"
    )
    free = later + 2 * accounts.LOCK_FOR + timedelta(seconds=1)
    assert accounts.login(db, "alice", PASSWORD, address="10.9.9.9", now=free).outcome == "ok"


class _SlowChecks(PasswordHasher):
    """The quick hasher whose every check takes as long as a real one, without the CPU: each
    guess stays in flight while the others start, as real argon2 keeps them (and releases the
    GIL, as sleeping does)."""

    def verify(self, hash: str | bytes, password: str | bytes) -> Literal[True]:
        time.sleep(0.3)
        return super().verify(hash, password)


def test_parallel_guesses_check_no_more_passwords_than_the_limit(
    db: Database, monkeypatch: pytest.MonkeyPatch
) -> None:
    from concurrent.futures import ThreadPoolExecutor

    accounts.create_user(db, "alice", "student", PASSWORD)
    monkeypatch.setattr(
        accounts, "_hasher", _SlowChecks(time_cost=1, memory_cost=8, parallelism=1)
    )  # 12 real checks (locked guesses check a dummy hash) took 5-14 s on two busy cores
    with ThreadPoolExecutor(max_workers=8) as pool:
        outcomes = list(
            pool.map(
                lambda n: accounts.login(db, "alice", f"guess {n}", address="10.3.3.3").outcome,
                range(12),
            )
        )
    assert set(outcomes) == {"refused"}
    checked = [
        e for e in accounts.audit_log(db, actor="alice") if e.detail.startswith("wrong password")
    ]
    assert len(checked) == accounts.MAX_FAILURES  # the other 7 never reached argon2


def test_unlock_ends_every_lock_of_a_name(db: Database) -> None:
    accounts.create_user(db, "alice", "student", PASSWORD)
    for address in ("10.4.4.4", "10.5.5.5"):
        for _ in range(accounts.MAX_FAILURES):
            accounts.login(db, "alice", "wrong password!", address=address)
    assert accounts.login(db, "alice", PASSWORD, address="10.4.4.4").outcome == "refused"
    assert accounts.unlock(db, "alice", actor="cli:test") == 2
    assert accounts.login(db, "alice", PASSWORD, address="10.4.4.4").outcome == "ok"
    assert accounts.audit_log(db, limit=2)[1].action == "user.unlock"


def test_the_local_admin_password_gets_the_same_lockout(db: Database) -> None:
    secret = "local admin password"
    for n in range(accounts.MAX_FAILURES):
        assert not accounts.admin_password_login(db, f"guess {n}", secret, address="127.0.0.1")
    # locked: the right password fails too, for a while
    assert not accounts.admin_password_login(db, secret, secret, address="127.0.0.1")
    later = datetime.now(UTC) + accounts.LOCK_FOR + timedelta(seconds=1)
    assert accounts.admin_password_login(db, secret, secret, address="127.0.0.1", now=later)
    actions = {e.detail for e in accounts.audit_log(db) if e.action == "admin.login"}
    assert "locked" in actions
    accounts.unlock(db, accounts.LOCAL_ADMIN)
