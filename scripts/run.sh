#!/usr/bin/env bash
# Install quizbot (first run only) and start the web app on a SQLite file in the data directory.
# Extra arguments go to `quizbot serve`, e.g. scripts/run.sh --port 8000
source "$(dirname "${BASH_SOURCE[0]}")/_env.sh"
ensure_installed ""
exec "$VENV/bin/quizbot" serve "$@"
