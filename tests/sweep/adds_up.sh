#!/bin/sh
# tests/sweep/adds_up.sh SRLAB: data sets that do not add up are refused (issue 28, item 6), and
# every format and mode has one name (issue 30, item 5), through the srlab command:
#   compare   a duplicated baseline line (which used to count twice: "not resolved" became
#             "higher"), a run given twice, a run left out or cut, a shard's runs file: refused,
#             naming the lines; a level holding a comma is found as written in the file;
#   merge     the rows of a run reordered within a shard: refused, naming the line and the run;
#   grids     two spellings of one format or mode (bf16 and p=8,emax=127; [p=8,emax=127] and
#             [p=8,emax=127,emin=-126]; sr and stochastic) are one grid point given twice:
#             refused, naming both; a spelling that is not the one name is written as the name
#             in every output (rows, runs, summary, the command line);
#   names     the names users of other tools type (bfloat16, half, float8_e4m3fn, E4M3,
#             stochastic, ...) are accepted by round, train and sweep and shown by their one
#             name; a strategy whose pieces were changed is not shown as fp32.
set -u
. "$(dirname "$0")/../cli_lib.sh"
cli_setup adds-up "$1"
expect() { # NAME RC PATTERN
    [ "$rc" -eq "$2" ] && ok "$1: exit $2" || bad "$1: exit $rc, not $2: $(head -c 400 err)"
    [ -z "$3" ] || { grep -qF -- "$3" err && ok "$1: message" || bad "$1: message '$(head -c 400 err)' lacks '$3'"; }
}

# ---- compare ----
"$srlab" sweep --problem quad1d --strategy bf16-rn,bf16-sr --lr 0.01 --steps 200 --seeds 4 \
    -o c.csv --quiet 2>err || bad "sweep: $(cat err)"
"$srlab" compare c.runs.csv --baseline bf16-rn --metric final_loss_gap >good.csv 2>err; rc=$?
expect "compare: the runs file as written" 0 ""
# the baseline's first line once more (5 runs where the file counts 8... 9)
awk '/^0,/ { d = $0 } { print } END { print d }' c.runs.csv >dup.csv
"$srlab" compare dup.csv --baseline bf16-rn --metric final_loss_gap 2>err; rc=$?
expect "compare: a baseline line given twice" 2 "9 runs where its '# runs:' line counts 8"
# the same with the count kept: a line replaced by a copy of another (run number and all)
awk '/^1,/ { l1 = $0 } /^2,/ { print l1; next } { print }' c.runs.csv >dup2.csv
"$srlab" compare dup2.csv --baseline bf16-rn --metric final_loss_gap 2>err; rc=$?
expect "compare: a run given twice" 2 "run 1 is given twice"
# ... and with its run number changed: the same run under two numbers
awk -F, -v OFS=, '/^1,/ { l1 = $0 } /^2,/ { $0 = l1; $1 = 2 } { print }' c.runs.csv >dup3.csv
"$srlab" compare dup3.csv --baseline bf16-rn --metric final_loss_gap 2>err; rc=$?
expect "compare: one run under two numbers" 2 "are the same run"
grep -v '^3,' c.runs.csv >cut.csv
"$srlab" compare cut.csv --baseline bf16-rn --metric final_loss_gap 2>err; rc=$?
expect "compare: a run left out" 2 "7 runs where its '# runs:' line counts 8 (a cut or filtered file)"
grep -v '^# runs:' c.runs.csv >noruns.csv
"$srlab" compare noruns.csv --baseline bf16-rn --metric final_loss_gap 2>err; rc=$?
expect "compare: no '# runs:' line" 2 "no valid '# runs:' line"
"$srlab" sweep --problem quad1d --strategy bf16-rn,bf16-sr --lr 0.01 --steps 200 --seeds 4 \
    --shard 0/2 -o sh.csv --quiet 2>/dev/null
"$srlab" compare sh.runs.csv --baseline bf16-rn --metric final_loss_gap 2>err; rc=$?
expect "compare: a shard's runs file" 2 "merge the shards first"

# a level holding a comma (a custom format), quoted in the file: found as written, or by another
# spelling of the same format
"$srlab" sweep --problem quad1d --format 'bf16,[p=8,emax=100]' --rounding sr --lr 0.01 \
    --steps 200 --seeds 4 -o k.csv --quiet 2>err || bad "sweep: $(cat err)"
grep -q '"p=8,emax=100"' k.runs.csv && ok "a custom format is one quoted field" || bad "$(grep -v '^#' k.runs.csv | head -2)"
"$srlab" compare k.runs.csv --axis format --baseline 'p=8,emax=100' --metric final_loss_gap >out 2>err; rc=$?
expect "compare: a level holding a comma, as written" 0 ""
"$srlab" compare k.runs.csv --axis format --baseline 'p=8,emax=100,emin=-99' --metric final_loss_gap >out 2>err; rc=$?
expect "compare: a level holding a comma, spelled otherwise" 0 ""
"$srlab" compare k.runs.csv --axis format --baseline bfloat16 --metric final_loss_gap >out 2>err; rc=$?
expect "compare: bfloat16 is the level bf16" 0 ""
"$srlab" compare k.runs.csv --axis format --baseline fp16 --metric final_loss_gap >out 2>err; rc=$?
expect "compare: a level not there names those there" 2 "its levels: bf16, p=8,emax=100"

# ---- merge: a run's rows in their order ----
"$srlab" sweep --problem quad1d --lr 0.01,0.1 --steps 40 --log-every 10 --seeds 2 --shard 0/2 \
    -o m0.csv --quiet 2>/dev/null
"$srlab" sweep --problem quad1d --lr 0.01,0.1 --steps 40 --log-every 10 --seeds 2 --shard 1/2 \
    -o m1.csv --quiet 2>/dev/null
"$srlab" merge m0.csv m1.csv -o m.csv 2>err; rc=$?
expect "merge: the shards as written" 0 ""
mkdir -p x && cp m1.runs.csv x/m1.runs.csv
# swap the second and third rows of the shard's first run
awk '/^#/ || !h { if (!/^#/) h = 1; print; next } { n++ } n == 2 { a = $0; next } n == 3 { print; print a; next } { print }' \
    m1.csv >x/m1.csv
cmp -s m1.csv x/m1.csv && bad "merge: the rows were not swapped" || true
"$srlab" merge m0.csv x/m1.csv -o m.csv 2>err; rc=$?
expect "merge: rows reordered within a run" 2 "the rows of run 1 are out of order (step 10 after step 20)"

# ---- grids: one name per format and mode ----
"$srlab" sweep --problem quad1d --format 'bf16,[p=8,emax=127]' --dry-run 2>err >out; rc=$?
expect "grid: bf16 and p=8,emax=127" 2 "'bf16' and 'p=8,emax=127' are one format, bf16"
"$srlab" sweep --problem quad1d --format '[p=8,emax=127],[p=8,emax=127,emin=-126]' --dry-run 2>err >out; rc=$?
expect "grid: [p=8,emax=127] and [p=8,emax=127,emin=-126]" 2 "are one format, bf16"
"$srlab" sweep --problem quad1d --rounding sr,stochastic --dry-run 2>err >out; rc=$?
expect "grid: sr and stochastic" 2 "'sr' and 'stochastic' are one mode, sr"
printf 'problem = quad1d\nformat = half, bfloat16, [p=4,emax=8,emin=-6,inf=off]\nrounding = Stochastic\nsteps = 20\n' >n.ini
"$srlab" sweep n.ini -o n.csv --quiet 2>err || bad "grid of aliases: $(cat err)"
grep -q '^# command: .* --format fp16,bf16,e4m3 --rounding sr ' n.csv &&
    ok "grid: the command line names fp16, bf16, e4m3, sr" || bad "grid: $(grep '^# command' n.csv)"
grep -v '^#' n.runs.csv | sed 1d | cut -d, -f5,6 | sort -u | tr '\n' ' ' >cols.txt
[ "$(cat cols.txt)" = "bf16,sr e4m3,sr fp16,sr " ] && ok "grid: the columns name them" ||
    bad "grid: columns $(cat cols.txt)"
grep -qi 'half\|bfloat\|stochastic\|p=4' n.csv n.runs.csv n.summary.csv &&
    bad "grid: a spelling other than the one name is in the outputs" || ok "grid: one name in every output"

# ---- names: aliases everywhere, the name of what ran ----
for a in bfloat16:bf16 BF16:bf16 half:fp16 float16:fp16 float8_e4m3fn:e4m3 E4M3:e4m3 \
    float8_e5m2:e5m2 torch.bfloat16:bf16 np.float32:fp32; do
    name=${a%%:*} want=${a#*:}
    got=$(printf '1.1\n' | "$srlab" round --batch -f "$name" -r stochastic 2>/dev/null | sed -n 2p | cut -d, -f2,3)
    [ "$got" = "$want,sr" ] && ok "round -f $name -r stochastic: $want,sr" || bad "round -f $name: '$got'"
done
"$srlab" round -f float8_e4m3fnuz 1 2>err; rc=$?
expect "fnuz formats are refused by name" 2 "no negative zero"
"$srlab" train --problem quad1d --format half --rounding STOCHASTIC --steps 2 >t.csv 2>err || bad "train: $(cat err)"
grep -v '^#' t.csv | sed -n 2p | cut -d, -f3-5 | grep -qx 'custom,fp16,sr' &&
    ok "train --format half --rounding STOCHASTIC: custom,fp16,sr" || bad "train: $(grep -v '^#' t.csv | sed -n 2p)"
grep -q '^# strategy: custom: param fp16 sr' t.csv && ok "train: the strategy line" || bad "train: $(grep '^# strategy' t.csv)"
"$srlab" sweep --problem quadratic --rounding sr,rn --steps 2 --dry-run >q.csv 2>err || bad "sweep: $(cat err)"
grep -v '^#' q.csv | sed -n '2,$p' | cut -d, -f4-6 | sort -u | tr '\n' ' ' >q.txt
[ "$(cat q.txt)" = "custom,bf16,rn custom,bf16,sr " ] && ok "sweep --rounding sr,rn: strategy custom beside bf16" ||
    bad "sweep --rounding sr,rn: $(cat q.txt)"
"$srlab" train --problem quad1d --strategy bf16-sr --steps 2 | grep -v '^#' | sed -n 2p | cut -d, -f3-5 |
    grep -qx 'bf16-sr,bf16,sr:r=16' && ok "a preset as it is keeps its name" || bad "bf16-sr renamed"

exit $fail
