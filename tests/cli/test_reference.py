"""The README's command-line reference is generated from the commands and must be current."""

from __future__ import annotations

import importlib.util
from pathlib import Path
from types import ModuleType

import click

from quizbot.cli import cli

ROOT = Path(__file__).resolve().parents[2]


def _script() -> ModuleType:
    spec = importlib.util.spec_from_file_location(
        "cli_reference", ROOT / "scripts" / "cli_reference.py"
    )
    assert spec and spec.loader
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_the_readme_reference_is_current() -> None:
    script = _script()
    assert script.main(["--check", str(ROOT / "README.md")]) == 0


def test_every_command_is_in_the_reference() -> None:
    text = _script().reference(cli)
    for usage in (
        "quizbot eval ",
        "quizbot monitor run NAME",
        "quizbot db upgrade",
        "--retry-errors",
    ):
        assert usage in text


def test_a_new_command_makes_the_check_fail(tmp_path: Path) -> None:
    script = _script()
    readme = tmp_path / "README.md"
    readme.write_text((ROOT / "README.md").read_text(encoding="utf-8"), encoding="utf-8")

    @click.command("brand-new")
    @click.option("--flag", is_flag=True)
    def brand_new(flag: bool) -> None:
        """A command nobody documented."""

    cli.add_command(brand_new)
    try:
        assert script.main(["--check", str(readme)]) == 1
        assert script.main(["--write", str(readme)]) == 0
        assert "quizbot brand-new [--flag]" in readme.read_text(encoding="utf-8")
        assert script.main(["--check", str(readme)]) == 0
    finally:
        cli.commands.pop("brand-new")
