"""The "Humans vs models" tab without a browser: how a comparison result is rendered."""

from __future__ import annotations

import xml.etree.ElementTree as ET
from datetime import date
from pathlib import Path

import pytest

from quizbot.analysis.comparison import (
    ComparisonRow,
    GroupRow,
    HumansVsModels,
    PercentileRow,
    SliceRow,
)
from quizbot.analysis.metrics import Comparison, Proportion
from quizbot.errors import InputError
from quizbot.ui.compare import (
    BAR_METRICS,
    CSV_NAME,
    GROUP_HEADERS,
    bar_chart_svg,
    breakdown_table,
    group_table,
    heatmap_html,
    notes_markdown,
    parse_day,
    percentile_table,
    significance_table,
    write_csv,
)

SVG = "{http://www.w3.org/2000/svg}"


def _p(k: int, n: int, low: float | None, high: float | None) -> Proportion:
    """A proportion with a given interval (the renderer must print what it is given)."""
    return Proportion(k, n, k / n if n else None, low, high)


STUDENTS = GroupRow(
    "students", "students", None, 2, 8, _p(8, 16, 0.28, 0.72), _p(16, 16, 0.806, 1.0),
    _p(0, 0, None, None),
)  # fmt: skip
MODEL = GroupRow(
    "<b>m$1{x}</b>", "model", 7, 1, 8, _p(2, 8, 0.071, 0.591), _p(8, 8, 0.676, 1.0),
    _p(1, 2, 0.095, 0.905),
)  # fmt: skip
ALICE = GroupRow(
    "alice", "student", None, 1, 8, _p(6, 8, 0.409, 0.929), _p(8, 8, 0.676, 1.0),
    _p(0, 0, None, None),
)  # fmt: skip


def _comparison(p: float | None) -> Comparison:
    return Comparison(
        test="two_proportion_z",
        ci_method="newcombe_independent_hybrid_score",
        n_shared=0,
        b01=0,
        b10=0,
        n_a=16,
        n_b=8,
        accuracy_a=0.5,
        accuracy_b=0.25,
        difference=-0.25,
        difference_low=-0.533,
        difference_high=0.156,
        z=-1.2,
        p_value=p,
    )


def _result() -> HumansVsModels:
    name = MODEL.group
    return HumansVsModels(
        filters={},
        item_ids=("i1", "i2"),
        min_items=5,
        groups=(STUDENTS, MODEL),
        students=(ALICE,),
        breakdown=(
            SliceRow("students", "students", None, "relation", "zeta", _p(3, 4, 0.3, 0.95)),
            SliceRow("students", "students", None, "relation", "alpha", _p(1, 4, 0.05, 0.7)),
            SliceRow(name, "model", 7, "relation", "alpha", _p(0, 2, 0.0, 0.658)),
            SliceRow("students", "students", None, "transform", "dn", _p(2, 2, 0.342, 1.0)),
            SliceRow("students", "students", None, "transform", "none", _p(0, 2, 0.0, 0.658)),
        ),
        tests=(
            ComparisonRow(
                "model_vs_students", "students", name, "overall", "", _comparison(0.24), 0.4
            ),
            ComparisonRow(
                "model_vs_students", "students", name, "relation", "alpha", _comparison(3e-6), 6e-6
            ),
        ),
        percentiles=(PercentileRow(name, 7, 2, 0, 1, 1, 25.0, 0.25, 25.0, (0.25, 0.75)),),
        notes=("a note",),
    )


def test_group_table_lists_pooled_students_models_then_each_student_with_intervals() -> None:
    table = group_table(_result())
    assert table["headers"] == GROUP_HEADERS
    assert table["data"] == [
        ["students", "students (pooled)", "", "2", "8", "16", "0.500 [0.280, 0.720]",
         "1.000 [0.806, 1.000]", "-"],
        ["<b>m$1{x}</b>", "model", "7", "1", "8", "8", "0.250 [0.071, 0.591]",
         "1.000 [0.676, 1.000]", "0.500 [0.095, 0.905]"],
        ["alice", "student", "", "1", "8", "8", "0.750 [0.409, 0.929]", "1.000 [0.676, 1.000]",
         "-"],
    ]  # fmt: skip


def test_breakdown_has_a_row_per_name_and_a_column_per_group() -> None:
    relations = breakdown_table(_result(), "relation")
    assert relations["headers"] == ["relation", "students", "<b>m$1{x}</b>"]
    assert relations["data"] == [
        ["alpha", "0.250 [0.050, 0.700] (n=4)", "0.000 [0.000, 0.658] (n=2)"],
        ["zeta", "0.750 [0.300, 0.950] (n=4)", "-"],
    ]
    transforms = breakdown_table(_result(), "transform")
    # Canonical transform order, not alphabetical: none before dn.
    assert [row[0] for row in transforms["data"]] == ["none", "dn"]


def test_tests_table_shows_the_difference_interval_and_both_p_values() -> None:
    rows = significance_table(_result())["data"]
    assert rows[0] == [
        "model vs students", "students", "<b>m$1{x}</b>", "overall", "two proportion z",
        "16 / 8", "0.500 / 0.250", "-0.250 [-0.533, +0.156]", "0.2400", "0.4000",
    ]  # fmt: skip
    assert rows[1][3] == "relation: alpha"
    assert rows[1][8:] == ["<0.0001", "<0.0001"]


def test_percentiles_and_notes() -> None:
    result = _result()
    assert percentile_table(result)["data"] == [
        ["<b>m$1{x}</b>", "7", "2", "0", "1", "1", "25.0", "0.250", "25.0"]
    ]
    notes = notes_markdown(result)
    assert notes.startswith("**2 item(s) compared.**")
    assert "- a note" in notes


def test_bar_chart_draws_a_bar_and_whisker_per_known_figure_and_escapes_names() -> None:
    assert bar_chart_svg(()) == ""
    svg = bar_chart_svg(_result().groups)
    root = ET.fromstring(svg)  # well-formed: the odd group name is escaped
    colours = {colour for _, _, colour in BAR_METRICS}
    bars = [
        r
        for r in root.iter(f"{SVG}rect")
        if r.get("fill") in colours and r.find(f"{SVG}title") is not None
    ]
    # students: no joint accuracy (n = 0); the model has all three.
    assert len(bars) == 5
    heights = sorted(round(float(r.get("height", "0")), 1) for r in bars)
    plot = 220  # the chart's plot height in pixels
    assert heights == sorted(round(plot * v, 1) for v in (0.5, 1.0, 0.25, 1.0, 0.5))
    whiskers = list(root.iter(f"{SVG}path"))
    assert len(whiskers) == 5
    assert "<b>" not in svg and "&lt;b&gt;m&#36;1&#123;x&#125;" in svg
    assert "$" not in svg and "{" not in svg


def test_heatmap_colours_cells_by_accuracy_and_marks_missing_ones() -> None:
    html = heatmap_html(_result(), "relation")
    root = ET.fromstring(html)
    table = root.find("table")
    assert table is not None and table.get("data-scope") == "relation"
    body = [[c for c in tr] for tr in table.iter("tr")][1:]
    assert [row[0].text for row in body] == ["students", "<b>m$1{x}</b>"]
    students, model = ([c.text for c in row[1:]] for row in body)
    assert students == ["0.25", "0.75"]
    assert model == ["0.00", "–"]
    styles = [c.get("style", "") for c in body[0][1:]]
    # More accurate is darker: lightness 96% - 52% x accuracy.
    assert "hsl(212,65%,83%)" in styles[0] and "hsl(212,65%,57%)" in styles[1]
    assert "No accuracy by transform" not in heatmap_html(_result(), "transform")


def test_days_are_read_as_iso_dates() -> None:
    assert parse_day("2026-03-01", "start") == date(2026, 3, 1)
    assert parse_day(" 2026-03-01 10:00:00 ", "start") == date(2026, 3, 1)
    assert parse_day("", "end") is None
    assert parse_day(None, "end") is None
    with pytest.raises(InputError, match="end date 'soon' is not a date"):
        parse_day("soon", "end")


def test_csv_is_written_as_given(tmp_path: Path) -> None:
    path = write_csv("a,b\n1,2\n", tmp_path)
    assert path == tmp_path / CSV_NAME
    assert path.read_text(encoding="utf-8") == "a,b\n1,2\n"
    fresh = write_csv("x\n")
    assert fresh.name == CSV_NAME and fresh.read_text(encoding="utf-8") == "x\n"
