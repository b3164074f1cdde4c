"""The operator's warnings about PostgreSQL's query planner statistics (storage.repo)."""

from __future__ import annotations

import threading

from sqlalchemy import text

from quizbot.domain import Outcome
from quizbot.status import database_report
from quizbot.ui.app import render_status
from storage import Database
from storage.repo import NewResponse, planner_warnings, record_responses
from tests.helpers.factories import make_run


def _answers(db: Database, n: int) -> None:
    fx = make_run(db, n, kb_name="stats")
    record_responses(
        db,
        [
            NewResponse(
                item_id=item_id,
                respondent_id=fx.respondent_id,
                run_id=fx.run_id,
                outcome=Outcome.CORRECT,
            )
            for item_id in fx.item_ids
        ],
    )


def _wait_for_row_count(db: Database, table: str, rows: int) -> None:
    """Wait until PostgreSQL's statistics counters show ``rows`` live rows in ``table``: a
    backend reports what it inserted when it goes idle, up to some seconds later."""
    live = text("SELECT n_live_tup FROM pg_stat_user_tables WHERE relname = :t")
    for _ in range(300):
        if (db.read(lambda s: s.execute(live, {"t": table}).scalar()) or 0) >= rows:
            return
        threading.Event().wait(0.1)
    raise AssertionError(f"PostgreSQL's counters never showed {rows} rows in {table}")


def _autovacuum_on(db: Database) -> bool:
    setting: str = db.read(lambda s: s.execute(text("SHOW autovacuum")).scalar_one())
    return setting == "on"


def test_a_big_table_never_analyzed_is_named_until_it_is(db: Database) -> None:
    _answers(db, 30)
    if db.backend == "sqlite":
        assert planner_warnings(db, min_rows=10) == []  # no statistics by design: no warning
        return
    _wait_for_row_count(db, "response", 30)
    warned = planner_warnings(db, min_rows=10)
    (about_response,) = [w for w in warned if w.startswith("table response ")]
    assert about_response.startswith("table response (30 rows) has never been analyzed")
    assert about_response.endswith("run ANALYZE response")
    assert planner_warnings(db, min_rows=30) == [w for w in warned if "autovacuum" in w]
    with db.engine.connect() as conn:
        conn.execution_options(isolation_level="AUTOCOMMIT").exec_driver_sql("ANALYZE response")
    assert not any(w.startswith("table response ") for w in planner_warnings(db, min_rows=10))


def test_autovacuum_off_is_a_warning_and_the_status_page_shows_it(db: Database) -> None:
    report = database_report(db)
    page = render_status(report)
    autovacuum = [w for w in report.warnings if "autovacuum is off" in w]
    if db.backend == "postgresql" and not _autovacuum_on(db):
        assert len(autovacuum) == 1
        assert f"- **Warning:** {autovacuum[0]}" in page
    else:
        assert autovacuum == []
        assert "Warning" not in page
    assert database_report(db, detailed=False).warnings == ()  # administrators only
