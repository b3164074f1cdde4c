"""quizbot.ui.gradio_tabs: a new tab's session state asks no block's signature twice."""

from __future__ import annotations

import inspect
from pathlib import Path
from typing import Any

import gradio.blocks
import pytest
from gradio.state_holder import SessionState
from starlette.routing import Mount

from quizbot.config import load_settings
from quizbot.ui import gate
from quizbot.ui.gradio_tabs import CachedSignatures
from storage import Database


def _blocks(app: Any) -> Any:
    mounted: Any
    (mounted,) = (r.app for r in app.routes if isinstance(r, Mount))
    return mounted.blocks


def test_a_new_tab_asks_no_signature_the_first_one_asked(
    db: Database, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(gradio.blocks, "inspect", inspect)  # as Gradio is, before the app
    settings = load_settings(home=str(tmp_path / "home"), database_url=db.url)
    blocks = _blocks(gate.web_app(settings, db))
    assert isinstance(getattr(gradio.blocks, "inspect"), CachedSignatures)  # noqa: B009
    first = SessionState(blocks)  # the first tab: each block's class asked once
    asked = []
    real = inspect._signature_from_callable  # type: ignore[attr-defined]

    def counted(obj: Any, *args: Any, **kwargs: Any) -> Any:
        asked.append(obj)
        return real(obj, *args, **kwargs)

    monkeypatch.setattr(inspect, "_signature_from_callable", counted)
    second = SessionState(blocks)
    assert len(blocks.blocks) > 100 and asked == []  # uncached: one per block and tab
    assert second.config_values == first.config_values
    # the same configs as Gradio's own inspect gives
    monkeypatch.setattr(gradio.blocks, "inspect", inspect)
    plain = SessionState(blocks)
    assert len(asked) >= len(blocks.blocks) // 2  # the counter counts
    assert plain.config_values == second.config_values


def test_other_uses_of_inspect_pass_through() -> None:
    cached = CachedSignatures()

    def f(a: int, b: str = "x") -> None:
        """A function."""

    assert cached.signature(f) is cached.signature(f)
    assert str(cached.signature(f)) == str(inspect.signature(f))
    assert cached.isfunction(f) and cached.Parameter is inspect.Parameter

    class Unhashable:
        __hash__ = None  # type: ignore[assignment]

        def __call__(self, x: int) -> int:
            return x

    assert str(cached.signature(Unhashable())) == str(inspect.signature(Unhashable()))
    assert str(cached.signature(f, follow_wrapped=False)) == str(inspect.signature(f))
