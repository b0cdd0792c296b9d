#!/usr/bin/env bash
# Run a fastchess match: Deep Red vs an opponent.
#
# Usage: scripts/match.sh <sunfish|sf2000|stockfish>
#
# Environment (defaults in brackets):
#   DEEPRED      Deep Red binary                  [target/release/deepred]
#   GAMES        total games (rounded up to even) [200]
#   TC           time control, fastchess format   [10+0.1]
#   CONCURRENCY  games in parallel                [1]
#   FASTCHESS    fastchess binary                 [/work/tools/fastchess/fastchess]
#   BOOK         EPD opening book                 [../shared/data/books/noob_3moves.epd, relative to repo root]
#   PGNOUT       PGN output file (overwritten)    [/tmp/match-<opponent>.pgn]
#   SUNFISH_CMD  sunfish UCI command              [/work/tools/sunfish-uci.sh]
#   STOCKFISH    stockfish binary                 [stockfish in PATH, else /usr/games/stockfish]
#   EXTRA_ARGS   extra fastchess arguments appended verbatim (word-split)
#   DEEPRED_OPTIONS  Deep Red's UCI options, NAME=VALUE words (e.g. "Threads=2 Hash=32") []
#   SHOW_OPP_PV_WARNINGS=1  also show fastchess PV-check warnings about the
#                opponent (hidden by default: limited-strength Stockfish plays
#                a move different from its PV on nearly every move). They are
#                always kept in the full log file.
#
# Each opening is played twice with colours swapped (-repeat); openings are
# drawn in random order from the book.
set -euo pipefail
. "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

usage() {
    echo "usage: $0 <sunfish|sf2000|stockfish>" >&2
    exit 2
}
[ $# -ge 1 ] || usage
OPP="$1"

GAMES="${GAMES:-200}"
TC="${TC:-10+0.1}"
CONCURRENCY="${CONCURRENCY:-1}"
FASTCHESS="${FASTCHESS:-/work/tools/fastchess/fastchess}"
BOOK="${BOOK:-$SHARED/books/noob_3moves.epd}"
PGNOUT="${PGNOUT:-/tmp/match-$OPP.pgn}"
SUNFISH_CMD="${SUNFISH_CMD:-/work/tools/sunfish-uci.sh}"

if [ ! -x "$FASTCHESS" ]; then
    cat >&2 <<EOF
error: fastchess binary not found at '$FASTCHESS'.
Build it outside this repo, e.g.:
    git clone https://github.com/Disservin/fastchess /work/tools/fastchess
    cd /work/tools/fastchess && nice make -j2      # produces ./fastchess
or point FASTCHESS=/path/to/fastchess.
EOF
    exit 1
fi
need_deepred
need_shared "$BOOK" "or set BOOK=..."

case "$OPP" in
    sunfish)
        OPP_ARGS=(-engine "cmd=$SUNFISH_CMD" name=sunfish)
        ;;
    sf2000)
        need_engine STOCKFISH stockfish stockfish
        OPP_ARGS=(-engine "cmd=$STOCKFISH" name=sf2000
                  option.UCI_LimitStrength=true option.UCI_Elo=2000
                  option.Threads=1 option.Hash=16 "option.Move Overhead=100")
        ;;
    stockfish)
        need_engine STOCKFISH stockfish stockfish
        OPP_ARGS=(-engine "cmd=$STOCKFISH" name=stockfish option.Threads=1 option.Hash=16 "option.Move Overhead=100")
        ;;
    *) usage ;;
esac

# Make user-supplied relative paths absolute (fastchess runs in a scratch dir).
abspath() { case "$1" in /*) echo "$1" ;; *) echo "$PWD/$1" ;; esac; }
BOOK="$(abspath "$BOOK")"
PGNOUT="$(abspath "$PGNOUT")"

ROUNDS=$(( (GAMES + 1) / 2 ))
rm -f "$PGNOUT"
LOG="$(mktemp /tmp/match-"$OPP".XXXXXX.log)"
# fastchess autosaves its state to ./config.json; keep that out of the repo.
WORKDIR="$(mktemp -d /tmp/match-"$OPP".XXXXXX.d)"

DEEPRED_ARGS=(-engine "cmd=$DEEPRED" name=deepred)
for o in ${DEEPRED_OPTIONS:-}; do DEEPRED_ARGS+=("option.$o"); done

CMD=("$FASTCHESS"
     "${DEEPRED_ARGS[@]}"
     "${OPP_ARGS[@]}"
     -each proto=uci "tc=$TC"
     -rounds "$ROUNDS" -repeat
     -openings "file=$BOOK" format=epd order=random
     -concurrency "$CONCURRENCY"
     -pgnout "file=$PGNOUT"
     -recover
     -ratinginterval 10)
# shellcheck disable=SC2206
[ -n "${EXTRA_ARGS:-}" ] && CMD+=($EXTRA_ARGS)

echo "# deepred vs $OPP: $((ROUNDS * 2)) games, tc=$TC, concurrency=$CONCURRENCY"
echo "# book=$BOOK"
echo "# pgn=$PGNOUT  log=$LOG  fastchess state dir=$WORKDIR"
echo "# $(printf '%q ' "${CMD[@]}")"
echo

# Console filter: drop 4-line PV warning blocks (Warning/Info/Position/Moves)
# about the opponent unless SHOW_OPP_PV_WARNINGS=1.
filter() {
    if [ "${SHOW_OPP_PV_WARNINGS:-0}" = 1 ]; then cat; return; fi
    awk -v opp="$OPP" '
        skip > 0 && /^(Info|Position|Moves); / { skip--; next }
        { skip = 0 }
        /^Warning; / && $0 ~ (" from " opp "$") { skip = 3; next }
        { print; fflush() }'
}

set +e
(cd "$WORKDIR" && exec "${CMD[@]}") 2>&1 | tee "$LOG" | filter
RC=${PIPESTATUS[0]}
set -e

echo
echo "================ FINAL SUMMARY (deepred vs $OPP) ================"
# Last "Results of ..." block that fastchess printed.
awk '/^Results of /{buf=""; grab=1} grab{buf=buf $0 "\n"} /^-----/ && grab {last=buf; grab=0} END{printf "%s", (last != "" ? last : buf)}' "$LOG"
grep -E "^Total Time" "$LOG" | tail -1 || true

if [ -f "$PGNOUT" ]; then
    # Terminations and per-engine blame, parsed from the PGN.
    awk '
        /^\[White "/       { w=$0; sub(/^\[White "/,"",w); sub(/"\]$/,"",w) }
        /^\[Black "/       { b=$0; sub(/^\[Black "/,"",b); sub(/"\]$/,"",b) }
        /^\[Result "/      { r=$0; sub(/^\[Result "/,"",r); sub(/"\]$/,"",r) }
        /^\[Termination "/ { t=$0; sub(/^\[Termination "/,"",t); sub(/"\]$/,"",t)
                             games++; term[t]++
                             if (t != "normal" && t != "adjudication") {
                                 loser = (r == "1-0") ? b : (r == "0-1") ? w : "?"
                                 blame[t " by " loser]++
                             } }
        END {
            printf "PGN games: %d\n", games
            for (k in term) printf "  termination %-14s %d\n", k, term[k]
            printf "time forfeits: %d   illegal moves: %d   abandoned (crash/stall): %d\n", \
                   term["time forfeit"]+0, term["illegal move"]+0, term["abandoned"]+0
            for (k in blame) printf "  %s: %d\n", k, blame[k]
        }' "$PGNOUT"
else
    echo "no PGN written at $PGNOUT"
fi
# fastchess warnings (time losses / illegal moves / disconnects) from the log.
grep -iE "loses on time|illegal move|disconnect|crash|stall" "$LOG" | sort | uniq -c | head -20 || true
exit "$RC"
