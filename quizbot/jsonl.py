"""Reading user-supplied JSON-lines files with errors that name the file and line."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from quizbot.errors import InputError

__all__ = ["read_objects"]


def read_objects(path: Path) -> Iterator[tuple[int, dict[str, Any]]]:
    """Yield (line number, object) for each non-blank line; :class:`InputError` otherwise.

    Tolerates a UTF-8 byte-order mark. Every line must be a JSON object.
    """
    label = str(path)
    try:
        lines = path.read_text(encoding="utf-8-sig").splitlines()
    except (OSError, UnicodeDecodeError) as exc:
        raise InputError(f"cannot read ({exc})", path=label) from None
    for number, raw in enumerate(lines, start=1):
        if not raw.strip():
            continue
        try:
            record = json.loads(raw)
        except json.JSONDecodeError as exc:
            raise InputError(f"not valid JSON ({exc.msg})", path=label, line=number) from None
        if not isinstance(record, dict):
            raise InputError("each line must be a JSON object", path=label, line=number)
        yield number, record
