#!/usr/bin/env bash
# Does Deep Red play better after it has played? A learning curve at fixed nodes (independent of
# the machine's load): Deep Red with `Learning` on plays block after block of the same openings
# (each in a pair, colours swapped) against one fixed opponent, learning into one store as it
# goes (search memory, Q-learning step, move records; the match runner also learns the counts
# of adjudicated games). Block k is played after the games of blocks 0..k-1 were learned. The
# same block is played once with Learning off: both engines are deterministic at fixed nodes,
# so that block is what every block would be without learning.
#
# Usage: scripts/learn-curve.sh
# Environment (defaults in brackets):
#   OPENINGS   openings per block, evenly spaced lines of noob_3moves.epd [20]
#   BLOCKS     blocks played with learning                                [10]
#   DR_NODES   Deep Red's nodes per move                                  [20000]
#   SF_NODES   Stockfish's nodes per move                                 [1000]
#   SKIP       first line of the book taken (another value: other openings) [1]
#   STORE      the store learned into (kept between runs if it exists)    [$OUT/learn.sqlite]
#   OUT        work directory                                             [/tmp/deepred-learn-curve]
#   OPPONENT   the opponent's command instead of Stockfish, at OPP_NODES nodes [SF_NODES]
#   TITLE      the picture's title                                        [Deep Red learning]
#   EVALUATOR  Deep Red's evaluator (the runs in BENCHMARKS.md used pst)  [learned]
# Writes $OUT/curve.csv and its picture $OUT/curve.png (deepred curve-plot): block, games learned before it, score, Elo and its 95% error bar, and
# the coverage: the share of Deep Red's moves whose position the store knew before the block
# (remembered by the search memory; remembered or in the move records).
set -euo pipefail
. "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
need_deepred
OPENINGS="${OPENINGS:-20}"
BLOCKS="${BLOCKS:-10}"
DR_NODES="${DR_NODES:-20000}"
SF_NODES="${SF_NODES:-1000}"
SKIP="${SKIP:-1}"
EVALUATOR="${EVALUATOR:-learned}"
OUT="${OUT:-/tmp/deepred-learn-curve}"
STORE="${STORE:-$OUT/learn.sqlite}"
BOOK="$SHARED/books/noob_3moves.epd"
need_shared "$BOOK"
mkdir -p "$OUT"
if [ -z "${OPPONENT:-}" ]; then
  need_engine STOCKFISH stockfish stockfish
  OPP=(--opponent "$STOCKFISH" --opponent-option Hash=16 --opponent-option Threads=1 --opponent-nodes "$SF_NODES")
else
  OPP=(--opponent "$OPPONENT" --opponent-nodes "${OPP_NODES:-$SF_NODES}")
fi
lines=$(wc -l < "$BOOK")
awk -v step=$(( lines / OPENINGS )) -v n="$OPENINGS" -v skip="$SKIP" \
  'NR >= skip && (NR - skip) % step == 0 && c < n { print; c++ }' "$BOOK" > "$OUT/openings.epd"
GAMES=$((2 * OPENINGS))

play() { # $1 = label, $2 = Learning true/false
  "$DEEPRED" match "${OPP[@]}" --nodes "$DR_NODES" --engine-option "Evaluator=$EVALUATOR" \
    --engine-option "Learning=$2" --engine-option "ExperienceFile=$STORE" \
    $( [ "$2" = true ] && echo --learn --db "$STORE" ) \
    --book "$OUT/openings.epd" --games "$GAMES" --concurrency 1 --seed 7 \
    --pgn "$OUT/$1.pgn" --quiet > "$OUT/$1.txt"
}
# "score%,elo,error" of a match summary ("score 62.5%, Elo +89 ± 40 (95%), ...")
summary() { awk '/^score/ { gsub(/[%,+]/, ""); print $2 "," $4 "," $6; exit }' "$OUT/$1.txt"; }

rm -f "$OUT"/block-*.pgn "$OUT"/off.pgn
echo "block,games_learned,learning,score_pct,elo,elo_95,remembered_pct,known_pct" > "$OUT/curve.csv"
play off false
echo "off: $(head -2 "$OUT/off.txt" | tail -1)"
echo "-,0,off,$(summary off),," >> "$OUT/curve.csv"
for k in $(seq 0 $((BLOCKS - 1))); do
  learned=$("$DEEPRED" experience stats --db "$STORE" 2>/dev/null | awk '/^games:/ {print $2}' || echo 0)
  # The store as it was before the block, for the coverage of the block's games.
  rm -f "$OUT/before.sqlite"
  [ -e "$STORE" ] && python3 -c "import sqlite3,sys; sqlite3.connect(sys.argv[1]).backup(sqlite3.connect(sys.argv[2]))" "$STORE" "$OUT/before.sqlite"
  play "block-$k" true
  cover=","
  if [ -e "$OUT/before.sqlite" ]; then
    cover=$("$DEEPRED" experience coverage --pgn "$OUT/block-$k.pgn" --db "$OUT/before.sqlite" |
      awk -F'[()%]' '/^remembered/ {r=$2} /^either/ {e=$2} END {print r "," e}')
  fi
  echo "block $k (${learned:-0} games learned before; known before: $cover): $(head -2 "$OUT/block-$k.txt" | tail -1)"
  echo "$k,${learned:-0},on,$(summary "block-$k"),$cover" >> "$OUT/curve.csv"
done
"$DEEPRED" experience stats --db "$STORE" | tee "$OUT/store-stats.txt"
"$DEEPRED" curve-plot --csv "$OUT/curve.csv" --out "$OUT/curve.png" --title "${TITLE:-Deep Red learning}"
