"""Session starts and answers in one process: CPU and wall time per step, no HTTP.

Over a copy of a database seeded by bench/_seed_responses.py (``--database``, a SQLite file; it
is copied, never changed), each of ``--students`` returning students (``student-0001``...):
starts a session (their first start: with the spaced-review backfill of their history), answers
two questions, starts a second session. CPU is ``time.process_time`` of this process (user +
system), which depends much less on what else the machine runs than wall time does.

Before/after: run it twice over the same seeded file, the second time with another checkout
first on ``PYTHONPATH``.

Usage:

    PYTHONPATH=. .venv/bin/python bench/bench_practice_start.py --database seeded.db [--students 20]
"""

from __future__ import annotations

import argparse
import os
import shutil
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import TypeVar

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
os.environ.setdefault("LITELLM_LOCAL_MODEL_COST_MAP", "True")

from bench._seed_responses import student_name
from quizbot.practice import service as practice
from storage import open_database

T = TypeVar("T")


def _timed(fn: Callable[[], T]) -> tuple[T, float, float]:
    cpu, wall = time.process_time(), time.perf_counter()
    result = fn()
    return result, (time.process_time() - cpu) * 1000, (time.perf_counter() - wall) * 1000


def _pct(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, round(q * (len(ordered) - 1)))]


def main() -> int:
    """Run the steps and print CPU and wall p50/p95 per step."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--database", required=True, help="a seeded SQLite file (copied)")
    parser.add_argument("--students", type=int, default=20)
    args = parser.parse_args()
    steps: dict[str, list[tuple[float, float]]] = {
        "first start": [],
        "first answer": [],
        "later answer": [],
        "next start": [],
    }
    with tempfile.TemporaryDirectory(prefix="quizbot-start-") as tmp:
        path = Path(tmp) / "bench.db"
        shutil.copy(args.database, path)
        db = open_database(f"sqlite:///{path}")
        # warm-up: the KB installed and loaded, the planning cache built
        practice.start_session(db, student=student_name(10**6), kb="clinical-core", seed="w")
        for i in range(1, args.students + 1):
            name = student_name(i)
            view, cpu, wall = _timed(
                lambda: practice.start_session(db, student=name, seed=f"a{i}")  # noqa: B023
            )
            steps["first start"].append((cpu, wall))
            for step, text in (("first answer", "true"), ("later answer", "false")):
                question = practice.next_question(db, view.id)
                assert question is not None
                _, cpu, wall = _timed(
                    lambda: practice.answer_and_next(db, view.id, question.id, text)  # noqa: B023
                )
                steps[step].append((cpu, wall))
            _, cpu, wall = _timed(
                lambda: practice.start_session(db, student=name, seed=f"b{i}")  # noqa: B023
            )
            steps["next start"].append((cpu, wall))
        db.dispose()
    load = " ".join(Path("/proc/loadavg").read_text().split()[:3])
    print(f"{args.students} returning students; load average {load}")
    for step, values in steps.items():
        cpu_ms = [v[0] for v in values]
        wall_ms = [v[1] for v in values]
        print(
            f"  {step:13s} CPU p50 {_pct(cpu_ms, 0.5):7.1f} p95 {_pct(cpu_ms, 0.95):7.1f} ms | "
            f"wall p50 {_pct(wall_ms, 0.5):7.1f} p95 {_pct(wall_ms, 0.95):7.1f} ms "
            f"(n={len(values)})"
        )
    return 0


if __name__ == "__main__":
    sys.exit(main())
