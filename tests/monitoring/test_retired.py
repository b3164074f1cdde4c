"""Retired items and monitor nights: not asked, left out of the drift tests, and said so.

The past is not rewritten: answers stored before the retirement and the past nights' summaries
stay as they were; only the comparisons made from tonight on leave retired items out.
"""

from __future__ import annotations

from datetime import date

from sqlmodel import col, select

from quizbot.domain import Outcome
from quizbot.monitoring.drift import Night, without_items
from quizbot.monitoring.nights import history, night_items, run_monitor
from schedules.config import MonitorSpec
from storage import Database
from storage.models import DriftResult, MonitorNight
from storage.repo import get_run, list_responses
from storage.review import decide_item
from tests.monitoring.test_drift import C, X, rec
from tests.monitoring.test_nights import _night, stepping_model

SPEC = MonitorSpec(
    name="retire", models=("scripted/step",), cron="0 2 * * *", points=12, anchor_points=4
)


def test_without_items_drops_their_answers_from_every_night_and_counts_them() -> None:
    one = Night(date(2026, 1, 1), 1, "m", anchor=[rec("a", C), rec("b", X)], rotating=[rec("c", C)])
    two = Night(date(2026, 1, 2), 2, "m", anchor=[rec("a", C), rec("b", C)], rotating=[rec("d", X)])
    kept, n = without_items([one, two], {"b", "c", "never-asked"})
    assert n == 2
    assert [[r.item_id for r in (*k.anchor, *k.rotating)] for k in kept] == [["a"], ["a", "d"]]
    assert len(one.anchor) == 2 and len(one.rotating) == 1  # the input is untouched
    assert without_items([one], set()) == ([one], 0)


def _retire(db: Database, item_ids: list[str]) -> None:
    for item_id in item_ids:
        decide_item(db, item_id=item_id, decision="retire", decided_by="t", retire_reason="x")


def test_a_retired_item_is_not_asked_and_its_past_answers_leave_the_comparisons(
    db: Database,
) -> None:
    factory = stepping_model(db, SPEC, lambda _day: 0.8)
    runs: list[int] = []
    for n in (1, 2, 3):
        (result,) = run_monitor(db, SPEC, when=_night(n), provider_factory=factory)
        assert result.status == "completed" and "retired" not in result.message
        assert result.run_id is not None
        runs.append(result.run_id)
    first = list_responses(db, run_id=runs[0])
    anchors = set(get_run(db, runs[0]).config["anchor_item_ids"])
    retired_anchors = sorted(anchors)[:2]
    wrong_rotating = [
        r.item_id for r in first if r.item_id not in anchors and r.outcome == Outcome.INCORRECT
    ][:4]
    assert len(wrong_rotating) == 4
    retired = set(retired_anchors) | set(wrong_rotating)
    _retire(db, sorted(retired))

    items, anchor_ids = night_items(db, SPEC, _night(4))
    assert not {i.id for i in items} & retired and not anchor_ids & retired
    assert len(anchor_ids) == len(anchors) - 2

    (tonight,) = run_monitor(db, SPEC, when=_night(4), provider_factory=factory)
    assert tonight.status == "completed"
    assert tonight.summary["notes"] == ["6 retired items left out"]
    assert "6 retired items left out" in tonight.message
    assert tonight.run_id is not None
    assert not {r.item_id for r in list_responses(db, run_id=tonight.run_id)} & retired

    # The window's baseline is computed without the retired items' past answers.
    k = n = 0
    for run_id in runs:
        for r in list_responses(db, run_id=run_id):
            if r.item_id not in retired and r.outcome != Outcome.ERROR:
                n += 1
                k += r.outcome == Outcome.CORRECT
    overall = db.read(
        lambda s: (
            s.execute(
                select(DriftResult)
                .join(MonitorNight, col(MonitorNight.id) == col(DriftResult.monitor_night_id))
                .where(
                    col(MonitorNight.scheduled_date) == _night(4),
                    col(DriftResult.scope) == "overall",
                    col(DriftResult.metric) == "accuracy",
                )
            )
            .scalars()
            .one()
            .baseline_value
        )
    )
    assert overall == k / n

    # The past is untouched: stored answers and the earlier nights' summaries.
    assert len(list_responses(db, run_id=runs[0])) == len(first)
    (series,) = history(db, "retire")
    assert series["nights"][0]["anchor"]["accuracy"]["n"] == len(anchors)
