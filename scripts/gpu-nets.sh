#!/usr/bin/env bash
# DeepChess and Deep Pink from Deep Red's own games on a GPU machine (PyTorch with CUDA, no Rust
# toolchain needed): datagen on every core, the data sets, then both nets fine-tuned from the
# shipped ones with scripts/train_gpu.py, at once on the one GPU. What BENCHMARKS.md's "Deep Pink
# on quiet triplets, trained on a GPU" ran (on an H100 with 16 cores).
#
# Usage: scripts/gpu-nets.sh   (run from the checkout, with a deepred binary built elsewhere)
# Env: DEEPRED (target/release/deepred), BOOK (../shared/data/books/noob_3moves.epd, or .gz),
#      PGN_TRIPLETS (optional: a `deepred dataset deeppink --pgn` file, .gz allowed, mixed into
#      Deep Pink's data), DG (datagen seconds, 240), TS (training seconds, 140), THREADS (cores/2
#      per datagen run), OUT (data/gpu-out), WORK (/tmp/deepred-gpu).
# Writes $OUT/deepchess.safetensors, $OUT/deeppink.safetensors (calibrated) and the logs.
set -uo pipefail
. "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
cd "$ROOT" || exit 1
need_deepred
B="$DEEPRED"
BOOK="${BOOK:-$SHARED/books/noob_3moves.epd}"
need_shared "$BOOK" "or set BOOK=..."
DG="${DG:-240}"; TS="${TS:-140}"
THREADS="${THREADS:-$(( ($(nproc) + 1) / 2 ))}"
OUT="${OUT:-data/gpu-out}"; W="${WORK:-/tmp/deepred-gpu}"
PY="${PYTHON:-python3} scripts/train_gpu.py"
mkdir -p "$OUT" "$W"
"$B" --version >/dev/null || { echo "error: $B does not run here" >&2; exit 1; }
case "$BOOK" in *.gz) gunzip -c "$BOOK" > "$W/book.epd" ;; *) cp "$BOOK" "$W/book.epd" ;; esac
t0=$(date +%s)
# 1. Self-play at 5,000 nodes, pst and the learned net, for DG seconds; a cut run keeps its
#    whole records.
(timeout "$DG" "$B" datagen --games 1000000 --nodes 5000 --book "$W/book.epd" --seed 21 --threads "$THREADS" --evaluator pst --out "$W/pst.bin" > "$W/dg-pst.txt" 2>&1) &
(timeout "$DG" "$B" datagen --games 1000000 --nodes 5000 --book "$W/book.epd" --seed 22 --threads "$THREADS" \
    --evaluator learned --eval-file nets/learned.safetensors --out "$W/learned.bin" > "$W/dg-learned.txt" 2>&1) &
wait
for f in "$W/pst.bin" "$W/learned.bin"; do
  s=$(stat -c%s "$f"); truncate -s $((s / 32 * 32)) "$f"; echo "$f: $((s / 32)) positions in $DG s"
done
# 2. Data sets: DeepChess positions of decisive games, Deep Pink triplets (r after a quiet
#    move), and the triplets of equal material (DeepChess's sibling pairs).
"$B" dataset deepchess --datagen "$W/pst.bin" "$W/learned.bin" --out "$W/pos.bin" --seed 1
"$B" dataset deeppink --datagen "$W/pst.bin" "$W/learned.bin" --out "$W/trip.bin" --seed 1
"$B" dataset deeppink --datagen "$W/pst.bin" "$W/learned.bin" --out "$W/tripeq.bin" --seed 1 --equal-material
DPDATA=("$W/trip.bin")
[ -n "${PGN_TRIPLETS:-}" ] && DPDATA=("$PGN_TRIPLETS" "$W/trip.bin")
echo "data sets ready after $(( $(date +%s) - t0 )) s"
# 3. Both nets at once on the GPU, from the shipped ones, for TS seconds (the best epoch kept).
$PY deepchess --data "$W/pos.bin" --siblings "$W/tripeq.bin" --init nets/deepchess.safetensors \
    --epochs 1000 --pairs 1000000 --sibling-pairs 1000000 --batch 2048 --lr 0.0003 --lr-decay 0.9 \
    --mirror --dropout 0.2 --weight-decay 0.05 --max-seconds "$TS" \
    --out "$OUT/deepchess.safetensors" --csv "$OUT/deepchess.csv" > "$OUT/deepchess.txt" 2>&1 &
$PY deeppink --data "${DPDATA[@]}" --init nets/deeppink.safetensors \
    --epochs 1000 --batch 2048 --lr 0.0005 --lr-decay 0.9 --max-seconds "$TS" \
    --out "$OUT/deeppink.safetensors" --csv "$OUT/deeppink.csv" > "$OUT/deeppink.txt" 2>&1 &
wait
"$B" nn calibrate --net "$OUT/deeppink.safetensors" --dataset "$W/trip.bin"
echo "done after $(( $(date +%s) - t0 )) s"
tail -n 2 "$OUT"/deepchess.txt "$OUT"/deeppink.txt
