#!/usr/bin/env bash
# quizbot past one process, on one machine: PostgreSQL's database, N app replicas, M queue
# workers and nginx in front, all on loopback; prints the URL and stops everything on Ctrl-C.
#
#   scripts/cluster.sh [--replicas N] [--workers M] [--port P]
#
# The database is DATABASE_URL when set (postgresql://...), else the database
# ${QUIZBOT_CLUSTER_DB:-quizbot_cluster} on the PostgreSQL server at 127.0.0.1:5432 (user postgres),
# created when missing and kept afterwards. `quizbot db upgrade` runs first. nginx listens on
# 127.0.0.1:P (default 8080) and the replicas on P+1 ... P+N, with the configuration written from
# deploy/nginx.conf into a directory under ${TMPDIR:-/tmp}. Logs: that directory's *.log.
# QUIZBOT_VENV names the virtualenv (default .venv, installed on first use as scripts/run.sh does).
# The same layout across machines is in the README (Deployment: several replicas).
source "$(dirname "${BASH_SOURCE[0]}")/_env.sh"

REPLICAS=2
WORKERS=1
PORT=8080
usage() {
    sed -n '2,13p' "${BASH_SOURCE[0]}" | sed 's/^# \{0,1\}//'
}
while [ $# -gt 0 ]; do
    case "$1" in
        --replicas) REPLICAS="${2:?--replicas needs a number}"; shift 2 ;;
        --workers) WORKERS="${2:?--workers needs a number}"; shift 2 ;;
        --port) PORT="${2:?--port needs a number}"; shift 2 ;;
        -h|--help) usage; exit 0 ;;
        *) echo "error: unknown option $1 (see --help)" >&2; exit 2 ;;
    esac
done
for value in "$REPLICAS" "$WORKERS" "$PORT"; do
    case "$value" in
        ''|*[!0-9]*) echo "error: --replicas, --workers and --port take whole numbers" >&2; exit 2 ;;
    esac
done
if [ "$REPLICAS" -lt 1 ] || [ $((PORT + REPLICAS)) -gt 65535 ] || [ "$PORT" -lt 1 ]; then
    echo "error: at least one replica, on ports that fit below 65536" >&2
    exit 2
fi
NGINX="${NGINX:-$(command -v nginx || echo /usr/sbin/nginx)}"
if [ ! -x "$NGINX" ]; then
    echo "error: nginx not found (install it, or set NGINX=/path/to/nginx)" >&2
    exit 1
fi

# QUIZBOT_SKIP_INSTALL=1: use the virtualenv as it is (a development one with other extras)
[ "${QUIZBOT_SKIP_INSTALL:-}" = 1 ] || ensure_installed ""
QUIZBOT="$VENV/bin/quizbot"
PY="$VENV/bin/python"

if [ -z "${DATABASE_URL:-}" ]; then
    DB_NAME="${QUIZBOT_CLUSTER_DB:-quizbot_cluster}"
    "$PY" - "$DB_NAME" <<'EOF' || exit 1
import sys

import psycopg

name = sys.argv[1]
try:
    with psycopg.connect("postgresql://postgres@127.0.0.1:5432/postgres", autocommit=True,
                         connect_timeout=5) as conn:
        if conn.execute("SELECT 1 FROM pg_database WHERE datname = %s", (name,)).fetchone() is None:
            conn.execute(f'CREATE DATABASE "{name}"')
            print(f">> created the database {name}", file=sys.stderr)
except psycopg.Error as exc:
    first = str(exc).strip().splitlines()[0] if str(exc).strip() else type(exc).__name__
    sys.exit(f"error: no PostgreSQL at 127.0.0.1:5432 ({first}); start it or set DATABASE_URL")
EOF
    export DATABASE_URL="postgresql://postgres@127.0.0.1:5432/$DB_NAME"
fi
case "$DATABASE_URL" in
    postgres*) ;;
    *) echo "error: several replicas need PostgreSQL; DATABASE_URL must be postgresql://..." >&2; exit 2 ;;
esac

RUN_DIR="$(mktemp -d "${TMPDIR:-/tmp}/quizbot-cluster.XXXXXX")"
mkdir -p "$RUN_DIR/logs" "$RUN_DIR/tmp"
PIDS=()
stop_all() {
    trap - INT TERM EXIT
    echo >&2
    echo ">> stopping ${#PIDS[@]} process(es)" >&2
    local pid
    for pid in "${PIDS[@]}"; do kill -TERM "$pid" 2>/dev/null || true; done
    for pid in "${PIDS[@]}"; do wait "$pid" 2>/dev/null || true; done
    echo ">> stopped; logs in $RUN_DIR" >&2
}
trap stop_all EXIT
trap 'exit 130' INT
trap 'exit 143' TERM

"$QUIZBOT" db upgrade || exit 1
if [ "$("$QUIZBOT" user list --json 2>/dev/null | tr -d '[:space:]')" = '{"users":[]}' ]; then
    echo ">> no account yet: the replicas run in local mode (loopback only) until one exists;" >&2
    echo "   create an admin first for accounts mode: $QUIZBOT user add NAME --role admin" >&2
fi

UPSTREAM=""
for i in $(seq 1 "$REPLICAS"); do
    port=$((PORT + i))
    "$QUIZBOT" serve --host 127.0.0.1 --port "$port" >"$RUN_DIR/replica-$i.log" 2>&1 &
    PIDS+=($!)
    UPSTREAM+="        server 127.0.0.1:$port max_fails=1 fail_timeout=10s;"$'\n'
done
for i in $(seq 1 "$WORKERS"); do
    "$QUIZBOT" worker >"$RUN_DIR/worker-$i.log" 2>&1 &
    PIDS+=($!)
done

# deploy/nginx.conf with these ports
awk -v upstream="$UPSTREAM" -v listen="        listen 127.0.0.1:$PORT;" '
    /cluster\.sh: replicas/ { if (!done) { printf "%s", upstream; done = 1 } next }
    /cluster\.sh: listen/ { print listen; next }
    { print }
' "$ROOT/deploy/nginx.conf" >"$RUN_DIR/nginx.conf"

for i in $(seq 1 "$REPLICAS"); do
    port=$((PORT + i))
    for _ in $(seq 1 240); do
        if "$PY" -c "import sys, urllib.request; urllib.request.urlopen(sys.argv[1], timeout=2)" \
            "http://127.0.0.1:$port/healthz" 2>/dev/null; then
            break
        fi
        if ! kill -0 "${PIDS[$((i - 1))]}" 2>/dev/null; then
            echo "error: replica $i stopped; its log ($RUN_DIR/replica-$i.log) ends:" >&2
            tail -n 20 "$RUN_DIR/replica-$i.log" >&2
            exit 1
        fi
        sleep 0.5
    done
done

"$NGINX" -p "$RUN_DIR" -c "$RUN_DIR/nginx.conf" -g 'daemon off;' 2>"$RUN_DIR/logs/nginx.log" &
PIDS+=($!)
sleep 0.5
if ! kill -0 "$!" 2>/dev/null; then
    echo "error: nginx did not start:" >&2
    cat "$RUN_DIR/logs/nginx.log" >&2
    exit 1
fi

echo ">> $REPLICAS replica(s) on 127.0.0.1:$((PORT + 1))-$((PORT + REPLICAS)), $WORKERS worker(s), logs in $RUN_DIR" >&2
echo "quizbot at http://127.0.0.1:$PORT/  (Ctrl-C stops everything)"
# until Ctrl-C/SIGTERM, or until any process ends on its own
wait -n "${PIDS[@]}" || true
echo ">> a process stopped on its own; stopping the rest" >&2
