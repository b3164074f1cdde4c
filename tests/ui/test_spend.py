"""Per-account model-call limits in the app (quizbot.spend), on both backends, with real HTTP.

The models are quizbot's own test model server (tests/helpers/model_server.py) reached through
litellm; its request log (``--log``) says how many calls really reached it, independently of the
counts quizbot keeps. The UTC day is moved with QUIZBOT_CLOCK_FILE.
"""

from __future__ import annotations

import asyncio
import json
import threading
from collections.abc import Iterator
from dataclasses import dataclass
from datetime import UTC, date, datetime, timedelta
from pathlib import Path
from typing import Any

import pytest

from quizbot import accounts, spend
from quizbot.config import Settings, load_settings
from quizbot.domain import AuditEntry, Role
from quizbot.ui import ask
from quizbot.ui.context import UiContext
from quizbot.ui.identity import LOCAL, Viewer
from storage import Database
from storage import spend as store
from storage.repo import list_responses, list_runs
from tests.helpers.stub import stub_server

MODELS = ["openai/one", "openai/two"]
INSTRUCTOR = Viewer("ins", Role.INSTRUCTOR)
ADMIN = Viewer("adm", Role.ADMIN)
DAY = datetime(2026, 11, 24, 23, 50, tzinfo=UTC)


@dataclass
class Env:
    """A database with two accounts, a running model server and a clock file."""

    db: Database
    stub: str
    log: Path
    clock: Path
    home: Path

    def settings(self, **limits: Any) -> Settings:
        return load_settings(
            home=str(self.home),
            database_url=self.db.url,
            models=MODELS,
            model_settings={"openai/*": {"api_base": self.stub}},
            **limits,
        )

    def ctx(self, **limits: Any) -> UiContext:
        return UiContext(self.settings(**limits), self.db)

    def requests(self) -> int:
        """Calls that reached the model server (its own log, one line per request)."""
        if not self.log.exists():
            return 0
        lines = self.log.read_text(encoding="utf-8").splitlines()
        return sum(1 for line in lines if "completions" in json.loads(line).get("path", ""))

    def set_clock(self, moment: datetime) -> None:
        self.clock.write_text(moment.isoformat(), encoding="utf-8")


@pytest.fixture
def env(db: Database, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[Env]:
    accounts.create_user(db, "ins", "instructor", "instructor password 1")
    accounts.create_user(db, "adm", "admin", "admin password 123")
    log = tmp_path / "requests.jsonl"
    clock = tmp_path / "clock"
    clock.write_text(DAY.isoformat(), encoding="utf-8")
    monkeypatch.setenv("QUIZBOT_CLOCK_FILE", str(clock))  # quizbot's one clock reads it
    with stub_server("--answer", "true", "--log", str(log)) as stub:
        yield Env(db, stub, log, clock, tmp_path / "home")


def _ask(ctx: UiContext, viewer: Viewer, text: str, *, cache: bool = False) -> list[Any]:
    item = ask.custom_statement(text, True)
    return asyncio.run(ask.ask_models(ctx, item, MODELS, use_cache=cache, viewer=viewer))


def _limit_entries(db: Database, actor: str) -> list[AuditEntry]:
    return [e for e in accounts.audit_log(db, limit=500, actor=actor) if e.action == "model.limit"]


def test_the_day_limit_refuses_clearly_and_resets_at_midnight_utc(env: Env) -> None:
    ctx = env.ctx(max_model_calls_per_day=5)
    _ask(ctx, INSTRUCTOR, "Insulin lowers blood glucose.")
    _ask(ctx, INSTRUCTOR, "Metformin treats type 2 diabetes.")
    assert env.requests() == 4
    with pytest.raises(spend.SpendLimitError) as refused:  # 4 used + 2 needed > 5
        _ask(ctx, INSTRUCTOR, "Aspirin inhibits platelets.")
    assert refused.value.message == ("limit of 5 model calls per day reached; resets at 00:00 UTC")
    assert "4 used today and this needs 2" in str(refused.value)
    assert env.requests() == 4  # nothing was asked
    (entry,) = _limit_entries(env.db, "ins")
    assert not entry.ok and entry.target == "question" and "limit of 5" in entry.detail
    # an admin is not limited by default; the instructor's count is theirs alone
    for n in range(3):
        _ask(ctx, ADMIN, f"Statement {n} for the admin.")
    assert env.requests() == 10
    # the local user (no accounts) is the operator: not limited, not counted
    _ask(ctx, LOCAL, "A local statement.")
    assert env.requests() == 12
    assert store.calls_on(env.db, "", DAY.date()) == 0
    # ten minutes later it is the next UTC day: the count starts again
    env.set_clock(DAY + timedelta(minutes=10))
    _ask(ctx, INSTRUCTOR, "Aspirin inhibits platelets.")
    assert env.requests() == 14
    assert store.calls_on(env.db, "ins", DAY.date()) == 4
    assert store.calls_on(env.db, "ins", (DAY + timedelta(minutes=10)).date()) == 2


def test_answers_from_the_cache_and_baselines_cost_nothing(env: Env) -> None:
    ctx = env.ctx(max_model_calls_per_day=4)  # room to reserve a second ask, then give it back
    _ask(ctx, INSTRUCTOR, "Insulin lowers blood glucose.", cache=True)
    before = env.requests()
    assert before == 2 == spend.used_today(env.db, ctx.settings, "ins")
    # the same question again comes from the call cache: no request, the calls are given back
    answers = _ask(ctx, INSTRUCTOR, "Insulin lowers blood glucose.", cache=True)
    assert all(a.cached for a in answers) and env.requests() == before
    assert spend.used_today(env.db, ctx.settings, "ins") == 2
    item = ask.custom_statement("Anything.", True)
    baselines = ["baseline/always-true", "baseline/random"]
    for _ in range(5):
        asyncio.run(ask.ask_models(ctx, item, baselines, viewer=INSTRUCTOR))
    assert spend.used_today(env.db, ctx.settings, "ins") == 2


def test_a_batch_too_large_is_refused_before_any_call(env: Env) -> None:
    small = env.ctx(max_batch_calls=3)
    with pytest.raises(spend.SpendLimitError) as refused:
        asyncio.run(ask.run_batch(small, MODELS, kb="clinical-core", points=2, viewer=INSTRUCTOR))
    assert refused.value.message.startswith("a batch may make at most 3 model calls")
    assert env.requests() == 0 and list_runs(env.db) == []
    assert spend.used_today(env.db, small.settings, "ins") == 0
    assert _limit_entries(env.db, "ins")[0].target == "batch"
    # the same batch within the limits: the calls counted are the requests the server saw
    roomy = env.ctx(max_batch_calls=10_000)
    run_ids, failures = asyncio.run(
        ask.run_batch(roomy, MODELS, kb="clinical-core", points=2, seed="7", viewer=INSTRUCTOR)
    )
    assert failures == [] and len(run_ids) == 2
    stored = sum(len(list_responses(env.db, run_id=r)) for r in run_ids)
    assert stored == env.requests() == spend.used_today(env.db, roomy.settings, "ins") > 3


def test_a_model_that_cannot_start_gives_its_calls_back(env: Env) -> None:
    settings = load_settings(
        home=str(env.home),
        database_url=env.db.url,
        models=MODELS,
        model_settings={
            "openai/one": {"api_base": env.stub},
            "openai/nokey": {"api_base": env.stub, "api_key_env": "QB_TEST_MISSING_KEY"},
        },
    )
    ctx = UiContext(settings, env.db)
    run_ids, failures = asyncio.run(
        ask.run_batch(
            ctx, ["openai/one", "openai/nokey"], kb="clinical-core", points=1, viewer=INSTRUCTOR
        )
    )
    assert len(run_ids) == 1 and len(failures) == 1 and "openai/nokey" in failures[0]
    asked = len(list_responses(env.db, run_id=run_ids[0]))
    assert asked == env.requests() == spend.used_today(env.db, settings, "ins")


def test_concurrent_batches_never_overshoot_the_day_limit(env: Env) -> None:
    # how many calls one batch makes, measured on an admin account (not limited)
    probe = env.ctx()
    ids, _ = asyncio.run(
        ask.run_batch(probe, MODELS[:1], kb="clinical-core", points=1, seed="3", viewer=ADMIN)
    )
    per_batch = len(list_responses(env.db, run_id=ids[0]))
    assert per_batch == env.requests() > 0
    # room for two such batches and a half: of four at once, exactly two may run
    ctx = env.ctx(max_model_calls_per_day=2 * per_batch + per_batch // 2)

    async def four() -> list[Any]:
        return await asyncio.gather(
            *(
                ask.run_batch(ctx, MODELS[:1], kb="clinical-core", points=1, seed="3",
                              viewer=INSTRUCTOR)
                for _ in range(4)
            ),
            return_exceptions=True,
        )  # fmt: skip

    results = asyncio.run(four())
    refused = [r for r in results if isinstance(r, spend.SpendLimitError)]
    done = [r for r in results if not isinstance(r, BaseException)]
    assert (len(done), len(refused)) == (2, 2), results
    assert env.requests() == 3 * per_batch
    assert spend.used_today(env.db, ctx.settings, "ins") == 2 * per_batch


def test_reservations_from_many_threads_stop_exactly_at_the_limit(db: Database) -> None:
    day = date(2026, 11, 24)
    granted: list[int] = []
    lock = threading.Lock()

    def take() -> None:
        total = store.reserve(db, "kim", day, 3, limit=30)
        if total is not None:
            with lock:
                granted.append(total)

    threads = [threading.Thread(target=take) for _ in range(16)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert len(granted) == 10 and sorted(granted) == list(range(3, 31, 3))
    assert store.calls_on(db, "kim", day) == 30
    store.release(db, "kim", day, 5)
    assert store.calls_on(db, "kim", day) == 25
    store.release(db, "kim", day, 100)  # never below zero
    assert store.calls_on(db, "kim", day) == 0


def test_a_reservation_gives_back_at_most_what_it_still_holds(db: Database) -> None:
    day = date(2026, 3, 1)
    assert store.reserve(db, "kim", day, 5, limit=30) == 5  # an earlier batch, still running
    assert store.reserve(db, "kim", day, 3, limit=30) == 8
    mine = spend.Reservation(db, "kim", day, 3)
    mine.release(2)
    assert store.calls_on(db, "kim", day) == 6
    mine.release(100)  # only the one call it still holds comes back
    assert store.calls_on(db, "kim", day) == 5
    mine.release(1)  # nothing left to give: the other batch's calls stay counted
    assert store.calls_on(db, "kim", day) == 5
