"""Runner throughput against the shared stub server vs a bare litellm.acompletion loop.

Same prompts, same concurrency, same process: quizbot's ``execute`` (prompt building, retries,
parsing, scoring, one durable database write per response) against the floor of calling
``litellm.acompletion`` in an asyncio loop with a semaphore. Then with 50 ms of server latency
(ideal: concurrency / 50 ms), and with 30% of requests answered 429/500 (every item must end
answered). Usage:

    .venv/bin/python bench/bench_runner.py [--items 2000] [--concurrency 64]
"""

from __future__ import annotations

import argparse
import asyncio
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

import quizbot  # noqa: E402, F401, I001 - first: keeps litellm's import offline
import litellm  # noqa: E402

from quizbot.generate.service import GenerateRequest, prepare  # noqa: E402
from quizbot.evaluation.prompts import build_prompt  # noqa: E402
from quizbot.providers import ModelSettings, get_provider  # noqa: E402
from quizbot.evaluation.runner import RunConfig, execute, prepare_run  # noqa: E402
from storage import open_database  # noqa: E402
from storage.repo import list_responses  # noqa: E402
from tests.helpers.stub import stub_server  # noqa: E402

litellm.suppress_debug_info = True


async def bare(base: str, prompts: list[str], concurrency: int) -> float:
    """The floor: litellm.acompletion for every prompt, nothing else."""
    limit = asyncio.Semaphore(concurrency)

    async def one(text: str) -> None:
        async with limit:
            await litellm.acompletion(
                model="openai/stub", api_base=base, api_key="x", num_retries=0,
                messages=[{"role": "user", "content": text}], max_tokens=16, temperature=0.0,
            )  # fmt: skip

    started = time.perf_counter()
    await asyncio.gather(*(one(p) for p in prompts))
    return time.perf_counter() - started


def quizbot_run(
    db_url: str, base: str, items: list, concurrency: int, attempts: int = 6
) -> tuple[float, int, int]:  # type: ignore[type-arg]
    """quizbot's runner over the same items; returns (seconds, responses, errors)."""
    db = open_database(db_url)
    config = RunConfig(model="openai/stub", concurrency=concurrency, attempts=attempts)
    run_id = prepare_run(db, items, config)
    provider = get_provider(
        "openai/stub", ModelSettings(api_base=base, max_concurrency=concurrency)
    )
    started = time.perf_counter()
    asyncio.run(execute(db, run_id, provider))
    elapsed = time.perf_counter() - started
    responses = list_responses(db, run_id=run_id)
    db.dispose()
    return (
        elapsed,
        len(responses),
        sum(r.outcome == "error" for r in responses),
    )


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--items", type=int, default=2000)
    parser.add_argument("--concurrency", type=int, default=64)
    args = parser.parse_args()
    n, c = args.items, args.concurrency
    with tempfile.TemporaryDirectory() as tmp:
        url = f"sqlite:///{tmp}/bench.db"
        db = open_database(url)
        generation = prepare(db, GenerateRequest(kb="clinical-core", points=(n + 15) // 16, seed=7))
        items = list(generation.items())[:n]
        prompts = [build_prompt(i, style="chat").messages[-1]["content"] for i in items]
        db.dispose()
        print(f"{len(items)} items, concurrency {c}")

        with stub_server("--answer", "true") as base:
            asyncio.run(bare(base, prompts[:100], c))  # warm up litellm and the connection pool
            t_bare = asyncio.run(bare(base, prompts, c))
            t_ours, stored, errors = quizbot_run(url, base, items, c)
        print(
            f"  zero latency: bare litellm {len(prompts) / t_bare:7.0f} req/s ({t_bare:.2f} s); "
            f"quizbot {stored / t_ours:7.0f} req/s ({t_ours:.2f} s), {stored} stored, "
            f"{errors} errors"
        )
        print(f"  ratio quizbot / bare = {t_bare / t_ours:.2f} (goal >= 0.85)")

        with stub_server("--answer", "true", "--latency-ms", "50") as base:
            t_bare50 = asyncio.run(bare(base, prompts, c))
            t_ours50, stored, errors = quizbot_run(url, base, items, c)
        ideal = c / 0.050
        print(
            f"  50 ms latency: ideal {ideal:.0f} req/s; bare {len(prompts) / t_bare50:.0f} req/s; "
            f"quizbot {stored / t_ours50:.0f} req/s ({stored / t_ours50 / ideal:.0%} of ideal)"
        )

        with stub_server("--answer", "true", "--error-rate", "0.3") as base:
            t_fault, stored, errors = quizbot_run(url, base, items, c, attempts=12)
        print(
            f"  30% 429/500: {stored} of {len(items)} stored, {errors} errors left, {t_fault:.1f} s"
        )
    return 0


if __name__ == "__main__":
    sys.exit(main())
