#!/usr/bin/env bash
# Strength of the neural evaluators at equal time, through `deepred match`:
#   scripts/nn-match.sh deepchess-pst | deeppink-pst | deepchess-sunfish | deeppink-sunfish
# Environment: GAMES (200), TC (10+0.1), CONCURRENCY (2), BOOK (noob_3moves), OUT (/tmp/deepred-nn-match),
#   DEEPRED (target/release/deepred), SUNFISH_CMD (a UCI Sunfish, e.g. "pypy3 -u sunfish.py"),
#   DEEPCHESS_NET, DEEPPINK_NET (default nets/<kind>.safetensors), SEED (5).
set -euo pipefail
. "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
need_deepred
GAMES="${GAMES:-200}"
TC="${TC:-10+0.1}"
CONCURRENCY="${CONCURRENCY:-2}"
BOOK="${BOOK:-$SHARED/books/noob_3moves.epd}"
OUT="${OUT:-/tmp/deepred-nn-match}"
need_shared "$BOOK" "or set BOOK=..."
mkdir -p "$OUT"
DEEPCHESS_NET="$(realpath "${DEEPCHESS_NET:-$ROOT/nets/deepchess.safetensors}")"
DEEPPINK_NET="$(realpath "${DEEPPINK_NET:-$ROOT/nets/deeppink.safetensors}")"
net() {
  local file="$DEEPCHESS_NET"
  [ "$1" = deeppink ] && file="$DEEPPINK_NET"
  echo "--engine-option Evaluator=$1 --engine-option EvalFile=$file"
}
sunfish() {
  [ -n "${SUNFISH_CMD:-}" ] || { echo "error: set SUNFISH_CMD to a UCI Sunfish command" >&2; exit 1; }
}
case "${1:-}" in
  deepchess-pst) opp=("$DEEPRED" --opponent-option Evaluator=pst); eng=$(net deepchess) ;;
  deeppink-pst) opp=("$DEEPRED" --opponent-option Evaluator=pst); eng=$(net deeppink) ;;
  deepchess-sunfish) sunfish; opp=("$SUNFISH_CMD"); eng=$(net deepchess) ;;
  deeppink-sunfish) sunfish; opp=("$SUNFISH_CMD"); eng=$(net deeppink) ;;
  *) echo "usage: $0 deepchess-pst|deeppink-pst|deepchess-sunfish|deeppink-sunfish" >&2; exit 1 ;;
esac
# shellcheck disable=SC2086
"$DEEPRED" match --opponent "${opp[0]}" "${opp[@]:1}" $eng --tc "$TC" --games "$GAMES" \
  --concurrency "$CONCURRENCY" --book "$BOOK" --seed "${SEED:-5}" --pgn "$OUT/$1.pgn" --quiet
