"""The serving modes: local on loopback only, accounts from the first account, proxy mode trusting
its header only from the configured addresses."""

from __future__ import annotations

import os
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest
from starlette.testclient import TestClient

from quizbot import accounts
from quizbot.config import load_settings
from quizbot.errors import ConfigError
from quizbot.server import check_mode, is_loopback
from storage import Database

ROOT = Path(__file__).resolve().parents[2]
QUIZBOT = str(Path(sys.executable).with_name("quizbot"))


@pytest.mark.parametrize(
    ("host", "loopback"),
    [
        ("127.0.0.1", True),
        ("127.1.2.3", True),
        ("localhost", True),
        ("::1", True),
        ("0.0.0.0", False),
        ("192.168.1.5", False),
        ("::", False),
        ("example.org", False),
    ],
)
def test_what_counts_as_loopback(host: str, loopback: bool) -> None:
    assert is_loopback(host) is loopback


def test_local_mode_only_on_loopback() -> None:
    settings = load_settings(home="/tmp/unused")
    assert check_mode(settings, "127.0.0.1", has_accounts=False) == "local"
    assert check_mode(settings, "0.0.0.0", has_accounts=True) == "accounts"
    with pytest.raises(ConfigError, match=r"refusing to listen on 0\.0\.0\.0") as caught:
        check_mode(settings, "0.0.0.0", has_accounts=False)
    assert caught.value.hint is not None and "quizbot user add" in caught.value.hint
    proxied = load_settings(
        home="/tmp/unused",
        trusted_proxy_header="X-Forwarded-User",
        trusted_proxies="10.0.0.0/8",
    )
    assert check_mode(proxied, "0.0.0.0", has_accounts=False) == "proxy"


def test_proxy_settings_go_together() -> None:
    with pytest.raises(ConfigError, match="QUIZBOT_TRUSTED_PROXIES"):
        load_settings(trusted_proxy_header="X-Forwarded-User")
    with pytest.raises(ConfigError, match="not an address or network"):
        load_settings(trusted_proxy_header="X-User", trusted_proxies="proxy.example")


def test_serve_beyond_loopback_without_accounts_refuses_to_start(
    tmp_path: Path, database_url: str, db: Database
) -> None:
    # with ``db`` the database is a copy of the migrated template: the refusal comes after the
    # database is opened (is there an account?), and an empty one would be migrated first
    env = {
        k: v for k, v in os.environ.items() if not k.startswith("QUIZBOT_") and k != "DATABASE_URL"
    }
    env.update({"QUIZBOT_HOME": str(tmp_path / "home"), "DATABASE_URL": database_url})
    done = subprocess.run(
        [QUIZBOT, "serve", "--host", "0.0.0.0", "--port", "7"],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    assert done.returncode == 78, done.stderr
    assert "error: refusing to listen on 0.0.0.0" in done.stderr
    assert "Traceback" not in done.stderr


@pytest.fixture
def proxied(db: Database, tmp_path: Path, quick_argon2: None) -> Iterator[TestClient]:
    """The web app in proxy mode (X-Forwarded-User trusted from 10.0.0.1 only), in process; the
    accounts' passwords hashed at argon2's lowest cost (the proxy mode never checks them)."""
    from quizbot.ui.gate import web_app

    accounts.create_user(db, "boss", "admin", "admin password 123")
    accounts.create_user(db, "gone", "student", "student password 1")
    accounts.disable_user(db, "gone")
    settings = load_settings(
        home=str(tmp_path / "home"),
        database_url=db.url,
        trusted_proxy_header="X-Forwarded-User",
        trusted_proxies="10.0.0.1",
    )
    with TestClient(web_app(settings, db), client=("10.0.0.1", 5000)) as client:
        yield client


def test_proxy_mode_trusts_the_header_only_from_the_proxy(proxied: TestClient) -> None:
    assert proxied.get("/gradio_api/info", headers={"X-Forwarded-User": "ann"}).status_code == 200
    assert proxied.get("/gradio_api/info").status_code == 401  # no user named
    refused = proxied.get("/gradio_api/info", headers={"X-Forwarded-User": "<script>"})
    assert refused.status_code == 401
    disabled = proxied.get("/gradio_api/info", headers={"X-Forwarded-User": "gone"})
    assert disabled.status_code == 401
    # the same header from any other address is not believed
    other = TestClient(proxied.app, client=("10.0.0.2", 5000))
    assert other.get("/gradio_api/info", headers={"X-Forwarded-User": "boss"}).status_code == 401
    # the login page is not used behind the proxy
    assert proxied.get("/login", follow_redirects=False).status_code == 303
