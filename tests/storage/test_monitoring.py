"""Monitor rows, the per-night claim (one winner, across threads), drift results and alerts."""

from __future__ import annotations

import threading
from datetime import date, timedelta

from quizbot.domain import NightStatus
from storage import Database
from storage.monitoring import (
    NewFinding,
    claim_night,
    finish_night,
    get_monitor,
    list_alerts,
    list_nights,
    mark_alert_delivered,
    save_findings,
    upsert_monitor,
)
from storage.types import utcnow

NIGHT = date(2026, 3, 1)


def _monitor(db: Database) -> int:
    row = upsert_monitor(db, "m", {"points": 2})
    return row.id


def test_upsert_updates_the_definition_in_place(db: Database) -> None:
    first = upsert_monitor(db, "m", {"points": 2})
    second = upsert_monitor(db, "m", {"points": 3}, enabled=False)
    assert first.id == second.id
    stored = get_monitor(db, "m")
    assert stored.definition == {"points": 3} and stored.enabled is False


def test_one_claim_wins_among_many_threads(db: Database) -> None:
    monitor_id = _monitor(db)
    winners: list[str] = []
    barrier = threading.Barrier(8)

    def claim(who: str) -> None:
        barrier.wait()
        if claim_night(db, monitor_id, "baseline/random", NIGHT, who) is not None:
            winners.append(who)

    threads = [threading.Thread(target=claim, args=(f"t{i}",)) for i in range(8)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert len(winners) == 1
    (night,) = list_nights(db, monitor_id)
    assert night.claimed_by == winners[0] and night.status == NightStatus.CLAIMED


def test_failed_and_stale_claims_are_taken_over_but_completed_ones_never(db: Database) -> None:
    monitor_id = _monitor(db)
    night = claim_night(db, monitor_id, "a", NIGHT, "first")
    assert night is not None and night.id is not None
    assert claim_night(db, monitor_id, "a", NIGHT, "second") is None  # fresh claim held
    later = utcnow() + timedelta(hours=7)
    stale = claim_night(db, monitor_id, "a", NIGHT, "third", now=later)
    assert stale is not None and stale.id == night.id and stale.claimed_by == "third"

    finish_night(db, night.id, status=NightStatus.FAILED, error_text="boom")
    retried = claim_night(db, monitor_id, "a", NIGHT, "fourth")
    assert retried is not None and retried.error_text is None

    finish_night(db, night.id, status=NightStatus.COMPLETED, summary={"overall": {}})
    much_later = utcnow() + timedelta(days=30)
    assert claim_night(db, monitor_id, "a", NIGHT, "fifth", now=much_later) is None


def test_nights_are_listed_oldest_first_and_limited_to_the_latest(db: Database) -> None:
    monitor_id = _monitor(db)
    for day in range(1, 6):
        claim_night(db, monitor_id, "a", date(2026, 3, day), "x")
    claim_night(db, monitor_id, "b", date(2026, 3, 1), "x")
    dates = [n.scheduled_date.day for n in list_nights(db, monitor_id, "a", limit=3)]
    assert dates == [3, 4, 5]
    before = list_nights(db, monitor_id, "a", before=date(2026, 3, 3))
    assert [n.scheduled_date.day for n in before] == [1, 2]
    assert len(list_nights(db, monitor_id)) == 6


def test_findings_and_alerts_are_stored_together_and_replaced_on_rerun(db: Database) -> None:
    monitor_id = _monitor(db)
    night = claim_night(db, monitor_id, "a", NIGHT, "x")
    assert night is not None and night.id is not None

    def findings() -> list[NewFinding]:
        quiet = NewFinding(scope="rotating", metric="accuracy", p_value=0.4)
        loud = NewFinding(
            scope="anchor", metric="accuracy", effect=-0.12, p_value=0.001, p_adjusted=0.004,
            compared_run_ids=(1, 2), severity="critical", alert_message="anchor accuracy fell",
        )  # fmt: skip
        return [quiet, loud]

    save_findings(db, night.id, findings())
    alerts = save_findings(db, night.id, findings())  # a re-run replaces, never duplicates
    assert len(alerts) == 1 and alerts[0].id is not None
    stored = list_alerts(db, monitor_id)
    assert len(stored) == 1
    alert, where = stored[0]
    assert (alert.severity, alert.metric, alert.p_value) == ("critical", "anchor:accuracy", 0.004)
    assert alert.run_ids == [1, 2] and where.id == night.id
    mark_alert_delivered(db, alert.id, "HTTP 500")
    assert list_alerts(db, monitor_id)[0][0].delivery_error == "HTTP 500"
    mark_alert_delivered(db, alert.id)
    delivered = list_alerts(db, monitor_id)[0][0]
    assert delivered.delivered_at is not None and delivered.delivery_error is None


def test_a_run_by_hand_keeps_the_recorded_schedules_file(db: Database) -> None:
    upsert_monitor(db, "m", {"points": 2}, source_file="/etc/quizbot/monitors.toml")
    upsert_monitor(db, "m", {"points": 3})  # e.g. run_night, which does not know the file
    stored = get_monitor(db, "m")
    assert (stored.source_file, stored.definition) == ("/etc/quizbot/monitors.toml", {"points": 3})
