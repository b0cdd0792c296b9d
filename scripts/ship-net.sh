#!/usr/bin/env bash
# Ships a generation that `deepred learn` promoted as the net the binary embeds, and does the
# mechanical steps that go with it:
#   1. copies the promoted net (the data folder's nets/learned-gen<G>.safetensors) to
#      nets/learned.safetensors and builds the release binary;
#   2. runs `deepred bench` and writes its node count over the old one in README.md,
#      docs/uci.md and docs/commands.md; writes the new net's "embedded (generation G, N
#      positions)" into docs/uci.md;
#   3. merges the loop's generations.csv and log.csv into benchmarks/learn-loop-*.csv, appends
#      generation G's rows to benchmarks/learned-generations-n20000.csv and redraws its plot.
# What needs words stays for a person, and the script lists it at the end: BENCHMARKS.md's
# section, docs/nets.md, the README's paragraph and the comment in src/search/skill.rs.
#
#   scripts/ship-net.sh GENERATION
#
# env: DEEPRED_HOME (the loop's data folder: default ~/.local/share/deepred), WORK (the loop's
# work folder, `deepred learn --dir`: default $DEEPRED_HOME/learn). Run it again and it does the
# same: rows already in the CSV are not added twice.
set -euo pipefail
. "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
if [ $# -ne 1 ] || ! [[ $1 =~ ^[0-9]+$ ]]; then
    echo "usage: scripts/ship-net.sh GENERATION (a number)" >&2
    exit 2
fi
G=$1
DATA=${DEEPRED_HOME:-$HOME/.local/share/deepred}
WORK=${WORK:-$DATA/learn}
# Relative folders are the caller's.
DATA=$(realpath -m "$DATA")
WORK=$(realpath -m "$WORK")
cd "$ROOT"
NET=$DATA/nets/learned-gen$G.safetensors
for f in "$NET" "$WORK/generations.csv" "$WORK/log.csv"; do
    [ -f "$f" ] || { echo "error: $f not found (DEEPRED_HOME=$DATA, WORK=$WORK)" >&2; exit 1; }
done
grep -q "^$G,generation " "$WORK/generations.csv" ||
    { echo "error: $WORK/generations.csv has no gate row of generation $G: was it promoted?" >&2; exit 1; }

cp "$NET" nets/learned.safetensors
cargo build --release --quiet
BIN=$ROOT/target/release/deepred
# An empty data folder: the embedded net, not a promoted one that EvalFile auto would prefer.
EMPTY=$(mktemp -d)
trap 'rm -rf "$EMPTY"' EXIT
embedded=$(printf 'uci\nposition startpos\ngo depth 1\nquit\n' | DEEPRED_HOME=$EMPTY "$BIN" |
    grep -o 'embedded (generation [0-9]*, [0-9]*' || true)
case "$embedded" in
    *"generation $G,"*) ;;
    *) echo "error: the built engine does not report generation $G as embedded: '$embedded'" >&2
       exit 1 ;;
esac
new=$(DEEPRED_HOME=$EMPTY "$BIN" bench 2>&1 | grep -o '^[0-9]* nodes' | tr -dc 0-9)
old=$(grep -o '`[0-9]* nodes' README.md | head -1 | tr -dc 0-9)
if [ -z "$new" ] || [ -z "$old" ]; then
    echo "error: no bench count: '$new' from deepred bench, '$old' in README.md" >&2
    exit 1
fi
commas() { echo "$1" | sed ':a;s/\B[0-9]\{3\}\>/,&/;ta'; }
if [ "$old" != "$new" ]; then
    sed -i "s/\b$old nodes/$new nodes/g; s/\b$(commas "$old")\b/$(commas "$new")/g" \
        README.md docs/uci.md docs/commands.md
fi
sed -i "s/embedded (generation [0-9]*, [0-9]*/$embedded/" docs/uci.md

# Merged, not copied: a work folder started afresh (a new machine) holds only its own
# generations, and the earlier ones stay. A row of the work folder replaces one with the same
# key (the first K fields: generation and opponent, or generation).
merge_csv() {
    local dst=$1 src=$2 k=$3
    [ -f "$dst" ] || { cp "$src" "$dst"; return; }
    { head -1 "$src"
      awk -F, -v k="$k" 'FNR == 1 { next }
          { key = $1; for (i = 2; i <= k; i++) key = key FS $i; row[key] = $0 }
          END { for (r in row) print row[r] }' "$dst" "$src" | sort -t, -k1,1n -k2,2
    } >"$dst.new"
    mv "$dst.new" "$dst"
}
merge_csv benchmarks/learn-loop-generations.csv "$WORK/generations.csv" 2
merge_csv benchmarks/learn-loop-log.csv "$WORK/log.csv" 1
CURVE=benchmarks/learned-generations-n20000.csv
# The pst row, then the parent's, as the earlier generations' rows are.
for who in pst generation; do
    grep "^$G,$who" "$WORK/generations.csv" | while read -r row; do
        grep -qxF "$row" "$CURVE" || echo "$row" >>"$CURVE"
    done
done
"$BIN" curve-plot --generations --csv "$CURVE" --out "${CURVE%.csv}.png" \
    --title "Deep Red's learned net, generation by generation (--nodes 20000)"

echo "shipped generation $G: bench $(commas "$old") -> $(commas "$new") nodes; $embedded positions)"
echo "rows of generation $G in $CURVE:"
grep "^$G," "$CURVE"
cat <<EOF
left to write by hand: a BENCHMARKS.md section (before "### On a GPU machine"), docs/nets.md,
the README's paragraph on the shipped net, the comment on LEARNED in src/search/skill.rs;
then git diff, and commit with the gate's result in the message.
EOF
