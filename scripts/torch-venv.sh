#!/usr/bin/env bash
# Create (or reuse) a Python venv with PyTorch 2.13.0 at <repo>/.venv-torch, for the `torch`
# cargo feature (tch 0.26 links against this PyTorch's libtorch: LIBTORCH_USE_PYTORCH=1).
# Idempotent. Prints the venv's python path on the last line.
# Usage: scripts/torch-venv.sh
#   then: source <(scripts/torch-env.sh)   or   export the variables it prints.
set -euo pipefail

TORCH_VERSION="2.13.0"
REPO_ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
VENV="$REPO_ROOT/.venv-torch"
PY="$VENV/bin/python"

have_torch() {
    [ -x "$PY" ] && "$PY" -c "import torch, sys; sys.exit(0 if torch.__version__.split('+')[0] == '$TORCH_VERSION' else 1)" >/dev/null 2>&1
}

if have_torch; then
    echo "torch $TORCH_VERSION already present in $VENV" >&2
else
    if [ ! -x "$PY" ]; then
        echo "creating venv $VENV" >&2
        python3 -m venv "$VENV"
    fi
    echo "installing torch==$TORCH_VERSION into $VENV (large download)" >&2
    "$PY" -m pip install --disable-pip-version-check --quiet "torch==$TORCH_VERSION"
    have_torch || { echo "error: torch==$TORCH_VERSION still not importable from $PY" >&2; exit 1; }
fi
echo "$PY"
