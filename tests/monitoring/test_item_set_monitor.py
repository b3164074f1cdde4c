"""A monitor of an imported item set: the whole set every night, all of it anchors."""

from __future__ import annotations

from collections.abc import Mapping
from datetime import date
from pathlib import Path
from typing import Any

import pytest

from quizbot.config import Settings
from quizbot.errors import InputError, NotFoundError
from quizbot.evaluation.prompts import build_prompt
from quizbot.generate.item_banks import import_item_set
from quizbot.generate.service import load_items
from quizbot.items import ChoiceItem, StatementItem
from quizbot.monitoring.nights import history, night_items, run_monitor
from quizbot.providers import Provider, Request
from quizbot.providers.scripted import ScriptedProvider
from schedules.config import MonitorSpec, load_monitors
from storage import Database
from storage.repo import get_run, list_responses

DATA = Path(__file__).resolve().parents[1] / "data" / "item_banks"
SPEC = MonitorSpec(name="usmle", models=("scripted/keys",), cron="0 2 * * *", item_set="mcq")


def _keyed(db: Database) -> Any:
    """A model that answers every item by its key (statements by their label)."""

    def factory(model: str, settings: Settings | None, run: Mapping[str, Any]) -> Provider:
        items = load_items(db, run["item_ids"])
        truth = {build_prompt(i, idk=run["idk"], style=run["style"]).text: i for i in items}

        def answer(request: Request) -> str:
            item = truth[request.text]
            if isinstance(item, ChoiceItem):
                return ", ".join(item.answer_keys)
            assert isinstance(item, StatementItem)
            return "True" if item.label else "False"

        return ScriptedProvider(answer, name=model)

    return factory


def test_every_night_asks_the_whole_set_as_anchors(db: Database) -> None:
    info, bank = import_item_set(db, DATA / "multifaceteval_mcq.json", "multifaceteval-mcq", "mcq")
    items, anchors = night_items(db, SPEC, date(2026, 1, 1))
    assert [i.id for i in items] == list(info.item_ids) and anchors == set(info.item_ids)
    for day in (1, 2):
        (result,) = run_monitor(db, SPEC, when=date(2026, 1, day), provider_factory=_keyed(db))
        assert result.status == "completed", result.message
        assert result.run_id is not None
        assert len(list_responses(db, run_id=result.run_id)) == len(bank.items) == 4
        assert sorted(get_run(db, result.run_id).config["anchor_item_ids"]) == sorted(anchors)
    (series,) = history(db, "usmle")
    assert [n["anchor"]["accuracy"]["value"] for n in series["nights"]] == [1.0, 1.0]


def test_an_unknown_item_set_fails_the_night_with_its_name(db: Database) -> None:
    spec = MonitorSpec(name="gone", models=("scripted/keys",), cron="0 2 * * *", item_set="nope")
    with pytest.raises(NotFoundError, match="no item set 'nope'"):
        night_items(db, spec, date(2026, 1, 1))


def test_the_schedules_file_takes_an_item_set(tmp_path: Path) -> None:
    path = tmp_path / "monitors.toml"
    path.write_text(
        '[[monitor]]\nname = "bank"\nmodels = ["baseline/random"]\ncron = "0 2 * * *"\n'
        'item_set = "medqa-us"\n',
        encoding="utf-8",
    )
    (spec,) = load_monitors(path)
    assert spec.item_set == "medqa-us" and spec.as_json()["item_set"] == "medqa-us"
    path.write_text(path.read_text().replace('"medqa-us"', '""'), encoding="utf-8")
    with pytest.raises(InputError, match="item_set"):
        load_monitors(path)
