"""A practice session planned when the previous one ended (issue 32): a start that finds the
student's stored plan still valid records exactly the session it would have planned, and a
stale, missing or corrupt plan is never used (the start plans as before). Real databases:
a SQLite file and PostgreSQL.
"""

from __future__ import annotations

import dataclasses
from datetime import timedelta
from pathlib import Path
from typing import Any

import pytest
from sqlalchemy import update

from quizbot.domain import OverrideKind, RespondentKind
from quizbot.kb.registry import get_kb
from quizbot.practice import next_plan, planning, stored_plans
from quizbot.practice.service import (
    answer,
    end_session,
    next_question,
    session_view,
    start_session,
    start_session_and_ask,
)
from quizbot.practice.views import Format
from storage import Database
from storage.models import PracticePlanRow, RetiredItemRow
from storage.practice_plans import delete_plan
from storage.review import NewOverride, add_overrides
from storage.sessions import find_respondent, load_session
from storage.types import utcnow

KB = "clinical-core"
ANSWERS = ("True", "False", "idk", "True", "True")


def _answer_all(db: Database, session_id: int, shift: int = 0) -> None:
    """Answer every question of the session (a mix of right, wrong and "I don't know")."""
    k = shift
    while (question := next_question(db, session_id)) is not None:
        choice = "A" if k % 3 else "idk"
        text = choice if question.kind == "choice" else ANSWERS[k % len(ANSWERS)]
        answer(db, session_id, question.id, text)
        k += 1


def _history(db: Database, student: str, n_sessions: int, **start: Any) -> int:
    """``n_sessions`` finished sessions of ``student``; the id of the last one."""
    last = 0
    for i in range(n_sessions):
        view = start_session(db, student=student, kb=KB, seed=f"{student}-{i}", **start)
        _answer_all(db, view.id, shift=i)
        last = view.id
    return last


def _plan(db: Database, student: str) -> PracticePlanRow | None:
    who = find_respondent(db, RespondentKind.HUMAN, student)
    assert who is not None and who.id is not None
    return db.read(lambda s: s.get(PracticePlanRow, (who.id, KB)))


class _Planning:
    """Counts the starts that planned (``_plan_session`` called by ``start_session``)."""

    def __init__(self, monkeypatch: pytest.MonkeyPatch) -> None:
        self.calls = 0
        real = planning._plan_session

        def counted(*args: Any, **kwargs: Any) -> Any:
            self.calls += 1
            return real(*args, **kwargs)

        monkeypatch.setattr(planning, "_plan_session", counted)


def _first(db: Database, session_id: int) -> tuple[str, str, list[str]]:
    question = next_question(db, session_id)
    assert question is not None
    return question.id, question.text, [o.text for o in question.options or []]


@pytest.mark.parametrize(
    ("n_sessions", "start"),
    [
        (1, {}),
        (3, {}),
        (2, {"format": "choice", "length": 6}),
        (2, {"format": "mixed", "length": 8}),
        (2, {"topic": "relation:has_symptom", "length": 5}),
        (1, {"topics": ["relation:has_symptom", "relation:affects_site"], "length": 7}),
    ],
)
def test_a_start_from_the_stored_plan_is_the_session_a_start_plans(
    db: Database, monkeypatch: pytest.MonkeyPatch, n_sessions: int, start: dict[str, Any]
) -> None:
    last = _history(db, "ada", n_sessions, **start)
    assert next_plan.plan_next(db, last)
    stored = _plan(db, "ada")
    assert stored is not None
    planning_calls = _Planning(monkeypatch)

    ahead = start_session(db, student="ada", kb=KB, cohort="y1", **start)

    assert planning_calls.calls == 0, "the start planned although a valid plan was stored"
    assert _plan(db, "ada") is None, "a plan is taken once"
    assert ahead.seed == stored.config["seed"]
    # The same start, planned now with the plan's seed (the history is the same: a session
    # without answers changes nothing a plan reads).
    planned = start_session(db, student="ada", kb=KB, cohort="y1", seed=ahead.seed, **start)
    assert planning_calls.calls == 1
    config_ahead = load_session(db, ahead.id).session.config
    config_planned = load_session(db, planned.id).session.config
    assert config_ahead == config_planned
    assert config_ahead["cohort"] == "y1"
    assert _first(db, ahead.id)[1:] == _first(db, planned.id)[1:]
    view_ahead, view_planned = ahead.as_json(), planned.as_json()
    for view in (view_ahead, view_planned):
        for key in ("id", "started_at"):
            view.pop(key)
    assert view_ahead == view_planned


def _stale_by_answer(db: Database) -> None:
    other = start_session(db, student="ada", kb=KB, seed="other", length=3)
    question = next_question(db, other.id)
    assert question is not None
    answer(db, other.id, question.id, "True")


def _stale_by_override(db: Database) -> None:
    kb, _ = get_kb(db, KB)
    fact = kb.triplets[0]
    add_overrides(
        db,
        [
            NewOverride(
                KB, fact.head, fact.relation, "something else", OverrideKind.REVIEWED_FALSE, "t"
            )
        ],
    )


def _stale_by_retirement(db: Database) -> None:
    stored = _plan(db, "ada")
    assert stored is not None
    first = stored.config["items"][0]["id"]
    db.write(lambda s: s.add(RetiredItemRow(item_id=first, reason="wrong key")))


@pytest.mark.parametrize(
    "change", [_stale_by_answer, _stale_by_override, _stale_by_retirement], ids=lambda f: f.__name__
)
def test_a_stale_plan_is_never_used(
    db: Database, monkeypatch: pytest.MonkeyPatch, change: Any
) -> None:
    last = _history(db, "ada", 2)
    assert next_plan.plan_next(db, last)
    stored = _plan(db, "ada")
    assert stored is not None
    change(db)
    planning_calls = _Planning(monkeypatch)

    view = start_session(db, student="ada", kb=KB, seed=stored.config["seed"])

    assert planning_calls.calls == 1, "a stale plan stood in for planning"
    assert _plan(db, "ada") is None  # dropped: no replica renews it for nothing now
    # Planned from what changed, not the stored plan: planned again with the same seed now,
    # the session is the same as this one.
    again = start_session(db, student="ada", kb=KB, seed=stored.config["seed"])
    assert load_session(db, view.id).session.config == load_session(db, again.id).session.config


def test_a_plan_for_other_settings_or_another_seed_is_left_alone(
    db: Database, monkeypatch: pytest.MonkeyPatch
) -> None:
    last = _history(db, "ada", 1)
    assert next_plan.plan_next(db, last)
    stored = _plan(db, "ada")
    assert stored is not None
    planning_calls = _Planning(monkeypatch)

    start_session(db, student="ada", kb=KB, length=9)
    start_session(db, student="ada", kb=KB, format="choice")
    start_session(db, student="ada", kb=KB, topic="relation:has_symptom")
    start_session(db, student="ada", kb=KB, seed="not-the-plan's")
    start_session(db, student="ada", kb=KB, review=True)

    assert planning_calls.calls == 5
    assert _plan(db, "ada") is not None, "an unused plan was taken"
    view = start_session(db, student="ada", kb=KB)
    assert planning_calls.calls == 5 and view.seed == stored.config["seed"]


def test_the_next_day_a_plan_is_still_the_session_a_start_plans(
    db: Database, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Nothing a plan reads depends on the clock: the day after (the student's unfinished
    sessions closed as idle meanwhile) the stored plan is still the planned session."""
    last = _history(db, "ada", 2)
    open_one = start_session(db, student="ada", kb=KB, seed="left open", length=4)
    first = next_question(db, open_one.id)
    assert first is not None
    answer(db, open_one.id, first.id, "True")
    end_session(db, last)  # a no-op: it is finished
    assert next_plan.plan_next(db, last) is True
    stored = _plan(db, "ada")
    assert stored is not None
    planning_calls = _Planning(monkeypatch)
    tomorrow = utcnow() + timedelta(days=1, hours=1)

    ahead = start_session(db, student="ada", kb=KB, now=tomorrow, idle_timeout=timedelta(hours=2))

    assert load_session(db, open_one.id).session.status == "abandoned"
    assert planning_calls.calls == 0
    planned = start_session(db, student="ada", kb=KB, seed=ahead.seed, now=tomorrow)
    assert load_session(db, ahead.id).session.config == load_session(db, planned.id).session.config


@pytest.mark.parametrize(
    "corrupt",
    [
        {"config": {"items": "not a list", "seed": "x"}},
        {"config": {"seed": 5}},
        {"config": []},
        {"params": ["not", "a", "dict"]},
        {"basis": ""},
    ],
    ids=["items", "seed", "config", "params", "basis"],
)
def test_a_corrupt_plan_is_never_used_and_breaks_nothing(
    db: Database, monkeypatch: pytest.MonkeyPatch, corrupt: dict[str, Any]
) -> None:
    last = _history(db, "ada", 1)
    assert next_plan.plan_next(db, last)
    stored = _plan(db, "ada")
    assert stored is not None
    db.write(
        lambda s: s.execute(
            update(PracticePlanRow)
            .where(PracticePlanRow.respondent_id == stored.respondent_id)  # type: ignore[arg-type]
            .values(**corrupt)
        )
    )
    planning_calls = _Planning(monkeypatch)

    view = start_session(db, student="ada", kb=KB)

    assert planning_calls.calls == 1
    assert next_question(db, view.id) is not None


def test_a_missing_plan_means_a_start_plans(db: Database, monkeypatch: pytest.MonkeyPatch) -> None:
    _history(db, "ada", 1)  # no plan made
    planning_calls = _Planning(monkeypatch)
    view = start_session(db, student="ada", kb=KB)
    assert planning_calls.calls == 1 and view.total == 10
    start_session(db, student="grace", kb=KB)  # a new student
    assert planning_calls.calls == 2


@pytest.mark.parametrize("format", ["statement", "choice"])
def test_no_plan_after_a_session_still_running_or_a_review(db: Database, format: Format) -> None:
    last = _history(db, "ada", 1, format=format)
    running = start_session(db, student="ada", kb=KB, format=format)
    assert next_plan.plan_next(db, running.id) is False  # still active
    review = start_session(db, student="ada", kb=KB, review=True, format=format)
    end_session(db, review.id)
    assert next_plan.plan_next(db, review.id) is False
    assert _plan(db, "ada") is None
    assert next_plan.plan_next(db, last) is True


def test_the_background_plan_after_end_is_used(
    db: Database, monkeypatch: pytest.MonkeyPatch
) -> None:
    view = start_session(db, student="ada", kb=KB, seed="s")
    first = next_question(db, view.id)
    assert first is not None
    answer(db, view.id, first.id, "True")
    end_session(db, view.id)
    next_plan.schedule_next(db, view.id)
    next_plan.wait_planned(timeout=60)
    assert _plan(db, "ada") is not None
    planning_calls = _Planning(monkeypatch)
    start_session(db, student="ada", kb=KB)
    assert planning_calls.calls == 0


@pytest.mark.parametrize("format", ["statement", "choice", "mixed"])
@pytest.mark.parametrize("ahead", [False, True], ids=["planned", "stored"])
def test_the_first_question_built_at_the_start_is_the_one_read_back(
    db: Database, format: Format, ahead: bool
) -> None:
    last = _history(db, "ada", 1, format=format, length=6)
    if ahead:
        assert next_plan.plan_next(db, last)
    view, first = start_session_and_ask(db, student="ada", kb=KB, format=format, length=6)
    if ahead:
        assert _plan(db, "ada") is None, "the stored plan was not used"
    read_back = next_question(db, view.id)
    assert first is not None and read_back is not None
    assert dataclasses.replace(first, shown_at=None) == dataclasses.replace(
        read_back, shown_at=None
    )
    assert view == session_view(db, view.id)


def test_a_plan_made_by_other_planning_code_is_never_used(
    db: Database, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A release whose planner, KB or generation code differs takes no plan the previous one
    stored, whatever ``PLAN_VERSION`` says: the code's digest is part of the plan's basis."""
    last = _history(db, "ada", 1)
    assert next_plan.plan_next(db, last)
    stored = _plan(db, "ada")
    assert stored is not None
    monkeypatch.setattr(stored_plans, "code_digest", lambda: "another release's planner")
    planning_calls = _Planning(monkeypatch)

    start_session(db, student="ada", kb=KB, seed=stored.config["seed"])

    assert planning_calls.calls == 1, "a plan made by other planning code stood in for planning"


@pytest.mark.parametrize(
    "module", ["quizbot/practice/planning.py", "quizbot/transforms.py", "storage/sessions.py"]
)
def test_editing_any_planning_module_changes_the_code_digest(
    monkeypatch: pytest.MonkeyPatch, module: str
) -> None:
    """The digest reads the source of the planner and what it uses (the transforms beside the
    items, the storage of the history): an edit of any module (one line appended) makes it
    another digest."""
    target = Path(stored_plans.__file__).resolve().parents[2] / module
    assert target.is_file()
    stored_plans.code_digest.cache_clear()
    before = stored_plans.code_digest()
    real = Path.read_bytes

    def edited(path: Path) -> bytes:
        data = real(path)
        return data + b"# edited\n" if path.resolve() == target else data

    monkeypatch.setattr(Path, "read_bytes", edited)
    stored_plans.code_digest.cache_clear()
    try:
        assert stored_plans.code_digest() != before
    finally:
        stored_plans.code_digest.cache_clear()


def _make_stale(db: Database, student: str) -> str:
    """Give the student's stored plan the basis an older release would have left: its seed."""
    who = find_respondent(db, RespondentKind.HUMAN, student)
    assert who is not None and who.id is not None
    db.write(
        lambda s: s.execute(
            update(PracticePlanRow)
            .where(PracticePlanRow.respondent_id == who.id)  # type: ignore[arg-type]
            .values(basis="0" * 64)
        )
    )
    stored = _plan(db, student)
    assert stored is not None
    return str(stored.config["seed"])


def test_a_plan_a_release_made_stale_is_made_again_and_the_start_takes_it(
    db: Database, monkeypatch: pytest.MonkeyPatch
) -> None:
    start: dict[str, Any] = {"format": "choice", "length": 6, "topic": "relation:has_symptom"}
    last = _history(db, "ada", 2, **start)
    assert next_plan.plan_next(db, last)
    old_seed = _make_stale(db, "ada")
    planning_calls = _Planning(monkeypatch)
    assert start_session(db, student="bo", kb=KB, seed="x").id  # a student without a plan
    assert planning_calls.calls == 1

    done = next_plan.refresh_stale(db)

    assert (done.planned, done.fresh, done.left) == (1, 0, 0)  # bo has no plan to renew
    renewed = _plan(db, "ada")
    assert renewed is not None and renewed.basis != "0" * 64
    assert renewed.config["seed"] != old_seed  # a fresh seed, as a start would draw
    assert renewed.params["format"] == "choice" and renewed.params["length"] == 6
    view = start_session(db, student="ada", kb=KB, **start)
    assert planning_calls.calls == 1, "the start planned although the renewed plan was valid"
    assert view.seed == renewed.config["seed"]


def test_fresh_plans_are_left_and_unreadable_ones_go_to_their_starts(
    db: Database, monkeypatch: pytest.MonkeyPatch
) -> None:
    assert next_plan.plan_next(db, _history(db, "ada", 1))
    assert next_plan.plan_next(db, _history(db, "bo", 1))
    fresh = _plan(db, "ada")
    assert fresh is not None
    _make_stale(db, "bo")
    who = find_respondent(db, RespondentKind.HUMAN, "bo")
    assert who is not None
    db.write(
        lambda s: s.execute(
            update(PracticePlanRow)
            .where(PracticePlanRow.respondent_id == who.id)  # type: ignore[arg-type]
            .values(params={"format": "recall"})  # no free-practice plan
        )
    )
    seen: list[list[str]] = []

    def no_history(*args: Any) -> Any:
        raise AssertionError("a fresh plan's student history was read")

    monkeypatch.setattr(next_plan, "plan_inputs", no_history)  # a restart reads marks only
    done = next_plan.refresh_stale(db, order=lambda keys: seen.append([k.kb_name for k in keys]))

    assert seen == [[KB, KB]]
    assert (done.planned, done.fresh, done.left) == (0, 1, 1)
    again = _plan(db, "ada")
    assert again is not None and again.config == fresh.config  # untouched


def test_a_start_drops_its_stale_plan_so_the_renewal_skips_it(
    db: Database, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A class arriving while a new replica still renews: a student who started (planning at
    the start) costs the renewal nothing; one whose plan was renewed meanwhile keeps it."""
    assert next_plan.plan_next(db, _history(db, "ada", 1))
    assert next_plan.plan_next(db, _history(db, "bo", 1))
    _make_stale(db, "ada")
    _make_stale(db, "bo")
    planning_calls = _Planning(monkeypatch)
    start_session(db, student="ada", kb=KB)
    assert planning_calls.calls == 1 and _plan(db, "ada") is None

    done = next_plan.refresh_stale(db)

    assert (done.planned, done.fresh, done.left) == (1, 0, 0)  # bo's; ada's was not listed
    assert _plan(db, "ada") is None
    who = find_respondent(db, RespondentKind.HUMAN, "bo")
    stored = _plan(db, "bo")
    assert who is not None and who.id is not None and stored is not None
    assert not delete_plan(db, who.id, KB, basis="0" * 64)  # renewed: a stale start keeps it
    assert _plan(db, "bo") == stored


def test_a_plan_another_replica_renewed_meanwhile_is_left(db: Database) -> None:
    """Two replicas start together: both list the stale plans, one renews a plan first; the
    other reads the plan's basis again before planning and leaves it."""
    assert next_plan.plan_next(db, _history(db, "ada", 1))
    _make_stale(db, "ada")
    other: list[next_plan.Refreshed] = []

    def the_other_replica_first(keys: list[Any]) -> None:
        other.append(next_plan.refresh_stale(db))  # after this one listed the plans

    done = next_plan.refresh_stale(db, order=the_other_replica_first)
    renewed_by_other = _plan(db, "ada")

    assert other[0].planned == 1
    assert (done.planned, done.fresh, done.left) == (0, 1, 0)
    assert renewed_by_other is not None and renewed_by_other.basis != "0" * 64
