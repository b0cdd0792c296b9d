#!/usr/bin/env bash
# Does experience help? Deep Red with ExperienceBook on, once with an empty store and once with a
# learned one, each against the same fixed opponent: Stockfish at a fixed node count per move.
#
# Usage: STORE=learned.sqlite scripts/experience-match.sh
# Environment (defaults in brackets):
#   STORE      the learned store to test                      [deepred-experience.sqlite]
#   DEEPRED    Deep Red binary                                [target/release/deepred]
#   FASTCHESS  fastchess binary (built from its public source) [/work/tools/fastchess/fastchess]
#   STOCKFISH  stockfish binary                               [/usr/games/stockfish]
#   NODES      Stockfish nodes per move                       [2000]
#   TC         Deep Red's time control                        [2+0.02]
#   GAMES      games per run                                  [200]
#   OUT        where logs and PGNs go                         [/tmp/deepred-experience-match]
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
STORE="$(realpath "${STORE:-deepred-experience.sqlite}")"
DEEPRED="$(realpath "${DEEPRED:-$ROOT/target/release/deepred}")"
FASTCHESS="${FASTCHESS:-/work/tools/fastchess/fastchess}"
STOCKFISH="${STOCKFISH:-/usr/games/stockfish}"
NODES="${NODES:-2000}"
TC="${TC:-2+0.02}"
GAMES="${GAMES:-200}"
OUT="${OUT:-/tmp/deepred-experience-match}"
BOOK="$ROOT/../shared/data/books/noob_3moves.epd"
[ -x "$FASTCHESS" ] || { echo "error: fastchess not found at $FASTCHESS (build it from its public source)" >&2; exit 1; }
[ -f "$STORE" ] || { echo "error: store $STORE not found" >&2; exit 1; }
mkdir -p "$OUT"
for variant in empty learned; do
  if [ "$variant" = empty ]; then db="$OUT/empty.sqlite"; rm -f "$db"*; else db="$STORE"; fi
  mkdir -p "$OUT/$variant"
  (cd "$OUT/$variant" && "$FASTCHESS" \
     -engine "cmd=$DEEPRED" "name=deepred-$variant" option.ExperienceBook=true "option.ExperienceFile=$db" \
             option.ExperienceMinGames=10 "tc=$TC" \
     -engine "cmd=$STOCKFISH" "name=stockfish-$NODES-nodes" option.Threads=1 option.Hash=16 "nodes=$NODES" tc=60+1 \
     -each proto=uci -rounds $(( (GAMES + 1) / 2 )) -repeat \
     -openings "file=$BOOK" format=epd order=random -srand 4242 \
     -concurrency 2 -pgnout "file=$OUT/$variant.pgn" -recover > "$OUT/$variant.log" 2>&1)
  echo "== $variant store"
  awk '/^Results of /{buf=""; grab=1} grab{buf=buf $0 "\n"} /^-----/ && grab {last=buf; grab=0} END{printf "%s", last}' "$OUT/$variant.log"
done
