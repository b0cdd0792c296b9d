#!/usr/bin/env bash
# Prints the environment the `torch` cargo feature needs, for `eval "$(scripts/torch-env.sh)"`:
# tch's build finds libtorch inside the venv's PyTorch (LIBTORCH_USE_PYTORCH=1, python on PATH),
# and the built binaries find its shared libraries through LD_LIBRARY_PATH.
# Run scripts/torch-venv.sh first.
set -euo pipefail
. "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
VENV="$TORCH_VENV"
[ -x "$VENV/bin/python" ] || { echo "echo 'error: no $VENV; run scripts/torch-venv.sh' >&2; false"; exit 1; }
TORCH_LIB="$("$VENV/bin/python" -c 'import os, torch; print(os.path.join(os.path.dirname(torch.__file__), "lib"))' 2>/dev/null)"
echo "export LIBTORCH_USE_PYTORCH=1"
echo "export PATH=\"$VENV/bin:\$PATH\""
echo "export LD_LIBRARY_PATH=\"$TORCH_LIB\${LD_LIBRARY_PATH:+:\$LD_LIBRARY_PATH}\""
