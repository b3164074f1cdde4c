"""Recording a clinical audit with two reviewers' marks (bench/audit_negatives.py --record):
the stronger verdict holds whatever the order of the files (true over unsure over false), so a
second reviewer's "unsure" can never hide a first reviewer's "true"."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
AUDIT = """row,kind,relation,head,candidate,true_tail,tier,known,verdict
1,negative,has_symptom,asthma,wheeze,dyspnoea,"same group, reviewed",,
2,negative,has_symptom,asthma,barking cough,dyspnoea,"same group, reviewed",,
3,negative,has_symptom,asthma,haematuria,dyspnoea,"other group",,
"""


def _record(tmp_path: Path, marks: list[str]) -> dict[str, object]:
    audit = tmp_path / "audit.csv"
    audit.write_text(AUDIT, encoding="utf-8")
    files = []
    for n, text in enumerate(marks):
        path = tmp_path / f"marks{n}.csv"
        path.write_text("row,verdict,reason\n" + text, encoding="utf-8")
        files.append(str(path))
    into = tmp_path / "review.json"
    subprocess.run(
        [sys.executable, str(ROOT / "bench" / "audit_negatives.py"), "--record", str(audit),
         "--marks", *files, "--name", "rx", "--reviewer", "two", "--into", str(into)],
        check=True, capture_output=True, cwd=ROOT,
    )  # fmt: skip
    data: dict[str, object] = json.loads(into.read_text("utf-8"))
    return data


def _verdicts(data: dict[str, object]) -> dict[str, str]:
    true = data["true"]
    assert isinstance(true, list)
    return {t["tail"]: t["verdict"] for t in true}


def test_the_stronger_verdict_of_two_reviewers_holds_in_either_order(tmp_path: Path) -> None:
    first = "1,unsure,shared sign\n2,unsure,croup sign\n"
    second = "1,true,cardinal symptom\n"
    for order in ([first, second], [second, first]):
        data = _record(tmp_path, order)
        assert _verdicts(data) == {"wheeze": "true", "barking cough": "unsure"}
        assert data["false"] == [["asthma", "has_symptom", "haematuria"]]
        (audit,) = [a for a in data["audits"] if a["name"] == "rx"]  # type: ignore[attr-defined]
        assert (audit["false"], audit["unsure"], audit["true"]) == (1, 1, 1)


def test_both_reasons_are_kept_when_two_reviewers_agree(tmp_path: Path) -> None:
    data = _record(tmp_path, ["2,unsure,croup sign\n", "2,unsure,stridor-like\n"])
    true = data["true"]
    assert isinstance(true, list)
    (entry,) = true
    assert entry["reason"] == "croup sign / stridor-like"
