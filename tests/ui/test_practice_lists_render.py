"""The Practice tab's assignment list and progress chart as rendered (pure functions), and the
hints that no longer ask for a pseudonym in accounts mode (issue 29)."""

from __future__ import annotations

import re
from datetime import UTC, datetime

from quizbot.analysis.metrics import Proportion
from quizbot.config import load_settings
from quizbot.practice.service import (
    ProgressPoint,
    StudentAssignment,
    answer,
    next_question,
    start_session,
)
from quizbot.ui import recall_practice
from quizbot.ui.context import UiContext
from quizbot.ui.practice.assignment_list import FREE_PRACTICE, assignment_table, choices
from quizbot.ui.practice.panels import show_coverage, show_progress, start_weakest
from quizbot.ui.practice.progress_chart import progress_chart
from quizbot.ui.practice.render import ALL_TOPICS, due_hint
from storage import Database
from tests.practice.test_service import reply, session_rows


def _entry(name: str, status: str, open_now: bool = True, **more: object) -> StudentAssignment:
    values: dict[str, object] = {
        "name": name, "kb": "clinical-core", "kind": "statements", "mode": "practice",
        "n_items": 4, "status": status, "open_now": open_now, "opens_at": None,
        "closes_at": None, "window": "always open",
    }  # fmt: skip
    values.update(more)
    return StudentAssignment(**values)  # type: ignore[arg-type]


def test_the_list_says_status_and_window_and_offers_only_open_assignments() -> None:
    found = [
        _entry("cardio|1", "in progress", window="closes 2026-12-01 12:00 UTC"),
        _entry("exam-1", "not started", mode="exam", kind="choice"),
        _entry("later", "not started", open_now=False, opens_at=datetime(2026, 12, 6, tzinfo=UTC),
               window="opens 2026-12-06 00:00 UTC"),
    ]  # fmt: skip
    text = assignment_table(found)
    lines = text.splitlines()
    assert lines[0] == "**Your assignments**"
    assert "*in progress* · closes 2026-12-01 12:00 UTC · 4 questions" in lines[2]
    assert "multiple choice, exam · *not started*" in lines[3]
    assert "*not open yet* · opens 2026-12-06 00:00 UTC" in lines[4]
    assert choices(found) == [
        FREE_PRACTICE,
        ("cardio|1 (in progress)", "cardio|1"),
        ("exam-1 (not started)", "exam-1"),
    ]
    assert "none open for you now" in assignment_table([])


def _point(period: str, k: int, n: int) -> ProgressPoint:
    return ProgressPoint(period, Proportion.of(k, n))


def test_one_day_is_one_point_with_its_interval_bar() -> None:
    html = progress_chart([_point("2026-11-29", 3, 5)], "day")
    assert html.count('class="qb-progress-point"') == 1
    assert 'data-period="2026-11-29"' in html and ">29 Nov<" in html
    bar = re.search(r'class="qb-progress-ci" x1="([\d.]+)" x2="[\d.]+" y1="([\d.]+)" '
                    r'y2="([\d.]+)"', html)  # fmt: skip
    assert bar is not None
    x, low_y, high_y = (float(v) for v in bar.groups())
    assert low_y - high_y > 50  # 3/5 has a wide interval: a long bar, not a dot
    width = float(re.search(r'<svg[^>]* width="(\d+)"', html).group(1))  # type: ignore[union-attr]
    assert abs(x - (46 + (width - 62) / 2)) < 1  # the one point sits in the middle
    assert "3/5 right, 60% (95% CI 23%–88%)" in html
    assert 'role="img"' in html and "1 point(s)" in html


def test_weeks_and_sessions_are_labelled_and_empty_periods_left_out() -> None:
    points = [_point("2026-11-02", 1, 2), _point("2026-11-09", 0, 0), _point("2026-11-16", 2, 2)]
    html = progress_chart(points, "week")
    assert html.count('class="qb-progress-point"') == 2
    assert ">wk 2 Nov<" in html and ">wk 16 Nov<" in html and "per week (UTC, from Monday)" in html
    xs = [float(x) for x in re.findall(r'<circle cx="([\d.]+)"', html)]
    assert len(set(xs)) == 2 and "<polyline" in html
    assert ">#7<" in progress_chart([_point("7", 1, 1)], "session")
    assert "No answers to chart yet" in progress_chart([], "day")
    assert "<script" not in progress_chart([_point("<script>", 1, 1)], "session")


def test_accounts_mode_hints_ask_for_no_pseudonym() -> None:
    for text in (due_hint(True), recall_practice.start_hint(True)):
        assert "pseudonym" not in text.lower()
    assert "pseudonym" in due_hint(False) and "pseudonym" in recall_practice.start_hint(False)


def test_practice_these_starts_a_session_on_the_weakest_topics(db: Database) -> None:
    """Over a real database: the weakest topics of the view shown, one click, one session."""
    ctx = UiContext(load_settings(models=["openai/stub"]), db)
    nothing = start_weakest(ctx, "Eve", ALL_TOPICS, "clinical-core", "relation", "statement", 5,
                            None, None)  # fmt: skip
    assert nothing[0]["error"] and "Traceback" not in nothing[2]
    for topic in ("relation:has_symptom", "relation:treated_with_drug"):
        view = start_session(db, student="Eve", topic=topic, length=3, seed=topic)
        for row in session_rows(db, view.id):
            question = next_question(db, view.id)
            assert question is not None
            answer(db, view.id, question.id, reply(row, right=False))
    _, _, weakest, button = show_coverage(ctx, "eve", ALL_TOPICS, "clinical-core", "relation")
    assert weakest.startswith("**Weakest topics:** ") and weakest.count(": 0/3 (0%") == 2
    assert button["interactive"]
    out = start_weakest(ctx, "Eve", ALL_TOPICS, "clinical-core", "relation", "statement", 4,
                        None, None)  # fmt: skip
    session = out[0]["session"]
    assert session["topic_label"].startswith("Topics: ") and session["total"] == 4
    overview, chart, *_ = show_progress(ctx, "eve", ALL_TOPICS, "week")
    assert "Per week" in overview and chart.count('class="qb-progress-point"') == 1
