"""Start the web app: open the database (migrating an empty one), build the UI, serve it."""

from __future__ import annotations

import logging
import socket

from quizbot import __version__
from quizbot.config import Settings
from quizbot.errors import ConfigError
from quizbot.kb.registry import DEFAULT_KB, get_kb
from storage import open_database

__all__ = ["serve"]

log = logging.getLogger(__name__)


def _check_port_free(host: str, port: int) -> None:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as sock:
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        try:
            sock.bind((host, port))
        except OSError as exc:
            raise ConfigError(
                f"cannot listen on {host}:{port} ({exc.strerror})",
                hint="pass --port with a free port or set QUIZBOT_PORT",
            ) from None


def serve(settings: Settings, *, host: str | None = None, port: int | None = None) -> None:
    """Serve the app until interrupted. Blocks."""
    host = host or settings.host
    port = port or settings.port
    settings.ensure_home()
    db = open_database(settings.effective_database_url, settings.engine_options())
    _check_port_free(host, port)
    kb, _kb_id = get_kb(db, DEFAULT_KB)  # the embedded KB is ready offline from the first start
    log.info("knowledge base %s %s ready", kb.name, kb.version)
    # gradio takes seconds to import: only `serve` pays for it, not every CLI command.
    from quizbot.ui.app import build_app, launch_options  # noqa: PLC0415

    app = build_app(settings, db)
    scheduler = None
    if settings.scheduler:
        from quizbot.monitoring.scheduler import start  # noqa: PLC0415 - only when asked for

        scheduler, _jobs = start(db, settings)
    log.info("quizbot %s on http://%s:%d (database %s)", __version__, host, port, db.masked_url)
    try:
        app.queue(default_concurrency_limit=16).launch(
            server_name=host,
            server_port=port,
            show_error=False,
            quiet=True,
            **launch_options(settings),
        )
    finally:
        if scheduler is not None:
            from quizbot.monitoring.scheduler import stop  # noqa: PLC0415

            stop(scheduler, wait=False)
        db.dispose()
