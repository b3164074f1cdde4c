"""Which entity a risk or an effect points at, for the rephrasing validator.

Two directional relations are said in words that :func:`~quizbot.generate.wording.predicate_reading`
does not read as a family, and a rewording often moves them away from the two entities:

* a **risk**: the *outcome* is the entity that follows a risk word ("the risk of [B]", "the
  likelihood of he/she suffering from [B]", "a risk factor for [B]", "more likely to develop
  [B]", "predisposes a patient to [B]") or the subject of an occurrence made likely ("[B] is
  more likely to occur in patients with [A]"); the other entity is the risk factor. "[A]
  increases the risk of [B]" and "If a patient has [A], the likelihood of [B] is higher" share
  the outcome [B]; "[B] increases the risk of developing [A]" does not;
* an **effect**: the *target* is the entity an effect verb acts on ("influences the process of
  [B]", "has no effect on [B]") or the subject of its passive ("[B] may be influenced"); the
  other entity is the agent. "If [A] decreases, [B] may be influenced" and "[A] may influence
  [B]" share the target [B]; "[B] may influence [A]" does not. A change that ends its clause
  ("[B] may decrease") names its target unless it is the condition ("If [A] decreases, ...").

:func:`direction_change` compares the two sentences: when both name an outcome (or both a target)
and not the same entity, the roles are swapped; :func:`direction_kept` says they name the same
one, so a change of order kept the roles.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence

__all__ = ["direction_change", "direction_kept", "effect_target", "risk_outcome"]

Spans = Mapping[str, Sequence[tuple[int, int]]]

# the words that lead to a risk's outcome
_RISK = re.compile(
    r"\b(?:risks?|likelihood|chances?|probabilit(?:y|ies)|odds|incidence)\s+(?:factors?\s+)?"
    r"(?:of|for|that)\b"
    r"|\b(?:likely|prone|predispos\w*|susceptib\w*|vulnerab\w*|liable)\b"
    r"(?:\s+[^\W\d_][\w'’/-]*){0,3}?\s+to\b",
    re.IGNORECASE,
)
# "[B] is more likely to occur in patients with [A]": the outcome is the subject
_RISK_SUBJECT = re.compile(
    r"\b(?:likely|prone)\s+to\s+(?:occur|develop|arise|appear|happen|emerge"
    r"|be\s+(?:present|seen|found|diagnosed))\s+(?:in|among|with|when|if|after)\b",
    re.IGNORECASE,
)
# the words that lead to an effect's target (active verb or "effect on")
_EFFECT = re.compile(
    r"\b(?:influenc(?:e|es|ing)|affect(?:s|ing)?|alter(?:s|ing)?|impact(?:s|ing)?"
    r"|modulat(?:e|es|ing)|regulat(?:e|es|ing)|disrupt(?:s|ing)?|impair(?:s|ing)?"
    r"|diminish(?:es)?|decreases|reduces|lowers|increases|raises|boosts|enhances)\b"
    # a change verb that is also a noun or an adjective only after a modal or "to"
    r"|\b(?:may|might|can|could|will|would|to|not)\s+"
    r"(?:decrease|reduce|lower|increase|raise|boost|enhance)\b"
    r"|\b(?:effects?|impacts?|influences?|bearing)\s+(?:\w+\s+)?on\b",
    re.IGNORECASE,
)
# a passive effect verb after its target: "[B] may be influenced", "[B] is not affected by"
_PASSIVE = re.compile(
    r"\b(?:is|are|be|been|being|was|were)\s+(?:(?:not|never|\w+ly)\s+)*"
    r"(?:influenced|affected|altered|impacted|modulated|regulated|disrupted|impaired"
    r"|decreased|reduced|lowered|diminished|increased|raised|boosted|enhanced)\b",
    re.IGNORECASE,
)
# a change said of its subject, ending its clause: "[B] may decrease", "[B] declines if ..."
_CHANGES = re.compile(
    r"\b(?:(?:may|might|can|could|will|would)\s+)?(?:decreas(?:e|es)|declin(?:e|es)|fall|falls"
    r"|drop|drops|diminish(?:es)?|increas(?:e|es)|ris(?:e|es)|chang(?:e|es))"
    r"(?=\s*(?:[,;:.]|$|(?:if|when|whenever|once|because)\b))",
    re.IGNORECASE,
)
# a condition clause: its entity is the agent of a change, not its target
_CONDITION = re.compile(r"\b(?:if|when|whenever|once)\b[^,;]*", re.IGNORECASE)
_BREAK = re.compile(r"[,;:()\[\]]")
_WORDS = re.compile(r"[^\W\d_][\w'’/-]*")
MAX_GAP = 4  # words allowed between the cue and the entity


def _owner_at(spans: Spans, position: int, *, after: bool) -> str | None:
    """The key of the nearest entity mention after (or before) ``position``."""
    best: tuple[int, str] | None = None
    for key, found in spans.items():
        for start, stop in found:
            distance = start - position if after else position - stop
            if distance >= 0 and (best is None or distance < best[0]):
                best = (distance, key)
    return None if best is None else best[1]


def _close(gap: str) -> bool:
    """Whether ``gap`` (text between a cue and an entity) is short and in one clause."""
    return not _BREAK.search(gap) and "\x1a" not in gap and len(_WORDS.findall(gap)) <= MAX_GAP


def _following(masked: str, spans: Spans, pattern: re.Pattern[str]) -> set[str]:
    """The entities that closely follow a match of ``pattern``."""
    keys: set[str] = set()
    for match in pattern.finditer(masked):
        key = _owner_at(spans, match.end(), after=True)
        if key is None:
            continue
        start = min(s for s, _ in spans[key] if s >= match.end())
        if _close(masked[match.end() : start]):
            keys.add(key)
    return keys


def _single(keys: set[str]) -> str | None:
    return next(iter(keys)) if len(keys) == 1 else None


def risk_outcome(masked: str, spans: Spans) -> str | None:
    """The key of the entity a risk word leads to (the outcome), or None when there is no risk
    word before an entity or the sentence names both."""
    subjects = _preceding(masked, spans, _RISK_SUBJECT)
    if subjects:
        return _single(subjects)
    return _single(_following(masked, spans, _RISK))


def effect_target(masked: str, spans: Spans) -> str | None:
    """The key of the entity an effect acts on (an active verb's object, "effect on [B]", a
    passive's subject, the subject of a change that ends its clause, "[B] may decrease", outside
    a condition), or None when there is none or the sentence names both."""
    keys = _following(masked, spans, _EFFECT) | _preceding(masked, spans, _PASSIVE)
    conditions = [m.span() for m in _CONDITION.finditer(masked)]
    for key in _preceding(masked, spans, _CHANGES):
        start = spans[key][0][0]
        if not any(begin <= start < end for begin, end in conditions):
            keys.add(key)
    return _single(keys)


def _preceding(masked: str, spans: Spans, pattern: re.Pattern[str]) -> set[str]:
    """The entities that closely precede a match of ``pattern``."""
    keys: set[str] = set()
    for match in pattern.finditer(masked):
        key = _owner_at(spans, match.start(), after=False)
        if key is None:
            continue
        stop = max(e for _, e in spans[key] if e <= match.start())
        if _close(masked[stop : match.start()]):
            keys.add(key)
    return keys


def direction_change(orig: tuple[str, Spans], cand: tuple[str, Spans]) -> tuple[str, str] | None:
    """``("roles swapped", detail)`` when both sentences, each a (masked text, entity spans)
    pair, name a risk's outcome or an effect's target and the candidate names the other entity;
    else None."""
    for what, reader in (("risk's outcome", risk_outcome), ("effect's target", effect_target)):
        was, now = reader(*orig), reader(*cand)
        if was is not None and now is not None and was != now:
            return ("roles swapped", f"the {what} is now the other entity")
    return None


def direction_kept(orig: tuple[str, Spans], cand: tuple[str, Spans]) -> bool:
    """Whether both sentences name the same entity as a risk's outcome or an effect's target:
    positive evidence that a change of order kept the roles ("[B] is more likely to occur in
    patients with [A]" for "[A] raises the risk of [B]")."""
    for reader in (risk_outcome, effect_target):
        was, now = reader(*orig), reader(*cand)
        if was is not None and was == now:
            return True
    return False
