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

# --at-best lr: each level at its own best lr, on a runs file made by hand. A's best is lr 2
# (mean 4); B ties at lr 1 and 2 (mean 3: the first in file order wins) and its lr 3 has a
# non-finite run, so it cannot be best though its finite runs are lower. The pairs are then
# B@1 - A@2 = -2, -2, 1: mean -1, sd sqrt(3), se 1, t -1 on 2 degrees of freedom.
cat >hand.runs.csv <<'CSV'
# made by hand
# runs: 18 (6 grid points x 3 seeds)
run,strategy,lr,seed,final_loss
0,A,1,1,5
1,A,1,2,6
2,A,1,3,7
3,A,2,1,3
4,A,2,2,4
5,A,2,3,5
6,A,3,1,9
7,A,3,2,9
8,A,3,3,9
9,B,1,1,1
10,B,1,2,2
11,B,1,3,6
12,B,2,1,2
13,B,2,2,3
14,B,2,3,4
15,B,3,1,nan
16,B,3,2,0
17,B,3,3,0
CSV
"$srlab" compare hand.runs.csv --baseline A --at-best lr -o best.csv 2>err || bad "at-best exit $?: $(cat err)"
grep -q '^level,baseline,lr_level,lr_baseline,pairs,' best.csv && ok "at-best columns" ||
    bad "at-best header: $(grep -v '^#' best.csv | head -1)"
row=$(grep '^B,A,' best.csv)
echo "$row" | awk -F, '$3 == "1" && $4 == "2" && $5 == 3 && $6 == 0 && $7 == -1 &&
    ($8 - sqrt(3))^2 < 1e-28 && $9 == 1 && $10 == -1 && $11 == 2 { f = 1 } END { exit !f }' &&
    ok "at best: B at lr 1 against A at lr 2, mean -1, sd sqrt 3" || bad "at-best row: $row"
grep -q '^# at best: each level at its own lr' best.csv && ok "at-best method line" ||
    bad "no '# at best' line"

usage_tail="-o out.csv"
usage_error "at-best on the compared axis" "at best 'strategy'" compare q.runs.csv --baseline fp32 --at-best strategy
usage_error "at-best on seed" "at best 'seed'" compare q.runs.csv --baseline fp32 --at-best seed
usage_error "at-best on no column" "at best 'step'" compare q.runs.csv --baseline fp32 --at-best step
usage_error "no baseline" "--baseline" compare q.runs.csv
usage_error "unknown level" "strategy = mp" compare q.runs.csv --baseline mp
usage_error "unknown metric" "final_val_gap" compare q.runs.csv --baseline fp32 --metric final_val_gap
usage_error "unknown axis" "'optimizer'" compare q.runs.csv --baseline fp32 --axis optimizer
# --margin: the equivalence columns after verdict, the count on standard error. B@1 - A@2 is
# -1 +- 1 (se) on 2 degrees of freedom: eq_bound = 1 + t_{0.95,2} = 3.92; within 4 it is shown.
"$srlab" compare hand.runs.csv --baseline A --at-best lr --margin 4 -o eq.csv 2>err ||
    bad "margin exit $?: $(cat err)"
grep -q ',verdict,eq_bound,p_tost,p_tost_holm,equivalence$' eq.csv && ok "equivalence columns" ||
    bad "margin header: $(grep -v '^#' eq.csv | head -1)"
row=$(grep '^B,A,' eq.csv)
echo "$row" | awk -F, '{ d = $(NF-3) - 3.919986; if (d < 0) d = -d } $NF == "equivalent" && d < 1e-5 { f = 1 }
    END { exit !f }' && ok "B within 4 of A: eq_bound 3.92, equivalent" || bad "margin row: $row"
grep -q '; 1 equivalent within 4$' err && ok "equivalence counted" || bad "margin report: $(cat err)"
usage_error "margin zero" "--margin 0" compare q.runs.csv --baseline fp32 --margin 0
usage_error "margin not a number" "--margin: 'x'" compare q.runs.csv --baseline fp32 --margin x
usage_error "alpha out of range" "--alpha 1.5" compare q.runs.csv --baseline fp32 --alpha 1.5
usage_error "repeated option" "--baseline" compare q.runs.csv --baseline fp32 --baseline mp
usage_error "missing file" "nosuch.csv" compare nosuch.csv --baseline fp32
usage_error "not a runs file" "q.summary.csv\|runs file" compare q.summary.csv --baseline fp32
exit $fail
