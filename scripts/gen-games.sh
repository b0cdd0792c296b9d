#!/usr/bin/env bash
# Generate computer games for neural-net training: Debian's Stockfish at a low node count against
# itself, openings from noob_3moves, played and adjudicated by `deepred match`. Games are written
# in chunks of CHUNK games to $OUT/games-NNNN.pgn; a finished chunk is kept, so the script resumes
# where it stopped.
#
# Full strength and played out (no resign adjudication) by default: the result of such a game
# follows from the positions in it, which is what DeepChess learns. Variety comes from the
# openings and from unequal node counts: one side searches NODES (which steps through NODES,
# NODES+100, ... NODES+400 from chunk to chunk), the other 1.5 times as many, so the two games of
# an opening pair (colours swapped) differ. Set SKILL for Stockfish's Skill Level and RESIGN_CP
# for resign adjudication (4 plies beyond it); the first 20,000 games (BENCHMARKS.md) used
# SKILL=14 RESIGN_CP=700 with equal nodes.
#
# Usage: scripts/gen-games.sh            (env: GAMES=20000 OUT=data/generated NODES=600 SKILL=
#                                          RESIGN_CP= CONCURRENCY=2 CHUNK=1000 SEED=2
#                                          STOCKFISH=stockfish BOOK=noob_3moves.epd
#                                          DEEPRED=target/release/deepred)
# BOOK may be any EPD file, e.g. positions of Deep Red's own games from scripts/book-from-games.py.
set -euo pipefail
. "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
cd "$ROOT"
GAMES="${GAMES:-20000}"
OUT="${OUT:-data/generated}"
NODES="${NODES:-600}"
SKILL="${SKILL:-}"
RESIGN_CP="${RESIGN_CP:-}"
CONCURRENCY="${CONCURRENCY:-2}"
CHUNK="${CHUNK:-1000}"
SEED="${SEED:-2}"
BOOK="${BOOK:-$SHARED/books/noob_3moves.epd}"
need_engine STOCKFISH stockfish stockfish
need_shared "$BOOK" "or set BOOK=..."
# The default binary is built when it is missing.
[ -n "${DEEPRED:-}" ] || [ -x target/release/deepred ] || cargo build --release
need_deepred
mkdir -p "$OUT"
chunks=$(( (GAMES + CHUNK - 1) / CHUNK ))
for ((i = 0; i < chunks; i++)); do
    file=$(printf "%s/games-%04d.pgn" "$OUT" "$i")
    if [ -f "$file" ]; then
        echo "$file exists, skipped" >&2
        continue
    fi
    n=$(( GAMES - i * CHUNK < CHUNK ? GAMES - i * CHUNK : CHUNK ))
    nodes=$(( NODES + 100 * (i % 5) ))
    extra=(--opponent-nodes $(( nodes * 3 / 2 )))
    if [ -n "$SKILL" ]; then
        extra+=(--engine-option "Skill Level=$SKILL" --opponent-option "Skill Level=$SKILL")
    fi
    if [ -n "$RESIGN_CP" ]; then
        extra+=(--resign-plies 4 --resign-cp "$RESIGN_CP")
    else
        extra+=(--resign-plies 0)
    fi
    "$DEEPRED" match --engine "$STOCKFISH" --opponent "$STOCKFISH" "${extra[@]}" \
        --nodes "$nodes" --games "$n" --book "$BOOK" --seed $(( SEED * 100000 + i )) \
        --concurrency "$CONCURRENCY" --event "Deep Red training games" --pgn "$file.tmp" --quiet
    mv "$file.tmp" "$file"
    echo "$file: $n games" >&2
done
cat "$OUT"/games-*.pgn | grep -c '^\[Result' | sed 's/^/games: /'
