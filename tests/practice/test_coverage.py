"""Coverage in "My progress" (issue 29): how much of a knowledge base a student has seen, per
organ system and per relation as separate views, how it went (weakest first) and how much is
due for spaced review. Real sessions answered through the service, on SQLite and PostgreSQL;
the right answers come from the KB file (tests.practice.test_service)."""

from __future__ import annotations

from datetime import timedelta

import pytest

from quizbot.errors import InputError, NotFoundError
from quizbot.practice.review_queue import now
from quizbot.practice.service import (
    answer,
    coverage,
    next_question,
    start_session,
    topics,
)
from storage import Database
from tests.practice.test_service import reply, session_rows

SYMPTOMS, DRUGS = "relation:has_symptom", "relation:treated_with_drug"


def _answer_all(db: Database, topic: str, seed: str, right: bool) -> set[str]:
    """A session of 4 on ``topic`` answered all right or all wrong; its facts' (head, relation)."""
    view = start_session(db, student="Cleo", topic=topic, length=4, seed=seed)
    rows = session_rows(db, view.id)
    for row in rows:
        question = next_question(db, view.id)
        assert question is not None
        answer(db, view.id, question.id, reply(row, right=right))
    return {f"{r.head}|{r.relation}" for r in rows}


def test_coverage_counts_seen_facts_per_system_and_per_relation_weakest_first(
    db: Database,
) -> None:
    _answer_all(db, SYMPTOMS, "a", right=True)
    _answer_all(db, DRUGS, "b", right=False)
    report = coverage(db, "  cleo ", kb="clinical-core")
    assert report.student == "Cleo" and report.kb == "clinical-core"
    assert report.seen == 8
    # The denominators are the topics a student can choose, with their fact counts.
    known = {t.key: t.n_facts for t in topics(db, "clinical-core")}
    assert {t.key: t.n_facts for t in report.relations + report.systems} == known
    assert report.n_facts == sum(t.n_facts for t in report.relations)  # one relation per fact
    # Separate views, each topic once.
    assert {t.kind for t in report.relations} == {"relation"}
    assert {t.kind for t in report.systems} == {"system"}
    keys = [t.key for t in report.relations + report.systems]
    assert len(keys) == len(set(keys))
    assert sum(t.seen for t in report.relations) == 8
    assert sum(t.seen for t in report.systems) <= 8 and sum(t.seen for t in report.systems) > 0
    by_key = {t.key: t for t in report.relations}
    drugs, symptoms = by_key[DRUGS], by_key[SYMPTOMS]
    assert (symptoms.seen, symptoms.accuracy.k, symptoms.accuracy.n) == (4, 4, 4)
    assert (drugs.seen, drugs.accuracy.k, drugs.accuracy.n) == (4, 0, 4)
    assert symptoms.share_seen == pytest.approx(4 / symptoms.n_facts)
    # Weakest first: the missed topic, then the mastered one, then the topics never answered.
    assert [t.key for t in report.relations[:2]] == [DRUGS, SYMPTOMS]
    assert all(t.seen == 0 and t.accuracy.n == 0 for t in report.relations[2:])
    # Spaced review: nothing due today; a missed fact comes due the next day, a known one days
    # later, both within the week...
    assert (report.due_now, report.due_week) == (0, 8)
    assert (drugs.due_week, symptoms.due_week) == (4, 4)
    tomorrow = coverage(db, "cleo", kb="clinical-core", at=now() + timedelta(days=1, minutes=1))
    by_key = {t.key: t for t in tomorrow.relations}
    assert (by_key[DRUGS].due_now, by_key[SYMPTOMS].due_now) == (4, 0)
    assert sum(t.due_now for t in tomorrow.systems) <= 4 and tomorrow.due_now == 4
    # ...and a week on, everything answered is due.
    later = coverage(db, "cleo", kb="clinical-core", at=now() + timedelta(days=8))
    assert (later.due_now, later.due_week) == (8, 8)


def test_coverage_of_an_unknown_student_or_kb_is_a_clear_error(db: Database) -> None:
    with pytest.raises(NotFoundError, match="no practice sessions"):
        coverage(db, "nobody")
    _answer_all(db, SYMPTOMS, "c", right=True)
    with pytest.raises(InputError):
        coverage(db, "cleo", kb="no-such-kb")
