#!/bin/bash
# tests/slurm/slurm_cluster.sh SRLAB SWEEP_TESTCLI: srlab sweeps on a real SLURM cluster started
# on this machine for the test (tests/slurm/cluster.sh: munged, slurmctld and slurmd with a
# generated configuration, all stopped and removed at the end, also when a check fails).
# Skipped (exit 77) with a message when SLURM is not installed or cannot start here.
#
#   A  srlab sweep noisy_sgd.ini --quick --slurm 3: the job ids are printed, the array and its
#      merge run, and the merged files equal a single-machine sweep byte for byte;
#      --slurm-status then counts every run as done and the sweep as merged
#   B  the same sweep through experiments/slurm/sweep.sbatch, submitted by hand (the two
#      sbatch commands of its header, docs/cluster.md): byte-identical files
#   P  preemption: a 3-task array of a heavier sweep; task 0 is requeued with scontrol requeue
#      and task 1's srlab is killed with SIGKILL, each after at least 2 runs reached the journal;
#      both tasks resume from their journals (their logs show a second attempt that starts
#      with those runs) and the merged files are still byte-identical
#   T  out of time: one task with --time 1 (a minute) and 50 s of work; SLURM warns it before
#      the limit (USR1), it requeues itself, resumes from its journal, and the merged files are
#      byte-identical. Its runs sleep (the toy runner of tests/sweep/toy_runner.h driven by the
#      very srlab sweep code, SWEEP_TESTCLI), so the minute costs no CPU.
# Every wait is bounded; on a failure the queue and the daemons' logs are printed.
set -u
abs() { case $1 in /*) echo "$1" ;; *) echo "$(pwd)/$1" ;; esac; }
SRLAB=$(abs "$1")
TOY=$(abs "$2")
here=$(cd "$(dirname "$0")" && pwd)
SRC=${SRL_SRCDIR:-$(cd "$here/../.." && pwd)}
# shellcheck source=tests/slurm/cluster.sh
. "$here/cluster.sh"

tmp=$(mktemp -d "${TMPDIR:-/tmp}/srlab-slurm.XXXXXX")
trap 'cluster_stop' EXIT
trap 'exit 1' INT TERM HUP
t_start=$SECONDS
cluster_start "$tmp" || exit 77
work=$tmp/work
mkdir -p "$work" && cd "$work" || exit 1
export SOURCE_DATE_EPOCH=1700000000

fails=0
checks=0
ok() { checks=$((checks + 1)); echo "PASS: $1"; }
bad() { checks=$((checks + 1)); fails=$((fails + 1)); echo "FAIL: $1"; }
same() { # same FILE FILE WHAT
    if cmp -s "$1" "$2"; then ok "$3"; else bad "$3 ($1 and $2 differ)"; diff "$1" "$2" 2>&1 | head -5; fi
}
# The job ids srlab sweep --slurm printed ("array job N: ...", "merge job M: ...").
job_of() { sed -n "s/^$1 job \([0-9][0-9]*\): .*/\1/p" "$2"; }
# Wait until a journal holds at least N runs (bounded).
wait_journal() { # FILE N SECONDS
    local t0=$SECONDS n
    while [ $((SECONDS - t0)) -lt "$3" ]; do
        n=$(grep -c '^@run ' "$1" 2>/dev/null)
        [ "${n:-0}" -ge "$2" ] && return 0
        sleep 0.1
    done
    return 1
}
# The srlab sweep process of a shard of heavy.ini, running in $work.
shard_pid() {
    local p
    for p in /proc/[0-9]*; do
        [ "$(readlink "$p/cwd" 2>/dev/null)" = "$work" ] &&
            { tr '\0' ' ' <"$p/cmdline"; } 2>/dev/null | grep -q "^$SRLAB sweep --shard $1 .* heavy.ini $" &&
            echo "${p#/proc/}"
    done
}
waited() { # WHAT SECONDS JOBID...: wait for the jobs, and say so when they do not end
    local what=$1 secs=$2
    shift 2
    if cluster_wait "$secs" "$@"; then
        return 0
    fi
    bad "$what: jobs $* still queued after $secs s"
    squeue
    scontrol show job "$1" | head -30
    cluster_logs
    return 1
}

# ---- T: submitted first (a minute or more of wall time, no CPU) ----
toy=(--problem toy --lr 0.1,0.2 --seeds 12 --steps 20 --log-every 1 --sleep-ms 100)
mkdir t
if "$TOY" sweep "${toy[@]}" --slurm 1 --time 1 -o t/t.csv >t.sub 2>t.err; then
    ok "T: submitted with --time 1"
else
    bad "T: submission: $(cat t.err)"
fi
tj=$(job_of array t.sub)
tm=$(job_of merge t.sub)
grep -qx '#SBATCH --time=1' t/t.sbatch && grep -qx '#SBATCH --requeue' t/t.sbatch &&
    grep -q '^#SBATCH --signal=B:USR1@' t/t.sbatch && ok "T: the script has --time, --requeue, --signal" ||
    bad "T: #SBATCH lines: $(grep SBATCH t/t.sbatch)"

# ---- A: srlab sweep --slurm 3 ----
cp "$SRC/experiments/noisy_sgd.ini" .
mkdir a
"$SRLAB" sweep noisy_sgd.ini --quick --slurm 3 -o a/ns.csv >a.sub 2>a.err
st=$?
aj=$(job_of array a.sub)
am=$(job_of merge a.sub)
if [ "$st" -eq 0 ] && [ -n "$aj" ] && [ -n "$am" ] && grep -qx "watch: squeue -j $aj,$am" a.sub &&
    grep -qx "job script: $work/a/ns.sbatch" a.sub; then
    ok "A: --slurm 3 exits 0 and prints the array job $aj, the merge job $am and how to watch them"
else
    bad "A: --slurm 3: exit $st, stdout: $(cat a.sub), stderr: $(cat a.err)"
fi

# ---- B: experiments/slurm/sweep.sbatch by hand ----
mkdir b
bj=$(sbatch --parsable --array=0-2 --cpus-per-task=1 --output="$work/b/slurm-%A_%a.log" \
    --export="ALL,SPEC=noisy_sgd.ini,OUT=b,SHARDS=3,SRLAB=$SRLAB,EXTRA=--quick" \
    "$SRC/experiments/slurm/sweep.sbatch" 2>b.err)
bm=$(sbatch --parsable --dependency="afterok:$bj" --cpus-per-task=1 --output="$work/b/merge-%j.log" \
    --export="ALL,SPEC=noisy_sgd.ini,OUT=b,SHARDS=3,SRLAB=$SRLAB,MERGE=1" \
    "$SRC/experiments/slurm/sweep.sbatch" 2>>b.err)
[ -n "$bj" ] && [ -n "$bm" ] && ok "B: sweep.sbatch submitted (jobs $bj, $bm)" || bad "B: sbatch: $(cat b.err)"

# ---- P: requeue and SIGKILL in the middle of a task ----
cat >heavy.ini <<'EOF'
# 30 runs of about half a second each (3 shards of 10)
command = train
problem = quadratic
d = 100
kappa = 10
grad-noise = 0.1
opt = sgd
strategy = fp32, bf16-rn, bf16-sr
lr = 3e-3, 1e-2
steps = 200000
log-every = 50000
seeds = 5
EOF
mkdir p
"$SRLAB" sweep heavy.ini --slurm 3 -o p/h.csv >p.sub 2>p.err || bad "P: submission: $(cat p.err)"
pj=$(job_of array p.sub)
pm=$(job_of merge p.sub)
if wait_journal p/h.shard.0.journal 2 300; then
    n0=$(grep -c '^@run ' p/h.shard.0.journal)
    if scontrol requeue "${pj}_0"; then
        ok "P: task 0 requeued (scontrol requeue) with $n0 of 10 runs in its journal"
    else
        bad "P: scontrol requeue ${pj}_0 failed"
    fi
else
    bad "P: task 0 never had 2 runs in its journal"
fi
if wait_journal p/h.shard.1.journal 2 300; then
    pid=$(shard_pid 1/3)
    n1=$(grep -c '^@run ' p/h.shard.1.journal)
    if [ -n "$pid" ] && kill -KILL "$pid"; then
        ok "P: task 1's srlab (pid $pid) killed with SIGKILL with $n1 of 10 runs in its journal"
    else
        bad "P: no srlab process of shard 1/3 to kill"
    fi
else
    bad "P: task 1 never had 2 runs in its journal"
fi

# ---- the single-machine references (while the cluster works) ----
"$SRLAB" sweep noisy_sgd.ini --quick --quiet -o ref_ns.csv 2>ref.err || bad "reference: $(cat ref.err)"
"$SRLAB" sweep heavy.ini --threads 1 --quiet -o ref_h.csv 2>ref.err || bad "reference: $(cat ref.err)"
"$TOY" sweep "${toy[@]}" --threads 8 --quiet -o ref_t.csv 2>ref.err || bad "reference: $(cat ref.err)"

# ---- results ----
if waited "A" 300 "$aj" "$am"; then
    same a/ns.csv ref_ns.csv "A: merged rows == single-machine sweep, byte for byte"
    same a/ns.runs.csv ref_ns.runs.csv "A: merged runs == single-machine sweep, byte for byte"
    same a/ns.summary.csv ref_ns.summary.csv "A: merged summary == single-machine sweep, byte for byte"
    "$SRLAB" sweep noisy_sgd.ini --quick -o a/ns.csv --slurm-status >a.status 2>&1
    grep -qx '# done: 72 of 72 runs; merged: yes (a/ns.csv)' a.status &&
        [ "$(grep -c ',24,24,finished$' a.status)" -eq 3 ] &&
        ok "A: --slurm-status: 3 shards finished, 72 of 72 runs, merged" || bad "A: status: $(cat a.status)"
fi
if waited "B" 300 "$bj" "$bm"; then
    same b/sweep.csv ref_ns.csv "B: sweep.sbatch: merged rows == single-machine sweep"
    same b/sweep.runs.csv ref_ns.runs.csv "B: sweep.sbatch: merged runs == single-machine sweep"
    same b/sweep.summary.csv ref_ns.summary.csv "B: sweep.sbatch: merged summary == single-machine sweep"
fi
if waited "P" 400 "$pj" "$pm"; then
    same p/h.csv ref_h.csv "P: after requeue and SIGKILL: merged rows == single-machine sweep"
    same p/h.runs.csv ref_h.runs.csv "P: after requeue and SIGKILL: merged runs == single-machine sweep"
    same p/h.summary.csv ref_h.summary.csv "P: after requeue and SIGKILL: merged summary == single-machine sweep"
    l0=p/h.slurm-${pj}_0.log
    l1=p/h.slurm-${pj}_1.log
    grep -q 'DUE TO JOB REQUEUE' "$l0" && grep -Eq "task 0: shard 0/3, attempt 2, ([2-9]|10) of 10 runs in the journal" "$l0" &&
        ok "P: task 0 resumed from its journal after the requeue" || bad "P: task 0's log: $(cat "$l0")"
    grep -q 'task 1: srlab was killed (SIGKILL);.*requeueing the task' "$l1" &&
        grep -Eq "task 1: shard 1/3, attempt 2, ([2-9]|10) of 10 runs in the journal" "$l1" &&
        ok "P: task 1 requeued itself after SIGKILL and resumed from its journal" || bad "P: task 1's log: $(cat "$l1")"
fi
if waited "T" 420 "$tj" "$tm"; then
    same t/t.csv ref_t.csv "T: after running out of time: merged rows == single-machine sweep"
    same t/t.runs.csv ref_t.runs.csv "T: after running out of time: merged runs == single-machine sweep"
    same t/t.summary.csv ref_t.summary.csv "T: after running out of time: merged summary == single-machine sweep"
    lt=t/t.slurm-${tj}_0.log
    grep -q 'task 0: near the time limit;.*requeueing the task' "$lt" &&
        grep -Eq 'task 0: shard 0/1, attempt 2, [1-9][0-9]* of 24 runs in the journal' "$lt" &&
        ok "T: warned of the time limit, requeued itself, resumed from its journal" || bad "T: log: $(cat "$lt")"
fi
ls ./*/*.journal >/dev/null 2>&1 && bad "journals left: $(ls ./*/*.journal)" || ok "no journal left behind"

echo "$checks checks, $fails failures ($((SECONDS - t_start)) s)"
echo "$((checks - fails)) passed, $fails failed"
[ "$fails" -eq 0 ]
