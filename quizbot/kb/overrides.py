"""Applying reviewers' corrections (``kb_overrides``) to a knowledge base as it is loaded.

A correction names one triplet (head, relation, tail) of one KB and says either

* ``true_not_negative``: the triplet is true (though the KB does not ask it), so it must never be
  offered as a false statement or a distractor: it joins ``KnowledgeBaseData.extra_truths``;
* ``false_remove``: the KB lists the triplet as a fact but it is wrong: it is dropped from the
  KB's triplets, so it is no knowledge point and no question is made from it;
* ``reviewed_false``: a clinician reviewed the triplet as a candidate negative and found it
  false: it joins ``KnowledgeBaseData.reviewed_false``, the candidates offered first
  (quizbot/generate/candidates.py). A triplet also known true is never taken as reviewed false.

:func:`apply_overrides` is pure; :func:`quizbot.kb.registry.get_kb` applies a KB's stored
overrides every time it loads the KB, so generation, practice and monitors all honour them from
the moment they are stored, with no release. Where corrections come from (the practice chat's
flags, a clinician's review file, the command line) is in docs/knowledge.md.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Iterable

from quizbot.domain import KbOverride, OverrideKind
from quizbot.kb.model import KnowledgeBaseData

__all__ = ["apply_overrides"]


def apply_overrides(kb: KnowledgeBaseData, overrides: Iterable[KbOverride]) -> KnowledgeBaseData:
    """``kb`` corrected by the ``overrides`` of its name (others are ignored); a new object.

    Triplets marked ``false_remove`` are dropped; triplets marked ``true_not_negative`` are added
    to ``extra_truths``, those marked ``reviewed_false`` to ``reviewed_false``. ``kb`` itself is
    never changed (it may be a cached built-in); with no override of this KB it is returned as it
    is.
    """
    wrong: set[tuple[str, str, str]] = set()
    true: set[tuple[str, str, str]] = set()
    reviewed: set[tuple[str, str, str]] = set()
    for o in overrides:
        if o.kb_name != kb.name:
            continue
        key = (o.head, o.relation, o.tail)
        if o.kind == OverrideKind.FALSE_REMOVE:
            wrong.add(key)
        elif o.kind == OverrideKind.TRUE_NOT_NEGATIVE:
            true.add(key)
        elif o.kind == OverrideKind.REVIEWED_FALSE:
            reviewed.add(key)
        else:  # pragma: no cover - the database CHECKs the kind
            raise ValueError(f"unknown override kind {o.kind!r}")
    if not wrong and not true and not reviewed:
        return kb
    kept = (
        tuple(t for t in kb.triplets if (t.head, t.relation, t.tail) not in wrong)
        if wrong
        else kb.triplets
    )
    truths = kb.extra_truths | true
    return dataclasses.replace(
        kb,
        triplets=kept,
        extra_truths=truths,
        reviewed_false=(kb.reviewed_false | reviewed) - truths,
    )
