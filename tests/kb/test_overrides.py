"""KB overrides: the pure function, and get_kb applying the stored ones (both backends)."""

from __future__ import annotations

from datetime import UTC, datetime

from quizbot.domain import KbOverride, OverrideKind
from quizbot.generate.negatives import NegativeSampler
from quizbot.generate.points import candidate_points
from quizbot.kb.model import KnowledgeBaseData, Relation, Triplet
from quizbot.kb.overrides import apply_overrides
from quizbot.kb.registry import get_kb, install, load_builtin
from storage import Database
from storage.review import NewOverride, add_overrides

SYMPTOM = Relation("has_symptom", "has symptom", "disease", "symptom")


def _kb(name: str = "demo") -> KnowledgeBaseData:
    return KnowledgeBaseData(
        name=name,
        version="1",
        source="test",
        relations={"has_symptom": SYMPTOM},
        triplets=(
            Triplet("gout", "has_symptom", "joint pain"),
            Triplet("asthma", "has_symptom", "wheeze"),
        ),
        extra_truths=frozenset({("gout", "has_symptom", "tophi")}),
    )


def _override(tail: str, kind: OverrideKind, head: str = "asthma", kb: str = "demo") -> KbOverride:
    return KbOverride(
        id=1,
        kb_name=kb,
        head=head,
        relation="has_symptom",
        tail=tail,
        kind=kind,
        note="",
        source="cli",
        created_by="t",
        created_at=datetime(2026, 1, 1, tzinfo=UTC),
    )


def test_false_remove_drops_the_fact_and_true_not_negative_joins_extra_truths() -> None:
    kb = _kb()
    fixed = apply_overrides(
        kb,
        [
            _override("wheeze", OverrideKind.FALSE_REMOVE),
            _override("joint pain", OverrideKind.TRUE_NOT_NEGATIVE),
        ],
    )
    assert [(t.head, t.tail) for t in fixed.triplets] == [("gout", "joint pain")]
    assert fixed.extra_truths == {
        ("gout", "has_symptom", "tophi"),
        ("asthma", "has_symptom", "joint pain"),
    }
    # The input is untouched (it may be a cached built-in).
    assert len(kb.triplets) == 2 and kb.extra_truths == {("gout", "has_symptom", "tophi")}


def test_reviewed_false_joins_the_reviewed_candidates_unless_also_known_true() -> None:
    kb = _kb()
    fixed = apply_overrides(
        kb,
        [
            _override("wheeze", OverrideKind.REVIEWED_FALSE, head="gout"),
            _override("joint pain", OverrideKind.REVIEWED_FALSE),
            _override("joint pain", OverrideKind.TRUE_NOT_NEGATIVE),  # true wins
        ],
    )
    assert fixed.reviewed_false == {("gout", "has_symptom", "wheeze")}
    assert not kb.reviewed_false  # the input is untouched


def test_overrides_of_other_kbs_or_none_leave_the_kb_as_it_is() -> None:
    kb = _kb()
    assert apply_overrides(kb, []) is kb
    other = [_override("wheeze", OverrideKind.FALSE_REMOVE, kb="other")]
    assert apply_overrides(kb, other) is kb


def test_a_false_fact_is_no_longer_a_negative_candidate() -> None:
    kb = _kb()
    gout = kb.triplets[0]
    assert NegativeSampler(kb).negative(gout) == "wheeze"  # the only other tail
    fixed = apply_overrides(kb, [_override("wheeze", OverrideKind.FALSE_REMOVE)])
    assert NegativeSampler(fixed).negative(gout) is None


def test_get_kb_applies_the_stored_overrides_of_that_kb(db: Database) -> None:
    install(db, _kb())
    before, kb_id = get_kb(db, "demo")
    assert ("asthma", "has_symptom", "wheeze") in {
        (t.head, t.relation, t.tail) for t in candidate_points(before)
    }
    add_overrides(
        db,
        [
            NewOverride(
                "demo", "asthma", "has_symptom", "wheeze", OverrideKind.FALSE_REMOVE, "cli"
            ),
            NewOverride(
                "demo", "gout", "has_symptom", "fever", OverrideKind.TRUE_NOT_NEGATIVE, "cli"
            ),
            NewOverride(
                "other", "gout", "has_symptom", "joint pain", OverrideKind.FALSE_REMOVE, "cli"
            ),
        ],
    )
    after, same_id = get_kb(db, "demo")
    assert same_id == kb_id
    points = {(t.head, t.relation, t.tail) for t in candidate_points(after)}
    assert points == {("gout", "has_symptom", "joint pain")}
    assert ("gout", "has_symptom", "fever") in after.extra_truths
    assert NegativeSampler(after).negative(after.triplets[0]) is None


def test_get_kb_corrects_a_built_in_without_changing_its_cached_copy(db: Database) -> None:
    builtin = load_builtin("clinical-core")
    fact = builtin.triplets[0]
    add_overrides(
        db,
        [
            NewOverride(
                "clinical-core",
                fact.head,
                fact.relation,
                fact.tail,
                OverrideKind.FALSE_REMOVE,
                "cli",
            ),
            NewOverride(
                "clinical-core",
                fact.head,
                fact.relation,
                "made-up truth",
                OverrideKind.TRUE_NOT_NEGATIVE,
                "cli",
            ),
        ],
    )
    kb, _ = get_kb(db, "clinical-core")
    assert fact not in kb.triplets and len(kb.triplets) == len(builtin.triplets) - 1
    assert (fact.head, fact.relation, "made-up truth") in kb.extra_truths
    assert fact in load_builtin("clinical-core").triplets
