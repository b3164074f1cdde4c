"""Repository functions for open recall entries graded outside the scorer (migration 0018).

Two tables, both keyed by an entry folded as the scorer folds names (``entry_key``):

* ``recall_self_grades``: a student's own mark (``right`` or ``wrong``) on an unverified entry of
  one of their answers (:func:`put_self_grade`, :func:`self_grades`). Nothing scored reads it.
* ``recall_judgements``: a judge model's verdict on an entry as an answer to one question, once
  per question, entry, judge and prompt version (:func:`put_judgements`, :func:`judgements`).

Plain values in and out; every write is one transaction.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass

from sqlalchemy import select
from sqlmodel import Session, col

from quizbot.errors import InputError, NotFoundError
from storage.engine import Database
from storage.models import RecallJudgement, RecallSelfGrade, Response
from storage.types import utcnow

__all__ = [
    "JUDGE_VERDICTS",
    "SELF_VERDICTS",
    "NewJudgement",
    "judgements",
    "put_judgements",
    "put_self_grade",
    "self_grades",
]

SELF_VERDICTS = ("right", "wrong")
JUDGE_VERDICTS = ("correct", "incorrect", "unclear")
_MAX = 200


def _short(value: str, field: str) -> str:
    text = " ".join(value.split())
    if not text:
        raise InputError("is empty", field=field)
    return text[:_MAX]


def put_self_grade(
    db: Database, *, response_id: int, entry: str, entry_key: str, verdict: str
) -> None:
    """Store a student's mark on one entry of answer ``response_id`` (replacing an earlier one).

    :class:`InputError` for a verdict other than right or wrong or an empty entry;
    :class:`NotFoundError` for an unknown answer.
    """
    if verdict not in SELF_VERDICTS:
        raise InputError(f"unknown mark {verdict!r} (right or wrong)", field="verdict")
    shown, key = _short(entry, "entry"), _short(entry_key, "entry")

    def _do(session: Session) -> None:
        if session.get(Response, response_id) is None:
            raise NotFoundError(f"no answer with id {response_id}")
        row = session.execute(
            select(RecallSelfGrade).where(
                col(RecallSelfGrade.response_id) == response_id,
                col(RecallSelfGrade.entry_key) == key,
            )
        ).scalar_one_or_none()
        if row is None:
            session.add(
                RecallSelfGrade(
                    response_id=response_id, entry_key=key, entry=shown, verdict=verdict
                )
            )
        else:
            row.entry, row.verdict, row.graded_at = shown, verdict, utcnow()
        session.flush()

    db.write(_do)


def self_grades(db: Database, response_ids: Iterable[int]) -> dict[int, dict[str, str]]:
    """The students' marks on the answers ``response_ids``: answer -> entry key -> verdict."""
    wanted = sorted(set(response_ids))
    if not wanted:
        return {}
    stmt = select(RecallSelfGrade).where(col(RecallSelfGrade.response_id).in_(wanted))

    def _read(session: Session) -> dict[int, dict[str, str]]:
        out: dict[int, dict[str, str]] = {}
        for row in session.execute(stmt).scalars():
            out.setdefault(row.response_id, {})[row.entry_key] = row.verdict
        return out

    return db.read(_read)


@dataclass(frozen=True)
class NewJudgement:
    """A judge's verdict on one entry as an answer to one question, to store."""

    item_id: str
    entry_key: str
    entry: str
    judge_model: str
    prompt_version: str
    verdict: str
    reply: str = ""


def put_judgements(db: Database, rows: Sequence[NewJudgement]) -> int:
    """Store verdicts not stored yet (an entry judged already keeps its first verdict); returns
    how many were new. :class:`InputError` for an unknown verdict (nothing is stored)."""
    for row in rows:
        if row.verdict not in JUDGE_VERDICTS:
            raise InputError(f"unknown verdict {row.verdict!r}", field="verdict")
    if not rows:
        return 0

    def _do(session: Session) -> int:
        new = 0
        seen: set[tuple[str, str, str, str]] = set()
        for row in rows:
            key = (row.item_id, _short(row.entry_key, "entry"), row.judge_model, row.prompt_version)
            if key in seen:
                continue
            seen.add(key)
            found = session.execute(
                select(col(RecallJudgement.id)).where(
                    col(RecallJudgement.item_id) == key[0],
                    col(RecallJudgement.entry_key) == key[1],
                    col(RecallJudgement.judge_model) == key[2],
                    col(RecallJudgement.prompt_version) == key[3],
                )
            ).first()
            if found is not None:
                continue
            session.add(
                RecallJudgement(
                    item_id=key[0],
                    entry_key=key[1],
                    entry=_short(row.entry, "entry"),
                    judge_model=key[2],
                    prompt_version=key[3],
                    verdict=row.verdict,
                    reply=row.reply,
                )
            )
            new += 1
        session.flush()
        return new

    return db.write(_do)


def judgements(
    db: Database, item_ids: Iterable[str], *, judge_model: str, prompt_version: str
) -> dict[str, dict[str, str]]:
    """The stored verdicts of ``judge_model`` (with that prompt) on the questions ``item_ids``:
    item id -> entry key -> verdict."""
    wanted = sorted(set(item_ids))
    if not wanted:
        return {}
    stmt = select(RecallJudgement).where(
        col(RecallJudgement.item_id).in_(wanted),
        col(RecallJudgement.judge_model) == judge_model,
        col(RecallJudgement.prompt_version) == prompt_version,
    )

    def _read(session: Session) -> dict[str, dict[str, str]]:
        out: dict[str, dict[str, str]] = {}
        for row in session.execute(stmt).scalars():
            out.setdefault(row.item_id, {})[row.entry_key] = row.verdict
        return out

    return db.read(_read)
