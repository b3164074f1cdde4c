"""The quizbot command: help everywhere, db commands on both backends, user-safe errors."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import click
import pytest
from click.testing import CliRunner
from sqlmodel import SQLModel

import quizbot.status as status_module
from quizbot.cli import cli
from storage import head_revision

QUIZBOT = Path(sys.executable).with_name("quizbot")


def _commands(group: click.Group, prefix: tuple[str, ...] = ()) -> list[tuple[str, ...]]:
    found = [prefix]
    for name, command in group.commands.items():
        if isinstance(command, click.Group):
            found += _commands(command, (*prefix, name))
        else:
            found.append((*prefix, name))
    return found


@pytest.mark.parametrize("path", _commands(cli), ids=lambda p: " ".join(p) or "quizbot")
def test_every_command_has_help(path: tuple[str, ...]) -> None:
    result = CliRunner().invoke(cli, [*path, "--help"])
    assert result.exit_code == 0, result.output
    assert "Usage: quizbot" in result.output
    command: click.Command = cli
    for name in path:
        assert isinstance(command, click.Group)
        command = command.commands[name]
    assert command.help
    summary = " ".join(command.help.split("\n")[0].split())
    assert summary in " ".join(result.output.split())  # help text is re-wrapped


def test_db_upgrade_then_info_json(monkeypatch: pytest.MonkeyPatch, database_url: str) -> None:
    monkeypatch.setenv("DATABASE_URL", database_url)
    runner = CliRunner()
    first = runner.invoke(cli, ["db", "upgrade", "--json"])
    assert first.exit_code == 0, first.output
    assert json.loads(first.stdout) == {
        "url": database_url,
        "from": None,
        "to": head_revision(),
        "changed": True,
    }
    second = runner.invoke(cli, ["db", "upgrade"])
    assert second.exit_code == 0
    assert "nothing to do" in second.stdout

    info = runner.invoke(cli, ["db", "info", "--json"])
    assert info.exit_code == 0, info.output
    data = json.loads(info.stdout)
    assert {"url", "schema_version", "counts"} <= set(data)
    assert data["schema_version"] == head_revision()
    assert data["counts"]["response"] == 0
    # Every table the models declare exists after the migrations, and nothing else but the
    # scheduler's job store (APScheduler makes that one itself).
    assert set(data["counts"]) == set(SQLModel.metadata.tables) | {"apscheduler_jobs"}


def test_db_info_on_an_empty_database_changes_nothing(monkeypatch: pytest.MonkeyPatch) -> None:
    result = CliRunner().invoke(cli, ["db", "info"])
    assert result.exit_code == 0, result.output
    assert "none (empty database)" in result.stdout
    assert "quizbot db upgrade" in result.stdout
    again = CliRunner().invoke(cli, ["db", "info", "--json"])
    assert json.loads(again.stdout)["schema_version"] is None


def test_db_info_masks_the_password(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("DATABASE_URL", "postgresql://alice:s3cret@127.0.0.1:1/quiz")
    result = CliRunner().invoke(cli, ["db", "info", "--json"])
    assert result.exit_code == 69
    assert "s3cret" not in result.output
    assert "alice:***@127.0.0.1:1/quiz" in result.stderr


def test_bad_settings_exit_78_with_the_fix_and_no_traceback(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setenv("QUIZBOT_PORT", "seventy")
    result = CliRunner().invoke(cli, ["db", "info"])
    assert result.exit_code == 78
    assert result.stderr.startswith("error: invalid setting: QUIZBOT_PORT='seventy'")
    assert "fix: set QUIZBOT_PORT" in result.stderr
    assert "Traceback" not in result.output


def test_unexpected_errors_apologise_unless_debugging(monkeypatch: pytest.MonkeyPatch) -> None:
    def boom(_db: object) -> None:
        raise RuntimeError("kaboom")

    monkeypatch.setattr(status_module, "database_report", boom)
    result = CliRunner().invoke(cli, ["db", "info"])
    assert result.exit_code == 70
    assert "internal error (RuntimeError): kaboom" in result.stderr
    assert "QUIZBOT_DEBUG=1" in result.stderr
    assert "Traceback" not in result.output

    monkeypatch.setenv("QUIZBOT_DEBUG", "1")
    debug = CliRunner().invoke(cli, ["db", "info"])
    assert isinstance(debug.exception, RuntimeError)
    flag = CliRunner().invoke(cli, ["--debug", "db", "info"], env={"QUIZBOT_DEBUG": ""})
    assert isinstance(flag.exception, RuntimeError)


def test_installed_console_script_runs(tmp_path: Path) -> None:
    assert QUIZBOT.exists(), "the quizbot console script is not installed in this environment"
    env = {"QUIZBOT_HOME": str(tmp_path / "h"), "PATH": "/usr/bin:/bin"}
    version = subprocess.run([str(QUIZBOT), "--version"], capture_output=True, text=True, env=env)
    assert version.returncode == 0 and "quizbot, version" in version.stdout
    upgrade = subprocess.run(
        [str(QUIZBOT), "db", "upgrade"], capture_output=True, text=True, env=env, timeout=120
    )
    assert upgrade.returncode == 0, upgrade.stderr
    info = subprocess.run(
        [str(QUIZBOT), "db", "info", "--json"], capture_output=True, text=True, env=env, timeout=120
    )
    assert info.returncode == 0, info.stderr
    assert json.loads(info.stdout)["schema_version"] == head_revision()  # stdout is only JSON
    assert (tmp_path / "h" / "quizbot.db").exists()
    # A command on a new home creates the database: the user reads quizbot's own line about it,
    # not Alembic's internals ("setup plugin ...").
    fresh = {**env, "QUIZBOT_HOME": str(tmp_path / "fresh")}
    out = tmp_path / "items.jsonl"
    generate = subprocess.run(
        [str(QUIZBOT), "generate", "--kb", "clinical-core", "--points", "1", "--out", str(out)],
        capture_output=True,
        text=True,
        env=fresh,
        timeout=120,
    )
    assert generate.returncode == 0, generate.stderr
    assert "alembic" not in generate.stderr, generate.stderr


def test_error_messages_never_print_a_secret(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("TEAM_OPENAI_KEY", "sk-team-secret-0123456789")

    def boom(_db: object) -> None:
        raise RuntimeError("upstream said: bad key sk-team-secret-0123456789")

    monkeypatch.setattr(status_module, "database_report", boom)
    result = CliRunner().invoke(cli, ["db", "info"])
    assert result.exit_code == 70
    assert "sk-team-secret" not in result.output and "upstream said: bad key" in result.stderr
