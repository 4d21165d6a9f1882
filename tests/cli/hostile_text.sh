#!/bin/sh
# tests/cli/hostile_text.sh SRLAB TESTCLI: text from users stays text (issue 28, items 5, 8, 9),
# as classes, through the srlab command (and sweep_testcli, srlab sweep with the toy runners):
#   nul       a NUL byte is refused by every text reader, naming the file and its line: a spec
#             (in a value, at a line's start), a shard for merge, a runs file for compare, plot's
#             --in, round/op --batch input; a journal record holding one is damage (dropped and
#             rerun), a journal header holding one is refused;
#   messages  every message that echoes input shows it as text: control characters (ESC, CR,
#             BEL), C1 controls, bytes that are not UTF-8 and the invisible and reordering
#             characters come out as escapes, through every route (options, positional
#             arguments, spec keys and values, file names, file contents, library messages);
#   formulas  a text cell from user input that a spreadsheet would take for a formula (=, +, -,
#             @) is written guarded ("'=..."), the comment lines too, and srlab's readers read
#             it back as written (compare finds the level);
#   same      round --batch -o f < f refuses, f untouched;
#   words     messages item 9: CR LF shards, a line with too many fields, CR-only lines and a
#             byte-order mark inside a spec, the statements --checks knows, a range of 2^32
#             values.
set -u
. "$(dirname "$0")/../cli_lib.sh"
testcli=$2
case $testcli in /*) ;; *) testcli=$PWD/$testcli ;; esac
cli_setup hostile-text "$1"
expect() { # NAME RC PATTERN: the last command's exit status and a pattern of err (grep -F)
    [ "$rc" -eq "$2" ] && ok "$1: exit $2" || bad "$1: exit $rc, not $2: $(head -c 400 err)"
    [ -z "$3" ] || { grep -qF -- "$3" err && ok "$1: message" || bad "$1: message '$(head -c 400 err)' lacks '$3'"; }
}

# ---- nul: every text reader ----
printf 'problem = quad1d\nlr = 0.1\000,0.2\nsteps = 5\n' >v.ini
"$srlab" sweep v.ini --dry-run >out 2>err; rc=$?
expect "nul in a spec value" 2 "v.ini': line 2 holds a NUL byte"
printf 'problem = quad1d\n\000lr = 0.5\nsteps = 5\n' >s.ini
"$srlab" sweep s.ini --dry-run >out 2>err; rc=$?
expect "nul at a spec line's start" 2 "s.ini': line 2 holds a NUL byte"
[ -s out ] && bad "nul: a spec with a NUL ran" || ok "nul: nothing ran"

"$srlab" sweep --problem quad1d --lr 0.1,0.2 --steps 20 --seeds 2 --shard 0/2 -o s0.csv 2>/dev/null &&
    "$srlab" sweep --problem quad1d --lr 0.1,0.2 --steps 20 --seeds 2 --shard 1/2 -o s1.csv 2>/dev/null ||
    bad "shards"
"$srlab" sweep --problem quad1d --lr 0.1,0.2 --steps 20 --seeds 2 -o w.csv 2>/dev/null || bad "whole sweep"
# a NUL in the last data line of a shard's rows (then its runs file), and of a runs file
for f in s1.csv s1.runs.csv w.runs.csv; do
    n=$(wc -l <"$f")
    awk -v n="$n" 'NR == n { sub(/,/, ",\001") } { print }' "$f" | tr '\001' '\000' >"nul-$f"
done
mkdir -p m && cp nul-s1.csv m/s1.csv && cp s1.runs.csv m/s1.runs.csv
"$srlab" merge s0.csv m/s1.csv -o merged.csv 2>err; rc=$?
expect "nul in a shard" 2 "'m/s1.csv': line $(wc -l <s1.csv) holds a NUL byte"
mkdir -p m2 && cp s1.csv m2/s1.csv && cp nul-s1.runs.csv m2/s1.runs.csv
"$srlab" merge s0.csv m2/s1.csv -o merged.csv 2>err; rc=$?
expect "nul in a shard's runs file" 2 "holds a NUL byte"
"$srlab" compare nul-w.runs.csv --baseline 0.1 --axis lr 2>err >out; rc=$?
expect "nul in compare's runs file" 2 "nul-w.runs.csv': line $(wc -l <w.runs.csv) holds a NUL byte"
"$srlab" plot lr_sweep --in nul-w.runs.csv -o p.png 2>err; rc=$?
expect "nul in plot's --in" 2 "holds a NUL byte"
printf '1\n2\000\n3\n' | "$srlab" round --batch >out 2>err; rc=$?
expect "nul in round --batch" 2 "line 2: contains a NUL byte"
printf '1,2\n\0003,4\n' | "$srlab" op add --batch >out 2>err; rc=$?
expect "nul in op --batch" 2 "line 2: contains a NUL byte"

# journals: a record with a NUL is damage (dropped by name, run again: the same files), a
# header with one is refused
export SOURCE_DATE_EPOCH=1700000000
toy="--problem toy --lr 0.05,0.1,0.2,0.4 --seeds 3 --steps 40 --sleep-ms 20"
# shellcheck disable=SC2086
"$testcli" sweep $toy --quiet -o j.csv 2>/dev/null || bad "toy sweep"
# shellcheck disable=SC2086
"$testcli" sweep $toy --threads 1 -o r.csv 2>/dev/null &
pid=$!
records() { n=$(grep -c '^@run ' "$1" 2>/dev/null); echo "${n:-0}"; }
i=0
while [ $i -lt 1000 ] && [ "$(records r.journal)" -lt 4 ]; do sleep 0.01; i=$((i + 1)); done
kill -9 $pid 2>/dev/null
wait $pid 2>/dev/null
if [ "$(records r.journal)" -ge 4 ]; then
    cp r.journal h.journal
    # one byte of the second record's rows becomes NUL
    at=$(grep -n '^@run ' r.journal | sed -n 2p | cut -d: -f1)
    run=$(sed -n "${at}p" r.journal | cut -d' ' -f2)
    awk -v at="$at" 'NR == at + 1 { sub(/,/, ",\001") } { print }' r.journal | tr '\001' '\000' >r.tmp &&
        cat r.tmp >r.journal
    # shellcheck disable=SC2086
    "$testcli" sweep $toy --threads 1 -o r.csv --resume 2>err; rc=$?
    expect "nul in a journal record: dropped" 0 "dropped the record of run $run at line $at"
    cmp -s r.csv j.csv && cmp -s r.runs.csv j.runs.csv && ok "nul in a journal record: run again, the same files" ||
        bad "nul in a journal record: the files differ"
    # a NUL in the header's '#' lines
    awk 'NR == 2 { sub(/ /, "\001") } { print }' h.journal | tr '\001' '\000' >h.tmp && cat h.tmp >h.journal
    cp h.journal h.kept
    # shellcheck disable=SC2086
    "$testcli" sweep $toy --threads 1 -o h.csv --resume 2>err; rc=$?
    expect "nul in a journal header: refused" 2 "a sweep journal with a damaged header"
    cmp -s h.journal h.kept && ok "nul in a journal header: the journal kept" || bad "the journal changed"
else
    bad "journal: no records to damage"
fi
unset SOURCE_DATE_EPOCH

# ---- messages: what echoes input stays text ----
esc=$(printf '\033[2J\a\r')
c1=$(printf '\302\233')          # U+009B, a one-character ESC [
rlo=$(printf '\342\200\256')     # U+202E, right-to-left override
zw=$(printf '\357\273\277')      # U+FEFF
badu=$(printf '\377\376')        # not UTF-8
raw=$(printf '[\001-\010\013-\037\177]')
hostile="x${esc}y${c1}z${rlo}w${zw}v${badu}"
# (in a spec file, a CR alone and a byte-order mark are refused for what they are, below)
inline="x$(printf '\033[2J\a')y${c1}z${rlo}v${badu}"
printf 'problem = quad1d\nlr = %s\n' "$inline" >m.ini
printf 'problem = quad1d\n%s = 1\n' "$inline" >k.ini
printf 'run,a,seed\n' >"r${esc}.csv"
# the routes: an option's value, an unknown option, a positional argument, spec values and keys,
# file names, a library message (format, rounding), compare's baseline, check's and theory's
# names, the status of a file that is not there
set -- \
    "sweep --problem quad1d --lr $hostile --dry-run" \
    "sweep --problem $hostile --dry-run" \
    "sweep --$hostile 1" \
    "sweep m.ini --dry-run" \
    "sweep k.ini --dry-run" \
    "sweep $hostile.ini" \
    "train --problem quad1d --format $hostile" \
    "train --problem quad1d --rounding $hostile" \
    "train --problem gpt --data $hostile" \
    "run --problem sum --order $hostile" \
    "round -f $hostile 1" \
    "round -r $hostile 1" \
    "round $hostile" \
    "op add 1 $hostile" \
    "compare w.runs.csv --axis lr --baseline $hostile" \
    "compare r${esc}.csv --baseline a" \
    "merge $hostile.csv -o m.csv" \
    "plot lr_sweep --in $hostile.csv -o p.png" \
    "check $hostile" \
    "theory $hostile" \
    "reproduce --checks $hostile" \
    "formats $hostile" \
    "demo $hostile"
for cmdline in "$@"; do
    IFS=' '
    # shellcheck disable=SC2086
    "$srlab" $cmdline >out 2>err </dev/null; rc=$?
    unset IFS
    name="messages: srlab $(printf '%s' "$cmdline" | cut -d' ' -f1-2)"
    if [ $rc -eq 0 ]; then bad "$name: accepted"; continue; fi
    if LC_ALL=C grep -q "$raw" err out; then
        bad "$name: a control character reached the terminal: $(od -c err | head -3)"
    elif LC_ALL=C grep -qF -e "$c1" -e "$rlo" -e "$zw" -e "$badu" err out; then
        bad "$name: an invisible or reordering character, or a byte that is not UTF-8, was echoed"
    elif ! grep -qF -e '\x1b' -e 'x\x' -e '\u{' err; then
        bad "$name: the escapes are missing: $(head -c 300 err)"
    else
        ok "$name"
    fi
done

# ---- formulas: text cells from users are written as text, and read back as written ----
# toy2's `format` is free text (the toy runner does not read it)
"$testcli" sweep --problem toy2 --format '=1+1,[@SUM(A1),2],-x,+cmd' --seeds 2 -o f.csv --quiet 2>err ||
    bad "formulas: the toy sweep fails: $(cat err)"
if [ -s f.runs.csv ]; then
    grep -qF ',"'"'"'=1+1",' f.runs.csv && grep -qF ',"'"'"'@SUM(A1),2",' f.runs.csv &&
        grep -qF ',"'"'"'-x",' f.runs.csv && grep -qF ',"'"'"'+cmd",' f.runs.csv &&
        ok "formulas: guarded cells in the runs file" || bad "formulas: cells: $(grep -v '^#' f.runs.csv | head -3)"
    # no cell of any line, '#' lines included, starts a formula when a spreadsheet splits it
    if grep -h . f.csv f.runs.csv f.summary.csv | tr ',' '\n' | sed 's/^ *//' | grep -q '^[=+@-][^0-9.]'; then
        bad "formulas: a cell starts a formula: $(grep -h . f.csv f.runs.csv | tr ',' '\n' | grep '^ *[=+@-][^0-9.]' | head -3)"
    else
        ok "formulas: no cell starts a formula"
    fi
    grep -q '^# command: .*--format .=1+1,.*' f.csv && ok "formulas: the command line keeps the values" ||
        bad "formulas: command line: $(grep '^# command' f.csv)"
    "$srlab" compare f.runs.csv --axis format --baseline '=1+1' --metric final_loss >c.csv 2>err; rc=$?
    expect "formulas: compare finds a guarded level as written" 0 ""
    "$srlab" compare f.runs.csv --axis format --baseline '@SUM(A1),2' --metric final_loss >c.csv 2>err; rc=$?
    expect "formulas: compare finds a level holding a comma as written" 0 ""
    grep -q '"'"'"'=1+1"' c.csv && ok "formulas: compare's output keeps the guard" || bad "formulas: compare: $(cat c.csv)"
fi
# a file name that starts a formula, in the '# spec:' line
mkdir -p d && printf 'problem = quad1d\nsteps = 5\n' >'d/=x,=y.ini'
"$srlab" sweep 'd/=x,=y.ini' -o g.csv --quiet 2>err || bad "formulas: spec name: $(cat err)"
grep -h . g.csv | tr ',' '\n' | grep -q '^ *[=+@-][^0-9.]' && bad "formulas: '# spec:' starts a cell with a formula: $(grep '^# spec' g.csv)" ||
    ok "formulas: the '# spec:' line starts no formula"

# ---- same: standard input is an input ----
printf '1\n2\n' >f.txt
"$srlab" round --batch -o f.txt <f.txt 2>err; rc=$?
expect "round --batch -o f < f" 2 "is the same file as the input 'standard input'"
[ "$(cat f.txt)" = "$(printf '1\n2')" ] && ok "round --batch -o f < f: f untouched" || bad "f was replaced: $(cat f.txt)"

# ---- words: messages of item 9 ----
sed 's/$/\r/' s1.csv >c1.csv && cp s1.runs.csv c1.runs.csv
"$srlab" merge s0.csv c1.csv -o crlf.csv 2>err; rc=$?
expect "a CR LF shard" 2 "c1.csv: line 1 ends in CR LF"
/usr/bin/env awk 'BEGIN { printf "# srlab\n# runs: 1 (1 grid points x 1 seeds)\nrun,a,seed,final_loss\n0"; for (i = 0; i < 100000; i++) printf ",1"; printf "\n" }' >wide.csv
"$srlab" compare wide.csv --baseline x --axis a 2>err; rc=$?
expect "100 000 fields" 2 "data line 1 has more fields than the 4 of the column line"
printf 'problem = quad1d\rlr = 0.1\rsteps = 5\r' >cr.ini
"$srlab" sweep cr.ini --dry-run 2>err; rc=$?
expect "CR-only lines in a spec" 2 "cr.ini:1: a line ends in CR alone"
printf 'problem = quad1d\n\357\273\277lr = 0.1\n' >bom.ini
"$srlab" sweep bom.ini --dry-run 2>err; rc=$?
expect "a byte-order mark inside a spec" 2 "bom.ini:2: a UTF-8 byte-order mark"
last=$("$srlab" check --list 2>/dev/null | awk '{print $1}' | grep -a '^T[0-9]' | tail -1 | cut -c1-3)
"$srlab" reproduce --checks T99 -o rp 2>err; rc=$?
expect "reproduce --checks names the statements there are" 2 "a statement T01..$last"
"$srlab" check T99 2>err; rc=$?
expect "check names the statements there are" 2 "a statement T01..$last"
"$srlab" sweep --problem quad1d --lr 1e-3:1e-1:log:4294967296 --dry-run 2>err; rc=$?
expect "a range of 2^32 values" 2 "4294967296 values, more than the 1000000"
"$srlab" sweep --problem quad1d --lr 1e-3:1e-1:log:4.294967296e9 --dry-run 2>err; rc=$?
expect "a range of 2^32 values written with an exponent" 2 "values, more than the 1000000"

exit $fail
