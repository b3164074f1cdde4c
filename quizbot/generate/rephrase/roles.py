"""Roles by the words around an entity: a drug is *taken*, a disease is *suffered from*.

A role swap puts each entity where the other stood ("Administration of [disease]", "a preventive
effect on [drug]", "the [organelle] gene"). The words right before an entity (up to three, within
its clause, past describing adjectives such as "normal" or "chronic") and the word right after
it say what kind of thing the sentence takes it for:

* ``agent``: something taken or given (a drug, a treatment): "taking", "administration of", "treated
  with", "prevented by", "[X] treatment";
* ``condition``: something suffered, treated or prevented: "suffers from", "diagnosed with",
  "prevent", "treatment of", "effect on", "risk of", "[X] disease", "a genetic basis of";
* ``product``: a gene or what it makes: "gene product", "the gene", "production of", "encoded by",
  "mutations in", "[X] gene", "[X] protein";
* ``function``: what a product does: "functions as", "has biochemical function";
* ``site``: a place: "anatomy", "anatomical site", "lesions in", "located in", "[X] lesions"
  (whatever stands before: "develop skin lesions" does not make the skin a condition);
* ``content``: what is found in a place: "the presence of", "[X] is (not) detected within".

:func:`role_swap` compares the kinds the candidate gives each entity with those the statement gives
it: a kind the statement gives only the *other* entity is a role swap. When the statement names
the kind of one entity only, an agent's partner is a condition (not the other way: "a patient with
[a morphology] suffers from [a disease]" has no agent).
"""

from __future__ import annotations

import re

__all__ = ["kinds_before", "role_kept", "role_swap"]

_BEFORE: tuple[tuple[str, re.Pattern[str]], ...] = tuple(
    (kind, re.compile(r"(?:^|\s)(?:" + pattern + r")\s*$", re.IGNORECASE))
    for kind, pattern in (
        (
            "agent",
            r"tak(?:e|es|ing|en)|administ\w*(?:\s+of)?|dose\s+of|doses\s+of|treated\s+with"
            r"|treatment\s+with|therapy\s+with|(?:prevented|treated|managed|cured)\s+(?:by|with)"
            r"|use\s+of|using|prescrib\w*|receiv\w*|intake\s+of",
        ),
        (
            "condition",
            r"suffer\w*\s+from|diagnos\w*\s+with|afflicted\s+with|prevent\w*|treat|treats|treating"
            r"|treatment\s+(?:of|for)|manag\w*|management\s+of|effect\s+on|impact\s+on"
            r"|(?:protection|protective|protect\w*)\s+against|against|risk\s+of|cases\s+of"
            r"|develop\w*(?:\s+of)?|onset\s+of|symptoms?\s+of|disease|emergence\s+of"
            # "a genetic basis of [X]": [X] is what the gene underlies, not the gene
            r"|(?:genetic|hereditary|heritable)\s+(?:basis|bases|cause|causes|correlates?"
            r"|determinants?|markers?|factors?|predispositions?|components?)\s+(?:of|for|to)",
        ),
        (
            "product",
            r"gene\s+product|the\s+gene|gene|protein|production\s+of|synthesis\s+of|function\s+of"
            r"|expression\s+of|encoded\s+by|produced\s+by"
            # only a gene has mutations, variants or alleles ("mutations in [X]"; not "[X] is
            # mutated in [disease]", nor "variants of [disease]", its subtypes)
            r"|(?:mutations?|alleles?|polymorphisms?)\s+(?:in|of)|variants?\s+in",
        ),
        (
            "function",
            r"(?:function|functions|functioning|acts?|serves?)\s+as|(?:has|have|with)\s+"
            r"(?:biochemical\s+|molecular\s+)?function",
        ),
        (
            "site",
            r"site\s+of\s+origin\s+of|anatomy|anatomic(?:al)?\s+(?:site|structure|location)|lesions?\s+in|located\s+in",
        ),
        # what is found in a place: "[Y] shows the presence of [X]" = "[X] is found in [Y]"
        ("content", r"presence\s+of"),
    )
)
_AFTER: tuple[tuple[str, re.Pattern[str]], ...] = tuple(
    (kind, re.compile(r"^\s*(?:" + pattern + r")\b", re.IGNORECASE))
    for kind, pattern in (
        ("agent", r"treatment|therapy|administration|intake"),
        ("condition", r"disease"),
        ("site", r"(?:['’]s\s+)?anatomic(?:al)?\s+(?:site|structure|location)"),
        ("product", r"gene|protein|production|expression|synthesis"),
        (
            "content",
            r"(?:is|are)\s+(?:not\s+)?(?:\w+ly\s+)?(?:detected|found|present|seen|observed)"
            r"\s+(?:with)?in",
        ),
    )
)
_CLAUSE = re.compile(r"[,;:()\[\]]|\b(?:then|and|or|while|whereas|if|when)\b", re.IGNORECASE)
_ARTICLES = re.compile(r"\b(?:a|an|the|its|their|his|her)\s+", re.IGNORECASE)
_PARTNER = {"agent": "condition", "product": "function"}


# Nouns an entity may modify ("skin lesions"): the words before then qualify the noun, not the
# entity ("develop skin lesions" makes the lesions a condition, the skin still a site)
_MODIFIED = re.compile(r"^\s*(?:lesions?|involvement|damage)\b", re.IGNORECASE)


# Adjectives that describe an entity without saying what role it plays: the role word stands
# before them ("the development of normal [tissue]", "treatment of chronic [disease]")
_DESCRIBING = frozenset(
    [
        "normal",
        "healthy",
        "abnormal",
        "diseased",
        "human",
        "cellular",
        "biological",
        "molecular",
        "chronic",
        "acute",
        "severe",
        "mild",
        "benign",
        "malignant",
        "underlying",
        "existing",
        "pre-existing",
    ]
)


def kinds_before(before: str, after: str) -> set[str]:
    """The kinds the words ``before`` an entity (and the word ``after`` it) give it, past the
    adjectives that only describe it (``_DESCRIBING``)."""
    if _MODIFIED.match(after):
        return {"site"}
    clause = _CLAUSE.split(before)[-1]
    words = _ARTICLES.sub("", clause).split()
    while words and words[-1].lower() in _DESCRIBING:
        words.pop()
    near = " ".join(words[-3:])
    kinds = {kind for kind, pattern in _BEFORE if pattern.search(near)}
    kinds |= {kind for kind, pattern in _AFTER if pattern.match(after)}
    return kinds


def _with_partner(mine: set[str], theirs: set[str]) -> set[str]:
    if mine:
        return mine
    return {_PARTNER[k] for k in theirs if k in _PARTNER}


def role_kept(statement: tuple[set[str], set[str]], candidate: tuple[set[str], set[str]]) -> bool:
    """Whether the candidate gives some entity a kind the statement gives it (positive evidence
    that a change of order kept the roles)."""
    head, tail = statement
    head, tail = _with_partner(head, tail), _with_partner(tail, head)
    return bool(candidate[0] & head) or bool(candidate[1] & tail)


def role_swap(
    statement: tuple[set[str], set[str]], candidate: tuple[set[str], set[str]]
) -> str | None:
    """The kind the candidate gives an entity that the statement gives only the other one
    (``statement`` and ``candidate`` hold the kinds of (head, tail)), or None."""
    head, tail = statement
    head, tail = _with_partner(head, tail), _with_partner(tail, head)
    for now, mine, theirs in ((candidate[0], head, tail), (candidate[1], tail, head)):
        for kind in sorted(now):
            if kind in theirs and kind not in mine:
                return kind
    return None
