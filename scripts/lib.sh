# shellcheck shell=bash
# Helpers shared by the scripts: `. "$(dirname "${BASH_SOURCE[0]}")/lib.sh"`.

# need_shared PATH [HINT]: PATH (a file or folder under ../shared/data) must exist, else one
# clear line on stderr and exit 1. The tests do not need ../shared; some scripts do.
need_shared() {
    [ -e "$1" ] && return 0
    echo "error: $1 not found: this script needs ../shared/data beside the checkout${2:+ ($2)}" >&2
    exit 1
}
