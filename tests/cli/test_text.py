"""The command line's text output: breakdowns, a readable comparison, a header for runs."""

from __future__ import annotations

from quizbot.cli.text import compare_text, format_p, report_text, runs_text

REPORT = {
    "run_id": 7, "name": "nightly", "model": "openai/m", "model_reported": "m-2026",
    "status": "completed", "error": None, "n_items": 16, "answered": 15, "n_errors": 1,
    "metrics": {"average_accuracy": 0.75, "joint_accuracy": None},
    "intervals": {"average_accuracy": [0.5, 0.9]},
    "by_relation": {"has_symptom": {"n": 16, "metrics": {"average_accuracy": 0.75,
                    "answer_rate": 1.0, "accuracy_answered": 0.8},
                    "intervals": {"average_accuracy": [0.5, 0.9]}}},
    "by_transform": {"inv+dn": {"n": 2, "metrics": {"average_accuracy": 0.5}, "intervals": {}}},
}  # fmt: skip


def test_report_text_has_the_breakdowns_the_help_promises() -> None:
    text = report_text(REPORT)
    assert text.splitlines()[0] == (
        "run 7 'nightly': openai/m (reported: m-2026), completed, 15/16 answered items stored"
    )
    assert "0.750 [0.500, 0.900]" in text and "joint accuracy (all 8 variants right)" in text
    assert "By relation" in text and "has_symptom" in text and "0.800" in text
    assert "By transform" in text and "inv+dn" in text
    assert "errors (left out of the metrics): 1" in text


def test_a_failed_run_shows_its_error() -> None:
    failed = {**REPORT, "status": "failed", "error": "stopped after 5 auth errors in a row"}
    assert "error: stopped after 5 auth errors in a row" in report_text(failed)


def test_compare_text_reads_as_sentences() -> None:
    result = {
        "run_a": {"run_id": 1, "model": "a"}, "run_b": {"run_id": 2, "model": "b"},
        "test": "mcnemar_exact", "n_shared": 40, "b01": 2, "b10": 11, "n_a": 40, "n_b": 40,
        "accuracy_a": 0.8, "accuracy_b": 0.575, "difference": 0.225,
        "difference_interval": [0.07, 0.36], "z": None, "p_value": 0.0231,
    }  # fmt: skip
    text = compare_text(result)
    assert "A: run 1 (a)   B: run 2 (b)" in text
    assert "difference (A - B): +0.225, 95% CI [+0.070, +0.360]" in text
    assert "11 right only in A, 2 right only in B, p = 0.023" in text
    assert "{" not in text  # no raw dicts


def test_small_p_values_are_never_zero() -> None:
    assert format_p(0.0000312) == "p = 3.1e-05"
    assert format_p(0.5) == "p = 0.500"
    assert format_p(None) == "p = -"


def test_runs_list_has_a_header_names_and_states() -> None:
    text = runs_text(
        [{"run_id": 3, "name": "batch", "model": "m", "status": "failed", "responses": 5,
          "n_items": 64, "created_at": "2026-11-24T01:02:03+00:00"}]
    )  # fmt: skip
    header, *rows = [line for line in text.splitlines() if line.strip() and "─" not in line]
    assert header.split() == ["run", "name", "model", "status", "answered", "created", "(UTC)"]
    assert rows[0].split() == ["3", "batch", "m", "failed", "5/64", "2026-11-24", "01:02"]
    assert runs_text([]).startswith("no runs yet")
