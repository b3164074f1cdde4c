"""Gradio Blocks whose ``gr.skip()`` outputs cost nothing on the server.

Gradio 6 postprocesses a ``gr.skip()`` (``{"__type__": "update"}``) like any property update:
it builds a new instance of the output's component class for the browser session and
recomputes that component's config (an ``inspect.signature`` per call), about 0.3 ms of CPU per
output, and then sends ``{"__type__": "update"}``, which changes nothing in the browser. The
Practice tab's answer has 24 outputs, a dozen of them unchanged by an answer; built that way
they were most of Gradio's postprocessing of an answer.

:class:`SkippingBlocks` leaves a skipped non-state output out of Gradio's postprocessing and
puts the same ``{"__type__": "update"}`` in its place in what is sent, so the browser receives
exactly what it did before. The session's copy of the component is then not rebuilt, which
changes nothing either: the copy would have been built from the same arguments.
"""

from __future__ import annotations

import copy
from typing import Any

import gradio as gr
from gradio.block_function import BlockFunction
from gradio.state_holder import SessionState

__all__ = ["SkippingBlocks", "is_skip"]


def is_skip(value: Any) -> bool:
    """Whether ``value`` is what ``gr.skip()`` returns: an update that changes nothing."""
    if not isinstance(value, dict) or len(value) != 1:
        return False
    kind = value.get("__type__")
    return isinstance(kind, str) and kind == "update"


class SkippingBlocks(gr.Blocks):
    """``gr.Blocks`` with ``gr.skip()`` outputs passed through without postprocessing them."""

    async def postprocess_data(
        self,
        block_fn: BlockFunction,
        predictions: list[Any] | dict[Any, Any],
        state: SessionState | None,
    ) -> list[Any]:
        """Gradio's postprocessing of the outputs that are not skipped; skips sent as they are."""
        outputs = list(block_fn.outputs)
        given: Any = predictions  # a handler's tuple reaches here as it is
        if (
            not isinstance(given, (list, tuple))
            or len(given) != len(outputs)
            or len(outputs) < 2
            or block_fn.batch
            or getattr(block_fn, "is_validator_function", False)
        ):
            return list(await super().postprocess_data(block_fn, predictions, state))
        skipped = [
            not block.stateful and is_skip(value)
            for block, value in zip(outputs, given, strict=True)
        ]
        if not any(skipped):
            return list(await super().postprocess_data(block_fn, predictions, state))
        kept = [i for i, skip in enumerate(skipped) if not skip]
        done: list[Any] = []
        if kept:
            rest = copy.copy(block_fn)
            rest.outputs = [outputs[i] for i in kept]
            values = [given[i] for i in kept]
            # Gradio takes a single output's value unwrapped
            done = list(
                await super().postprocess_data(rest, values[0] if len(kept) == 1 else values, state)
            )
        result: list[Any] = [{"__type__": "update"} for _ in outputs]
        for i, value in zip(kept, done, strict=True):
            result[i] = value
        return result
