#!/bin/sh
# tests/cli/atomic.sh SRLAB SRCDIR: `-o FILE` is atomic: a failed, refused or interrupted run
# leaves an existing FILE untouched (content and permissions) and no temporary file behind; a
# missing directory is an error before any work; success replaces FILE with exactly the CSV that
# standard output would have received.
set -u
srlab=$1
case $srlab in /*) ;; *) srlab=$PWD/$srlab ;; esac
tmp=$(mktemp -d "${TMPDIR:-/tmp}/srlab-atomic.XXXXXX") || exit 99
trap 'rm -rf "$tmp"' EXIT HUP INT TERM
cd "$tmp" || exit 99
umask 022
fail=0
ok() { echo "PASS $1"; }
bad() { echo "FAIL $1"; fail=1; }
no_temps() {
    if ls -A | grep -q '\.tmp-'; then bad "$1: a temporary file was left: $(ls -A)"; else ok "$1"; fi
}

echo precious >out.csv
chmod 640 out.csv

# 1. a bad line: exit 2, out.csv untouched, no temporary file
printf '1\n2\nabc\n' | "$srlab" round --batch -o out.csv 2>err
rc=$?
[ $rc -eq 2 ] && ok "bad line: exit 2" || bad "bad line: exit $rc"
[ "$(cat out.csv)" = precious ] && ok "bad line: out.csv untouched" || bad "bad line: out.csv changed"
[ "$(cat err)" = "srlab round: line 3: 'abc' is not a number" ] && ok "bad line: message" ||
    bad "bad line: message '$(cat err)'"
no_temps "bad line: no temporary file"

# 2. a missing directory: exit 2 before reading anything, nothing created
printf '1\n' | "$srlab" round --batch -o missing/out.csv 2>err
rc=$?
[ $rc -eq 2 ] && ok "missing dir: exit 2" || bad "missing dir: exit $rc"
[ ! -e missing ] && ok "missing dir: not created" || bad "missing dir: created"
[ "$(cat err)" = "srlab round: -o: cannot write 'missing/out.csv': directory 'missing' does not exist" ] &&
    ok "missing dir: message" || bad "missing dir: message '$(cat err)'"

# 3. a parent that is a file
printf '1\n' | "$srlab" round --batch -o out.csv/x.csv 2>err
rc=$?
[ $rc -eq 2 ] && ok "parent is a file: exit 2" || bad "parent is a file: exit $rc"
[ "$(cat out.csv)" = precious ] && ok "parent is a file: out.csv untouched" || bad "parent is a file: out.csv changed"

# 4. interrupted (SIGTERM while waiting for input): out.csv untouched, temporary file removed
rm -f fifo
mkfifo fifo
"$srlab" round --batch -o out.csv <fifo 2>err &
pid=$!
exec 3>fifo
echo 1 >&3
n=0
while ! ls -A | grep -q '\.tmp-' && [ $n -lt 100 ]; do
    sleep 0.05
    n=$((n + 1))
done
ls -A | grep -q '\.tmp-' && ok "interrupted: temporary file exists while running" ||
    bad "interrupted: no temporary file while running"
kill -TERM $pid
wait $pid
rc=$?
exec 3>&-
rm -f fifo
[ $rc -eq 143 ] && ok "interrupted: killed by SIGTERM" || bad "interrupted: exit $rc"
[ "$(cat out.csv)" = precious ] && ok "interrupted: out.csv untouched" || bad "interrupted: out.csv changed"
no_temps "interrupted: temporary file removed"

# 5. success: out.csv replaced by exactly the stdout CSV, permissions kept
printf '1\n0.1\n' | "$srlab" round --batch -r sr -o out.csv 2>err
rc=$?
printf '1\n0.1\n' | "$srlab" round --batch -r sr >expected 2>/dev/null
[ $rc -eq 0 ] && ok "success: exit 0" || bad "success: exit $rc"
cmp -s out.csv expected && ok "success: out.csv is the CSV" || bad "success: out.csv differs"
[ "$(ls -l out.csv | cut -c1-10)" = "-rw-r-----" ] && ok "success: permissions kept" ||
    bad "success: permissions $(ls -l out.csv | cut -c1-10)"
no_temps "success: no temporary file"

# 6. a new file gets 0666 & ~umask
printf '1\n' | "$srlab" round --batch -o new.csv 2>/dev/null
[ "$(ls -l new.csv | cut -c1-10)" = "-rw-r--r--" ] && ok "new file: 0644 under umask 022" ||
    bad "new file: permissions $(ls -l new.csv | cut -c1-10)"
exit $fail
