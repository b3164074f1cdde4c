"""A sentence read without the kind labels next to its entities and with possessives as of-phrases.

A rewording may write an entity with the noun that says what kind of thing it is: "the gene
product [X]", "the disease [Y]", "[X] gene". The shapes that say who plays which role (whose
relation a relational noun states, :mod:`.possession`; the predicate read through a reduced
passive, :mod:`.relational`) are written for the bare entity, so a label hid them, and a role
swap that carries the labels along ("The anatomy associated with [Y] is the gene product [X]"
for "The anatomy associated with the gene product [X] is [Y]") kept both the labels next to
their entities and the roles unread. :func:`unlabelled` gives the sentence with those labels
left out, so that "[Y] is the gene product encoded by [X]" reads like "[Y] is the ... encoded
by [X]" and "... is the gene product [X]" like "... is [X]". A possessive is read as the
of-phrase it stands for ("[A] is [B]'s physiologic effect" = "[A] is the physiologic effect of
[B]", "[B]'s morphology is [A]" = "the morphology of [B] is [A]"), and a prepositional
phrase set before its clause is put back after it ("In [A], [B] may be present" = "[B] may be
present in [A]"), which the shapes know.

Only kind nouns are left out (gene, gene product, protein, disease, drug, ...), never a
relational noun ("morphology", "anatomy", "site"), which carries the relation itself.
"""

from __future__ import annotations

import itertools
import re

from quizbot.generate.rephrase.reading import Reading
from quizbot.generate.wording import FUNCTION_WORDS, NEUTRAL_VERBS, families_of, stem

__all__ = ["unlabelled"]

_KIND = (
    r"(?:genes?|products?|proteins?|enzymes?|hormones?|molecules?|substances?|diseases?"
    r"|disorders?|conditions?|drugs?|medications?|medicines?)"
)
# the labels right before a mention ("the gene product [X]"), after its article if any
_BEFORE = re.compile(rf"(?:(?<=\s)|^)(?:{_KIND}\s+){{1,3}}$", re.IGNORECASE)
# the labels right after a mention ("[X] gene is ..."), one space away
_AFTER = re.compile(rf"^ {_KIND}(?: {_KIND}){{0,2}}\b", re.IGNORECASE)
_ARTICLE_END = re.compile(r"(?:^|\s)(?:the|a|an)\s+$", re.IGNORECASE)


# "[B]'s physiologic effect": up to three words after the possessive, up to a function word
_GENITIVE = re.compile(r"^['’]s?\s+((?:[^\W\d_][\w-]*)(?:\s+[^\W\d_][\w-]*){0,2})")


def _nominal(word: str, first: bool) -> bool:
    """Whether ``word`` may belong to a possessive's noun phrase: no function word or adverb
    ("often"), and after its first word no verb ("accompanies", "caused")."""
    lower = word.lower()
    if lower in FUNCTION_WORDS or lower.endswith("ly") or lower in _ADVERBS:
        return False
    verb = bool(families_of([lower])) or stem(lower) in NEUTRAL_VERBS
    return first or not (verb and lower.endswith(("s", "ed")))


_ADVERBS = frozenset(["often", "also", "never", "always", "not", "usually", "frequently"])


def _genitive(after: str) -> tuple[str, int] | None:
    """The noun of a possessive right after a mention ("'s physiologic effect is" ->
    ("physiologic effect", end)), or None."""
    found = _GENITIVE.match(after)
    if found is None:
        return None
    words = found.group(1).split()
    kept = [
        w for i, w in itertools.takewhile(lambda iw: _nominal(iw[1], not iw[0]), enumerate(words))
    ]
    if not kept:
        return None
    noun = " ".join(kept)
    return noun, after.index(noun) + len(noun)


def unlabelled(reading: Reading, *, labels: bool = True) -> Reading:
    """``reading`` with the kind labels right before and right after each entity mention left
    out of ``masked``, and a possessive written as an of-phrase ("[B]'s effect" -> "the effect
    of [B]"), the spans moved accordingly (``text`` and ``raw`` kept as they are). Without
    ``labels`` only the possessives are rewritten (the labels tell the roles of
    :mod:`.roles`)."""
    spans = sorted((span, key) for key, group in reading.found.items() for span in group)
    pieces: list[str] = []
    found: dict[str, list[tuple[int, int]]] = {key: [] for key in reading.found}
    at, length, mention = 0, 0, False  # mention: the text at ``at`` follows a mention
    for (start, stop), key in spans:
        if start < at:
            return reading  # overlapping mentions: leave the sentence as it is
        piece = reading.masked[at:start]
        if mention and labels:
            piece = _AFTER.sub("", piece, count=1)
        if labels:
            piece = _BEFORE.sub("", piece, count=1)
        genitive = _genitive(reading.masked[stop:])
        if genitive is not None:
            article = "" if _ARTICLE_END.search(piece) else "the "
            piece += f"{article}{genitive[0]} of "
        pieces += [piece, reading.masked[start:stop]]
        length += len(piece)
        found[key].append((length, length + stop - start))
        length += stop - start
        at, mention = (stop, True) if genitive is None else (stop + genitive[1], False)
    rest = reading.masked[at:]
    pieces.append(_AFTER.sub("", rest, count=1) if mention and labels else rest)
    masked = "".join(pieces)
    if labels:
        masked, found = _unfronted(masked, found)
    return Reading(reading.raw, reading.text, masked, found)


# a kind or relational label the subject of a fronted clause may carry ("the finding [B]")
_LABEL = (
    rf"(?:{_KIND}|findings?|molecular|abnormal(?:ity|ities)?|cells?|types?|anatomic(?:al)?"
    r"|sites?|morpholog(?:y|ies)|structures?|process(?:es)?|phenotypes?|symptoms?|signs?)"
)
# "In [A], [B] may be present.": a prepositional phrase set before a clause without commas
# whose subject is the other entity (not "For [A], the treatment options include [B]", where
# the phrase goes with a noun)
_FRONTED = re.compile(
    r"^\s*(?P<prep>in|within|for)\s+(?P<art>(?:the|an?)\s+)?(?P<entity>\x1a+)\s*,\s*"
    rf"(?P<clause>(?:(?:the|an?)\s+)?(?:{_LABEL}\s+){{0,3}}\x1a[^,;:()]*?)\s*(?P<end>[.!]?)\s*$",
    re.IGNORECASE,
)


def _unfronted(
    masked: str, found: dict[str, list[tuple[int, int]]]
) -> tuple[str, dict[str, list[tuple[int, int]]]]:
    """A fronted prepositional phrase put back after its clause ("In [A], [B] may be present"
    -> "[B] may be present in [A]"), the spans moved; the sentence as it is otherwise."""
    fronted = _FRONTED.match(masked)
    if fronted is None:
        return masked, found
    lead = f"{fronted.group('clause')} {fronted.group('prep').lower()} {fronted.group('art') or ''}"
    start, clause = fronted.span("entity"), fronted.start("clause")
    moved: dict[str, list[tuple[int, int]]] = {}
    for key, spans in found.items():
        moved[key] = [
            (len(lead), len(lead) + stop - begin)
            if (begin, stop) == start
            else (begin - clause, stop - clause)
            for begin, stop in spans
        ]
        if any(begin < 0 for begin, _stop in moved[key]):
            return masked, found  # a mention outside the clause
    return lead + fronted.group("entity") + fronted.group("end"), {
        key: sorted(spans) for key, spans in moved.items()
    }
