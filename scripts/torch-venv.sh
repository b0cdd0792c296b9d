#!/usr/bin/env bash
# Create (or reuse) a Python venv with PyTorch 2.13.0 at <repo>/.venv-torch, for the `torch`
# cargo feature (tch 0.26 links against this PyTorch's libtorch: LIBTORCH_USE_PYTORCH=1).
# Idempotent. Prints the venv's python path on the last line.
# Usage: scripts/torch-venv.sh
#   then: source <(scripts/torch-env.sh)   or   export the variables it prints.
set -euo pipefail
. "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
TORCH_VERSION="2.13.0"
venv_pip "$TORCH_VENV" "torch $TORCH_VERSION" "torch==$TORCH_VERSION" \
    "import torch, sys; sys.exit(0 if torch.__version__.split('+')[0] == '$TORCH_VERSION' else 1)" \
    " (large download)"
