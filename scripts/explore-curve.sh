#!/usr/bin/env bash
# The seed's claim, measured: the pure mode (`selfplay --explore`: the best known move when its
# record is winning for the mover, else a move not tried yet, at random) starts from an empty
# store and learns from its own games. After 0, 1,000, 10,000 and 100,000 learned games its score
# against a uniformly random mover (`selfplay --explore --versus-random`, colours alternating,
# drawn at 400 plies). Needs nothing beside the checkout.
#
# Usage: scripts/explore-curve.sh
# Environment (defaults in brackets):
#   STEPS   games learned at each checkpoint, in increasing order  ["1000 10000 100000"]
#   GAMES   games against the random mover at each checkpoint      [2000]
#   EPSILON share of random moves while learning, percent (0: the seed's own mode) [0]
#   OUT     work directory                                          [/tmp/deepred-explore-curve]
# Writes $OUT/curve.csv (curve-plot's columns) and $OUT/curve.png.
set -euo pipefail
. "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
need_deepred
STEPS="${STEPS:-1000 10000 100000}"
GAMES="${GAMES:-2000}"
EPSILON="${EPSILON:-0}"
OUT="${OUT:-/tmp/deepred-explore-curve}"
mkdir -p "$OUT"
STORE="$OUT/explore.sqlite"
rm -f "$STORE" "$STORE"-wal "$STORE"-shm
echo "block,games_learned,learning,score_pct,elo,elo_95" > "$OUT/curve.csv"
measure() { # $1 = games played so far
  line=$("$DEEPRED" selfplay --explore --versus-random --games "$GAMES" --db "$STORE" --seed 99)
  echo "$1 games played ($("$DEEPRED" experience stats --db "$STORE" 2>/dev/null | awk '/^games:/ {print $2}') distinct in the store): $line"
  echo "$line" | awk -v n="$1" '{
    for (i = 1; i <= NF; i++) { if ($i == "score") s = $(i + 1); if ($i == "Elo") { e = $(i + 1); r = $(i + 3) } }
    gsub(/[%,+;]/, "", s); gsub(/\+/, "", e); print "-," n ",on," s "," e "," r }' >> "$OUT/curve.csv"
}
learned=0
measure 0
for step in $STEPS; do
  "$DEEPRED" selfplay --explore --explore-epsilon "$EPSILON" --games $((step - learned)) \
    --db "$STORE" --seed "$step" > /dev/null
  learned=$step
  measure "$learned"
done
"$DEEPRED" experience stats --db "$STORE" | tee "$OUT/store-stats.txt"
"$DEEPRED" curve-plot --csv "$OUT/curve.csv" --out "$OUT/curve.png" --title "Pure mode against a random mover"
