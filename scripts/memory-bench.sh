#!/usr/bin/env bash
# The search memory at scale (issue 27): a store of POSITIONS remembered positions and GAMES
# games, then the first move of each game of an engine with Learning on, under go wtime 1000
# btime 1000 winc 10 binc 10 (it must answer within its time), and the engine's peak memory;
# with FASTCHESS, GAMES_FC games at 1+0.01 through fastchess with Learning on, counting time
# losses.
#
# Usage: scripts/memory-bench.sh
# Environment (defaults in brackets):
#   POSITIONS   remembered positions in the store           [10000000]
#   GAMES       games in the store                          [1000000]
#   FIRST       games whose first move is timed            [10]
#   OUT         work folder (the store is kept there)        [/tmp/deepred-memory-bench]
#   BASE        another Deep Red binary timed the same way, side by side (e.g. an older build)
#   FASTCHESS   fastchess binary (built from its public source); unset: no match
#   GAMES_FC    games of the fastchess match                 [100]
#   BOOK        its openings (EPD), played in pairs           [../shared/data/books/noob_3moves.epd]
#   DEEPRED     the Deep Red binary                          [target/release/deepred]
set -euo pipefail
. "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
need_deepred
POSITIONS="${POSITIONS:-10000000}"
GAMES="${GAMES:-1000000}"
FIRST="${FIRST:-10}"
OUT="${OUT:-/tmp/deepred-memory-bench}"
GAMES_FC="${GAMES_FC:-100}"
mkdir -p "$OUT"
STORE="$OUT/store.sqlite"
# An older BASE creates the store in its own schema and is timed first; Deep Red then brings
# the store up to date (as a user's upgrade does) and is timed on the same rows.
if [ ! -f "$STORE" ]; then
    : > "$OUT/empty.pgn"
    # (an empty PGN makes the store; import then says "no game in the input" and exits 1)
    "${BASE:-$DEEPRED}" import --db "$STORE" "$OUT/empty.pgn" > /dev/null 2>&1 || true
    python3 "$ROOT/scripts/memory_bench.py" fill "$STORE" "$POSITIONS" "$GAMES"
fi
if [ -n "${BASE:-}" ]; then
    echo "== $BASE"
    python3 "$ROOT/scripts/memory_bench.py" first-moves "$BASE" "$STORE" "$FIRST"
fi
echo "== $DEEPRED"
python3 "$ROOT/scripts/memory_bench.py" first-moves "$DEEPRED" "$STORE" "$FIRST"
if [ -n "${FASTCHESS:-}" ]; then
    [ -x "$FASTCHESS" ] || { echo "error: FASTCHESS '$FASTCHESS' is not executable" >&2; exit 1; }
    echo "== fastchess: $GAMES_FC games at 1+0.01, Learning on"
    BOOK="${BOOK:-$ROOT/../shared/data/books/noob_3moves.epd}"
    [ -f "$BOOK" ] || { echo "error: no opening book '$BOOK' (set BOOK)" >&2; exit 1; }
    rm -f "$OUT/fastchess.pgn"
    "$FASTCHESS" -engine cmd="$DEEPRED" name=learning option.Learning=true "option.ExperienceFile=$STORE" \
        -engine cmd="$DEEPRED" name=plain -each tc=1+0.01 -rounds $((GAMES_FC / 2)) -games 2 -repeat \
        -openings file="$BOOK" format=epd order=random -concurrency 1 \
        -pgnout file="$OUT/fastchess.pgn" > "$OUT/fastchess.txt" 2>&1 || true
    tail -15 "$OUT/fastchess.txt"
    echo "time losses: $(grep -ci 'loses on time\|time forfeit' "$OUT/fastchess.pgn" || true)"
fi
