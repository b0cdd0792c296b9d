#!/usr/bin/env bash
# Do the Syzygy tables help: Deep Red with SyzygyPath set against Deep Red without, through
# `deepred match`, from endgame openings of 5-7 pieces (bench-positions/endgames.epd, written by
# scripts/endgame-openings.py from real games), each played twice with colours swapped.
#
# Usage: scripts/syzygy-match.sh
# Environment (defaults in brackets):
#   DEEPRED      Deep Red binary                   [target/release/deepred]
#   SYZYGY       table directories (':'-separated) [../shared/data/syzygy/regular]
#   GAMES        games                             [200]
#   TC           seconds+increment per game        [10+0.1]
#   CONCURRENCY  games at once                     [2]
#   BOOK         EPD openings                      [bench-positions/endgames.epd]
#   SEED         opening order                     [7]
#   OUT          folder of the PGN                 [/tmp/deepred-syzygy-match]
set -euo pipefail
. "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
need_deepred
SYZYGY="${SYZYGY:-$SHARED/syzygy/regular}"
GAMES="${GAMES:-200}"
TC="${TC:-10+0.1}"
CONCURRENCY="${CONCURRENCY:-2}"
BOOK="${BOOK:-$ROOT/bench-positions/endgames.epd}"
SEED="${SEED:-7}"
OUT="${OUT:-/tmp/deepred-syzygy-match}"
[ -f "$BOOK" ] || { echo "error: openings '$BOOK' not found; run scripts/endgame-openings.py" >&2; exit 1; }
IFS=: read -r -a dirs <<< "$SYZYGY"
for d in "${dirs[@]}"; do
  need_shared "$d" "or set SYZYGY=..."
done
mkdir -p "$OUT"
echo "Deep Red with SyzygyPath=$SYZYGY against Deep Red without: $GAMES games at $TC from $BOOK"
"$DEEPRED" match --engine "$DEEPRED" --engine-option "SyzygyPath=$SYZYGY" \
  --opponent "$DEEPRED" --tc "$TC" --games "$GAMES" --concurrency "$CONCURRENCY" \
  --book "$BOOK" --seed "$SEED" --pgn "$OUT/syzygy.pgn" --quiet
