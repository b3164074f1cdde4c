"""`quizbot db scrub-secrets`: keys stored before redaction existed are redacted, on both backends.

The key is planted with plain SQL (as an old version would have stored it) in the places a
provider's or a webhook's text lands: an answer's raw text and error, a run's error and its
configuration (JSON), a monitor night's error, a cached call and an audit line. It sits in a
variable whose name says nothing (``TEAM_CRED``), named by ``QUIZBOT_MODEL_SETTINGS``: only the
secrets the settings register can find it.
"""

from __future__ import annotations

import json
from datetime import UTC, date, datetime
from typing import Any

import pytest
from click.testing import CliRunner
from sqlalchemy import MetaData, create_engine, insert, update

from quizbot.cli import cli
from storage import Database
from storage.repo import record_responses
from tests.helpers.factories import answer, make_run
from tests.security.test_key_echo import database_text

KEY = "TeamCred-81c3e5a7b9d2"
ENV = {
    "TEAM_CRED": KEY,
    "QUIZBOT_MODEL_SETTINGS": json.dumps({"openai/*": {"api_key_env": "TEAM_CRED"}}),
}


def _plant(url: str, fx: Any) -> dict[str, int]:
    """Write the key into old-looking rows; return how many rows of each column hold it."""
    engine = create_engine(url)
    meta = MetaData()
    meta.reflect(engine)
    t = meta.tables
    now = datetime.now(UTC)
    with engine.begin() as conn:
        ids = [r.id for r in conn.execute(t["response"].select().order_by(t["response"].c.id))]
        conn.execute(
            update(t["response"])
            .where(t["response"].c.id.in_(ids[:2]))
            .values(raw_text=f"Echo: {KEY} is not valid")
        )
        conn.execute(
            update(t["response"])
            .where(t["response"].c.id == ids[2])
            .values(error_text=f"401: key {KEY} refused", outcome="error")
        )
        conn.execute(
            update(t["eval_run"])
            .where(t["eval_run"].c.id == fx.run_id)
            .values(
                error_text=f"first error: {KEY}",
                config={"model": "openai/m", "endpoint": {"headers": [f"Bearer-ish {KEY}"]}},
            )
        )
        monitor_key = conn.execute(
            insert(t["monitor"]).values(
                name="m", definition={}, enabled=True, created_at=now, updated_at=now
            )
        ).inserted_primary_key
        assert monitor_key is not None
        monitor = monitor_key[0]
        conn.execute(
            insert(t["monitor_night"]).values(
                monitor_id=monitor, model="openai/m", scheduled_date=date(2026, 1, 1),
                status="failed", claimed_by="x", error_text=f"provider said {KEY}",
                created_at=now,
            )
        )  # fmt: skip
        conn.execute(
            insert(t["model_call_cache"]).values(
                key="k" * 64, model="openai/m", text=f"cached {KEY}", provider_model="m",
                created_at=now,
            )
        )  # fmt: skip
        conn.execute(
            insert(t["audit_log"]).values(
                at=now, actor="adm", action="model.batch", target="", ok=False,
                detail=f"failed: {KEY}",
            )
        )  # fmt: skip
    engine.dispose()
    return {
        "response.raw_text": 2,
        "response.error_text": 1,
        "eval_run.error_text": 1,
        "eval_run.config": 1,
        "monitor_night.error_text": 1,
        "model_call_cache.text": 1,
        "audit_log.detail": 1,
    }


def _scrub(db: Database, *args: str) -> dict[str, Any]:
    env = {**ENV, "DATABASE_URL": db.url}
    result = CliRunner().invoke(cli, ["db", "scrub-secrets", "--json", *args], env=env)
    assert result.exit_code == 0, result.output
    assert KEY not in result.output
    out: dict[str, Any] = json.loads(result.output)
    return out


def test_scrub_secrets_redacts_planted_keys_once_and_only_them(
    db: Database, monkeypatch: pytest.MonkeyPatch
) -> None:
    fx = make_run(db, 4)
    record_responses(db, [answer(fx, i) for i in fx.item_ids])
    planted = _plant(db.url, fx)
    before = database_text(db.url)
    assert before.count(KEY) == sum(planted.values())

    dry = _scrub(db, "--dry-run")
    assert dry["dry_run"] is True
    assert {k: v for k, v in dry["changed"].items() if v} == planted
    assert database_text(db.url) == before  # a dry run changes nothing

    done = _scrub(db)
    assert done["changed"] == dry["changed"] and done["total"] == sum(planted.values())
    after = database_text(db.url)
    assert KEY not in after
    assert "Echo: [redacted] is not valid" in after  # the text around the key is kept
    assert "Drug 3 may be used" in after  # items are untouched
    assert _scrub(db)["total"] == 0  # idempotent


def test_a_second_scrub_changes_nothing_in_authorization_headers(db: Database) -> None:
    """`Authorization: Bearer <token>` used to become `Authorization: [redacted] [redacted]` on
    the second run (the word Bearer taken for a token): every run after the first changes
    nothing."""
    fx = make_run(db, 3)
    record_responses(db, [answer(fx, i) for i in fx.item_ids])
    engine = create_engine(db.url)
    meta = MetaData()
    meta.reflect(engine)
    response = meta.tables["response"]
    texts = [
        "sent Authorization: Bearer abcdef0123456789xyz",
        "authorization: basic dXNlcjpwYXNzd29yZA== and x-api-key: 0123456789abcdef",
        "DATABASE_URL=postgresql//quiz:SecretPw99@db/q",
    ]
    with engine.begin() as conn:
        ids = [r.id for r in conn.execute(response.select().order_by(response.c.id))]
        for row_id, text in zip(ids, texts, strict=True):
            conn.execute(update(response).where(response.c.id == row_id).values(raw_text=text))
    engine.dispose()
    first = _scrub(db)
    assert first["total"] == 3
    after = database_text(db.url)
    assert "abcdef0123456789xyz" not in after and "SecretPw99" not in after
    assert "Authorization: Bearer [redacted]" in after
    assert _scrub(db)["total"] == 0  # (its own audit row aside, nothing changes)
