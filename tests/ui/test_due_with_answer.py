"""One server request per answer, in a real browser (issue 32, docs/performance.md Part 7).

The "Due for review" panel used to be read by a request of its own after every change of the
chat, and the flag form cleared by another after every new flaggable question: an answer cost
three server events (Next too). Now the answer's own outputs carry both, so one answer is one
event, and the panel still shows the right count: a fact missed two days ago (the app's clock
moved through QUIZBOT_CLOCK_FILE) is counted by the next answer itself. In local mode (a
pseudonym typed) and in accounts mode (the panel filled for the account on page load).
"""

from __future__ import annotations

from collections.abc import Iterator
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import pytest

from quizbot.items import StatementItem
from tests.ui.conftest import App, Served
from tests.ui.events import config_of, wait_settled
from tests.ui.test_accounts import _log_in_page, _serve, app, browser
from tests.ui.test_practice import database, session_items
from tests.ui.test_practice_inputs import Joins

__all__ = ["app", "browser"]  # the accounts-mode fixtures, used by name


def _handler(tab: Any, base_url: str, elem_id: str) -> int:
    """The id of the one handler a click on ``elem_id`` runs, from the config the page's own
    session reads (accounts mode: as the logged-in account)."""
    config = config_of(tab.request.get(f"{base_url.rstrip('/')}/config").text())
    (component,) = (c["id"] for c in config["components"] if c["props"].get("elem_id") == elem_id)
    (fn,) = (d["id"] for d in config["dependencies"] if [component, "click"] in d["targets"])
    return int(fn)


def _two_answers(tab: Any, base_url: str, clock: Path, database_url: str, student: str) -> None:
    """Start three statements, miss the first, move the clock two days, Next, miss the second:
    the panel counts the first miss with the second answer, and every step is one event."""
    t0 = datetime.fromisoformat(clock.read_text())
    fns = {x: _handler(tab, base_url, f"qb-practice-{x}") for x in ("true", "false", "next")}
    length = tab.locator("#qb-practice-length input[type=number]")
    length.fill("3")
    length.press("Enter")
    tab.locator("#qb-practice-start").click()
    chat = tab.locator("#qb-practice-chat")
    chat.get_by_text("Question 1 of 3").wait_for()
    panel = tab.locator("#qb-practice-due-text")
    panel.get_by_text("Due for review: 0 facts").wait_for()  # shown with the start
    wait_settled(tab)  # the start and everything the name and the start set off
    with database(database_url) as db:
        _session, items = session_items(db, student)
    statements = [i for i in items if isinstance(i, StatementItem)]
    assert len(statements) == 3

    def miss(item: StatementItem) -> int:
        wrong = "false" if item.label else "true"
        tab.locator(f"#qb-practice-{wrong}").click()
        return fns[wrong]

    joins = Joins(tab)  # every server event from here on
    sent = [miss(statements[0])]
    chat.get_by_text("Answer 1 of 3:").wait_for()
    # Two days on: the fact just missed is due. Nothing but an answer may tell the panel.
    clock.write_text((t0 + timedelta(days=2)).isoformat())
    tab.locator("#qb-practice-next").click()
    sent.append(fns["next"])
    chat.get_by_text("Question 2 of 3").wait_for()
    sent.append(miss(statements[1]))
    chat.get_by_text("Answer 2 of 3:").wait_for()
    # The panel's count comes with the answer: the first miss (the second is due tomorrow).
    panel.get_by_text("Due for review: 1 fact.").wait_for()
    assert tab.locator("#qb-practice-due-start").is_enabled()
    wait_settled(tab, set(sent))
    # One event per answer and one for Next: no refresh of the panel, no flag-form reset.
    assert joins.fns == sent, (joins.fns, sent)


def test_one_answer_is_one_server_event_and_the_due_panel_comes_with_it(
    page: Any, served: Served
) -> None:
    assert served.clock_file is not None
    student = "Dora Due"
    page.locator("#qb-practice-student textarea, #qb-practice-student input").first.fill(student)
    _two_answers(page, served.url, served.clock_file, served.database_url, student)


@pytest.fixture
def clocked(database_url: str, tmp_path: Path) -> Iterator[tuple[App, Path]]:
    """The accounts-mode app (tests/ui/test_accounts.py) with its clock in a file, two days
    back: a login lasts two idle hours of that clock, so the test logs in again after moving
    it on."""
    clock = tmp_path / "clock"
    clock.write_text((datetime.now(UTC) - timedelta(days=2)).isoformat(), encoding="utf-8")
    for served_app in _serve(database_url, tmp_path, {"QUIZBOT_CLOCK_FILE": str(clock)}):
        yield served_app, clock


def test_in_accounts_mode_too_an_answer_is_one_event_with_the_accounts_due_count(
    browser: Any, clocked: tuple[App, Path]
) -> None:
    """The account misses two facts; two days on it logs in again (the panel, filled on page
    load, counts both), reviews them, and its first right answer alone brings the panel to 1."""
    app, clock = clocked
    page = _log_in_page(browser, app, "stu")
    page.locator("#qb-practice-start").click()
    chat = page.locator("#qb-practice-chat")
    chat.get_by_text("Question 1 of").first.wait_for()
    with database(app.database_url) as db:
        _session, items = session_items(db, "stu")
    for position, item in enumerate(items[:2], start=1):
        assert isinstance(item, StatementItem)
        page.locator("#qb-practice-false" if item.label else "#qb-practice-true").click()
        chat.get_by_text(f"Answer {position} of").wait_for()
        page.locator("#qb-practice-next").click()
        chat.get_by_text(f"Question {position + 1} of").first.wait_for()
    wait_settled(page)
    page.context.close()
    clock.write_text((datetime.fromisoformat(clock.read_text()) + timedelta(days=2)).isoformat())

    page = _log_in_page(browser, app, "stu")
    panel = page.locator("#qb-practice-due-text")
    panel.get_by_text("Due for review: 2 facts.").wait_for()
    page.locator("#qb-practice-due-start").click()
    chat = page.locator("#qb-practice-chat")
    chat.get_by_text("Question 1 of 2").wait_for()
    wait_settled(page)
    with database(app.database_url) as db:
        _session, due = session_items(db, "stu")
    first = due[0]
    assert isinstance(first, StatementItem)
    right = "true" if first.label else "false"
    fn = _handler(page, app.url, f"qb-practice-{right}")
    joins = Joins(page)
    page.locator(f"#qb-practice-{right}").click()
    chat.get_by_text("Answer 1 of 2:").wait_for()
    panel.get_by_text("Due for review: 1 fact.").wait_for()  # counted by the answer
    wait_settled(page, {fn})
    assert joins.fns == [fn]


def _list_fills(tab: Any, base_url: str) -> set[int]:
    """The handlers that fill the accounts-mode assignment list after page load (those that
    write its table and are not set off by the load itself)."""
    config = config_of(tab.request.get(f"{base_url.rstrip('/')}/config").text())
    (table,) = (
        c["id"]
        for c in config["components"]
        if c["props"].get("elem_id") == "qb-practice-assignments-table"
    )
    return {
        int(d["id"])
        for d in config["dependencies"]
        if table in d["outputs"] and not any(t[1] == "load" for t in d["targets"])
    }


def test_in_accounts_mode_a_start_after_a_finished_session_reads_the_assignments_once(
    browser: Any, app: App
) -> None:
    """A start after a finished session changes the session and clears the summary, both of
    which refresh the assignment list: one read of the list, not one per change."""
    page = _log_in_page(browser, app, "stu")
    length = page.locator("#qb-practice-length input[type=number]")
    length.fill("1")
    length.press("Enter")
    chat = page.locator("#qb-practice-chat")
    page.locator("#qb-practice-start").click()
    chat.get_by_text("Question 1 of 1").wait_for()
    page.locator("#qb-practice-true").click()
    chat.get_by_text("Answer 1 of 1:").wait_for()
    wait_settled(page)  # the finished session's own refresh of the list is done
    fills = _list_fills(page, app.url)
    assert fills, "no handler refreshes the assignment list"
    joins = Joins(page)
    page.locator("#qb-practice-start").click()
    chat.get_by_text("Question 1 of 1").wait_for()
    wait_settled(page)
    assert sum(fn in fills for fn in joins.fns) == 1, joins.fns
