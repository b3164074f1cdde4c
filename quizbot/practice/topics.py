"""Topics of a knowledge base for practice (a relation or an organ system), students' names and
the checks on what a student asks for."""

from __future__ import annotations

import unicodedata
from collections import defaultdict
from collections.abc import Mapping
from typing import Any

from quizbot.errors import InputError, NotFoundError
from quizbot.generate.points import candidate_points
from quizbot.kb.model import KnowledgeBaseData, Triplet
from quizbot.kb.registry import DEFAULT_KB, get_kb
from quizbot.names import check_name
from quizbot.practice.views import (
    _FORMATS,
    _RELATION_TOPICS,
    MAX_LENGTH,
    MAX_NAME_LENGTH,
    Topic,
)
from storage import Database


def normalise_student(name: str) -> str:
    """The key a pseudonym is stored under (see the module docstring); InputError if unusable."""
    if not isinstance(name, str):
        raise InputError("the pseudonym must be text", field="student")
    shown = _display_name(name)
    return shown.casefold()


def _display_name(name: str) -> str:
    shown = " ".join(unicodedata.normalize("NFKC", name).split())
    if not shown:
        raise InputError(
            "enter a pseudonym or code name", field="student", hint="e.g. your student code"
        )
    if len(shown) > MAX_NAME_LENGTH:
        raise InputError(
            f"the pseudonym is {len(shown)} characters long; at most {MAX_NAME_LENGTH} fit",
            field="student",
            hint="choose a shorter pseudonym",
        )
    if any(unicodedata.category(c).startswith("C") for c in shown):
        raise InputError(
            "the pseudonym contains control characters",
            field="student",
            hint="use letters, digits and punctuation",
        )
    return shown


def _cohort(cohort: str | None) -> str | None:
    if cohort is None:
        return None
    cleaned = " ".join(unicodedata.normalize("NFKC", cohort).split())
    if len(cleaned) > MAX_NAME_LENGTH:
        raise InputError(f"the cohort name is longer than {MAX_NAME_LENGTH} characters")
    return check_name(cleaned, field="cohort") if cleaned else None


def _validate(length: int, format: str, seed: str | None) -> None:
    if isinstance(length, bool) or not isinstance(length, int):
        raise InputError("the number of questions must be a whole number", field="length")
    if not 1 <= length <= MAX_LENGTH:
        raise InputError(
            f"a session has 1 to {MAX_LENGTH} questions, not {length}",
            field="length",
            hint="pick a number between 1 and 100",
        )
    if format not in _FORMATS:
        raise InputError(
            f"unknown question format {format!r}",
            field="format",
            hint=f"one of: {', '.join(_FORMATS)}",
        )
    if seed is not None and (not seed.strip() or len(seed) > MAX_NAME_LENGTH):
        raise InputError("the seed must be non-empty text of at most 100 characters")


def _load_kb(db: Database, kb_name: str) -> tuple[KnowledgeBaseData, int]:
    try:
        return get_kb(db, kb_name)
    except NotFoundError as exc:
        raise InputError(exc.message, field="kb", hint=exc.hint) from None


# --------------------------------------------------------------------------------------------
# Topics


def _system_of(t: Triplet) -> str | None:
    """The organ system a fact is filed under: its head's group, never its tail's.

    clinical-core also tags ``prevents`` facts with the system of the prevented disease (the
    tail). Those stay out of system topics: a generated negative swaps the tail for a disease
    of (usually) another system, so in a "Respiratory" session a vaccine statement about a
    non-respiratory disease would give its answer away.
    """
    return t.group


def _system_labels(kb: KnowledgeBaseData) -> dict[str, str]:
    systems = kb.meta.get("systems")
    if isinstance(systems, Mapping):
        return {str(k): str(v) for k, v in systems.items()}
    return {}


def _relation_topic_label(kb: KnowledgeBaseData, relation: str) -> str:
    if relation in _RELATION_TOPICS:
        return _RELATION_TOPICS[relation]
    known = kb.relations.get(relation)
    label = known.label if known else relation.replace("_", " ")
    return label[:1].upper() + label[1:]


def _relation_label(kb: KnowledgeBaseData, relation: str) -> str:
    known = kb.relations.get(relation)
    return known.label if known else relation.replace("_", " ")


def _topic_keys(t: Triplet) -> list[str]:
    keys = [f"relation:{t.relation}"]
    system = _system_of(t)
    if system is not None:
        keys.append(f"system:{system}")
    return keys


def _topics(kb: KnowledgeBaseData) -> list[Topic]:
    counts: dict[str, int] = defaultdict(int)
    for t in candidate_points(kb):
        for key in _topic_keys(t):
            counts[key] += 1
    systems = _system_labels(kb)
    relations: list[Topic] = []
    groups: list[Topic] = []
    for key, n in counts.items():
        kind, name = key.split(":", 1)
        if kind == "relation":
            relations.append(Topic(key, kind, name, _relation_topic_label(kb, name), n))
        else:
            groups.append(Topic(key, kind, name, systems.get(name, name), n))
    order = list(kb.relations)
    relations.sort(key=lambda t: (order.index(t.name) if t.name in order else len(order), t.name))
    groups.sort(key=lambda t: t.label.casefold())
    return relations + groups


def topics(db: Database, kb_name: str = DEFAULT_KB) -> list[Topic]:
    """What a student can choose to practise in ``kb_name``: its relations, then organ systems.

    Raises :class:`InputError` for an unknown knowledge base.
    """
    kb, _ = _load_kb(db, kb_name)
    return _topics(kb)


def _resolve_topic(kb: KnowledgeBaseData, topic: str) -> Topic:
    available = _topics(kb)
    wanted = " ".join(topic.split()).casefold()
    exact = [t for t in available if t.key.casefold() == wanted]
    loose = [t for t in available if wanted in {t.name.casefold(), t.label.casefold()}]
    found = exact or loose
    if len(found) == 1:
        return found[0]
    shown = ", ".join(t.key for t in available[:20])
    more = f" (and {len(available) - 20} more)" if len(available) > 20 else ""
    what = "is ambiguous" if found else "is not a topic"
    raise InputError(
        f"{topic!r} {what} of knowledge base {kb.name!r}",
        field="topic",
        hint=f"choose one of: {shown}{more}",
    )


def _topic_label(labels: Mapping[str, str], entry: Mapping[str, Any]) -> str:
    relation = labels.get(f"relation:{entry.get('relation')}", str(entry.get("relation", "")))
    system = entry.get("system")
    if system:
        return f"{labels.get(f'system:{system}', str(system))} · {relation}"
    return relation


# --------------------------------------------------------------------------------------------
# What the student has done before
