#!/bin/sh
# tests/cli/golden.sh: one golden-output test of the srlab command.
#
#   sh golden.sh SRLAB SRCDIR NAME STDIN [ARGS...]
#
# Runs `SRLAB ARGS...` with standard input from tests/cli/input/STDIN ('-' for /dev/null) and
# compares its transcript (the command, stdout, stderr, exit status) byte for byte with
# tests/cli/golden/NAME.txt. On a mismatch it prints a unified diff and fails.
#
# Regenerate: SRL_UPDATE_GOLDEN=1 meson test -C BUILD --suite cli
# rewrites every golden file from the current output; review `git diff tests/cli/golden` line by
# line before committing: a golden file is a statement about correct output, not a recording.
set -u
srlab=$1
case $srlab in /*) ;; *) srlab=$PWD/$srlab ;; esac
srcdir=$2
name=$3
input=$4
shift 4
dir=$srcdir/tests/cli
golden=$dir/golden/$name.txt
tmp=$(mktemp -d "${TMPDIR:-/tmp}/srlab-golden.XXXXXX") || exit 99
trap 'rm -rf "$tmp"' EXIT HUP INT TERM

if [ "$input" = - ]; then
    in=/dev/null
else
    in=$dir/input/$input
fi
"$srlab" "$@" <"$in" >"$tmp/out" 2>"$tmp/err"
rc=$?

# The transcript. A stream that does not end with a newline is marked, so the comparison stays
# exact byte for byte.
section() {
    printf -- '--- %s\n' "$1"
    cat "$2"
    if [ -s "$2" ] && [ "$(tail -c 1 "$2" | od -An -c | tr -d ' ')" != '\n' ]; then
        printf '\n(no newline at end of %s)\n' "$1"
    fi
}
{
    printf '$ srlab'
    for a in "$@"; do
        printf ' %s' "$a"
    done
    if [ "$input" != - ]; then
        printf ' < input/%s' "$input"
    fi
    printf '\n'
    section stdout "$tmp/out"
    section stderr "$tmp/err"
    printf -- '--- exit status %d\n' "$rc"
} >"$tmp/actual"

if [ "${SRL_UPDATE_GOLDEN:-}" = 1 ]; then
    cp "$tmp/actual" "$golden" || exit 99
    echo "updated $golden"
    exit 0
fi
if [ ! -f "$golden" ]; then
    echo "FAIL $name: no golden file $golden (SRL_UPDATE_GOLDEN=1 creates it; then review it)"
    cat "$tmp/actual"
    exit 1
fi
if cmp -s "$golden" "$tmp/actual"; then
    echo "PASS $name"
    exit 0
fi
echo "FAIL $name: output differs from $golden"
diff -u "$golden" "$tmp/actual"
exit 1
