"""Set-up shared by the tests that ask a model over HTTP (tests/helpers/model_server.py through
litellm): the model's settings pointing at the server, a monitor read from a schedules file,
the server's oracle file of right answers, and the SDAK replies of a run grouped by pair.

Used by tests/monitoring/test_sdak_monitor.py, tests/monitoring/test_recall_monitor.py,
tests/ui/test_ask_sdak.py and tests/ui/test_ask_sdak_browser.py; it writes files and settings
and reads stored replies, it computes no expected figure.
"""

from __future__ import annotations

import json
from collections import defaultdict
from collections.abc import Iterable
from pathlib import Path

import pytest

from quizbot.config import Settings, load_settings
from quizbot.generate.service import load_items
from quizbot.items import RecallItem, StatementItem
from schedules.config import MonitorSpec, load_monitors
from storage import Database
from storage.repo import list_responses


def model_settings(monkeypatch: pytest.MonkeyPatch, model: str, base: str) -> Settings:
    """Settings with ``model`` reached at ``base`` (the test model server's URL), set the way an
    installation sets them (``QUIZBOT_MODEL_SETTINGS``)."""
    monkeypatch.setenv("QUIZBOT_MODEL_SETTINGS", json.dumps({model: {"api_base": base}}))
    return load_settings()


def monitor_from(tmp_path: Path, toml: str) -> MonitorSpec:
    """The one monitor of a schedules file with text ``toml``, written under ``tmp_path`` and
    read by the scheduler's own loader."""
    path = tmp_path / "monitors.toml"
    path.write_text(toml, encoding="utf-8")
    (spec,) = load_monitors(path)
    return spec


def write_oracle(path: Path, items: Iterable[object]) -> Path:
    """The server's ``--oracle`` file: one line per true/false statement (text and label) or
    open recall item (question and right answers); other items are left out."""
    lines = []
    for item in items:
        if isinstance(item, StatementItem):
            lines.append(json.dumps({"text": item.text, "label": item.label}) + "\n")
        elif isinstance(item, RecallItem):
            lines.append(
                json.dumps({"question": item.question, "answers": list(item.answers)}) + "\n"
            )
    path.write_text("".join(lines), encoding="utf-8")
    return path


def replies_by_pair(db: Database, run_id: int) -> dict[str, dict[bool, str]]:
    """The raw replies of an SDAK run, by pair id, then by label (True: the factual statement,
    False: its counterfactual); read from the stored responses, not by quizbot's SDAK reader.
    A pair missing a member has one entry only."""
    responses = list_responses(db, run_id=run_id)
    items = {i.id: i for i in load_items(db, [r.item_id for r in responses])}
    pairs: dict[str, dict[bool, str]] = defaultdict(dict)
    for r in responses:
        item = items[r.item_id]
        assert isinstance(item, StatementItem)
        pairs[item.pair_id][item.label] = r.raw_text or ""
    return dict(pairs)
