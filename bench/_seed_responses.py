"""Fill a fresh database with a realistic body of answers, fast: the load bench's starting point.

What is seeded, all on clinical-core (the knowledge base the Practice tab offers first):

- the knowledge base and every canonical statement item (each fact x 16 variants), made by the
  same generator and negative seed as practice sessions and ``quizbot generate``, so seeded
  answers point at the very items the simulated students are asked;
- students: human respondents ``student-0001``, ``student-0002``, ... with about
  ``answers_per_student`` answers each (a busy term of practice);
- finished practice sessions of 10, 20 or 30 questions (mostly 10), two variants per fact (one
  from each side of the fact where possible), with a ``config`` shaped like the one
  :func:`quizbot.practice.service.start_session` writes (item ids with their fact keys), so a seeded
  student's history is read by the next ``start_session`` exactly like a real one;
- the answers: each student has an ability between 0.45 and 0.9; an answer is right with that
  probability, "I don't know" with 5 %, wrong otherwise; raw text and parse reason are what
  :func:`quizbot.evaluation.parse.parse_human` says of the typed text; sessions are spread over 180
  days;
- a tenth of the rows are model answers from completed baseline runs (``baseline/always-true``,
  ``baseline/random``, ``baseline/majority``) over random items, with the item as prompt;
- the students' spaced-review cards (``review_cards=True``, the default): in a running
  deployment the answer hook writes a student's FSRS cards as they answer, so a returning
  student's session start finds them built. Answers are seeded in bulk, without the hook, so
  the seeder then runs the very backfill the app runs
  (:func:`quizbot.practice.review_queue.catch_up`, the cards reviewed at each answer's stored
  time) once per student. ``review_cards=False`` leaves them out: a deployment upgraded from
  before spaced review, where each returning student's first start builds their cards from
  their whole history (about 40 ms of CPU for 500 answers), once.

Speed: every row is built as a plain dict (answers from the column set of
:meth:`storage.repo.NewResponse.row`) and written through :meth:`storage.Database.write` with one
executemany per batch of 20,000. Answers do not go through :func:`storage.repo.record_responses`:
it asks for the new ids in parameter order (``RETURNING ... sort_by_parameter_order``), which on
SQLite makes SQLAlchemy send one INSERT per row (under 2,000 rows/s on the 2-core development
machine, against about 15,000 for a plain executemany, which needs no ids back). Respondents,
sessions and runs, whose ids are needed, use the table's ``INSERT ... RETURNING id`` in parameter
order. On SQLite the seeding connection also gets a 1 GB page cache, and the bench opens it with
foreign keys off and checks them all once at the end (:func:`check_references`). Everything is
drawn from one ``random.Random(seed)``, so a given size and seed give the same rows.
"""

from __future__ import annotations

import math
import random
import time
from collections import defaultdict
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from datetime import timedelta
from typing import Any, NamedTuple

from quizbot.evaluation.parse import parse_human
from quizbot.generate.points import candidate_points
from quizbot.generate.prototypes import default_prototypes
from quizbot.generate.service import store_items
from quizbot.generate.statements import plan_points, statements
from quizbot.items import StatementItem
from quizbot.kb.model import point_id
from quizbot.kb.registry import DEFAULT_KB, get_kb
from quizbot.practice.review_queue import sync
from quizbot.practice.service import CANONICAL_SEED, normalise_student, topics
from storage import Database
from storage.models import (
    EvalRun,
    Outcome,
    QuizSession,
    Respondent,
    RespondentKind,
    Response,
    RunStatus,
    SessionStatus,
)
from storage.repo import NewResponse
from storage.types import utcnow

__all__ = [
    "SeedReport",
    "backfill_review_cards",
    "check_references",
    "describe",
    "seed_responses",
    "student_name",
]

MODEL_SHARE = 0.10  # of all seeded rows
IDK_RATE = 0.05
SESSION_LENGTHS = (10, 10, 10, 10, 10, 10, 20, 20, 30)
HISTORY_DAYS = 180
BATCH = 20_000  # answers per transaction
PROGRESS_EVERY = 200_000
SQLITE_CACHE_KIB = 1_000_000  # page cache of the seeding connection
BASELINES = ("baseline/always-true", "baseline/random", "baseline/majority")


def student_name(i: int) -> str:
    """The pseudonym of seeded student ``i`` (1-based); the load bench logs in as these."""
    return f"student-{i:04d}"


@dataclass
class SeedReport:
    """What was seeded and how long each step took (seconds)."""

    n_items: int = 0
    n_students: int = 0
    n_sessions: int = 0
    n_runs: int = 0
    n_human_answers: int = 0
    n_model_answers: int = 0
    review_cards: bool = False  # the students' spaced-review cards were built
    seconds: dict[str, float] = field(default_factory=dict)

    @property
    def n_responses(self) -> int:
        """All seeded answers."""
        return self.n_human_answers + self.n_model_answers

    @property
    def total_seconds(self) -> float:
        """Wall time of the whole seeding."""
        return sum(self.seconds.values())


def _insert_returning_ids(db: Database, model: Any, rows: Sequence[dict[str, Any]]) -> list[int]:
    """Insert rows into ``model``'s table in one transaction; their new ids, in order."""
    if not rows:
        return []
    table = model.__table__
    stmt = table.insert().returning(table.c.id, sort_by_parameter_order=True)
    return db.write(lambda s: [int(i) for i in s.execute(stmt, list(rows)).scalars()])


def _insert_rows(db: Database, model: Any, rows: Sequence[dict[str, Any]]) -> int:
    """Insert rows into ``model``'s table with one executemany in one transaction; how many."""
    if not rows:
        return 0
    stmt = model.__table__.insert()

    def _do(session: Any) -> None:
        if db.backend == "sqlite":
            # SQLite's default 2 MB page cache cannot hold the response indexes of a million
            # rows; with it every random index insert evicts a dirty page into the WAL.
            session.connection().exec_driver_sql(f"PRAGMA cache_size = -{SQLITE_CACHE_KIB}")
        session.execute(stmt, list(rows))

    db.write(_do)
    return len(rows)


def _timed(report: SeedReport, step: str, fn: Callable[[], Any]) -> Any:
    started = time.perf_counter()
    result = fn()
    report.seconds[step] = time.perf_counter() - started
    return result


class _Card(NamedTuple):
    """What seeding needs of an item, computed once (an item's id is a hash)."""

    id: str
    fact: str
    relation: str
    system: str | None
    label: bool
    text: str
    polarity: str
    transform: str


def _pair(variants: Sequence[_Card], rng: random.Random) -> list[_Card]:
    """Two variants of one fact as a session asks them: a random one, then the other side."""
    first = rng.choice(variants)
    others = [
        v for v in variants if v.polarity != first.polarity and v.transform != first.transform
    ] or [v for v in variants if v is not first]
    return [first, rng.choice(others)] if others else [first]


def seed_responses(
    db: Database,
    n_responses: int,
    *,
    answers_per_student: int = 500,
    seed: int = 1,
    review_cards: bool = True,
    progress: Callable[[str], None] = lambda _msg: None,
) -> SeedReport:
    """Seed ``n_responses`` answers (90 % students in practice sessions, 10 % baseline runs).

    ``db`` should be empty or hold only the schema: seeded students are created, not looked up.
    ``review_cards``: build every student's spaced-review cards afterwards, as the answer hook
    would have (see the module docstring). Returns what was written, with the time each step
    took.
    """
    rng = random.Random(seed)
    report = SeedReport()

    # 1. The knowledge base and every canonical statement of it.
    def _items() -> tuple[Any, list[StatementItem]]:
        kb, kb_id = get_kb(db, DEFAULT_KB)
        plans = plan_points(kb, candidate_points(kb), CANONICAL_SEED)
        # Two facts can share a negative statement: keep each item once.
        made = list({i.id: i for i in statements(kb, plans, default_prototypes())}.values())
        store_items(db, kb, kb_id, made)
        return kb, made

    kb, made = _timed(report, "items", _items)
    report.n_items = len(made)
    progress(f"{len(made):,} items of {kb.name} stored")
    systems = {point_id(kb.name, t.relation, t.head, t.tail): t.group for t in kb.triplets}
    items = [
        _Card(i.id, i.fact_id, i.relation, systems.get(i.fact_id), i.label, i.text, i.polarity,
              i.transform)
        for i in made
    ]  # fmt: skip
    by_fact: dict[str, list[_Card]] = defaultdict(list)
    for card in items:
        by_fact[card.fact].append(card)
    facts = sorted(by_fact)
    topic_labels = {t.key: t.label for t in topics(db, kb.name)}

    # Parse reasons exactly as the practice service would record them for the typed text.
    sample = made[0]
    typed = {"true": "True", "false": "False", "idk": "I don't know"}
    reasons = {key: parse_human(text, sample).reason for key, text in typed.items()}

    n_model = round(n_responses * MODEL_SHARE)
    n_human = n_responses - n_model
    n_students = max(1, round(n_human / answers_per_student))
    now = utcnow()

    # 2. Students.
    students = [
        {
            "kind": RespondentKind.HUMAN.value,
            "name": normalise_student(student_name(i)),
            "display_name": student_name(i),
            "cohort": f"year-{1 + i % 5}",
            "meta": {},
            "created_at": now - timedelta(days=HISTORY_DAYS + 1),
        }
        for i in range(1, n_students + 1)
    ]
    student_ids = _timed(
        report, "students", lambda: _insert_returning_ids(db, Respondent, students)
    )
    report.n_students = len(student_ids)

    # 3. Sessions: lengths drawn until the human share is used up, dealt out to students.
    lengths: list[int] = []
    remaining = n_human
    while remaining > 0:
        length = min(rng.choice(SESSION_LENGTHS), remaining)
        lengths.append(length)
        remaining -= length
    owners = [student_ids[i % len(student_ids)] for i in range(len(lengths))]
    rng.shuffle(owners)
    ability = {sid: rng.uniform(0.45, 0.9) for sid in student_ids}
    starts = sorted(
        now - timedelta(seconds=rng.uniform(3600, HISTORY_DAYS * 86400)) for _ in lengths
    )
    session_rows: list[dict[str, Any]] = []
    session_items: list[list[_Card]] = []
    for length, started in zip(lengths, starts, strict=True):
        chosen = rng.sample(facts, math.ceil(length / 2))
        pairs = [_pair(by_fact[f], rng) for f in chosen]
        asked = [p[0] for p in pairs] + [p[1] for p in pairs if len(p) > 1]
        asked = asked[:length]
        entries: list[dict[str, Any]] = [
            {"id": c.id, "fact": c.fact, "relation": c.relation, "system": c.system} for c in asked
        ]
        relations = sorted({c.relation for c in asked})
        labels = {
            key: topic_labels[key]
            for c in asked
            for key in (f"relation:{c.relation}", f"system:{c.system}")
            if key in topic_labels
        }
        session_rows.append(
            {
                "kb_name": kb.name,
                "config": {
                    "version": 1,
                    "kb_version": kb.version,
                    "format": "statement",
                    "length": length,
                    "topic": None,
                    "topic_label": "All topics",
                    "seed": f"{rng.getrandbits(32):08x}",
                    "review": False,
                    "cohort": None,
                    "items": entries,
                    "labels": labels,
                    "relation_labels": {
                        r: kb.relations[r].label if r in kb.relations else r for r in relations
                    },
                    "notes": [],
                },
                "status": SessionStatus.FINISHED.value,
                "started_at": started,
                "finished_at": started + timedelta(seconds=15 * len(asked)),
            }
        )
        session_items.append(asked)
    for row, owner in zip(session_rows, owners, strict=True):
        row["respondent_id"] = owner
    session_ids: list[int] = []

    def _sessions() -> None:
        for start in range(0, len(session_rows), 5000):
            session_ids.extend(
                _insert_returning_ids(db, QuizSession, session_rows[start : start + 5000])
            )

    _timed(report, "sessions", _sessions)
    report.n_sessions = len(session_ids)
    progress(f"{len(student_ids):,} students, {len(session_ids):,} sessions stored")

    # 4. Student answers, in batches. Every row has every column of the repository's own row
    # (NewResponse.row()), so one compiled INSERT serves all of them.
    template = NewResponse(item_id="", respondent_id=0, outcome=Outcome.CORRECT, run_id=0).row()
    template["run_id"] = None

    def _human_answers() -> int:
        written = 0
        batch: list[dict[str, Any]] = []
        for session_id, owner, asked, row in zip(
            session_ids, owners, session_items, session_rows, strict=True
        ):
            p = ability[owner]
            for k, item in enumerate(asked):
                draw = rng.random()
                if draw < IDK_RATE:
                    key, outcome = "idk", Outcome.ABSTAINED
                elif draw < IDK_RATE + p:
                    key, outcome = ("true" if item.label else "false"), Outcome.CORRECT
                else:
                    key, outcome = ("false" if item.label else "true"), Outcome.INCORRECT
                batch.append(
                    {
                        **template,
                        "item_id": item.id,
                        "respondent_id": owner,
                        "outcome": outcome.value,
                        "quiz_session_id": session_id,
                        "raw_text": typed[key],
                        "parsed_answer": key,
                        "parse_reason": reasons[key],
                        "created_at": row["started_at"] + timedelta(seconds=15 * (k + 1)),
                    }
                )
            if len(batch) >= BATCH:
                before = written
                written += _insert_rows(db, Response, batch)
                batch = []
                if written // PROGRESS_EVERY > before // PROGRESS_EVERY:
                    progress(f"  {written:,} student answers")
        written += _insert_rows(db, Response, batch)
        return written

    report.n_human_answers = _timed(report, "student answers", _human_answers)

    # 5. Baseline runs over random items (a run answers an item at most once).
    def _model_answers() -> int:
        if n_model == 0:
            return 0
        n_runs = max(len(BASELINES), math.ceil(n_model / len(items)))
        per_run = [n_model // n_runs + (1 if i < n_model % n_runs else 0) for i in range(n_runs)]
        models = [BASELINES[i % len(BASELINES)] for i in range(n_runs)]
        baseline_rows: list[dict[str, Any]] = [
            {
                "kind": RespondentKind.BASELINE.value,
                "name": name,
                "display_name": name,
                "cohort": None,
                "meta": {},
                "created_at": now - timedelta(days=HISTORY_DAYS + 1),
            }
            for name in BASELINES
        ]
        baseline_ids = dict(
            zip(BASELINES, _insert_returning_ids(db, Respondent, baseline_rows), strict=True)
        )
        run_starts = sorted(
            now - timedelta(seconds=rng.uniform(3600, HISTORY_DAYS * 86400)) for _ in models
        )
        run_rows = [
            {
                "respondent_id": baseline_ids[model],
                "model_requested": model,
                "model_reported": model,
                "config": {"kb": kb.name, "style": "chat", "shots": 0},
                "status": RunStatus.COMPLETED.value,
                "n_items": n,
                "created_at": started,
                "started_at": started,
                "finished_at": started + timedelta(seconds=n / 50),
                "name": f"seeded {model}",
            }
            for model, n, started in zip(models, per_run, run_starts, strict=True)
        ]
        run_ids = _insert_returning_ids(db, EvalRun, run_rows)
        report.n_runs = len(run_ids)
        majority = "true" if 2 * sum(i.label for i in items) >= len(items) else "false"
        written = 0
        for run_id, model, n, started in zip(run_ids, models, per_run, run_starts, strict=True):
            asked = rng.sample(items, n)
            respondent_id = baseline_ids[model]
            for start in range(0, n, BATCH):
                batch = []
                for k, item in enumerate(asked[start : start + BATCH], start=start):
                    if model == "baseline/always-true":
                        said = "true"
                    elif model == "baseline/majority":
                        said = majority
                    else:
                        said = rng.choice(("true", "false"))
                    right = (said == "true") == item.label
                    outcome = Outcome.CORRECT if right else Outcome.INCORRECT
                    batch.append(
                        {
                            **template,
                            "item_id": item.id,
                            "respondent_id": respondent_id,
                            "outcome": outcome.value,
                            "run_id": run_id,
                            "prompt": item.text,
                            "raw_text": said.capitalize(),
                            "parsed_answer": said,
                            "parse_reason": f"baseline answer {said}",
                            "latency_ms": 0.0,
                            "provider_model": model,
                            "created_at": started + timedelta(seconds=k / 50),
                        }
                    )
                written += _insert_rows(db, Response, batch)
        return written

    report.n_model_answers = _timed(report, "model answers", _model_answers)
    progress(
        f"{report.n_human_answers:,} student and {report.n_model_answers:,} model answers stored"
    )
    if review_cards:
        _timed(report, "review cards", lambda: backfill_review_cards(db, student_ids))
        report.review_cards = True
        progress(f"review cards of {len(student_ids):,} students built")
    return report


def backfill_review_cards(db: Database, respondent_ids: Sequence[int]) -> None:
    """Build the spaced-review cards of ``respondent_ids`` from their stored answers with the
    app's own backfill (:func:`quizbot.practice.review_queue.catch_up`): the cards the answer
    hook would have written had each answer been given through the app, at its stored time
    (:func:`~quizbot.practice.review_queue.sync`, which ``catch_up`` runs; a failure raises)."""
    for respondent_id in respondent_ids:
        sync(db, respondent_id)


def check_references(db: Database) -> int:
    """Check every foreign key of the seeded rows (SQLite); raise if any row points nowhere.

    The bench seeds SQLite with foreign keys off (``EngineOptions(sqlite_foreign_keys=False)``),
    which nearly doubles the insert rate; the rows are built from ids just returned, and this
    check proves it. PostgreSQL always enforces them while inserting. Returns rows checked.
    """
    if db.backend != "sqlite":
        return 0

    def _do(session: Any) -> int:
        conn = session.connection()
        broken = conn.exec_driver_sql("PRAGMA foreign_key_check").fetchall()
        if broken:
            raise AssertionError(f"{len(broken)} seeded rows refer to missing rows: {broken[:3]}")
        return int(conn.exec_driver_sql("SELECT count(*) FROM response").scalar_one())

    return db.read(_do)


def analyze_seeded(db: Database) -> bool:
    """Give PostgreSQL's planner statistics of the seeded tables (``ANALYZE``), as autovacuum
    does in a deployment a minute after a bulk load; return whether it ran (not on SQLite,
    whose deployments have no statistics either).

    A server with autovacuum off (the test server here) would otherwise plan every query over
    1 M answers without statistics: a start's ``quiz_session_id IN (...)`` then looks like a
    sixth of the table and is read in parallel (docs/performance.md, Part 17)."""
    if db.backend != "postgresql":
        return False
    with db.engine.connect() as conn:
        conn.execution_options(isolation_level="AUTOCOMMIT").exec_driver_sql("ANALYZE")
    return True


def describe(report: SeedReport) -> str:
    """One paragraph on the seeding, for the bench's output."""
    rate = report.n_responses / report.total_seconds if report.total_seconds else 0.0
    steps = ", ".join(f"{k} {v:.1f} s" for k, v in report.seconds.items())
    return (
        f"seeded {report.n_responses:,} responses ({report.n_human_answers:,} from "
        f"{report.n_students:,} students in {report.n_sessions:,} sessions, "
        f"{report.n_model_answers:,} from {report.n_runs} baseline runs) over "
        f"{report.n_items:,} items in {report.total_seconds:.1f} s = {rate:,.0f} responses/s "
        f"({steps}); "
        + (
            "students' review cards built (returning students, as in a running deployment)"
            if report.review_cards
            else "no review cards (an upgraded deployment: each first start backfills them)"
        )
    )
