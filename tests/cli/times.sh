#!/bin/sh
# tests/cli/times.sh SRLAB SRCDIR: times that agree (issue 13, item 9; issue 30, item 5).
#  - srlab reproduce --help states the quick and the full time as CPU time; docs/report.md
#    states them in the same words, and README.md in no other words;
#  - the full time is what the parts recorded add up to: every spec's header records its full
#    sweep's measured CPU time ("# Full mode: N CPU-s"), and with srlab check's (the report's
#    check row) they make the stated full time, within its "about";
#  - a quick report records the measured CPU time beside the wall time (head, size table), shows
#    each spec's recorded full time and their sum (for a spec without the line: "not measured"),
#    and its summary states that sum beside the quick mode's measured time and this run's.
. "$(dirname "$0")/../cli_lib.sh"
src=$(cd "$2" && pwd)
cli_setup times "$1"

"$srlab" reproduce --help >help.txt
quick=$(grep -o 'about [0-9]* CPU-minutes\{0,1\} (about [0-9]* s on 2 free cores)' help.txt | head -1)
full=$(grep -o 'about [0-9]* CPU-minutes (about [0-9]* min on 2 free cores)' help.txt | head -1)
[ -n "$quick" ] && ok "help states the quick time as CPU time: $quick" || bad "help: no quick CPU time"
[ -n "$full" ] && ok "help states the full time as CPU time: $full" || bad "help: no full CPU time"
grep -q 'a few minutes\|: hours\|estimate' help.txt && bad "help still says 'a few minutes', 'hours' or 'estimate'" ||
    ok "help: one wording"
for t in "$quick" "$full"; do
    [ -n "$t" ] && grep -qF -- "$t" "$src/docs/report.md" && ok "docs/report.md states '$t'" ||
        bad "docs/report.md: no '$t'"
done
grep -q 'about a minute\|27 minutes on this\|about [0-9]* CPU-minutes (about' "$src/README.md" &&
    bad "README.md states reproduce's times in other words" || ok "README.md: no other wording of the reproduce times"

# every spec records its full time; their sum (in CPU seconds)
missing=""
for s in "$src"/experiments/*.ini; do
    grep -Eq '^# Full mode: [0-9.]+ CPU-s' "$s" || missing="$missing ${s##*/}"
done
[ -z "$missing" ] && ok "every spec records its full sweep's CPU time" || bad "no '# Full mode:' line in:$missing"
specs=$(sed -n 's/^# Full mode: \([0-9.]*\) CPU-s.*/\1/p' "$src"/experiments/*.ini | awk '{ s += $1 } END { print s + 0 }')

if command -v gnuplot >/dev/null 2>&1; then
    "$srlab" reproduce --quick --only stall --checks T05 -o rep >out.txt 2>err.txt ||
        bad "reproduce --quick --only stall: $(tail -3 err.txt)"
    h=rep/index.html
    grep -q 'wall time [^&]* &middot; CPU time [0-9.]* s (measured)' $h && ok "report head: measured CPU time" ||
        bad "report head: $(grep -o 'wall time[^<]*' $h | head -1)"
    grep -q '<th>full sweep (CPU, measured)</th>' $h && ok "report: the full mode's CPU time, as measured" ||
        bad "report: full-mode column"
    grep -qF "full $full" $h && ok "report: the stated full time" || bad "report lacks '$full'"
    grep -q '<th>total</th>.*[0-9] s ([0-9.]* s)</th>' $h && ok "report: total wall (CPU)" || bad "report: total row"
    # the table's durations back in seconds: "12.3 s", "4 min 05 s", "1 h 02 min"
    secs='function secs(t) { if (t ~ / h /) { split(t, a, " "); return a[1] * 3600 + a[3] * 60 }
                          if (t ~ / min /) { split(t, a, " "); return a[1] * 60 + a[3] } return t + 0 }'
    stall=$(sed -n 's/^# Full mode: \([0-9.]*\) CPU-s.*/\1/p' "$src/experiments/stall.ini")
    row=$(grep -o '<tr><td><a href="#x-stall">stall</a>.*</tr>' $h | sed 's/<[^>]*>/|/g' | tr -s '|')
    [ -n "$stall" ] && echo "$row" | awk -F'|' -v want="$stall" "$secs"' { t = secs($(NF - 1)); d = t - want; if (d < 0) d = -d }
        END { exit !(d <= 0.05 * want + 0.05) }' && ok "report: stall's recorded full time ($stall CPU-s)" ||
        bad "report: stall row $row"
    check=$(grep -o '<tr><td><a href="#checks-section">srlab check</a>.*</tr>' $h | sed 's/<[^>]*>/|/g' | tr -s '|' |
        awk -F'|' "$secs"' { print secs($(NF - 1)) }')
    [ -n "$check" ] && ok "report: srlab check's full time ($check CPU-s)" || bad "report: no check row"
    # the parts add up to the stated full time, within its "about" (its minutes, to 10%)
    n=$(echo "$full" | sed 's/^about \([0-9]*\) .*/\1/')
    awk -v s="$specs" -v c="$check" -v n="$n" 'BEGIN { m = (s + c) / 60; exit !(m > 0.9 * n && m < 1.1 * n) }' &&
        ok "the specs' $specs CPU-s and check's $check CPU-s make '$full'" ||
        bad "the specs' $specs CPU-s and check's $check CPU-s do not make '$full'"
    grep -q 'The full mode of these experiments and srlab check took [^<]* of CPU time as measured with srlab 0.1.0, when the whole quick mode took [^<]*; this quick run took' $h &&
        ok "report: the summary states the measured full time and this run's" ||
        bad "report summary: $(grep -o 'The full mode[^<]*' $h)"
else
    echo "SKIP: no gnuplot: the report is not made"
fi
exit $fail
