"""`quizbot monitor release`: an admin frees a night claimed by a process that was killed."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
from datetime import date

import pytest
from click.testing import CliRunner

from quizbot.cli import cli
from quizbot.domain import NightStatus
from storage import Database
from storage.monitoring import claim_night, finish_night, list_nights, upsert_monitor

NIGHT = date(2026, 11, 24)
CLAIMER = """
import sys, time
from datetime import date
from storage import open_database
from storage.monitoring import claim_night
db = open_database(sys.argv[1])
night = claim_night(db, int(sys.argv[2]), "baseline/random", date(2026, 11, 24), "doomed:4242")
print(night.id, flush=True)
time.sleep(600)
"""


def _claimed_by_a_killed_process(database_url: str, monitor_id: int) -> int:
    proc = subprocess.Popen(
        [sys.executable, "-c", CLAIMER, database_url, str(monitor_id)],
        stdout=subprocess.PIPE,
        text=True,
        env={**os.environ},
    )
    assert proc.stdout is not None
    night_id = int(proc.stdout.readline())
    proc.send_signal(signal.SIGKILL)
    proc.wait(timeout=30)
    return night_id


def test_a_night_of_a_killed_process_is_released_and_taken_over_at_once(
    db: Database, database_url: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("DATABASE_URL", database_url)
    monitor = upsert_monitor(db, "nightly", {"models": ["baseline/random"]})
    assert monitor.id is not None
    night_id = _claimed_by_a_killed_process(database_url, monitor.id)
    # Still claimed: nobody else may run it for hours.
    assert claim_night(db, monitor.id, "baseline/random", NIGHT, "next:1") is None

    runner = CliRunner()
    listed = runner.invoke(cli, ["monitor", "release", "--json"])
    assert listed.exit_code == 0, listed.output
    (claim,) = json.loads(listed.stdout)["claimed"]
    assert claim["night"] == night_id and claim["claimed_by"] == "doomed:4242"

    released = runner.invoke(cli, ["monitor", "release", str(night_id)])
    assert released.exit_code == 0, released.output
    assert f"released night {night_id}" in released.stdout and "doomed:4242" in released.stdout
    (row,) = list_nights(db, monitor.id)
    assert row.status == NightStatus.FAILED and "released by" in (row.error_text or "")

    taken = claim_night(db, monitor.id, "baseline/random", NIGHT, "next:1")
    assert taken is not None and taken.id == night_id  # the same night, taken over now
    (again,) = json.loads(runner.invoke(cli, ["monitor", "release", "--json"]).stdout)["claimed"]
    assert again["night"] == night_id and again["claimed_by"] == "next:1"


def test_only_a_claimed_night_can_be_released(db: Database, database_url: str,
                                              monkeypatch: pytest.MonkeyPatch) -> None:  # fmt: skip
    monkeypatch.setenv("DATABASE_URL", database_url)
    monitor = upsert_monitor(db, "nightly", {"models": ["baseline/random"]})
    assert monitor.id is not None
    night = claim_night(db, monitor.id, "baseline/random", NIGHT, "host:1")
    assert night is not None
    finish_night(db, night.id, status=NightStatus.COMPLETED, summary={})
    runner = CliRunner()
    done = runner.invoke(cli, ["monitor", "release", str(night.id)])
    assert done.exit_code == 65 and "is completed, not claimed" in done.stderr
    (row,) = list_nights(db, monitor.id)
    assert row.status == NightStatus.COMPLETED  # untouched
    missing = runner.invoke(cli, ["monitor", "release", "999999"])
    assert missing.exit_code == 66 and "no monitor night with id 999999" in missing.stderr
    assert "Traceback" not in done.output + missing.output
