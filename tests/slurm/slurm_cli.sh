#!/bin/bash
# tests/slurm/slurm_cli.sh SRLAB SWEEP_TESTCLI: `srlab sweep --slurm N` and `--slurm-status` from
# the outside, with a fake sbatch and a fake scontrol on PATH (no cluster needed; the real one is
# tests/slurm/slurm_cluster.sh):
#   --slurm 2: exit 0, the job ids printed, sbatch called twice (the array, then the merge after
#     it) with the written job script, which is valid bash with the #SBATCH lines asked for
#   the job script run by hand, task by task as SLURM would, then `merge`: files byte-identical
#     to a single-machine sweep; a finished shard is skipped when run again
#   the script's interruption logic: srlab killed with SIGKILL -> the task requeues itself
#     (scontrol requeue) and the next attempt resumes from the journal; USR1 (the time-limit
#     warning) -> requeue once a run is in the journal; --slurm-status in between
#   paths and arguments with quotes, spaces and $(...) reach srlab as they are, never run
#   bad input exits 2 before anything is written or submitted: no sbatch on PATH, N < 1, N >
#     runs, a spec its dry run refuses, bad --partition/--time/--cpus-per-task, options --slurm
#     makes itself; sbatch refusing exits 3
# SRLAB is the real command; SWEEP_TESTCLI the same sweep code with the toy runners (runs that
# sleep, so a task can be interrupted in the middle).
set -u
abs() { case $1 in /*) echo "$1" ;; *) echo "$(pwd)/$1" ;; esac; }
SRLAB=$(abs "$1")
TOY=$(abs "$2")
dir=$(mktemp -d "${TMPDIR:-/tmp}/srlab-slurm-cli.XXXXXX")
trap 'rm -rf "$dir"' EXIT
cd "$dir" || exit 1
export SOURCE_DATE_EPOCH=1700000000
fails=0
checks=0
ok() { checks=$((checks + 1)); echo "PASS: $1"; }
bad() { checks=$((checks + 1)); fails=$((fails + 1)); echo "FAIL: $1"; }
same() {
    if cmp -s "$1" "$2"; then ok "$3"; else bad "$3 ($1 and $2 differ)"; diff "$1" "$2" 2>&1 | head -5; fi
}

# ---- fake sbatch and scontrol ----
mkdir bin empty
cat >bin/sbatch <<'EOF'
#!/bin/bash
# fake sbatch: one line per call (arguments separated by '|'); prints "ID;cluster" like
# sbatch --parsable; FAKE_SBATCH_FAIL=N makes call N fail.
n=$(($(cat "$FAKE_DIR/sbatch.n" 2>/dev/null || echo 0) + 1))
echo "$n" >"$FAKE_DIR/sbatch.n"
(IFS='|'; echo "$*") >>"$FAKE_DIR/sbatch.log"
if [ "${FAKE_SBATCH_FAIL:-0}" = "$n" ]; then
    echo "sbatch: error: Invalid partition name specified" >&2
    exit 1
fi
echo "$((1000 + n));srlabtest"
EOF
cat >bin/scontrol <<'EOF'
#!/bin/bash
# fake scontrol: records the call; `requeue` stops the caller's process group a moment later, as
# SLURM stops a requeued job (TERM to every process of the job).
echo "$*" >>"$FAKE_DIR/scontrol.log"
if [ "$1" = requeue ]; then
    stat=$(cat "/proc/$PPID/stat")
    set -- ${stat##*) } # state, parent, process group, ...
    pgid=$3
    (sleep 0.3; kill -TERM -- "-$pgid") >/dev/null 2>&1 &
fi
exit 0
EOF
chmod +x bin/sbatch bin/scontrol
export FAKE_DIR=$dir
FAKEPATH=$dir/bin:$PATH
calls() { cat sbatch.n 2>/dev/null || echo 0; }
reset_fake() { rm -f sbatch.n sbatch.log scontrol.log; }
# expect STATUS PATTERN WHAT CMD...: exit status, a message holding PATTERN, and no sbatch call
expect() {
    local want=$1 pat=$2 what=$3
    shift 3
    reset_fake
    PATH=$FAKEPATH "$@" >out.txt 2>err.txt
    local got=$?
    if [ "$got" -eq "$want" ] && grep -qF -- "$pat" err.txt && [ "$(calls)" = 0 ]; then
        ok "$what"
    else
        bad "$what: exit $got (want $want), sbatch calls $(calls), stderr: $(head -c 300 err.txt) (want '$pat')"
    fi
}
# Run array task I of SCRIPT as SLURM would (its own process group, the variables SLURM sets).
task() { # SCRIPT I [RESTARTS]
    SLURM_ARRAY_TASK_ID=$2 SLURM_JOB_ID=$((2000 + $2)) SLURM_RESTART_COUNT=${3:-0} \
        SLURM_CPUS_PER_TASK=1 PATH=$FAKEPATH setsid bash "$1"
}
# The processes (ids) whose command line, its words joined by '|', is exactly LINE (from /proc:
# no procps needed).
procs_of() { # the PIDs whose command line, its words joined by '|' (and one after), is $1
    local p a IFS='|'
    for p in /proc/[0-9]*; do # builtins only: a fork per process made this scan take seconds
        { mapfile -d '' -t a <"$p/cmdline"; } 2>/dev/null || continue # on a loaded machine
        [ "${a[*]}|" = "$1" ] && echo "${p#/proc/}"
    done
}
wait_journal() { # FILE N: at most 20 s
    local n
    for _ in $(seq 1 200); do
        n=$(grep -c '^@run ' "$1" 2>/dev/null)
        [ "${n:-0}" -ge "$2" ] && return 0
        sleep 0.1
    done
    return 1
}

cat >spec.ini <<'EOF'
command = train
problem = quad1d
strategy = fp32, bf16-rn, bf16-sr
lr = 1e-3:1e-1:log:3
steps = 100
log-every = 50
seeds = 2
EOF

# ---- --slurm 2: what is submitted ----
mkdir r
reset_fake
PATH=$FAKEPATH "$SRLAB" sweep spec.ini --slurm 2 --partition gpu,cpu --time 2:00:00 \
    --cpus-per-task 3 -o r/s.csv >sub.txt 2>err.txt
st=$?
[ "$st" -eq 0 ] && grep -qx 'array job 1001: 2 tasks, 18 runs (shard I: r/s.shard.I.csv)' sub.txt &&
    grep -qx 'merge job 1002: after array job 1001 succeeds (r/s.csv and its .runs.csv and .summary.csv)' sub.txt &&
    grep -qx 'watch: squeue -j 1001,1002' sub.txt &&
    grep -qx 'progress: srlab sweep spec.ini -o r/s.csv --slurm-status' sub.txt &&
    ok "--slurm 2: exit 0, the job ids, the watch and progress commands" ||
    bad "--slurm 2: exit $st: $(cat sub.txt err.txt)"
script=$dir/r/s.sbatch
if [ "$(calls)" = 2 ] &&
    [ "$(sed -n 1p sbatch.log)" = "--parsable|--array=0-1|--output=$dir/r/s.slurm-%A_%a.log|$script" ] &&
    [ "$(sed -n 2p sbatch.log)" = "--parsable|--dependency=afterok:1001|--cpus-per-task=1|--output=$dir/r/s.slurm-merge-%j.log|$script|merge" ]; then
    ok "sbatch: the array, then the merge after it, both with the job script"
else
    bad "sbatch calls: $(cat sbatch.log)"
fi
bash -n "$script" && ok "the job script is valid bash" || bad "bash -n $script"
for l in '#SBATCH --partition=gpu,cpu' '#SBATCH --time=2:00:00' '#SBATCH --cpus-per-task=3' \
    '#SBATCH --requeue' '#SBATCH --signal=B:USR1@120' '#SBATCH --job-name=srlab-s' \
    'export SOURCE_DATE_EPOCH=1700000000' 'shards=2' 'runs=18'; do
    grep -qxF -- "$l" "$script" || bad "job script: no line '$l'"
done
ok "job script: the #SBATCH lines asked for"

# ---- the script by hand: tasks, merge, byte-identical ----
"$SRLAB" sweep spec.ini --quiet -o ref.csv 2>err.txt || bad "reference: $(cat err.txt)"
task "$script" 0 >t0.log 2>&1 && task "$script" 1 >t1.log 2>&1 || bad "tasks: $(cat t0.log t1.log)"
PATH=$FAKEPATH bash "$script" merge >m.log 2>&1 || bad "merge: $(cat m.log)"
same r/s.csv ref.csv "tasks + merge == single-machine sweep (rows)"
same r/s.runs.csv ref.runs.csv "tasks + merge == single-machine sweep (runs)"
same r/s.summary.csv ref.summary.csv "tasks + merge == single-machine sweep (summary)"
task "$script" 0 >t0b.log 2>&1
grep -q 'task 0: shard 0/2 is already finished' t0b.log && ok "a finished shard is skipped" ||
    bad "rerun of a finished shard: $(cat t0b.log)"
PATH=$FAKEPATH "$SRLAB" sweep spec.ini -o r/s.csv --slurm-status >status.txt 2>err.txt
grep -qx '0,9,9,finished' status.txt && grep -qx '1,9,9,finished' status.txt &&
    grep -qx '# done: 18 of 18 runs; merged: yes (r/s.csv)' status.txt &&
    ok "--slurm-status: both shards finished, merged" || bad "status: $(cat status.txt err.txt)"

# ---- interruptions: SIGKILL, then the time-limit warning ----
toy=(--problem toy --lr 0.1,0.2 --seeds 4 --steps 20 --log-every 1 --sleep-ms 40)
"$TOY" sweep "${toy[@]}" --threads 8 --quiet -o tref.csv 2>err.txt || bad "toy reference: $(cat err.txt)"
mkdir k
reset_fake
PATH=$FAKEPATH "$TOY" sweep "${toy[@]}" --slurm 2 -o k/t.csv >/dev/null 2>err.txt || bad "toy --slurm: $(cat err.txt)"
ks=$dir/k/t.sbatch
task "$ks" 0 >k0.log 2>&1 || bad "toy task 0: $(cat k0.log)"
task "$ks" 1 >k1.log 2>&1 &
tpid=$!
if wait_journal k/t.shard.1.journal 1; then
    for p in $(procs_of "$TOY|sweep|--shard|1/2|--threads|1|--resume|--quiet|-o|k/t.shard.1.csv|$(IFS='|'; echo "${toy[*]}")|"); do
        kill -KILL "$p"
    done
fi
wait "$tpid"
grep -q 'task 1: srlab was killed (SIGKILL);.*requeueing the task' k1.log &&
    grep -qx 'requeue 2001' scontrol.log && ok "SIGKILL: the task requeues itself (scontrol requeue 2001)" ||
    bad "SIGKILL: $(cat k1.log scontrol.log 2>&1)"
PATH=$FAKEPATH "$TOY" sweep "${toy[@]}" -o k/t.csv --slurm-status >status.txt 2>err.txt
grep -Eq '^1,4,[1-3],started \(journal\)$' status.txt && grep -qx '0,4,4,finished' status.txt &&
    grep -q '^# done: [5-7] of 8 runs; merged: no (k/t.csv)$' status.txt &&
    ok "--slurm-status: shard 0 finished, shard 1 started with its journal" || bad "status: $(cat status.txt err.txt)"
n=$(grep -c '^@run ' k/t.shard.1.journal)
task "$ks" 1 1 >k1b.log 2>&1 || bad "toy task 1, attempt 2: $(cat k1b.log)"
grep -q "task 1: shard 1/2, attempt 2, $n of 4 runs in the journal" k1b.log &&
    ok "attempt 2 resumes from the journal ($n of 4 runs)" || bad "attempt 2: $(cat k1b.log)"
PATH=$FAKEPATH bash "$ks" merge >/dev/null 2>&1
same k/t.csv tref.csv "SIGKILL + requeue + merge == single-machine sweep (rows)"
same k/t.runs.csv tref.runs.csv "SIGKILL + requeue + merge == single-machine sweep (runs)"
same k/t.summary.csv tref.summary.csv "SIGKILL + requeue + merge == single-machine sweep (summary)"

mkdir u
reset_fake
PATH=$FAKEPATH "$TOY" sweep "${toy[@]}" --slurm 1 --time 1 -o u/t.csv >/dev/null 2>err.txt || bad "toy --slurm 1: $(cat err.txt)"
us=$dir/u/t.sbatch
grep -qx '#SBATCH --signal=B:USR1@30' "$us" && ok "--time 1: the warning comes 30 s before the limit" ||
    bad "--signal line: $(grep signal "$us")"
task "$us" 0 >u0.log 2>&1 &
tpid=$!
wait_journal u/t.shard.0.journal 1 && sleep 0.3
# The batch shell is the bash running the script (SLURM's --signal=B: signals it alone).
for p in $(procs_of "bash|$us|"); do kill -USR1 "$p"; done
wait "$tpid"
grep -q 'task 0: SLURM warns of the time limit' u0.log && grep -q 'task 0: near the time limit;.*requeueing' u0.log &&
    grep -qx 'requeue 2000' scontrol.log && ok "USR1: the task requeues itself" || bad "USR1: $(cat u0.log)"
task "$us" 0 1 >u0b.log 2>&1 || bad "attempt 2: $(cat u0b.log)"
grep -Eq 'task 0: shard 0/1, attempt 2, [1-7] of 8 runs in the journal' u0b.log &&
    ok "attempt 2 after the warning resumes from the journal" || bad "attempt 2: $(cat u0b.log)"
PATH=$FAKEPATH bash "$us" merge >/dev/null 2>&1
same u/t.csv tref.csv "time-limit requeue + merge == single-machine sweep (rows)"

# ---- quotes, spaces and $(...) in paths and values ----
odd="we'ird \$(touch PWNED) \"dir\""
mkdir "$odd"
cp spec.ini "$odd/sp ec.ini"
reset_fake
PATH=$FAKEPATH "$SRLAB" sweep "$odd/sp ec.ini" --target 1e-3 -o "$odd/o'ut.csv" --slurm 2 >/dev/null 2>err.txt ||
    bad "odd paths: $(cat err.txt)"
os=$dir/$odd/o\'ut.sbatch
bash -n "$os" || bad "odd paths: bash -n"
task "$os" 0 >o0.log 2>&1 && task "$os" 1 >o1.log 2>&1 && PATH=$FAKEPATH bash "$os" merge >om.log 2>&1 ||
    bad "odd paths: $(cat o0.log o1.log om.log)"
"$SRLAB" sweep "$odd/sp ec.ini" --target 1e-3 --quiet -o oref.csv 2>/dev/null
same "$odd/o'ut.csv" oref.csv "quotes, spaces and \$(...) in paths: byte-identical, as given"
[ ! -e PWNED ] && [ ! -e "$odd/PWNED" ] && ok "nothing in a path or value is run by a shell" || bad "a path was run"

# ---- default output: the spec's name ----
mkdir def && cp spec.ini def/
(cd def && reset_fake && PATH=$FAKEPATH "$SRLAB" sweep spec.ini --slurm 2 >/dev/null 2>../err.txt)
[ -f def/spec.sbatch ] && ok "without -o: spec.sbatch in the current directory" || bad "default output: $(cat err.txt)"

# ---- bad input: exit 2, nothing written or submitted ----
mkdir e
expect 2 "--slurm: '0' is out of range" "--slurm 0" "$SRLAB" sweep spec.ini --slurm 0 -o e/x.csv
expect 2 "--slurm: '-2' is out of range" "--slurm -2" "$SRLAB" sweep spec.ini --slurm -2 -o e/x.csv
expect 2 "--slurm: 'two' is not an integer" "--slurm two" "$SRLAB" sweep spec.ini --slurm two -o e/x.csv
expect 2 "--slurm needs a value" "--slurm without N" "$SRLAB" sweep spec.ini -o e/x.csv --slurm
expect 2 "--slurm: 19 shards for 18 runs" "more shards than runs" "$SRLAB" sweep spec.ini --slurm 19 -o e/x.csv
expect 2 "no sbatch on PATH" "no sbatch on PATH" env PATH="$dir/empty" "$SRLAB" sweep spec.ini --slurm 2 -o e/x.csv
printf 'problem = quad1d\nlrr = 0.1\n' >badspec.ini
expect 2 "badspec.ini:2: unknown key 'lrr'" "a spec the dry run refuses" "$SRLAB" sweep badspec.ini --slurm 2 -o e/x.csv
expect 2 "--lr: value '1e-1' repeats '0.1'" "a flag the dry run refuses" \
    "$SRLAB" sweep --problem quad1d --lr 0.1,1e-1 --slurm 2 -o e/x.csv
expect 2 "--partition: 'a b' is not a partition name" "--partition with a space" \
    "$SRLAB" sweep spec.ini --slurm 2 --partition 'a b' -o e/x.csv
expect 2 "is not a partition name" "--partition with a ;" "$SRLAB" sweep spec.ini --slurm 2 --partition 'x;id' -o e/x.csv
expect 2 "--time: '1h' is not a SLURM time limit" "--time 1h" "$SRLAB" sweep spec.ini --slurm 2 --time 1h -o e/x.csv
expect 2 "--time: '0' is not a SLURM time limit" "--time 0" "$SRLAB" sweep spec.ini --slurm 2 --time 0 -o e/x.csv
expect 2 "--cpus-per-task: '0' is out of range" "--cpus-per-task 0" \
    "$SRLAB" sweep spec.ini --slurm 2 --cpus-per-task 0 -o e/x.csv
expect 2 "--shard and --slurm" "--shard with --slurm" "$SRLAB" sweep spec.ini --slurm 2 --shard 0/2 -o e/x.csv
expect 2 "--threads and --slurm" "--threads with --slurm" "$SRLAB" sweep spec.ini --slurm 2 --threads 2 -o e/x.csv
expect 2 "--resume and --slurm" "--resume with --slurm" "$SRLAB" sweep spec.ini --slurm 2 --resume -o e/x.csv
expect 2 "--dry-run and --slurm" "--dry-run with --slurm" "$SRLAB" sweep spec.ini --slurm 2 --dry-run -o e/x.csv
expect 2 "give one of them" "--slurm with --slurm-status" "$SRLAB" sweep spec.ini --slurm 2 --slurm-status -o e/x.csv
expect 2 "--partition needs --slurm N" "--partition alone" "$SRLAB" sweep spec.ini --partition gpu -o e/x.csv
expect 2 "--slurm needs -o OUT.csv" "no -o and no spec" "$SRLAB" sweep --problem quad1d --lr 0.1,0.2 --slurm 2
expect 2 "directory 'nodir' does not exist" "-o in a missing directory" "$SRLAB" sweep spec.ini --slurm 2 -o nodir/x.csv
expect 2 "cannot read the job script" "--slurm-status before --slurm" "$SRLAB" sweep spec.ini --slurm-status -o e/x.csv
expect 2 "was written for another sweep" "--slurm-status with other arguments" \
    "$SRLAB" sweep spec.ini --seeds 3 --slurm-status -o r/s.csv
# Journals where a shard goes: unreadable, or of another sweep (a toy sweep killed in the middle).
printf 'srlab-journal\n' >e/y.shard.0.journal
expect 2 "'e/y.shard.0.journal' cannot be read" "an unreadable journal where a shard goes" \
    "$SRLAB" sweep spec.ini --slurm 2 -o e/y.csv
"$TOY" sweep "${toy[@]}" --shard 0/2 --threads 1 --quiet -o e/w.shard.0.csv 2>/dev/null &
tpid=$!
wait_journal e/w.shard.0.journal 1
kill -KILL "$tpid"
wait "$tpid" 2>/dev/null
expect 2 "'e/w.shard.0.journal' holds the runs of another sweep" "a journal of another sweep where a shard goes" \
    "$TOY" sweep "${toy[@]}" --x0 2 --slurm 2 -o e/w.csv
expect 2 "'e/w.shard.0.journal' holds the runs of another sweep or another --slurm N" \
    "a journal of the same sweep in another number of shards" "$TOY" sweep "${toy[@]}" --slurm 3 -o e/w.csv
reset_fake
PATH=$FAKEPATH "$TOY" sweep "${toy[@]}" --slurm 2 -o e/w.csv >/dev/null 2>err.txt && [ "$(calls)" = 2 ] &&
    ok "a journal of the same sweep and shards: submitted again (the task resumes it)" || bad "resubmission: $(cat err.txt)"
rm -f e/w.sbatch
[ -z "$(ls e | grep -v -e '^y\.shard\.0\.journal$' -e '^w\.shard\.0\.journal$')" ] && ok "refused submissions write nothing" ||
    bad "refused submissions wrote: $(ls e)"
reset_fake
FAKE_SBATCH_FAIL=1 PATH=$FAKEPATH "$SRLAB" sweep spec.ini --slurm 2 -o e/z.csv >out.txt 2>err.txt
st=$?
[ "$st" -eq 3 ] && grep -q 'sbatch refused the job array' err.txt && grep -q 'nothing was submitted' err.txt &&
    [ "$(calls)" = 1 ] && ok "sbatch refusing the array: exit 3, nothing submitted" || bad "sbatch failure: exit $st $(cat err.txt)"
reset_fake
FAKE_SBATCH_FAIL=2 PATH=$FAKEPATH "$SRLAB" sweep spec.ini --slurm 2 -o e/z.csv >out.txt 2>err.txt
st=$?
[ "$st" -eq 3 ] && grep -q 'submitted as job 1001 but the merge is not' err.txt &&
    grep -q 'sbatch --parsable --dependency=afterok:1001 ' err.txt &&
    ok "sbatch refusing the merge: exit 3 and the command that submits it" || bad "merge failure: exit $st $(cat err.txt)"

# ---- help ----
"$SRLAB" sweep --help | grep -q -- '--slurm-status' && ok "sweep --help describes --slurm" || bad "help"
PATH=$FAKEPATH "$SRLAB" sweep spec.ini --slurm 2 --help >out.txt 2>&1 && grep -q '^usage: srlab sweep' out.txt &&
    ok "--slurm N --help prints the help" || bad "--slurm --help: $(head -3 out.txt)"

echo "$checks checks, $fails failures"
echo "$((checks - fails)) passed, $fails failed"
[ "$fails" -eq 0 ]
