"""Humans vs models: a small cohort and two models with every figure worked out by hand.

The scenario (knowledge base ``kb-a``, 12 true/false statements):
  i0..i7   one fact "aspirin treats headache" under the eight transforms (relation ``treats``,
           so it is one complete knowledge point for joint accuracy);
  i8..i11  four single ``causes`` statements (transforms none, inv, ins, inv+ins).

Answers (C correct, X wrong, A abstained, - not asked), cohort "2026", 2026-03-10:
             i0 i1 i2 i3 i4 i5 i6 i7 | i8 i9 i10 i11
  s1         C  C  C  C  C  C  C  C  | C  C  C   C     12/12
  s2         C  C  C  C  X  C  C  C  | C  A  X   C      9/12
  s3         C  X  C  C  -  -  -  -  | X  C  C   C      6/8
  model/a    C  C  C  C  C  C  C  C  | X  X  C   X      9/12  (latest completed run)
  model/b    C  X  C  X  X  C  C  X  | C  C  X   C      7/12
Noise the filters and rules must remove: s2 answers i4 again a day later (right: a repeat,
dropped), s3 has an ``error`` on i4, s4 of cohort "other" gets everything wrong, s5 of cohort
"2026" answered in January, model/a has an older completed run (all wrong) and a newer run
still running, and model/c only answered an item of knowledge base ``kb-b``.
"""

from __future__ import annotations

import csv
import io
import json
import math
from collections.abc import Iterator
from dataclasses import dataclass
from datetime import UTC, date, datetime

import pytest
from sqlmodel import Session

from quizbot.analysis.comparison import (
    CSV_FIELDS,
    HumansVsModels,
    cohorts,
    comparable_models,
    compare,
)
from quizbot.domain import Outcome, RespondentKind, RunStatus
from quizbot.errors import InputError, NotFoundError
from quizbot.items import StatementItem, StatementSide
from quizbot.transforms import TRANSFORMS, Polarity, Transform, label_for
from storage import Database, open_database
from storage.models import QuizSession
from storage.repo import (
    NewItem,
    NewResponse,
    create_knowledge_base,
    create_run,
    get_or_create_respondent,
    record_responses,
    save_items,
    update_run,
)
from tests.conftest import (
    BACKENDS,
    REQUIRE_PG,
    _create_pg_database,
    _drop_pg_database,
    _pg_unavailable,
)

Z = 1.959963984540054  # the 97.5% normal quantile, written out
MARCH = datetime(2026, 3, 10, 9, 0, tzinfo=UTC)

S1 = "CCCCCCCC" + "CCCC"
S2 = "CCCCXCCC" + "CAXC"
S3 = "CXCC----" + "XCCC"
MA = "CCCCCCCC" + "XXCX"
MB = "CXCXXCCX" + "CCXC"


# --------------------------------------------------------------------------------------------
# Hand formulas, independent of quizbot.analysis.metrics


def hand_wilson(k: int, n: int) -> tuple[float, float]:
    """Wilson score interval straight from the formula."""
    p = k / n
    centre = (p + Z**2 / (2 * n)) / (1 + Z**2 / n)
    half = Z / (1 + Z**2 / n) * math.sqrt(p * (1 - p) / n + Z**2 / (4 * n**2))
    return max(0.0, centre - half), min(1.0, centre + half)


def hand_z_p(k_a: int, n_a: int, k_b: int, n_b: int) -> float:
    """Two-sided p of the pooled two-proportion z-test: 2·(1 − Φ(|z|)) = erfc(|z|/√2)."""
    pooled = (k_a + k_b) / (n_a + n_b)
    se = math.sqrt(pooled * (1 - pooled) * (1 / n_a + 1 / n_b))
    z = (k_b / n_b - k_a / n_a) / se
    return math.erfc(abs(z) / math.sqrt(2))


def hand_cluster(model: str) -> tuple[float, float]:
    """Model − students' accuracy and its p by statsmodels, clustered by respondent and item
    (the largest of the two-way, by-respondent and by-item variances)."""
    import numpy as np
    import statsmodels.api as sm

    y, group, who, what = [], [], [], []
    for r, marks in enumerate([S1, S2, S3, model]):
        for j, mark in enumerate(marks):
            if mark != "-":
                y.append(float(mark == "C"))
                group.append(float(marks is model))
                who.append(r)
                what.append(j)
    ols = sm.OLS(np.array(y), sm.add_constant(np.array(group)))
    fit = ols.fit(cov_type="cluster", cov_kwds={"groups": np.column_stack([who, what])}, use_t=True)
    fits = [fit] + [
        ols.fit(cov_type="cluster", cov_kwds={"groups": g}, use_t=True) for g in (who, what)
    ]
    fit = max(fits, key=lambda f: f.bse[1] if np.isfinite(f.bse[1]) else -1.0)  # the largest
    return float(fit.params[1]), float(fit.pvalues[1])


def hand_mcnemar(b01: int, b10: int) -> float:
    """Exact McNemar: two-sided binomial(b01 + b10, 1/2) tail at min(b01, b10)."""
    n = b01 + b10
    tail: float = sum(math.comb(n, i) for i in range(min(b01, b10) + 1)) / 2**n
    return min(1.0, 2 * tail)


# --------------------------------------------------------------------------------------------
# Building the scenario


@dataclass
class Scenario:
    items: list[str]  # i0..i11 of kb-a
    other_item: str  # the kb-b item
    runs: dict[str, int]  # "a", "a_old", "a_running", "b", "c" -> run id


def statement(kb: str, relation: str, head: str, tail: str, transform: Transform) -> NewItem:
    """A stored statement whose id is its content hash, as generation stores it."""
    label = label_for(Polarity.POSITIVE, transform)
    text = f"{head} {relation} {tail} ({transform.value})"
    side = StatementSide(kb, "", relation, head, tail, Polarity.POSITIVE, "")
    return NewItem(
        id=StatementItem(side, transform, label, text, "").id,
        kind="statement",
        relation=relation,
        head=head,
        tail=tail,
        polarity="positive",
        transform=transform.value,
        label=label,
        text=text,
        generator_version="test",
    )


def kb_a_items() -> list[NewItem]:
    """i0..i7: one fact under the eight transforms; i8..i11: four ``causes`` statements."""
    rows = [statement("kb-a", "treats", "aspirin", "headache", t) for t in TRANSFORMS]
    causes = [
        ("smoking", "lung cancer", Transform.NONE),
        ("alcohol", "cirrhosis", Transform.INV),
        ("asbestos", "mesothelioma", Transform.INS),
        ("hpv", "cervical cancer", Transform.INV_INS),
    ]
    rows += [statement("kb-a", "causes", h, t, tr) for h, t, tr in causes]
    return rows


def new_session(db: Database, respondent_id: int, kb: str, at: datetime) -> int:
    def _do(session: Session) -> int:
        row = QuizSession(respondent_id=respondent_id, kb_name=kb, started_at=at)
        session.add(row)
        session.flush()
        assert row.id is not None
        return row.id

    return db.write(_do)


CODES = {
    "C": Outcome.CORRECT,
    "X": Outcome.INCORRECT,
    "A": Outcome.ABSTAINED,
    "E": Outcome.ERROR,
}


def student(
    db: Database,
    name: str,
    cohort: str,
    items: list[str],
    plan: str,
    at: datetime = MARCH,
    kb: str = "kb-a",
) -> tuple[int, int]:
    """A student answering ``items`` per ``plan`` in one session; returns (respondent, session)."""
    person = get_or_create_respondent(db, RespondentKind.HUMAN, name, cohort=cohort)
    assert person.id is not None
    session_id = new_session(db, person.id, kb, at)
    answer(db, person.id, items, plan, session_id=session_id, at=at)
    return person.id, session_id


def answer(
    db: Database,
    respondent_id: int,
    items: list[str],
    plan: str,
    *,
    session_id: int | None = None,
    run_id: int | None = None,
    at: datetime = MARCH,
) -> None:
    rows = [
        NewResponse(
            item_id=item,
            respondent_id=respondent_id,
            outcome=CODES[code],
            quiz_session_id=session_id,
            run_id=run_id,
            parsed_answer=None if code in "AE" else "true",
            created_at=at,
        )
        for item, code in zip(items, plan, strict=True)
        if code != "-"
    ]
    record_responses(db, rows)


def model_run(
    db: Database, model: str, items: list[str], plan: str, status: RunStatus = RunStatus.COMPLETED
) -> int:
    kind = RespondentKind.MODEL
    respondent = get_or_create_respondent(db, kind, model)
    assert respondent.id is not None
    run = create_run(db, respondent_id=respondent.id, model_requested=model, n_items=len(items))
    assert run.id is not None
    answer(db, respondent.id, items, plan, run_id=run.id)
    update_run(db, run.id, status=status)
    return run.id


def build(db: Database) -> Scenario:
    kb_a = create_knowledge_base(db, "kb-a", version="1", source="test")
    kb_b = create_knowledge_base(db, "kb-b", version="1", source="test")
    assert kb_a.id is not None and kb_b.id is not None
    rows = kb_a_items()
    save_items(db, kb_a.id, rows)
    other = statement("kb-b", "causes", "x", "y", Transform.NONE)
    save_items(db, kb_b.id, [other])
    items = [r.id for r in rows]

    student(db, "s1", "2026", items, S1)
    s2, _ = student(db, "s2", "2026", items, S2)
    s3, s3_session = student(db, "s3", "2026", items, S3)
    # s2 meets i4 again the next day and gets it right: a repeat, must not count.
    later = new_session(db, s2, "kb-a", datetime(2026, 3, 11, 9, 0, tzinfo=UTC))
    answer(db, s2, [items[4]], "C", session_id=later, at=datetime(2026, 3, 11, 9, tzinfo=UTC))
    # s3's answer to i4 failed to reach the server: an error, never scored.
    answer(db, s3, [items[4]], "E", session_id=s3_session)
    # Another cohort, wrong on everything, also answering the kb-b item.
    student(db, "s4", "other", [*items, other.id], "X" * 13)
    # Same cohort, but in January (the last minute of Jan 5 counts for until=Jan 5).
    student(db, "s5", "2026", items, "X" * 12, at=datetime(2026, 1, 5, 23, 59, tzinfo=UTC))

    runs = {
        "a_old": model_run(db, "model/a", items, "X" * 12),
        "a": model_run(db, "model/a", items, MA),
        "a_running": model_run(db, "model/a", items, "A" * 12, status=RunStatus.RUNNING),
        "b": model_run(db, "model/b", items, MB),
        "c": model_run(db, "model/c", [other.id], "C"),
    }
    return Scenario(items, other.id, runs)


@dataclass
class World:
    db: Database
    scenario: Scenario
    result: HumansVsModels  # compare(cohort="2026", since=2026-03-01): s1, s2, s3, a, b


@pytest.fixture(scope="module", params=BACKENDS)
def world(
    request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory
) -> Iterator[World]:
    """The scenario built once per backend; the tests that use it only read.

    A module-scoped twin of the ``db`` fixture (tests/conftest.py): building a database per
    test would spend most of this file's time creating and migrating PostgreSQL databases.
    """
    if request.param == "sqlite":
        url = f"sqlite:///{tmp_path_factory.mktemp('comparison') / 'quizbot.db'}"
    else:
        reason = _pg_unavailable()
        if reason:
            if REQUIRE_PG:
                pytest.fail(reason + " (QUIZBOT_REQUIRE_POSTGRES is set)")
            pytest.skip(reason)
        url = _create_pg_database()
    db = open_database(url)
    try:
        scenario = build(db)
        yield World(db, scenario, compare(db, cohort="2026", since=date(2026, 3, 1)))
    finally:
        db.dispose()
        if request.param != "sqlite":
            _drop_pg_database(url)


def strict_json(result: HumansVsModels) -> dict[str, object]:
    """The result through a strict JSON round trip (NaN or infinity would raise)."""
    out: dict[str, object] = json.loads(json.dumps(result.as_json(), allow_nan=False))
    return out


# --------------------------------------------------------------------------------------------
# Tests


def test_lists_cohorts_and_models(world: World) -> None:
    assert cohorts(world.db) == ["2026", "other"]
    assert comparable_models(world.db) == ["model/a", "model/b", "model/c"]


def test_group_table_by_hand(world: World) -> None:
    scenario, result = world.scenario, world.result
    by_name = {g.group: g for g in result.groups}
    assert [g.group for g in result.groups] == ["students", "model/a", "model/b"]
    assert result.item_ids == tuple(sorted(scenario.items))

    pooled = by_name["students"]
    # correct 12 + 9 + 6 = 27 of 12 + 12 + 8 = 32 (first answers only; error left out)
    assert (pooled.kind, pooled.n_respondents, pooled.n_items) == ("students", 3, 12)
    assert (pooled.accuracy.k, pooled.accuracy.n) == (27, 32)
    assert (pooled.accuracy.low, pooled.accuracy.high) == pytest.approx(hand_wilson(27, 32))
    # one abstention (s2, i9) -> answered 31 of 32
    assert (pooled.answer_rate.k, pooled.answer_rate.n) == (31, 32)
    # joint: s1 all 8 right (1), s2 missed dn (0), s3 has only 4 variants (not counted) -> 1/2
    assert (pooled.joint_accuracy.k, pooled.joint_accuracy.n) == (1, 2)
    assert (pooled.joint_accuracy.low, pooled.joint_accuracy.high) == pytest.approx(
        hand_wilson(1, 2)
    )

    a, b = by_name["model/a"], by_name["model/b"]
    assert (a.run_id, b.run_id) == (scenario.runs["a"], scenario.runs["b"])
    assert (a.accuracy.k, a.accuracy.n, a.joint_accuracy.k, a.joint_accuracy.n) == (9, 12, 1, 1)
    assert (b.accuracy.k, b.accuracy.n, b.joint_accuracy.k, b.joint_accuracy.n) == (7, 12, 0, 1)
    assert a.answer_rate.value == 1.0

    students = {s.group: (s.accuracy.k, s.accuracy.n) for s in result.students}
    assert students == {"s1": (12, 12), "s2": (9, 12), "s3": (6, 8)}
    assert all(s.kind == "student" for s in result.students)


def test_notes_explain_what_was_left_out(world: World) -> None:
    result = world.result
    text = " | ".join(result.notes)
    assert "1 repeat answer(s) of a student to an item left out" in text
    assert "1 student answer(s) with an error outcome" in text
    assert "model/c: no completed run answered any of these items" in text


def test_breakdown_and_heatmap_by_hand(world: World) -> None:
    result = world.result
    cells = {(s.group, s.scope, s.key): (s.accuracy.k, s.accuracy.n) for s in result.breakdown}
    # students, treats: 8 + 7 + 3 = 18 of 8 + 8 + 4 = 20; causes: 4 + 2 + 3 = 9 of 12
    assert cells["students", "relation", "treats"] == (18, 20)
    assert cells["students", "relation", "causes"] == (9, 12)
    # transform none: i0 3/3 and i8 2/3; inv: i1 2/3 and i9 2/3 (s2 abstained)
    assert cells["students", "transform", "none"] == (5, 6)
    assert cells["students", "transform", "inv"] == (4, 6)
    # dn is only i4: s1 right, s2 wrong (s3's error does not count)
    assert cells["students", "transform", "dn"] == (1, 2)
    assert cells["model/a", "relation", "causes"] == (1, 4)
    assert cells["model/b", "transform", "inv+ins"] == (1, 2)  # i3 wrong, i11 right

    names, keys, grid = result.heatmap("relation")
    assert names == ["students", "model/a", "model/b"]
    assert keys == ["causes", "treats"]
    assert grid == [
        pytest.approx([9 / 12, 18 / 20]),
        pytest.approx([1 / 4, 1.0]),
        pytest.approx([3 / 4, 4 / 8]),
    ]
    _, transforms, _ = result.heatmap("transform")
    assert transforms == ["none", "inv", "ins", "inv+ins", "dn", "inv+dn", "ins+dn", "inv+ins+dn"]


def test_model_vs_students_tests_by_hand(world: World) -> None:
    result = world.result
    rows = {(t.b, t.scope, t.key): t for t in result.tests if t.family == "model_vs_students"}
    expected_raw = {
        ("model/a", "overall", ""): hand_cluster(MA)[1],
        # majority per item (i4 is a 1-1 tie, left out): right on all 11 others;
        # model/a wrong on i8, i9, i11 -> b10 = 3, b01 = 0
        ("model/a", "item_majority", ""): hand_mcnemar(0, 3),
        ("model/b", "overall", ""): hand_cluster(MB)[1],
        # model/b wrong on i1, i3, i7, i10 -> b10 = 4
        ("model/b", "item_majority", ""): hand_mcnemar(0, 4),
    }
    # Relations: the model answers 8 ("treats") and 4 ("causes") items, fewer than the 10 a
    # side needs: shown as figures, without a p-value, with the reason.
    for model, relation, k_b, n_b in (
        ("model/a", "treats", 8, 8),
        ("model/a", "causes", 1, 4),
        ("model/b", "treats", 4, 8),
        ("model/b", "causes", 3, 4),
    ):
        row = rows.pop((model, "relation", relation))
        assert row.comparison.p_value is None and row.p_adjusted is None
        assert "fewer than 10 answers" in row.reason
        assert row.comparison.n_b == n_b
        assert row.comparison.accuracy_b == pytest.approx(k_b / n_b)
    assert set(rows) == set(expected_raw)
    for key, p in expected_raw.items():
        assert rows[key].comparison.p_value == pytest.approx(p), key
    assert expected_raw["model/a", "item_majority", ""] == 0.25
    majority = rows["model/a", "item_majority", ""]
    assert majority.comparison.test == "mcnemar_exact"
    assert (majority.comparison.b01, majority.comparison.b10) == (0, 3)
    assert majority.comparison.n_shared == 11
    overall = rows["model/a", "overall", ""]
    assert overall.comparison.test == "cluster_robust_t"
    assert overall.a == "students"
    assert overall.comparison.accuracy_a == pytest.approx(27 / 32)
    assert overall.comparison.difference == pytest.approx(9 / 12 - 27 / 32)
    assert overall.comparison.difference == pytest.approx(hand_cluster(MA)[0])
    assert overall.direction() == "model/a lower than students by 9 points"

    # Benjamini-Hochberg over the eight: sort, m*p/rank, running minimum from the top.
    keys = sorted(expected_raw, key=expected_raw.__getitem__)
    m = len(keys)
    adjusted: dict[tuple[str, str, str], float] = {}
    running = 1.0
    for rank in range(m, 0, -1):
        key = keys[rank - 1]
        running = min(running, expected_raw[key] * m / rank)
        adjusted[key] = running
    for key, p in adjusted.items():
        assert rows[key].p_adjusted == pytest.approx(p), key


def test_model_vs_model_is_mcnemar_on_shared_items(world: World) -> None:
    result = world.result
    (row,) = [t for t in result.tests if t.family == "model_vs_model"]
    assert (row.a, row.b, row.scope) == ("model/a", "model/b", "overall")
    # a wrong & b right: i8, i9, i11 (3); a right & b wrong: i1, i3, i4, i7, i10 (5)
    c = row.comparison
    assert (c.test, c.n_shared, c.b01, c.b10) == ("mcnemar_exact", 12, 3, 5)
    assert c.p_value == pytest.approx(2 * (1 + 8 + 28 + 56) / 256)
    assert row.p_adjusted == pytest.approx(c.p_value)  # a family of one


def test_percentiles_matched_and_pooled(world: World) -> None:
    scenario, result = world.scenario, world.result
    rows = {p.model: p for p in result.percentiles}
    a = rows["model/a"]
    # s1 12 vs 9 (above), s2 9 vs 9 (tie), s3 6 vs 5 on s3's own 8 items (above)
    assert (a.n_students, a.below, a.tied, a.above) == (3, 0, 1, 2)
    assert a.percentile == pytest.approx(100 * 0.5 / 3)
    # pooled: model 9/12 = 0.75 among [1.0, 0.75, 0.75]: 0 strictly below, 2 at or below
    # -> (0% + 66.7%) / 2
    assert a.model_accuracy == pytest.approx(0.75)
    assert a.percentile_pooled == pytest.approx(100 * 2 / 3 / 2)
    assert a.student_accuracies == pytest.approx((0.75, 0.75, 1.0))
    b = rows["model/b"]
    assert (b.below, b.tied, b.above, b.percentile, b.percentile_pooled) == (0, 0, 3, 0.0, 0.0)

    # s3 answered only 8 items: with min_items=9 only s1 (above) and s2 (tie) count.
    strict = compare(world.db, cohort="2026", since=date(2026, 3, 1), min_items=9)
    a9 = next(p for p in strict.percentiles if p.model == "model/a")
    assert a9.n_students == 2
    assert a9.percentile == pytest.approx(25.0)
    assert scenario.runs["a"] == a9.run_id


def test_csv_round_trips(world: World) -> None:
    result = world.result
    rows = list(csv.DictReader(io.StringIO(result.to_csv())))
    assert rows and set(rows[0]) == set(CSV_FIELDS)
    # 3 groups + 3 students, three overall metrics each, then the breakdown rows
    assert len(rows) == 6 * 3 + len(result.breakdown)
    pooled = next(
        r
        for r in rows
        if (r["group"], r["scope"], r["metric"]) == ("students", "overall", "accuracy")
    )
    assert float(pooled["value"]) == pytest.approx(27 / 32)
    assert (float(pooled["low"]), float(pooled["high"])) == pytest.approx(hand_wilson(27, 32))
    assert (pooled["k"], pooled["n"], pooled["group_kind"], pooled["run_id"]) == (
        "27",
        "32",
        "students",
        "",
    )
    treats = next(
        r for r in rows if (r["group"], r["scope"], r["key"]) == ("model/a", "relation", "treats")
    )
    assert (float(treats["value"]), treats["n"], treats["metric"]) == (1.0, "8", "accuracy")
    s3 = next(r for r in rows if (r["group"], r["metric"]) == ("s3", "joint_accuracy"))
    assert (s3["value"], s3["low"], s3["high"], s3["n"]) == ("", "", "", "0")


def test_json_is_strict_and_complete(world: World) -> None:
    result = world.result
    out = strict_json(result)
    assert out["n_items"] == 12
    assert out["filters"] == {
        "item_ids": None,
        "kb": None,
        "cohort": "2026",
        "since": "2026-03-01",
        "until": None,
        "models": [],
        "run_ids": [],
    }
    groups = out["groups"]
    assert isinstance(groups, list)
    assert groups[0]["accuracy"]["value"] == pytest.approx(27 / 32)
    tests = out["tests"]
    assert isinstance(tests, dict)
    assert len(tests["model_vs_students"]) == 8 and len(tests["model_vs_model"]) == 1
    assert {"p_value", "p_adjusted", "difference_interval"} <= set(tests["model_vs_model"][0])
    breakdown = out["breakdown"]
    assert isinstance(breakdown, dict) and set(breakdown) == {"relation", "transform"}


def test_cohort_and_date_filters(world: World) -> None:
    db = world.db
    # No cohort: s4 joins (13 wrong, the kb-b item included as model/c answered it too);
    # s5 stays out by date. 27 of 32 + 0 of 13.
    everyone = compare(db, since=date(2026, 3, 1))
    pooled = everyone.groups[0]
    assert (pooled.n_respondents, pooled.accuracy.k, pooled.accuracy.n) == (4, 27, 45)
    assert [g.group for g in everyone.groups] == ["students", "model/a", "model/b", "model/c"]
    # until is inclusive to the end of the day: only s5, answered 2026-01-05 23:59 UTC.
    january = compare(db, cohort="2026", until=date(2026, 1, 5))
    assert [s.group for s in january.students] == ["s5"]
    assert january.groups[0].accuracy.k == 0
    assert compare(db, cohort="2026", until=date(2026, 1, 4)).groups == ()
    # since is inclusive from the start of the day; s2's repeat on Mar 11 is then a first answer.
    late = compare(db, since=date(2026, 3, 11))
    assert [(s.group, s.accuracy.k, s.accuracy.n) for s in late.students] == [("s2", 1, 1)]


def test_kb_and_item_filters(world: World) -> None:
    db, scenario = world.db, world.scenario
    # kb-b: only s4 answered its item, only model/c answered it.
    other = compare(db, kb="kb-b")
    assert [g.group for g in other.groups] == ["students", "model/c"]
    assert other.item_ids == (scenario.other_item,)
    assert other.groups[0].accuracy.k == 0 and other.groups[1].accuracy.k == 1
    # kb-a leaves out s4's kb-b answer: 27 + 0 of 32 + 12.
    kb_a = compare(db, kb="kb-a", since=date(2026, 3, 1))
    assert (kb_a.groups[0].accuracy.k, kb_a.groups[0].accuracy.n) == (27, 44)
    # Given items: i0, i8, i9 -> s1 3/3, s2 2/3 (i9 abstained), s3 2/3 (i8 wrong)
    chosen = [scenario.items[0], scenario.items[8], scenario.items[9]]
    picked = compare(db, item_ids=chosen, cohort="2026", since=date(2026, 3, 1))
    assert picked.item_ids == tuple(chosen)
    assert (picked.groups[0].accuracy.k, picked.groups[0].accuracy.n) == (7, 9)
    # model/a: i0 right, i8 and i9 wrong
    assert next(g for g in picked.groups if g.group == "model/a").accuracy.k == 1
    # Given items are restricted to the kb, with a note.
    mixed = compare(db, item_ids=[scenario.items[0], scenario.other_item], kb="kb-b")
    assert mixed.item_ids == (scenario.other_item,)
    assert any("not in 'kb-b'" in n for n in mixed.notes)


def test_explicit_models_and_runs(world: World) -> None:
    db, scenario = world.db, world.scenario
    only_b = compare(db, cohort="2026", since=date(2026, 3, 1), models=["model/b"])
    assert [g.group for g in only_b.groups] == ["students", "model/b"]
    # Without a cohort, s4's answer on the kb-b item has no model/a answer beside it.
    only_a = compare(db, since=date(2026, 3, 1), models=["model/a"])
    assert only_a.groups[0].accuracy.n == 44
    assert "1 student answer(s) on items no selected model answered" in only_a.notes
    # An explicit run is used as it is: the old model/a run got everything wrong.
    old = compare(db, cohort="2026", since=date(2026, 3, 1), run_ids=[scenario.runs["a_old"]])
    assert [(g.group, g.run_id, g.accuracy.k) for g in old.groups[1:]] == [
        ("model/a", scenario.runs["a_old"], 0)
    ]
    # Two runs of one model are told apart by run id; a run not completed gets a note.
    both = compare(
        db,
        cohort="2026",
        since=date(2026, 3, 1),
        run_ids=[scenario.runs["a"], scenario.runs["a_running"]],
    )
    labels = [g.group for g in both.groups[1:]]
    assert labels == [
        f"model/a (run {scenario.runs['a']})",
        f"model/a (run {scenario.runs['a_running']})",
    ]
    assert any("running, not completed" in n for n in both.notes)
    with pytest.raises(NotFoundError):
        compare(db, run_ids=[99999])


def test_empty_database_gives_notes_not_errors(db: Database) -> None:
    assert (cohorts(db), comparable_models(db)) == ([], [])
    result = compare(db)
    assert (result.groups, result.tests, result.percentiles, result.item_ids) == ((), (), (), ())
    assert any("no student answers" in n for n in result.notes)
    out = strict_json(result)
    assert out["groups"] == [] and out["breakdown"] == {"relation": [], "transform": []}
    assert result.to_csv().strip() == ",".join(CSV_FIELDS)


def test_no_students_no_models_no_shared_items(world: World) -> None:
    db, scenario = world.db, world.scenario
    # Nobody in this cohort: empty, with the filter named in the note.
    none = compare(db, cohort="nobody")
    assert none.groups == () and none.students == ()
    assert any("cohort 'nobody'" in n for n in none.notes)
    # Items given but no student answered them in range: models still shown, no tests.
    models_only = compare(db, item_ids=scenario.items, cohort="2026", since=date(2026, 4, 1))
    assert [g.group for g in models_only.groups] == ["model/a", "model/b"]
    assert not [t for t in models_only.tests if t.family == "model_vs_students"]
    assert models_only.percentiles == ()
    strict_json(models_only)
    # Students on kb-a, only model/c (kb-b) asked for: nothing shared.
    unshared = compare(db, cohort="2026", since=date(2026, 3, 1), models=["model/c"])
    assert unshared.groups == () and unshared.item_ids == ()
    assert any("model/c: no completed run" in n for n in unshared.notes)
    strict_json(unshared)


def test_no_model_runs_at_all(db: Database) -> None:
    kb = create_knowledge_base(db, "kb-a", version="1", source="test")
    assert kb.id is not None
    rows = kb_a_items()
    save_items(db, kb.id, rows)
    student(db, "s1", "2026", [r.id for r in rows], S1)
    result = compare(db)
    assert result.groups == ()
    assert any("no model has a completed run yet" in n for n in result.notes)


def test_small_overlap_skips_the_paired_test(world: World) -> None:
    db, scenario = world.db, world.scenario
    chosen = scenario.items[:5]  # majority on 4 items (i4 ties): too few for McNemar
    result = compare(db, item_ids=chosen, cohort="2026", since=date(2026, 3, 1))
    scopes = {t.scope for t in result.tests if t.family == "model_vs_students"}
    assert "item_majority" not in scopes and "overall" in scopes
    assert any("no paired test" in n for n in result.notes)
    model_pair = [t for t in result.tests if t.family == "model_vs_model"]
    assert [t.comparison.test for t in model_pair] == ["two_proportion_z"]


def test_bad_input_is_a_user_error(db: Database) -> None:
    with pytest.raises(InputError) as info:
        compare(db, since=date(2026, 3, 2), until=date(2026, 3, 1))
    assert info.value.hint
    with pytest.raises(InputError):
        compare(db, min_items=0)
    with pytest.raises(NotFoundError):
        compare(db, kb="no-such-kb")
    with pytest.raises(NotFoundError):
        compare(db, item_ids=["i1:missing"])


def test_a_later_small_run_does_not_replace_a_full_evaluation(db: Database) -> None:
    """The default run of a model is its most complete finished run on the items, not its
    newest: one small batch or monitor night must not shrink the comparison (12 -> 2 items)."""
    scenario = build(db)
    small = model_run(db, "model/a", scenario.items[:2], "XX")  # newer, two items only
    failed = model_run(db, "model/b", scenario.items, "X" * 12, status=RunStatus.FAILED)
    result = compare(db, cohort="2026", since=date(2026, 3, 1))
    rows = {g.group: g for g in result.groups}
    assert rows["model/a"].accuracy.n == 12 and rows["model/a"].accuracy.k == 9  # run "a"
    assert rows["model/b"].accuracy.k == 7  # the failed newer run is never taken
    chosen = [n for n in result.notes if n.startswith("model/a: run")]
    assert chosen == [
        f"model/a: run {scenario.runs['a']}, the most complete finished run on these items "
        "(12 of 12)"
    ]
    assert str(small) not in " ".join(result.notes)
    with pytest.raises(InputError, match="failed; a failed run is never compared"):
        compare(db, cohort="2026", since=date(2026, 3, 1), run_ids=[failed])
