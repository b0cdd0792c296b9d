#!/usr/bin/env bash
# Create (or reuse) a Python venv with python-chess at <repo>/.venv-pychess.
# Idempotent: if the venv already imports the pinned chess version, nothing is installed.
# Usage: scripts/python-chess-venv.sh        (prints the venv's python path on the last line)
set -euo pipefail
. "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
CHESS_VERSION="1.11.2"
venv_pip "$PYCHESS_VENV" "python-chess $CHESS_VERSION" "chess==$CHESS_VERSION" \
    "import chess, chess.engine, sys; sys.exit(0 if chess.__version__ == '$CHESS_VERSION' else 1)"
