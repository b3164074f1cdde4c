"""Putting a recall answer's unverified entries to a judge model, and reading its stored verdicts.

A run whose config names a judge (``judge``, reached through ``judge_api_base`` and
``judge_api_key_env``, asked with the prompt version ``judge_prompt_version``; see
:mod:`quizbot.providers.judge`) scores each recall answer in two steps: the KB classes every entry
(:func:`quizbot.evaluation.recall.match`), then every *unverified* entry without a stored verdict
is put to the judge, its verdict stored (``recall_judgements``, once per question, entry, judge
and prompt version, whoever wrote the entry) and the answer scored again with the verdicts. A
judge call that fails leaves the entry unverified (logged); the answer is stored all the same.

Reports read the stored verdicts back (:func:`stored_verdicts`), so a run's figures are the ones
its answers were stored with. Practice never calls a judge.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Callable, Iterable, Mapping
from typing import Any

from quizbot.config import Settings
from quizbot.evaluation.recall import Verdict, score_recall, verdict_key
from quizbot.items import RecallItem
from quizbot.providers import (
    ModelSettings,
    Provider,
    ProviderError,
    get_provider,
    resolve_model_settings,
)
from quizbot.providers.judge import JUDGE_PROMPT_VERSION, ask_judge
from storage import Database
from storage.recall_grades import NewJudgement, judgements, put_judgements

__all__ = ["RecallJudge", "judge_assignment", "judge_of", "stored_verdicts"]

log = logging.getLogger(__name__)
_COUNTED = ("correct", "incorrect")


def stored_verdicts(
    db: Database, item_ids: Iterable[str], config: Mapping[str, Any]
) -> dict[str, dict[str, Verdict]]:
    """The verdicts of the judge named in a run's ``config`` on ``item_ids``: item -> entry key
    -> correct/incorrect (unclear ones left out). Empty for a run with no judge."""
    model = config.get("judge")
    if not model:
        return {}
    found = judgements(
        db,
        item_ids,
        judge_model=str(model),
        prompt_version=str(config.get("judge_prompt_version") or JUDGE_PROMPT_VERSION),
    )
    return {
        item: {k: v for k, v in entries.items() if v in _COUNTED}  # type: ignore[misc]
        for item, entries in found.items()
    }


class RecallJudge:
    """One run's judge: asks it about unverified entries and keeps what it said."""

    def __init__(
        self, db: Database, model: str, provider: Provider, *, prompt_version: str
    ) -> None:
        self.db = db
        self.model = model
        self.provider = provider
        self.prompt_version = prompt_version
        self._lock = asyncio.Lock()

    async def verdicts(self, item: RecallItem, text: str) -> dict[str, Verdict]:
        """The verdicts on the unverified entries of ``text`` as an answer to ``item``: stored
        ones, and the judge's on those not judged yet (stored now)."""
        unverified = [
            e.text for e in score_recall(item, text).match.entries if e.kind == "unverified"
        ]
        if not unverified:
            return {}
        known = await asyncio.to_thread(
            judgements,
            self.db,
            [item.id],
            judge_model=self.model,
            prompt_version=self.prompt_version,
        )
        have = dict(known.get(item.id, {}))
        missing = list(
            dict.fromkeys(e for e in unverified if verdict_key(e) and verdict_key(e) not in have)
        )
        new: list[NewJudgement] = []
        for entry in missing:
            try:
                said = await ask_judge(self.provider, item.question, entry)
            except ProviderError as exc:
                log.warning("judge %s on item %s failed: %s", self.model, item.id, exc.message)
                continue
            key = verdict_key(entry)
            have[key] = said.verdict
            new.append(
                NewJudgement(
                    item.id, key, entry, self.model, self.prompt_version, said.verdict, said.reply
                )
            )
        if new:
            async with self._lock:
                await asyncio.to_thread(put_judgements, self.db, new)
        return {k: v for k, v in have.items() if v in _COUNTED}  # type: ignore[misc]

    async def aclose(self) -> None:
        """Release the judge's provider."""
        await self.provider.aclose()


def judge_of(db: Database, config: Any) -> RecallJudge | None:
    """The judge of a run's :class:`~quizbot.evaluation.runner.RunConfig`, or ``None``."""
    model = getattr(config, "judge", None)
    if not model:
        return None
    reach = ModelSettings(
        api_base=getattr(config, "judge_api_base", None),
        api_key_env=getattr(config, "judge_api_key_env", None),
    )
    return RecallJudge(
        db,
        model,
        get_provider(model, reach),
        prompt_version=getattr(config, "judge_prompt_version", None) or JUDGE_PROMPT_VERSION,
    )


async def judge_assignment(
    db: Database,
    name: str,
    settings: Settings | None = None,
    *,
    progress: Callable[[int], None] | None = None,
) -> int:
    """Put every student's unverified entry of open recall assignment ``name`` to its judge
    (``quizbot assignment create --judge``), each entry once; returns how many were asked.
    Nothing happens for an assignment without a judge."""
    from quizbot.generate.service import load_any_items  # noqa: PLC0415
    from storage.assignments import assignment_answers, get_assignment  # noqa: PLC0415

    assignment = get_assignment(db, name)
    model = assignment.config.get("judge")
    if not model or assignment.id is None:
        return 0
    items = {
        i.id: i for i in load_any_items(db, list(assignment.item_ids)) if isinstance(i, RecallItem)
    }
    reach = resolve_model_settings(str(model), settings)
    judge = RecallJudge(
        db, str(model), get_provider(str(model), reach), prompt_version=JUDGE_PROMPT_VERSION
    )
    before = _count(db, items, judge)
    try:
        for given in assignment_answers(db, assignment.id):
            item = items.get(given.response.item_id)
            if item is not None and given.response.raw_text:
                await judge.verdicts(item, given.response.raw_text)
                if progress is not None:
                    progress(1)
    finally:
        await judge.aclose()
    return _count(db, items, judge) - before


def _count(db: Database, items: Mapping[str, RecallItem], judge: RecallJudge) -> int:
    found = judgements(
        db, list(items), judge_model=judge.model, prompt_version=judge.prompt_version
    )
    return sum(len(v) for v in found.values())
