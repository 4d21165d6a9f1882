#!/bin/sh
# tests/check/quick_e2e.sh SRLAB: `srlab check --quick -o FILE` end to end (suite slow): exit 0,
# every check PASS, the CSV header exactly as `srlab reproduce` reads it, one row per check of
# `srlab check --list`, and the table's summary line agreeing with the CSV.
set -u
srlab=$1
case $srlab in /*) ;; *) srlab=$PWD/$srlab ;; esac
tmp=$(mktemp -d "${TMPDIR:-/tmp}/srlab-check-e2e.XXXXXX") || exit 99
trap 'rm -rf "$tmp"' EXIT HUP INT TERM
cd "$tmp" || exit 99
start=$(date +%s)
"$srlab" check --quick -o check.csv >table.txt 2>stderr
rc=$?
end=$(date +%s)
cat table.txt
n=$("$srlab" check --list | grep -c '^  T[0-9][0-9][a-z] ')
rows=$(tail -n +2 check.csv | wc -l)
pass=$(grep -c ',PASS$' check.csv)
fail=0
[ $rc -eq 0 ] || { echo "FAIL exit $rc: $(cat stderr)"; fail=1; }
[ "$(head -1 check.csv)" = "id,what,measured,ci_lo,ci_hi,predicted,margin,result" ] ||
    { echo "FAIL header: $(head -1 check.csv)"; fail=1; }
[ "$rows" -eq "$n" ] || { echo "FAIL $rows rows for $n checks"; fail=1; }
[ "$pass" -eq "$n" ] || { echo "FAIL $pass PASS of $n"; fail=1; }
grep -q "^$n checks: $n PASS, 0 FAIL" table.txt || { echo "FAIL summary line"; fail=1; }
echo "srlab check --quick: $n checks, $pass PASS, wall time $((end - start)) s"
[ $fail -eq 0 ] && echo "PASS srlab check --quick end to end"
exit $fail
