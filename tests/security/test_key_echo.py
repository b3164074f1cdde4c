"""A provider that echoes the API key: the key reaches no table, no output and no log line.

The key is unremarkable on purpose (no ``sk-`` shape) and lives in a variable whose name says
nothing (``TEAM_CRED``), named by ``QUIZBOT_MODEL_SETTINGS``: only knowing the configured keys
keeps it out. Everything runs for real: ``quizbot eval`` in a subprocess, litellm over HTTP to
tests/helpers/model_server.py, then ``quizbot answers --json`` and ``quizbot runs list``.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
from sqlalchemy import MetaData, create_engine, select

from tests.helpers.stub import stub_server

QUIZBOT = str(Path(sys.executable).with_name("quizbot"))
KEY = "TeamCred-4f9a2b7c0d1e"


def _quizbot(env: dict[str, str], *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [QUIZBOT, *args], env=env, capture_output=True, text=True, timeout=180, check=False
    )


def database_text(url: str) -> str:
    """Every value of every row of every table, as one text (what a leak would be found in)."""
    engine = create_engine(url)
    try:
        meta = MetaData()
        meta.reflect(engine)
        with engine.connect() as conn:
            return "\n".join(
                repr(tuple(row))
                for table in meta.sorted_tables
                for row in conn.execute(select(table))
            )
    finally:
        engine.dispose()


@pytest.mark.slow
def test_an_echoed_key_is_stored_shown_and_logged_nowhere(
    database_url: str, tmp_path: Path
) -> None:
    env = {
        **os.environ,
        "DATABASE_URL": database_url,
        "QUIZBOT_HOME": str(tmp_path / "home"),
        "QUIZBOT_LOG_LEVEL": "DEBUG",
        "TEAM_CRED": KEY,
        "QUIZBOT_MODEL_SETTINGS": json.dumps({"openai/*": {"api_key_env": "TEAM_CRED"}}),
    }
    log = tmp_path / "calls.jsonl"
    with stub_server("--status", "401", "--echo-key", "--log", str(log)) as base:
        done = _quizbot(
            env, "eval", "--model", "openai/m", "--api-base", base, "--kb", "clinical-core",
            "--points", "2", "--concurrency", "1", "--json",
        )  # fmt: skip
    assert done.returncode == 69, done.stderr
    assert log.read_text().strip(), "the model server was never called"
    run = json.loads(done.stdout)
    assert run["status"] == "failed" and "is not valid" in str(run["error"])  # the echo came back
    answers = _quizbot(env, "answers", "--run", str(run["run_id"]), "--json")
    assert answers.returncode == 0, answers.stderr
    errors = [
        a["error_text"] for item in json.loads(answers.stdout)["items"] for a in item["answers"]
    ]
    assert errors and all("[redacted]" in e for e in errors)
    listed = _quizbot(env, "runs", "list", "--json")
    for shown in (done.stdout, done.stderr, answers.stdout, answers.stderr, listed.stdout):
        assert KEY not in shown
    stored = database_text(database_url)
    assert "is not valid" in stored and KEY not in stored
