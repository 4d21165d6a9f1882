#!/bin/sh
# tests/cli/determinism.sh SRLAB SRCDIR: `srlab round` output is a pure function of its input and
# seed: byte-identical across runs and OMP_NUM_THREADS values (batch CSV and --samples, which goes
# through the OpenMP bulk path), and the teaching view's i-th result is the batch's line i.
set -u
srlab=$1
case $srlab in /*) ;; *) srlab=$PWD/$srlab ;; esac
dir=$2/tests/cli
tmp=$(mktemp -d "${TMPDIR:-/tmp}/srlab-det.XXXXXX") || exit 99
trap 'rm -rf "$tmp"' EXIT HUP INT TERM
fail=0
check() { # check NAME FILE_A FILE_B
    if cmp -s "$2" "$3"; then
        echo "PASS $1"
    else
        echo "FAIL $1: $2 and $3 differ"
        diff "$2" "$3" | head -5
        fail=1
    fi
}

# 3000 varied inputs spanning many binades, both signs, written once.
awk 'BEGIN { for (i = 0; i < 3000; i++) printf "%.17g\n", (i % 2 ? -1 : 1) * (i * 0.7310585786300049 + 0.1) * 2 ^ (i % 300 - 150) }' \
    >"$tmp/in.txt"
cat "$dir/input/batch_mixed.txt" >>"$tmp/in.txt"

for rng in pcg32 pcg64; do
    for mode in sr sr-eq sr:r=16 rn; do
        for t in 1 2 3 8; do
            OMP_NUM_THREADS=$t "$srlab" round --batch -f bf16 -r "$mode" --rng "$rng" --seed 12345 \
                --quiet <"$tmp/in.txt" >"$tmp/out.$t" 2>"$tmp/err.$t" || { echo "FAIL: srlab exited $?"; cat "$tmp/err.$t"; fail=1; }
        done
        OMP_NUM_THREADS=8 "$srlab" round --batch -f bf16 -r "$mode" --rng "$rng" --seed 12345 \
            --quiet <"$tmp/in.txt" >"$tmp/out.again"
        for t in 2 3 8 again; do
            check "batch $rng $mode: 1 thread vs $t" "$tmp/out.1" "$tmp/out.$t"
        done
        lines=$(wc -l <"$tmp/out.1")
        if [ "$lines" -ne 3025 ]; then
            echo "FAIL batch $rng $mode: $lines lines, expected 3025 (header + 3024)"
            fail=1
        fi
    done
done

# --samples: 100000 roundings per input through srl_round_array (OpenMP above its threshold).
for t in 1 2 3 8; do
    OMP_NUM_THREADS=$t "$srlab" round 0.1 1.00390625 -3.3e38 -r sr --samples 100000 --seed 9 \
        >"$tmp/s.$t" 2>&1
done
for t in 2 3 8; do
    check "samples: 1 thread vs $t" "$tmp/s.1" "$tmp/s.$t"
done

# The teaching view of X number i uses draw i, as batch line i does: same results.
for mode in sr sr-eq sr:r=3; do
    "$srlab" round 0.1 1.00390625 -2.5e-3 7.7 -f e5m2 -r "$mode" --seed 5 |
        awk '$1 == "result" { print $3 }' >"$tmp/view"
    printf '0.1\n1.00390625\n-2.5e-3\n7.7\n' |
        "$srlab" round --batch -f e5m2 -r "$mode" --seed 5 --quiet |
        awk -F, 'NR > 1 { print $7 }' >"$tmp/batch"
    check "teaching view and batch agree ($mode)" "$tmp/view" "$tmp/batch"
done
exit $fail
