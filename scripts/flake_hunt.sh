#!/usr/bin/env bash
# Repeat chosen tests N times and report how often each failed: a test that fails once in 50 runs
# is a bug (in the test or the app) to fix, not to retry.
#
#   scripts/flake_hunt.sh TESTS... [-n N] [--load] [-- PYTEST_ARGS...]
#
#   TESTS        pytest node ids or files (tests/ui/test_assignment.py::test_x, tests/ui/...)
#   -n N         how many runs (default 10); each run is one fresh pytest process
#   --load       keep every core busy with a CPU burner (one busy loop per core) while the tests
#                run; skipped, with a message, when the 1-minute load average is already above
#                FLAKE_MAX_LOAD (default 4): the machine is loaded enough
#   -- ARGS      passed on to pytest (e.g. -- -k postgres)
#
# Every run's output is kept in tests/artifacts/flake_hunt/run-K.log (FLAKE_LOGS to change). The
# report lists each test with failures/runs, then the runs that failed; the exit status is 1 when
# any run failed. Python is $QUIZBOT_VENV/bin/python (default .venv), run from the repository root
# so the code under test is the working tree's.
set -uo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
PYTHON="${QUIZBOT_VENV:-$ROOT/.venv}/bin/python"
LOGS="${FLAKE_LOGS:-$ROOT/tests/artifacts/flake_hunt}"
MAX_LOAD="${FLAKE_MAX_LOAD:-4}"

runs=10
load=0
tests=()
extra=()
while [ $# -gt 0 ]; do
    case "$1" in
        -n)
            [ $# -ge 2 ] || { echo "error: -n needs a number" >&2; exit 2; }
            runs="$2"
            shift 2
            ;;
        -n*) runs="${1#-n}"; shift ;;
        --load) load=1; shift ;;
        --) shift; extra=("$@"); break ;;
        -h|--help) sed -n '2,17p' "${BASH_SOURCE[0]}" | sed 's/^# \{0,1\}//'; exit 0 ;;
        -*) echo "error: unknown option $1 (see --help)" >&2; exit 2 ;;
        *) tests+=("$1"); shift ;;
    esac
done
if [ ${#tests[@]} -eq 0 ]; then
    echo "usage: scripts/flake_hunt.sh TESTS... [-n N] [--load] [-- PYTEST_ARGS...]" >&2
    exit 2
fi
case "$runs" in
    ''|*[!0-9]*|0) echo "error: -n must be a whole number above 0, not '$runs'" >&2; exit 2 ;;
esac
[ -x "$PYTHON" ] || { echo "error: no Python at $PYTHON (set QUIZBOT_VENV)" >&2; exit 2; }
cd "$ROOT"
export LITELLM_LOCAL_MODEL_COST_MAP=True GRADIO_ANALYTICS_ENABLED=False

burners=()
stop_burners() {
    local pid
    for pid in "${burners[@]}"; do
        kill "$pid" 2>/dev/null
    done
    for pid in "${burners[@]}"; do
        wait "$pid" 2>/dev/null
    done
    burners=()
}
trap 'stop_burners' EXIT
trap 'stop_burners; exit 130' INT TERM

load1() { cut -d' ' -f1 /proc/loadavg; }
if [ "$load" -eq 1 ]; then
    if awk -v l="$(load1)" -v m="$MAX_LOAD" 'BEGIN { exit !(l > m) }'; then
        echo ">> --load: no burner, the load average is already $(load1) (> $MAX_LOAD)" >&2
    else
        cores="$(nproc)"
        for _ in $(seq "$cores"); do
            (while :; do :; done) &
            burners+=("$!")
        done
        echo ">> --load: $cores CPU burner(s) running (pids ${burners[*]})" >&2
    fi
fi

mkdir -p "$LOGS"
rm -f "$LOGS"/run-*.log
ids="$("$PYTHON" -m pytest --collect-only -q -p no:randomly "${tests[@]}" "${extra[@]}" 2>/dev/null \
    | grep '::')"
if [ -z "$ids" ]; then
    echo "error: pytest collected no tests from: ${tests[*]}" >&2
    exit 2
fi
declare -A failed_by_id=()
failed_runs=()
start=$(date +%s)
echo ">> $(echo "$ids" | wc -l) test(s), $runs run(s), load average $(load1) at start" >&2
for k in $(seq "$runs"); do
    log="$LOGS/run-$k.log"
    "$PYTHON" -m pytest -q -p no:randomly -p no:cacheprovider -rfE "${tests[@]}" "${extra[@]}" \
        >"$log" 2>&1
    status=$?
    if [ "$status" -eq 0 ]; then
        echo "run $k/$runs: passed ($(load1) load)" >&2
        continue
    fi
    failed_runs+=("$k")
    lines="$(grep -E '^(FAILED|ERROR) ' "$log" | sed -E 's/^(FAILED|ERROR) ([^ ]+).*/\2/' | sort -u)"
    if [ -z "$lines" ]; then  # no test failed: pytest itself did (exit $status)
        lines="(pytest exit $status)"
    fi
    while IFS= read -r id; do
        failed_by_id["$id"]=$(( ${failed_by_id["$id"]:-0} + 1 ))
    done <<<"$lines"
    echo "run $k/$runs: FAILED ($(echo "$lines" | tr '\n' ' ')) see $log" >&2
done
stop_burners
elapsed=$(( $(date +%s) - start ))

echo
echo "flake hunt: $runs run(s) in ${elapsed}s, load average $(load1) at the end"
while IFS= read -r id; do
    echo "  ${failed_by_id["$id"]:-0}/$runs failed  $id"
    unset 'failed_by_id[$id]'
done <<<"$ids"
for id in "${!failed_by_id[@]}"; do  # failures not matched to a collected id
    echo "  ${failed_by_id["$id"]}/$runs failed  $id"
done
echo "failed runs: ${#failed_runs[@]}/$runs${failed_runs[*]:+ (runs ${failed_runs[*]})}"
[ ${#failed_runs[@]} -eq 0 ]
