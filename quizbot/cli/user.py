"""`quizbot user`: accounts of the web app (accounts mode is on from the first one).

Passwords are read from standard input, never from an argument (arguments end up in shell
history and in every process listing): typed twice at a terminal, else the first line of the
piped input. Exit codes: 0 done; 65 a bad name, role, password or cohort file, or a name already
taken; 66 no such user; 69 the database is unavailable.
"""

from __future__ import annotations

import csv
import getpass
import io
import os
import sys
from pathlib import Path
from typing import TYPE_CHECKING, Any

import click

from quizbot.cli.base import App, Group, cli, database_for, emit_json

if TYPE_CHECKING:
    from quizbot.domain import UserAccount

ROLES = ("student", "instructor", "admin")


def _actor() -> str:
    """Who ran the command, for the audit log: ``cli:<login name>``."""
    try:
        who = getpass.getuser()
    except (KeyError, OSError):
        who = "?"
    return f"cli:{who}"[:100]


def _read_password(prompt: str = "Password") -> str:
    """The new password: asked twice at a terminal, else the first line of standard input."""
    from quizbot.errors import InputError

    if sys.stdin.isatty():
        first = getpass.getpass(f"{prompt}: ")
        second = getpass.getpass(f"{prompt} (again): ")
        if first != second:
            raise InputError("the two passwords differ; nothing was changed")
        return first
    line = sys.stdin.readline()
    if not line:
        raise InputError(
            "no password on standard input",
            hint="pipe it in, e.g. `printf '%s\\n' \"$PASSWORD\" | quizbot user add ...`",
        )
    return line.removesuffix("\n").removesuffix("\r")


def _summary(account: UserAccount) -> dict[str, Any]:
    return {
        "name": account.name,
        "role": account.role,
        "cohort": account.cohort,
        "disabled": account.disabled,
        "must_change_password": account.must_change_password,
        "locked_until": account.locked_until.isoformat() if account.locked_until else None,
        "created_at": account.created_at.isoformat(),
        "last_login_at": account.last_login_at.isoformat() if account.last_login_at else None,
    }


@cli.group(cls=Group)
def user() -> None:
    """Accounts of the web app: students, instructors, admins."""


@user.command("add")
@click.argument("name")
@click.option("--role", type=click.Choice(ROLES), required=True, help="What the account may do.")
@click.option("--cohort", help="The student's cohort (instructors: the cohort they teach).")
@click.pass_obj
def user_add(app: App, name: str, role: str, cohort: str | None) -> None:
    """Create an account; its password is read from standard input."""
    from quizbot import accounts

    accounts.check_name(name)
    password = _read_password()
    with database_for(app) as db:
        account = accounts.create_user(db, name, role, password, cohort=cohort, actor=_actor())
    where = f" in cohort {account.cohort}" if account.cohort else ""
    click.echo(f"added {account.role} {account.name}{where}")


@user.command("list")
@click.option("--json", "as_json", is_flag=True, help="Print the accounts as JSON.")
@click.pass_obj
def user_list(app: App, as_json: bool) -> None:
    """List the accounts (never their passwords)."""
    from quizbot import accounts

    with database_for(app) as db:
        rows = [_summary(a) for a in accounts.list_users(db)]
    if as_json:
        emit_json({"users": rows})
        return
    if not rows:
        click.echo("no accounts: the app runs in single-user local mode")
        return
    for row in rows:
        state = "disabled" if row["disabled"] else "active"
        if row["locked_until"]:
            state += f", locked until {row['locked_until']}"
        cohort = row["cohort"] or "-"
        click.echo(f"{row['name']:<24} {row['role']:<10} {cohort:<16} {state}")


@user.command("disable")
@click.argument("name")
@click.pass_obj
def user_disable(app: App, name: str) -> None:
    """Disable an account: it cannot log in, and its open sessions end at once."""
    from quizbot import accounts

    with database_for(app) as db:
        accounts.disable_user(db, name, actor=_actor())
    click.echo(f"disabled {name}; its sessions are closed")


@user.command("reset-password")
@click.argument("name")
@click.pass_obj
def user_reset_password(app: App, name: str) -> None:
    """Set a new password (read from standard input); clears a lockout, ends its sessions."""
    from quizbot import accounts
    from quizbot.errors import NotFoundError

    with database_for(app) as db:
        if accounts.user(db, name) is None:
            raise NotFoundError(f"no user {name!r}", hint="`quizbot user list` shows the accounts")
        password = _read_password("New password")
        accounts.reset_password(db, name, password, actor=_actor())
    click.echo(f"password of {name} changed; its sessions are closed")


@user.command("unlock")
@click.argument("name", required=False)
@click.option(
    "--local-admin",
    is_flag=True,
    help="Unlock local mode's admin password (QUIZBOT_ADMIN_PASSWORD).",
)
@click.pass_obj
def user_unlock(app: App, name: str | None, local_admin: bool) -> None:
    """End the login locks of an account from every address (its password stays)."""
    from quizbot import accounts
    from quizbot.errors import InputError

    if bool(name) == local_admin:
        raise InputError("name one account, or give --local-admin", field="name")
    target = accounts.LOCAL_ADMIN if local_admin else str(name)
    with database_for(app) as db:
        cleared = accounts.unlock(db, target, actor=_actor())
    shown = "the local admin password" if local_admin else target
    click.echo(f"unlocked {shown} ({cleared} address(es) had failed logins)")


@user.command("import")
@click.argument("file", type=click.Path(dir_okay=False, path_type=Path))
@click.option("--cohort", required=True, help="The cohort every account of the file joins.")
@click.option(
    "--output",
    type=click.Path(dir_okay=False, path_type=Path),
    help="Write name,role,cohort,one_time_password to this new file (readable by you only) "
    "instead of printing it.",
)
@click.pass_obj
def user_import(app: App, file: Path, cohort: str, output: Path | None) -> None:
    """Sign up a cohort from a CSV (header `name,role`; role defaults to student).

    Every account gets a one-time password, to be replaced at the first login. All accounts are
    created or none (a taken name or a bad row names the file, line and field).
    """
    from quizbot import accounts
    from quizbot.errors import InputError

    rows = accounts.read_cohort_csv(file)
    if output is not None and output.exists():
        raise InputError("the output file exists; nothing was created", path=str(output))
    with database_for(app) as db:
        invites = accounts.import_cohort(db, rows, cohort, actor=_actor())
    buffer = io.StringIO()
    writer = csv.writer(buffer, lineterminator="\n")
    writer.writerow(["name", "role", "cohort", "one_time_password"])
    writer.writerows([i.name, i.role, i.cohort, i.password] for i in invites)
    if output is None:
        click.echo(buffer.getvalue(), nl=False)
        return
    fd = os.open(output, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
    with os.fdopen(fd, "w", encoding="utf-8") as handle:
        handle.write(buffer.getvalue())
    click.echo(f"created {len(invites)} accounts in {cohort}; one-time passwords in {output}")


@user.command("audit")
@click.option("--limit", type=click.IntRange(1, 100_000), default=50, show_default=True)
@click.option("--user", "actor", help="Only what this account did.")
@click.option("--json", "as_json", is_flag=True, help="Print the entries as JSON.")
@click.pass_obj
def user_audit(app: App, limit: int, actor: str | None, as_json: bool) -> None:
    """Show the audit log, newest first: logins and admin or instructor actions."""
    from quizbot import accounts

    with database_for(app) as db:
        entries = accounts.audit_log(db, limit=limit, actor=actor)
    rows: list[dict[str, Any]] = [
        {
            "at": e.at.isoformat(),
            "actor": e.actor,
            "action": e.action,
            "target": e.target,
            "ok": e.ok,
            "detail": e.detail,
            "address": e.address,
        }
        for e in entries
    ]
    if as_json:
        emit_json({"entries": rows})
        return
    for row in rows:
        mark = "ok " if row["ok"] else "NO "
        click.echo(
            f"{row['at'][:19]} {mark}{row['action']:<22} {row['actor'] or '-':<20} "
            f"{row['target']} {row['detail']}".rstrip()
        )
