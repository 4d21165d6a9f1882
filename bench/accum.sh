#!/bin/sh
# bench/accum.sh: srlab's emulated-accumulation matrix products (bf16 and e4m3 products, rz, rn
# and sr accumulators, a 14-bit accumulator promoted to binary32 every 128 products) beside its
# own binary32 product in one process (issue 33, item 2), optionally beside another build
# (bench/accum_driver.c says how it measures).
#
# Usage: bench/accum.sh [--build DIR] [--sizes "512"] [--threads "1 2"] [--reps R] [--against DIR]
#   --build DIR    srlab's meson build directory (default: build, next to this script's parent)
#   --against DIR  another build directory (an older commit built in a git worktree, say): its
#                  libsrlab.so is loaded into the same process and runs every config after or
#                  before this build's in turn; the table gains its rate, this build's over it,
#                  and whether its output is this build's bytes (a NO makes the exit status 1)
#   --sizes LIST, --threads LIST, --reps R   n of the n x n x n products, thread counts, repeats
#   SRL_BENCH_SCHED=fifo|other  the driver under SCHED_FIFO priority 1 or the normal policy
#                  (bench/args.sh's `timed`; default other)
# The driver is compiled in a temporary directory outside the repository (removed at the end)
# with srlab's own flags (-std=c11 -ffp-contract=off, plus $CFLAGS) and linked to the build's
# static libsrlab. Prints one markdown table.
# Exit status: 2 for a bad argument (the message names it), 1 if the build, a run or a
# comparison fails.
set -eu

here=$(cd "$(dirname "$0")" && pwd)
root=$(dirname "$here")
build="$root/build" sizes=512 reps=7 threads="1 2" against=
# shellcheck disable=SC2034 # me: read by args.sh
me=accum.sh
# shellcheck source=bench/args.sh
. "$here/args.sh"
while [ $# -gt 0 ]; do
    [ $# -ge 2 ] || bad "'$1' needs a value"
    case "$1" in
    --build) build=$2 ;;
    --sizes) sizes=$2 ;;
    --reps) reps=$2 ;;
    --threads) threads=$2 ;;
    --against) against=$2 ;;
    *) bad "unknown option '$1'" ;;
    esac
    shift 2
done
posint --reps "$reps" 1
[ "$reps" -le 101 ] || bad "--reps '$reps': at most 101"
# shellcheck disable=SC2086
[ "$(nwords $threads)" -gt 0 ] || bad "--threads: empty list"
for t in $threads; do posint --threads "$t" 1; done
# shellcheck disable=SC2086
[ "$(nwords $sizes)" -gt 0 ] || bad "--sizes: empty list"
for s in $sizes; do posint --sizes "$s" 1; done
[ -f "$build/src/libsrlab.a" ] || bad "--build '$build': no src/libsrlab.a there (build srlab first)"
if [ -n "$against" ]; then
    [ -f "$against/src/libsrlab.so" ] || bad "--against '$against': no src/libsrlab.so there"
    against=$(cd "$against" && pwd)/src/libsrlab.so
fi

tmp=$(mktemp -d "${TMPDIR:-/tmp}/srlab-accum.XXXXXX")
trap 'rm -rf "$tmp"' EXIT INT TERM
cc=${CC:-cc}
sched_check
libs=$(srlab_libs "$build") || exit 2
# shellcheck disable=SC2086 # CFLAGS: words on purpose (a sanitizer build's -fsanitize=...)
"$cc" -O2 -std=c11 -ffp-contract=off -fopenmp ${CFLAGS:-} -I"$root/src" -I"$root/include" -I"$build" \
    -o "$tmp/accum_driver" "$here/accum_driver.c" \
    "$build/src/libsrlab.a" $libs -ldl || { echo "accum.sh: building the driver failed" >&2; exit 1; }
echo "# load before: $(uptime | sed 's/.*load/load/'); scheduling: ${SRL_BENCH_SCHED:-other}"
timed "$tmp/accum_driver" --sizes "$sizes" --threads "$threads" --reps "$reps" ${against:+--against "$against"}
