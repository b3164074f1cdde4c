"""True and false statements in equal numbers inside each wording (issue 24, balance).

Several facts of one disease used to share one false tail that was stated once, so 58.8% of
affirmative statements were true and 41.2% of negated ones: a respondent answering True to
affirmative wording and False to negated wording beat 50% knowing nothing. A generation now draws
another safe negative for the second fact instead of dropping the duplicate.
"""

from __future__ import annotations

from collections import Counter
from functools import cache

from quizbot.generate.negatives import NegativeSampler
from quizbot.generate.points import candidate_points
from quizbot.generate.prototypes import default_prototypes
from quizbot.generate.statements import plan_for, plan_generation, statements
from quizbot.kb.clinical import load_clinical_core
from quizbot.kb.model import KnowledgeBaseData, Triplet


@cache
def _kb() -> KnowledgeBaseData:
    return load_clinical_core()


def _facts() -> list[Triplet]:
    prototypes = default_prototypes()
    return [f for f in candidate_points(_kb()) if prototypes.covers(f.relation)]


def _sharing_pair() -> tuple[Triplet, Triplet]:
    """Two facts of one head and relation whose own negatives are the same tail."""
    sampler = NegativeSampler(_kb(), "0")
    first: dict[tuple[str, str, str | None], Triplet] = {}
    for fact in _facts():
        key = (fact.relation, fact.head, sampler.negative(fact))
        if key[2] is not None and key in first:
            return first[key], fact
        first.setdefault(key, fact)
    raise AssertionError("clinical-core has no two facts sharing a negative")


def test_a_duplicate_negative_is_redrawn_not_dropped() -> None:
    one, two = _sharing_pair()
    sampler = NegativeSampler(_kb(), "0")
    assert plan_for(sampler, one).negative_tail == plan_for(sampler, two).negative_tail
    plans = plan_generation(sampler, [one, two])
    negatives = [p.negative_tail for p in plans]
    assert None not in negatives and negatives[0] != negatives[1]
    assert negatives[0] == plan_for(sampler, one).negative_tail  # the first keeps its own
    made = list(statements(_kb(), plans, default_prototypes(), balanced=True))
    assert len(made) == 32  # both points, each with its true and its false side
    assert (
        len({(m.side.tail, m.transform) for m in made if m.side.polarity.value == "negative"}) == 16
    )


def test_a_balanced_generation_leaves_out_a_point_without_its_false_side() -> None:
    one, two = _sharing_pair()
    sampler = NegativeSampler(_kb(), "0")
    plans = [plan_for(sampler, one), plan_for(sampler, two)]  # the duplicate, not redrawn
    made = list(statements(_kb(), plans, default_prototypes(), balanced=True))
    assert len(made) == 16  # the second point would only add true statements: left out
    legacy = list(statements(_kb(), plans, default_prototypes()))
    assert len(legacy) == 24  # unbalanced: 16 true-side, 8 false-side


def test_every_transform_is_half_true_over_a_full_clinical_core_generation() -> None:
    plans = plan_generation(NegativeSampler(_kb(), "7"), _facts())
    true: Counter[str] = Counter()
    total: Counter[str] = Counter()
    for item in statements(_kb(), plans, default_prototypes(), balanced=True):
        total[item.transform.value] += 1
        true[item.transform.value] += item.label
    assert len(total) == 8
    for name, count in total.items():
        assert 0.49 <= true[name] / count <= 0.51, (name, true[name], count)
    stated = sum(total.values()) // 16
    assert stated >= 0.99 * len(plans)  # redrawn, not dropped: almost every point is stated
