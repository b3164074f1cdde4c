"""The one entry point's :func:`~quizbot.evaluation.service.run`: the only caller of the runner,
and what it decides for every front end (a repeat group stops at its first failed run and closes
the providers it never used; a resume goes on with the whole group; each run is watched)."""

from __future__ import annotations

import ast
import asyncio
from contextlib import AbstractContextManager, nullcontext
from pathlib import Path
from typing import Any

import pytest
from tenacity import wait_none

from quizbot.domain import RunStatus
from quizbot.evaluation.runner import Progress
from quizbot.evaluation.service import EvalSpec, ReadyRun, RunRequest, run
from quizbot.generate.service import GenerateRequest, prepare
from quizbot.items import StatementItem
from quizbot.providers import ProviderError, Request
from quizbot.providers import retry as retry_module
from quizbot.providers.scripted import ScriptedProvider
from storage import Database
from storage.repo import count_responses, get_run

PACKAGE = Path(__file__).resolve().parents[2] / "quizbot"


@pytest.fixture(autouse=True)
def _no_wait(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(retry_module, "WAIT", wait_none())


class _Closing(ScriptedProvider):
    """A scripted provider that remembers being closed."""

    closed = False

    async def aclose(self) -> None:
        self.closed = True


def _items(db: Database) -> list[StatementItem]:
    generation = prepare(db, GenerateRequest(kb="clinical-core", points=1, seed=5))
    return [i for i in generation.items() if isinstance(i, StatementItem)][:6]


def _auth_failure(_n: int, _r: Request) -> ProviderError:
    return ProviderError("key refused", retryable=False, kind="auth")


def _runner_callers() -> list[str]:
    """Modules that import the runner's ``execute`` (at any depth) or reach it as an attribute
    of the runner module."""
    callers = []
    for path in sorted(PACKAGE.rglob("*.py")):
        tree = ast.parse(path.read_text(encoding="utf-8"))
        for node in ast.walk(tree):
            imported = (
                isinstance(node, ast.ImportFrom)
                and node.module == "quizbot.evaluation.runner"
                and any(alias.name == "execute" for alias in node.names)
            )
            attribute = (
                isinstance(node, ast.Attribute)
                and node.attr == "execute"
                and isinstance(node.value, ast.Name)
                and node.value.id == "runner"
            )
            if imported or attribute:
                callers.append(str(path.relative_to(PACKAGE.parent)))
                break
    return callers


def test_only_the_entry_point_calls_the_runner() -> None:
    assert _runner_callers() == ["quizbot/evaluation/service.py"]


def test_a_group_stops_at_its_first_failed_run_and_closes_the_providers_never_used(
    db: Database,
) -> None:
    made: list[_Closing] = []

    def factory(*_: Any) -> _Closing:
        made.append(_Closing(["True"], fail=_auth_failure, max_concurrency=1))
        return made[-1]

    watched: list[tuple[int, bool]] = []

    def watch(ready: ReadyRun, second: bool) -> AbstractContextManager[Progress | None]:
        watched.append((ready.run_id, second))
        return nullcontext(None)

    request = RunRequest(EvalSpec(model="scripted/model"), _items(db), repeats=3)
    outcome = asyncio.run(run(db, request, provider_factory=factory, watch=watch))

    assert outcome.summary is not None and outcome.summary.status == RunStatus.FAILED
    assert len(outcome.summaries) == 1 and outcome.second is None
    assert watched == [(outcome.summary.run_id, False)]  # the others were never asked
    assert len(made) == 3 and made[0].calls > 0
    assert [p.calls for p in made[1:]] == [0, 0] and all(p.closed for p in made[1:])
    later = [get_run(db, outcome.summary.run_id + k) for k in (1, 2)]
    assert [r.repeat_of for r in later] == [outcome.summary.run_id] * 2
    assert all(count_responses(db, run_id=r.id) == 0 for r in later)


def test_a_resume_goes_on_with_the_whole_group(db: Database) -> None:
    items = _items(db)
    failing = RunRequest(EvalSpec(model="scripted/model"), items, repeats=2)
    first = asyncio.run(
        run(
            db,
            failing,
            provider_factory=lambda *_: ScriptedProvider(["True"], fail=_auth_failure),
        )
    ).summary
    assert first is not None and first.status == RunStatus.FAILED

    resumed = asyncio.run(
        run(
            db,
            RunRequest(resume=first.run_id, retry_errors=True),
            provider_factory=lambda *_: ScriptedProvider(["True"]),
        )
    )

    assert [s.status for s in resumed.summaries] == [RunStatus.COMPLETED] * 2
    assert [s.run_id for s in resumed.summaries] == [first.run_id, first.run_id + 1]
    for summary in resumed.summaries:
        assert count_responses(db, run_id=summary.run_id, usable=True) == len(items)


def test_nothing_to_run_is_a_user_error(db: Database) -> None:
    from quizbot.errors import InputError

    with pytest.raises(InputError, match="nothing to run"):
        asyncio.run(run(db, RunRequest()))
    with pytest.raises(InputError, match="--repeats goes with a new run"):
        asyncio.run(run(db, RunRequest(resume=1, repeats=2)))
