"""`quizbot user`: accounts from the command line, passwords only from standard input."""

from __future__ import annotations

import csv
import io
import json
import stat
from pathlib import Path

import pytest
from click.testing import CliRunner

from quizbot import accounts
from quizbot.cli import cli
from storage import open_database

PASSWORD = "correct horse battery"


@pytest.fixture
def runner(monkeypatch: pytest.MonkeyPatch, database_url: str, tmp_path: Path) -> CliRunner:
    monkeypatch.setenv("DATABASE_URL", database_url)
    monkeypatch.setenv("QUIZBOT_HOME", str(tmp_path / "home"))
    return CliRunner()


def _login(database_url: str, name: str, password: str) -> str:
    db = open_database(database_url)
    try:
        return accounts.login(db, name, password).outcome
    finally:
        db.dispose()


def test_add_reads_the_password_from_stdin_and_list_shows_no_hash(
    runner: CliRunner, database_url: str
) -> None:
    added = runner.invoke(
        cli, ["user", "add", "ins", "--role", "instructor", "--cohort", "y1"], input=PASSWORD + "\n"
    )
    assert added.exit_code == 0, added.output
    assert "added instructor ins in cohort y1" in added.output
    assert _login(database_url, "ins", PASSWORD) == "ok"
    listed = runner.invoke(cli, ["user", "list", "--json"])
    assert listed.exit_code == 0, listed.output
    (row,) = json.loads(listed.stdout)["users"]
    assert (row["name"], row["role"], row["cohort"], row["disabled"]) == (
        "ins",
        "instructor",
        "y1",
        False,
    )
    assert "argon2" not in listed.stdout and PASSWORD not in listed.stdout


def test_the_password_is_never_an_argument(runner: CliRunner) -> None:
    result = runner.invoke(cli, ["user", "add", "ins", "--role", "admin", "--password", "x"])
    assert result.exit_code == 2
    assert "No such option" in result.output


def test_bad_passwords_and_no_password_are_clear_errors(runner: CliRunner) -> None:
    weak = runner.invoke(cli, ["user", "add", "bob", "--role", "admin"], input="   \n")
    assert weak.exit_code == 65
    assert "error: field 'password'" in weak.output
    missing = runner.invoke(cli, ["user", "add", "bob", "--role", "admin"], input="")
    assert missing.exit_code == 65
    assert "no password on standard input" in missing.output
    assert "Traceback" not in weak.output + missing.output
    assert json.loads(runner.invoke(cli, ["user", "list", "--json"]).stdout) == {"users": []}


def test_disable_and_reset_password(runner: CliRunner, database_url: str) -> None:
    runner.invoke(cli, ["user", "add", "amy", "--role", "student"], input=PASSWORD + "\n")
    reset = runner.invoke(cli, ["user", "reset-password", "amy"], input="another long one\n")
    assert reset.exit_code == 0, reset.output
    assert _login(database_url, "amy", PASSWORD) == "refused"
    assert _login(database_url, "amy", "another long one") == "ok"
    disabled = runner.invoke(cli, ["user", "disable", "amy"])
    assert disabled.exit_code == 0, disabled.output
    assert _login(database_url, "amy", "another long one") == "refused"
    missing = runner.invoke(cli, ["user", "disable", "nobody"])
    assert missing.exit_code == 66 and "no user 'nobody'" in missing.output
    audit = runner.invoke(cli, ["user", "audit", "--json"])
    actions = [e["action"] for e in json.loads(audit.stdout)["entries"]]
    assert actions[:3] == ["login", "user.disable", "login"]  # refused, disabled, ok
    assert "user.reset-password" in actions and "user.add" in actions


def test_import_writes_one_time_passwords_to_a_private_file(
    runner: CliRunner, database_url: str, tmp_path: Path
) -> None:
    roster = tmp_path / "y1.csv"
    roster.write_text("name,role\nann,student\nben,instructor\n", encoding="utf-8")
    out = tmp_path / "invites.csv"
    result = runner.invoke(
        cli, ["user", "import", "--cohort", "y1", str(roster), "--output", str(out)]
    )
    assert result.exit_code == 0, result.output
    assert "created 2 accounts in y1" in result.output
    assert stat.S_IMODE(out.stat().st_mode) == 0o600
    rows = list(csv.DictReader(io.StringIO(out.read_text(encoding="utf-8"))))
    assert [(r["name"], r["role"], r["cohort"]) for r in rows] == [
        ("ann", "student", "y1"),
        ("ben", "instructor", "y1"),
    ]
    assert _login(database_url, "ann", rows[0]["one_time_password"]) == "change_password"
    again = runner.invoke(
        cli, ["user", "import", "--cohort", "y1", str(roster), "--output", str(out)]
    )
    assert again.exit_code == 65 and "output file exists" in again.output


def test_import_of_a_bad_file_creates_nothing(runner: CliRunner, tmp_path: Path) -> None:
    roster = tmp_path / "y1.csv"
    roster.write_text("name,role\nann,student\nb/en,student\n", encoding="utf-8")
    result = runner.invoke(cli, ["user", "import", "--cohort", "y1", str(roster)])
    assert result.exit_code == 65
    assert "y1.csv, line 3, field 'name'" in result.output
    assert json.loads(runner.invoke(cli, ["user", "list", "--json"]).stdout) == {"users": []}
