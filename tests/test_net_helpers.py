"""The helper that stops the servers tests start (tests/helpers/net.py): a polite stop first,
a kill for a server that ignores it, and no error for one already gone."""

from __future__ import annotations

import signal
import subprocess
import sys
import time

from tests.helpers.net import stop_process

# Prints "ready" once its SIGTERM handler (which ignores the signal) is installed.
STUBBORN = (
    "import signal, sys, time\n"
    "signal.signal(signal.SIGTERM, signal.SIG_IGN)\n"
    "print('ready', flush=True)\n"
    "time.sleep(600)\n"
)


def test_a_server_that_stops_on_sigterm_exits_by_it() -> None:
    proc = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(600)"])
    assert stop_process(proc) == -signal.SIGTERM


def test_a_server_that_ignores_sigterm_is_killed_after_the_timeout() -> None:
    proc = subprocess.Popen([sys.executable, "-c", STUBBORN], stdout=subprocess.PIPE, text=True)
    assert proc.stdout is not None
    assert proc.stdout.readline().strip() == "ready"
    began = time.monotonic()
    assert stop_process(proc, timeout=0.5) == -signal.SIGKILL
    assert time.monotonic() - began >= 0.5  # it was given its time first
    proc.stdout.close()


def test_a_server_already_gone_is_reaped_with_its_status() -> None:
    proc = subprocess.Popen([sys.executable, "-c", "raise SystemExit(3)"])
    proc.wait(timeout=30)
    assert stop_process(proc) == 3
