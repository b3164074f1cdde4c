# Shared by scripts/run.sh and scripts/test.sh: find Python 3.11, make the venv, install quizbot.
# Installs are pinned by constraints.txt (the set of versions the suite last passed with) and
# skipped when nothing they depend on has changed.

set -euo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
VENV="${QUIZBOT_VENV:-$ROOT/.venv}"

find_python() {
    local candidate
    for candidate in "${PYTHON:-}" python3.11 python3 python; do
        [ -n "$candidate" ] || continue
        command -v "$candidate" >/dev/null 2>&1 || continue
        if "$candidate" -c 'import sys; sys.exit(0 if sys.version_info[:2] == (3, 11) else 1)' 2>/dev/null; then
            echo "$candidate"
            return 0
        fi
    done
    echo "error: quizbot needs Python 3.11 (set PYTHON=/path/to/python3.11)" >&2
    return 1
}

# ensure_installed EXTRAS: create $VENV if needed and install quizbot[EXTRAS] editable into it.
ensure_installed() {
    local extras="$1" spec stamp want
    if [ ! -x "$VENV/bin/python" ]; then
        local python
        python="$(find_python)"
        echo ">> creating virtual environment $VENV" >&2
        "$python" -m venv "$VENV"
        "$VENV/bin/python" -m pip install --quiet --upgrade pip >&2
    fi
    spec="$ROOT"
    [ -n "$extras" ] && spec="$ROOT[$extras]"
    want="$(cat "$ROOT/pyproject.toml" "$ROOT/constraints.txt" | sha256sum | cut -c1-16)-$extras"
    stamp="$VENV/.quizbot-install"
    if [ ! -f "$stamp" ] || ! grep -qx -- "$want" "$stamp" 2>/dev/null; then
        echo ">> installing quizbot${extras:+[$extras]} into $VENV" >&2
        "$VENV/bin/python" -m pip install --quiet --disable-pip-version-check \
            -c "$ROOT/constraints.txt" -e "$spec" >&2
        echo "$want" >>"$stamp"
    fi
}
