"""Queued runs in process: the entry point's enqueue, requeue and run_shard on PostgreSQL (a
baseline answers, so no worker and no HTTP are needed to check the bookkeeping)."""

from __future__ import annotations

import asyncio

from quizbot.evaluation.runner import Shard
from quizbot.evaluation.service import EvalSpec, enqueue, requeue, run_shard
from quizbot.generate.service import GenerateRequest, prepare
from storage import Database
from storage.jobs import shard_jobs
from storage.repo import count_responses, get_run
from tests.scale.test_queue import POSTGRES_ONLY


def test_shards_cover_every_item_once() -> None:
    ids = [f"i{n}" for n in range(10)]
    parts = [Shard(k, 3).item_ids(ids) for k in range(3)]
    assert [len(p) for p in parts] == [3, 3, 4]
    assert [i for part in parts for i in part] == ids


@POSTGRES_ONLY
def test_a_queued_run_is_finished_by_its_last_shard_and_queued_again_without_duplicates(
    db: Database,
) -> None:
    items = list(prepare(db, GenerateRequest(kb="clinical-core", points=2)).items())
    (run_id,), shards = asyncio.run(enqueue(db, EvalSpec("baseline/random"), items, shards=3))
    assert shards == 3 and get_run(db, run_id).config["queue"] == {"shards": 3}
    jobs = shard_jobs(db, [run_id])
    assert sorted(j.shard for j in jobs) == [0, 1, 2] and {j.status for j in jobs} == {"todo"}
    assert requeue(db, run_id) == ([run_id], 3)  # still waiting: not queued twice
    assert len(shard_jobs(db, [run_id])) == 3

    first = asyncio.run(run_shard(db, run_id, 0, 3))
    assert first.status == "running" and get_run(db, run_id).status == "running"
    again = asyncio.run(run_shard(db, run_id, 0, 3))  # a shard asked twice asks nothing
    assert again.asked == 0 and count_responses(db, run_id=run_id) == len(items) // 3
    asyncio.run(run_shard(db, run_id, 2, 3))
    last = asyncio.run(run_shard(db, run_id, 1, 3))
    assert last.status == "completed" and get_run(db, run_id).status == "completed"
    assert count_responses(db, run_id=run_id) == len(items)


@POSTGRES_ONLY
def test_shards_above_the_item_count_are_capped(db: Database) -> None:
    items = list(prepare(db, GenerateRequest(kb="clinical-core", points=1)).items())[:2]
    (run_id,), shards = asyncio.run(enqueue(db, EvalSpec("baseline/random"), items, shards=5))
    assert shards == 2 and len(shard_jobs(db, [run_id])) == 2
