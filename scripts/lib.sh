# shellcheck shell=bash
# The preamble the scripts share. Each sources it right after `set -euo pipefail`:
#     . "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
# Sourcing it only sets the variables below: it prints nothing on stdout (torch-env.sh's stdout
# is eval'd) and changes no directory. The functions exit the script on an error, with one line
# on stderr.

# ROOT: the repository root (absolute), from this file's location. SHARED: the data beside the
# checkout (the tests do not need it; some scripts do). CALLER_DIR: where the script was started,
# before any `cd "$ROOT"`. The venvs of scripts/python-chess-venv.sh and scripts/torch-venv.sh.
# shellcheck disable=SC2034
{
    ROOT="$(CDPATH='' cd -- "$(dirname -- "${BASH_SOURCE[0]}")/.." && pwd)"
    SHARED="$ROOT/../shared/data"
    CALLER_DIR="$PWD"
    PYCHESS_VENV="$ROOT/.venv-pychess"
    TORCH_VENV="$ROOT/.venv-torch"
}

# need_shared PATH [HINT]: PATH (a file or folder under ../shared/data) must exist, else one
# clear line on stderr and exit 1. The tests do not need ../shared; some scripts do.
need_shared() {
    [ -e "$1" ] && return 0
    echo "error: $1 not found: this script needs ../shared/data beside the checkout${2:+ ($2)}" >&2
    exit 1
}

# need_deepred [VAR]: sets DEEPRED to the Deep Red binary as an absolute path: $DEEPRED (or $VAR,
# for a script documenting another name) if set, a relative path taken from CALLER_DIR if it
# exists there, else from ROOT; by default $ROOT/target/release/deepred. Exits 1 if that is not
# an executable file.
need_deepred() {
    local var="${1:-DEEPRED}" bin
    bin="${!var:-$ROOT/target/release/deepred}"
    case "$bin" in
        /*) ;;
        *) if [ -e "$CALLER_DIR/$bin" ]; then bin="$CALLER_DIR/$bin"; else bin="$ROOT/$bin"; fi ;;
    esac
    if [ ! -f "$bin" ] || [ ! -x "$bin" ]; then
        echo "error: Deep Red binary '$bin' not found: build it with 'cargo build --release' in $ROOT, or set $var=..." >&2
        exit 1
    fi
    DEEPRED="$bin"
}

# need_engine VAR NAME PACKAGE: an external UCI engine, e.g. `need_engine STOCKFISH stockfish
# stockfish`. Unless VAR is set, sets it to NAME in PATH, else /usr/games/NAME (where Debian puts
# it). Exits 1 if $VAR is not executable, naming the Debian package that provides it.
need_engine() {
    local path="${!1:-}"
    [ -n "$path" ] || path="$(command -v "$2" || echo "/usr/games/$2")"
    if [ ! -x "$path" ]; then
        echo "error: $2 not found at '$path': apt-get install $3, or set $1=..." >&2
        exit 1
    fi
    printf -v "$1" '%s' "$path"
}

# venv_pip VENV LABEL SPEC CHECK [NOTE]: makes sure the Python venv VENV has SPEC (a pinned pip
# requirement, e.g. chess==1.11.2); CHECK is Python code that exits 0 when SPEC is importable.
# Creates the venv and pip-installs SPEC only when CHECK fails (progress on stderr, LABEL naming
# what is already there, NOTE appended to the install line), then prints the venv's python on
# stdout. Exits 1 if CHECK still fails after the install. Idempotent.
venv_pip() {
    local venv="$1" label="$2" spec="$3" check="$4" note="${5:-}" py="$1/bin/python"
    if [ -x "$py" ] && "$py" -c "$check" >/dev/null 2>&1; then
        echo "$label already present in $venv" >&2
    else
        if [ ! -x "$py" ]; then
            echo "creating venv $venv" >&2
            python3 -m venv "$venv"
        fi
        echo "installing $spec into $venv$note" >&2
        "$py" -m pip install --disable-pip-version-check --quiet "$spec"
        "$py" -c "$check" >/dev/null 2>&1 || { echo "error: $spec still not importable from $py" >&2; exit 1; }
    fi
    echo "$py"
}
