#!/usr/bin/env bash
# Generate computer games for neural-net training: Debian's Stockfish at a low node count against
# itself (Skill Level for variety, otherwise fixed-node games repeat), openings from noob_3moves,
# played and adjudicated by `deepred match`. Games are written in chunks of CHUNK games to
# $OUT/games-NNNN.pgn; a finished chunk is kept, so the script resumes where it stopped.
#
# Usage: scripts/gen-games.sh            (env: GAMES=20000 OUT=data/generated NODES=800 SKILL=14
#                                          CONCURRENCY=2 CHUNK=1000 SEED=1 STOCKFISH=stockfish)
set -euo pipefail
REPO_ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$REPO_ROOT"
GAMES="${GAMES:-20000}"
OUT="${OUT:-data/generated}"
NODES="${NODES:-800}"
SKILL="${SKILL:-14}"
CONCURRENCY="${CONCURRENCY:-2}"
CHUNK="${CHUNK:-1000}"
SEED="${SEED:-1}"
STOCKFISH="${STOCKFISH:-$(command -v stockfish || echo /usr/games/stockfish)}"
BOOK="${BOOK:-../shared/data/books/noob_3moves.epd}"
DEEPRED="${DEEPRED:-target/release/deepred}"
[ -x "$STOCKFISH" ] || { echo "error: no stockfish at '$STOCKFISH' (apt-get install stockfish)" >&2; exit 1; }
[ -f "$BOOK" ] || { echo "error: no opening book at '$BOOK'" >&2; exit 1; }
[ -x "$DEEPRED" ] || cargo build --release
mkdir -p "$OUT"
chunks=$(( (GAMES + CHUNK - 1) / CHUNK ))
for ((i = 0; i < chunks; i++)); do
    file=$(printf "%s/games-%04d.pgn" "$OUT" "$i")
    if [ -f "$file" ]; then
        echo "$file exists, skipped" >&2
        continue
    fi
    n=$(( GAMES - i * CHUNK < CHUNK ? GAMES - i * CHUNK : CHUNK ))
    "$DEEPRED" match --engine "$STOCKFISH" --opponent "$STOCKFISH" \
        --engine-option "Skill Level=$SKILL" --opponent-option "Skill Level=$SKILL" \
        --nodes "$NODES" --games "$n" --book "$BOOK" --seed $(( SEED * 100000 + i )) \
        --concurrency "$CONCURRENCY" --resign-plies 4 --resign-cp 700 \
        --event "Deep Red training games" --pgn "$file.tmp" --quiet
    mv "$file.tmp" "$file"
    echo "$file: $n games" >&2
done
cat "$OUT"/games-*.pgn | grep -c '^\[Result' | sed 's/^/games: /'
