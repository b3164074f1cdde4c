"""One description of a monitor, shown alike by the Monitor tab, the Admin tab and
``quizbot monitor list``: a monitor over an imported item set counts the set's items (it used to
say "25 knowledge points a night (6 anchors)" while asking every item of the set)."""

from __future__ import annotations

import json
from datetime import UTC, datetime
from pathlib import Path

import pytest
from click.testing import CliRunner

from quizbot.cli import cli
from quizbot.generate.item_banks import import_item_set
from quizbot.monitoring.describe import describe_monitor
from quizbot.ui.admin import monitor_rows
from quizbot.ui.monitor_views import describe_monitor as monitor_tab_text
from quizbot.ui.render import md_escape
from schedules.config import load_monitors
from storage import Database

DATA = Path(__file__).resolve().parents[1] / "data" / "item_banks"


def _schedules(tmp_path: Path) -> Path:
    path = tmp_path / "monitors.toml"
    path.write_text(
        '[[monitor]]\nname = "bank"\nmodels = ["baseline/random"]\ncron = "0 2 * * *"\n'
        'item_set = "usmle"\n\n'
        '[[monitor]]\nname = "kb"\nmodels = ["baseline/random"]\ncron = "0 2 * * *"\n'
        "points = 10\nanchor_points = 3\n\n"
        '[[monitor]]\nname = "recall"\nmodels = ["baseline/random"]\ncron = "0 2 * * *"\n'
        'format = "recall"\npoints = 24\nanchor_points = 8\nprompt = "standard"\n',
        encoding="utf-8",
    )
    return path


def test_an_item_set_monitor_is_described_by_its_items_in_all_three_places(
    db: Database, database_url: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    info, _bank = import_item_set(db, DATA / "multifaceteval_mcq.json", "multifaceteval-mcq",
                                  "usmle")  # fmt: skip
    path = _schedules(tmp_path)
    bank, kb, recall = load_monitors(path)
    text = describe_monitor(db, bank.as_json()).text
    assert text == (
        f"{info.n_items} items a night from item set usmle (all of them anchors); "
        "multiple choice (MultifacetEval MCQ), standard prompt"
    )
    assert "knowledge points" not in text and "25" not in text

    # 1. the Monitor tab
    assert md_escape(text) in monitor_tab_text("bank", bank.as_json(), [], db)
    # 2. the Admin tab
    rows = monitor_rows([bank, kb], {}, datetime(2026, 1, 1, tzinfo=UTC), db)
    assert rows[0][3] == text
    assert (
        rows[1][3]
        == describe_monitor(db, kb.as_json()).text
        == (
            "10 knowledge points a night = 160 statements from clinical-core "
            "(3 anchor points = 48 anchor statements); true/false statements, standard prompt"
        )
    )
    # 3. quizbot monitor list
    monkeypatch.setenv("DATABASE_URL", database_url)
    listed = CliRunner().invoke(cli, ["monitor", "list", "--schedules", str(path), "--json"])
    assert listed.exit_code == 0, listed.output
    asks = {m["name"]: m["asks"] for m in json.loads(listed.stdout)["monitors"]}
    assert asks["bank"]["text"] == text and asks["bank"]["items_per_night"] == info.n_items
    plain = CliRunner().invoke(cli, ["monitor", "list", "--schedules", str(path)])
    assert f"asks: {text}" in plain.output
    assert f"asks: {describe_monitor(db, recall.as_json()).text}" in plain.output
    assert "24 open recall questions a night from clinical-core (8 of them anchors)" in (
        plain.output
    )


def test_a_set_not_imported_yet_says_so(db: Database, tmp_path: Path) -> None:
    bank, _kb, _recall = load_monitors(_schedules(tmp_path))
    text = describe_monitor(db, bank.as_json()).text
    assert text.startswith("? items a night from item set usmle")
    assert "not imported yet" in text
