"""The smaller holes of issue 25, each as it was found: refused calls flooding the log and the
audit table, a raw model reply shown unredacted, cohort names outside the name rule, a mistyped
database URL echoed with its password."""

from __future__ import annotations

from pathlib import Path
from types import SimpleNamespace

import gradio as gr
import pytest

from quizbot import accounts
from quizbot.config import load_settings
from quizbot.domain import Role
from quizbot.errors import ConfigError, InputError, redact
from quizbot.evaluation.service import ModelAnswer
from quizbot.generate.assignments import AssignmentRequest, make_assignment
from quizbot.ui import identity
from quizbot.ui.app import build_app
from quizbot.ui.ask import answer_table
from quizbot.ui.context import UiContext
from storage import Database
from tests.ui.test_assignments_roles import _handler


def test_refused_calls_are_written_once_per_burst_without_a_traceback(
    db: Database, tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    """200 refused calls wrote 291 KB of tracebacks and 201 audit rows; now one row, one line."""
    accounts.create_user(db, "stu", "student", "student password 1")
    ctx = UiContext(load_settings(home=str(tmp_path / "home"), database_url=db.url), db)
    app = build_app(ctx.settings, db, ctx)
    refresh = _handler(app, "qb-assign-refresh")  # an instructor's handler
    stu = SimpleNamespace(username="stu")
    for _ in range(40):
        with pytest.raises(gr.Error, match="may not do this") as refused:
            refresh(True, None, stu, stu)
        assert refused.value.print_exception is False  # Gradio prints no traceback for it
    rows = [e for e in accounts.audit_log(db, limit=500, actor="stu") if not e.ok]
    assert len(rows) == 1  # one row for the whole burst, not one per call
    lines = [r for r in caplog.records if "refused stu" in r.getMessage()]
    assert len(lines) <= 1 and all(r.exc_info is None for r in caplog.records)


def test_the_burst_count_is_written_with_the_next_burst() -> None:
    refusals = identity.Refusals()
    firsts = [refusals.refused("stu", now=100.0 + i)[0] for i in range(200)]
    assert firsts.count(True) == 1
    first, unwritten, _ = refusals.refused("stu", now=100.0 + 199 + identity.REFUSED_BURST_S + 1)
    assert first and unwritten == 199
    assert refusals.refused("stu", now=400.0)[2] > 0  # later calls of a burst wait


def test_the_live_ask_table_shows_no_key_a_model_echoed() -> None:
    leak = "my key is sk-proj-abcdefghijklmnop1234 and Authorization: Bearer tok3n-12345678"
    table = answer_table([ModelAnswer("openai/m", leak, None, "no verdict", None)])
    shown = str(table["data"])
    assert "sk-proj-abcdefghijklmnop1234" not in shown and "tok3n-12345678" not in shown
    sdak = answer_table([ModelAnswer("openai/m", leak, None, "", None)], prompt="sdak")
    assert "sk-proj-abcdefghijklmnop1234" not in str(sdak["data"])


def test_redacting_twice_changes_nothing() -> None:
    for text in (
        "Authorization: Bearer abcdef0123456789",
        "authorization: basic dXNlcjpwYXNzd29yZA==",
        "x-api-key: 0123456789abcdef",
        "postgresql//quiz:SecretPw99@db/q",
        "https://u:pw12345678@host/x?token=abcdef123",
    ):
        once = redact(text)
        assert redact(once) == once, text
    assert redact("Authorization: Bearer abcdef0123456789") == "Authorization: Bearer [redacted]"


@pytest.mark.parametrize("cohort", ["<img src=x onerror=alert(1)>", "a/b", "year\n2", '"q"'])
def test_cohort_names_follow_the_name_rule_everywhere_they_are_typed(
    db: Database, cohort: str
) -> None:
    with pytest.raises(InputError):
        accounts.create_user(db, "ann", "student", "student password 1", cohort=cohort)
    with pytest.raises(InputError):
        accounts.import_cohort(db, [("bob", Role.STUDENT)], cohort)
    with pytest.raises(InputError, match="--cohort"):
        make_assignment(db, AssignmentRequest(name="wk1", kb="clinical-core", cohort=cohort))
    assert accounts.list_users(db) == []


def test_a_mistyped_database_url_is_never_echoed_with_its_password() -> None:
    for url in ("postgresql//quiz:SecretPw99@db/q", "postgresql+psycopg//quiz:SecretPw99@db/q"):
        with pytest.raises(ConfigError) as info:
            load_settings(database_url=url)
        shown = info.value.message + (info.value.hint or "")
        assert "SecretPw99" not in shown, shown
        assert "DATABASE_URL" in shown


def test_uploads_of_processes_that_are_gone_are_swept_at_start(tmp_path: Path) -> None:
    import os
    import subprocess
    import sys

    from quizbot.server import upload_folder

    gone = subprocess.run([sys.executable, "-c", "import os; print(os.getpid())"],
                          capture_output=True, text=True, check=True)  # fmt: skip
    dead = tmp_path / "uploads" / gone.stdout.strip()
    (dead / "abc").mkdir(parents=True)
    (dead / "abc" / "big.csv").write_bytes(b"x" * 1000)
    alive = tmp_path / "uploads" / str(os.getppid())  # the test runner's parent: running
    alive.mkdir()
    mine = upload_folder(tmp_path)
    assert mine == tmp_path / "uploads" / str(os.getpid()) and mine.is_dir()
    assert not dead.exists() and alive.exists()
