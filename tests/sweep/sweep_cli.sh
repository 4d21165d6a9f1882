#!/bin/sh
# tests/sweep/sweep_cli.sh SRLAB SWEEP_TESTCLI: srlab sweep and srlab merge as a user drives them.
#   spec file + [quick] + flags (precedence), canonical command line, dry run
#   byte-identical rows and summary for --threads 1 and 2, and for flags in another order
#   --shard I/3 x 3 + srlab merge == the single sweep, byte for byte; merge refusals
#   kill -9 in the middle + a torn journal record + --resume == the uninterrupted sweep
#   bad input: exit 2, one message naming the argument or line, nothing overwritten
# SRLAB is the real command (real runners: quad1d); SWEEP_TESTCLI drives the same code with the
# toy runners of toy_runner.h (runs of a controlled length for the kill test).
set -u
abs() { case $1 in /*) echo "$1" ;; *) echo "$(pwd)/$1" ;; esac; }
SRLAB=$(abs "$1")
TOY=$(abs "$2")
dir=$(mktemp -d "${TMPDIR:-/tmp}/srlab-sweep-test.XXXXXX")
trap 'rm -rf "$dir"' EXIT
cd "$dir" || exit 1
export SOURCE_DATE_EPOCH=1700000000
fails=0
checks=0

ok() { checks=$((checks + 1)); echo "PASS: $1"; }
bad() { checks=$((checks + 1)); fails=$((fails + 1)); echo "FAIL: $1"; }
same() { # same FILE FILE WHAT
    if cmp -s "$1" "$2"; then ok "$3"; else bad "$3 ($1 and $2 differ)"; diff "$1" "$2" | head -5; fi
}
# expect STATUS PATTERN WHAT CMD...: exit status and a message on stderr holding PATTERN
expect() {
    want=$1 pat=$2 what=$3
    shift 3
    "$@" >out.txt 2>err.txt
    got=$?
    if [ "$got" -eq "$want" ] && grep -qF -- "$pat" err.txt; then
        ok "$what"
    else
        bad "$what: exit $got (want $want), stderr: $(head -c 300 err.txt) (want '$pat')"
    fi
}

cat >spec.ini <<'EOF'
# a small learning-rate sweep (test)
command = train
problem = quad1d
strategy = fp32, bf16-rn,
    bf16-sr
lr = 1e-3:1e-1:log:3
steps = 300
log-every = 50
seeds = 4
target = 1e-4
[quick]
seeds = 2
steps = 100
EOF

# ---- spec file, [quick], flags, dry run ----
"$SRLAB" sweep spec.ini --dry-run >dry.txt 2>err.txt || bad "dry run: $(cat err.txt)"
grep -q '^# runs: 36 (9 grid points x 4 seeds)$' dry.txt && [ "$(grep -c '^[0-9]' dry.txt)" -eq 36 ] &&
    ok "spec file: 36 runs listed" || bad "spec file dry run: $(head -8 dry.txt)"
grep -qF '# command: srlab sweep --command train --problem quad1d --strategy fp32,bf16-rn,bf16-sr --lr 1e-3:1e-1:log:3 --steps 300 --log-every 50 --seeds 4 --target 1e-4' dry.txt &&
    ok "canonical command (indented continuation line joined)" || bad "canonical command: $(grep command dry.txt)"
grep -qF '# spec: spec.ini' dry.txt && ok "spec line" || bad "spec line"
"$SRLAB" sweep spec.ini --quick --dry-run >dryq.txt 2>err.txt
grep -q '^# runs: 18 ' dryq.txt && grep -qF -- '--steps 100 --log-every 50 --seeds 2' dryq.txt &&
    ok "--quick applies [quick]" || bad "--quick: $(grep -E 'runs|command' dryq.txt)"
"$SRLAB" sweep spec.ini --quick --seeds 3 --lr 0.01 --dry-run >dryf.txt 2>err.txt
grep -q '^# runs: 9 (3 grid points x 3 seeds)' dryf.txt && grep -qF -- '--lr 0.01 --steps 100' dryf.txt &&
    ok "flags override the spec and its [quick] section" || bad "override: $(grep -E 'runs|command' dryf.txt)"
head -7 dryq.txt | tail -1 | grep -q '^run,problem,opt,strategy,format,rounding,lr,seed$' &&
    ok "dry run columns" || bad "dry run columns: $(sed -n 7p dryq.txt)"
ls ./*.csv >/dev/null 2>&1 && bad "a dry run wrote files" || ok "a dry run writes nothing"

# ---- threads and order: the same bytes ----
"$SRLAB" sweep spec.ini --quick --threads 1 --quiet -o t1.csv 2>err.txt || bad "threads 1: $(cat err.txt)"
[ ! -s err.txt ] && ok "--quiet: nothing on stderr" || bad "stderr not empty with --quiet: $(cat err.txt)"
"$SRLAB" sweep spec.ini --quick --threads 2 -o t2.csv 2>err.txt || bad "threads 2: $(cat err.txt)"
same t1.csv t2.csv "rows identical for 1 and 2 threads"
same t1.runs.csv t2.runs.csv "runs identical for 1 and 2 threads"
same t1.summary.csv t2.summary.csv "summary identical for 1 and 2 threads"
# Issue 13 item 8: a one-line result and where the files are, also when stderr is not a terminal.
[ "$(wc -l <err.txt)" -eq 1 ] && grep -q '^srlab sweep: 18 runs in [0-9]*:[0-9][0-9], 0 diverged; rows t2.csv, summary t2.summary.csv (one row per grid point), per-run finals t2.runs.csv$' err.txt &&
    ok "one result line with the files, stderr not a terminal" || bad "result line: $(cat err.txt)"
[ ! -e t1.journal ] && [ ! -e t2.journal ] && ok "journal removed after success" || bad "journal left behind"
# Issue 13 item 8: the summary has one row per grid point (its seed count, its diverged runs),
# the per-run finals are in the runs file.
[ "$(grep -c '^quad1d,' t1.summary.csv)" -eq 9 ] && [ "$(grep -c '^[0-9]' t1.runs.csv)" -eq 18 ] &&
    ok "summary: one row per grid point; runs: one row per run" ||
    bad "summary rows $(grep -c '^quad1d' t1.summary.csv), runs rows $(grep -c '^[0-9]' t1.runs.csv)"
grep -q '^problem,opt,strategy,format,rounding,lr,seeds,diverged,final_loss_n,final_loss_mean,final_loss_sd,final_loss_ci95_lo,final_loss_ci95_hi,' t1.summary.csv &&
    ok "summary columns: the axes, seeds, diverged, the statistics" || bad "summary columns: $(grep ^problem t1.summary.csv)"
grep -q '^quad1d,sgd,bf16-sr,bf16,sr:r=16,0.01,2,0,2,' t1.summary.csv &&
    ok "summary row: its grid point, 2 seeds, 0 diverged" || bad "summary row: $(grep bf16-sr t1.summary.csv | head -1)"
grep -q '^run,problem,opt,strategy,format,rounding,lr,seed,last_step,.*,best_loss,steps_to_target,diverged$' t1.runs.csv &&
    ok "runs columns" || bad "runs columns: $(grep ^run t1.runs.csv)"
[ "$(grep -v '^#' t1.runs.csv | head -1 | tr ',' '\n' | grep -c '_mean$')" -eq 0 ] &&
    ok "runs file: no statistics repeated per seed" || bad "runs file has statistics"
[ "$(grep '^#' t1.summary.csv)" = "$(grep '^#' t1.csv)" ] && [ "$(grep '^#' t1.runs.csv)" = "$(grep '^#' t1.csv)" ] &&
    ok "summary and runs files start with the rows file's '#' lines" || bad "'#' lines differ"
grep -q '^run,problem,opt,strategy,format,rounding,lr,seed,step,' t1.csv && ok "rows header" || bad "rows header: $(grep ^run t1.csv)"
grep -q ',final_loss_gap_mean,final_loss_gap_sd,final_loss_gap_ci95_lo,final_loss_gap_ci95_hi,' t1.summary.csv &&
    ok "summary statistics columns" || bad "summary columns"
"$SRLAB" sweep --seeds 2 --log-every 50 --lr 1e-3:1e-1:log:3 --steps 100 --problem quad1d \
    --target 1e-4 --strategy fp32,bf16-rn,bf16-sr --quiet -o f1.csv 2>err.txt || bad "flags: $(cat err.txt)"
"$SRLAB" sweep --problem quad1d --strategy fp32,bf16-rn,bf16-sr --steps 100 --lr 1e-3:1e-1:log:3 \
    --target 1e-4 --log-every 50 --seeds 2 --threads 2 --quiet -o f2.csv 2>err.txt
same f1.csv f2.csv "flags in any order: the same file"
# (the set line too: a set's stamp is of its contents, which the spec line is part of)
grep -v '^# spec:\|^# set:' t1.csv >t1nospec.csv
grep -v '^# set:' f1.csv >f1noset.csv
same t1nospec.csv f1noset.csv "spec file and flags: the same rows"

# ---- shards and merge ----
for i in 0 1 2; do
    "$SRLAB" sweep spec.ini --quick --shard $i/3 --threads 1 -o s$i.csv 2>err.txt || bad "shard $i: $(cat err.txt)"
done
grep -q '^# shard: 1/3 ' s1.csv && ok "shard line" || bad "shard line"
"$SRLAB" merge s2.csv s0.csv s1.csv -o m.csv 2>err.txt || bad "merge: $(cat err.txt)"
[ -e s1.runs.csv ] && [ ! -e s1.summary.csv ] && ok "a shard writes its runs, no summary" ||
    bad "shard files: $(ls s1.*)"
same m.csv t1.csv "merged shards == single sweep (rows)"
same m.runs.csv t1.runs.csv "merged shards == single sweep (runs)"
same m.summary.csv t1.summary.csv "merged shards == single sweep (summary)"
"$SRLAB" sweep spec.ini --quick --lr 0.01,0.1 --shard 1/3 -o other1.csv 2>/dev/null
expect 2 "'# command: srlab sweep" "merge refuses shards of different sweeps, naming the line" \
    "$SRLAB" merge s0.csv other1.csv s2.csv -o mm.csv
expect 2 "shard 2/3 is missing" "merge refuses a missing shard" "$SRLAB" merge s0.csv s1.csv -o mm.csv
expect 2 "not a shard" "merge refuses a whole sweep" "$SRLAB" merge t1.csv -o mm.csv
[ ! -e mm.csv ] && ok "refused merges write nothing" || bad "a refused merge wrote mm.csv"

# ---- kill -9 in the middle, then --resume ----
toy="--problem toy --lr 0.05,0.1,0.2,0.4 --noise 0.1 --seeds 5 --steps 40 --sleep-ms 12"
# shellcheck disable=SC2086
"$TOY" sweep $toy --threads 2 -o ref.csv 2>err.txt || bad "toy reference: $(cat err.txt)"
# shellcheck disable=SC2086
"$TOY" sweep $toy --threads 2 -o k.csv 2>/dev/null &
pid=$!
n=0
for _ in $(seq 1 400); do
    n=$(grep -c '^@run ' k.journal 2>/dev/null)
    [ "${n:-0}" -ge 4 ] && break
    sleep 0.01
done
kill -9 $pid 2>/dev/null
wait $pid 2>/dev/null
n=$(grep -c '^@run ' k.journal 2>/dev/null)
if [ -e k.journal ] && [ ! -e k.csv ] && [ "${n:-0}" -ge 4 ] && [ "$n" -lt 20 ]; then
    ok "killed with $n of 20 runs in the journal and no output"
else
    bad "kill: journal runs ${n:-none}, k.csv $(ls k.csv 2>/dev/null)"
fi
# A record cut short, as kill -9 during a write leaves it.
printf '@run 19 rows 400 summary 90 fnv 0123456789abcdef\n19,toy,sgd,fp32,str' >>k.journal
# shellcheck disable=SC2086
expect 2 "add --resume to finish it" "an unfinished journal without --resume is refused" \
    "$TOY" sweep $toy -o k.csv
# shellcheck disable=SC2086
expect 2 "belongs to another sweep" "--resume with another grid is refused, naming the line" \
    "$TOY" sweep $toy --x0 2 --resume -o k.csv
grep -q "# command:" err.txt && ok "  ... the message names the '# command:' line" || bad "message: $(cat err.txt)"
# shellcheck disable=SC2086
"$TOY" sweep $toy --dry-run --resume -o k.csv >dryk.txt 2>/dev/null
grep -q "^# to run: $((20 - n)) of 20" dryk.txt && ok "dry run with --resume lists the missing runs" || bad "dry resume: $(grep 'to run' dryk.txt)"
# Resumed later (another SOURCE_DATE_EPOCH): the date line is the journal's, the original one.
# shellcheck disable=SC2086
SOURCE_DATE_EPOCH=1800000000 "$TOY" sweep $toy --threads 1 --resume -o k.csv 2>err.txt || bad "resume: $(cat err.txt)"
grep -q "dropped a record cut short" err.txt && ok "the torn record is reported" || bad "torn record not reported: $(cat err.txt)"
same k.csv ref.csv "resumed sweep == uninterrupted sweep (rows)"
same k.runs.csv ref.runs.csv "resumed sweep == uninterrupted sweep (runs)"
same k.summary.csv ref.summary.csv "resumed sweep == uninterrupted sweep (summary)"
[ ! -e k.journal ] && ok "journal removed after the resumed sweep" || bad "journal left"
# --resume without a journal is a fresh sweep.
# shellcheck disable=SC2086
"$TOY" sweep $toy --resume --quiet -o k2.csv 2>/dev/null
same k2.csv ref.csv "--resume without a journal runs everything"

# ---- issue 13: the headline command, resolved columns, specs by name, integers, ranges ----
# Item 1: --rounding without --format or --strategy rounds the weights into bf16, and says so.
"$SRLAB" sweep --problem quad1d --lr 1e-3,1e-2,1e-1 --rounding sr,rn --dry-run >h.txt 2>err.txt ||
    bad "headline dry run: $(cat err.txt)"
grep -q '^# format: bf16 (rounding was given without format or strategy' h.txt &&
    grep -qF -- '--problem quad1d --format bf16 --rounding sr,rn' h.txt &&
    ok "--rounding alone: bf16 weights, in the '#' lines and the command" || bad "headline: $(grep '^#' h.txt)"
[ ! -s err.txt ] && ok "  ... and no warning (the rounding matters)" || bad "headline warning: $(cat err.txt)"
"$SRLAB" sweep --problem quad1d --lr 1e-2 --rounding sr,rn --steps 300 --seeds 2 --quiet -o h.csv 2>err.txt ||
    bad "headline sweep: $(cat err.txt)"
# (fp32 with its weight changed to bf16 is named custom: issue 30, item 5)
rn_gap=$(grep '^quad1d,sgd,custom,bf16,rn,' h.summary.csv | cut -d, -f20)
sr_gap=$(grep '^quad1d,sgd,custom,bf16,sr,' h.summary.csv | cut -d, -f20)
[ -n "$rn_gap" ] && [ -n "$sr_gap" ] && [ "$rn_gap" != "$sr_gap" ] &&
    ok "rn and sr give different final loss gaps ($rn_gap, $sr_gap)" || bad "rn and sr: '$rn_gap' '$sr_gap' ($(cat h.summary.csv | tail -2))"
head -n 20 h.summary.csv | grep -q '^problem,.*,final_loss_gap_mean,' && [ "$(grep '^problem' h.summary.csv | cut -d, -f20)" = final_loss_gap_mean ] &&
    ok "  ... (column 20 is final_loss_gap_mean)" || bad "column 20: $(grep '^problem' h.summary.csv | cut -d, -f20)"
# ... and a requested rounding that cannot change anything is warned about.
"$SRLAB" sweep --problem quad1d --strategy fp32 --rounding sr,rn --dry-run >/dev/null 2>err.txt
grep -q '^srlab sweep: warning: --rounding sr,rn cannot change anything with strategy fp32: the weights (fp32) hold every value' err.txt &&
    [ "$(wc -l <err.txt)" -eq 1 ] &&
    ok "warning: fp32 weights under an fp32 update" || bad "no warning: $(cat err.txt)"
"$SRLAB" sweep --problem quad1d --strategy bf16-sr-exact --format fp32 --rounding sr --dry-run >/dev/null 2>err.txt
[ ! -s err.txt ] && ok "no warning: fp32 weights under an fp64 update" || bad "spurious warning: $(cat err.txt)"
# Item 2: the format and rounding columns carry the resolved values, as srlab train prints them.
"$SRLAB" sweep --problem quad1d --strategy fp32,mp,bf16-sr,bf16-sr-exact --dry-run >r.txt 2>err.txt
[ "$(grep '^[0-9]' r.txt | grep -c 'strategy')" -eq 0 ] && grep -q '^0,quad1d,sgd,fp32,fp32,rn,0.01,1$' r.txt &&
    grep -q '^1,quad1d,sgd,mp,bf16,rn,0.01,1$' r.txt && grep -q '^2,quad1d,sgd,bf16-sr,bf16,sr:r=16,0.01,1$' r.txt &&
    grep -q '^3,quad1d,sgd,bf16-sr-exact,bf16,sr,0.01,1$' r.txt &&
    ok "dry run: resolved format and rounding" || bad "dry run, resolved columns: $(grep '^[0-9]' r.txt)"
for st in fp32 mp bf16-sr bf16-sr-exact; do
    "$SRLAB" train --problem quad1d --strategy $st --steps 1 2>/dev/null | grep -v '^#' | sed -n 2p | cut -d, -f3-5 >tr.txt
    "$SRLAB" sweep --problem quad1d --strategy $st --steps 1 --quiet 2>/dev/null | grep -v '^#' | sed -n 2p | cut -d, -f4-6 >sw.txt
    if [ -s tr.txt ] && cmp -s tr.txt sw.txt; then ok "rows of $st: strategy,format,rounding as srlab train ($(cat sw.txt))"
    else bad "rows of $st: train '$(cat tr.txt)', sweep '$(cat sw.txt)'"; fi
done
# Item 4: specs by name from any directory; --list; the missing spec names where it looked.
"$SRLAB" sweep summation --quick --dry-run >n.txt 2>err.txt && grep -q '^# spec: summation (with its \[quick\] section)$' n.txt &&
    ok "srlab sweep summation: a spec by name, outside the source tree" || bad "spec by name: $(cat err.txt; grep spec n.txt)"
"$SRLAB" sweep stall.ini --quick --dry-run >/dev/null 2>err.txt && ok "  ... NAME.ini too" || bad "stall.ini: $(cat err.txt)"
"$SRLAB" sweep experiments/stall.ini --quick --dry-run >/dev/null 2>err.txt &&
    ok "  ... and experiments/NAME.ini, as the demos print it, from any directory" || bad "experiments/stall.ini: $(cat err.txt)"
"$SRLAB" sweep --list >l.txt 2>err.txt && grep -q '^specs in .*experiments (srlab sweep NAME):$' l.txt &&
    grep -q '^  summation      Recursive summation in bf16' l.txt && grep -q '^  stall  ' l.txt &&
    [ "$(awk 'length > 80' l.txt | wc -l)" -eq 0 ] &&
    ok "sweep --list: every spec with its first line, 80 columns" || bad "--list: $(cat l.txt err.txt | head -5)"
expect 2 "cannot read the spec file 'nosuchspec': No such file or directory; no spec of that name in " \
    "a missing spec names where it looked" "$SRLAB" sweep nosuchspec --dry-run
grep -q 'experiments' err.txt && ok "  ... the experiments folder" || bad "looked: $(cat err.txt)"
mkdir -p myspecs && cp spec.ini myspecs/mine.ini
SRLAB_EXPERIMENTS=$dir/myspecs "$SRLAB" sweep mine --quick --dry-run >/dev/null 2>err.txt &&
    ok "\$SRLAB_EXPERIMENTS: the folder of specs by name" || bad "SRLAB_EXPERIMENTS: $(cat err.txt)"
SRLAB_EXPERIMENTS=$dir/myspecs "$SRLAB" sweep --list | grep -q '^  mine           # a small learning-rate sweep\|^  mine  ' &&
    ok "  ... and --list shows it" || bad "--list with SRLAB_EXPERIMENTS: $(SRLAB_EXPERIMENTS=$dir/myspecs "$SRLAB" sweep --list)"
# Item 7: -f and -r as in train and run; integers with an exponent; the range syntax.
"$SRLAB" sweep --problem quad1d -f fp16 -r sr,rn --steps 1e2 --log-every 5e1 --quiet -o fr.csv 2>err.txt &&
    grep -q '^0,quad1d,sgd,custom,fp16,sr,0.01,1,100,' fr.runs.csv &&
    grep -q '^1,quad1d,sgd,custom,fp16,rn,0.01,1,100,' fr.runs.csv &&
    ok "-f fp16 -r sr,rn --steps 1e2: 100 steps" || bad "-f/-r/1e2: $(cat err.txt; grep '^0,' fr.runs.csv)"
"$SRLAB" train --problem quad1d --steps 2e1 --log-every 1e1 2>err.txt | grep -v '^#' | tail -1 | cut -d, -f13 | grep -qx 20 &&
    ok "train --steps 2e1: 20 steps (the library's parser)" || bad "train --steps 2e1: $(cat err.txt)"
expect 2 "--steps: '2.5e0' is not a non-negative integer" "--steps 2.5e0 (not an integer) is refused" \
    "$SRLAB" train --problem quad1d --steps 2.5e0
expect 2 "--lr: range '1e-3:1e-1:3': write a:b:log:n (n values, geometric) or a:b:lin:n" \
    "a range without its kind shows the range syntax" "$SRLAB" sweep --problem quad1d --lr 1e-3:1e-1:3 --dry-run

# ---- bad input: exit 2, one message, nothing overwritten ----
echo keep >keep.csv
echo keep >keep.summary.csv
expect 2 "--lr: '': an empty value" "empty axis" "$SRLAB" sweep --problem quad1d --lr '' -o keep.csv
expect 2 "--seeds: '0' is not a number of seeds" "no seeds" "$SRLAB" sweep --problem quad1d --seeds 0 -o keep.csv
expect 2 "contradict" "--seeds and --seed" "$SRLAB" sweep --problem quad1d --seeds 2 --seed 1,2 -o keep.csv
expect 2 "zipped axes need equal lengths" "zip of unequal axes" \
    "$SRLAB" sweep --problem quad1d --lr 0.1,0.2 --steps 1,2,3 --zip lr,steps -o keep.csv
expect 2 "--lr: value '1e-1' repeats '0.1'" "repeated value" "$SRLAB" sweep --problem quad1d --lr 0.1,1e-1 -o keep.csv
expect 2 "must be an integer >= 1" "range with n < 1" "$SRLAB" sweep --problem quad1d --lr 1e-3:1e-1:log:0 -o keep.csv
expect 2 "a log range needs bounds > 0" "log range with a bound <= 0" \
    "$SRLAB" sweep --problem quad1d --lr 0:1e-1:log:3 -o keep.csv
expect 2 "--shard: '3/3': shard I/N needs 0 <= I < N" "shard I >= N" \
    "$SRLAB" sweep --problem quad1d --shard 3/3 -o keep.csv
expect 2 "directory 'nodir' does not exist" "output in a missing directory" \
    "$SRLAB" sweep --problem quad1d -o nodir/x.csv
expect 2 "lr: 'abc' is not a number" "a value the runner refuses" "$SRLAB" sweep --problem quad1d --lr 0.1,abc -o keep.csv
expect 2 "unknown option '--nope'" "unknown option" "$SRLAB" sweep --problem quad1d --nope 1 -o keep.csv
expect 2 "unknown problem 'quad2d'" "unknown problem" "$SRLAB" sweep --problem quad2d -o keep.csv
expect 2 "no problem given" "no problem" "$SRLAB" sweep --lr 0.1 -o keep.csv
printf 'problem = quad1d\n# comment\nlrr = 0.1\n' >bad1.ini
expect 2 "bad1.ini:3: unknown key 'lrr'" "spec: unknown key with its line" "$SRLAB" sweep bad1.ini -o keep.csv
printf 'problem = quad1d\nsteps = 10\n\nkappa = 10\n' >bad2.ini
expect 2 "bad2.ini:4: unknown key 'kappa' for problem 'quad1d'" "spec: key of another problem, with its line" \
    "$SRLAB" sweep bad2.ini -o keep.csv
printf 'problem = quad1d\nthreads = 2\n' >bad3.ini
expect 2 "bad3.ini:2: 'threads' says how to run a sweep" "spec: invocation option" "$SRLAB" sweep bad3.ini -o keep.csv
printf 'problem = quad1d\n[fast]\nsteps = 2\n' >bad4.ini
expect 2 "bad4.ini:3: unknown section [fast]" "spec: unknown section" "$SRLAB" sweep bad4.ini -o keep.csv
printf 'problem = quad1d\nsteps 2\n' >bad5.ini
expect 2 "bad5.ini:2: not a 'key = value' line" "spec: not a key = value line" "$SRLAB" sweep bad5.ini -o keep.csv
printf 'problem = quad1d\nlr = 0.1\nlr = 0.2\n' >bad6.ini
expect 2 "bad6.ini:3: 'lr' is already set on line 2" "spec: key twice" "$SRLAB" sweep bad6.ini -o keep.csv
expect 2 "has no [quick] section" "--quick without [quick]" "$SRLAB" sweep bad2.ini --quick -o keep.csv
expect 2 "cannot read the spec file 'missing.ini'" "missing spec file" "$SRLAB" sweep missing.ini -o keep.csv
expect 2 "--resume needs an output file" "--resume without -o" "$SRLAB" sweep --problem quad1d --resume
expect 2 "--threads: '0' is out of range" "--threads 0" "$SRLAB" sweep --problem quad1d --threads 0 -o keep.csv
[ "$(cat keep.csv keep.summary.csv)" = "keep
keep" ] && ok "nothing overwritten by refused sweeps" || bad "keep.csv was overwritten"
[ -z "$(ls -A | grep -E '^\.|journal|tmp')" ] && ok "no temporary files or journals left" || bad "left: $(ls -A | grep -E '^\.|journal|tmp')"
expect 2 "no output: -o out.csv" "merge without -o" "$SRLAB" merge s0.csv
expect 2 "cannot read 'nope.csv'" "merge of a missing file" "$SRLAB" merge nope.csv -o mm.csv

echo "$checks checks, $fails failures"
echo "$((checks - fails)) passed, $fails failed"
[ "$fails" -eq 0 ]
