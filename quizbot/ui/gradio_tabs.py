"""The server's cost of a new browser tab, cut where Gradio lets it be (issue 32).

The first request of a Gradio session (a new tab, or a new API client) makes the session's
state, which builds the config of every block of the app: 306 blocks in quizbot's, each
through ``Block.get_config``, which asks ``inspect.signature`` of the block's class
``__init__`` every time. Profiled under the load bench (docs/performance.md, Part 9) this was
the largest cost outside our handlers: about 45-55 ms of CPU per new tab, half of it in
``inspect.signature``, paid by every student's first request, so by the whole class's burst of
first starts. A signature never changes for the same function object, so
:func:`cache_block_signatures` gives ``gradio.blocks`` an ``inspect`` whose ``signature`` is
remembered per callable; everything else is the ``inspect`` module itself. A touch of Gradio's
insides (its module's global): ``tests/ui/test_gradio_tabs.py`` fails if it stops taking
effect.
"""

from __future__ import annotations

import functools
import inspect
import types
from collections.abc import Callable
from typing import Any

import gradio.blocks

__all__ = ["CachedSignatures", "cache_block_signatures"]

SIGNATURES_KEPT = 4096  # callables whose signature is remembered (blocks' classes, event fns)


class CachedSignatures:
    """The ``inspect`` module, with ``signature(obj)`` remembered per (hashable) callable."""

    def __init__(self) -> None:
        self._cached: Callable[[Any], inspect.Signature] = functools.lru_cache(
            maxsize=SIGNATURES_KEPT
        )(inspect.signature)

    def signature(self, obj: Any, *args: Any, **kwargs: Any) -> inspect.Signature:
        """``inspect.signature``, remembered when called with the callable alone."""
        if args or kwargs:
            return inspect.signature(obj, *args, **kwargs)
        try:
            hash(obj)
        except TypeError:
            return inspect.signature(obj)
        return self._cached(obj)

    def __getattr__(self, name: str) -> Any:
        return getattr(inspect, name)


def cache_block_signatures() -> None:
    """Give ``gradio.blocks`` the :class:`CachedSignatures` (once; idempotent)."""
    if isinstance(getattr(gradio.blocks, "inspect", None), types.ModuleType):
        setattr(gradio.blocks, "inspect", CachedSignatures())  # noqa: B010 (not exported)
