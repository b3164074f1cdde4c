"""The Assignments tab's pieces without a browser: the create form and the two pages it renders.

The browser test of the whole tab is ``test_assignment_done.py``; here the form's values go
through :func:`quizbot.ui.assignments.create` and the pages are rendered from stored answers.
"""

from __future__ import annotations

from collections.abc import Iterator
from datetime import UTC, datetime, timedelta

import pytest

from quizbot.analysis.answers import assignment_answers
from quizbot.analysis.assignments import assignment_results
from quizbot.config import load_settings
from quizbot.errors import InputError
from quizbot.practice.assignments import start_assignment_session
from quizbot.practice.service import answer, next_question
from quizbot.ui.assignments import assignment_rows, create, render_items, render_results
from quizbot.ui.context import UiContext
from storage import Database
from storage.assignments import list_assignments


@pytest.fixture
def ctx(db: Database) -> Iterator[UiContext]:
    yield UiContext(load_settings(models=["openai/stub"]), db)


FORM = {
    "kb": "clinical-core", "points": 2, "fmt": "statements", "mode": "exam", "cohort": "Y3",
    "opens": "", "closes": "", "all_variants": False, "two_pass": False,
}  # fmt: skip


def test_the_form_makes_an_assignment_and_refuses_bad_values_writing_nothing(
    ctx: UiContext,
) -> None:
    with pytest.raises(InputError, match="opens"):
        create(ctx, name="bad", **{**FORM, "opens": "soon"})  # type: ignore[arg-type]
    with pytest.raises(InputError, match="two-pass"):
        create(ctx, name="bad", **{**FORM, "mode": "practice", "two_pass": True})  # type: ignore[arg-type]
    assert list_assignments(ctx.db) == []
    closes = (datetime.now(UTC) + timedelta(days=7)).strftime("%Y-%m-%dT%H:%M")
    made = create(ctx, name="wk", **{**FORM, "closes": closes, "two_pass": True})  # type: ignore[arg-type]
    assert made.mode == "exam" and made.cohort == "Y3" and made.config["two_pass"] is True
    (row,) = assignment_rows(list_assignments(ctx.db))
    assert row[:6] == ["wk", "clinical-core", len(made.item_ids), "exam", "yes", "Y3"]
    assert row[6].startswith("closes ")


def test_the_pages_show_each_respondent_and_every_answer(ctx: UiContext) -> None:
    create(ctx, name="wk", **FORM)  # type: ignore[arg-type]
    view = start_assignment_session(ctx.db, assignment="wk", student="Ana")
    n = 0
    while (question := next_question(ctx.db, view.id)) is not None:
        answer(ctx.db, view.id, question.id, "true", shown_at=question.shown_at)
        n += 1
    results = assignment_results(ctx.db, "wk")
    page = render_results(results)
    (ana,) = results["respondents"]
    acc = ana["metrics"]["accuracy"]
    line = next(x for x in page.splitlines() if x.startswith("| ana |"))
    assert f"({acc['k']}/{acc['n']})" in line and f"{acc['value']:.3f}" in line
    items = render_items(assignment_answers(ctx.db, "wk"))
    assert items.count("student **ana**") == n
    assert "no feedback" in items and "time not stored" not in items


def test_the_form_fixes_the_protocol(ctx: UiContext) -> None:
    made = create(ctx, name="strict", idk=False, shots=2, **FORM)  # type: ignore[arg-type]
    protocol = made.config["protocol"]
    assert (protocol["idk"], protocol["shots"], protocol["two_pass"]) == (False, 2, False)
    with pytest.raises(InputError, match="I do not know"):
        create(ctx, name="bad", idk=False, **{**FORM, "two_pass": True})  # type: ignore[arg-type]
    page = render_results(assignment_results(ctx.db, "strict"))
    assert 'True / False, no "I do not know"' in page and "2 worked example(s)" in page
