#!/usr/bin/env bash
# Trains DeepChess and Deep Pink from scratch: generates games (scripts/gen-games.sh), extracts
# the data sets, trains both with `deepred train` (feature `torch`) into $NETS, and measures them
# on the validation games of the data sets (held out by game: never trained on). These are the
# first nets of each kind; the shipped ones were trained further from them (docs/training.md),
# so the script leaves nets/ alone: copy a net there to ship it.
#
# Usage: scripts/train-nets.sh        (env: EPOCHS_DC=5 AE_EPOCHS=1 PAIRS=800000 EPOCHS_DP=5
#                                      DEVICE=cpu THREADS=2 GAMES=20000 GAMES2=51000 WORK=data
#                                      NETS=$WORK/nets)
# Needs scripts/torch-venv.sh once. Everything it writes stays out of git.
set -euo pipefail
. "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
cd "$ROOT"
need_shared "$SHARED/pgn/games"
need_shared "$SHARED/books/noob_3moves.epd"
WORK="${WORK:-data}"
EPOCHS_DC="${EPOCHS_DC:-5}"
AE_EPOCHS="${AE_EPOCHS:-1}"
PAIRS="${PAIRS:-800000}"
EPOCHS_DP="${EPOCHS_DP:-5}"
DEVICE="${DEVICE:-cpu}"
THREADS="${THREADS:-2}"
GAMES="${GAMES:-20000}"
GAMES2="${GAMES2:-51000}"
NETS="${NETS:-$WORK/nets}"
mkdir -p "$NETS"
eval "$(scripts/torch-env.sh)"
cargo build --release --features torch
BIN=target/release/deepred

# 1. Games, two sets with their own seeds and node counts (resume: finished chunks are kept).
GAMES="$GAMES" OUT="$WORK/generated" SEED=2 NODES=600 DEEPRED="$BIN" scripts/gen-games.sh
TRAIN_PGN=(../shared/data/pgn/games/*.pgn "$WORK"/generated/games-*.pgn)
if [ "$GAMES2" -gt 0 ]; then
    GAMES="$GAMES2" OUT="$WORK/generated2" SEED=3 NODES=650 DEEPRED="$BIN" scripts/gen-games.sh
    TRAIN_PGN+=("$WORK"/generated2/games-*.pgn)
fi
NOTE="$(cat "${TRAIN_PGN[@]}" | grep -c '^\[Result') games: ../shared/data/pgn/games and $((GAMES + GAMES2)) scripts/gen-games.sh games (Stockfish 15.1 against itself, full strength, 600-1050 nodes against 1.5 times as many, played out, noob_3moves openings)"

# 2. Data sets.
"$BIN" dataset deepchess --pgn "${TRAIN_PGN[@]}" --out "$WORK/deepchess.bin" --seed 1
"$BIN" dataset deeppink --pgn "${TRAIN_PGN[@]}" --out "$WORK/deeppink.bin" --seed 1

# 3. Training (CSV, PNG and checkpoints in $WORK/runs; add --resume to continue a run).
"$BIN" train deepchess --data "$WORK/deepchess.bin" --out "$NETS/deepchess.safetensors" \
    --run-dir "$WORK/runs" --epochs "$EPOCHS_DC" --ae-epochs "$AE_EPOCHS" --pairs "$PAIRS" \
    --lr 0.0003 --mirror --dropout 0.4 --weight-decay 0.05 \
    --device "$DEVICE" --threads "$THREADS" --games-note "$NOTE"
"$BIN" train deeppink --data "$WORK/deeppink.bin" --out "$NETS/deeppink.safetensors" \
    --run-dir "$WORK/runs" --epochs "$EPOCHS_DP" --device "$DEVICE" --threads "$THREADS" \
    --games-note "$NOTE"

# 4. Accuracy on the validation games (same files, seed and split as the data sets).
"$BIN" nn accuracy --net "$NETS/deepchess.safetensors" --pgn "${TRAIN_PGN[@]}" --split validation --seed 1
"$BIN" nn accuracy --net "$NETS/deeppink.safetensors" --pgn "${TRAIN_PGN[@]}" --split validation --seed 1
