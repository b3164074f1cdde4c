"""Incidents notify on change only: the done-when scenario of issue 28, end to end.

A monitor asks an imported item set of 120 MedQA-style questions (every item an anchor, two
relations) of a scripted model, eight nights in a row, over both databases, with a real local
HTTP server as the webhook:

- nights 1-3: the model misses the same 6 items (accuracy 114/120 = 0.95);
- night 4: it also misses 8 more (4 per relation): a 6.7-point fall, significant against the
  window and less than the critical 10 points: one incident opens as a WARNING and notifies;
- the incident is acknowledged before night 5; nights 5 and 6 add evidence silently;
- night 7: 16 more items go (accuracy 90/120 = 0.75): the incident worsens to CRITICAL and
  notifies once; night 8 at the same level adds evidence silently.

Expected figures come from the script above (counts of the items the model misses), not from
the code under test. The rules of :func:`~quizbot.monitoring.incidents.plan_night` (flapping,
the quiet-night count) are checked without a database below.
"""

from __future__ import annotations

import json
import threading
from collections.abc import Iterator, Mapping
from datetime import date, timedelta
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any, ClassVar

import pytest
from tenacity import wait_none

from quizbot.config import Settings
from quizbot.domain import Alert
from quizbot.evaluation.prompts import build_prompt
from quizbot.generate.item_banks import import_item_set
from quizbot.generate.service import load_items
from quizbot.items import ChoiceItem
from quizbot.monitoring import alerts as alerts_module
from quizbot.monitoring.incidents import Active, Recent, acknowledge, plan_night
from quizbot.monitoring.nights import run_night
from quizbot.providers import Provider
from quizbot.providers.scripted import ScriptedProvider
from schedules.config import MonitorSpec, load_monitors
from storage import Database
from storage.incidents import IncidentState, get_incident, list_incidents

START = date(2026, 3, 1)
N_ITEMS = 120
PUBLIC = "https://quizbot.example.org"
ALWAYS_WRONG = {i for i in range(N_ITEMS) if i % 20 == 19}  # 6 items, every night
NIGHT_4 = {i for i in range(N_ITEMS) if i % 32 in (4, 5)}  # 8 more from night 4 (4 + 4)
NIGHT_7 = {i for i in range(N_ITEMS) if i % 32 in (10, 11, 12, 13)}  # 16 more from night 7


def _night(n: int) -> date:
    return START + timedelta(days=n - 1)


def _wrong(n: int) -> set[int]:
    return ALWAYS_WRONG | (NIGHT_4 if n >= 4 else set()) | (NIGHT_7 if n >= 7 else set())


class _Receiver(BaseHTTPRequestHandler):
    bodies: ClassVar[list[dict[str, Any]]] = []

    def do_POST(self) -> None:
        type(self).bodies.append(json.loads(self.rfile.read(int(self.headers["Content-Length"]))))
        self.send_response(200)
        self.end_headers()

    def log_message(self, *args: object) -> None:
        pass


@pytest.fixture
def hook(monkeypatch: pytest.MonkeyPatch) -> Iterator[str]:
    monkeypatch.setattr(alerts_module, "WEBHOOK_WAIT", wait_none())
    _Receiver.bodies = []
    server = ThreadingHTTPServer(("127.0.0.1", 0), _Receiver)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    yield f"http://127.0.0.1:{server.server_address[1]}/services/T0/B0/secret"
    server.shutdown()


def write_bank(path: Path) -> Path:
    """120 four-option questions; relation step1 for even positions, step2&3 for odd ones."""
    lines = []
    for i in range(N_ITEMS):
        options = {letter: f"option {letter} of question {i}" for letter in "ABCD"}
        key = "ABCD"[i % 4]
        lines.append(json.dumps({
            "question": f"Question {i}: which option is the right one?",
            "options": options, "answer": options[key], "answer_idx": key,
            "meta_info": "step1" if i % 2 == 0 else "step2&3",
        }))  # fmt: skip
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return path


def scripted(db: Database, positions: Mapping[str, int]) -> Any:
    """A model that answers by the key except on the night's wrong positions."""

    def factory(model: str, settings: Settings | None, run: Mapping[str, Any]) -> Provider:
        n = (date.fromisoformat(run["night"]) - START).days + 1
        wrong = _wrong(n)
        by_prompt = {
            build_prompt(i, idk=run["idk"], style=run["style"]).text: i
            for i in load_items(db, run["item_ids"])
        }

        def answer(request: Any) -> str:
            item = by_prompt[request.text]
            assert isinstance(item, ChoiceItem)
            key = item.answer_keys[0]
            if positions[item.id] in wrong:
                return "ABCD"[("ABCD".index(key) + 1) % 4]
            return key

        return ScriptedProvider(answer, name=model, reported_model="x-2026")

    return factory


def test_eight_nights_one_incident_acknowledged_evidence_silent_worsening_once(
    db: Database, hook: str, tmp_path: Path
) -> None:
    info, _bank = import_item_set(db, write_bank(tmp_path / "bank.jsonl"), "medqa", "boards")
    positions = {item_id: i for i, item_id in enumerate(info.item_ids)}
    schedules = tmp_path / "monitors.toml"
    schedules.write_text(
        f'[[monitor]]\nname = "boards"\nmodels = ["gpt-x"]\ncron = "0 2 * * *"\n'
        f'item_set = "boards"\nwebhook = "{hook}"\n',
        encoding="utf-8",
    )
    (spec,) = load_monitors(schedules)
    assert spec.webhook_format == "slack"  # the default
    # a person's action posts to the webhook of the schedules file in force (the database
    # keeps only its scheme and host)
    settings = Settings(public_url=PUBLIC, schedules_file=schedules)
    factory = scripted(db, positions)

    def run(n: int) -> Any:
        result = run_night(db, spec, "gpt-x", _night(n), provider_factory=factory,
                           settings=settings)  # fmt: skip
        assert result.status == "completed", result.message
        return result

    for n in (1, 2, 3):
        assert run(n).incidents == ()
    assert _Receiver.bodies == []

    fourth = run(4)
    (incident,) = list_incidents(db, monitor="boards")
    assert incident.opened_on == _night(4) and incident.severity == "warning"
    assert [e["event"] for e in fourth.incidents] == ["opened"]
    assert len(_Receiver.bodies) == 1
    opened = _Receiver.bodies[0]["text"]
    assert set(_Receiver.bodies[0]) == {"text"}  # Slack's body, nothing else
    link = f"{PUBLIC}/?tab=monitor&incident={incident.id}"
    assert f"<{link}|" in opened
    assert "gpt-x on item set boards: accuracy 0.95 → 0.88 over 1 night (−7 points" in opened
    assert "; 8 of 120 anchor items flipped" in opened and opened.startswith("[WARNING]")

    acknowledge(db, incident.id, by="ana", note="looking", settings=settings)
    assert len(_Receiver.bodies) == 2 and "acknowledged" in _Receiver.bodies[1]["text"]

    for n in (5, 6):
        assert run(n).incidents == ()  # evidence, no notification
    assert len(_Receiver.bodies) == 2

    seventh = run(7)
    assert [e["event"] for e in seventh.incidents] == ["worsened"]
    assert len(_Receiver.bodies) == 3
    worse = _Receiver.bodies[2]["text"]
    # 114/120 on night 3 (the night before the incident) -> 90/120 tonight, 4 nights on
    assert worse.startswith(f"[CRITICAL] incident #{incident.id} got worse: ")
    assert "gpt-x on item set boards: accuracy 0.95 → 0.75 over 4 nights (−20 points, " in worse
    assert "p < 0.001); 24 of 120 anchor items flipped" in worse
    assert f"<{link}|" in worse

    assert run(8).incidents == ()
    assert len(_Receiver.bodies) == 3  # opened, acknowledged, worsened: nothing else

    (after,) = list_incidents(db, monitor="boards")
    assert after.id == incident.id and after.state == IncidentState.ACKNOWLEDGED.value
    assert after.severity == "critical" and after.quiet_nights == 0
    record = {e["night"]: e for e in after.nights}
    assert sorted(record) == [_night(n).isoformat() for n in range(4, 9)]
    assert [record[_night(n).isoformat()]["notified"] for n in range(4, 9)] == [
        "opened", None, None, "worsened", None,
    ]  # fmt: skip
    assert record[_night(6).isoformat()]["alerts"] == 0  # a quiet night, kept as evidence
    assert record[_night(8).isoformat()]["figure"]["value"] == pytest.approx(90 / 120)
    assert record[_night(8).isoformat()]["figure"]["flipped"] == 24
    assert [e["event"] for e in get_incident(db, incident.id).events] == [
        "opened", "acknowledged", "worsened",
    ]  # fmt: skip


def test_the_json_format_carries_the_figures_and_the_link(
    db: Database, hook: str, tmp_path: Path
) -> None:
    info, _bank = import_item_set(db, write_bank(tmp_path / "bank.jsonl"), "medqa", "boards")
    positions = {item_id: i for i, item_id in enumerate(info.item_ids)}
    spec = MonitorSpec(name="raw", models=("gpt-x",), cron="0 2 * * *", item_set="boards",
                       webhook=hook, webhook_format="json")  # fmt: skip
    factory = scripted(db, positions)
    for n in range(1, 5):
        run_night(db, spec, "gpt-x", _night(n), provider_factory=factory,
                  settings=Settings(public_url=PUBLIC + "/"))  # fmt: skip
    (body,) = _Receiver.bodies
    assert body["event"] == "opened" and body["monitor"] == "raw" and body["model"] == "gpt-x"
    figures = body["figures"]
    assert (figures["before"], figures["after"]) == (pytest.approx(114 / 120),
                                                     pytest.approx(106 / 120))  # fmt: skip
    assert (figures["flipped"], figures["anchors"], figures["nights"]) == (8, 120, 1)
    assert figures["reference_night"] == _night(3).isoformat()
    assert body["url"] == f"{PUBLIC}/?tab=monitor&incident={body['incident']['id']}"
    assert body["message"].startswith("gpt-x on item set boards: accuracy 0.95 → 0.88")
    assert body["text"].splitlines()[0].endswith(body["message"])


# --------------------------------------------------------------------------------------------
# The rules, without a database


def _alert(metric: str, severity: str = "warning", alert_id: int = 1) -> Alert:
    from datetime import datetime

    now = datetime(2026, 1, 1)
    return Alert(alert_id, 1, None, severity, metric, -0.1, 0.001, "fell", [1], None, None, now)


def test_a_new_alert_resets_the_quiet_night_count() -> None:
    day = date(2026, 1, 9)
    active = Active(7, "accuracy", "warning", quiet_nights=2, notified="warning")
    (update,) = plan_night([active], [_alert("anchor:accuracy")], day, completed=True).updates
    assert update.quiet_nights == 0 and update.state is None
    # the next quiet night counts from zero again: it does not resolve
    later = Active(7, "accuracy", "warning", update.quiet_nights, notified="warning")
    (quiet,) = plan_night([later], [], day + timedelta(days=1), completed=True).updates
    assert (quiet.quiet_nights, quiet.state) == (1, None)


def test_joining_is_silent_unless_the_severity_rises_past_what_was_told() -> None:
    day = date(2026, 1, 9)
    told_warning = Active(7, "accuracy", "critical", 0, notified="warning")
    same = plan_night([told_warning], [_alert("anchor:accuracy", "warning")], day, completed=True)
    assert same.events == {}
    worse = plan_night([told_warning], [_alert("anchor:accuracy", "critical")], day,
                       completed=True)  # fmt: skip
    assert worse.events == {7: "worsened"}
    told_critical = Active(7, "accuracy", "critical", 0, notified="critical")
    again = plan_night([told_critical], [_alert("anchor:accuracy", "critical")], day,
                       completed=True)  # fmt: skip
    assert again.events == {}


def test_a_resolved_incident_that_recurs_within_the_window_reopens() -> None:
    day = date(2026, 1, 9)
    recent = [Recent(4, "accuracy", "warning")]
    plan = plan_night([], [_alert("rotating:accuracy", "critical")], day, completed=True,
                      resolved=recent)  # fmt: skip
    assert plan.openings == ()
    (update,) = plan.updates
    assert update.reopen and update.id == 4 and update.severity == "critical"
    assert plan.events == {4: "reopened"}
    # another metric's recent incident does not reopen: a new one opens
    other = plan_night([], [_alert("model_id:provider_model")], day, completed=True,
                       resolved=recent)  # fmt: skip
    assert [o.metric for o in other.openings] == ["provider_model"] and other.updates == ()


def test_a_persons_action_never_posts_to_the_stored_masked_webhook(
    db: Database, hook: str, tmp_path: Path
) -> None:
    # The database keeps only the webhook's scheme and host ("http://127.0.0.1:PORT/[redacted]");
    # acknowledging an incident of a monitor the schedules file in force does not declare must
    # not post there (the receiver would take any path): the event says the webhook is not set.
    from quizbot.providers import ProviderError

    spec = MonitorSpec(name="gone", models=("scripted/m",), cron="0 2 * * *", points=2,
                       anchor_points=1, webhook=hook)  # fmt: skip
    failing = ScriptedProvider(
        ["True"], fail=lambda _n, _r: ProviderError("401 bad key", retryable=False, kind="auth")
    )
    run_night(db, spec, "scripted/m", _night(1), provider_factory=lambda *_: failing)
    (incident,) = list_incidents(db, monitor="gone")
    assert len(_Receiver.bodies) == 1  # the opening, posted by the night itself
    other = tmp_path / "monitors.toml"
    other.write_text('[[monitor]]\nname = "else"\nmodels = ["m"]\ncron = "0 2 * * *"\n',
                     encoding="utf-8")  # fmt: skip
    acknowledge(db, incident.id, by="ana", settings=Settings(schedules_file=other))
    assert len(_Receiver.bodies) == 1
    assert get_incident(db, incident.id).events[-1]["webhook"] == "not set"
