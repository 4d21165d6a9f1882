# tests/cli_lib.sh: sourced by the shell tests that drive srlab from the outside
# (tests/train/cli_train.sh, tests/problems/cli_models.sh, tests/check/cli_check.sh, and the
# bench scripts' argument tests tests/cli/peers_args.sh, tests/cli/levels_args.sh, ...).
#   cli_setup NAME SRLAB   srlab's absolute path in $srlab; a scratch folder (removed on exit)
#                          as the working directory; fail=0
#   ok TEXT / bad TEXT     a PASS line / a FAIL line (and fail=1)
#   usage_error NAME PATTERN ARGS...
#                          runs srlab $usage_head ARGS... $usage_tail and asserts the bad-input
#                          contract: exit status 2, exactly one line on standard error matching
#                          PATTERN, nothing on standard output, an existing out.csv untouched and
#                          no temporary file left. usage_head/usage_tail (unquoted, may be empty)
#                          are set by the caller, e.g. usage_tail="-o out.csv".
#   script_refuses SCRIPT NAME PATTERN ARGS...
#                          runs `sh SCRIPT ARGS...` (bench/peers.sh, bench/levels.sh) and asserts
#                          that it checked its arguments first: exit status 2, PATTERN on standard
#                          error, nothing on standard output, $TMPDIR (set by the caller to an
#                          empty folder) still empty.
cli_setup() {
    srlab=$2
    case $srlab in /*) ;; *) srlab=$PWD/$srlab ;; esac
    tmp=$(mktemp -d "${TMPDIR:-/tmp}/srlab-$1.XXXXXX") || exit 99
    trap 'rm -rf "$tmp"' EXIT HUP INT TERM
    cd "$tmp" || exit 99
    fail=0
    usage_head=""
    usage_tail=""
}
ok() { echo "PASS $1"; }
bad() { echo "FAIL $1"; fail=1; }

usage_error() {
    name=$1
    pat=$2
    shift 2
    echo precious >out.csv
    "$srlab" $usage_head "$@" $usage_tail >stdout 2>stderr
    rc=$?
    lines=$(wc -l <stderr)
    if [ $rc -ne 2 ]; then bad "$name: exit $rc (want 2): $(cat stderr)"; return; fi
    if [ "$lines" -ne 1 ]; then bad "$name: $lines lines on stderr: $(cat stderr)"; return; fi
    if ! grep -q -- "$pat" stderr; then bad "$name: message '$(cat stderr)' lacks '$pat'"; return; fi
    if [ -s stdout ]; then bad "$name: standard output not empty"; return; fi
    if [ "$(cat out.csv)" != precious ]; then bad "$name: out.csv changed"; return; fi
    if ls -A | grep -q '\.tmp-'; then bad "$name: temporary file left"; return; fi
    ok "$name"
}

script_refuses() {
    script=$1 name=$2 pat=$3
    shift 3
    sh "$script" "$@" >stdout 2>stderr
    rc=$?
    if [ $rc -ne 2 ]; then bad "$name: exit $rc (want 2): $(cat stderr)"
    elif ! grep -q -- "$pat" stderr; then bad "$name: message '$(cat stderr)' lacks '$pat'"
    elif [ -s stdout ]; then bad "$name: standard output not empty: $(cat stdout)"
    elif [ -n "$(ls -A "$TMPDIR")" ]; then bad "$name: left $(ls -A "$TMPDIR")"
    else ok "$name"; fi
}
