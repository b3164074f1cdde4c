"""Whose relation a sentence states: the *possessor* of a relational noun.

Many statements name a relation with a noun ("morphology", "biochemical function", "cause",
"treatment") and say whose it is. A rewording may turn the sentence around without changing
whose relation it is, and a role swap changes exactly that:

* ``[A] is (not) the [N] of [B]``: B is the possessor (copula, noun phrase, "of"; "[A]
  activity is the [N] of [B]" too);
* ``The [N] of [B] is (not) [A]`` and ``[B]'s [N] is [A]``: B, the copula inverted;
* ``In [B], the [N] is [A]``: B, set before the clause;
* ``[B] is associated with [A] as its [N]``: B, the owner of "its";
* not ``[A] is inherited / involved in [B]``: a passive verb is no relational noun;
* not ``[A] is a gene product associated with [B]``: a noun phrase of kind nouns only ("gene
  product", "disease", "drug") says what [A] is, not whose relation it is;
* ``[A] is found / occurs in [B]``: B, the container ("Granuloma is found in sarcoidosis"),
  but A when the relation is a place ("[A] has the associated anatomy [B]" = "[A] is found in
  [B]");
* ``[B] has / possesses / exhibits / shows (the [N] (of)) [A]``, with any auxiliary, modal or
  negation before the verb ("[B] does not exhibit [A] as its morphology", "[B] does not possess
  the biochemical function of a [A]"): B, the subject of a verb of having;
* ``[B] functions / acts / serves as [A]``: B, whose function [A] is.

:func:`possessor` reads one of these shapes off the text around the two entities (blanked out
as ``mask`` characters) and returns which entity owns the relation, or None when the sentence
has none of these shapes. The noun phrase holds no preposition but the final "of" (so "is
associated with the development of [B]" is not read), and nothing but the shape stands between
the entities.
"""

from __future__ import annotations

import re

__all__ = ["names_a_place", "possessor"]

_ART = r"(?:(?:the|a|an|any|no|its|their)\s+)?"
# Up to four words of a noun phrase: no negation, no adverb ("is not associated with",
# "is morphologically associated with" are no noun phrases)
_WORD = r"(?!(?:not|no|never)\b|\w+ly\b)[^\W\d_][\w'’-]*\s+"
_NOUNS = rf"(?:{_WORD}){{1,4}}?"
_NOUNS0 = rf"(?:{_WORD}){{0,4}}?"
# "of", or a participle saying the same ("the morphology associated with [B]")
_OF = r"(?:of|(?:associated|linked|related)\s+(?:with|to))"
_BE = r"(?:(?:is|are|(?:may|might|can|could)\s+(?:not\s+)?be)\s+(?:not\s+)?)"
# "[A] is not the associated morphology of [B]"; the entity may carry its head noun ("[A]
# activity is a biochemical function of [B]")
_HEAD_NOUN = r"(?:(?:activity|activities|function|process|gene|protein|cells?|tissue)\s+)?"
_FORWARD = re.compile(
    rf"^\s*{_HEAD_NOUN}{_BE}(?:one\s+of\s+)?{_ART}{_NOUNS}(?:{_OF}|in|within)\s+{_ART}$",
    re.IGNORECASE,
)
# "[A] is a gene product associated with [B]": the noun phrase only says what kind of thing
# [A] is, and "associated with" relates the two; no relational noun, no possessor
_KIND = (
    r"(?:gene|product|protein|enzyme|molecule|drug|medication|medicine|disease|disorder"
    r"|condition|syndrome|cell|tissue|substance|compound|hormone)s?"
)
_KIND_ONLY = re.compile(
    rf"^\s*{_BE}{_ART}(?:{_KIND}\s+){{1,3}}(?:associated|linked|related|connected)\s+(?:with|to)"
    rf"\s+{_ART}$",
    re.IGNORECASE,
)
# "[A] is inherited in [B]", "[A] is involved in [B]": a passive verb, no noun phrase
_PASSIVE = re.compile(
    rf"^\s*{_BE}(?:\w+ly\s+)?[^\W\d_]+(?:ed|en)\s+(?:in|within|of|to)\s+{_ART}$", re.IGNORECASE
)
# "[A] is (an abnormal cell) found in [B]", "[A] is present as a finding in [B]": B has A
_FOUND_IN = re.compile(
    rf"^\s*{_BE}(?:{_ART}{_NOUNS})?(?:(?:mainly|mostly|primarily|chiefly|largely)\s+)?"
    r"(?:(?:found|present|seen|observed|detected|encountered|located|locali[sz]ed|situated"
    r"|expressed)\s+(?:as\s+(?:a|an)\s+(?:[^\W\d_][\w'’-]*\s+){1,3}?)?(?:in|within)"
    r"|locali[sz]ed\s+to)"
    rf"\s+{_ART}$",
    re.IGNORECASE,
)
# "The morphological correlate of [B]" (at the start of its clause) + "is [A]"
_INVERTED_LEAD = re.compile(rf"^\s*{_ART}{_NOUNS}{_OF}\s+{_ART}$", re.IGNORECASE)
_INVERTED_BE = re.compile(rf"^\s*{_BE}{_ART}$", re.IGNORECASE)
_GENITIVE = re.compile(rf"^['’]s?\s+{_NOUNS}{_BE}{_ART}$", re.IGNORECASE)
# "[B] does not exhibit [A]", "[B] may have the associated disease [A]"
_HAVE = re.compile(
    r"^\s*(?:(?:does|do|did|may|might|can|could|will|would|also|often|not|never|\w+n['’]t)\s+)*"
    r"(?:has|have|having|possess(?:es|ing)?|exhibit(?:s|ing)?|shows?|showing|displays?"
    r"|contain(?:s|ing)?|harbou?r(?:s|ing)?|carr(?:y|ies|ying)"
    r"|displaying)\s+"
    rf"(?:{_ART}{_NOUNS0}(?:of\s+{_ART})?)?$",
    re.IGNORECASE,
)
# "[B] functions (biochemically) as [A]": B has A as its function
_ACTS_AS = re.compile(
    r"^\s*(?:(?:does|do|did|may|might|can|could|also|often|not|never|\w+n['’]t)\s+)*"
    rf"(?:functions?|functioning|acts?|acting|serves?|serving)\s+(?:\w+ly\s+)?as\s+{_ART}$",
    re.IGNORECASE,
)
# "[A] may occur in [B]": B has A
_OCCURS_IN = re.compile(
    r"^\s*(?:(?:may|might|can|could|does|do|not|often|also|never)\s+)*"
    rf"(?:occurs?|appears?|arises?|develops?)\s+(?:in|within)\s+{_ART}$",
    re.IGNORECASE,
)
# "In [B], the associated morphology is [A]": B, set before the clause
_IN_LEAD = re.compile(rf"^\s*(?:in|for)\s+{_ART}$", re.IGNORECASE)
_IN_BETWEEN = re.compile(rf"^\s*,\s*{_ART}{_NOUNS}{_BE}{_ART}$", re.IGNORECASE)
# "[B] is associated with [A] as its anatomy": B, the owner of "its"
_ASSOCIATED = re.compile(
    r"^\s*(?:(?:may|might|can|could|does|do|not|also)\s+)*(?:be|is|are)\s+(?:not\s+)?(?:\w+ly\s+)?"
    rf"(?:associated|linked|related|connected)\s+(?:with|to)\s+{_ART}$",
    re.IGNORECASE,
)
_AS_ITS = re.compile(r"^\s*,?\s*as\s+(?:one\s+of\s+)?(?:its|their)\b", re.IGNORECASE)
_PREPOSITIONS = frozenset(
    ["with", "by", "to", "in", "of", "for", "from", "on", "at", "as", "into", "within", "through"]
)
_ARTICLES = frozenset(["the", "a", "an", "any", "no", "its", "their"])
_CLAUSE = re.compile(r"[,;:()\[\]]|\b(?:then|if|when|while|whereas)\b", re.IGNORECASE)


def _plain(phrase: str) -> bool:
    """No preposition in ``phrase`` but its final one (a noun phrase, not a verb's object)."""
    phrase = re.sub(r"\bone\s+of\b", " ", phrase, flags=re.IGNORECASE)  # "one of the effects of"
    words = [w.lower() for w in re.findall(r"[^\W\d_][\w'’-]*", phrase)]
    while words and words[-1] in _ARTICLES:
        words.pop()
    return not any(w in _PREPOSITIONS for w in words[:-1])


# A relational noun of place: its owner is the thing placed ("[A] has the associated anatomy
# [B]", "[A] has the finding site [B]")
_PLACE = re.compile(
    r"\b(?:anatom\w*|sites?|locations?|locali[sz]ations?|compartments?)\b", re.IGNORECASE
)


def names_a_place(masked: str) -> bool:
    """Whether the sentence speaks of a place relation (anatomy, site, location)."""
    return bool(_PLACE.search(masked))


def possessor(
    masked: str, first: tuple[int, int], second: tuple[int, int], *, place: bool = False
) -> int | None:
    """Which of two entity mentions owns the relation the sentence states: 0 for the mention at
    ``first`` (the earlier one), 1 for ``second``, None when no shape of the module docstring
    fits. ``masked`` is the sentence with the entities blanked out; the spans are the mentions'
    (start, stop). With ``place`` (the relation is a place: anatomy, site), "[A] is found /
    occurs in [B]" is owned by the thing found, [A], as "[A] has the anatomy [B]" is."""
    between = masked[first[1] : second[0]]
    lead = _CLAUSE.split(masked[: first[0]])[-1]
    if _KIND_ONLY.match(between):
        return None
    if _FOUND_IN.match(between) or _OCCURS_IN.match(between):
        return 0 if place else 1
    if _PASSIVE.match(between):
        return None
    if _FORWARD.match(between) and _plain(between):
        return 1
    if _HAVE.match(between) and _plain(between):
        return 0
    if _ACTS_AS.match(between):
        return 0
    if _INVERTED_LEAD.match(lead) and _plain(lead) and _INVERTED_BE.match(between):
        return 0
    if _GENITIVE.match(between) and _plain(between):
        return 0
    if _IN_LEAD.match(masked[: first[0]]) and _IN_BETWEEN.match(between) and _plain(between):
        return 0
    if _ASSOCIATED.match(between) and _AS_ITS.match(masked[second[1] :]):
        return 0
    return None
