"""A minimal replica for proxy tests: an ASGI app that answers each POST after a delay.

Run under uvicorn (``python -m uvicorn tests.helpers.tiny_replica:app``) with ``HANDLER_S``, the
seconds a POST takes, and optionally ``MARK_DIR``, where a file named after the process id is
written when a POST arrives (so a test knows which replica holds a request in flight). Every
answer is ``{"pid": PID}``; ``/healthz`` answers at once.
"""

from __future__ import annotations

import asyncio
import json
import os
from pathlib import Path
from typing import Any

DELAY_S = float(os.environ.get("HANDLER_S", "0.02"))
MARKS = os.environ.get("MARK_DIR")


async def app(scope: dict[str, Any], receive: Any, send: Any) -> None:
    """Answer after reading the whole body; POSTs after ``HANDLER_S``."""
    if scope["type"] != "http":
        return
    more = True
    while more:
        message = await receive()
        more = message.get("more_body", False)
    if scope["method"] == "POST":
        if MARKS:
            Path(MARKS, str(os.getpid())).touch()
        await asyncio.sleep(DELAY_S)
    await send(
        {
            "type": "http.response.start",
            "status": 200,
            "headers": [(b"content-type", b"application/json")],
        }
    )
    await send({"type": "http.response.body", "body": json.dumps({"pid": os.getpid()}).encode()})
