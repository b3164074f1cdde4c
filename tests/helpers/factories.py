"""Small builders for rows the tests need (a knowledge base, items, a run)."""

from __future__ import annotations

from dataclasses import dataclass

from quizbot.domain import Outcome, RespondentKind
from storage import Database
from storage.repo import (
    NewItem,
    NewResponse,
    create_knowledge_base,
    create_run,
    get_or_create_respondent,
    save_items,
)


@dataclass(frozen=True)
class RunFixture:
    """A run with its respondent and the ids of the items it can answer."""

    kb_id: int
    respondent_id: int
    run_id: int
    item_ids: list[str]


def make_items(n: int, prefix: str = "t") -> list[NewItem]:
    """``n`` distinct true/false statement items."""
    return [
        NewItem(
            id=f"i1:{prefix}{i:08d}",
            kind="statement",
            relation="may_treat",
            head=f"drug {i}",
            tail=f"disease {i}",
            transform="none",
            label=i % 2 == 0,
            text=f"Drug {i} may be used to treat disease {i}.",
            generator_version="test",
        )
        for i in range(n)
    ]


def make_run(
    db: Database, n_items: int, *, kb_name: str = "test-kb", model: str = "test/model"
) -> RunFixture:
    """A knowledge base with ``n_items`` items, a model respondent and a run over them."""
    kb = create_knowledge_base(db, kb_name, version="1", source="test")
    assert kb.id is not None
    items = make_items(n_items, prefix=kb_name)
    save_items(db, kb.id, items)
    respondent = get_or_create_respondent(db, RespondentKind.MODEL, model)
    assert respondent.id is not None
    run = create_run(db, respondent_id=respondent.id, model_requested=model, n_items=n_items)
    assert run.id is not None
    return RunFixture(kb.id, respondent.id, run.id, [item.id for item in items])


def answer(fx: RunFixture, item_id: str, outcome: Outcome = Outcome.CORRECT) -> NewResponse:
    """A response of the run's respondent to one item."""
    return NewResponse(
        item_id=item_id,
        respondent_id=fx.respondent_id,
        run_id=fx.run_id,
        outcome=outcome,
        raw_text="True",
        parsed_answer="true",
        parse_reason="keyword 'true'",
        latency_ms=12.5,
        prompt_tokens=40,
        completion_tokens=1,
        total_tokens=41,
        provider_model="test/model-2026",
    )
