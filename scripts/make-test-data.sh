#!/usr/bin/env bash
# Rebuilds tests/data from ../shared/data: the small copies and subsets the tests read (see
# tests/data/README.md for each file, its source and licence). The tests themselves never read
# ../shared. Usage: scripts/make-test-data.sh
set -euo pipefail
. "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
need_shared "$SHARED"
OUT="$ROOT/tests/data"
mkdir -p "$OUT/perft" "$OUT/pgn/robustness" "$OUT/pgn/games" "$OUT/books"

# The first N games of a PGN file (a game starts at its [Event tag).
first_games() { awk -v n="$2" '/^\[Event /{c++} c <= n' "$1"; }

# Whole files.
cp "$SHARED"/perft/{perftsuite.epd,cpw_standard_positions.epd,shakmaty_tricky.perft,shakmaty_chess960.perft} "$OUT/perft/"
cp "$SHARED"/pgn/robustness/* "$OUT/pgn/robustness/"
G="$SHARED/pgn/games"
cp "$G/alphazero_vs_stockfish_all.pgn" "$OUT/pgn/games/"

# The first games of the large collections.
first_games "$G/Korchnoi.pgn" 500 > "$OUT/pgn/games/Korchnoi_first500.pgn"
first_games "$G/Nakamura.pgn" 500 > "$OUT/pgn/games/Nakamura_first500.pgn"
first_games "$G/pychess_world_matches.pgn" 100 > "$OUT/pgn/games/pychess_world_matches_first100.pgn"
first_games "$G/sunfish_3fold_fastchess_draws.pgn" 100 > "$OUT/pgn/games/sunfish_3fold_fastchess_draws_first100.pgn"
first_games "$G/sf15-selfplay-6k-nodes.pgn" 200 > "$OUT/pgn/games/sf15-selfplay-6k-nodes_first200.pgn"

# All 100 TCEC games without their comments (the engines' per-move logs are 96% of the file);
# then one blank line between the tags and the movetext and after each game.
perl -0pe 's/\{[^}]*\}//g' "$G/TCEC_Season_13_-_Superfinal.pgn" | awk '
    /^[ \t\r]*$/ { next }
    /^\[/ { if (mode == "moves") print ""; mode = "tags"; print; next }
    { if (mode == "tags") print ""; mode = "moves"; sub(/[ \t\r]+$/, ""); print }
    END { print "" }' > "$OUT/pgn/games/TCEC_Season_13_-_Superfinal_nocomments.pgn"

# 200 openings spread over the book (every 755th line).
awk 'NR % 755 == 1' "$SHARED/books/noob_3moves.epd" > "$OUT/books/noob_3moves_200.epd"

du -sh "$OUT"
