"""Humans vs models on open recall items: students' typed lists and two models' answers (over
real HTTP through litellm to the test model server's oracle), compared on mean F1 per aspect and
overall, every figure recomputed here from hand-made F1 values with scipy.

Scenario (clinical-core, 8 recall questions; gold list of n entities per question):
  s1 types the whole gold list                 F1 = 1
  s2 types only the first gold entity           P = 1, R = 1/n, F1 = 2 / (n + 1)
  s3 types "unrelated finding" and the last one P = 1, R = 1/n, F1 = 2 / (n + 1)
     on half the questions, "I do not know" on the others (F1 = 0)
  model/good  oracle policy ``correct``         F1 = 1
  model/half  oracle policy ``bar1``            P = 1, R = h/n, h = ceil(n/2)
("unrelated finding" is unverified: nothing is known of it, so it counts on neither side of
precision.)
"""

from __future__ import annotations

import asyncio
import csv
import io
import json
import math
from collections import defaultdict
from datetime import UTC, datetime
from pathlib import Path

import pytest
from scipy import stats
from sqlmodel import Session

from quizbot.analysis.comparison import compare
from quizbot.domain import RespondentKind
from quizbot.evaluation import EvalSpec, ModelOverrides, evaluate
from quizbot.evaluation.recall import score_recall
from quizbot.generate.service import GenerateRequest, load_any_items, prepare, write
from quizbot.items import RecallItem
from storage import Database
from storage.models import QuizSession
from storage.repo import NewResponse, get_or_create_respondent, record_responses
from tests.helpers.model_server import WRONG_ENTITY
from tests.helpers.stub import stub_server

AT = datetime(2026, 3, 10, 9, 0, tzinfo=UTC)


def _items(db: Database, out: Path) -> list[RecallItem]:
    request = GenerateRequest(kb="clinical-core", format="recall", points=8, seed="cmp")
    write(db, prepare(db, request), out)
    ids = [json.loads(line)["id"] for line in out.read_text().splitlines()]
    items = [i for i in load_any_items(db, ids) if isinstance(i, RecallItem)]
    assert len(items) == 8
    return items


def _typed(student: str, item: RecallItem, index: int) -> str:
    if student == "s1":
        return ", ".join(item.answers)
    if student == "s2":
        return item.answers[0]
    if index % 2 == 0:
        return f"{WRONG_ENTITY}\n{item.answers[-1]}"
    return "I do not know"


def _hand_f1(who: str, item: RecallItem, index: int) -> float:
    n = len(item.answers)
    if who in ("s1", "model/good"):
        return 1.0
    if who == "s2":
        return 2 / (n + 1)
    if who == "s3":
        return 2 / (n + 1) if index % 2 == 0 else 0.0
    h = (n + 1) // 2
    p, r = 1.0, h / n
    return 2 * p * r / (p + r)


def _tier(f1: float) -> str:
    if f1 >= 0.7:
        return "basically correct"
    return "completely wrong" if f1 < 0.25 else "partially correct"


def _session(db: Database, respondent_id: int) -> int:
    def _do(session: Session) -> int:
        row = QuizSession(respondent_id=respondent_id, kb_name="clinical-core", started_at=AT)
        session.add(row)
        session.flush()
        assert row.id is not None
        return row.id

    return db.write(_do)


def _students(db: Database, items: list[RecallItem]) -> None:
    """Store each student's typed answers as the practice stores them (raw text, outcome and
    summary from the one scorer)."""
    for name in ("s1", "s2", "s3"):
        person = get_or_create_respondent(db, RespondentKind.HUMAN, name, cohort="2026")
        assert person.id is not None
        session_id = _session(db, person.id)
        rows = []
        for index, item in enumerate(items):
            text = _typed(name, item, index)
            score = score_recall(item, text)
            rows.append(
                NewResponse(
                    item_id=item.id,
                    respondent_id=person.id,
                    outcome=score.outcome,
                    quiz_session_id=session_id,
                    raw_text=text,
                    parsed_answer=score.summary,
                    parse_reason=score.reason,
                    created_at=AT,
                )
            )
        record_responses(db, rows)


def _model(db: Database, items: list[RecallItem], out: Path, policy: str, model: str) -> int:
    with stub_server("--oracle", str(out), "--policy", policy) as base:
        spec = EvalSpec(
            model=model, max_tokens=256, overrides=ModelOverrides(api_base=base), style="chat"
        )
        summary = asyncio.run(evaluate(db, spec, items))
    assert summary.status == "completed" and summary.errors == 0
    return summary.run_id


def _t_interval(values: list[float]) -> tuple[float, float]:
    mean = sum(values) / len(values)
    low, high = stats.t.interval(0.95, len(values) - 1, loc=mean, scale=stats.sem(values))
    return max(0.0, float(low)), min(1.0, float(high))


@pytest.mark.filterwarnings("ignore:Precision loss")
def test_students_and_models_on_recall_items_match_scipy(db: Database, tmp_path: Path) -> None:
    out = tmp_path / "recall.jsonl"
    items = _items(db, out)
    _students(db, items)
    runs = {
        "model/good": _model(db, items, out, "correct", "openai/good"),
        "model/half": _model(db, items, out, "bar1", "openai/half"),
    }
    result = compare(db, cohort="2026", run_ids=list(runs.values()))

    assert sorted(result.item_ids) == sorted(i.id for i in items)
    assert result.groups == ()  # no true/false or choice answers: no accuracy rows
    index = {item.id: k for k, item in enumerate(items)}
    pooled = [_hand_f1(s, i, index[i.id]) for s in ("s1", "s2", "s3") for i in items]
    labels = {"model/good": "openai/good", "model/half": "openai/half"}
    model_f1 = {
        labels[m]: [_hand_f1(m, i, index[i.id]) for i in items]
        for m in ("model/good", "model/half")
    }

    rows = {(g.group, g.scope, g.key): g for g in result.recall}
    students = rows[("students", "overall", "")]
    assert students.n == len(pooled) == 24 and students.n_respondents == 3
    assert students.f1()["mean"] == pytest.approx(sum(pooled) / len(pooled))
    assert students.f1()["interval"] == pytest.approx(list(_t_interval(pooled)))
    for tier in ("basically correct", "partially correct", "completely wrong"):
        assert students.figures["tiers"][tier]["k"] == [_tier(f) for f in pooled].count(tier)
    for name in ("s1", "s2", "s3"):
        mine = [_hand_f1(name, i, index[i.id]) for i in items]
        assert rows[(name, "overall", "")].f1()["mean"] == pytest.approx(sum(mine) / len(mine))
    half = rows[("openai/half", "overall", "")]
    assert half.f1()["mean"] == pytest.approx(sum(model_f1["openai/half"]) / len(items))
    assert half.run_id == runs["model/half"]

    # Welch per model, overall and per aspect, against scipy on the same numbers; BH over all.
    by_aspect: dict[str, list[RecallItem]] = defaultdict(list)
    for item in items:
        by_aspect[item.aspect].append(item)
    expected: dict[tuple[str, str], tuple[float, float, tuple[float, float]]] = {}
    for label, values in model_f1.items():
        groups = [("", items), *sorted(by_aspect.items())]
        for aspect, chosen in groups:
            xs = [_hand_f1(s, i, index[i.id]) for s in ("s1", "s2", "s3") for i in chosen]
            ys = [values[index[i.id]] for i in chosen]
            if len(xs) < 2 or len(ys) < 2 or (len(set(xs)) == 1 and len(set(ys)) == 1):
                continue
            scipy_result = stats.ttest_ind(ys, xs, equal_var=False)
            ci = scipy_result.confidence_interval(0.95)
            expected[(label, aspect)] = (
                float(scipy_result.statistic),
                float(scipy_result.pvalue),
                (float(ci.low), float(ci.high)),
            )
    tested = {(t.b, t.key): t for t in result.recall_tests if t.p_value is not None}
    assert tested.keys() == expected.keys()
    order = sorted(expected)
    adjusted = stats.false_discovery_control([expected[k][1] for k in order], method="bh")
    for key, p_bh in zip(order, adjusted, strict=True):
        t_value, p_value, interval = expected[key]
        row = tested[key]
        assert row.t == pytest.approx(t_value)
        assert row.p_value == pytest.approx(p_value)
        assert row.p_adjusted == pytest.approx(float(p_bh))
        assert row.difference_interval == pytest.approx(interval)
        assert row.a == "students"
    overall = tested[("openai/half", "")]
    assert overall.difference == pytest.approx(
        sum(model_f1["openai/half"]) / len(items) - sum(pooled) / len(pooled)
    )

    # Strict JSON and the CSV export carry the same figures.
    data = json.loads(json.dumps(result.as_json(), allow_nan=False))
    assert data["recall"]["tiers"] == {"metric": "f1", "low": 0.25, "high": 0.7}
    assert len(data["recall"]["tests"]) == len(result.recall_tests)
    table = list(csv.DictReader(io.StringIO(result.to_csv())))
    f1_row = next(
        r
        for r in table
        if r["group"] == "students" and r["scope"] == "recall" and r["metric"] == "recall_f1"
    )
    assert float(f1_row["value"]) == pytest.approx(sum(pooled) / len(pooled))
    assert float(f1_row["low"]) == pytest.approx(_t_interval(pooled)[0])
    assert f1_row["n"] == "24" and f1_row["k"] == ""
    basic = next(
        r
        for r in table
        if r["group"] == "openai/good"
        and r["scope"] == "recall"
        and r["metric"] == "tier:basically correct"
    )
    assert (basic["k"], basic["n"], float(basic["value"])) == ("8", "8", 1.0)
    aspects = {r["key"] for r in table if r["scope"] == "recall_aspect"}
    assert aspects == set(by_aspect)


def test_recall_tiers_are_one_set_for_everyone(db: Database, tmp_path: Path) -> None:
    """Stricter tiers regrade students and models alike; F1 does not move."""
    out = tmp_path / "recall.jsonl"
    items = _items(db, out)
    _students(db, items)
    run = _model(db, items, out, "bar1", "openai/half")
    strict = compare(db, cohort="2026", run_ids=[run], recall_tiers="f1:0.5:0.99")
    default = compare(db, cohort="2026", run_ids=[run])
    index = {item.id: k for k, item in enumerate(items)}
    for group, who in (("students", None), ("openai/half", "model/half")):
        a = next(g for g in strict.recall if g.group == group and g.scope == "overall")
        b = next(g for g in default.recall if g.group == group and g.scope == "overall")
        assert a.f1()["mean"] == pytest.approx(b.f1()["mean"])
        names = ("s1", "s2", "s3") if who is None else (who,)
        f1s = [_hand_f1(n, i, index[i.id]) for n in names for i in items]
        # Below the low threshold, an answer naming a gold entity and nothing known wrong is
        # still "partially correct" (the tier floor); here only s3's abstentions name none.
        wrong = sum(
            _hand_f1(n, i, index[i.id]) < 0.5 and n == "s3" and index[i.id] % 2 == 1
            for n in names
            for i in items
        )
        assert a.figures["tiers"]["completely wrong"]["k"] == wrong
        assert a.figures["tiers"]["basically correct"]["k"] == sum(f >= 0.99 for f in f1s)
    assert strict.recall_tiers == {"metric": "f1", "low": 0.5, "high": 0.99}
    assert math.isclose(
        next(t for t in strict.recall_tests if t.key == "").p_value or -1,
        next(t for t in default.recall_tests if t.key == "").p_value or -2,
    )
