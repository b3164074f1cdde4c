"""The practice answer path in one process: separate calls vs one unit of work, in one run.

What the chat does with each answer, timed over the same database, interleaved answer by answer
so both paths share the machine's load:

- ``separate``: ``answer`` then ``next_question`` and ``session_view`` (and, at the end of a
  session, ``second_pass_session``), each opening and committing its own transactions: what the
  Practice tab did before the answer step;
- ``unit``: :func:`quizbot.practice.service.answer_and_next`, the same work in one transaction.

Each answer is timed from the call to the next question being ready (no Gradio, no HTTP), and
the number of commits it caused is counted with an SQLAlchemy event. A session's first answer
is reported apart: for a seeded (returning) student it also backfills the spaced-review cards of
their whole history, once. The database is seeded
first (bench/_seed_responses.py) so students have a history; the simulated students are seeded
ones, and each answers sessions of ``--length`` statements, alternating paths per answer.

Usage:

    .venv/bin/python bench/bench_practice_answer.py [--seed-responses 200000] [--answers 400]
        [--database-url postgresql://...]
"""

from __future__ import annotations

import argparse
import os
import random
import statistics
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
os.environ.setdefault("LITELLM_LOCAL_MODEL_COST_MAP", "True")
os.environ.setdefault("GRADIO_ANALYTICS_ENABLED", "False")

from sqlalchemy import event

from bench._seed_responses import describe, seed_responses, student_name
from quizbot.practice import service as practice
from storage import open_database


def _separate(db: Any, session_id: int, question: Any, text: str) -> Any:
    practice.answer(db, session_id, question.id, text, shown_at=question.shown_at)
    nxt = practice.next_question(db, session_id)
    if nxt is None:
        practice.second_pass_session(db, session_id)
    practice.session_view(db, session_id)
    return nxt


def _unit(db: Any, session_id: int, question: Any, text: str) -> Any:
    return practice.answer_and_next(
        db, session_id, question.id, text, shown_at=question.shown_at
    ).question


def _pct(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, round(q * (len(ordered) - 1)))]


def main() -> int:
    """Run the comparison and print the figures."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seed-responses", type=int, default=200_000)
    parser.add_argument("--answers", type=int, default=400, help="answers per path")
    parser.add_argument("--length", type=int, default=10)
    parser.add_argument("--database-url", default=None)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="quizbot-answer-") as tmp:
        url = args.database_url or f"sqlite:///{Path(tmp) / 'bench.db'}"
        db = open_database(url)
        seeded = seed_responses(db, args.seed_responses)
        print(describe(seeded))
        commits = [0]

        @event.listens_for(db.engine, "commit")
        def _on_commit(_conn: Any) -> None:
            commits[0] += 1

        times: dict[str, list[float]] = {"separate": [], "unit": []}
        firsts: dict[str, list[float]] = {"separate": [], "unit": []}
        per_answer_commits: dict[str, list[int]] = {"separate": [], "unit": []}
        paths = {"separate": _separate, "unit": _unit}
        rng = random.Random(7)
        student = 0
        load_before = os.getloadavg()
        while min(len(v) for v in times.values()) < args.answers:
            student += 1
            view = practice.start_session(
                db, student=student_name(student % max(1, seeded.n_students) + 1),
                kb="clinical-core", length=args.length, seed=f"b{student}",
            )  # fmt: skip
            question = practice.next_question(db, view.id)
            turn = student % 2
            first = True
            while question is not None:
                name = ("separate", "unit")[turn % 2]
                turn += 1
                text = rng.choice(["true", "false", "true", "idk"])
                before_commits = commits[0]
                started = time.perf_counter()
                question = paths[name](db, view.id, question, text)
                took = (time.perf_counter() - started) * 1000
                if first:  # the student's first answer here also backfills their review cards
                    firsts[name].append(took)
                    first = False
                    continue
                times[name].append(took)
                per_answer_commits[name].append(commits[0] - before_commits)
        load_after = os.getloadavg()
        print(
            f"{args.answers}+ answers per path, sessions of {args.length} statements, "
            f"{db.backend}; load average {load_before[0]:.2f} before, {load_after[0]:.2f} after"
        )
        for name in ("separate", "unit"):
            t = times[name]
            print(
                f"  {name:9s} p50 {_pct(t, 0.5):7.1f} ms  p95 {_pct(t, 0.95):7.1f} ms  "
                f"mean {statistics.fmean(t):7.1f} ms  commits per answer "
                f"{statistics.fmean(per_answer_commits[name]):.1f}  (n={len(t)})"
            )
        for name in ("separate", "unit"):
            if firsts[name]:
                f = firsts[name]
                print(
                    f"  {name:9s} first answer of a session (spaced-review backfill of the "
                    f"student's history): p50 {_pct(f, 0.5):.1f} ms  max {max(f):.1f} ms "
                    f"(n={len(f)})"
                )
        sep, uni = times["separate"], times["unit"]
        print(
            f"  ratio separate/unit: p50 {_pct(sep, 0.5) / _pct(uni, 0.5):.2f}x, "
            f"p95 {_pct(sep, 0.95) / _pct(uni, 0.95):.2f}x"
        )
        db.dispose()
    return 0


if __name__ == "__main__":
    sys.exit(main())
