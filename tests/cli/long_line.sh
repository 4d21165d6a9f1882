#!/bin/sh
# tests/cli/long_line.sh SRLAB SRCDIR: a 10 MB line (and a 100 kB argument) gives one clear,
# truncated message and exit status 2; no crash, no CSV.
set -u
srlab=$1
case $srlab in /*) ;; *) srlab=$PWD/$srlab ;; esac
tmp=$(mktemp -d "${TMPDIR:-/tmp}/srlab-long.XXXXXX") || exit 99
trap 'rm -rf "$tmp"' EXIT HUP INT TERM
fail=0
expect() { # expect NAME RC EXPECTED_STDERR
    if [ "$rc" -ne "$2" ]; then echo "FAIL $1: exit $rc, expected $2"; fail=1; fi
    if [ -s "$tmp/out" ]; then echo "FAIL $1: wrote to stdout"; fail=1; fi
    if [ "$(cat "$tmp/err")" != "$3" ]; then
        echo "FAIL $1: stderr:"; head -c 500 "$tmp/err"; echo; echo "expected: $3"; fail=1
    else
        echo "PASS $1"
    fi
}
head -c 10485760 /dev/zero | tr '\0' 1 >"$tmp/digits"
{ echo 0.5; head -c 10485760 /dev/zero | tr '\0' x; echo; echo 2; } >"$tmp/letters"

"$srlab" round --batch <"$tmp/digits" >"$tmp/out" 2>"$tmp/err"
rc=$?
expect "10 MB line of digits" 2 "srlab round: line 1: '1111111111111111111111111111111111111111...' (10485760 characters) is too long for a number (at most 4096 characters)"

"$srlab" round --batch <"$tmp/letters" >"$tmp/out" 2>"$tmp/err"
rc=$?
expect "10 MB line of letters" 2 "srlab round: line 2: 'xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx...' (10485760 characters) is too long for a number (at most 4096 characters)"

arg=$(head -c 100000 /dev/zero | tr '\0' 7)
"$srlab" round "$arg" >"$tmp/out" 2>"$tmp/err"
rc=$?
expect "100 kB argument" 2 "srlab round: '7777777777777777777777777777777777777777...' (100000 characters) is too long for a number (at most 4096 characters)"

# 4096 characters is still a number: the exact decimal of 2^-1074 written out in full
# (0.000...0004940656...) fits and is exactly a binary64 number.
"$srlab" round "$(printf '%.1074f' 0x1p-1074 | sed 's/0*$//')" -f fp64 >"$tmp/out" 2>"$tmp/err"
rc=$?
if [ $rc -eq 0 ] && grep -q "exactly a binary64 number" "$tmp/out"; then
    echo "PASS long exact decimal of 2^-1074"
else
    echo "FAIL long exact decimal of 2^-1074: exit $rc"; head -c 300 "$tmp/err"; fail=1
fi
exit $fail
