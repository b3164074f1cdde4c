"""Who manages which assignments in the Assignments tab, checked in the handlers of the built app
(the functions Gradio calls, role guard included), on SQLite and PostgreSQL.

Accounts mode: an instructor lists, creates, reads and exports the assignments of their own
cohort only (another cohort's is "not found", like one that does not exist); an admin sees every
one; a student is refused. Local mode keeps the Admin tab's login. The browser walk-through is
``test_accounts_assignments.py``.
"""

from __future__ import annotations

import csv
import io
import json
import os
import shutil
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import gradio as gr
import pytest

from quizbot import accounts
from quizbot.config import load_settings
from quizbot.domain import RespondentKind
from quizbot.errors import NotFoundError
from quizbot.practice.assignments import start_assignment_session
from quizbot.practice.service import answer, next_question
from quizbot.ui import assignments as tab
from quizbot.ui.app import build_app
from quizbot.ui.context import UiContext
from quizbot.ui.monitor import NOT_ADMIN
from storage import Database
from storage.assignments import assignment_sessions, find_assignment, list_assignments
from storage.review import assignment_retired
from storage.sessions import find_respondent

PASSWORD = "a long enough password"
FORM = {
    "kb": "clinical-core", "points": 2, "fmt": "statements", "mode": "practice",
    "opens": "", "closes": "", "all_variants": False, "two_pass": False,
}  # fmt: skip


def _ctx(db: Database, tmp_path: Path) -> UiContext:
    return UiContext(load_settings(home=str(tmp_path / "home"), database_url=db.url), db)


def _by(name: str) -> Any:
    return SimpleNamespace(username=name)


def _take(db: Database, assignment: str, student: str) -> None:
    view = start_assignment_session(db, assignment=assignment, student=student)
    while (question := next_question(db, view.id)) is not None:
        answer(db, view.id, question.id, "true", shown_at=question.shown_at)


@pytest.fixture
def school(db: Database, tmp_path: Path) -> UiContext:
    """Two instructors of two cohorts, one without a cohort, an admin, a student; one
    assignment per cohort and one for nobody in particular, each answered by a student."""
    for name, role, cohort in [
        ("kim", "instructor", "year-1"),
        ("lee", "instructor", "year-2"),
        ("ned", "instructor", None),
        ("boss", "admin", None),
        ("stu", "student", "year-1"),
    ]:
        accounts.create_user(db, name, role, PASSWORD, cohort=cohort)
    ctx = _ctx(db, tmp_path)
    for name, cohort in [("one", "year-1"), ("two", "year-2"), ("open", "")]:
        tab.create(ctx, name=name, cohort=cohort, **FORM)  # type: ignore[arg-type]
    _take(db, "one", "Ann")
    _take(db, "two", "Bob")
    _take(db, "open", "Cy")
    return ctx


def _handler(app: gr.Blocks, elem_id: str, event: str = "click") -> Callable[..., Any]:
    """The function Gradio runs for ``event`` of the component ``elem_id`` (role guard on)."""
    (target,) = [b for b in app.blocks.values() if getattr(b, "elem_id", None) == elem_id]
    for block_fn in app.fns.values():
        if (target._id, event) in [(t[0], t[1]) for t in block_fn.targets] and block_fn.fn:
            return block_fn.fn
    raise AssertionError(f"no {event} handler on {elem_id}")


def test_each_role_sees_only_the_assignments_it_manages(school: UiContext) -> None:
    every = list_assignments(school.db)
    expected = {
        "kim": [a.name for a in every if a.cohort == "year-1"],
        "lee": [a.name for a in every if a.cohort == "year-2"],
        "ned": [],
        "boss": [a.name for a in every],
    }
    for name, names in expected.items():
        who = tab.manager(school, False, _by(name))
        assert who is not None
        assert [a.name for a in tab.visible_assignments(school, who)] == names, name
    assert tab.manager(school, True, _by("stu")) is None  # the browser's "admin" is ignored
    kim = tab.manager(school, False, _by("kim"))
    assert kim is not None
    with pytest.raises(NotFoundError) as foreign:
        tab.managed_assignment(school, kim, "two")
    with pytest.raises(NotFoundError) as missing:
        tab.managed_assignment(school, kim, "nothing")
    # another cohort's assignment and none at all read the same, name aside
    assert str(foreign.value).replace("two", "X") == str(missing.value).replace("nothing", "X")
    with pytest.raises(NotFoundError):
        tab.managed_assignment(school, kim, "open")  # open to all: its answers are everyone's


def test_the_handlers_keep_an_instructor_to_their_cohort(
    school: UiContext, database_url: str
) -> None:
    app = build_app(school.settings, school.db, school)
    show = _handler(app, "qb-assign-show")
    refresh = _handler(app, "qb-assign-refresh")
    make = _handler(app, "qb-assign-create")
    export = _handler(app, "qb-assign-export-csv")
    kim = _by("kim")
    # the list: only year-1's
    note, frame, dropdown = refresh(False, None, kim, kim)
    assert list(frame["assignment"]) == ["one"] and "year-1" in note
    assert [value for _, value in dropdown.choices] == ["one"]
    # results of one's own: its student; of another cohort's: refused, nothing of it shown
    page, items, _ = show(False, "one", kim, kim)
    assert "| ann |" in page and "student **ann**" in items
    page, items, _ = show(False, "two", kim, kim)
    assert "no assignment 'two' among yours" in page and "bob" not in page + str(items)
    # raw calls claiming admin rights change nothing
    page, _, _ = show(True, "open", kim, kim)
    assert "no assignment 'open'" in page and "cy" not in page
    # creating: always for the instructor's cohort, whatever the form says; audit-logged
    form = [FORM[k] for k in ("kb", "points", "fmt", "mode")]
    done = make(False, "wk-kim", *form, "year-2", "", "", False, False, True, 0, kim, kim)
    assert "Created **wk-kim** for cohort year-1" in done
    (made,) = [a for a in list_assignments(school.db) if a.name == "wk-kim"]
    assert made.cohort == "year-1"
    log = accounts.audit_log(school.db, actor="kim")
    assert any(e.action == "assignment.create" and e.target == "wk-kim" and e.ok for e in log)
    # exports: own cohort's as a file, another's refused
    note, file = export(False, "one", kim, kim)
    rows = list(csv.DictReader(io.StringIO(Path(file["value"]).read_text(encoding="utf-8"))))
    assert {r["respondent"] for r in rows if r["record"] == "respondent"} == {"ann"}
    note, file = export(False, "two", kim, kim)
    assert "no assignment 'two'" in note and file == gr.skip()
    # retiring an item: only in one's own cohort's assignments, audit-logged
    retire = _handler(app, "qb-assign-retire")
    (two,) = [a for a in list_assignments(school.db) if a.name == "two"]
    note, page, _ = retire(False, "two", two.item_ids[0], "bad", kim, kim)
    assert "no assignment 'two' among yours" in note and page == gr.skip()
    assert assignment_retired(school.db, two.id) == []
    (one,) = [a for a in list_assignments(school.db) if a.name == "one"]
    note, page, _ = retire(False, "one", one.item_ids[0], "bad key", kim, kim)
    assert "Retired" in note and f"retired from scoring: item {one.item_ids[0]}" in page
    assert [r.item_id for r in assignment_retired(school.db, one.id)] == [one.item_ids[0]]
    log = accounts.audit_log(school.db, actor="kim")
    assert any(e.action == "assignment.retire_item" and e.target == "one" for e in log)
    # a student is refused by the role guard before any of it runs
    stu = _by("stu")
    for fn, args in [(show, (True, "one")), (refresh, (True, None))]:
        with pytest.raises(gr.Error, match="may not do this"):
            fn(*args, stu, stu)
    assert any(e.action == "ui.assignments" and not e.ok for e in accounts.audit_log(school.db))
    # the admin: every assignment, exports of any
    boss = _by("boss")
    _, frame, _ = refresh(False, None, boss, boss)
    assert sorted(frame["assignment"]) == sorted(a.name for a in list_assignments(school.db))
    jsonl = _handler(app, "qb-assign-export-jsonl")
    _, file = jsonl(False, "two", boss, boss)
    lines = [json.loads(x) for x in Path(file["value"]).read_text(encoding="utf-8").splitlines()]
    assert {r["respondent"] for r in lines if r["record"] == "respondent"} == {"bob"}


def test_an_instructor_without_a_cohort_can_make_nothing(school: UiContext) -> None:
    app = build_app(school.settings, school.db, school)
    make = _handler(app, "qb-assign-create")
    form = [FORM[k] for k in ("kb", "points", "fmt", "mode")]
    ned = _by("ned")
    done = make(False, "wk-ned", *form, "year-1", "", "", False, False, True, 0, ned, ned)
    assert "no cohort" in done
    assert "wk-ned" not in [a.name for a in list_assignments(school.db)]


def test_local_mode_keeps_the_admin_login(db: Database, tmp_path: Path) -> None:
    ctx = _ctx(db, tmp_path)
    tab.create(ctx, name="one", cohort="year-1", **FORM)  # type: ignore[arg-type]
    app = build_app(ctx.settings, db, ctx)
    show = _handler(app, "qb-assign-show")
    make = _handler(app, "qb-assign-create")
    anyone = SimpleNamespace(username=None)
    assert show(False, "one", anyone, anyone)[0] == NOT_ADMIN
    page, _, _ = show(True, "one", anyone, anyone)
    assert page.startswith("### one")
    form = [FORM[k] for k in ("kb", "points", "fmt", "mode")]
    assert make(False, "x", *form, "", "", "", False, False, True, 0, anyone, anyone) == (NOT_ADMIN)
    done = make(True, "two", *form, "year-2", "", "", False, False, True, 0, anyone, anyone)
    assert "for cohort year-2" in done
    assert [a.cohort for a in list_assignments(db)] == ["year-1", "year-2"]


def test_a_student_account_takes_only_its_cohorts_assignments(school: UiContext) -> None:
    """Otherwise a year-1 student could answer year-2's assignment and so appear in its
    instructor's results."""
    app = build_app(school.settings, school.db, school)
    start = _handler(app, "qb-practice-start")
    stu = _by("stu")  # year-1

    def take(name: str) -> str:
        # the form's name and cohort are the browser's: the account's replace them
        out = start("Bob", "clinical-core", "all", "statement", 3, "year-2", None, name, [], stu)
        return str(out)

    def sessions_of_stu(name: str) -> int:
        found = find_assignment(school.db, name)
        respondent = find_respondent(school.db, RespondentKind.HUMAN, "stu")
        assert found is not None and found.id is not None
        if respondent is None:
            return 0
        return len(assignment_sessions(school.db, found.id, respondent_id=respondent.id))

    assert "There is no assignment called" in take("nothing")
    assert "There is no assignment called" in take("two")  # reads as unknown
    assert sessions_of_stu("two") == 0
    assert "Question 1 of" in take("one") and sessions_of_stu("one") == 1
    assert "Question 1 of" in take("open") and sessions_of_stu("open") == 1  # for everyone


def test_export_files_of_earlier_exports_go_after_an_hour(db: Database, tmp_path: Path) -> None:
    ctx = _ctx(db, tmp_path)
    tab.create(ctx, name="one", cohort="year-1", **FORM)  # type: ignore[arg-type]
    old = Path(tempfile.mkdtemp(prefix=tab.EXPORT_PREFIX))
    recent = Path(tempfile.mkdtemp(prefix=tab.EXPORT_PREFIX))
    then = time.time() - tab.EXPORT_MAX_AGE_S - 60
    os.utime(old, (then, then))
    admin = tab.Manager(None, None, True)
    made = tab.export_file(ctx, admin, "one", "jsonl")
    try:
        assert not old.exists() and recent.exists() and made.exists()
        assert made.parent.stat().st_mode & 0o077 == 0  # nobody else may read it
    finally:
        shutil.rmtree(recent, ignore_errors=True)
        shutil.rmtree(made.parent, ignore_errors=True)
