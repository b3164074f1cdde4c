"""Who may call each event handler of the app, declared where the handlers are wired.

:func:`quizbot.ui.app.build_app` wires each tab's handlers inside :meth:`Wiring.area`, which
names the area (the audit log's ``ui.<area>``) and the role its handlers need (``None``:
everyone, as in local mode). Every handler registered inside the block gets that declaration;
a handler wired outside every area has none, and :func:`quizbot.ui.identity.restrict` refuses
to build such an app. The role check is then put in front of each handler whose area needs a
role; how many were guarded is kept (:attr:`Wiring.guarded`) and checked at build time and by
``tests/ui/test_wiring.py``, whose table of every handler and its role is the contract.
"""

from __future__ import annotations

import functools
import weakref
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from typing import Any

import gradio as gr

from quizbot.domain import Role

__all__ = ["EVERYONE", "Area", "Wiring", "handler_name", "wiring_of"]

EVERYONE: Role | None = None  # an area whose handlers anyone may call (local mode: everything)

_OF_APP: weakref.WeakKeyDictionary[gr.Blocks, Wiring] = weakref.WeakKeyDictionary()


@dataclass(frozen=True, slots=True)
class Area:
    """A part of the app (a tab, or the page itself) and the role its handlers need."""

    name: str
    role: Role | None


class Wiring:
    """The declared area of every handler of one app, by the handler's id in ``app.fns``."""

    def __init__(self, app: gr.Blocks) -> None:
        self.app = app
        self.declared: dict[int, Area] = {}
        self.guarded: int | None = None  # set by identity.restrict: how many it wrapped
        _OF_APP[app] = self

    @contextmanager
    def area(self, name: str, role: Role | None) -> Iterator[Area]:
        """Every handler wired inside the block belongs to area ``name`` and needs ``role``
        (an inner block's declaration wins over an outer one's)."""
        declared = Area(name, role)
        before = set(self.app.fns)
        try:
            yield declared
        finally:
            for key in self.app.fns:
                if key not in before:
                    self.declared.setdefault(key, declared)

    def area_of(self, key: int) -> Area | None:
        """The declared area of the handler ``app.fns[key]`` (None: declared nowhere)."""
        return self.declared.get(key)

    def restricted(self) -> int:
        """How many handlers (with a function) are declared to need a role."""
        fns = self.app.fns
        return sum(
            1
            for key, area in self.declared.items()
            if area.role is not None and key in fns and fns[key].fn is not None
        )


def wiring_of(app: gr.Blocks) -> Wiring | None:
    """The wiring declared for ``app`` by :func:`quizbot.ui.app.build_app` (None: none)."""
    return _OF_APP.get(app)


def handler_name(fn: Callable[..., Any] | None) -> str:
    """A readable, stable name of a handler: its module (without ``quizbot.ui.``) and qualified
    name without ``<locals>``, seen through ``functools.partial`` and wrappers."""
    while isinstance(fn, functools.partial):
        fn = fn.func
    if fn is None:
        return "-"
    inner = getattr(fn, "__wrapped__", None)
    if callable(inner):
        return handler_name(inner)
    module = str(getattr(fn, "__module__", "") or "").removeprefix("quizbot.ui.")
    qualname = str(getattr(fn, "__qualname__", None) or getattr(fn, "__name__", "handler"))
    return f"{module}:{qualname.replace('.<locals>', '')}"
