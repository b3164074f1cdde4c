"""Helpers for the rephrasing validator's tests."""

from __future__ import annotations

from quizbot.generate.rephrase import negation_cues, validate_rephrasing


def verdict_of(statement: str, candidate: str, head: str, tail: str) -> str:
    """The validator's verdict on ``candidate`` as a rephrasing of ``statement``: "accepted" or
    the category of its rejection. The statement counts as negated when it holds an odd number
    of negation cues outside its entities, as the dev data reads it."""
    negated = len(negation_cues(statement, mask=(head, tail))) % 2 == 1
    verdict = validate_rephrasing(statement, candidate, head=head, tail=tail, negated=negated)
    return verdict.category if not verdict.ok else "accepted"
