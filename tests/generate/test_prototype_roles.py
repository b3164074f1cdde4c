"""Who is the subject: inversions state a fact from the tail's side, the rest from the head's.

In every row of the pool an inversion (inv, inv+dn, inv+ins, inv+ins+dn) names the tail [Y]
before the head [X], and every other transform names the head first. Swapping [X] and [Y] in any
single template (a wrong fact, with a right-looking sentence) breaks this.
"""

from __future__ import annotations

import pytest

from quizbot.generate.prototypes import default_prototypes
from quizbot.transforms import TRANSFORMS

POOL = default_prototypes()
CASES = sorted((relation, t) for relation, t in POOL.prototypes)


@pytest.mark.parametrize(("relation", "transform"), CASES, ids=[f"{r}-{t}" for r, t in CASES])
def test_the_subject_side_follows_the_transform(relation: str, transform: str) -> None:
    sentence = POOL.render(relation, transform, "HEADENTITY", "TAILENTITY")  # type: ignore[arg-type]
    head_at, tail_at = sentence.index("HEADENTITY"), sentence.index("TAILENTITY")
    if "inv" in transform:
        assert tail_at < head_at, sentence
    else:
        assert head_at < tail_at, sentence


def test_the_pool_covers_every_relation_in_all_eight_ways() -> None:
    relations = {r for r, _ in POOL.prototypes}
    assert len(CASES) == 8 * len(relations) and len(TRANSFORMS) == 8
