#!/usr/bin/env bash
# Strength limiting against Stockfish 15.1's own UCI_Elo levels, through `deepred match`.
#
# Usage:
#   scripts/strength-calibration.sh levels  "4:1500 10:1800 16:2100"   # Skill Level L against SF UCI_Elo E
#   scripts/strength-calibration.sh elo     "1500 1800 2100"           # UCI_Elo E against SF UCI_Elo E
#
# The first form measures what a Skill Level plays like (to fit the UCI_Elo -> level map in
# src/search/skill.rs); the second checks the map: Deep Red asked for E against Stockfish at E
# should score about 50%.
#
# Environment (defaults in brackets):
#   DEEPRED      Deep Red binary                 [target/release/deepred]
#   STOCKFISH    Stockfish 15.1                  [stockfish in PATH, else /usr/games/stockfish]
#   GAMES        games per match                 [100]
#   TC           time control of both sides      [5+0.05]
#   CONCURRENCY  games at once                   [2]
#   BOOK         EPD openings                    [../shared/data/books/noob_3moves.epd]
#   OUT          folder for PGNs and summaries   [/tmp/strength]
#   SEED         opening order                   [1]
set -euo pipefail
. "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
MODE="${1:-}"
LIST="${2:-}"
[ -n "$MODE" ] && [ -n "$LIST" ] || { sed -n '2,9p' "$0" >&2; exit 2; }

GAMES="${GAMES:-100}"
TC="${TC:-5+0.05}"
CONCURRENCY="${CONCURRENCY:-2}"
BOOK="${BOOK:-$SHARED/books/noob_3moves.epd}"
OUT="${OUT:-/tmp/strength}"
SEED="${SEED:-1}"

need_shared "$BOOK" "or set BOOK=..."
need_deepred
need_engine STOCKFISH stockfish stockfish
mkdir -p "$OUT"

run() { # name, deepred options...
    local name="$1" sf_elo="$2"
    shift 2
    echo "== $name against Stockfish UCI_Elo $sf_elo, $GAMES games at $TC"
    "$DEEPRED" match --opponent "$STOCKFISH" \
        --opponent-option UCI_LimitStrength=true --opponent-option "UCI_Elo=$sf_elo" \
        --opponent-option "Move Overhead=100" \
        "$@" --tc "$TC" --games "$GAMES" --concurrency "$CONCURRENCY" --book "$BOOK" \
        --seed "$SEED" --pgn "$OUT/$name-sf$sf_elo.pgn" --quiet | tee "$OUT/$name-sf$sf_elo.txt"
}

case "$MODE" in
    levels)
        for pair in $LIST; do
            level="${pair%%:*}"
            elo="${pair##*:}"
            run "level$level" "$elo" --engine-option "Skill Level=$level"
        done
        ;;
    elo)
        for elo in $LIST; do
            run "elo$elo" "$elo" --engine-option UCI_LimitStrength=true --engine-option "UCI_Elo=$elo"
        done
        ;;
    *)
        echo "error: mode '$MODE' is not levels or elo" >&2
        exit 2
        ;;
esac
