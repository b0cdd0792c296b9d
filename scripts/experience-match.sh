#!/usr/bin/env bash
# Does experience help? Deep Red (ExperienceBook on) against a fixed opponent, Stockfish at a
# fixed node count, on a fixed set of openings, first with an empty store, then with a store that
# has learned the shared PGN games plus self-played games from those same openings.
# Every engine runs at a fixed node count, so the result does not depend on the machine's load.
#
# Usage: scripts/experience-match.sh
# Environment (defaults in brackets):
#   OPENINGS     openings taken from noob_3moves.epd (evenly spaced lines)  [100]
#   GAMES        games per match (each opening with both colours)           [2*OPENINGS]
#   LEARN_GAMES  self-play games learned between the two matches            [2000]
#   DR_NODES     Deep Red's nodes per move                                  [50000]
#   SF_NODES     Stockfish's nodes per move                                 [1000]
#   MIN_GAMES    ExperienceMinGames                                         [10]
#   EVALUATOR    Deep Red's evaluator (the runs in BENCHMARKS.md used pst)  [learned]
#   OUT          work directory (stores, PGNs, logs)                        [/tmp/deepred-experience-match]
#   DEEPRED, STOCKFISH  binaries                     [target/release/deepred, stockfish]
set -euo pipefail
. "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
need_deepred
need_engine STOCKFISH stockfish stockfish
OPENINGS="${OPENINGS:-100}"
GAMES="${GAMES:-$((2 * OPENINGS))}"
LEARN_GAMES="${LEARN_GAMES:-2000}"
DR_NODES="${DR_NODES:-50000}"
SF_NODES="${SF_NODES:-1000}"
MIN_GAMES="${MIN_GAMES:-10}"
EVALUATOR="${EVALUATOR:-learned}"
OUT="${OUT:-/tmp/deepred-experience-match}"
BOOK="$SHARED/books/noob_3moves.epd"
need_shared "$BOOK"
need_shared "$SHARED/pgn/games"
mkdir -p "$OUT"
lines=$(wc -l < "$BOOK")
awk -v step=$(( lines / OPENINGS )) -v n="$OPENINGS" 'NR % step == 1 && c < n { print; c++ }' "$BOOK" > "$OUT/openings.epd"

play() { # $1 = label, $2 = store
  "$DEEPRED" match --opponent "$STOCKFISH" --opponent-option Hash=16 --opponent-nodes "$SF_NODES" \
    --nodes "$DR_NODES" --engine-option "Evaluator=$EVALUATOR" --engine-option ExperienceBook=true --engine-option "ExperienceFile=$2" \
    --engine-option "ExperienceMinGames=$MIN_GAMES" --engine-option Learning=false \
    --book "$OUT/openings.epd" --games "$GAMES" --concurrency 2 --seed 7 \
    --pgn "$OUT/$1.pgn" --quiet > "$OUT/$1.txt"
  echo "== $1 store"; cat "$OUT/$1.txt"
}

rm -f "$OUT"/*.pgn "$OUT"/empty.sqlite* "$OUT"/learned.sqlite*
play empty "$OUT/empty.sqlite"
"$DEEPRED" import "$SHARED"/pgn/games/*.pgn --db "$OUT/learned.sqlite" | tail -1
"$DEEPRED" selfplay --evaluator "$EVALUATOR" --games "$LEARN_GAMES" --nodes 5000 --nodes-jitter 50 --book "$OUT/openings.epd" \
  --concurrency 2 --seed 11 --db "$OUT/learned.sqlite" | tail -1
"$DEEPRED" experience stats --db "$OUT/learned.sqlite" | sed -n 2p
play learned "$OUT/learned.sqlite"
# How often the learned store changed the game: both runs are deterministic (fixed nodes), so a
# game that differs from the empty-store game of the same round had a book move somewhere.
python3 - "$OUT/empty.pgn" "$OUT/learned.pgn" <<'PY'
import re, sys
def games(path):
    out = {}
    for g in open(path).read().split("[Event ")[1:]:
        rnd = int(re.search(r'\[Round "(\d+)"\]', g).group(1))
        out[rnd] = [t for t in g.split("\n\n", 1)[1].split() if not t[0].isdigit() or "-" in t]
    return out
a, b = games(sys.argv[1]), games(sys.argv[2])
differ = [r for r in a if r in b and a[r] != b[r]]
print(f"games changed by the learned store: {len(differ)} of {len(a)}")
PY
