"""Which anchor items flipped: the anchor answers of one night that differ from a reference night.

An incident says *that* a model changed; the flipped anchor items say *where*. The anchor set
is asked word for word every night, so an anchor item answered right on the reference night
(the last completed night before the incident opened) and wrong tonight, or the other way
round, is a flip. Each :class:`Flip` carries both answers (as parsed and as the model wrote
them), the item's relation and text, so people can read what changed. Answers that never
reached the model (outcome ``error``) are not compared.

Used by the incident's message ("21 of 120 anchor items flipped"), its page in the Monitor
tab and ``quizbot monitor incident show ID``.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from datetime import date
from typing import Any

from quizbot.domain import NightRecord, NightStatus, Outcome
from quizbot.generate.service import load_any_items
from storage import Database
from storage.incidents import Incident
from storage.monitoring import list_nights
from storage.repo import get_run, list_responses

__all__ = ["SORT_KEYS", "Flip", "FlipReport", "flipped", "incident_flips", "sort_flips"]

SORT_KEYS = ("relation", "direction", "item")


@dataclass(frozen=True)
class Flip:
    """One anchor item answered differently on the reference night and tonight."""

    item_id: str
    relation: str
    text: str
    before: str  # outcome on the reference night: correct, incorrect, abstained, unparsed
    after: str
    before_answer: str | None  # the parsed answer
    after_answer: str | None
    before_raw: str | None  # the model's own text
    after_raw: str | None

    @property
    def direction(self) -> str:
        """``now wrong`` or ``now right`` (abstaining and unparsed count as not right)."""
        return "now right" if self.after == Outcome.CORRECT.value else "now wrong"

    def as_json(self) -> dict[str, Any]:
        """JSON-ready dict."""
        return {
            "item_id": self.item_id,
            "relation": self.relation,
            "text": self.text,
            "direction": self.direction,
            "before": {"outcome": self.before, "answer": self.before_answer,
                       "raw_text": self.before_raw},
            "after": {"outcome": self.after, "answer": self.after_answer,
                      "raw_text": self.after_raw},
        }  # fmt: skip


@dataclass(frozen=True)
class FlipReport:
    """The flips between two nights: which nights, how many anchors were compared."""

    reference: date | None  # the night compared with (None: no earlier completed night)
    night: date | None
    compared: int  # anchor items answered (not error) on both nights
    flips: tuple[Flip, ...]

    def as_json(self) -> dict[str, Any]:
        """JSON-ready dict."""
        return {
            "reference_night": self.reference.isoformat() if self.reference else None,
            "night": self.night.isoformat() if self.night else None,
            "anchors_compared": self.compared,
            "flipped": len(self.flips),
            "now_wrong": sum(f.direction == "now wrong" for f in self.flips),
            "now_right": sum(f.direction == "now right" for f in self.flips),
            "items": [f.as_json() for f in self.flips],
        }


def _right(outcome: str) -> bool:
    return outcome == Outcome.CORRECT.value


def flipped(db: Database, before_run: int, after_run: int) -> tuple[int, list[Flip]]:
    """(anchors compared, the flips) between the anchor answers of two runs of one monitor.

    The anchors are those of the later run (``anchor_item_ids`` in its config); an item is
    compared when both runs answered it (outcome not ``error``).
    """
    anchors = set(get_run(db, after_run).config.get("anchor_item_ids", []))
    error = Outcome.ERROR.value
    old = {r.item_id: r for r in list_responses(db, run_id=before_run) if r.outcome != error}
    new = {r.item_id: r for r in list_responses(db, run_id=after_run) if r.outcome != error}
    shared = [i for i in new if i in anchors and i in old]
    changed = [i for i in shared if _right(old[i].outcome) != _right(new[i].outcome)]
    items = {item.id: item for item in load_any_items(db, changed)}
    flips = []
    for item_id in changed:
        item = items.get(item_id)
        a, b = old[item_id], new[item_id]
        flips.append(
            Flip(
                item_id=item_id,
                relation=getattr(item, "relation", "") or "",
                text=getattr(item, "text", "") or "",
                before=a.outcome,
                after=b.outcome,
                before_answer=a.parsed_answer,
                after_answer=b.parsed_answer,
                before_raw=a.raw_text,
                after_raw=b.raw_text,
            )
        )
    return len(shared), sort_flips(flips, "relation")


def sort_flips(flips: Sequence[Flip], by: str = "relation") -> list[Flip]:
    """``flips`` sorted by ``relation`` (then item), ``direction`` or ``item`` id."""
    if by not in SORT_KEYS:
        raise ValueError(f"sort flips by one of {', '.join(SORT_KEYS)}, not {by!r}")
    keys = {
        "relation": lambda f: (f.relation, f.direction, f.item_id),
        "direction": lambda f: (f.direction, f.relation, f.item_id),
        "item": lambda f: (f.item_id,),
    }
    return sorted(flips, key=keys[by])


def _completed(nights: Sequence[NightRecord]) -> list[NightRecord]:
    return [n for n in nights if n.run_id is not None and n.status == NightStatus.COMPLETED]


def reference_night(
    db: Database, monitor_id: int, model: str, opened_on: date
) -> NightRecord | None:
    """The last completed night before ``opened_on`` (what an incident's nights are compared
    with), or None."""
    earlier = list_nights(
        db, monitor_id, model, status=NightStatus.COMPLETED, before=opened_on, limit=1
    )
    found = _completed(earlier)
    return found[0] if found else None


def incident_flips(db: Database, incident: Incident, *, by: str = "relation") -> FlipReport:
    """The anchor items whose answer changed between the night before ``incident`` opened and
    its latest completed night (up to the night it closed)."""
    reference = reference_night(db, incident.monitor_id, incident.model, incident.opened_on)
    nights = _completed(list_nights(db, incident.monitor_id, incident.model, limit=120))
    last_day = incident.closed_on
    later = [
        n
        for n in nights
        if n.scheduled_date >= incident.opened_on
        and (last_day is None or n.scheduled_date <= last_day)
    ]
    latest = max(later, key=lambda n: n.scheduled_date, default=None)
    if reference is None or latest is None or reference.run_id is None or latest.run_id is None:
        return FlipReport(reference.scheduled_date if reference else None,
                          latest.scheduled_date if latest else None, 0, ())  # fmt: skip
    compared, flips = flipped(db, reference.run_id, latest.run_id)
    return FlipReport(
        reference.scheduled_date, latest.scheduled_date, compared, tuple(sort_flips(flips, by))
    )
