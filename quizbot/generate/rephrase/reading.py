"""How the rephrasing validator reads a sentence: normalised, its entities found and blanked out.

:class:`Reading` holds a sentence with every name of its two entities masked (longest name first)
and the spans of their mentions; :class:`Context` what every check needs besides the two
readings; :class:`Verdict` the decision. :func:`negation_cues` counts negation outside named
entities. Used by :mod:`~quizbot.generate.rephrase.validator` and its checks.
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass

from quizbot.generate.rephrase.claims import (
    Finding,
    cues_in,
)
from quizbot.generate.rephrase.entities import (
    loose_span,
    loose_span_over,
    name_forms,
)
from quizbot.generate.rephrase.lexicon import (
    HAVING,
    LAY_NAMES,
)
from quizbot.generate.rephrase.spelling import reworded_span
from quizbot.generate.wording import (
    FUNCTION_WORDS,
    entity_regex,
    stem,
)

__all__ = [
    "ACCEPTED",
    "CLAUSE_BREAK",
    "MASK",
    "RIGHT_WORD",
    "WORD",
    "Check",
    "Context",
    "Reading",
    "Synonyms",
    "Verdict",
    "mask_entities",
    "names_of",
    "negation_cues",
    "normalise",
    "reject",
    "verdict_of",
]


@dataclass(frozen=True, slots=True)
class Verdict:
    """The validator's decision. ``reason`` is ``"<category>: <detail>"`` when rejected."""

    ok: bool
    reason: str

    @property
    def category(self) -> str:
        """The stable part of ``reason`` (before the first colon), for counting rejections."""
        return self.reason.split(":", 1)[0].strip()


ACCEPTED = Verdict(True, "accepted")


_SPACES = re.compile(r"\s+")


MASK = "\x1a"


Synonyms = Mapping[str, Sequence[str]]


def normalise(text: str) -> str:
    """``text`` in NFKC with runs of whitespace made one space, stripped."""
    return _SPACES.sub(" ", unicodedata.normalize("NFKC", text)).strip()


def names_of(entity: str, synonyms: Synonyms | None) -> tuple[str, ...]:
    """``entity`` and its listed synonyms (looked up as written, then case-folded)."""
    names = [entity]
    if synonyms:
        others = synonyms.get(entity)
        if others is None:
            folded = entity.casefold()
            others = next((v for k, v in synonyms.items() if k.casefold() == folded), ())
        names += [normalise(name) for name in others if normalise(name)]
    names += LAY_NAMES.get(entity.casefold(), ())
    names += name_forms(entity)
    return tuple(dict.fromkeys(names))


def mask_entities(
    text: str, entities: Mapping[str, tuple[str, ...]]
) -> tuple[str, dict[str, list[tuple[int, int]]]]:
    """Blank out every name of every entity, longest name first (so one inside another, such
    as a head inside a synonym of the tail, is not found twice).

    ``entities`` maps a key to the entity's names. Returns the masked text and, per key, the
    spans of its mentions in order.
    """
    names = sorted(
        ((key, name) for key, group in entities.items() for name in group),
        key=lambda kn: -len(kn[1]),
    )
    found: dict[str, list[tuple[int, int]]] = {key: [] for key in entities}
    plain = text
    for key, name in names:
        spans = [m.span() for m in entity_regex(name).finditer(text)]
        for start, stop in reversed(spans):
            text = text[:start] + MASK * (stop - start) + text[stop:]
        found[key] += spans
    for key, group in entities.items():
        if not found[key]:
            # the name's words reordered or inflected, or those of one of its variants
            # ("lowers acetylcholine activity" for "Decreased Acetylcholine Activity")
            span = next(
                (s for name in group if (s := loose_span(text, name)) is not None), None
            ) or reworded_span(text, group[0])
            others = [o for k in entities if k != key for o in found[k]]
            if span is None and (over := loose_span_over(plain, text, group[0], others)):
                span, taken = over  # the other entity's name inside this one's
                for k in entities:
                    found[k] = [o for o in found[k] if o not in taken]
            if span is not None:
                start, stop = span
                text = text[:start] + MASK * (stop - start) + text[stop:]
                found[key].append(span)
    for spans in found.values():
        spans.sort()
    return text, found


def _plain_mask(mask: Iterable[str]) -> dict[str, tuple[str, ...]]:
    groups: dict[str, tuple[str, ...]] = {}
    for entity in mask:
        norm = normalise(entity)
        if norm:
            groups.setdefault(norm.casefold(), (norm,))
    return groups


def negation_cues(text: str, *, mask: Iterable[str] = ()) -> tuple[str, ...]:
    """The negation cues in ``text``, lower-cased, ignoring any inside the ``mask`` entities
    (see :func:`~quizbot.generate.rephrase.claims.cues_in`). An odd count means the sentence
    states a negation.
    """
    masked, _ = mask_entities(normalise(text), _plain_mask(mask))
    return cues_in(masked)


def reject(category: str, detail: str) -> Verdict:
    """A rejection: ``"<category>: <detail>"``."""
    return Verdict(False, f"{category}: {detail}")


WORD = re.compile(r"[^\W\d_][\w'’-]*")


CLAUSE_BREAK = re.compile(r"[,;:()\[\]]")


_PERSON_STEMS = frozenset(
    stem(w) for w in ["patient", "patients", "person", "people", "individual", "someone", "subject"]
)


@dataclass(frozen=True, slots=True)
class Reading:
    """A sentence normalised, with its entities blanked out and the spans of their mentions."""

    raw: str
    text: str
    masked: str
    found: dict[str, list[tuple[int, int]]]

    @classmethod
    def of(cls, sentence: str, entities: Mapping[str, tuple[str, ...]]) -> Reading:
        """The reading of ``sentence`` with the entities (key -> names) masked."""
        text = normalise(sentence)
        masked, found = mask_entities(text, entities)
        return cls(sentence, text, masked, found)

    @property
    def words(self) -> list[str]:
        """The words outside the entities, lower-cased."""
        return [w.lower() for w in WORD.findall(self.masked)]

    def between(self, first: str, second: str) -> str:
        """The text between the first mentions of two entities (keys), whichever comes first."""
        spans = sorted((self.found[first][0], self.found[second][0]))
        return self.masked[spans[0][1] : spans[1][0]]

    def after(self, first: str, second: str) -> str:
        """The text after the later of the two entities' first mentions."""
        return self.masked[max(self.found[first][0], self.found[second][0])[1] :]

    def anchor(self, key: str) -> tuple[str, ...] | None:
        """The words tying the entity's first mention to a patient, stemmed and without
        function words and verbs of having ("In a patient with [Y]" -> (), "a patient who suffers
        from [Y]" -> (), "a patient whose blood cultures grow
        [Y]" -> ("blood", "cultur", "grow")), or None when no person noun stands at most four
        words before it in its clause with no other entity in between."""
        before = CLAUSE_BREAK.split(self.masked[: self.found[key][0][0]])[-1]
        before = before.rsplit(MASK, 1)[-1]
        words = [w.lower() for w in WORD.findall(before)]
        for back in range(1, min(len(words), 5) + 1):
            if stem(words[-back]) in _PERSON_STEMS:
                tail = words[len(words) - back + 1 :]
                return tuple(stem(w) for w in tail if w not in FUNCTION_WORDS and w not in HAVING)
        return None

    def frame(self, key: str) -> tuple[str, ...]:
        """Up to two words right before the entity's first mention, within its clause,
        articles left out: what the sentence calls the entity ("the gene", "patient with")."""
        before = CLAUSE_BREAK.split(self.masked[: self.found[key][0][0]])[-1]
        words = [w.lower() for w in WORD.findall(before) if w.lower() not in ("a", "an", "the")]
        return tuple(words[-2:])


@dataclass(frozen=True, slots=True)
class Context:
    """What every check may need besides the two readings."""

    keys: tuple[str, str]  # head and tail keys (case-folded names)
    names: tuple[str, str]  # head and tail as given, normalised
    negated: bool


Check = Callable[[Reading, Reading, Context], Verdict | None]


RIGHT_WORD = re.compile(r"^ ([^\W\d_][\w'’-]*)")


def verdict_of(finding: Finding | None) -> Verdict | None:
    """The rejection a rule found, or None."""
    return None if finding is None else reject(*finding)
