#!/bin/sh
# tests/run/run_cli.sh SRLAB: properties of `srlab op` and `srlab run` that goldens cannot state.
#   determinism  run outputs (sum, matvec in both forms, harmonic; sr) and op batches are
#                byte-identical for OMP_NUM_THREADS = 1, 2, 3 and 8;
#   agreement    the op teaching view's result is line 0 of the batch with the same seed, and
#                `--seeds 3` is the three single-seed runs' blocks;
#   atomic -o    a run that fails (bad key, memory refused, bad batch line) leaves an existing
#                output file untouched, with no temporary file; a good one replaces it with
#                exactly what standard output receives;
#   memory       a size beyond the machine is refused before allocating: exit 2, one line
#                naming --n.
#   heat         the heat runner (theory T15): seeds give different sr errors, the same seed the
#                same bytes at any thread count; rn at m = 512 (stagnated) loses every update;
#                bad keys exit 2 naming the key.
set -u
srlab=$1
case $srlab in /*) ;; *) srlab=$PWD/$srlab ;; esac
work=$(mktemp -d "${TMPDIR:-/tmp}/srlab-run-cli.XXXXXX") || exit 99
trap 'rm -rf "$work"' EXIT HUP INT TERM
cd "$work" || exit 99
fail=0
pass() { echo "PASS $1"; }
flunk() { echo "FAIL $1"; fail=1; }
same() { # same NAME A B
    if cmp -s "$2" "$3"; then pass "$1"; else flunk "$1: $2 and $3 differ"; diff "$2" "$3" | head -5; fi
}

# ---- determinism across thread counts ----
for t in 1 2 3 8; do
    OMP_NUM_THREADS=$t "$srlab" run --problem sum -f fp16 -r sr --n 3000 --points 3 --seeds 2 >sum.$t 2>&1
    OMP_NUM_THREADS=$t "$srlab" run --problem sum -f bf16 -r sr --order pairwise --n 3000 --points 2 >sump.$t 2>&1
    OMP_NUM_THREADS=$t "$srlab" run --problem matvec -f bf16 -r sr --n 96 --points 2 >mva.$t 2>&1
    OMP_NUM_THREADS=$t "$srlab" run --problem matvec -f bf16 -r sr --form dot --order blocked:8 --n 96 --points 2 >mvd.$t 2>&1
    OMP_NUM_THREADS=$t "$srlab" run --problem harmonic -f bf16 -r sr --n 500 --points 2 >har.$t 2>&1
    OMP_NUM_THREADS=$t "$srlab" op div --batch -f fp16 -r sr --seed 3 --quiet <"$2/tests/run/input/op_add.txt" >opb.$t 2>&1
done
for t in 2 3 8; do
    for f in sum sump mva mvd har opb; do
        same "$f: 1 thread vs $t" $f.1 $f.$t
    done
done

# ---- agreement ----
for mode in sr sr-eq sr:r=3 rn; do
    "$srlab" op div 1 3 -f e5m2 -r "$mode" --seed 11 | awk '$1 == "result" { print $3 }' >view
    printf '1,3\n' | "$srlab" op div --batch -f e5m2 -r "$mode" --seed 11 --quiet |
        awk -F, 'NR == 2 { print $10 }' >batch
    same "op teaching view = batch line 0 ($mode)" view batch
done
"$srlab" run --problem harmonic -r sr --n 50 --points 1 --seed 4 --seeds 3 | grep -v '^#' >three
: >singles
for s in 4 5 6; do
    "$srlab" run --problem harmonic -r sr --n 50 --points 1 --seed $s | grep -v '^#' >one.$s
    if [ $s = 4 ]; then cat one.$s >>singles; else tail -n +2 one.$s >>singles; fi
done
same "--seeds 3 = three single-seed runs" three singles

# ---- atomic -o ----
echo "precious" >out.csv
cp out.csv keep.csv
"$srlab" run --problem sum --n 100 --frobnicate 1 -o out.csv 2>err; rc=$?
[ $rc = 2 ] && cmp -s out.csv keep.csv && pass "bad key: exit 2, out.csv untouched" || flunk "bad key (exit $rc)"
"$srlab" run --problem matvec --n 16000000 -o out.csv 2>err; rc=$?
[ $rc = 2 ] && cmp -s out.csv keep.csv && pass "memory refused: exit 2, out.csv untouched" || flunk "memory refused (exit $rc)"
if [ "$(wc -l <err)" = 1 ] && grep -q '^srlab run: --n: a 16000000-by-16000000 matrix would need .* of memory, more than half of this machine' err; then
    pass "memory refused: one line naming --n"
else
    flunk "memory refused: message"; cat err
fi
"$srlab" op add --batch -o out.csv <"$2/tests/run/input/op_arity.txt" 2>err; rc=$?
[ $rc = 2 ] && cmp -s out.csv keep.csv && pass "op batch error: exit 2, out.csv untouched" || flunk "op batch error (exit $rc)"
if ls -a | grep -q '\.tmp-'; then flunk "a temporary file was left behind"; ls -a; else pass "no temporary files left"; fi
"$srlab" run --problem harmonic --n 30 -o out.csv && "$srlab" run --problem harmonic --n 30 >stdout.csv
grep -v '^# command:' out.csv >out.body
grep -v '^# command:' stdout.csv >stdout.body
same "-o writes what standard output receives (but for the # command line)" out.body stdout.body
# ---- heat (src/problems/heat.c) ----
for t in 1 3; do
    OMP_NUM_THREADS=$t "$srlab" run --problem heat -f fp16 -r sr --m 32 --seeds 2 >heat.$t 2>&1
done
same "heat: 1 thread vs 3" heat.1 heat.3
col=$(grep -v '^#' heat.1 | head -1 | tr , '\n' | grep -n '^rms_err$' | cut -d: -f1)
[ "$(grep -v '^#' heat.1 | sed 1d | cut -d, -f"$col" | sort -u | wc -l)" = 2 ] \
    && pass "heat: two seeds, two different sr errors" || flunk "heat: seeds"
"$srlab" run --problem heat -f fp16 -r rn --m 512 >heatrn.csv 2>&1
col=$(grep -v '^#' heatrn.csv | head -1 | tr , '\n' | grep -n '^lost_frac$' | cut -d: -f1)
[ "$(grep -v '^#' heatrn.csv | sed 1d | cut -d, -f"$col")" = 1 ] \
    && pass "heat: rn at m = 512 loses every update (T15 item 1)" || flunk "heat: rn stagnation"
for bad in "--r 0.6" "--m 1" "--t -1"; do
    # shellcheck disable=SC2086
    "$srlab" run --problem heat $bad >out 2>err; rc=$?
    key=$(echo "$bad" | cut -c3-3)
    [ $rc = 2 ] && grep -q "^srlab run: --$key: " err && pass "heat: $bad refused naming $key" \
        || { flunk "heat: $bad (exit $rc)"; cat err; }
done

exit $fail
