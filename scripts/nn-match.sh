#!/usr/bin/env bash
# Strength of the neural evaluators at equal time, through `deepred match`:
#   scripts/nn-match.sh deepchess-pst | deeppink-pst | deeppink-sunfish
# Environment: GAMES (200), TC (10+0.1), CONCURRENCY (2), BOOK (noob_3moves), OUT (/tmp/deepred-nn-match),
#   DEEPRED (target/release/deepred), SUNFISH_CMD (a UCI Sunfish, e.g. "pypy3 -u sunfish.py").
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
. "$ROOT/scripts/lib.sh"
DEEPRED="$(realpath "${DEEPRED:-$ROOT/target/release/deepred}")"
GAMES="${GAMES:-200}"
TC="${TC:-10+0.1}"
CONCURRENCY="${CONCURRENCY:-2}"
BOOK="${BOOK:-$ROOT/../shared/data/books/noob_3moves.epd}"
OUT="${OUT:-/tmp/deepred-nn-match}"
need_shared "$BOOK" "or set BOOK=..."
mkdir -p "$OUT"
net() { echo "--engine-option Evaluator=$1 --engine-option EvalFile=$ROOT/nets/$1.safetensors"; }
case "${1:-}" in
  deepchess-pst) opp=("$DEEPRED"); eng=$(net deepchess) ;;
  deeppink-pst) opp=("$DEEPRED"); eng=$(net deeppink) ;;
  deeppink-sunfish)
    [ -n "${SUNFISH_CMD:-}" ] || { echo "error: set SUNFISH_CMD to a UCI Sunfish command" >&2; exit 1; }
    opp=("$SUNFISH_CMD"); eng=$(net deeppink) ;;
  *) echo "usage: $0 deepchess-pst|deeppink-pst|deeppink-sunfish" >&2; exit 1 ;;
esac
# shellcheck disable=SC2086
"$DEEPRED" match --opponent "${opp[0]}" $eng --tc "$TC" --games "$GAMES" \
  --concurrency "$CONCURRENCY" --book "$BOOK" --seed 5 --pgn "$OUT/$1.pgn" --quiet
