"""Where a browser test's set-up goes: each phase of what tests/ui/conftest.py does, timed once.

The phases, in the order a test with its own served app (``page`` + ``served``) pays them: a
database migrated from empty and the default KB installed (what the per-process template does
once; a served app's first start on an empty database did both every time), the stub model
server's start, `quizbot serve` (with its stub) until it answers, Playwright with Chromium
launched, the page loaded and drawn, its load events settled, the browser closed and the app
stopped. ``--postgres URL`` (an admin URL, e.g. postgresql://postgres@127.0.0.1:5432/test) also
times the migration and the KB on a new PostgreSQL database, dropped after. The load average is
printed beside: on a shared machine the times follow the load. Usage (from the repository root):

    PYTHONPATH=$PWD .venv/bin/python bench/ui_setup_phases.py [--postgres URL]
"""

from __future__ import annotations

import argparse
import os
import shutil
import tempfile
import time
import uuid
from pathlib import Path

from quizbot.kb.registry import DEFAULT_KB, get_kb
from storage import open_database
from tests.helpers.stub import stub_server
from tests.ui import conftest as ui
from tests.ui.events import wait_loaded, watch


class Laps:
    """Prints the time since the last lap under a name."""

    def __init__(self) -> None:
        self.at = time.perf_counter()

    def lap(self, name: str) -> None:
        """Print ``name`` and the seconds since the last lap."""
        now = time.perf_counter()
        print(f"{now - self.at:6.2f} s  {name}", flush=True)
        self.at = now


def _database(url: str, laps: Laps, backend: str) -> None:
    db = open_database(url)
    db.dispose()
    laps.lap(f"{backend}: migrate an empty database")
    db = open_database(url)
    get_kb(db, DEFAULT_KB)
    db.dispose()
    laps.lap(f"{backend}: install the default KB")


def _postgres(admin: str, laps: Laps) -> None:
    import psycopg

    name = f"quizbot_phases_{uuid.uuid4().hex[:8]}"
    with psycopg.connect(admin, autocommit=True) as conn:
        conn.execute(f'CREATE DATABASE "{name}"')
    try:
        info = psycopg.conninfo.conninfo_to_dict(admin)
        host, port = info.get("host", "127.0.0.1"), info.get("port", "5432")
        url = f"postgresql+psycopg://{info.get('user', 'postgres')}@{host}:{port}/{name}"
        laps.at = time.perf_counter()
        _database(url, laps, "postgresql")
    finally:
        with psycopg.connect(admin, autocommit=True) as conn:
            conn.execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')


def main() -> None:
    """Time the phases once and print them."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--postgres", help="admin URL of a PostgreSQL server to time too")
    args = parser.parse_args()
    os.environ.setdefault("LITELLM_LOCAL_MODEL_COST_MAP", "True")
    os.environ.setdefault("GRADIO_ANALYTICS_ENABLED", "False")
    folder = Path(tempfile.mkdtemp(prefix="ui-phases-"))
    try:
        laps = Laps()
        _database(f"sqlite:///{folder / 'template.db'}", laps, "sqlite")
        if args.postgres:
            _postgres(args.postgres, laps)
            laps.at = time.perf_counter()  # not the database's drop
        shutil.copyfile(folder / "template.db", folder / "quizbot.db")
        laps.lap("sqlite: copy the template")
        with stub_server("--answer", "true"):
            laps.lap("the stub model server alone, started")
        app_folder = folder / "app"
        app_folder.mkdir()
        with ui.serve_app(f"sqlite:///{folder / 'quizbot.db'}", app_folder, "true") as served:
            laps.lap("quizbot serve (and the stub) until it answers")
            from playwright.sync_api import sync_playwright

            with sync_playwright() as pw:
                browser = pw.chromium.launch(executable_path=ui.CHROMIUM, args=["--no-sandbox"])
                context = browser.new_context(viewport={"width": 1400, "height": 1000})
                tab = context.new_page()
                watch(tab)
                laps.lap("Playwright, Chromium and a browser context")
                tab.goto(served.url)
                tab.get_by_text("quizbot", exact=False).first.wait_for()
                laps.lap("the page loaded and drawn")
                wait_loaded(tab, served.url)
                laps.lap("its load events settled")
                context.close()
                browser.close()
            laps.lap("the browser closed")
        laps.lap("the app stopped")
        print(f"load average {os.getloadavg()[0]:.1f}")
    finally:
        shutil.rmtree(folder, ignore_errors=True)


if __name__ == "__main__":
    main()
