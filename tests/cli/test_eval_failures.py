"""`quizbot eval` reports failure as failure: a closed port, a refused key, a mistyped baseline.

These run the real command in a subprocess, over real HTTP through litellm, so what a user sees
(exit code, stderr, what is left in the database) is what is checked.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from tests.helpers.net import free_port
from tests.helpers.stub import stub_server

QUIZBOT = str(Path(sys.executable).with_name("quizbot"))
KEY = "sk-quizbot-test-0123456789abcdef"


def _quizbot(env: dict[str, str], *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [QUIZBOT, *args], env=env, capture_output=True, text=True, timeout=180, check=False
    )


@pytest.fixture
def env(database_url: str, tmp_path: Path) -> dict[str, str]:
    return {
        **os.environ,
        "DATABASE_URL": database_url,
        "QUIZBOT_HOME": str(tmp_path / "home"),
        "TEAM_KEY": KEY,
    }


def _runs(env: dict[str, str]) -> list[dict[str, object]]:
    listed = _quizbot(env, "runs", "list", "--json")
    assert listed.returncode == 0, listed.stderr
    return list(json.loads(listed.stdout)["runs"])


@pytest.mark.slow
def test_eval_against_a_closed_port_fails_with_the_cause_and_exit_69(
    env: dict[str, str],
) -> None:
    port = free_port()  # nothing listens there
    done = _quizbot(
        env, "eval", "--model", "openai/nobody", "--api-base", f"http://127.0.0.1:{port}/v1",
        "--kb", "clinical-core", "--points", "4", "--concurrency", "4",
    )  # fmt: skip
    assert done.returncode == 69, done.stderr
    assert "failed" in done.stderr and "connection" in done.stderr.lower()
    assert "Traceback" not in done.stderr and "completed" not in done.stdout
    (run,) = _runs(env)
    assert run["status"] == "failed"
    # It stopped early: far fewer than the 64 statements were even tried.
    assert int(str(run["responses"])) < 64


@pytest.mark.slow
def test_a_refused_key_is_not_retried_and_never_shown_or_stored(
    env: dict[str, str], tmp_path: Path
) -> None:
    log = tmp_path / "calls.jsonl"
    with stub_server("--status", "401", "--echo-key", "--log", str(log)) as base:
        done = _quizbot(
            env, "eval", "--model", "openai/m", "--api-base", base, "--api-key-env", "TEAM_KEY",
            "--kb", "clinical-core", "--points", "4", "--concurrency", "1", "--json",
        )  # fmt: skip
    assert done.returncode == 69, done.stderr
    assert KEY not in done.stderr and KEY not in done.stdout
    calls = log.read_text().splitlines()
    assert len(calls) == 5  # fail fast after five refusals in a row, and no retries
    report = json.loads(done.stdout)
    assert report["status"] == "failed" and KEY not in json.dumps(report)
    assert "AuthenticationError" in str(report.get("error"))


def test_a_mistyped_baseline_is_a_user_error_and_leaves_no_run(env: dict[str, str]) -> None:
    done = _quizbot(env, "eval", "--model", "baseline/randon", "--kb", "clinical-core",
                    "--points", "1")  # fmt: skip
    assert done.returncode == 65, done.stderr
    assert "unknown baseline" in done.stderr
    assert _runs(env) == []
