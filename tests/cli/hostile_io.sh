#!/bin/sh
# tests/cli/hostile_io.sh SRLAB: hostile files and environments, as classes (issue 12, items 2, 3,
# 4, 7, 8 and its messages), each through the srlab command:
#   outputs  every -o follows one rule (src/cli/cli.h, "atomic outputs"): a character device, a
#            FIFO and /dev/stdout are written into, never replaced; a symbolic link or another
#            special file is refused (exit 2, the message naming the path) and left as it was;
#   threads  OMP_NUM_THREADS=100000 neither crashes sweep, run, train nor check, and changes no
#            byte of their outputs (the team is clamped, src/cli/host.h);
#   inputs   every file is read by one reader: /dev/zero, a FIFO, a directory and a file beyond
#            256 MiB are refused at once with a message saying why;
#   same     an output that is the same file as an input (any spelling, a link) is refused and
#            the input left intact; a file the runs read (train --data, a sweep's `data =` in a
#            spec or --data) is an input;
#   spec     a spec's `output =` is a path from the spec's folder, and may not leave it without
#            --allow-outside;
#   messages a byte-order mark is named, out-of-range numbers say so, a default emin is not blamed
#            on the user, plot's --set columns are checked before gnuplot, ./k.ini is k.ini.
set -u
. "$(dirname "$0")/../cli_lib.sh"
cli_setup hostile "$1"
# (wall times, the only bytes allowed to differ, are left out of the comparisons below)
# expect NAME RC PATTERN: the last command's exit status was RC and err holds PATTERN (grep -F)
expect() {
    [ "$rc" -eq "$2" ] && ok "$1: exit $2" || bad "$1: exit $rc, not $2: $(head -c 400 err)"
    [ -z "$3" ] || { grep -qF -- "$3" err && ok "$1: message" || bad "$1: message '$(head -c 400 err)' lacks '$3'"; }
}
# run_t SECONDS CMD...: CMD with a time limit (exit 124 when it is hit)
run_t() {
    if command -v timeout >/dev/null 2>&1; then timeout "$@"; else shift; "$@"; fi
}

cat >k.ini <<'EOF'
command = run
problem = sum
n = 10
seeds = 1
EOF

# ---- outputs: one rule for every path ----
printf '1\n2\n' | "$srlab" round --batch >want.csv 2>/dev/null || bad "round --batch fails"

# a character device of our own (root: mknod), else /dev/null when it is one: never a regular file
dev=/dev/null
mknod -m 666 nulldev c 1 3 2>/dev/null && dev=$tmp/nulldev
if [ -c "$dev" ]; then
    printf '1\n2\n' | "$srlab" round --batch -o "$dev" 2>err; rc=$?
    expect "-o $dev" 0 ""
    [ -c "$dev" ] && ok "$dev is still a character device" || bad "$dev was replaced"
    ln -s "$dev" devlink
    printf '1\n2\n' | "$srlab" round --batch -o devlink 2>err; rc=$?
    expect "-o link to a character device" 0 ""
    [ -L devlink ] && [ -c "$dev" ] && ok "link to $dev: written through" || bad "link to $dev: replaced"
fi

# /dev/stdout itself only when not root: a broken srlab run by root would replace the link
if [ "$(id -u)" != 0 ]; then
    printf '1\n2\n' | "$srlab" round --batch -o /dev/stdout >got.csv 2>err; rc=$?
    expect "-o /dev/stdout" 0 ""
    cmp -s got.csv want.csv && ok "-o /dev/stdout: the CSV on standard output" || bad "-o /dev/stdout: $(cat got.csv)"
fi
# a link of our own to standard output, a pipe: written through
ln -s /proc/self/fd/1 mystdout
{ printf '1\n2\n' | "$srlab" round --batch -o mystdout 2>err; echo $? >rc.txt; } | cat >got.csv
rc=$(cat rc.txt)
expect "-o link to standard output (a pipe)" 0 ""
cmp -s got.csv want.csv && ok "-o link to a pipe: the CSV through the pipe" || bad "-o link to a pipe: '$(cat got.csv)'"
[ -L mystdout ] && ok "-o link to a pipe: link intact" || bad "-o link to a pipe: link replaced"

mkfifo fifo
cat fifo >fromfifo &
reader=$!
printf '1\n2\n' | run_t 20 "$srlab" round --batch -o fifo 2>err; rc=$?
[ -p fifo ] || kill $reader 2>/dev/null # replaced: the reader would wait forever
wait $reader
expect "-o FIFO" 0 ""
[ -p fifo ] && ok "-o FIFO: still a FIFO" || bad "-o FIFO: replaced"
cmp -s fromfifo want.csv && ok "-o FIFO: the reader got the CSV" || bad "-o FIFO: reader got '$(cat fromfifo)'"

echo precious >target.csv
ln -s target.csv link.csv
ln -s nowhere.csv dangling.csv
printf '1\n' | "$srlab" round --batch -o link.csv 2>err; rc=$?
expect "-o symlink" 2 "-o: 'link.csv' is a symbolic link"
[ -L link.csv ] && [ "$(cat target.csv)" = precious ] && ok "-o symlink: link and target intact" ||
    bad "-o symlink: link or target changed"
printf '1\n' | "$srlab" round --batch -o dangling.csv 2>err; rc=$?
expect "-o dangling symlink" 2 "'dangling.csv' is a symbolic link to nothing"
[ -L dangling.csv ] && [ ! -e nowhere.csv ] && ok "-o dangling symlink: untouched" || bad "-o dangling symlink: changed"
# every command's -o goes through the same rule
for c in "run --problem sum --n 10" "train --problem quadratic --steps 5" "sweep k.ini" \
    "check T13 --quick" "op add --batch"; do
    # shellcheck disable=SC2086
    printf '1,2\n' | "$srlab" $c -o link.csv >/dev/null 2>err; rc=$?
    expect "srlab $c -o symlink" 2 "'link.csv' is a symbolic link"
done
[ "$(cat target.csv)" = precious ] && ok "every command: target intact" || bad "a command wrote through the link"
# a file written as the work goes (a sweep's journal) follows the same rule
ln -s elsewhere.txt j.journal
"$srlab" sweep k.ini -o j.csv 2>err; rc=$?
expect "journal is a symlink" 2 "'j.journal' is a symbolic link"
[ -L j.journal ] && [ ! -e elsewhere.txt ] && ok "journal symlink: nothing created through it" ||
    bad "journal symlink: written through"

# a sweep and a merge write two files beside -o: it must be a file name
if [ -c "$dev" ]; then
    "$srlab" sweep k.ini -o "$dev" 2>err; rc=$?
    expect "sweep -o a character device" 2 "is not a regular file: a sweep writes its runs and summary"
    [ ! -e "$dev.runs.csv" ] && ok "sweep -o a device: nothing beside it" || bad "sweep -o a device: $dev.runs.csv"
fi

# ---- threads: a huge OMP_NUM_THREADS is clamped and changes nothing ----
# (sweep --dry-run, check with two checks and a small gpt crashed before the clamp)
for c in "sweep k.ini --dry-run" "sweep k.ini" "run --problem sum --n 1000 --seeds 3" \
    "train --problem quadratic --steps 50 --seeds 2" "train --problem gpt --steps 2 --n-embd 64" \
    "check T01 T13 --quick"; do
    # shellcheck disable=SC2086
    OMP_NUM_THREADS=1 "$srlab" $c 2>/dev/null | grep -v '^# date\|time\| s)$' >one.txt
    # shellcheck disable=SC2086
    OMP_NUM_THREADS=100000 run_t 120 "$srlab" $c 2>err | grep -v '^# date\|time\| s)$' >many.txt
    rc=$(cat err | grep -c 'Segmentation\|Thread creation failed\|libgomp')
    [ "$rc" -eq 0 ] && [ -s many.txt ] && ok "OMP_NUM_THREADS=100000 srlab $c runs" ||
        bad "OMP_NUM_THREADS=100000 srlab $c: $(head -c 300 err)"
    cmp -s one.txt many.txt && ok "OMP_NUM_THREADS=100000 srlab $c: same bytes as 1 thread" ||
        bad "OMP_NUM_THREADS=100000 srlab $c: output differs"
done

# ---- inputs: one bounded reader ----
mkdir adir
mkfifo infifo
run_t 20 "$srlab" sweep /dev/zero 2>err; rc=$?
expect "sweep /dev/zero" 2 "not a regular file"
run_t 20 "$srlab" merge /dev/zero -o m.csv 2>err; rc=$?
expect "merge /dev/zero" 2 "not a regular file"
run_t 20 "$srlab" sweep infifo 2>err; rc=$?
expect "sweep FIFO (no writer)" 2 "not a regular file"
run_t 20 "$srlab" sweep adir 2>err; rc=$?
expect "sweep directory" 2 "a directory"
# standard input is a stream, read a line at a time: a line is at most 64 MiB
run_t 60 "$srlab" round --batch </dev/zero >/dev/null 2>err; rc=$?
expect "round --batch </dev/zero" 2 "line 1: longer than 64 MiB"
run_t 60 "$srlab" op add --batch </dev/zero >/dev/null 2>err; rc=$?
expect "op add --batch </dev/zero" 2 "line 1: longer than 64 MiB"
run_t 20 "$srlab" plot loss_vs_step --in /dev/zero -o p.png 2>err; rc=$?
expect "plot --in /dev/zero" 2 "not a regular file"
if truncate -s 257M big.ini 2>/dev/null; then
    run_t 20 "$srlab" sweep big.ini 2>err; rc=$?
    expect "sweep 257 MiB spec" 2 "larger than 256 MiB"
    run_t 20 "$srlab" merge big.ini -o m.csv 2>err; rc=$?
    expect "merge 257 MiB shard" 2 "larger than 256 MiB"
fi

# ---- same file as an input ----
cp k.ini spec.ini
"$srlab" sweep spec.ini -o spec.ini 2>err; rc=$?
expect "sweep spec -o spec" 2 "is the same file as the input"
cmp -s spec.ini k.ini && ok "sweep spec -o spec: spec intact" || bad "sweep spec -o spec: spec changed"
ln -s spec.ini alias.ini
"$srlab" sweep ./spec.ini -o ./alias.ini 2>err; rc=$?
expect "sweep spec -o link to spec" 2 ""
cmp -s spec.ini k.ini && ok "sweep spec -o link: spec intact" || bad "sweep spec -o link: spec changed"
mkdir own
{ cat k.ini; echo "output = own.ini"; } >own/own.ini
cp own/own.ini own.keep
"$srlab" sweep own/own.ini 2>err; rc=$?
expect "spec output = its own name" 2 "is the same file as the input"
cmp -s own/own.ini own.keep && ok "spec output = itself: intact" || bad "spec output = itself: changed"
"$srlab" sweep k.ini --shard 0/2 -o s0.csv 2>/dev/null && "$srlab" sweep k.ini --shard 1/2 -o s1.csv 2>/dev/null ||
    bad "sweep shards fail"
cp s0.csv s0.keep
"$srlab" merge s0.csv s1.csv -o s0.csv 2>err; rc=$?
expect "merge a b -o a" 2 "is the same file as the input"
cmp -s s0.csv s0.keep && ok "merge a b -o a: a intact" || bad "merge a b -o a: a changed"
printf 'hello world, some text to train on. %.0s' 1 2 3 4 5 6 7 8 9 10 >t.txt
cp t.txt t.keep
"$srlab" train --problem gpt --data t.txt --steps 1 -o t.txt 2>err; rc=$?
expect "train --data X -o X" 2 "is the same file as the input"
cmp -s t.txt t.keep && ok "train --data X -o X: X intact" || bad "train --data X -o X: X changed"
# a spec's `data = X` (and the sweep flag --data) is an input too, whether the output is
# `output = X` in the spec or -o X, and X may be one item of a list or in brackets
printf 'problem = gpt\ndata = t.txt\nsteps = 1\noutput = t.txt\n' >data.ini
"$srlab" sweep data.ini 2>err; rc=$?
expect "spec data = X, output = X" 2 "'t.txt' is the same file as the input 't.txt'"
printf 'problem = gpt\ndata = markov,[t.txt]\nsteps = 1\n' >data2.ini
"$srlab" sweep data2.ini -o ./t.txt 2>err; rc=$?
expect "spec data = markov,[X], -o ./X" 2 "'./t.txt' is the same file as the input 't.txt'"
cp t.txt d.runs.csv
"$srlab" sweep --problem gpt --data d.runs.csv --steps 1 -o d.csv 2>err; rc=$?
expect "sweep --data D.runs.csv -o D.csv (its runs file)" 2 "is the same file as the input 'd.runs.csv'"
cmp -s t.txt t.keep && cmp -s d.runs.csv t.keep && ok "sweep data X -o X: X intact" ||
    bad "sweep data X -o X: X changed"
"$srlab" sweep --problem quadratic --steps 5 -o rows.csv 2>/dev/null || bad "sweep quadratic fails"
cp rows.csv rows.png
cp rows.png rows.keep
if command -v gnuplot >/dev/null 2>&1; then
    "$srlab" plot loss_vs_step --in rows.png -o ./rows.png 2>err; rc=$?
    expect "plot --in X -o X" 2 "is the same file as the input"
    cmp -s rows.png rows.keep && ok "plot --in X -o X: X intact" || bad "plot --in X -o X: X changed"
fi

# figures: plot draws into a file of its own and writes a FIFO through; demo refuses one
if command -v gnuplot >/dev/null 2>&1; then
    mkfifo pfifo.png
    cat pfifo.png >got.png &
    reader=$!
    run_t 60 "$srlab" plot loss_vs_step --in rows.csv -o pfifo.png 2>err; rc=$?
    [ -p pfifo.png ] || kill $reader 2>/dev/null
    wait $reader
    expect "plot -o FIFO" 0 ""
    [ -p pfifo.png ] && [ "$(head -c 4 got.png | od -An -c | tr -d ' ')" = "211PNG" ] &&
        ok "plot -o FIFO: a PNG through the FIFO" || bad "plot -o FIFO: '$(head -c 8 got.png | od -An -c)'"
fi
mkfifo dfifo.png
run_t 20 "$srlab" demo accumulate --plot dfifo.png >/dev/null 2>err; rc=$?
expect "demo --plot FIFO" 2 "--plot: 'dfifo.png' is not a regular file"
[ -p dfifo.png ] && ok "demo --plot FIFO: untouched" || bad "demo --plot FIFO: replaced"

# ---- spec output: from the spec's folder, inside it unless --allow-outside ----
mkdir -p sub/deeper
{ cat k.ini; echo "output = o.csv"; } >sub/rel.ini
"$srlab" sweep sub/rel.ini 2>err; rc=$?
expect "spec output relative" 0 ""
[ -f sub/o.csv ] && [ ! -e o.csv ] && ok "spec output: beside the spec" || bad "spec output: not in sub/"
(cd sub/deeper && "$srlab" sweep ../rel.ini 2>../../err); rc=$?
[ -f sub/o.csv ] && [ ! -e sub/deeper/o.csv ] && ok "spec output: the same file from another folder" ||
    bad "spec output: written into the current folder"
{ cat k.ini; echo "output = $tmp/abs.csv"; } >sub/abs.ini
"$srlab" sweep sub/abs.ini 2>err; rc=$?
expect "spec output absolute" 2 "sub/abs.ini:5: output = '$tmp/abs.csv': an absolute path"
[ ! -e abs.csv ] && ok "spec output absolute: nothing written" || bad "spec output absolute: written"
"$srlab" sweep sub/abs.ini --allow-outside 2>err; rc=$?
expect "spec output absolute --allow-outside" 0 ""
[ -f abs.csv ] && ok "--allow-outside: written" || bad "--allow-outside: not written"
{ cat k.ini; echo "output = deeper/../../up.csv"; } >sub/up.ini
"$srlab" sweep sub/up.ini 2>err; rc=$?
expect "spec output ../" 2 "leaves the spec file's folder"
[ ! -e up.csv ] && ok "spec output ../: nothing written" || bad "spec output ../: written"
{ cat k.ini; echo "output = deeper/../in.csv"; } >sub/in.ini
"$srlab" sweep sub/in.ini 2>err; rc=$?
expect "spec output a/../b stays inside" 0 ""
[ -f sub/in.csv ] && ok "spec output a/../b: written in the spec's folder" || bad "spec output a/../b: missing"
"$srlab" sweep --help | grep -q -- '--allow-outside' && ok "sweep --help: --allow-outside" ||
    bad "sweep --help lacks --allow-outside"

# ---- messages ----
bom=$(printf '\357\273\277')
"$srlab" round "${bom}0.1" 2>err; rc=$?
expect "byte-order mark in an argument" 2 "'0.1' starts with a UTF-8 byte-order mark"
printf '%s0.1\n0.5\n' "$bom" | "$srlab" round --batch 2>err >/dev/null; rc=$?
expect "byte-order mark on line 1 of a batch" 2 "line 1: '0.1' starts with a UTF-8 byte-order mark"
{ printf '%s' "$bom"; cat k.ini; } >bom.ini
"$srlab" sweep bom.ini -o bom.csv 2>err; rc=$?
expect "spec file with a byte-order mark" 0 ""
"$srlab" run --problem sum --n 99999999999999999999 2>err; rc=$?
expect "--n 99999999999999999999" 2 "--n: '99999999999999999999' is too large (at most"
"$srlab" train --problem quad1d --xstar 1e400 2>err; rc=$?
expect "--xstar 1e400" 2 "--xstar: '1e400' is beyond binary64's range"
"$srlab" formats p=8,emax=-5 2>err; rc=$?
expect "p=8,emax=-5" 2 "emax=-5 is too small: without emin="
grep -q 'emin=6 is larger' err && bad "p=8,emax=-5 blames an emin never given" || ok "p=8,emax=-5: no emin blamed"
"$srlab" plot loss_vs_step --in rows.csv -o p.png --set by=nosuchcol 2>err; rc=$?
expect "plot --set by=nosuchcol" 2 "--set by: --in 'rows.csv' has no column 'nosuchcol'"
"$srlab" plot loss_vs_step --in rows.csv -o p.png --set 'where=nosuch=1' 2>err; rc=$?
expect "plot --set where=nosuch=1" 2 "has no column 'nosuch'"
grep -q 'internal error' err && bad "plot: gnuplot internals leak" || ok "plot: no gnuplot internals"
"$srlab" sweep k.ini -o a.csv 2>/dev/null && "$srlab" sweep ./k.ini -o b.csv 2>/dev/null ||
    bad "sweep k.ini / ./k.ini fails"
for f in "" .summary .runs; do # every byte but the date (seconds apart) and the set's stamp (its hash)
    grep -v '^# date: \|^# set: ' "a$f.csv" >"a$f.nodate"
    grep -v '^# date: \|^# set: ' "b$f.csv" >"b$f.nodate"
    cmp -s "a$f.nodate" "b$f.nodate" && ok "./k.ini and k.ini: same a$f.csv" ||
        bad "./k.ini and k.ini differ in $f.csv: $(diff "a$f.csv" "b$f.csv" | head -5)"
done
"$srlab" op --help | grep -q 'no quoted fields' && ok "op --help: no quoted fields" ||
    bad "op --help does not say it takes no quoted fields"
exit $fail
