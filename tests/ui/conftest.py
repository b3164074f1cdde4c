"""Browser tests: the real app served by `quizbot serve`, driven by Playwright in Debian's Chromium.

``served`` starts the app in a subprocess on 127.0.0.1 over the test's database (SQLite and
PostgreSQL, like every database test), with the shared OpenAI-compatible stub as a configured
model ("openai/stub", reached through QUIZBOT_MODEL_SETTINGS) and an admin password. ``page``
opens it in /usr/bin/chromium (never `playwright install`). Screenshots go to
tests/artifacts/ (ignored by git) for a person to look at.
"""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
import uuid
from collections.abc import Generator, Iterator, Mapping
from contextlib import contextmanager
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import pytest
from playwright.sync_api import expect

from tests.conftest import BACKENDS, fresh_database
from tests.helpers.net import free_port, stop_process, wait_for_http
from tests.helpers.stub import stub_server
from tests.ui.events import wait_loaded, watch

ROOT = Path(__file__).resolve().parents[2]
QUIZBOT = str(Path(sys.executable).with_name("quizbot"))
CHROMIUM = "/usr/bin/chromium"
ARTIFACTS = ROOT / "tests" / "artifacts"
ADMIN_PASSWORD = "test-admin-password"
STUB_MODEL = "openai/stub"
# How long a served app may take to answer while its process runs: a start on two loaded cores
# (other suites, a CPU burner) took over 90 s; a server that exits ends the wait at once.
SERVER_START = 600.0
# How long a test waits for what the app emits (an element, a text): a bound, not a speed check.
# On two loaded cores a recall answer's first scoring (loading its tokenizer) took over 30 s,
# beyond Playwright's 5 s for expect() and the 30 s this was.
WAIT_MS = 120_000

pytestmark = pytest.mark.slow
expect.set_options(timeout=WAIT_MS)

# The servers and CLI commands these tests start run the code of this checkout, not whichever
# checkout the venv's `quizbot` script was installed from (an editable install of another
# worktree would otherwise be what the browser tests test).
os.environ["PYTHONPATH"] = os.pathsep.join(
    [str(ROOT), *(p for p in os.environ.get("PYTHONPATH", "").split(os.pathsep) if p)]
)


# The apps running now (their process and log), for the report of a failed test.
_RUNNING: dict[int, tuple[subprocess.Popen[bytes], Path]] = {}
LOG_TAIL = 400  # lines of each running app's log added to a failed test's report


@pytest.hookimpl(wrapper=True)
def pytest_runtest_makereport(
    item: pytest.Item, call: pytest.CallInfo[None]
) -> Generator[None, pytest.TestReport, pytest.TestReport]:
    """A browser test that fails gets, in its report, every running app's thread stacks and
    the end of its log: a request that hung (a page waiting out its bound) shows where the
    server was stuck, which the app's log alone would not say, and the log is gone with the
    test's folder by the time anyone looks (a flake hunt runs many)."""
    report = yield
    if report.when != "call" or not report.failed:
        return report
    for proc, _log in list(_RUNNING.values()):
        if proc.poll() is None:
            proc.send_signal(signal.SIGUSR1)  # quizbot serve: every thread's stack to its log
    time.sleep(1.0)
    for pid, (_proc, log) in list(_RUNNING.items()):
        try:
            lines = log.read_text(encoding="utf-8", errors="replace").splitlines()
        except OSError:
            continue
        tail = "\n".join(lines[-LOG_TAIL:])
        report.sections.append((f"app {pid} log (last {LOG_TAIL} lines)", tail))
    return report


@dataclass(frozen=True)
class Served:
    """A running app: its address, database and the stub model's name."""

    url: str
    database_url: str
    model: str = STUB_MODEL
    admin_password: str = ADMIN_PASSWORD
    clock_file: Path | None = None  # QUIZBOT_CLOCK_FILE: write a time to move the app's clock
    log_file: Path | None = None  # the app's log (stdout and stderr)


@pytest.fixture
def stub_answer() -> str:
    """What the configured stub model answers (a test module may override this fixture)."""
    return "true"


@contextmanager
def serve_app(database_url: str, folder: Path, stub_answer: str) -> Iterator[Served]:
    """`quizbot serve` on a free port over ``database_url`` (its home, clock file and log in
    ``folder``), with the shared stub configured as a model answering ``stub_answer``."""
    with stub_server("--answer", stub_answer) as stub:
        port = free_port()
        clock = folder / "clock"
        clock.write_text(datetime.now(UTC).isoformat(), encoding="utf-8")
        env = {
            k: v
            for k, v in os.environ.items()
            if not k.startswith("QUIZBOT_") and k != "DATABASE_URL"
        }
        env.update(
            {
                "QUIZBOT_HOME": str(folder / "home"),
                "DATABASE_URL": database_url,
                "QUIZBOT_MODELS": STUB_MODEL,
                "QUIZBOT_MODEL_SETTINGS": f'{{"openai/stub": {{"api_base": "{stub}"}}}}',
                "QUIZBOT_ADMIN_PASSWORD": ADMIN_PASSWORD,
                "QUIZBOT_CLOCK_FILE": str(clock),
            }
        )
        log = (folder / "server.log").open("w")
        proc = subprocess.Popen(
            [QUIZBOT, "serve", "--port", str(port)], cwd=ROOT, env=env, stdout=log, stderr=log
        )
        _RUNNING[proc.pid] = (proc, folder / "server.log")
        try:
            wait_for_http(f"http://127.0.0.1:{port}/", timeout=SERVER_START, process=proc)
            yield Served(
                f"http://127.0.0.1:{port}/",
                database_url,
                clock_file=clock,
                log_file=folder / "server.log",
            )
        finally:
            _RUNNING.pop(proc.pid, None)
            stop_process(proc)
            log.close()


@contextmanager
def serve_accounts(
    database_url: str, folder: Path, extra: dict[str, str] | None = None
) -> Iterator[str]:
    """`quizbot serve` in accounts mode (the database already holds accounts) on a free port,
    with ``extra`` settings; yields its address once the login page answers."""
    port = free_port()
    env = {
        k: v for k, v in os.environ.items() if not k.startswith("QUIZBOT_") and k != "DATABASE_URL"
    }
    env.update({"QUIZBOT_HOME": str(folder / "home"), "DATABASE_URL": database_url})
    env.update(extra or {})
    log = (folder / "server.log").open("w")
    proc = subprocess.Popen(
        [QUIZBOT, "serve", "--port", str(port)], cwd=ROOT, env=env, stdout=log, stderr=log
    )
    _RUNNING[proc.pid] = (proc, folder / "server.log")
    try:
        wait_for_http(f"http://127.0.0.1:{port}/login", timeout=SERVER_START, process=proc)
        yield f"http://127.0.0.1:{port}"
    finally:
        _RUNNING.pop(proc.pid, None)
        stop_process(proc)
        log.close()


@pytest.fixture
def chromium() -> Iterator[Any]:
    """Debian's Chromium through Playwright (skips when it is not installed)."""
    _browser_or_skip()
    from playwright.sync_api import sync_playwright

    with sync_playwright() as pw:
        browser = pw.chromium.launch(executable_path=CHROMIUM, args=["--no-sandbox"])
        try:
            yield browser
        finally:
            browser.close()


@pytest.fixture
def served(served_database: str, tmp_path: Path, stub_answer: str) -> Iterator[Served]:
    """`quizbot serve` on a free port over the test's own database (as a first start left it,
    ``served_database``), with a stub model configured."""
    with serve_app(served_database, tmp_path, stub_answer) as app:
        yield app


@pytest.fixture(scope="session", params=BACKENDS)
def served_shared(
    request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory, _templates: Any
) -> Iterator[Served]:
    """One served app per database backend for a test process, shared by the tests that only
    read the app or write what no other test reads (their own student names, their own page,
    an assignment of their own name that only their own student takes): a server start costs
    seconds of CPU (gradio, scipy, the KB's plan). A test that changes what others see
    (settings, the clock, flags, the KB, whom the comparisons count) or reads what others may
    have added (the list of assignments, every student's results) uses ``served``. The stub
    model answers "true"; the clock file is not to be moved."""
    folder = tmp_path_factory.mktemp(f"shared-{request.param}")
    with (
        fresh_database(request.param, folder, _templates, migrated=True, kb=True) as url,
        serve_app(url, folder, "true") as app,
    ):
        yield app


# The accounts of accounts-mode tests: a key (the name they log in as on an app of their own),
# its role, password and cohort.
USERS = {
    "stu": ("student", "student password 1", "year-1"),
    "ins": ("instructor", "instructor password 1", "year-1"),
    "adm": ("admin", "admin password 123", None),
}


@dataclass(frozen=True)
class App:
    """A served app in accounts mode; ``names`` maps a key of :data:`USERS` to the account's
    name on this app (the key itself on an app of the test's own, a name of the test's own on
    the shared one)."""

    url: str
    database_url: str
    names: Mapping[str, str] = field(default_factory=dict)

    def account(self, key: str) -> str:
        """The name of the account ``key`` (a :data:`USERS` key) on this app."""
        return self.names.get(key, key)


class _OneHashPerPassword:
    """argon2-cffi's default hasher (the product's parameters) that hashes each password once a
    process: every test's accounts on the shared accounts app carry real hashes, checked by the
    app as any other, without paying 1.2-1.4 s a hash three times a test. The salt is shared by
    the accounts of one password, which only these tests make."""

    def __init__(self) -> None:
        from argon2 import PasswordHasher

        self._hasher = PasswordHasher()
        self._hashes: dict[str, str] = {}

    def hash(self, password: str) -> str:
        """The password's hash, made the first time it is asked for."""
        if password not in self._hashes:
            self._hashes[password] = self._hasher.hash(password)
        return self._hashes[password]

    def __getattr__(self, name: str) -> Any:
        return getattr(self._hasher, name)


_ONE_HASH = _OneHashPerPassword()


def add_accounts(database_url: str, names: Mapping[str, str]) -> None:
    """Create the accounts of :data:`USERS` named ``names[key]`` in ``database_url``."""
    from quizbot import accounts
    from storage import open_database

    db = open_database(database_url)
    try:
        with pytest.MonkeyPatch.context() as patch:
            patch.setattr(accounts, "_hasher", _ONE_HASH)
            for key, name in names.items():
                role, password, cohort = USERS[key]
                accounts.create_user(db, name, role, password, cohort=cohort)
    finally:
        db.dispose()


@pytest.fixture(scope="session", params=BACKENDS)
def accounts_shared(
    request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory, _templates: Any
) -> Iterator[App]:
    """One app in accounts mode per database backend for a test process (no model configured,
    as test_accounts.py's ``app``), shared by tests that use accounts of their own only
    (``shared_app``); an admin of its own makes it start in accounts mode. A test that changes
    settings, locks what others use or reads every account's or student's data has an app of
    its own."""
    folder = tmp_path_factory.mktemp(f"accounts-{request.param}")
    with fresh_database(request.param, folder, _templates, migrated=True, kb=True) as url:
        add_accounts(url, {"adm": "shared-admin"})
        with serve_accounts(url, folder) as base:
            yield App(base, url)


@pytest.fixture
def shared_app(accounts_shared: App) -> App:
    """The shared accounts-mode app with a student, an instructor and an admin of this test's
    own (:data:`USERS`' roles, passwords and cohorts under names no other test has):
    ``app.account("stu")`` is the student's name."""
    suffix = uuid.uuid4().hex[:10]
    names = {key: f"{key}-{suffix}" for key in USERS}
    add_accounts(accounts_shared.database_url, names)
    return App(accounts_shared.url, accounts_shared.database_url, names)


def _browser_or_skip() -> None:
    if not Path(CHROMIUM).exists():
        if os.environ.get("QUIZBOT_REQUIRE_BROWSER") == "1":
            pytest.fail(f"{CHROMIUM} is missing (apt-get install chromium)")
        pytest.skip("Debian's chromium is not installed (.ci/run installs it)")


@contextmanager
def open_page(url: str, init_script: str | None = None) -> Iterator[Any]:
    """A Chromium page on the app at ``url``, once the page's own load events have run
    (``init_script``: JavaScript run in the page before the app's own scripts)."""
    _browser_or_skip()
    from playwright.sync_api import sync_playwright

    with sync_playwright() as pw:
        browser = pw.chromium.launch(executable_path=CHROMIUM, args=["--no-sandbox"])
        context = browser.new_context(viewport={"width": 1400, "height": 1000})
        tab = context.new_page()
        tab.set_default_timeout(WAIT_MS)
        watch(tab)
        if init_script is not None:
            tab.add_init_script(init_script)
        tab.goto(url)
        tab.get_by_text("quizbot", exact=False).first.wait_for()
        wait_loaded(tab, url)  # tests start once the page's own load events have run
        try:
            yield tab
        finally:
            context.close()
            browser.close()


@pytest.fixture
def page(served: Served) -> Iterator[object]:
    """A Chromium page on the served app (skips when Chromium is not installed)."""
    with open_page(served.url) as tab:
        yield tab


@pytest.fixture
def shared_page(served_shared: Served) -> Iterator[object]:
    """A fresh Chromium page (its own browser context) on the shared served app."""
    with open_page(served_shared.url) as tab:
        yield tab


def screenshot(page: object, name: str) -> Path:
    """Save a full-page screenshot under tests/artifacts/ and return its path."""
    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    path = ARTIFACTS / f"{name}.png"
    page.screenshot(path=str(path), full_page=True)  # type: ignore[attr-defined]
    return path
