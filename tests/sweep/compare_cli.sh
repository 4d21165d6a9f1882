#!/bin/sh
# tests/sweep/compare_cli.sh SRLAB: srlab compare from the outside. A real sweep of quad1d SGD
# with bf16 weights: at lr 1e-3 nearest rounding freezes the iterate (theory/T05), so its final
# loss gap is higher than fp32's on every seed (resolved); SR against fp32 at lr 1e-2 sits at
# a floor of the order of the fp32 value's spread (not resolved at 6 seeds). Then the output's
# '#' lines (seeds echoed), -o atomic, and every refusal names what the user gave.
. "$(dirname "$0")/../cli_lib.sh"
cli_setup compare "$1"

"$srlab" sweep --problem quad1d --strategy fp32,bf16-rn,bf16-sr --lr 1e-3,1e-2 --seeds 6 \
    --steps 500 --quiet -o q.csv || bad "sweep"
"$srlab" compare q.runs.csv --baseline fp32 --metric final_loss_gap -o c.csv 2>err ||
    bad "compare exit $?: $(cat err)"
grep -q '^1e-3,bf16-rn,fp32,6,0,.*,higher$' c.csv && ok "rn freezes: higher, resolved" ||
    bad "rn at 1e-3: $(grep bf16-rn c.csv)"
grep -q '^# seeds: 1-6' c.csv && grep -q '^# compare: final_loss_gap, strategy against fp32' c.csv &&
    ok "seeds and method echoed" || bad "'#' lines: $(grep '^#' c.csv)"
grep -q '4 comparisons' err && ok "one-line report" || bad "report: $(cat err)"
[ "$(grep -c ',' c.csv)" -ge 5 ] || bad "rows: $(cat c.csv)"
# standard output without -o is the same CSV
"$srlab" compare q.runs.csv --baseline fp32 --metric final_loss_gap 2>/dev/null >c2.csv
cmp -s c.csv c2.csv && ok "stdout = -o" || bad "stdout differs from -o"

usage_tail="-o out.csv"
usage_error "no baseline" "--baseline" compare q.runs.csv
usage_error "unknown level" "strategy = mp" compare q.runs.csv --baseline mp
usage_error "unknown metric" "final_val_gap" compare q.runs.csv --baseline fp32 --metric final_val_gap
usage_error "unknown axis" "'optimizer'" compare q.runs.csv --baseline fp32 --axis optimizer
usage_error "alpha out of range" "--alpha 1.5" compare q.runs.csv --baseline fp32 --alpha 1.5
usage_error "repeated option" "--baseline" compare q.runs.csv --baseline fp32 --baseline mp
usage_error "missing file" "nosuch.csv" compare nosuch.csv --baseline fp32
usage_error "not a runs file" "q.summary.csv\|runs file" compare q.summary.csv --baseline fp32
exit $fail
