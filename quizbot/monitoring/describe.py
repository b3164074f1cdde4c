"""What a monitor asks, in one sentence: the one description the Monitor tab, the Admin tab and
``quizbot monitor list`` show (:func:`describe_monitor`).

A monitor asks either statements made from a knowledge base (``points`` knowledge points a
night, 16 statements each, ``anchor_points`` of them the fixed anchor set), open recall
questions (``points`` a night, ``anchor_points`` fixed), or an imported **item set**, asked
whole every night, every item an anchor: then ``points`` and ``anchor_points`` mean nothing and
the description counts the set's items (read from the database, since the schedules file only
names the set).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from schedules.config import STATEMENTS_PER_POINT
from storage import Database
from storage.item_sets import find_item_set

__all__ = ["MonitorDescription", "describe_monitor"]

_ITEM_SET_FORMATS = {  # quizbot.generate.item_banks.FORMATS
    "multifaceteval-mcq": "multiple choice (MultifacetEval MCQ)",
    "multifaceteval-tfq": "true/false (MultifacetEval TFQ)",
    "multifaceteval-maq": "multiple answer (MultifacetEval MAQ)",
    "medqa": "multiple choice (MedQA)",
    "ebmqa": "multiple choice (EBMQA)",
}


@dataclass(frozen=True)
class MonitorDescription:
    """What a monitor asks each model every night."""

    source: str  # "clinical-core" or "item set mcq-2024"
    unit: str  # "knowledge points", "open recall questions", "items"
    per_night: int | None  # points, questions or items a night (None: item set not imported)
    items_per_night: int | None  # questions actually put to a model a night
    anchors: str  # "6 anchor points (96 statements)", "all of them anchors"
    format: str  # "true/false statements", "open recall", "multiple choice"
    prompt: str  # "standard", "SDAK (verdict first, then the reason)"

    @property
    def text(self) -> str:
        """One sentence, e.g. ``32 items a night from item set mcq (all of them anchors);
        multiple choice, standard prompt``."""
        count = "?" if self.per_night is None else str(self.per_night)
        asked = ""
        if self.unit == "knowledge points" and self.items_per_night is not None:
            asked = f" = {self.items_per_night} statements"
        return (
            f"{count} {self.unit} a night{asked} from {self.source} ({self.anchors}); "
            f"{self.format}, {self.prompt} prompt"
        )

    def as_json(self) -> dict[str, Any]:
        """JSON-ready dict (``quizbot monitor list --json``'s ``asks``)."""
        return {
            "source": self.source,
            "unit": self.unit,
            "per_night": self.per_night,
            "items_per_night": self.items_per_night,
            "anchors": self.anchors,
            "format": self.format,
            "prompt": self.prompt,
            "text": self.text,
        }


def _prompt(definition: Mapping[str, Any]) -> str:
    if definition.get("prompt") == "sdak":
        return "SDAK (verdict Correct/Incorrect first, then the reason)"
    return "standard"


def describe_monitor(db: Database | None, definition: Mapping[str, Any]) -> MonitorDescription:
    """Describe a monitor from its definition (``MonitorSpec.as_json()`` or as stored); an item
    set's size and format are read from ``db`` (unknown without one, or before its import)."""
    points = int(definition.get("points") or 0)
    anchors = int(definition.get("anchor_points") or 0)
    item_set = definition.get("item_set")
    if item_set:
        found = find_item_set(db, str(item_set)) if db is not None else None
        if found is None:
            return MonitorDescription(
                source=f"item set {item_set}", unit="items", per_night=None,
                items_per_night=None, anchors="all of them anchors; not imported yet",
                format="imported items", prompt=_prompt(definition),
            )  # fmt: skip
        kind = _ITEM_SET_FORMATS.get(found.format, found.format)
        return MonitorDescription(
            source=f"item set {item_set}", unit="items", per_night=found.n_items,
            items_per_night=found.n_items, anchors="all of them anchors",
            format=kind, prompt=_prompt(definition),
        )  # fmt: skip
    kb = str(definition.get("kb") or "clinical-core")
    if definition.get("format") == "recall":
        return MonitorDescription(
            source=kb, unit="open recall questions", per_night=points, items_per_night=points,
            anchors=f"{anchors} of them anchors", format="open recall (disease x aspect)",
            prompt=_prompt(definition),
        )  # fmt: skip
    return MonitorDescription(
        source=kb,
        unit="knowledge points",
        per_night=points,
        items_per_night=points * STATEMENTS_PER_POINT,
        anchors=f"{anchors} anchor points = {anchors * STATEMENTS_PER_POINT} anchor statements",
        format="true/false statements",
        prompt=_prompt(definition),
    )
