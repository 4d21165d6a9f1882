#!/bin/sh
# tests/sweep/sets.sh SRLAB IO_SHIM KILL_AFTER [MERGES REPRODUCES]: the files of a sweep or a
# merge are one set, replaced as one transaction under one lock (issue 28, item 2; src/cli/set.h).
#   1. an output that is also an input (merge s0.csv s1.csv -o s1): exit 2, nothing replaced
#   2. stamps: the same in the three files, a sweep's == the merge of its shards' (bytes); a
#      reader (compare, plot, merge) refuses a set whose files' stamps differ, naming both
#   3. every instant of a commit (IO_SHIM kills a merge, then a sweep, at each of its steps in
#      turn): the set is wholly old or wholly new, or readers refuse it with the set message;
#      then the next locked command recovers it (the new one when the commit record was there);
#      a killed sweep's --resume gives the uninterrupted sweep's bytes
#   4. kill -9 at random instants of MERGES merges (default 200) alternating two sweeps into one
#      output, and of REPRODUCES tiny reproductions (default 50): the same promise
#   5. two merges at once into one output, 30 times: one is refused (in use) or both run one
#      after the other; never a mixed set
# The random delays are drawn by awk from a fixed seed, printed on failure.
case $2 in /*) SHIM=$2 ;; *) SHIM=$PWD/$2 ;; esac
case $3 in /*) KILL=$3 ;; *) KILL=$PWD/$3 ;; esac
MERGES=${4:-200}
REPRODUCES=${5:-50}
. "$(dirname "$0")/../cli_lib.sh"
cli_setup sets "$1"
export SOURCE_DATE_EPOCH=1700000000
unset SRLAB_EXPERIMENTS SRLAB_REPRODUCE_EXE
# a sanitizer runtime must come first in a process; the shim after it is fine
export ASAN_OPTIONS="${ASAN_OPTIONS:+$ASAN_OPTIONS:}verify_asan_link_order=0"
SEED=28
same() { if cmp -s "$1" "$2"; then ok "$3"; else bad "$3 ($1 and $2 differ)"; fi; }
# temporaries left in the current folder (a set's, or any atomic output's)
temps() { ls -A | grep '\.tmp-' | tr '\n' ' '; }

# Two sweeps, A and B, each in two shards, and their merged sets (the references).
sw() { "$srlab" sweep --problem quad1d --strategy fp32,bf16-rn --seeds 2 --steps 40 --quiet "$@"; }
for s in A B; do
    lr=0.01
    [ $s = B ] && lr=0.02
    sw --lr $lr --shard 0/2 -o $s.0.csv && sw --lr $lr --shard 1/2 -o $s.1.csv &&
        sw --lr $lr -o whole$s.csv && "$srlab" merge $s.0.csv $s.1.csv -o ref$s.csv ||
        { echo "FAIL: the sweeps of the test"; exit 1; }
done

# state NAME [REF]: A or B (the three files are REF A's or REF B's, byte for byte; REF: ref),
# none, or mixed
state() {
    for s in A B; do
        if cmp -s "$1.csv" ${2:-ref}$s.csv && cmp -s "$1.runs.csv" ${2:-ref}$s.runs.csv &&
            cmp -s "$1.summary.csv" ${2:-ref}$s.summary.csv; then echo $s; return; fi
    done
    if [ ! -e "$1.csv" ] && [ ! -e "$1.runs.csv" ] && [ ! -e "$1.summary.csv" ]; then echo none
    else echo mixed; fi
}
# readers NAME: what a reader says of the set: ok (compare reads it), refused (exit 2 with the
# set message), or what else happened
readers() {
    "$srlab" compare "$1.runs.csv" --baseline fp32 >/dev/null 2>r.err
    rc=$?
    if [ $rc -eq 0 ]; then echo ok
    elif [ $rc -eq 2 ] && grep -q "are not one set" r.err; then echo refused
    else echo "compare exit $rc: $(head -c 200 r.err)"; fi
}
# recover NAME: a locked command that takes the lock and then fails (a shard missing): the lock
# holder's recovery alone
recover() { "$srlab" merge A.0.csv -o "$1.csv" >/dev/null 2>rec.err; }

# ---- 1. an output that is also an input ----
cp A.0.csv s0.csv && cp A.0.runs.csv s0.runs.csv && cp A.1.csv s1.csv && cp A.1.runs.csv s1.runs.csv
cksum s0.csv s0.runs.csv s1.csv s1.runs.csv >before.txt
"$srlab" merge s0.csv s1.csv -o s1 2>err.txt
rc=$?
[ $rc -eq 2 ] && grep -q "'s1.runs.csv' is the same file as the input 's1.runs.csv'" err.txt &&
    ok "merge -o s1, whose runs file is an input: exit 2, named" || bad "merge -o s1: exit $rc: $(cat err.txt)"
cksum s0.csv s0.runs.csv s1.csv s1.runs.csv | cmp -s - before.txt && [ ! -e s1 ] &&
    [ ! -e s1.summary.csv ] && [ ! -e s1.journal ] && [ -z "$(temps)" ] &&
    ok "  ... nothing replaced, created or left" || bad "  ... files changed: $(ls -A)"
"$srlab" merge s0.csv s1.csv -o ./s0.csv 2>err.txt
[ $? -eq 2 ] && grep -q "same file as the input" err.txt && cksum s0.csv s0.runs.csv s1.csv s1.runs.csv | cmp -s - before.txt &&
    ok "merge -o ./s0.csv (an input by another spelling): exit 2, nothing replaced" || bad "merge -o ./s0.csv: $(cat err.txt)"

for o in x.runs.csv x.summary.csv; do
    "$srlab" merge A.0.csv A.1.csv -o $o 2>err.txt
    [ $? -eq 2 ] && grep -q "names a runs or summary file: name the rows file" err.txt && [ ! -e $o ] &&
        ok "merge -o $o (a member of another set): exit 2" || bad "merge -o $o: $(cat err.txt)"
done
sw --lr 0.01 -o y.runs.csv 2>err.txt
[ $? -eq 2 ] && grep -q "names a runs or summary file" err.txt && [ ! -e y.runs.csv ] &&
    ok "sweep -o y.runs.csv: exit 2" || bad "sweep -o y.runs.csv: $(cat err.txt)"

# ---- 2. stamps ----
stamp() { grep '^# set: ' "$1"; }
[ -n "$(stamp refA.csv)" ] && [ "$(stamp refA.csv)" = "$(stamp refA.runs.csv)" ] &&
    [ "$(stamp refA.csv)" = "$(stamp refA.summary.csv)" ] && [ "$(stamp refA.csv)" != "$(stamp refB.csv)" ] &&
    ok "one stamp in the three files of a set ($(stamp refA.csv)), another in another set" ||
    bad "stamps: $(stamp refA.csv) $(stamp refA.runs.csv) $(stamp refA.summary.csv) $(stamp refB.csv)"
same wholeA.csv refA.csv "a sweep's rows == the merge of its shards', stamp and all"
same wholeA.summary.csv refA.summary.csv "  ... and its summary"
[ "$(stamp A.0.csv)" = "$(stamp A.0.runs.csv)" ] && [ "$(stamp A.0.csv)" != "$(stamp A.1.csv)" ] &&
    ok "a shard is a set of its own" || bad "shard stamps: $(stamp A.0.csv) $(stamp A.0.runs.csv) $(stamp A.1.csv)"
cp refA.csv x.csv && cp refA.runs.csv x.runs.csv && cp refB.summary.csv x.summary.csv
"$srlab" compare x.runs.csv --baseline fp32 >/dev/null 2>err.txt
[ $? -eq 2 ] && grep -q "'x.runs.csv' and 'x.summary.csv' are not one set" err.txt &&
    grep -q "written by different commands" err.txt &&
    ok "compare refuses a runs file whose summary is another set's, naming both" || bad "compare: $(cat err.txt)"
"$srlab" plot lr_sweep --in x.summary.csv -o x.png 2>err.txt
[ $? -eq 2 ] && grep -q "'x.summary.csv' and 'x.runs.csv' are not one set" err.txt && [ ! -e x.png ] &&
    ok "plot refuses it too" || bad "plot: $(cat err.txt)"
cp A.1.runs.csv y.runs.csv && cp A.0.csv y.csv
"$srlab" merge y.csv A.1.csv -o ym.csv 2>err.txt
[ $? -eq 2 ] && grep -q "'y.csv' and 'y.runs.csv' are not one set" err.txt && [ ! -e ym.csv ] &&
    ok "merge refuses a shard whose runs file is another shard's" || bad "merge: $(cat err.txt)"
touch x.commit
"$srlab" compare x.runs.csv --baseline fp32 >/dev/null 2>err.txt
grep -q "a commit into it was interrupted ('x.commit' is there); the next srlab sweep or merge that writes it completes the commit" err.txt &&
    ok "  ... with a commit record beside it: the message says the next writer completes it" || bad "commit hint: $(cat err.txt)"
rm -f x.commit
grep -v '^# set: ' refA.runs.csv >old.runs.csv && grep -v '^# set: ' refA.csv >old.csv
"$srlab" compare old.runs.csv --baseline fp32 >/dev/null 2>err.txt &&
    ok "files of an srlab before sets (no stamp anywhere) are read as before" || bad "no stamps: $(cat err.txt)"

# ---- 3. every instant of a commit ----
# kill_at K NAME OLD CMD...: NAME holding set OLD, CMD killed by the shim at its K-th commit step;
# then NAME must be A, B, or mixed and refused by readers (else added to $worst); $rc is CMD's
# status (0: it ran to its end), $had_record whether it left NAME.commit
kill_at() {
    k=$1 name=$2 old=$3
    shift 3
    rm -f "$name".* && cp ref$old.csv "$name".csv && cp ref$old.runs.csv "$name".runs.csv &&
        cp ref$old.summary.csv "$name".summary.csv
    SRL_SHIM_KILL=$k LD_PRELOAD=$SHIM "$@" >/dev/null 2>&1
    rc=$?
    st=$(state "$name")
    rd=$(readers "$name")
    had_record=0
    [ -e "$name".commit ] && had_record=1
    case $st:$rd in A:ok | B:ok | mixed:refused) ;; *) worst="$worst [kill at step $k: $st, readers $rd]" ;; esac
}
# left_behind NAME: what recovery must not leave
left_behind() {
    [ -e "$1".commit ] || [ -e "$1".journal ] || [ -n "$(temps)" ] &&
        worst="$worst [step $k: left $(ls -A "$1".* ."$1".* 2>/dev/null | tr '\n' ' ')]"
}
# A merge of B into an output holding A, killed at step k = 1, 2, ... until it runs to its end;
# after recovery: A or B, and B when the commit record was left.
k=0
worst=""
while :; do
    kill_at $((k + 1)) m A "$srlab" merge B.0.csv B.1.csv -o m.csv
    recover m
    st2=$(state m)
    [ $had_record -eq 1 ] && [ "$st2" != B ] && worst="$worst [step $k: record left, recovered to $st2]"
    case $st2 in A | B) ;; *) worst="$worst [step $k: after recovery $st2: $(cat rec.err)]" ;; esac
    left_behind m
    [ $rc -eq 0 ] && break
    [ $k -gt 60 ] && { worst="$worst [no end after 60 steps]"; break; }
done
[ -z "$worst" ] && ok "merge killed at each of its $((k - 1)) commit steps: wholly old or new or refused; recovered" ||
    bad "merge killed at commit steps:$worst"
[ "$(state m)" = B ] && ok "  ... and the merge that was not killed wrote the new set" || bad "final state $(state m)"

# The same for a sweep (A into an output holding B): killed at each step of writing its journal
# and its set, then --resume: the uninterrupted sweep's bytes.
k=0
worst=""
while :; do
    kill_at $((k + 1)) w B "$srlab" sweep --problem quad1d --strategy fp32,bf16-rn --seeds 2 \
        --steps 40 --lr 0.01 --quiet -o w.csv
    sw --lr 0.01 --resume -o w.csv 2>rec.err
    [ "$(state w)" = A ] || worst="$worst [step $k: --resume gave $(state w): $(cat rec.err)]"
    left_behind w
    [ $rc -eq 0 ] && break
    [ $k -gt 80 ] && { worst="$worst [no end after 80 steps]"; break; }
done
[ -z "$worst" ] && ok "sweep killed at each of its $((k - 1)) journal and commit steps: --resume gives the uninterrupted bytes" ||
    bad "sweep killed at steps:$worst"

# ---- 4. kill -9 at random instants ----
# dur CMD...: its wall time in microseconds
dur() {
    t0=$(date +%s%N)
    "$@" >/dev/null 2>&1
    t1=$(date +%s%N)
    echo $(((t1 - t0) / 1000))
}
d=$(dur "$srlab" merge B.0.csv B.1.csv -o probe.csv)
d2=$(dur "$srlab" merge A.0.csv A.1.csv -o probe.csv)
[ "$d2" -gt "$d" ] && d=$d2
delays=$(awk -v n="$MERGES" -v seed=$SEED -v d="$d" 'BEGIN { srand(seed); for (i = 0; i < n; i++) printf "%d ", rand() * 1.5 * d }')
rm -f m.*
prev=none
i=0
worst=""
killed=0
refused=0
for us in $delays; do
    i=$((i + 1))
    target=A
    [ $((i % 2)) -eq 0 ] && target=B
    got=$("$KILL" "$us" "$srlab" merge $target.0.csv $target.1.csv -o m.csv 2>/dev/null)
    [ "$got" = killed ] && killed=$((killed + 1))
    st=$(state m)
    rd=ok
    [ "$st" = none ] || rd=$(readers m)
    case $st:$rd in none:ok | A:ok | B:ok) ;; mixed:refused) refused=$((refused + 1)) ;;
    *) worst="$worst [merge $i (to $target, kill after $us us): $st, readers $rd]" ;; esac
    had_record=0
    [ -e m.commit ] && had_record=1
    if [ "$st" = mixed ] || [ $had_record -eq 1 ]; then
        recover m
        st=$(state m)
        case $st in "$prev" | "$target") ;; *) worst="$worst [merge $i: recovered to $st]" ;; esac
        [ $had_record -eq 1 ] && [ "$st" != "$target" ] && worst="$worst [merge $i: record left, recovered to $st]"
    fi
    case $st in "$prev" | "$target") ;; *) worst="$worst [merge $i: $st after $prev, target $target]" ;; esac
    prev=$st
done
[ -z "$worst" ] && ok "$MERGES merges killed at random instants ($killed killed, $refused left mixed and refused, then recovered; seed $SEED, up to $((d * 3 / 2)) us): never a mixed set accepted" ||
    bad "random kills of merges (seed $SEED):$worst"

# Tiny reproductions: one experiment of 4 short runs, no figure, no checks; two dates, so that the
# sets of consecutive reproductions differ (a resumed sweep keeps its journal's).
if command -v gnuplot >/dev/null 2>&1; then
    mkdir specs
    printf '# A tiny experiment (tests/sweep/sets.sh).\ncommand = train\nproblem = quad1d\nstrategy = fp32, bf16-rn\nlr = 0.01\nsteps = 40\nseeds = 2\n' >specs/tiny.ini
    rp() { SRLAB_EXPERIMENTS=$PWD/specs "$srlab" reproduce --checks none --threads 1 --force "$@"; }
    for s in A B; do
        e=1700000000
        [ $s = B ] && e=1800000000
        SOURCE_DATE_EPOCH=$e rp -o rep$s >/dev/null 2>&1 || bad "reproduce $s: $(tail -3 rep$s/logs/*.log)"
        for f in csv runs.csv summary.csv; do cp rep$s/tiny.$f rr$s.$f; done
    done
    d=$(dur rp -o probe)
    delays=$(awk -v n="$REPRODUCES" -v seed=$SEED -v d="$d" 'BEGIN { srand(seed + 1); for (i = 0; i < n; i++) printf "%d ", rand() * 1.2 * d }')
    mkdir R
    prev=none
    i=0
    worst=""
    killed=0
    for us in $delays; do
        i=$((i + 1))
        e=1700000000
        [ $((i % 2)) -eq 0 ] && e=1800000000
        got=$(SOURCE_DATE_EPOCH=$e "$KILL" "$us" sh -c 'SRLAB_EXPERIMENTS=$1/specs exec "$2" reproduce --checks none --threads 1 --force -o R' sh "$PWD" "$srlab" 2>/dev/null)
        [ "$got" = killed ] && killed=$((killed + 1))
        st=$(state R/tiny rr)
        rd=ok
        [ "$st" = none ] || rd=$(readers R/tiny)
        case $st:$rd in none:ok | A:ok | B:ok | mixed:refused) ;; *) worst="$worst [reproduce $i (kill after $us us): $st, readers $rd]" ;; esac
        if [ "$st" = mixed ] || [ -e R/tiny.commit ]; then
            recover R/tiny
            st=$(state R/tiny rr)
            case $st in A | B) ;; *) worst="$worst [reproduce $i: recovered to $st: $(cat rec.err)]" ;; esac
        fi
        [ "$st" = none ] && [ "$prev" != none ] && worst="$worst [reproduce $i: the set of an earlier one was removed]"
        prev=$st
    done
    SOURCE_DATE_EPOCH=1700000000 rp -o R >/dev/null 2>err.txt
    rc=$?
    [ -z "$worst" ] && [ $rc -eq 0 ] && { [ "$(state R/tiny rr)" = A ] || [ "$(state R/tiny rr)" = B ]; } &&
        [ ! -e R/tiny.journal ] && [ ! -e R/reproduce.lock ] && [ -z "$(cd R && temps)" ] &&
        ok "$REPRODUCES reproductions killed at random instants ($killed killed; seed $SEED, up to $((d * 6 / 5)) us): a whole set or none, never a mixed one accepted; the next one completes" ||
        bad "random kills of reproduce (seed $SEED):$worst; last exit $rc: $(cat err.txt); left: $(ls -A R)"
else
    echo "SKIP: the reproductions (gnuplot is not installed; reproduce needs it)"
fi

# ---- 5. two merges at once into one output ----
mixed=0
both=0
in_use=0
for t in $(seq 1 30); do
    rm -f c.*
    "$srlab" merge A.0.csv A.1.csv -o c.csv 2>ca.err &
    pa=$!
    "$srlab" merge B.0.csv B.1.csv -o c.csv 2>cb.err &
    pb=$!
    wait $pa
    ra=$?
    wait $pb
    rb=$?
    st=$(state c)
    case $st in A | B) ;; *) mixed=$((mixed + 1)) ;; esac
    [ $ra -eq 0 ] && [ $rb -eq 0 ] && both=$((both + 1))
    for r in "$ra:ca.err" "$rb:cb.err"; do
        case ${r%%:*} in 0) ;; 2) grep -q "is in use: another srlab sweep or merge" "${r#*:}" && in_use=$((in_use + 1)) || mixed=$((mixed + 100)) ;;
        *) mixed=$((mixed + 100)) ;; esac
    done
done
[ $mixed -eq 0 ] && ok "two merges at once, 30 times: never a mixed set ($in_use refused as in use, $both times both ran one after the other)" ||
    bad "concurrent merges: $mixed bad outcomes ($(cat ca.err cb.err))"

# The one lock, held by another process (flock(1) takes the same flock): a merge, a sweep and a
# reproduction into a locked output are refused at once, exit 2, and change nothing.
if command -v flock >/dev/null 2>&1; then
    rm -f L.* && cp refA.csv L.csv && cp refA.runs.csv L.runs.csv && cp refA.summary.csv L.summary.csv
    : >L.journal
    flock L.journal sleep 30 &
    holder=$!
    sleep 0.3
    "$srlab" merge B.0.csv B.1.csv -o L.csv 2>err.txt
    r1=$?
    m1=$(cat err.txt)
    sw --lr 0.02 -o L.csv 2>err.txt
    r2=$?
    m2=$(cat err.txt)
    kill $holder 2>/dev/null
    wait $holder 2>/dev/null
    [ $r1 -eq 2 ] && [ $r2 -eq 2 ] && echo "$m1 $m2" | grep -q "'L.journal' is in use: another srlab sweep or merge" &&
        [ "$(state L)" = A ] && ok "a merge and a sweep into a locked set: exit 2 at once, the set untouched" ||
        bad "locked set: merge $r1 ($m1), sweep $r2 ($m2), state $(state L)"
    if command -v gnuplot >/dev/null 2>&1; then
        mkdir -p RL && : >RL/reproduce.lock
        flock RL/reproduce.lock sleep 30 &
        holder=$!
        sleep 0.3
        SRLAB_EXPERIMENTS=$PWD/specs "$srlab" reproduce --checks none --force -o RL >/dev/null 2>err.txt
        r3=$?
        kill $holder 2>/dev/null
        wait $holder 2>/dev/null
        [ $r3 -eq 2 ] && grep -q "'RL/reproduce.lock' is in use: another srlab reproduce" err.txt &&
            [ "$(ls -A RL)" = reproduce.lock ] && ok "a reproduction into a locked folder: exit 2 at once, nothing written" ||
            bad "locked folder: exit $r3: $(cat err.txt); $(ls -A RL)"
    fi
fi

exit $fail
