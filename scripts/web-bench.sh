#!/usr/bin/env bash
# The explorer's answer times on a store (BENCHMARKS.md, "Deep Red in the browser"):
#   STORE=/tmp/deepred-memory-bench/store.sqlite scripts/web-bench.sh
# serves STORE with `deepred web` on a free port and walks the known moves from the start
# (PLIES deep, WIDTH moves a position, default 6 and 4) with scripts/web_bench.py.
set -euo pipefail
. "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
need_deepred
STORE="${STORE:?set STORE to an experience store}"
PORT="${PORT:-8097}"
"$DEEPRED" web --db "$STORE" --listen "127.0.0.1:$PORT" 2> /tmp/deepred-web-bench.log &
pid=$!
trap 'kill $pid 2>/dev/null' EXIT
for _ in $(seq 100); do
    grep -q "http://" /tmp/deepred-web-bench.log 2>/dev/null && break
    sleep 0.1
done
python3 "$ROOT/scripts/web_bench.py" "http://127.0.0.1:$PORT" "${PLIES:-6}" "${WIDTH:-4}"
