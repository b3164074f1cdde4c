"""A lexicon of opposites for the rephrasing validator, read once from ``data/opposites.csv``.

Each row of the file is one opposition: a family name, whether it is a *converse* (a relation
that swaps its two terms: "[X] precedes [Y]" = "[Y] follows [X]", "proximal to" / "distal to"),
and two sides, each a space-separated list of words. A plain word also stands for its regular
inflections ("widen" -> "widens", "widened", "widening"; "thin" -> "thinner", "thinned"), a word
written ``=word`` only for itself ("fast", not "fasting"), a word ending in ``*`` for every word
it begins (at least five letters: "attenuat*" -> "attenuation"). The rows were written from
general and medical knowledge (direction and quantity, effect, frequency, time and course,
anatomy, physiology and pathology, causation, inclusion, permission, certainty), not from any
data set of rephrasings. A converse's passive ("is preceded by" = "after") flips it again, so
the sequence row lists only the active forms of "precede" and "follow"; their passives are left
to the voice families of :mod:`~quizbot.generate.wording`.

:func:`lexicon_clash` finds a word of the candidate on one side of a row that the statement does
not have, where the statement has a word of the other side: "soars" for "decreases",
"detrimental" for "beneficial". A few fixed phrases do not carry their word's sense ("give rise
to", "falls under", "the lower limb", "if left untreated"), see ``_NEUTRAL``. A phrasal verb of
quantity ("goes up", "tails off", "cut back") counts as the word it means, see ``_PHRASAL``.
"""

from __future__ import annotations

import csv
import io
from collections.abc import Sequence
from dataclasses import dataclass
from functools import cache
from importlib import resources

__all__ = ["Opposition", "lexicon", "lexicon_clash", "word_forms_of"]

_VOWELS = "aeiou"
_MIN_PREFIX = 5


@dataclass(frozen=True, slots=True)
class Opposition:
    """One row of the lexicon: two sides of opposite words (see the module docstring)."""

    family: str
    converse: bool
    sides: tuple[frozenset[str], frozenset[str]]  # words and their inflections
    prefixes: tuple[tuple[str, ...], tuple[str, ...]]  # the ``stem*`` entries

    def side_of(self, word: str) -> int | None:
        """0 or 1 when ``word`` is on exactly one side of the row, else None."""
        on = [
            word in words or word.startswith(pre)
            for words, pre in zip(self.sides, self.prefixes, strict=True)
        ]
        if on[0] == on[1]:
            return None
        return 0 if on[0] else 1


def word_forms_of(word: str) -> frozenset[str]:
    """A word and its regular inflections (plural and third person, past, -ing, comparative,
    superlative, adverb), over-generating harmlessly: a form that is no English word never
    occurs."""
    forms = {word, word + "s", word + "es", word + "ed", word + "ing", word + "er", word + "est"}
    forms.add(word + "ly")
    if word.endswith("e"):
        forms |= {word + "d", word + "r", word + "st", word[:-1] + "ing", word[:-1] + "ion"}
    if word.endswith("y") and len(word) > 3:
        base = word[:-1]
        forms |= {base + "ies", base + "ied", base + "ier", base + "iest", base + "ily"}
    if (
        len(word) >= 3
        and word[-1] not in _VOWELS + "wxy"
        and word[-2] in _VOWELS
        and word[-3] not in _VOWELS
    ):
        double = word + word[-1]
        forms |= {double + "ed", double + "ing", double + "er", double + "est"}
    return frozenset(forms)


def _parse_side(text: str) -> tuple[frozenset[str], tuple[str, ...]]:
    words: set[str] = set()
    prefixes: list[str] = []
    for entry in text.lower().split():
        if entry.endswith("*"):
            if len(entry) - 1 < _MIN_PREFIX:
                raise ValueError(f"prefix too short in the opposites lexicon: {entry!r}")
            prefixes.append(entry[:-1])
        elif entry.startswith("="):
            words.add(entry[1:])
        else:
            words |= word_forms_of(entry)
    return frozenset(words), tuple(prefixes)


@cache
def lexicon() -> tuple[Opposition, ...]:
    """The rows of ``quizbot/generate/data/opposites.csv``, parsed once."""
    text = resources.files("quizbot.generate").joinpath("data/opposites.csv").read_text("utf-8")
    rows: list[Opposition] = []
    for row in csv.DictReader(io.StringIO(text)):
        one, one_pre = _parse_side(row["side"])
        two, two_pre = _parse_side(row["opposite"])
        rows.append(
            Opposition(row["family"], row["converse"] == "yes", (one, two), (one_pre, two_pre))
        )
    return tuple(rows)


def _set(text: str) -> frozenset[str]:
    return frozenset(text.split())


# Fixed phrases in which a lexicon word does not carry its sense: (the words, the words that may
# stand right before them, the words that may stand right after them); either may be empty.
_BODY = _set(
    "limb limbs leg legs arm arms back body extremity extremities lobe lobes jaw lip lips eyelid"
    " eyelids abdomen abdominal quadrant respiratory urinary gastrointestinal tract airway airways"
    " motor part half pole teeth chest esophageal oesophageal ventricle atrium side"
)
_NEUTRAL: tuple[tuple[frozenset[str], frozenset[str], frozenset[str]], ...] = (
    (_set("rise"), _set("give gives gave given giving"), _set("")),  # "gives rise to"
    (_set("fall falls fell fallen falling"), _set(""), _set("under into within")),
    (_set("lower upper low high"), _set(""), _BODY),  # "the lower limb"
    (
        _set("left"),  # "if left untreated"
        _set("is are be been being was were if when"),
        _set("untreated unchanged alone behind over out undiagnosed unmanaged unattended"),
    ),
    (
        _set("right"),  # "the right dose"
        _set("all just"),
        _set("away now time dose drug medication treatment choice answer amount approach one"),
    ),
    (_set("following"), _set("the"), _set("")),  # "the following signs"
    (_set("more less"), _set(""), _set("or")),  # "more or less"
)


def _neutral(words: Sequence[str], index: int) -> bool:
    word = words[index]
    before = words[index - 1] if index > 0 else ""
    after = words[index + 1] if index + 1 < len(words) else ""
    return any(word in which and (before in prev or after in nxt) for which, prev, nxt in _NEUTRAL)


def _sides(row: Opposition, words: Sequence[str]) -> tuple[list[str], list[str]]:
    found: tuple[list[str], list[str]] = ([], [])
    for index, word in enumerate(words):
        side = row.side_of(word)
        if side is not None and not _neutral(words, index):
            found[side].append(word)
    return found


def _verbs(text: str) -> frozenset[str]:
    """Verbs and their regular inflections; irregular forms are written out."""
    return frozenset(form for word in text.split() for form in word_forms_of(word))


# Phrasal verbs of quantity: a motion verb and its particle say "increase" or "decrease" ("goes
# up", "shot up", "ramps down", "tails off", "cut back"), read as one word of the quantity row.
_PHRASAL: tuple[tuple[frozenset[str], str, str], ...] = (
    (
        _verbs("go goes went gone shoot shot jump spike ramp step scale climb move tick creep edge")
        | _verbs("push drive drove driven crank bump ratchet gear"),
        "up",
        "increase",
    ),
    (
        _verbs("go goes went gone come came drop die cut scale ramp step wind wound tick move")
        | _verbs("slow calm"),
        "down",
        "decrease",
    ),
    (_verbs("drop tail taper fall fell fallen die ease"), "off", "decrease"),
    (_verbs("cut scale pull"), "back", "decrease"),
)


def _phrasal(words: Sequence[str]) -> list[str]:
    """``words`` with each phrasal verb of quantity made the one word it means."""
    out: list[str] = []
    index = 0
    while index < len(words):
        after = words[index + 1] if index + 1 < len(words) else ""
        meaning = next((m for v, p, m in _PHRASAL if words[index] in v and after == p), None)
        out.append(meaning or words[index])
        index += 2 if meaning else 1
    return out


def lexicon_clash(
    original: Sequence[str], candidate: Sequence[str], *, converse: bool = False
) -> tuple[str, str] | None:
    """A (word of the original, its opposite brought in by the candidate), or None.

    ``original`` and ``candidate`` are the lower-cased words of the two sentences outside their
    entities, in order. A candidate word clashes when it is on one side of a row and is no word
    of the original, and the original has a word on the other side and either none on this side
    or one fewer of the other side in the candidate (a statement with both sides, "if [X]
    decreases, the likelihood of [Y] is higher", clashes when one of them is flipped). Only the
    rows that are converses with ``converse`` (the caller knows the entities kept their order),
    only the others without it. A phrasal verb of quantity counts as its one word ("goes up"
    as "increase").
    """
    original, candidate = _phrasal(original), _phrasal(candidate)
    had = set(original)
    for row in lexicon():
        if row.converse != converse:
            continue
        orig_sides, cand_sides = _sides(row, original), _sides(row, candidate)
        for this, other in ((0, 1), (1, 0)):
            brought = [w for w in cand_sides[other] if w not in had]
            if not brought or not orig_sides[this]:
                continue
            if not orig_sides[other] or len(cand_sides[this]) < len(orig_sides[this]):
                return orig_sides[this][0], brought[0]
    return None
