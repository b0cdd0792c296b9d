#!/usr/bin/env bash
# Compare raw search speed: `stockfish bench` vs `deepred bench` (single thread).
#
# Usage: scripts/bench-vs-stockfish.sh
#
# Environment (defaults in brackets):
#   DEEPRED          Deep Red binary                  [target/release/deepred]
#   DEEPRED_BENCH    extra args to `deepred bench`    [] (e.g. a depth: "12")
#   STOCKFISH        stockfish binary                 [stockfish in PATH, else /usr/games/stockfish]
#   SF_BENCH         args to `stockfish bench`        [16 1 13]  (hash MB, threads, depth)
#   RUNS             runs of each; best nps is kept   [1]
#
# Stockfish prints "Nodes/second    : N" (to stderr); Deep Red's bench prints a
# last line "<N> nodes <M> nps". Benchmarks are sensitive to machine load.
# Not -e: a failing bench is reported below with its output.
set -uo pipefail
. "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
need_deepred
need_engine STOCKFISH stockfish stockfish
SF_BENCH="${SF_BENCH:-16 1 13}"
DEEPRED_BENCH="${DEEPRED_BENCH:-}"
RUNS="${RUNS:-1}"

echo "# load average: $(cut -d' ' -f1-3 /proc/loadavg)  (cores: $(nproc))"

best_sf=0; best_dr=0; dr_nodes=""; sf_nodes=""
for ((i = 1; i <= RUNS; i++)); do
    # shellcheck disable=SC2086
    sf_out="$("$STOCKFISH" bench $SF_BENCH 2>&1 >/dev/null)"
    sf_nps="$(printf '%s\n' "$sf_out" | awk -F: '/^Nodes\/second/ {gsub(/ /,"",$2); print $2}' | tail -1)"
    sf_n="$(printf '%s\n' "$sf_out" | awk -F: '/^Nodes searched/ {gsub(/ /,"",$2); print $2}' | tail -1)"
    if [ -z "$sf_nps" ]; then
        echo "error: could not parse 'Nodes/second' from stockfish bench output:" >&2
        printf '%s\n' "$sf_out" | tail -5 >&2
        exit 1
    fi

    # shellcheck disable=SC2086
    dr_out="$("$DEEPRED" bench $DEEPRED_BENCH 2>&1)"
    dr_rc=$?
    # Last "<N> nodes <M> nps" line (also accepts the UCI form "info string N nodes M nps").
    dr_line="$(printf '%s\n' "$dr_out" | grep -E '(^|info string )[0-9]+ nodes [0-9]+ nps *$' | tail -1)"
    if [ "$dr_rc" != 0 ] || [ -z "$dr_line" ]; then
        echo "error: deepred bench failed (rc=$dr_rc) or printed no '<N> nodes <M> nps' line:" >&2
        printf '%s\n' "$dr_out" | tail -5 >&2
        exit 1
    fi
    dr_n="$(printf '%s\n' "$dr_line" | awk '{for (k=1;k<NF;k++) if ($(k+1)=="nodes") print $k}')"
    dr_nps="$(printf '%s\n' "$dr_line" | awk '{for (k=1;k<NF;k++) if ($(k+1)=="nps") print $k}')"

    echo "run $i: stockfish $sf_nps nps ($sf_n nodes)   deepred $dr_nps nps ($dr_n nodes)"
    if [ "$sf_nps" -gt "$best_sf" ]; then best_sf=$sf_nps; sf_nodes=$sf_n; fi
    if [ "$dr_nps" -gt "$best_dr" ]; then best_dr=$dr_nps; dr_nodes=$dr_n; fi
done

sf_ver="$(printf 'uci\nquit\n' | "$STOCKFISH" 2>/dev/null | head -1)"
echo "stockfish: $best_sf nps  (bench $SF_BENCH; $sf_nodes nodes; $sf_ver)"
echo "deepred:   $best_dr nps  (bench ${DEEPRED_BENCH:-default}; $dr_nodes nodes; $DEEPRED)"
awk -v d="$best_dr" -v s="$best_sf" 'BEGIN { printf "ratio deepred/stockfish: %.3f\n", d / s }'
