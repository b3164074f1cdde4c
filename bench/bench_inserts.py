"""Insert throughput for responses: SQLite (FULL, NORMAL) and PostgreSQL, single and batched.

Every figure comes from this one run, so ratios compare like with like on a noisy machine.
Writes go through the real repository functions (one transaction per call). Usage:

    .venv/bin/python bench/bench_inserts.py [--single 1000] [--batched 20000] [--batch 100]
        [--threads 8] [--postgres postgresql://postgres@127.0.0.1:5432/test]
"""

from __future__ import annotations

import argparse
import sys
import tempfile
import threading
import time
import uuid
from collections.abc import Callable
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

import psycopg  # noqa: E402

from storage import Database, EngineOptions, open_database  # noqa: E402
from storage.models import Outcome  # noqa: E402
from storage.repo import NewResponse, count_responses, record_response, record_responses  # noqa: E402
from tests.helpers.factories import RunFixture, make_run  # noqa: E402


def _responses(fx: RunFixture, start: int, stop: int) -> list[NewResponse]:
    return [
        NewResponse(
            item_id=fx.item_ids[i],
            respondent_id=fx.respondent_id,
            run_id=fx.run_id,
            outcome=Outcome.CORRECT,
            raw_text="True",
            parsed_answer="true",
            parse_reason="keyword 'true'",
            latency_ms=12.0,
            prompt_tokens=50,
            completion_tokens=1,
            total_tokens=51,
            provider_model="bench/model",
        )
        for i in range(start, stop)
    ]


def _timed(label: str, n: int, fn: Callable[[], None], db: Database, run_id: int) -> float:
    before = count_responses(db, run_id=run_id)
    started = time.perf_counter()
    fn()
    elapsed = time.perf_counter() - started
    assert count_responses(db, run_id=run_id) - before == n, f"{label}: rows missing"
    rate = n / elapsed
    print(f"  {label:<34} {n:>7,} rows in {elapsed:6.2f} s  = {rate:>9,.0f} responses/s")
    return rate


def bare_sqlite(path: str, n: int, sync: str) -> float:
    """The floor: the stdlib driver inserting the same rows, one commit each, same pragmas."""
    import sqlite3

    conn = sqlite3.connect(path, isolation_level=None)
    conn.execute("PRAGMA journal_mode=WAL")
    conn.execute(f"PRAGMA synchronous={sync}")
    conn.execute(
        "CREATE TABLE IF NOT EXISTS bare (id INTEGER PRIMARY KEY, item_id TEXT, outcome TEXT,"
        " raw_text TEXT, latency_ms REAL, created_at TEXT, UNIQUE (item_id))"
    )
    started = time.perf_counter()
    for i in range(n):
        conn.execute("BEGIN IMMEDIATE")
        conn.execute(
            "INSERT INTO bare (item_id, outcome, raw_text, latency_ms, created_at)"
            " VALUES (?, 'correct', 'True', 12.0, datetime('now'))",
            (f"i{i}",),
        )
        conn.execute("COMMIT")
    rate = n / (time.perf_counter() - started)
    conn.close()
    print(
        f"  {'bare sqlite3 (1 row/transaction)':<34} {n:>7,} rows            = {rate:>9,.0f} rows/s"
    )
    return rate


def bare_postgres(url: str, n: int) -> float:
    """The floor: psycopg alone, one INSERT and COMMIT per row."""
    with psycopg.connect(url) as conn:
        conn.execute(
            "CREATE TABLE bare (id BIGSERIAL PRIMARY KEY, item_id TEXT UNIQUE, outcome TEXT,"
            " raw_text TEXT, latency_ms REAL, created_at TIMESTAMPTZ)"
        )
        conn.commit()
        started = time.perf_counter()
        for i in range(n):
            conn.execute(
                "INSERT INTO bare (item_id, outcome, raw_text, latency_ms, created_at)"
                " VALUES (%s, 'correct', 'True', 12.0, now()) RETURNING id",
                (f"i{i}",),
            )
            conn.commit()
        rate = n / (time.perf_counter() - started)
    print(
        f"  {'bare psycopg (1 row/transaction)':<34} {n:>7,} rows            = {rate:>9,.0f} rows/s"
    )
    return rate


def bench(db: Database, args: argparse.Namespace) -> dict[str, float]:
    total = args.single + args.batched + args.single
    fx = make_run(db, total, kb_name=f"bench{uuid.uuid4().hex[:6]}")
    rows = _responses(fx, 0, total)
    s0, s1 = 0, args.single
    b1 = s1 + args.batched
    rates: dict[str, float] = {}

    def single() -> None:
        for r in rows[s0:s1]:
            record_response(db, r)

    def batched() -> None:
        for i in range(s1, b1, args.batch):
            record_responses(db, rows[i : min(i + args.batch, b1)])

    def threaded_single() -> None:
        chunk = rows[b1:total]
        per = len(chunk) // args.threads + 1

        def work(part: list[NewResponse]) -> None:
            for r in part:
                record_response(db, r)

        threads = [
            threading.Thread(target=work, args=(chunk[i * per : (i + 1) * per],))
            for i in range(args.threads)
        ]
        for t in threads:
            t.start()
        for t in threads:
            t.join()

    rates["single"] = _timed("single (1 row/transaction)", s1 - s0, single, db, fx.run_id)
    rates["batched"] = _timed(
        f"batched ({args.batch} rows/transaction)", b1 - s1, batched, db, fx.run_id
    )
    rates["threads"] = _timed(
        f"single, {args.threads} threads", total - b1, threaded_single, db, fx.run_id
    )
    return rates


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--single", type=int, default=1000)
    parser.add_argument("--batched", type=int, default=20000)
    parser.add_argument("--batch", type=int, default=100)
    parser.add_argument("--threads", type=int, default=8)
    parser.add_argument("--postgres", default="postgresql://postgres@127.0.0.1:5432/test")
    args = parser.parse_args()

    results: dict[str, dict[str, float]] = {}
    with tempfile.TemporaryDirectory() as tmp:
        for sync in ("FULL", "NORMAL"):
            print(f"SQLite, synchronous={sync}")
            db = open_database(
                f"sqlite:///{tmp}/bench-{sync}.db", EngineOptions(sqlite_synchronous=sync)
            )
            results[f"sqlite-{sync}"] = bench(db, args)
            results[f"sqlite-{sync}"]["bare"] = bare_sqlite(
                f"{tmp}/bare-{sync}.db", args.single, sync
            )
            db.dispose()

    name = f"quizbot_bench_{uuid.uuid4().hex[:8]}"
    try:
        with psycopg.connect(args.postgres, autocommit=True, connect_timeout=3) as conn:
            conn.execute(f'CREATE DATABASE "{name}"')
    except psycopg.Error as exc:
        print(f"PostgreSQL skipped: {exc}".splitlines()[0])
    else:
        try:
            base = args.postgres.rsplit("/", 1)[0].replace("postgresql://", "postgresql+psycopg://")
            print("PostgreSQL")
            db = open_database(f"{base}/{name}")
            results["postgresql"] = bench(db, args)
            db.dispose()
            results["postgresql"]["bare"] = bare_postgres(
                args.postgres.rsplit("/", 1)[0] + "/" + name, args.single
            )
        finally:
            with psycopg.connect(args.postgres, autocommit=True) as conn:
                conn.execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')

    print("\nratios (same run)")
    for backend, r in results.items():
        print(
            f"  {backend:<14} single/bare driver = {r['single'] / r['bare']:5.2f}   "
            f"batched/single = {r['batched'] / r['single']:5.1f}x   "
            f"{args.threads} threads/single = {r['threads'] / r['single']:5.2f}x"
        )
    if "postgresql" in results:
        for kind in ("single", "batched", "threads"):
            ratio = results["sqlite-FULL"][kind] / results["postgresql"][kind]
            print(f"  SQLite(FULL)/PostgreSQL, {kind:<8} = {ratio:5.2f}x")
    return 0


if __name__ == "__main__":
    sys.exit(main())
