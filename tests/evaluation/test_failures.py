"""Failure is reported as failure: fail fast on a model that cannot be used, never "completed"
with no usable answer, errors redacted, the first error kept, a fixed cause resumable."""

from __future__ import annotations

import asyncio

import pytest
from tenacity import wait_none

from quizbot.domain import RunStatus
from quizbot.errors import RunFailedError
from quizbot.evaluation import EvalSpec, evaluate, reopen
from quizbot.evaluation.runner import FAIL_FAST_AFTER, execute
from quizbot.generate.service import GenerateRequest, prepare
from quizbot.items import StatementItem
from quizbot.providers import ProviderError, Request
from quizbot.providers import retry as retry_module
from quizbot.providers.base import ErrorKind
from quizbot.providers.scripted import ScriptedProvider
from storage import Database
from storage.repo import count_responses, get_run, list_responses


@pytest.fixture(autouse=True)
def _no_wait(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(retry_module, "WAIT", wait_none())


def _items(db: Database, points: int = 4) -> list[StatementItem]:
    generation = prepare(db, GenerateRequest(kb="clinical-core", points=points, seed=3))
    return [i for i in generation.items() if isinstance(i, StatementItem)]


def _failing(
    kind: ErrorKind, *, retryable: bool, message: str = "it broke", concurrency: int = 1
) -> ScriptedProvider:
    def fail(_n: int, _r: Request) -> ProviderError:
        return ProviderError(message, retryable=retryable, kind=kind)

    return ScriptedProvider(["True"], fail=fail, max_concurrency=concurrency)


def _run(db: Database, items: list[StatementItem], provider: ScriptedProvider) -> object:
    spec = EvalSpec(model="scripted/model")
    return asyncio.run(evaluate(db, spec, items, provider_factory=lambda *_: provider))


@pytest.mark.parametrize(
    ("kind", "retryable"),
    [("connection", True), ("auth", False), ("not_found", False), ("bad_request", False)],
)
def test_a_model_that_cannot_be_used_stops_the_run_early_and_fails_it(
    db: Database, kind: ErrorKind, retryable: bool
) -> None:
    items = _items(db)  # 64 statements
    provider = _failing(kind, retryable=retryable, message=f"first {kind} error")
    summary = _run(db, items, provider)
    assert summary.status == RunStatus.FAILED  # type: ignore[attr-defined]
    # Concurrency 1: exactly FAIL_FAST_AFTER attempts, then nothing more is asked or retried.
    assert provider.calls == FAIL_FAST_AFTER
    run = get_run(db, summary.run_id)  # type: ignore[attr-defined]
    assert run.status == RunStatus.FAILED and run.finished_at is not None
    assert run.error_text is not None and f"first {kind} error" in run.error_text
    assert kind.replace("_", " ") in run.error_text
    # Asked items are stored as errors; the rest stay unasked for a resume. A refused connection
    # is retried, so the five attempts were all spent on the first item.
    assert count_responses(db, run_id=run.id) == (1 if retryable else FAIL_FAST_AFTER)
    assert count_responses(db, run_id=run.id, usable=True) == 0


def test_non_fatal_errors_are_retried_and_a_run_with_no_usable_answer_still_fails(
    db: Database,
) -> None:
    items = _items(db, points=1)  # 16 statements
    provider = _failing("server", retryable=True, message="HTTP 500 from upstream")
    summary = _run(db, items, provider)
    run = get_run(db, summary.run_id)  # type: ignore[attr-defined]
    # A 5xx is not a sign the model is unusable: every item was tried with every attempt.
    assert provider.calls == len(items) * 6
    assert run.status == RunStatus.FAILED
    assert run.error_text is not None and "no usable answers" in run.error_text
    assert "HTTP 500 from upstream" in run.error_text


def test_a_success_in_between_resets_the_count(db: Database) -> None:
    items = _items(db, points=1)

    def fail(n: int, _r: Request) -> ProviderError | None:
        # Four refused connections, one answer, four refused ... never five in a row.
        return None if n % 5 == 4 else ProviderError("refused", retryable=True, kind="connection")

    provider = ScriptedProvider(["True"], fail=fail, max_concurrency=1)
    summary = _run(db, items, provider)
    assert summary.status == RunStatus.COMPLETED  # type: ignore[attr-defined]
    assert count_responses(db, run_id=summary.run_id, usable=True) == len(items)  # type: ignore[attr-defined]


def test_mixed_kinds_in_a_row_do_not_add_up(db: Database) -> None:
    items = _items(db, points=1)
    kinds: list[ErrorKind] = ["auth", "not_found", "bad_request"]

    def fail(n: int, _r: Request) -> ProviderError | None:
        if n >= 12:
            return None
        return ProviderError("no", retryable=False, kind=kinds[n % 3])

    provider = ScriptedProvider(["True"], fail=fail, max_concurrency=1)
    summary = _run(db, items, provider)
    assert summary.status == RunStatus.COMPLETED  # type: ignore[attr-defined]
    assert summary.errors == 12  # type: ignore[attr-defined]


def test_a_failed_run_resumed_once_the_cause_is_fixed_completes_and_sheds_its_error(
    db: Database,
) -> None:
    items = _items(db, points=1)
    summary = _run(db, items, _failing("auth", retryable=False))
    run_id = summary.run_id  # type: ignore[attr-defined]
    assert get_run(db, run_id).status == RunStatus.FAILED
    fixed = ScriptedProvider(["True"])
    ready = reopen(db, run_id, provider_factory=lambda *_: fixed)
    again = asyncio.run(execute(db, ready.run_id, ready.provider, retry_errors=True))
    assert again.status == RunStatus.COMPLETED
    assert fixed.calls == len(items)  # the errors and the never-asked items, each once
    run = get_run(db, run_id)
    assert run.error_text is None
    assert count_responses(db, run_id=run_id, usable=True) == len(items)


def test_provider_errors_are_redacted_where_they_are_stored(
    db: Database, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("TEAM_OPENAI_KEY", "sk-team-0123456789abcdef")
    items = _items(db, points=1)
    echo = (
        "401 Incorrect API key provided: sk-team-0123456789abcdef (Bearer sk-team-0123456789abcdef)"
    )
    summary = _run(db, items, _failing("auth", retryable=False, message=echo))
    run = get_run(db, summary.run_id)  # type: ignore[attr-defined]
    stored = [run.error_text or ""] + [
        r.error_text or "" for r in list_responses(db, run_id=run.id)
    ]
    assert stored and all("0123456789abcdef" not in text for text in stored)
    assert "Incorrect API key provided" in (run.error_text or "")


def test_a_mistyped_baseline_leaves_no_run_behind(db: Database) -> None:
    from quizbot.errors import InputError
    from storage.repo import list_runs

    items = _items(db, points=1)
    with pytest.raises(InputError, match="unknown baseline"):
        asyncio.run(evaluate(db, EvalSpec(model="baseline/randon"), items))
    assert list_runs(db) == []


def test_run_failed_error_is_unavailable_not_a_bug() -> None:
    assert RunFailedError("x").exit_code == 69
