"""`quizbot db info` only reads: a mistyped SQLite path is a clear error and creates nothing."""

from __future__ import annotations

from pathlib import Path

import pytest
from click.testing import CliRunner

from quizbot.cli import cli


def test_db_info_on_a_mistyped_sqlite_path_creates_nothing(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    missing = tmp_path / "typo-dir" / "quizbto.db"
    monkeypatch.setenv("DATABASE_URL", f"sqlite:///{missing}")
    result = CliRunner().invoke(cli, ["db", "info"])
    assert result.exit_code == 66, result.output
    assert f"no SQLite database at {missing}" in result.stderr and "DATABASE_URL" in result.stderr
    assert "Traceback" not in result.output
    assert not (tmp_path / "typo-dir").exists()  # neither the file nor its directory
    assert not (tmp_path / "home").exists()  # nor the data directory
    # The same path once created is read as before.
    monkeypatch.setenv("DATABASE_URL", f"sqlite:///{tmp_path / 'real.db'}")
    assert CliRunner().invoke(cli, ["db", "upgrade"]).exit_code == 0
    assert CliRunner().invoke(cli, ["db", "info"]).exit_code == 0
