"""Architectural boundaries, checked on the source: each heavy dependency has one home."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
PACKAGES = ("quizbot", "storage", "schedules")

# library -> the only places allowed to import it
HOMES: dict[str, tuple[str, ...]] = {
    "sqlalchemy": ("storage/",),
    "sqlmodel": ("storage/",),
    "alembic": ("storage/",),
    "psycopg": ("storage/",),
    # the work queue (procrastinate) lives in the database: storage/jobs.py is its one home
    "procrastinate": ("storage/",),
    "gradio": ("quizbot/ui/",),
    # the web server: FastAPI/Starlette only where Gradio is mounted (and the page event stream's
    # middleware), uvicorn only to run it
    "fastapi": ("quizbot/ui/gate.py",),
    "starlette": ("quizbot/ui/gate.py", "quizbot/ui/event_stream.py"),
    "uvicorn": ("quizbot/server.py",),
    # passwords are hashed in one place
    "argon2": ("quizbot/accounts.py",),
    "litellm": ("quizbot/providers/litellm",),
    # the interop extra's libraries: only the exported task's scorer loads `datasets`, and
    # nothing in quizbot imports the harnesses themselves (they read what quizbot writes)
    "datasets": ("quizbot/interop/lm_eval_task.py",),
    "lm_eval": ("quizbot/interop/lm_eval_task.py",),
    "inspect_ai": ("quizbot/interop/lm_eval_task.py",),
}


def _sources() -> list[Path]:
    files = [ROOT / "app.py"]
    for package in PACKAGES:
        files += sorted((ROOT / package).rglob("*.py"))
    return files


def _imports(path: Path) -> set[str]:
    tree = ast.parse(path.read_text(encoding="utf-8"), filename=str(path))
    found: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            found.update(alias.name.split(".")[0] for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            found.add(node.module.split(".")[0])
    return found


@pytest.mark.parametrize("library", sorted(HOMES))
def test_library_is_imported_only_from_its_home(library: str) -> None:
    offenders = [
        str(path.relative_to(ROOT))
        for path in _sources()
        if library in _imports(path) and not str(path.relative_to(ROOT)).startswith(HOMES[library])
    ]
    assert offenders == [], f"{library} imported outside {HOMES[library]}"


def test_the_boundary_check_sees_real_imports() -> None:
    """Guard against the check passing vacuously: storage really imports sqlalchemy."""
    assert "sqlalchemy" in _imports(ROOT / "storage" / "engine.py")
    assert "gradio" in _imports(ROOT / "quizbot" / "ui" / "app.py")


def _modules(path: Path) -> set[str]:
    tree = ast.parse(path.read_text(encoding="utf-8"), filename=str(path))
    found: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            found.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            found.add(node.module)
            found.update(f"{node.module}.{alias.name}" for alias in node.names)
    return found


def test_table_rows_never_leave_storage() -> None:
    """Code above storage gets quizbot.domain records; only storage/ knows the tables."""
    offenders = [
        str(path.relative_to(ROOT))
        for path in _sources()
        if any(m == "storage.models" or m.startswith("storage.models.") for m in _modules(path))
        and not str(path.relative_to(ROOT)).startswith("storage/")
    ]
    assert offenders == [], "import records from quizbot.domain instead"
