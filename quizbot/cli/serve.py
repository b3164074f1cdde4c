"""`quizbot serve`: the web app."""

from __future__ import annotations

import click

from quizbot.cli.base import App, cli
from quizbot.logs import configure_logging


@cli.command("serve")
@click.option(
    "--host", default=None, help="Address to listen on [default: QUIZBOT_HOST or 127.0.0.1]."
)
@click.option(
    "--port",
    type=click.IntRange(1, 65535),
    default=None,
    help="Port to listen on [default: QUIZBOT_PORT or 7860].",
)
@click.pass_obj
def serve_cmd(app: App, host: str | None, port: int | None) -> None:
    """Start the web app (migrates an empty database first)."""
    from quizbot.server import serve

    settings = app.settings
    configure_logging(settings.log_level if settings.log_level != "WARNING" else "INFO")
    serve(settings, host=host, port=port)
