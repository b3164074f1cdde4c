"""quizbot's items and runs in the formats of the harnesses researchers use.

:mod:`quizbot.interop.lm_eval` writes an item set as an lm-evaluation-harness task directory
(``quizbot items export NAME --format lm-eval``); :mod:`quizbot.interop.inspect_log` writes a run
as an Inspect AI eval log and a run's answers as JSONL (``quizbot runs export RUN``). Neither
needs the harness installed to write; the ``interop`` extra installs both to run and read them.
"""
