#!/bin/sh
# tests/core/determinism.sh NOOMP_EXE OMP_EXE: the bulk-rounding digest of the OpenMP-free build
# must equal the OpenMP build's at OMP_NUM_THREADS=1, 2, 3 and 8 (tests/core/test_determinism.c).
# Prints every digest; exits non-zero unless all agree.
set -u
if [ $# -ne 2 ]; then
    echo "usage: $0 NOOMP_EXE OMP_EXE" >&2
    exit 2
fi
ref=$("$1" --digest) || { echo "FAIL: $1 --digest exited with status $?"; exit 1; }
if [ -z "$ref" ]; then
    echo "FAIL: $1 printed no digest"
    exit 1
fi
echo "OpenMP off:          $ref"
status=0
for t in 1 2 3 8; do
    d=$(OMP_DYNAMIC=false OMP_NUM_THREADS=$t "$2" --digest) ||
        { echo "FAIL: $2 --digest at $t threads exited with status $?"; exit 1; }
    echo "OpenMP, $t thread(s): $d"
    if [ "$d" != "$ref" ]; then
        echo "FAIL: the digest at $t thread(s) differs from the OpenMP-free build's"
        status=1
    fi
done
[ $status -eq 0 ] && echo "PASS: all digests agree"
exit $status
