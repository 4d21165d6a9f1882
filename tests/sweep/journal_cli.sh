#!/bin/sh
# tests/sweep/journal_cli.sh SRLAB SWEEP_TESTCLI: the journal of srlab sweep under damage and
# contention (issue 12), driven from the outside with the toy runners of toy_runner.h (runs of a
# controlled length; the same command code as srlab sweep):
#   item 9   one flipped digit in the middle of the journal drops that record only: --resume
#            reruns that one run, says exactly which record it dropped and why, and the files
#            equal those of an uninterrupted sweep
#   item 10  the journal is locked: a second sweep on the same output, --resume or not, is
#            refused at once (exit 2, "in use") while the first runs, which finishes unharmed
case $2 in /*) TOY=$2 ;; *) TOY=$PWD/$2 ;; esac
. "$(dirname "$0")/../cli_lib.sh"
cli_setup journal "$1"
export SOURCE_DATE_EPOCH=1700000000
same() { if cmp -s "$1" "$2"; then ok "$3"; else bad "$3 ($1 and $2 differ)"; fi; }
records() { n=$(grep -c '^@run ' "$1" 2>/dev/null); echo "${n:-0}"; }
wait_records() { # wait_records JOURNAL N: until it holds N records (at most 10 s)
    for _ in $(seq 1 1000); do
        [ "$(records "$1")" -ge "$2" ] && return
        sleep 0.01
    done
}
"$srlab" --version >/dev/null || exit 99

toy="--problem toy --lr 0.05,0.1,0.2,0.4 --noise 0.1 --seeds 5 --steps 40 --sleep-ms 20"
# shellcheck disable=SC2086
"$TOY" sweep $toy --threads 2 --quiet -o ref.csv || { echo "toy reference failed"; exit 1; }

# ---- item 9: a flipped digit in the middle of the journal ----
# kill -9 with several runs in the journal, then cut the (maybe torn) last record away
# shellcheck disable=SC2086
"$TOY" sweep $toy --threads 1 -o k.csv 2>/dev/null &
pid=$!
wait_records k.journal 6
kill -9 $pid 2>/dev/null
wait $pid 2>/dev/null
last=$(grep -n '^@run ' k.journal | tail -1 | cut -d: -f1)
head -n $((last - 1)) k.journal >cut.journal && mv cut.journal k.journal
n=$(records k.journal)
[ "$n" -ge 5 ] && ok "$n complete records in the journal" || bad "only ${n:-0} records"
# the second record: its '@run' line, and one digit of its first row changed to another
at=$(grep -n '^@run ' k.journal | sed -n 2p | cut -d: -f1)
run=$(sed -n "${at}p" k.journal | cut -d' ' -f2)
awk -v n=$((at + 1)) 'NR == n { if (match($0, /[0-9]/)) { d = substr($0, RSTART, 1);
    $0 = substr($0, 1, RSTART - 1) ((d + 1) % 10) substr($0, RSTART + 1) } } { print }' \
    k.journal >flip.journal && mv flip.journal k.journal
# shellcheck disable=SC2086
"$TOY" sweep $toy --dry-run --resume -o k.csv >dry.txt 2>/dev/null
grep -q "^# to run: $((20 - n + 1)) of 20" dry.txt && grep -q "^$run," dry.txt &&
    ok "only the damaged record's run $run is to run again ($((20 - n + 1)) of 20)" ||
    bad "to run: $(grep '^# to run' dry.txt), run $run listed: $(grep -c "^$run," dry.txt)"
# shellcheck disable=SC2086
"$TOY" sweep $toy --resume --threads 1 -o k.csv 2>err.txt || bad "resume: $(cat err.txt)"
want="srlab sweep: 'k.journal': dropped the record of run $run at line $at"
if [ "$(grep -c dropped err.txt)" -eq 1 ] && grep -qF "$want" err.txt &&
    grep -q "its checksum does not match its contents; that run runs again" err.txt; then
    ok "the message names the record (run $run, line $at) and why"
else
    bad "message: $(cat err.txt)"
fi
same k.csv ref.csv "resumed == uninterrupted (rows)"
same k.runs.csv ref.runs.csv "resumed == uninterrupted (runs)"
same k.summary.csv ref.summary.csv "resumed == uninterrupted (summary)"
[ ! -e k.journal ] && ok "journal removed" || bad "journal left"

# ---- item 10: a second sweep on the same output while the first runs ----
# shellcheck disable=SC2086
"$TOY" sweep $toy --threads 1 --quiet -o l.csv 2>first.txt &
pid=$!
wait_records l.journal 1
for extra in --resume ""; do
    t0=$(date +%s)
    # shellcheck disable=SC2086
    "$TOY" sweep $toy --threads 1 $extra -o l.csv >out.txt 2>err.txt
    rc=$? t1=$(date +%s)
    if [ $rc -eq 2 ] && grep -q "'l.journal' is in use: another srlab sweep or merge is writing this output" err.txt &&
        [ $((t1 - t0)) -le 2 ] && [ ! -s out.txt ]; then
        ok "second sweep ${extra:-without --resume} refused at once (exit 2, 'in use')"
    else
        bad "second sweep $extra: exit $rc in $((t1 - t0)) s: $(cat err.txt)"
    fi
done
kill -0 $pid 2>/dev/null && ok "the first sweep still runs" || bad "the first sweep ended early"
wait $pid
rc=$?
[ $rc -eq 0 ] && ok "the first sweep finished (exit 0)" || bad "first: exit $rc: $(cat first.txt)"
same l.csv ref.csv "... and its rows are the uninterrupted ones"
[ ! -e l.journal ] && ok "its journal removed" || bad "l.journal left"
# a sweep refused for its input leaves no journal behind (the lock creates it, the refusal removes it)
# shellcheck disable=SC2086
"$TOY" sweep $toy --threads 0 -o m.csv 2>/dev/null
"$TOY" sweep --problem toy --lr 0.1 --nosuch 1 -o m.csv 2>/dev/null
[ ! -e m.journal ] && ok "refused sweeps leave no journal" || bad "m.journal left"
exit $fail
