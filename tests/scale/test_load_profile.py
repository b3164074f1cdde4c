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
                f"{LOOP};GateMiddleware.__call__ (quizbot/ui/gate.py);"
                "RequestTimer.__call__ (quizbot/ui/metrics.py);observe (p/x.py) 1",
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
    assert profile.by_category == {
        "our handlers (Gradio's worker threads)": 7,
        "Gradio's process_api around them (pre/postprocessing)": 3,
        "next sessions planned (background thread)": 5,
        "the gate middleware (quizbot/ui/gate.py)": 2,
        "the request timer (quizbot/ui/metrics.py)": 1,  # its own frame, though inside the gate
        "uvicorn and h11: HTTP": 4,
        REST: 2,
    }
    # the requests' layers, not the work that contains everything below it
    assert profile.outside_files == {"uvicorn": 4, "json": 2, "quizbot": 2, "p": 1}
    assert profile.outside["H11Protocol.data_received (uvicorn/protocols/http/h11_impl.py)"] == 4
    assert "Server.run (uvicorn/server.py)" not in profile.outside  # on every stack: left out
    text = "\n".join(profile.lines())
    assert "29.2 %  our handlers" in text  # 7 of 24
    assert " 8.3 %  the event loop and the standard library alone" in text  # 2 of 24
