#!/bin/sh
# bench/levels.sh: srlab's bulk rounding at each instruction-set level this CPU has, in one run
# (issue 16): baseline x86-64, x86-64-v3, x86-64-v4 and x86-64-v4 with AVX-512 IFMA (the pcg64
# lanes' 52-bit multiply-adds), beside memcpy of the input's bytes and the same copy with
# streaming stores (issue 33 item 6's reference for arrays beyond the caches;
# bench/levels_driver.c). Arrays of 16 MiB or more are evicted from the caches before each
# contender (untimed), so that every one starts from memory, whatever ran before it.
#
# Usage: bench/levels.sh [--build DIR] [--n N] [--reps R] [--threads "1 2"] [--dist "normal uniform"]
#                        [--against DIR] [--only TEXT]
#   --build DIR    srlab's meson build directory (default: build, next to this script's parent)
#   --against DIR  another build directory (say, an older commit built in a git worktree): its
#                  libsrlab is loaded into the same process and runs every case too, after this
#                  build's levels in every repeat; the table gains its rate, this build's top
#                  level over it, and its output must be the baseline's bytes as well (a change
#                  of speed that keeps the bits, measured in one process)
#   --only TEXT    only the cases whose name contains TEXT (say ', binary32' or 'e4m3 rn')
#   --n N, --reps R, --dist LIST   values per case, repeats, input distributions
#   --threads LIST thread counts (OMP_NUM_THREADS; default "1")
#   SRL_BENCH_SCHED=fifo|other  the driver under SCHED_FIFO priority 1 or the normal policy
#                  (bench/args.sh's `timed`; default other)
# The driver is compiled in a temporary directory outside the repository (removed at the end)
# with srlab's own flags (-std=c11 -ffp-contract=off, plus $CFLAGS: a sanitizer build's
# -fsanitize=...) and linked to the build's libsrlab. Prints
# one markdown table per (thread count, distribution); a level whose output differs from the
# baseline's in any byte makes the "same" column say NO and the exit status 1.
# Exit status: 2 for a bad argument (the message names it), 1 if the build, a run or a
# comparison fails.
set -eu

here=$(cd "$(dirname "$0")" && pwd)
root=$(dirname "$here")
build="$root/build" n=10000000 reps=9 threads=1 dists="normal uniform" against= only=
me=levels.sh
# shellcheck source=bench/args.sh
. "$here/args.sh"
while [ $# -gt 0 ]; do
    [ $# -ge 2 ] || bad "'$1' needs a value"
    case "$1" in
    --build) build=$2 ;;
    --n) n=$2 ;;
    --reps) reps=$2 ;;
    --threads) threads=$2 ;;
    --dist) dists=$2 ;;
    --against) against=$2 ;;
    --only) only=$2 ;;
    *) bad "unknown option '$1'" ;;
    esac
    shift 2
done
posint --n "$n" 1
posint --reps "$reps" 1
# shellcheck disable=SC2086
[ "$(nwords $threads)" -gt 0 ] || bad "--threads: empty list"
for t in $threads; do posint --threads "$t" 1; done
oneof --dist "$dists" normal uniform
[ -f "$build/src/libsrlab.a" ] || bad "--build '$build': no src/libsrlab.a there (build srlab first)"
if [ -n "$against" ]; then
    [ -f "$against/src/libsrlab.so" ] || bad "--against '$against': no src/libsrlab.so there"
    against=$(cd "$against" && pwd)/src/libsrlab.so
fi

tmp=$(mktemp -d "${TMPDIR:-/tmp}/srlab-levels.XXXXXX")
trap 'rm -rf "$tmp"' EXIT INT TERM
cc=${CC:-cc}
sched_check
libs=$(srlab_libs "$build") || exit 2
# shellcheck disable=SC2086 # CFLAGS: words on purpose (a sanitizer build's -fsanitize=...)
"$cc" -O2 -std=c11 -ffp-contract=off -fopenmp ${CFLAGS:-} -I"$root/src" -I"$root/include" -I"$build" \
    -o "$tmp/levels_driver" "$here/levels_driver.c" \
    "$build/src/libsrlab.a" $libs -ldl || { echo "levels.sh: building the driver failed" >&2; exit 1; }
status=0
for t in $threads; do
    for d in $dists; do
        echo "# load before: $(uptime | sed 's/.*load/load/'); scheduling: ${SRL_BENCH_SCHED:-other}"
        timed env OMP_NUM_THREADS="$t" "$tmp/levels_driver" --n "$n" --reps "$reps" --dist "$d" \
            ${against:+--against "$against"} ${only:+--only "$only"} || {
            rc=$?
            [ $rc -ne 2 ] || exit 2 # (a bad --only: the driver's message names it)
            status=1
        }
    done
done
exit $status
