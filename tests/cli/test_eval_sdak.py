"""`quizbot eval --prompt sdak --repeats 3` end to end: real HTTP through litellm to the test model
server, answering the SDAK way with seeded noise; the report's figures (each run's SDAK metrics
and mean ± SD over the repeats) are recomputed here from the stored replies; then the reason
review (`quizbot runs review-reasons`) and the accuracy reliability it adds to the report.
"""

from __future__ import annotations

import json
import re
import statistics
from collections import defaultdict
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner

from quizbot.cli import cli
from storage import Database, open_database
from storage.repo import get_run, list_responses
from tests.helpers.oracles import wilson
from tests.helpers.stub import stub_server

pytestmark = pytest.mark.slow


@pytest.fixture
def runner(monkeypatch: pytest.MonkeyPatch, database_url: str) -> CliRunner:
    monkeypatch.setenv("DATABASE_URL", database_url)
    return CliRunner()


@pytest.fixture
def db(database_url: str) -> Iterator[Database]:
    database = open_database(database_url)
    try:
        yield database
    finally:
        database.dispose()


def _items(runner: CliRunner, path: Path) -> dict[str, dict[str, Any]]:
    made = runner.invoke(cli, ["generate", "--kb", "clinical-core", "--points", "4",
                               "--out", str(path)])  # fmt: skip
    assert made.exit_code == 0, made.output
    items = [json.loads(line) for line in path.read_text().splitlines() if line.strip()]
    return {item["id"]: item for item in items}


def _said(raw: str) -> tuple[bool, str]:
    """(verdict at the start?, "true"/"false") of the server's three reply shapes."""
    first = re.match(r"(Correct|Incorrect)\.", raw)
    if first:
        return True, "true" if first.group(1) == "Correct" else "false"
    late = re.match(r"The claim is (correct|incorrect),", raw)
    assert late, raw
    return False, "true" if late.group(1) == "correct" else "false"


def _expected(db: Database, run_id: int, items: dict[str, dict[str, Any]]) -> dict[str, float]:
    """Accuracy and the SDAK figures of one run, from its stored replies, the test's way."""
    replies = {r.item_id: r.raw_text or "" for r in list_responses(db, run_id=run_id)}
    assert len(replies) == len(items)
    right = sum(_said(replies[i])[1] == ("true" if it["label"] else "false")
                for i, it in items.items())  # fmt: skip
    pairs: dict[str, dict[bool, tuple[bool, str]]] = defaultdict(dict)
    for item_id, item in items.items():
        pairs[item["pair_id"]][bool(item["label"])] = _said(replies[item_id])
    n = len(pairs)
    follow = sum(p[True][0] and p[False][0] for p in pairs.values())
    fact = sum(p[True] == (True, "true") for p in pairs.values())
    counter = sum(p[False] == (True, "false") for p in pairs.values())
    both = sum(p[True] == (True, "true") and p[False] == (True, "false") for p in pairs.values())
    wrong = [p for p in pairs.values() if not (p[True] == (True, "true") and
                                                p[False] == (True, "false"))]  # fmt: skip
    off = [p for p in wrong if not (p[True][0] and p[False][0])]
    syco = [p for p in wrong if p not in off and p[True][1] == p[False][1] == "true"]
    return {
        "average_accuracy": right / len(items),
        "sdak.instruction_following": follow / n,
        "sdak.factual_accuracy": fact / n,
        "sdak.counterfactual_accuracy": counter / n,
        "sdak.pair_accuracy": both / n,
        "sdak.errors.not_following": len(off) / len(wrong),
        "sdak.errors.sycophancy": len(syco) / len(wrong),
    }


def test_sdak_repeats_report_mean_and_sd_and_reasons_can_be_reviewed(
    runner: CliRunner, db: Database, tmp_path: Path
) -> None:
    items = _items(runner, tmp_path / "items.jsonl")
    oracle = ["--oracle", str(tmp_path / "items.jsonl"), "--policy", "sdak", "--noise", "0.5"]
    with stub_server(*oracle, "--seed", "11", "--log", str(tmp_path / "calls.jsonl")) as base:
        done = runner.invoke(cli, ["eval", "--model", "openai/stub", "--api-base", base,
                                   "--items", str(tmp_path / "items.jsonl"), "--prompt", "sdak",
                                   "--repeats", "3", "--temperature", "0.7", "--json"])  # fmt: skip
    assert done.exit_code == 0, done.output
    report = json.loads(done.stdout)
    repeats = report["repeats"]
    run_ids = repeats["runs"]
    assert len(run_ids) == 3 and repeats["group"] == run_ids and report["run_id"] == run_ids[0]
    # Every call went over HTTP with the SDAK question, the temperature and room for a reason.
    calls = [json.loads(line) for line in (tmp_path / "calls.jsonl").read_text().splitlines()]
    assert len(calls) == 3 * len(items)
    assert all("Correct or Incorrect" in c["prompt"] and c["temperature"] == 0.7 for c in calls)
    assert {c["max_tokens"] for c in calls} == {160}
    # Each run's own figures, then mean and sample SD over the three, recomputed here.
    per_run = [_expected(db, run_id, items) for run_id in run_ids]
    first = report["sdak"]["metrics"]
    assert first["pair_accuracy"] == pytest.approx(per_run[0]["sdak.pair_accuracy"])
    assert report["metrics"]["average_accuracy"] == pytest.approx(per_run[0]["average_accuracy"])
    for name in per_run[0]:
        values = [run[name] for run in per_run]
        shown = repeats["metrics"][name]
        assert shown["values"] == pytest.approx(values), name
        assert shown["mean"] == pytest.approx(statistics.mean(values)), name
        assert shown["sd"] == pytest.approx(statistics.stdev(values)), name
    # The noise makes the repeats differ, so the SDs are not vacuous.
    assert statistics.stdev(run["sdak.pair_accuracy"] for run in per_run) > 0
    assert all(get_run(db, r).repeat_of == run_ids[0] for r in run_ids[1:])
    text = runner.invoke(cli, ["report", str(run_ids[1])])
    assert text.exit_code == 0, text.output
    acc = repeats["metrics"]["sdak.pair_accuracy"]
    assert f"{acc['mean']:.3f} ± {acc['sd']:.3f}" in text.stdout
    assert "SDAK (paper's definitions)" in text.stdout and "Repeats: mean ± SD" in text.stdout

    # Reason review: a sample of correct verdicts, three marks, reliability in the report.
    run = run_ids[0]
    sampled = runner.invoke(cli, ["runs", "review-reasons", str(run), "--sample", "3", "--json"])
    assert sampled.exit_code == 0, sampled.output
    sample = json.loads(sampled.stdout)["sample"]
    assert len(sample) == 3
    replies = {r.id: r for r in list_responses(db, run_id=run)}
    for entry in sample:
        raw = replies[entry["response_id"]].raw_text or ""
        follows, said = _said(raw)
        assert follows and said == ("true" if entry["label"] else "false")  # a correct verdict
        assert entry["reason"] == raw.split(". ", 1)[1]
    marks = [f"{sample[0]['response_id']}=sound", f"{sample[1]['response_id']}=sound",
             f"{sample[2]['response_id']}=unsound"]  # fmt: skip
    args = ["runs", "review-reasons", str(run), "--by", "dr who"]
    marked = runner.invoke(cli, [*args, *(x for m in marks for x in ("--mark", m))])
    assert marked.exit_code == 0, marked.output
    reliability = json.loads(runner.invoke(cli, ["report", str(run), "--json"]).stdout)["sdak"][
        "accuracy_reliability"
    ]
    assert (reliability["sound"], reliability["reviewed"]) == (2, 3)
    assert reliability["interval"] == pytest.approx(list(wilson(2, 3)))
    # A marked answer is not drawn again; an answer that is no correct verdict cannot be marked.
    again = json.loads(runner.invoke(cli, ["runs", "review-reasons", str(run), "--sample", "500",
                                           "--json"]).stdout)["sample"]  # fmt: skip
    assert not {e["response_id"] for e in again} & {e["response_id"] for e in sample}
    wrong = next(r.id for r in replies.values() if not _said(r.raw_text or "")[0])
    refused = runner.invoke(cli, [*args, "--mark", f"{wrong}=sound"])
    assert refused.exit_code == 65 and "not a correct SDAK verdict" in refused.stderr
    assert "Traceback" not in refused.output


def test_sdak_refuses_what_its_question_cannot_ask(runner: CliRunner, tmp_path: Path) -> None:
    made = runner.invoke(cli, ["generate", "--kb", "clinical-core", "--points", "2", "--format",
                               "choice", "--out", str(tmp_path / "choice.jsonl")])  # fmt: skip
    assert made.exit_code == 0, made.output
    base = ["eval", "--model", "baseline/random", "--prompt", "sdak"]
    choice = runner.invoke(cli, [*base, "--items", str(tmp_path / "choice.jsonl")])
    assert choice.exit_code == 65 and "true/false statements" in choice.stderr
    shots = runner.invoke(cli, [*base, "--kb", "clinical-core", "--points", "2", "--shots", "2"])
    assert shots.exit_code == 65 and "zero-shot" in shots.stderr
    listed = json.loads(runner.invoke(cli, ["runs", "list", "--json"]).stdout)["runs"]
    assert listed == []  # nothing recorded


def test_resume_finishes_every_recorded_repeat_of_the_group(
    runner: CliRunner, db: Database, tmp_path: Path
) -> None:
    """The repeats are recorded before any is asked; `--resume` of the group's first run asks
    every one still unfinished (here: all three, as after a crash before the first answer)."""
    import asyncio

    from quizbot.evaluation.service import EvalSpec, start_repeats
    from quizbot.items import any_item_from_json

    items = [any_item_from_json(i) for i in _items(runner, tmp_path / "items.jsonl").values()]

    async def record() -> list[int]:
        ready = await start_repeats(db, EvalSpec("baseline/always-true"), items, 3)
        for r in ready:
            await r.provider.aclose()
        return [r.run_id for r in ready]

    ids = asyncio.run(record())
    assert [get_run(db, i).status for i in ids] == ["pending"] * 3
    resumed = runner.invoke(cli, ["eval", "--resume", str(ids[0]), "--json"])
    assert resumed.exit_code == 0, resumed.output
    report = json.loads(resumed.stdout)
    assert [get_run(db, i).status for i in ids] == ["completed"] * 3
    accuracy = report["repeats"]["metrics"]["average_accuracy"]
    assert accuracy["values"] == [0.5, 0.5, 0.5] and accuracy["sd"] == 0.0  # 32 of 64 true
    assert report["repeats"]["not_completed"] == []
    again = runner.invoke(cli, ["eval", "--resume", str(ids[2]), "--repeats", "2"])
    assert again.exit_code == 65 and "--repeats goes with a new run" in again.stderr
