"""Start quizbot's own OpenAI-compatible test model server (tests/helpers/model_server.py).

It lives in the repository so that every HTTP, resume and browser test runs from a bare clone;
the shared stub under ``../shared/tools/`` is for benchmarks only.
"""

from __future__ import annotations

import subprocess
import sys
import threading
from collections import deque
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from tests.helpers.net import stop_process

SERVER = Path(__file__).resolve().with_name("model_server.py")
START_TIMEOUT = 15.0
STDERR_LINES_KEPT = 200  # the end of the server's stderr, for the message of a failed start


@contextmanager
def stub_server(*args: str, server: Path = SERVER) -> Iterator[str]:
    """Run the test model server with ``args``; yield its base URL (``http://127.0.0.1:PORT/v1``).

    ``server``: another script with the same command line and first line (benchmarks pass the
    shared stub). Raises ``RuntimeError`` with the server's stderr if it does not start.
    """
    proc = subprocess.Popen(
        [sys.executable, str(server), "--port", "0", *args],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    # stderr is read for as long as the server runs: a server that writes more than a pipe
    # holds (64 KiB: tracebacks of failed requests) would otherwise block mid-test
    errors: deque[str] = deque(maxlen=STDERR_LINES_KEPT)
    err_stream = proc.stderr
    assert err_stream is not None
    drain = threading.Thread(target=lambda: errors.extend(err_stream), daemon=True)
    drain.start()
    try:
        out = proc.stdout
        assert out is not None
        first: list[str] = []
        reader = threading.Thread(target=lambda: first.append(out.readline()), daemon=True)
        reader.start()
        reader.join(START_TIMEOUT)
        line = first[0].strip() if first else ""
        if not line.startswith("listening on "):
            proc.kill()
            drain.join(5)
            err = "".join(errors)
            raise RuntimeError(f"test model server did not start: {line!r} {err}")
        yield f"http://{line.removeprefix('listening on ')}/v1"
    finally:
        stop_process(proc, 10)
        drain.join(5)
        for stream in (proc.stdout, proc.stderr):  # else each start leaks two pipes
            if stream is not None:
                stream.close()
