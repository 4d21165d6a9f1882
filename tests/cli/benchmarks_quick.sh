#!/bin/sh
# tests/cli/benchmarks_quick.sh SCRIPT BUILD_DIR: bench/benchmarks.sh (issue 30, item 4) checks
# its arguments first (exit 2 naming the argument, the old file untouched, nothing left in
# TMPDIR), and `--quick` (tiny sizes, no peer) writes a well-formed BENCHMARKS.md: under 400
# lines, one title, a method under 100 lines, this machine's table with its commit, CPU, flags,
# date, thread count, load, scheduling and kernel settings, the thread placement probe's line, every markdown table's rows as wide as its header, the python
# helper's section between its two markers, the recorded Zen 4 and Zen 5 sections. Speed is not checked.
. "$(dirname "$0")/../cli_lib.sh"
cli_setup benchmarks-quick "$1"
script=$srlab
build=$2
export TMPDIR="$tmp/t"
mkdir "$TMPDIR" out
echo precious >out/B.md

refused() {
    script_refuses "$script" "$@"
    [ "$(cat out/B.md)" = precious ] || bad "$1: the old file changed"
}
refused "unknown option" "unknown argument '--fast'" --fast 1 --build "$build" -o out/B.md
refused "option without value" "'--llmc' needs a value" --build "$build" -o out/B.md --llmc
refused "missing CPFloat" "--cpfloat 'nosuchdir'" --cpfloat nosuchdir --build "$build" -o out/B.md
refused "pcg without CPFloat" "--pcg 'x': only with --cpfloat" --pcg x --build "$build" -o out/B.md
refused "missing llm.c" "--llmc 'nosuchdir'" --llmc nosuchdir --build "$build" -o out/B.md
refused "missing OpenBLAS" "--openblas 'nosuch.so'" --openblas nosuch.so --build "$build" -o out/B.md
refused "missing build" "--build 'nosuchdir'" --build nosuchdir -o out/B.md
refused "no such folder" "-o 'nofolder/B.md'" --build "$build" -o nofolder/B.md
refused "bad scheduling" "--sched 'rr': not fifo or other" --sched rr --build "$build" -o out/B.md

# the quick run
sh "$script" --quick --build "$build" -o out/B.md >stdout 2>stderr
rc=$?
f=out/B.md
if [ $rc -ne 0 ]; then bad "--quick: exit $rc: $(cat stderr)"; exit 1; fi
ok "--quick ran ($(tail -n 1 stderr))"
[ -z "$(ls -A "$TMPDIR")" ] && ok "nothing left in TMPDIR" || bad "left in TMPDIR: $(ls -A "$TMPDIR")"
[ "$(ls -A out)" = B.md ] && ok "no temporary file beside the output" || bad "out/ holds $(ls -A out)"
n=$(wc -l <$f) # (the quick run's own tables, and bench/recorded's two machines: about 440)
[ "$n" -lt 600 ] && ok "$n lines (< 600)" || bad "$n lines (want < 600)"
[ "$(head -n 1 $f)" = "# Benchmarks" ] && ok "title" || bad "first line: $(head -n 1 $f)"
# outside code blocks, exactly one level-1 heading
h1=$(awk '/^```/ {c = !c} !c && /^# / {n++} END {print n + 0}' $f)
[ "$h1" = 1 ] && ok "one level-1 heading" || bad "$h1 level-1 headings (a driver's comment line read as one?)"
m=$(awk '/^## Method$/ {on = 1; next} on && /^## / {exit} on {n++} END {print n + 0}' $f)
[ "$m" -gt 10 ] && [ "$m" -lt 100 ] && ok "method: $m lines" || bad "method: $m lines (want 11-99)"
# this machine's table: its header and one row of 9 non-empty cells
row=$(grep -A 2 '^| commit | CPU | flags | date | threads | load average at start | run took | scheduling | kernel |$' $f | sed -n 3p)
cells=$(printf '%s\n' "$row" | awk -F'|' '{n = 0; for (i = 2; i < NF; i++) if ($i ~ /[^ ]/) n++; print n}')
[ "$cells" = 9 ] && ok "machine table: $row" || bad "machine table row '$row': $cells filled cells (want 9)"
sc=$(printf '%s\n' "$row" | awk -F'|' '{print $9}')
if chrt -f 1 true 2>/dev/null; then want='SCHED_FIFO'; else want=normal; fi
case "$sc" in *"$want"*) ok "scheduling: $sc" ;; *) bad "scheduling cell '$sc' (want $want: the default)" ;; esac
grep -q '^Where the kernel runs a woken thread .*normal policy: [0-9]* of [0-9]* two-thread regions started both threads on one CPU; median wall time [0-9.]* ms' $f &&
    ok "the thread placement probe's line" || bad "no thread placement probe line"
commit=$(git -C "$SRL_SRCDIR" rev-parse --short HEAD 2>/dev/null || echo unknown)
case "$row" in "| $commit"*) ok "machine table names commit $commit" ;; *) bad "machine table lacks commit $commit" ;; esac
printf '%s\n' "$row" | grep -q '| [0-9]* | [0-9.]* [0-9.]* [0-9.]* |' && ok "thread count and load" || bad "thread count or load missing: $row"
# every table: a separator line after its header, every row as wide as the header
awk -F'|' '
    /^```/ { code = !code }
    code { next }
    /^\|/ { if (!intab) { w = NF; line = 0 } intab = 1; line++
            if (NF != w) { print "row " NR " has " NF - 2 " cells, its header " w - 2; bad = 1 }
            if (line == 2 && $0 !~ /^\|(---\|)+$/) { print "line " NR ": no separator"; bad = 1 }
            next }
    { intab = 0 }
    END { exit bad }' $f >tables 2>&1 && ok "every table well-formed" || bad "tables: $(cat tables)"
# the python helper's section between its markers, once, in order
o=$(grep -n '^<!-- section of helper `python`' $f | cut -d: -f1)
e=$(grep -n '^<!-- end of the section of helper `python` -->$' $f | cut -d: -f1)
if [ "$(echo "$o" | wc -w)" = 1 ] && [ "$(echo "$e" | wc -w)" = 1 ] && [ "$o" -lt "$e" ]; then
    ok "python section at lines $o-$e"
    sed -n "${o},${e}p" $f | grep -q '^| round to bf16 rn, new tensor |\|^Not measured in this run: python/bench_torch.py' &&
        ok "python section: its table, or why not" || bad "python section holds neither its table nor why not"
else
    bad "python markers: start '$o', end '$e'"
fi
grep -q '^## Recorded: AMD EPYC (Zen 4) VM' $f && ok "the Zen 4 machine recorded" || bad "no recorded Zen 4 section"
grep -q '^## Recorded: AMD EPYC (Zen 5) VM' $f && ok "the Zen 5 machine recorded" || bad "no recorded Zen 5 section"
grep -q '^### Bulk rounding beside memcpy' $f && grep -q '^| bf16 rn, binary64 | ' $f &&
    ok "bulk rounding table" || bad "no bulk rounding table"
grep -q 'Not measured in this run: no --llmc checkout given' $f && ok "a peer not given is said" ||
    bad "no line for the missing llm.c"
exit $fail
