#!/usr/bin/env bash
# The experience store's two backends side by side, in one run: bulk import throughput
# (games/s) into an SQLite file and into a PostgreSQL server, and the aggregate learning rate of
# 1, 2 and 4 concurrent workers that each learn their own games one transaction per game (as
# self-play and UCI `Learning` do) into one store of each kind.
#
#   scripts/store-bench.sh [OUT.csv]
#
# Needs Debian's postgresql package (a throw-away cluster is started in a temporary directory on
# a free local port, and stopped at the end) and ../shared/data/pgn/games. BIN picks the binary
# (default target/release/deepred, built first).
set -euo pipefail
. "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
cd "$ROOT"
OUT=${1:-benchmarks/store-backends.csv}
GAMES=${GAMES:-$SHARED/pgn/games}
need_shared "$GAMES" "or set GAMES=..."
# BIN (not DEEPRED) picks the binary; the default one is built first.
if [ -z "${BIN:-}" ] || [ "$BIN" = target/release/deepred ]; then
    cargo build --release --bin deepred >/dev/null
fi
need_deepred BIN
BIN="$DEEPRED"

PGBIN=$(dirname "$(realpath "$(command -v initdb || ls /usr/lib/postgresql/*/bin/initdb | tail -1)")")
WORK=$(mktemp -d /tmp/deepred-store-bench.XXXXXX)
chmod 755 "$WORK"
AS=()
if [ "$(id -u)" = 0 ]; then
    chown postgres "$WORK"
    AS=(runuser -u postgres --)
fi
PW=bench-pw
echo "$PW" >"$WORK/pw"
"${AS[@]}" "$PGBIN/initdb" -D "$WORK/data" -U deepred --pwfile="$WORK/pw" -A scram-sha-256 \
    --no-sync >"$WORK/initdb.log" 2>&1
PORT=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])')
# A server as shipped (fsync on): what a farm would run.
"${AS[@]}" "$PGBIN/pg_ctl" -D "$WORK/data" -l "$WORK/server.log" -w \
    -o "-p $PORT -c listen_addresses=127.0.0.1 -c unix_socket_directories=$WORK" start >/dev/null
trap '"${AS[@]}" "$PGBIN/pg_ctl" -D "$WORK/data" -m fast stop >/dev/null 2>&1 || true; rm -rf "$WORK"' EXIT
PSQL=(env PGPASSWORD=$PW psql -q -h 127.0.0.1 -p "$PORT" -U deepred -d postgres)
n=0
new_store() { # $1: sqlite|postgresql, $2: a new number; prints a fresh store's location
    local n=$2
    if [ "$1" = sqlite ]; then
        echo "$WORK/s$n.sqlite"
    else
        "${PSQL[@]}" -c "CREATE DATABASE b$n" >/dev/null
        echo "postgresql://deepred:$PW@127.0.0.1:$PORT/b$n"
    fi
}
# Per-worker game files: 1,500 games each from the Stockfish self-play file.
python3 - "$GAMES/sf15-selfplay-6k-nodes.pgn" "$WORK" <<'EOF'
import sys
text = open(sys.argv[1], encoding="utf-8", errors="replace").read()
games = ["[Event " + g for g in text.split("[Event ")[1:]]
for w in range(4):
    open(f"{sys.argv[2]}/w{w}.pgn", "w").write("".join(games[w * 1500:(w + 1) * 1500]))
EOF

echo "backend,test,workers,games,seconds,games_per_s" >"$OUT"
BULK=("$GAMES/Korchnoi.pgn" "$GAMES/Nakamura.pgn" "$GAMES/TCEC_Season_13_-_Superfinal.pgn")
for backend in sqlite postgresql; do
    n=$((n + 1))
    db=$(new_store $backend $n)
    line=$("$BIN" import --db "$db" "${BULK[@]}" 2>/dev/null | tail -1)
    games=$(echo "$line" | sed -E 's/.*: ([0-9]+) learned.*/\1/')
    secs=$(echo "$line" | sed -E 's/.* ([0-9.]+) s, .*/\1/')
    echo "$backend,bulk import,1,$games,$secs,$(python3 -c "print(round($games/$secs))")" | tee -a "$OUT"
    for workers in 1 2 4; do
        n=$((n + 1))
        db=$(new_store $backend $n)
        # The store is made before the clock starts.
        "$BIN" import --db "$db" /dev/null >/dev/null 2>&1 || true
        t0=$(date +%s.%N)
        for w in $(seq 0 $((workers - 1))); do
            "$BIN" import --batch 1 --db "$db" "$WORK/w$w.pgn" >/dev/null 2>&1 &
        done
        wait
        t1=$(date +%s.%N)
        games=$("$BIN" experience stats --db "$db" | sed -nE 's/^games: ([0-9]+)/\1/p')
        secs=$(python3 -c "print(round($t1 - $t0, 2))")
        echo "$backend,learn one game per transaction,$workers,$games,$secs,$(python3 -c "print(round($games/($t1-$t0)))")" | tee -a "$OUT"
    done
done
