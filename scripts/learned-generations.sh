#!/usr/bin/env bash
# Generations of the learned value net (Evaluator=learned): net 1 is trained on games Deep Red
# plays with pst, net k+1 on the games net k plays plus all earlier data. Each generation plays
# pst and the previous generation (deepred match, openings from the book in pairs, colours
# swapped); the Elo table goes to $OUT/generations.csv and its picture to $OUT/generations.png
# ($OUT/generations-n<MATCH_NODES>.csv/.png for fixed-node matches), rewritten from every
# generation's match files on each run.
#
#   scripts/learned-generations.sh
#
# env: GENS (2), GAMES per generation of datagen (20000), NODES per datagen move (5000), EPOCHS
# (30), HIDDEN (256), WDL (0), MATCH_GAMES (400), TC (10+0.1), MATCH_NODES (unset: the matches
# play at TC; set: at this many nodes a move instead, the fixed-node equivalent, far quicker and
# not disturbed by other work on the machine), CONCURRENCY (1), BOOK
# (../shared/data/books/noob_3moves.epd), OUT (data/learned). Resumable: datagen goes on where
# it stopped, and a generation whose net and match files exist is not redone.
set -euo pipefail
. "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
cd "$ROOT"
GENS=${GENS:-2}
GAMES=${GAMES:-20000}
NODES=${NODES:-5000}
EPOCHS=${EPOCHS:-30}
HIDDEN=${HIDDEN:-256}
WDL=${WDL:-0}
MATCH_GAMES=${MATCH_GAMES:-400}
TC=${TC:-10+0.1}
MATCH_NODES=${MATCH_NODES:-}
CONCURRENCY=${CONCURRENCY:-1}
BOOK=${BOOK:-$SHARED/books/noob_3moves.epd}
OUT=${OUT:-data/learned}
need_shared "$BOOK" "or set BOOK=..."
# Always the checkout's own binary, built here (DEEPRED is not read).
cargo build --release --bin deepred >/dev/null
DEEPRED="$ROOT/target/release/deepred"
need_deepred
BIN="$DEEPRED"
mkdir -p "$OUT"
if [ -n "$MATCH_NODES" ]; then
  LIMIT=(--nodes "$MATCH_NODES") SUFFIX="-n$MATCH_NODES" CSV="$OUT/generations-n$MATCH_NODES.csv"
else
  LIMIT=(--tc "$TC") SUFFIX="" CSV="$OUT/generations.csv"
fi

# "score%,elo,error" of a match summary ("score 62.5%, Elo +89 ± 40 (95%), ...")
summary() { awk '/^score/ { gsub(/[%,+]/, ""); print $2 "," $4 "," $6; exit }' "$1"; }

match() { # $1 = net, $2 = label of the opponent, $3... = the opponent's options
  local net=$1 label=$2 txt
  shift 2
  txt="$OUT/match-$(basename "$net" .safetensors)-vs-$label$SUFFIX.txt"
  if [ ! -s "$txt" ]; then
    "$BIN" match --engine "$BIN" --engine-option Evaluator=learned --engine-option "EvalFile=$(realpath "$net")" \
      --opponent "$BIN" "$@" "${LIMIT[@]}" --games "$MATCH_GAMES" --book "$BOOK" --seed 11 \
      --concurrency "$CONCURRENCY" --pgn "${txt%.txt}.pgn" --quiet > "$txt"
  fi
  echo "$(summary "$txt")"
}

echo "generation,opponent,games,score_pct,elo,elo_95" > "$CSV"
for g in $(seq 1 "$GENS"); do
  if [ "$g" = 1 ]; then
    EVAL=(--evaluator pst)
  else
    EVAL=(--evaluator learned --eval-file "$OUT/gen$((g - 1)).safetensors")
  fi
  echo "generation $g: datagen"
  "$BIN" datagen --games "$GAMES" --nodes "$NODES" --book "$BOOK" --seed "$g" "${EVAL[@]}" \
    --out "$OUT/gen$g.bin"
  if [ ! -s "$OUT/gen$g.safetensors" ]; then
    echo "generation $g: training"
    DATA=()
    for k in $(seq 1 "$g"); do DATA+=("$OUT/gen$k.bin"); done
    "$BIN" train-learned --data "${DATA[@]}" --out "$OUT/gen$g.safetensors" --hidden "$HIDDEN" \
      --epochs "$EPOCHS" --wdl "$WDL" --generation "$g" --csv "$OUT/gen$g-train.csv"
  fi
  echo "generation $g: against pst"
  r=$(match "$OUT/gen$g.safetensors" pst --opponent-option Evaluator=pst)
  echo "$g,pst,$MATCH_GAMES,$r" >> "$CSV"
  if [ "$g" -gt 1 ]; then
    prev="$OUT/gen$((g - 1)).safetensors"
    echo "generation $g: against generation $((g - 1))"
    r=$(match "$OUT/gen$g.safetensors" "gen$((g - 1))" --opponent-option Evaluator=learned \
      --opponent-option "EvalFile=$(realpath "$prev")")
    echo "$g,generation $((g - 1)),$MATCH_GAMES,$r" >> "$CSV"
  fi
done
"$BIN" curve-plot --generations --csv "$CSV" --out "${CSV%.csv}.png" \
  --title "Deep Red's learned net, generation by generation (${LIMIT[*]})"
cat "$CSV"
