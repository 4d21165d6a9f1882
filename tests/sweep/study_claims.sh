#!/bin/sh
# tests/sweep/study_claims.sh SRLAB SRCDIR: the README's 16-seed GPT study ("What the study
# shows") recomputed from the runs file it ships (docs/study/gpt16.runs.csv) with srlab
# compare, so that neither the file nor the statistics can drift from what the README says:
# 320 runs, none of the 16 comparisons with mp resolved after Holm; tuned against tuned,
# bf16-sr's best rate 8e-3 against mp's 1.6e-2 with a paired difference of +0.0013 +- 0.0016
# (the README's rounding); bf16-sr at 2x and 4x mp's rate worse (3 of the 4 resolved,
# experiments/gpt16_paper.sh).
. "$(dirname "$0")/../cli_lib.sh"
src=$(cd "$2" && pwd)
cli_setup study-claims "$1"
runs=$src/docs/study/gpt16.runs.csv
[ "$(grep -vc '^#' "$runs")" -eq 321 ] && ok "320 runs and the column line" || bad "runs file rows"

"$srlab" compare "$runs" --baseline mp -o mp.csv 2>err || bad "compare exit $?: $(cat err)"
grep -q '16 comparisons, 0 resolved' err && ok "16 comparisons with mp, none resolved" ||
    bad "against mp: $(cat err)"

"$srlab" compare "$runs" --baseline mp --at-best lr -o best.csv 2>err || bad "at-best exit $?"
row=$(grep '^bf16-sr,mp,' best.csv)
echo "$row" | awk -F, '$3 == "8e-3" && $4 == "1.6e-2" && $5 == 16 &&
    sprintf("%.4f", $7) == "0.0013" && sprintf("%.4f", $9) == "0.0016" && $15 == "not resolved" \
    { f = 1 } END { exit !f }' && ok "tuned: bf16-sr at 8e-3 - mp at 1.6e-2 = +0.0013 +- 0.0016" ||
    bad "tuned row: $row"

sh "$src/experiments/gpt16_paper.sh" "$runs" "$srlab" >paper.csv 2>err || bad "gpt16_paper.sh exit $?"
grep -q '4 comparisons, 3 resolved' err && ok "2x/4x: 3 of 4 resolved" || bad "2x/4x: $(cat err)"
grep -q '^mp1.6e-2:sr2x,bf16-sr,mp,16,0,0.0755.*,higher$' paper.csv &&
    ok "bf16-sr at 2x mp's best rate: +0.076, higher" || bad "2x row: $(grep sr2x paper.csv)"
exit $fail
