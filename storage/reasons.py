"""Repository functions for admins' reason reviews of SDAK answers (table ``reason_reviews``).

One mark per answer (``response``): :func:`mark_reason` stores it or replaces the earlier one,
in one transaction; :func:`run_reason_reviews` reads a run's marks. Plain values in, frozen
:class:`~quizbot.domain.ReasonReview` records out.
"""

from __future__ import annotations

from sqlalchemy import select
from sqlmodel import Session, col

from quizbot import domain
from quizbot.errors import InputError, NotFoundError
from quizbot.names import check_text
from storage.engine import Database
from storage.models import ReasonReview, Response
from storage.records import to_record
from storage.types import utcnow

__all__ = ["mark_reason", "run_reason_reviews"]

_MAX_REVIEWER = 200


def mark_reason(
    db: Database, *, response_id: int, sound: bool, reviewer: str
) -> domain.ReasonReview:
    """Mark the reason of answer ``response_id`` sound or unsound (replacing an earlier mark).

    :class:`NotFoundError` for an unknown answer; :class:`InputError` for an empty or too long
    reviewer name or one with control characters.
    """
    who = " ".join(check_text(reviewer, field="reviewer").split())
    if not who:
        raise InputError("is empty", field="reviewer")
    if len(who) > _MAX_REVIEWER:
        raise InputError(f"is longer than {_MAX_REVIEWER} characters", field="reviewer")

    def _do(session: Session) -> domain.ReasonReview:
        if session.get(Response, response_id) is None:
            raise NotFoundError(f"no answer with id {response_id}")
        row = session.execute(
            select(ReasonReview).where(col(ReasonReview.response_id) == response_id)
        ).scalar_one_or_none()
        if row is None:
            row = ReasonReview(response_id=response_id, sound=sound, reviewer=who)
            session.add(row)
        else:
            row.sound, row.reviewer, row.reviewed_at = sound, who, utcnow()
        session.flush()
        return to_record(domain.ReasonReview, row)

    return db.write(_do)


def run_reason_reviews(db: Database, run_id: int) -> dict[int, domain.ReasonReview]:
    """The marks on the answers of run ``run_id``, by answer id."""
    stmt = (
        select(ReasonReview)
        .join(Response, col(Response.id) == col(ReasonReview.response_id))
        .where(col(Response.run_id) == run_id)
    )
    return db.read(
        lambda s: {
            r.response_id: to_record(domain.ReasonReview, r) for r in s.execute(stmt).scalars()
        }
    )
