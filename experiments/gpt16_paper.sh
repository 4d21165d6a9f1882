#!/bin/sh
# experiments/gpt16_paper.sh [RUNS.csv] [SRLAB]: the seed paper's headline on the 16-seed GPT
# study (README "What the study shows"): bf16-sr at 2x and 4x mp's learning rate against mp,
# paired by seed, for mp at 8e-3 and at 1.6e-2 (4 comparisons, Holm over the 4). srlab compare
# pairs runs at equal axis values, so the runs file is relabelled first: each pair's two rates
# become one lr value naming the pair (mp8e-3:sr2x = mp at 8e-3 with bf16-sr at 1.6e-2). A run
# may serve two pairs. The relabelled file is a runs file of its own that adds up, as srlab
# compare requires: its runs numbered from 0 and counted by its '# runs:' line (16 seeds a point).
# Default RUNS.csv: docs/study/gpt16.runs.csv.
set -eu
here=$(cd "$(dirname "$0")" && pwd)
runs=${1:-$here/../docs/study/gpt16.runs.csv}
srlab=${2:-srlab}
tmp=$(mktemp)
trap 'rm -f "$tmp"' EXIT
awk -F, -v OFS=, '
function out() { $1 = n + 0; line[n++] = $0 }
/^# runs:/ { next }
/^#/ { pre = pre $0 "\n"; next }
$1 == "run" { head = $0; next }
$4 == "mp" && ($7 == "8e-3" || $7 == "1.6e-2") { b = $7; $7 = "mp" b ":sr2x"; out(); $7 = "mp" b ":sr4x"; out() }
$4 == "bf16-sr" && $7 == "1.6e-2" { $7 = "mp8e-3:sr2x"; out() }
$4 == "bf16-sr" && $7 == "3.2e-2" { $7 = "mp8e-3:sr4x"; out(); $7 = "mp1.6e-2:sr2x"; out() }
$4 == "bf16-sr" && $7 == "6.4e-2" { $7 = "mp1.6e-2:sr4x"; out() }
END {
    printf "%s# runs: %d (%d grid points x 16 seeds)\n%s\n", pre, n, n / 16, head
    for (i = 0; i < n; i++) print line[i]
}' "$runs" >"$tmp"
"$srlab" compare "$tmp" --baseline mp
