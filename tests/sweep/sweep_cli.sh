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
"$SRLAB" sweep spec.ini --quick --threads 2 -o t2.csv 2>err.txt || bad "threads 2: $(cat err.txt)"
same t1.csv t2.csv "rows identical for 1 and 2 threads"
same t1.summary.csv t2.summary.csv "summary identical for 1 and 2 threads"
[ ! -s err.txt ] && ok "no progress line when stderr is not a terminal" || bad "stderr not empty: $(cat err.txt)"
[ ! -e t1.journal ] && [ ! -e t2.journal ] && ok "journal removed after success" || bad "journal left behind"
[ "$(grep -c '^[0-9]' t1.summary.csv)" -eq 18 ] && ok "summary: one row per run" || bad "summary rows"
grep -q '^run,problem,opt,strategy,format,rounding,lr,seed,step,' t1.csv && ok "rows header" || bad "rows header: $(grep ^run t1.csv)"
grep -q ',final_loss_gap_mean,final_loss_gap_sd,final_loss_gap_ci95_lo,final_loss_gap_ci95_hi,' t1.summary.csv &&
    ok "summary statistics columns" || bad "summary columns"
"$SRLAB" sweep --seeds 2 --log-every 50 --lr 1e-3:1e-1:log:3 --steps 100 --problem quad1d \
    --target 1e-4 --strategy fp32,bf16-rn,bf16-sr --quiet -o f1.csv 2>err.txt || bad "flags: $(cat err.txt)"
"$SRLAB" sweep --problem quad1d --strategy fp32,bf16-rn,bf16-sr --steps 100 --lr 1e-3:1e-1:log:3 \
    --target 1e-4 --log-every 50 --seeds 2 --threads 2 --quiet -o f2.csv 2>err.txt
same f1.csv f2.csv "flags in any order: the same file"
grep -v '^# spec:' t1.csv >t1nospec.csv
same t1nospec.csv f1.csv "spec file and flags: the same rows"

# ---- shards and merge ----
for i in 0 1 2; do
    "$SRLAB" sweep spec.ini --quick --shard $i/3 --threads 1 -o s$i.csv 2>err.txt || bad "shard $i: $(cat err.txt)"
done
grep -q '^# shard: 1/3 ' s1.csv && ok "shard line" || bad "shard line"
"$SRLAB" merge s2.csv s0.csv s1.csv -o m.csv 2>err.txt || bad "merge: $(cat err.txt)"
same m.csv t1.csv "merged shards == single sweep (rows)"
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
same k.summary.csv ref.summary.csv "resumed sweep == uninterrupted sweep (summary)"
[ ! -e k.journal ] && ok "journal removed after the resumed sweep" || bad "journal left"
# --resume without a journal is a fresh sweep.
# shellcheck disable=SC2086
"$TOY" sweep $toy --resume --quiet -o k2.csv 2>/dev/null
same k2.csv ref.csv "--resume without a journal runs everything"

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
