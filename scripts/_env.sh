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
        local links=()
        case ",$extras," in *,local,*) links=(--find-links "$(local_model_wheelhouse)") ;; esac
        echo ">> installing quizbot${extras:+[$extras]} into $VENV" >&2
        "$VENV/bin/python" -m pip install --quiet --disable-pip-version-check \
            -c "$ROOT/constraints.txt" "${links[@]}" -e "$spec" >&2
        echo "$want" >>"$stamp"
    fi
}

# local_model_wheelhouse: build llama.cpp's Python wheel once, for any x86-64 CPU with AVX2, into
# a folder of our own and print that folder. pip's own cache is not used for it: a wheel built
# there with llama.cpp's default -march=native may use instructions (AMX, AVX-512 FP16) that a
# virtual machine announces but traps, and then every completion dies with a segfault.
local_model_wheelhouse() {
    local version dir
    version="$(grep -i '^llama[-_]cpp[-_]python==' "$ROOT/constraints.txt" | cut -d= -f3)"
    dir="${QUIZBOT_WHEELHOUSE:-${XDG_CACHE_HOME:-$HOME/.cache}/quizbot/wheelhouse}/portable-1"
    if ! ls "$dir"/llama_cpp_python-"$version"-*.whl >/dev/null 2>&1; then
        echo ">> building llama.cpp $version for the local model (once, about 6 minutes)" >&2
        mkdir -p "$dir"
        CMAKE_ARGS="${QUIZBOT_LLAMA_CMAKE_ARGS:--DGGML_NATIVE=OFF -DGGML_AVX=ON -DGGML_AVX2=ON -DGGML_FMA=ON -DGGML_F16C=ON -DGGML_BMI2=ON}" \
            "$VENV/bin/python" -m pip wheel --quiet --disable-pip-version-check --no-cache-dir \
            --no-deps "llama-cpp-python==$version" -w "$dir" >&2
    fi
    echo "$dir"
}
