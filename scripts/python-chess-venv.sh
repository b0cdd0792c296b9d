#!/usr/bin/env bash
# Create (or reuse) a Python venv with python-chess at <repo>/.venv-pychess.
# Idempotent: if the venv already imports the pinned chess version, nothing is installed.
# Usage: scripts/python-chess-venv.sh        (prints the venv's python path on the last line)
set -euo pipefail

CHESS_VERSION="1.11.2"
REPO_ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
VENV="$REPO_ROOT/.venv-pychess"
PY="$VENV/bin/python"

have_chess() {
    [ -x "$PY" ] && "$PY" -c "import chess, chess.engine, sys; sys.exit(0 if chess.__version__ == '$CHESS_VERSION' else 1)" >/dev/null 2>&1
}

if have_chess; then
    echo "python-chess $CHESS_VERSION already present in $VENV" >&2
else
    if [ ! -x "$PY" ]; then
        echo "creating venv $VENV" >&2
        python3 -m venv "$VENV"
    fi
    echo "installing chess==$CHESS_VERSION into $VENV" >&2
    "$PY" -m pip install --disable-pip-version-check --quiet "chess==$CHESS_VERSION"
    have_chess || { echo "error: chess==$CHESS_VERSION still not importable from $PY" >&2; exit 1; }
fi
echo "$PY"
