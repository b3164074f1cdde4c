"""Runner throughput against a local OpenAI-compatible server vs bare loops, in one run.

Same prompts, same concurrency, same server: quizbot's ``execute`` (prompt building, retries,
parsing, scoring, answers stored by one writer as they arrive), run the way ``quizbot eval``
runs it (``prepare_process_for_run()`` first: gc.freeze and the run's collection threshold),
against two floors, each in a clean process of its own:

- a bare ``litellm.acompletion`` loop with a semaphore (litellm as installed, default
  settings): the goal is quizbot / bare >= 1.0;
- a bare ``aiohttp`` loop posting the same JSON: the ceiling for any Python client, to show
  what litellm itself costs.

The three are interleaved ``--rounds`` times so they share the machine's load; medians of wall
time, and the CPU time of the client process (on a shared machine wall time follows the load).
Then one run each with 50 ms of server latency (ideal: concurrency / 50 ms) and with 30% of
requests answered 429/500 (every item must end answered). The server is the shared benchmark
stub (../shared/tools/stub_openai.py) when it is there, else the tests' model server. Usage:

    .venv/bin/python bench/bench_runner.py [--items 2000] [--concurrency 64] [--rounds 3]
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

import quizbot  # noqa: E402, F401, I001 - first: keeps litellm's import offline

from quizbot.generate.service import GenerateRequest, prepare  # noqa: E402
from quizbot.evaluation.prompts import build_prompt  # noqa: E402
from quizbot.providers import ModelSettings, get_provider  # noqa: E402
from quizbot.evaluation.runner import RunConfig, execute, prepare_run  # noqa: E402
from quizbot.cli.evaluate import prepare_process_for_run  # noqa: E402
from storage import open_database  # noqa: E402
from storage.repo import list_responses  # noqa: E402

SHARED_STUB = ROOT.parent / "shared" / "tools" / "stub_openai.py"
TEST_SERVER = ROOT / "tests" / "helpers" / "model_server.py"

# The floors, each run as `python -c FLOOR <kind> <base> <concurrency> <prompts.json>`; they print
# {"wall": s, "cpu": s}. Only quizbot's package import (which keeps litellm offline) and the
# client library are loaded: a script a user would write.
FLOOR = r"""
import asyncio, json, sys, time
import quizbot
kind, base, c, path = sys.argv[1], sys.argv[2], int(sys.argv[3]), sys.argv[4]
prompts = json.load(open(path))
if kind == "litellm":
    import litellm
    litellm.suppress_debug_info = True
    async def loop(texts):
        limit = asyncio.Semaphore(c)
        async def one(text):
            async with limit:
                await litellm.acompletion(
                    model="openai/stub", api_base=base, api_key="x", num_retries=0,
                    messages=[{"role": "user", "content": text}], max_tokens=16, temperature=0.0)
        await asyncio.gather(*(one(t) for t in texts))
else:
    import aiohttp
    async def loop(texts):
        async with aiohttp.ClientSession(connector=aiohttp.TCPConnector(limit=c)) as session:
            limit = asyncio.Semaphore(c)
            async def one(text):
                async with limit:
                    body = {"model": "stub", "messages": [{"role": "user", "content": text}],
                            "max_tokens": 16, "temperature": 0.0}
                    async with session.post(base + "/chat/completions", json=body) as r:
                        (await r.json())["choices"][0]["message"]["content"]
            await asyncio.gather(*(one(t) for t in texts))
asyncio.run(loop(prompts[:100]))
start, cpu = time.perf_counter(), time.process_time()
asyncio.run(loop(prompts))
print(json.dumps({"wall": time.perf_counter() - start, "cpu": time.process_time() - cpu}))
"""


@contextmanager
def server(*args: str) -> Iterator[str]:
    """The benchmark server with ``args``; yields its base URL."""
    script = SHARED_STUB if SHARED_STUB.exists() else TEST_SERVER
    proc = subprocess.Popen(
        [sys.executable, str(script), "--port", "0", *args],
        stdout=subprocess.PIPE,
        stderr=subprocess.DEVNULL,
        text=True,
    )
    try:
        assert proc.stdout is not None
        first: list[str] = []
        reader = threading.Thread(target=lambda: first.append(proc.stdout.readline()))  # type: ignore[union-attr]
        reader.start()
        reader.join(15)
        line = first[0].strip() if first else ""
        if not line.startswith("listening on "):
            raise RuntimeError(f"{script.name} did not start")
        yield f"http://{line.removeprefix('listening on ')}/v1"
    finally:
        proc.terminate()
        proc.wait(10)


def floor(kind: str, base: str, concurrency: int, prompts_file: Path) -> tuple[float, float]:
    """(wall, cpu) seconds of a bare loop over the prompts, in a clean process."""
    done = subprocess.run(
        [sys.executable, "-c", FLOOR, kind, base, str(concurrency), str(prompts_file)],
        capture_output=True,
        text=True,
        check=False,
        cwd=ROOT,
        env={**os.environ, "PYTHONPATH": str(ROOT)},
    )
    if done.returncode != 0:
        raise SystemExit(f"bare {kind} loop failed:\n{done.stderr[-2000:]}")
    found = json.loads(done.stdout.strip().splitlines()[-1])
    return float(found["wall"]), float(found["cpu"])


def quizbot_run(
    db_url: str, base: str, items: list[Any], concurrency: int, attempts: int = 6
) -> tuple[float, float, int, int]:
    """quizbot's runner over the items, as `quizbot eval` runs it: (wall, cpu, stored, errors)."""
    db = open_database(db_url)
    config = RunConfig(model="openai/stub", concurrency=concurrency, attempts=attempts)
    run_id = prepare_run(db, items, config)
    provider = get_provider(
        "openai/stub", ModelSettings(api_base=base, max_concurrency=concurrency)
    )
    prepare_process_for_run()  # as `quizbot eval` does before a run (gc.freeze, threshold)
    started, cpu = time.perf_counter(), time.process_time()
    asyncio.run(execute(db, run_id, provider))
    elapsed, cpu = time.perf_counter() - started, time.process_time() - cpu
    responses = list_responses(db, run_id=run_id)
    db.dispose()
    return elapsed, cpu, len(responses), sum(r.outcome == "error" for r in responses)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--items", type=int, default=2000)
    parser.add_argument("--concurrency", type=int, default=64)
    parser.add_argument("--rounds", type=int, default=3)
    args = parser.parse_args()
    n, c = args.items, args.concurrency
    with tempfile.TemporaryDirectory() as tmp:
        url = f"sqlite:///{tmp}/bench.db"
        db = open_database(url)
        generation = prepare(db, GenerateRequest(kb="clinical-core", points=(n + 15) // 16, seed=7))
        items = list(generation.items())[:n]
        prompts = [build_prompt(i, style="chat").messages[-1]["content"] for i in items]
        db.dispose()
        prompts_file = Path(tmp) / "prompts.json"
        prompts_file.write_text(json.dumps(prompts))
        load_before = os.getloadavg()[0]
        print(f"{len(items)} items, concurrency {c}, {args.rounds} rounds; cpus: {os.cpu_count()}")

        found: dict[str, list[tuple[float, float]]] = {"litellm": [], "aiohttp": [], "quizbot": []}
        with server("--answer", "true") as base:
            quizbot_run(url, base, items[:100], c)  # warm up imports and the connection pool
            for _ in range(args.rounds):
                found["aiohttp"].append(floor("aiohttp", base, c, prompts_file))
                found["litellm"].append(floor("litellm", base, c, prompts_file))
                wall, cpu, stored, errors = quizbot_run(url, base, items, c)
                assert stored == len(items) and errors == 0, (stored, errors)
                found["quizbot"].append((wall, cpu))
        print(f"  load average before {load_before:.2f}, after {os.getloadavg()[0]:.2f} (1 min)")
        med = {
            k: (statistics.median(w for w, _ in v), statistics.median(u for _, u in v))
            for k, v in found.items()
        }
        for kind, label in (
            ("aiohttp", "bare aiohttp loop (ceiling)"),
            ("litellm", "bare litellm.acompletion loop"),
            ("quizbot", "quizbot execute (as quizbot eval)"),
        ):
            wall, cpu = med[kind]
            print(
                f"  {label:<36} {n / wall:6.0f} req/s ({wall:5.2f} s), "
                f"client cpu {cpu * 1000 / n:5.2f} ms/request"
            )
        print(
            f"  ratio quizbot / bare litellm = {med['litellm'][0] / med['quizbot'][0]:.2f} wall, "
            f"{med['litellm'][1] / med['quizbot'][1]:.2f} cpu (goal >= 1.0); "
            f"quizbot / aiohttp ceiling = {med['aiohttp'][0] / med['quizbot'][0]:.2f} wall, "
            f"{med['aiohttp'][1] / med['quizbot'][1]:.2f} cpu"
        )

        with server("--answer", "true", "--latency-ms", "50") as base:
            t_bare50, _ = floor("litellm", base, c, prompts_file)
            t_ours50, _, stored, errors = quizbot_run(url, base, items, c)
        ideal = c / 0.050
        print(
            f"  50 ms latency: ideal {ideal:.0f} req/s; bare {n / t_bare50:.0f} req/s; "
            f"quizbot {stored / t_ours50:.0f} req/s ({stored / t_ours50 / ideal:.0%} of ideal)"
        )

        with server("--answer", "true", "--error-rate", "0.3") as base:
            t_fault, _, stored, errors = quizbot_run(url, base, items, c, attempts=12)
        print(
            f"  30% 429/500: {stored} of {len(items)} stored, {errors} errors left, {t_fault:.1f} s"
        )
    return 0


if __name__ == "__main__":
    sys.exit(main())
