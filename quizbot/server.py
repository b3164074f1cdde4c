"""Start the web app: open the database (migrating an empty one), pick the mode, serve it.

The modes (:func:`check_mode`): *local* (loopback, no account: the single-user app of old),
*accounts* (an account exists: every route but the login page needs a session) and *proxy* (an
authenticating proxy names the user in a trusted header). Listening beyond loopback in local mode
is refused: it would give every student's data and the operator's model keys to the network.
"""

from __future__ import annotations

import asyncio
import faulthandler
import ipaddress
import logging
import os
import shutil
import signal
import socket
import sys
import time
from pathlib import Path
from types import FrameType
from typing import Any, Literal

from quizbot import __version__
from quizbot.accounts import accounts_exist
from quizbot.config import Settings
from quizbot.errors import ConfigError
from quizbot.kb.registry import DEFAULT_KB, get_kb
from storage import open_database

__all__ = ["check_mode", "is_loopback", "serve", "upload_folder"]

Mode = Literal["local", "accounts", "proxy"]

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


def is_loopback(host: str) -> bool:
    """Whether ``host`` is only reachable from this machine (127.0.0.0/8, ::1, localhost)."""
    if host.strip().lower() == "localhost":
        return True
    try:
        return ipaddress.ip_address(host.strip("[]")).is_loopback
    except ValueError:
        return False


def check_mode(settings: Settings, host: str, has_accounts: bool) -> Mode:
    """The mode to serve in; raises :class:`ConfigError` for local mode beyond loopback."""
    if settings.proxy_mode:
        return "proxy"
    if has_accounts:
        return "accounts"
    if is_loopback(host):
        return "local"
    raise ConfigError(
        f"refusing to listen on {host}: there are no accounts, so anyone who can reach it "
        "would see every student's answers and could spend your model keys",
        hint="create an admin first (`quizbot user add NAME --role admin`, password on standard "
        "input), or set QUIZBOT_TRUSTED_PROXY_HEADER and QUIZBOT_TRUSTED_PROXIES behind an "
        "authenticating proxy, or listen on 127.0.0.1",
    )


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:  # another user's process: alive
        return True
    return True


def upload_folder(home: Path) -> Path:
    """This process's folder for uploaded files, ``$QUIZBOT_HOME/uploads/<pid>`` (private);
    the folders of processes no longer running (killed with ``kill -9``, so Gradio could not
    delete them on the way out) are deleted first."""
    root = home / "uploads"
    root.mkdir(parents=True, exist_ok=True, mode=0o700)
    for child in root.iterdir():
        if child.is_dir() and child.name.isdigit() and not _alive(int(child.name)):
            shutil.rmtree(child, ignore_errors=True)
            log.info("deleted the uploads of process %s, which is gone", child.name)
    mine = root / str(os.getpid())
    mine.mkdir(exist_ok=True, mode=0o700)
    return mine


# Seconds a stopping server gives requests in flight (an answer being stored) before it cuts
# the connections still open (browser tabs' heartbeat streams end at once: see _run).
SHUTDOWN_GRACE_S = 5
# Seconds an idle HTTP connection stays open (above deploy/nginx.conf's keepalive_timeout).
KEEP_ALIVE_S = 75


class _TerminatedError(Exception):
    """SIGTERM, raised again by uvicorn once it has shut down cleanly (see :func:`_run`)."""


def _terminated(signum: int, frame: FrameType | None) -> None:
    raise _TerminatedError


def _run(app: Any, streams: list[asyncio.Event], *, host: str, port: int) -> None:
    """Serve ``app`` with uvicorn until SIGTERM or SIGINT; returns once it has shut down.

    Every open browser tab holds a Gradio heartbeat stream that ends only when one of
    ``streams`` is set (Gradio's own launcher sets it on close; quizbot runs uvicorn itself),
    and uvicorn waits for every open response before it stops: without setting them, SIGTERM
    (a replica taken down) or Ctrl-C waited until the last student closed the page. They are
    set when the signal comes; ``SHUTDOWN_GRACE_S`` bounds the wait for anything else in flight.
    uvicorn raises a caught signal again after shutting down, with the handler that was there
    before it ran: for SIGTERM that is ours, so a stopped server exits 0 rather than dying of
    the signal (Ctrl-C's KeyboardInterrupt likewise, as ``uvicorn.run`` treats it). The
    forwarded headers stay off: the gate decides which peers' headers to trust.
    """
    import uvicorn  # noqa: PLC0415 - serve only

    class Server(uvicorn.Server):
        def handle_exit(self, sig: int, frame: FrameType | None) -> None:
            try:
                loop: asyncio.AbstractEventLoop | None = asyncio.get_running_loop()
            except RuntimeError:  # no loop running: nothing is streaming
                loop = None
            if loop is not None:
                for event in streams:
                    loop.call_soon_threadsafe(event.set)
            super().handle_exit(sig, frame)

    config = uvicorn.Config(
        app,
        host=host,
        port=port,
        proxy_headers=False,
        log_level="warning",
        timeout_graceful_shutdown=SHUTDOWN_GRACE_S,
        # Longer than a proxy's idle limit for its connections to us (deploy/nginx.conf: 60 s),
        # so the proxy closes an idle connection first and never reuses one being closed here
        # (uvicorn's 5 s default invites that race, and nginx would count it as a failure).
        timeout_keep_alive=KEEP_ALIVE_S,
    )
    previous = signal.signal(signal.SIGTERM, _terminated)
    try:
        Server(config).run()
    except (KeyboardInterrupt, _TerminatedError):
        pass  # shut down already: uvicorn raises the signal again only after that
    finally:
        signal.signal(signal.SIGTERM, previous)


GIL_SWITCH_INTERVAL_S = 0.001  # Python's default is 0.005


def share_the_gil_quickly() -> None:
    """Let a thread waiting for the GIL have it after 1 ms of another thread's work, not 5 ms.

    An answer makes 16-19 database round trips, giving the GIL up for each and waiting to take
    it back; while a start or a background plan computes in another thread, each wait lasted up
    to the switch interval, and the slow answers spent 75-87 ms in their statements against 8
    for the median (docs/performance.md, Part 17). Measured: the answer handler's p95 at 1 M
    answers 0.71 and 0.88 of the default's in two alternating pairs."""
    sys.setswitchinterval(GIL_SWITCH_INTERVAL_S)


def serve(settings: Settings, *, host: str | None = None, port: int | None = None) -> None:
    """Serve the app until interrupted. Blocks."""
    host = host or settings.host
    port = port or settings.port
    settings.ensure_home()
    # `kill -USR1 PID` writes every thread's stack to the log (stderr): where a hung request
    # waits, without stopping the server.
    faulthandler.register(signal.SIGUSR1, all_threads=True)
    db = open_database(settings.effective_database_url, settings.engine_options())
    try:
        mode = check_mode(settings, host, accounts_exist(db))
    except ConfigError:
        db.dispose()
        raise
    _check_port_free(host, port)
    kb, _kb_id = get_kb(db, DEFAULT_KB)  # the embedded KB is ready offline from the first start
    log.info("knowledge base %s %s ready", kb.name, kb.version)
    from quizbot.practice.planning import prepare  # noqa: PLC0415 - serve only

    started = time.perf_counter()  # a session start's KB work, done once before the first one
    log.info("%d facts planned in %.1f s", prepare(kb), time.perf_counter() - started)
    # gradio takes seconds to import: only `serve` pays for it, not every CLI command.
    from quizbot.ui.gate import heartbeat_stops, web_app  # noqa: PLC0415

    # uploads in a folder of this process, where the next start finds them if it is killed
    os.environ["GRADIO_TEMP_DIR"] = str(upload_folder(settings.home))
    app = web_app(settings, db)
    share_the_gil_quickly()
    from quizbot.practice.next_plan import schedule_refresh  # noqa: PLC0415 - serve only

    schedule_refresh(db)  # the plans a release made stale, made again before the class is back
    scheduler = None
    if settings.scheduler:
        from quizbot.monitoring.scheduler import start  # noqa: PLC0415 - only when asked for

        scheduler, _jobs = start(db, settings)
    if mode == "accounts" and settings.admin_password is not None:
        log.warning("accounts mode: QUIZBOT_ADMIN_PASSWORD is ignored (admins log in as accounts)")
    log.info(
        "quizbot %s on http://%s:%d, %s mode (database %s, GIL switch interval %.1f ms)",
        __version__, host, port, mode, db.masked_url, 1000 * sys.getswitchinterval(),
    )  # fmt: skip
    try:
        _run(app, heartbeat_stops(app), host=host, port=port)
    finally:
        if scheduler is not None:
            from quizbot.monitoring.scheduler import stop  # noqa: PLC0415

            stop(scheduler, wait=False)
        db.dispose()
