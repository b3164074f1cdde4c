"""bench/_collapsed.py: where the load bench's py-spy samples are counted."""

from __future__ import annotations

from pathlib import Path

from bench._collapsed import REST, Profile

LOOP = "Server.run (uvicorn/server.py);BaseEventLoop._run_once (asyncio/base_events.py)"
WORKER = "Thread._bootstrap (threading.py);WorkerThread.run (anyio/_backends/_asyncio.py)"


def test_samples_are_counted_where_they_ran(tmp_path: Path) -> None:
    raw = tmp_path / "server.txt"
    raw.write_text(
        "\n".join(
            [
                f"{WORKER};function_wrapper.<locals>.wrapper (gradio/utils.py);submit (x.py) 7",
                f"{LOOP};Blocks.process_api (gradio/blocks.py);postprocess (gradio/x.py) 3",
                f"{WORKER};_run (quizbot/practice/next_plan.py);plan_next (q.py) 5",
                f"{WORKER};Gate.principal (quizbot/ui/gate.py) 2",
                f"{LOOP};RequestTimer.__call__ (quizbot/ui/metrics.py);observe (p/x.py) 1",
                f"{LOOP};H11Protocol.data_received (uvicorn/protocols/http/h11_impl.py) 4",
                f"{LOOP};dumps (json/__init__.py) 2",
                "not a sample line",
            ]
        )
        + "\n"
    )
    profile = Profile()
    profile.add_file(raw)
    assert profile.total == 24
    assert list(profile.by_category.values()) == [7, 3, 5, 2, 1, 6]
    assert profile.by_category[REST] == 6
    assert profile.outside_files == {"uvicorn": 4, "json": 2}
    assert profile.outside["H11Protocol.data_received (uvicorn/protocols/http/h11_impl.py)"] == 4
    assert "Server.run (uvicorn/server.py)" not in profile.outside  # on every stack: left out
    text = "\n".join(profile.lines())
    assert "29.2 %  our handlers" in text  # 7 of 24
    assert "25.0 %  the rest" in text
