#!/bin/sh
# tests/run/golden.sh: one golden transcript of `srlab op` or `srlab run`.
#
#   sh golden.sh SRLAB SRCDIR NAME STDIN [ARGS...]
#
# Runs SRLAB ARGS... (standard input: tests/run/input/STDIN, or /dev/null for '-') and compares
# the transcript -- the command line, standard output, standard error, exit status -- byte for
# byte with tests/run/golden/NAME.txt (same layout as tests/cli). SRL_UPDATE_GOLDEN=1 rewrites
# the file instead; every changed line must then be reviewed, since a golden file states what the
# correct output is (the values in the op and run goldens were checked by hand: see README.md).
set -u
srlab=$1
case $srlab in /*) ;; *) srlab=$PWD/$srlab ;; esac
here=$2/tests/run
name=$3
input=$4
shift 4
work=$(mktemp -d "${TMPDIR:-/tmp}/srlab-run-golden.XXXXXX") || exit 99
trap 'rm -rf "$work"' EXIT HUP INT TERM
stdin=/dev/null
[ "$input" = - ] || stdin=$here/input/$input
"$srlab" "$@" <"$stdin" >"$work/stdout" 2>"$work/stderr"
status=$?

stream() { # stream LABEL FILE: the file, marked when its last line has no newline
    printf -- '--- %s\n' "$1"
    cat "$2"
    if [ -s "$2" ] && [ -n "$(tail -c 1 "$2")" ]; then
        printf '\n(no newline at end of %s)\n' "$1"
    fi
}
{
    printf '$ srlab'
    printf ' %s' "$@"
    [ "$input" = - ] || printf ' < input/%s' "$input"
    printf '\n'
    stream stdout "$work/stdout"
    stream stderr "$work/stderr"
    printf -- '--- exit status %d\n' "$status"
} >"$work/transcript"

golden=$here/golden/$name.txt
if [ "${SRL_UPDATE_GOLDEN:-}" = 1 ]; then
    cp "$work/transcript" "$golden" && echo "updated $golden"
    exit $?
fi
if [ ! -f "$golden" ]; then
    echo "FAIL $name: $golden is missing (SRL_UPDATE_GOLDEN=1 writes it; review it before use)"
    cat "$work/transcript"
    exit 1
fi
if cmp -s "$golden" "$work/transcript"; then
    echo "PASS $name"
    exit 0
fi
echo "FAIL $name: the transcript differs from $golden"
diff -u "$golden" "$work/transcript"
exit 1
