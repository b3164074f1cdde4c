"""Shared fixtures: real databases only.

Every test that asks for ``database_url`` (directly or through ``db``/``empty_db``) runs twice:
on a fresh SQLite file and on a fresh PostgreSQL database created on the local server
(``QUIZBOT_TEST_POSTGRES``, default postgresql://postgres@127.0.0.1:5432/test) and dropped after.
Without a reachable server the PostgreSQL half is skipped with the reason, unless
``QUIZBOT_REQUIRE_POSTGRES=1`` (set by CI), where it fails instead.

A test that asks for ``db`` gets its database already migrated, copied from a template migrated
once per test process (a file copy on SQLite, ``CREATE DATABASE ... TEMPLATE`` on PostgreSQL):
migrating from empty costs 1.5-3 s a test, a copy a fraction of that. Tests of the migrations
themselves ask for ``empty_db`` and still start from nothing.

A test of what accounts do (lockout, sessions, the audit log) may ask for ``quick_argon2``: the
same argon2id hashing at the lowest cost argon2 allows, instead of argon2-cffi's defaults (64 MiB
and 3 passes: 1.2-1.4 s a hash or check on this loaded machine, and a lockout test makes a dozen).
The parameters a stored hash carries are tested with the real ones (tests/storage/test_accounts.py).
"""

from __future__ import annotations

import os
import shutil
import uuid
from collections.abc import Iterator
from contextlib import contextmanager
from functools import lru_cache
from pathlib import Path

import psycopg
import pytest

from storage import Database, open_database

PG_ADMIN = os.environ.get("QUIZBOT_TEST_POSTGRES", "postgresql://postgres@127.0.0.1:5432/test")
REQUIRE_PG = os.environ.get("QUIZBOT_REQUIRE_POSTGRES", "") in {"1", "true", "yes"}
BACKENDS = [
    b.strip() for b in os.environ.get("QUIZBOT_TEST_BACKENDS", "sqlite,postgresql").split(",")
]


@lru_cache(maxsize=1)
def _pg_unavailable() -> str | None:
    try:
        with psycopg.connect(PG_ADMIN, connect_timeout=3) as conn:
            conn.execute("SELECT 1")
    except psycopg.Error as exc:
        return f"PostgreSQL at {PG_ADMIN} is not reachable: {str(exc).strip().splitlines()[0]}"
    return None


@pytest.fixture
def quick_argon2(monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    """Hash and check passwords in process with argon2id at its lowest cost (8 KiB, 1 pass, 1
    lane) for the test; the product's parameters are back after it. Processes the test starts
    (`quizbot serve`, the CLI) keep the real ones."""
    from argon2 import PasswordHasher

    from quizbot import accounts

    accounts._dummy_hash.cache_clear()  # made with the real parameters by an earlier test?
    monkeypatch.setattr(
        accounts, "_hasher", PasswordHasher(time_cost=1, memory_cost=8, parallelism=1)
    )
    yield
    accounts._dummy_hash.cache_clear()  # not to leave a cheap one to the next test


@pytest.fixture(autouse=True)
def _isolated_env(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    """No test reads the developer's own quizbot settings or data directory."""
    for key in list(os.environ):
        if key.startswith("QUIZBOT_") and key not in {
            "QUIZBOT_TEST_POSTGRES",
            "QUIZBOT_REQUIRE_POSTGRES",
            "QUIZBOT_TEST_BACKENDS",
        }:
            monkeypatch.delenv(key)
    monkeypatch.delenv("DATABASE_URL", raising=False)
    monkeypatch.setenv("QUIZBOT_HOME", str(tmp_path / "home"))


def _pg_url(name: str) -> str:
    info = psycopg.conninfo.conninfo_to_dict(PG_ADMIN)
    user = info.get("user", "postgres")
    host = info.get("host", "127.0.0.1")
    port = info.get("port", "5432")
    return f"postgresql+psycopg://{user}@{host}:{port}/{name}"


def _create_pg_database(template: str | None = None) -> str:
    name = f"quizbot_t_{uuid.uuid4().hex[:12]}"
    copy = f' TEMPLATE "{template}"' if template else ""
    with psycopg.connect(PG_ADMIN, autocommit=True) as conn:
        conn.execute(f'CREATE DATABASE "{name}"{copy}')
    return _pg_url(name)


class _Templates:
    """Databases migrated to the newest schema once per test process, copied per test; with
    ``kb``, also holding the built-in default KB as `quizbot serve` installs it at its first
    start (what a served app's database holds after that start, whichever way it was made)."""

    def __init__(self, folder: Path) -> None:
        self.folder = folder
        self._sqlite: dict[bool, Path] = {}
        self._pg: dict[bool, str] = {}

    def sqlite(self, *, kb: bool = False) -> Path:
        if kb not in self._sqlite:
            path = self.folder / ("template-kb.db" if kb else "template.db")
            if kb:
                shutil.copyfile(self.sqlite(), path)
            _seed(f"sqlite:///{path}", kb=kb)
            self._sqlite[kb] = path
        return self._sqlite[kb]

    def postgresql(self, *, kb: bool = False) -> str:
        if kb not in self._pg:
            url = _create_pg_database(self.postgresql() if kb else None)
            self._pg[kb] = url.rsplit("/", 1)[1]  # dropped at the end even if seeding fails
            _seed(url, kb=kb)
        return self._pg[kb]

    def drop(self) -> None:
        for name in self._pg.values():
            _drop_pg_database(_pg_url(name))


def _seed(url: str, *, kb: bool) -> None:
    """Migrate the database at ``url`` and, with ``kb``, install the default KB the way
    `quizbot serve` does at its first start; no connection stays open (a PostgreSQL template
    must have none)."""
    database = open_database(url)
    try:
        if kb:
            from quizbot.kb.registry import DEFAULT_KB, get_kb  # imported by KB tests only

            get_kb(database, DEFAULT_KB)
    finally:
        database.dispose()


@pytest.fixture(scope="session")
def _templates(tmp_path_factory: pytest.TempPathFactory) -> Iterator[_Templates]:
    templates = _Templates(tmp_path_factory.mktemp("templates"))
    try:
        yield templates
    finally:
        templates.drop()


def _drop_pg_database(url: str) -> None:
    name = url.rsplit("/", 1)[1]
    with psycopg.connect(PG_ADMIN, autocommit=True) as conn:
        conn.execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')


@contextmanager
def fresh_database(
    backend: str, folder: Path, templates: _Templates, *, migrated: bool, kb: bool = False
) -> Iterator[str]:
    """A fresh database of ``backend`` ("sqlite": a file in ``folder``; "postgresql": a new
    database, dropped after), empty or a copy of the migrated template (with ``kb``: of the one
    that also holds the default KB). Skips (or, with ``QUIZBOT_REQUIRE_POSTGRES``, fails) when
    the PostgreSQL server cannot be reached."""
    if backend == "sqlite":
        path = folder / "quizbot.db"
        if migrated:
            shutil.copyfile(templates.sqlite(kb=kb), path)
        yield f"sqlite:///{path}"
        return
    reason = _pg_unavailable()
    if reason:
        if REQUIRE_PG:
            pytest.fail(reason + " (QUIZBOT_REQUIRE_POSTGRES is set)")
        pytest.skip(reason)
    url = _create_pg_database(templates.postgresql(kb=kb) if migrated else None)
    try:
        yield url
    finally:
        _drop_pg_database(url)


@pytest.fixture(params=BACKENDS)
def database_url(
    request: pytest.FixtureRequest, tmp_path: Path, _templates: _Templates
) -> Iterator[str]:
    """URL of a fresh database: a SQLite file, or a new PostgreSQL database. Empty, unless the
    test also asks for ``db`` (then a copy of the migrated template, as ``db`` would make it)
    or ``served_database`` (a copy of the template that also holds the default KB)."""
    kb = "served_database" in request.fixturenames
    migrated = kb or ("db" in request.fixturenames and "empty_db" not in request.fixturenames)
    with fresh_database(request.param, tmp_path, _templates, migrated=migrated, kb=kb) as url:
        yield url


@pytest.fixture
def served_database(database_url: str) -> str:
    """The test's database (``database_url``) for an app it serves, as `quizbot serve` leaves
    it after its first start: migrated, the default KB installed, copied from a template made
    once per test process. Each served app's first start on an empty database spent 1-3 s
    migrating it and writing the KB (about 3 s on PostgreSQL on an idle machine), the same
    work for every test; that first start is tests/quizbot/test_server.py's to test."""
    return database_url


@pytest.fixture
def served_home(tmp_path: Path, _templates: _Templates) -> Path:
    """A ``QUIZBOT_HOME`` (``tmp_path / "home"``) whose default SQLite database is as
    `quizbot serve` leaves it after its first start (migrated, the default KB installed), copied
    from the template: for tests of a served process's later behaviour on SQLite only; the
    first start on an empty home stays tests/quizbot/test_server.py's first test."""
    home = tmp_path / "home"
    home.mkdir(parents=True, exist_ok=True)
    shutil.copyfile(_templates.sqlite(kb=True), home / "quizbot.db")
    return home


@pytest.fixture
def empty_db(database_url: str) -> Iterator[Database]:
    """A connected database with no schema at all."""
    database = Database(database_url)
    try:
        yield database
    finally:
        database.dispose()


@pytest.fixture
def db(database_url: str) -> Iterator[Database]:
    """A connected database migrated to the newest schema."""
    database = open_database(database_url)
    try:
        yield database
    finally:
        database.dispose()
