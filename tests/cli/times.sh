#!/bin/sh
# tests/cli/times.sh SRLAB SRCDIR: times that agree (issue 13, item 9).
#  - srlab reproduce --help states the quick and the full time as CPU time; docs/report.md states
#    them in the same words, and README.md in no other (not "a few minutes", not "hours");
#  - a report records the measured CPU time beside the wall time (head, size table), and its
#    estimate of the full mode is of CPU time, next to the stated measured figure.
. "$(dirname "$0")/../cli_lib.sh"
src=$(cd "$2" && pwd)
cli_setup times "$1"

"$srlab" reproduce --help >help.txt
quick=$(grep -o 'about [0-9]* CPU-minutes\{0,1\} (about [0-9]* s on 2 free cores)' help.txt | head -1)
full=$(grep -o 'about [0-9]* CPU-minutes (about [0-9]* min on 2 free cores)' help.txt | head -1)
[ -n "$quick" ] && ok "help states the quick time as CPU time: $quick" || bad "help: no quick CPU time"
[ -n "$full" ] && ok "help states the full time as CPU time: $full" || bad "help: no full CPU time"
grep -q 'a few minutes\|: hours' help.txt && bad "help still says 'a few minutes' or 'hours'" || ok "help: one wording"
for t in "$quick" "$full"; do
    [ -n "$t" ] && grep -qF -- "$t" "$src/docs/report.md" && ok "docs/report.md states '$t'" ||
        bad "docs/report.md: no '$t'"
done
grep -q 'about a minute\|27 minutes on this\|about [0-9]* CPU-minutes (about' "$src/README.md" &&
    bad "README.md states reproduce's times in other words" || ok "README.md: no other wording of the reproduce times"

if command -v gnuplot >/dev/null 2>&1; then
    "$srlab" reproduce --quick --only stall --checks none -o rep >out.txt 2>err.txt ||
        bad "reproduce --quick --only stall: $(tail -3 err.txt)"
    h=rep/index.html
    grep -q 'wall time [^&]* &middot; CPU time [0-9.]* s (measured)' $h && ok "report head: measured CPU time" ||
        bad "report head: $(grep -o 'wall time[^<]*' $h | head -1)"
    grep -q '<th>estimated full sweep (CPU)</th>' $h && ok "report: the estimate is of CPU time" ||
        bad "report: estimate column"
    grep -qF "measured with srlab 0.1.0: $full" $h && ok "report: the stated full time" ||
        bad "report lacks '$full'"
    grep -q '<th>total</th>.*[0-9] s ([0-9.]* s)</th>' $h && ok "report: total wall (CPU)" || bad "report: total row"
else
    echo "SKIP: no gnuplot: the report is not made"
fi
exit $fail
