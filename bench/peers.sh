#!/bin/sh
# bench/peers.sh: srlab's bulk rounding beside CPFloat's on this machine, in one run (issue 16).
#
# Usage: bench/peers.sh --cpfloat DIR [--pcg DIR] [--llmc DIR] [--build DIR]
#                       [--n N] [--reps R] [--threads "1 2"] [--dist "normal uniform"]
#   --cpfloat DIR  a CPFloat checkout you provide (its header-only interface, DIR/src, is used)
#   --pcg DIR      a pcg-c checkout: CPFloat then draws with pcg64 / pcg32 as it does when
#                  built with pcg-c (without it, CPFloat falls back to the C library's rand)
#   --llmc DIR     an llm.c checkout: its rows are not produced yet (train_gpt2.c reads a GPT-2
#                  checkpoint, tokenizer and token files at fixed paths and fixes B and T in
#                  main); the script says so and runs the CPFloat part
#   --build DIR    srlab's meson build directory (default: build, next to this script's parent)
# Nothing is vendored, downloaded or linked into srlab: the peers and bench/peers_driver.c (our
# own driver) are compiled in a temporary directory outside the repository, which is removed at
# the end. CPFloat and the driver are compiled as the issue measured CPFloat: -O3 -march=native
# -fopenmp. Prints one markdown table per (thread count, input distribution).
set -eu

here=$(cd "$(dirname "$0")" && pwd)
root=$(dirname "$here")
cpfloat= pcg= llmc= build="$root/build" n=10000000 reps=15 threads="1 2" dists="normal uniform"
usage() { echo "usage: $0 --cpfloat DIR [--pcg DIR] [--llmc DIR] [--build DIR] [--n N] [--reps R] [--threads LIST] [--dist LIST]" >&2; exit 2; }
while [ $# -gt 0 ]; do
    [ $# -ge 2 ] || { echo "peers.sh: '$1' needs a value" >&2; usage; }
    case "$1" in
    --cpfloat) cpfloat=$2 ;;
    --pcg) pcg=$2 ;;
    --llmc) llmc=$2 ;;
    --build) build=$2 ;;
    --n) n=$2 ;;
    --reps) reps=$2 ;;
    --threads) threads=$2 ;;
    --dist) dists=$2 ;;
    *) echo "peers.sh: unknown argument '$1'" >&2; usage ;;
    esac
    shift 2
done
[ -n "$cpfloat" ] || { echo "peers.sh: --cpfloat DIR is required" >&2; usage; }
[ -f "$cpfloat/src/cpfloat_binary64.h" ] || { echo "peers.sh: --cpfloat '$cpfloat': no src/cpfloat_binary64.h there" >&2; exit 2; }
[ -z "$pcg" ] || [ -f "$pcg/include/pcg_variants.h" ] || { echo "peers.sh: --pcg '$pcg': no include/pcg_variants.h there" >&2; exit 2; }
[ -f "$build/src/libsrlab.so" ] || { echo "peers.sh: --build '$build': no src/libsrlab.so (run meson compile first)" >&2; exit 2; }
cpfloat=$(cd "$cpfloat" && pwd)
build=$(cd "$build" && pwd)

tmp=$(mktemp -d "${TMPDIR:-/tmp}/srlab-peers.XXXXXX")
trap 'rm -rf "$tmp"' EXIT INT TERM
cc=${CC:-cc}
pcgflags=
if [ -n "$pcg" ]; then
    cp -r "$pcg" "$tmp/pcg-c"
    make -s -C "$tmp/pcg-c/src" libpcg_random.a >/dev/null
    pcgflags="-I$tmp/pcg-c/include -include pcg_variants.h"
fi
# shellcheck disable=SC2086
"$cc" -O3 -march=native -fopenmp -std=gnu11 -w -I"$cpfloat/src" -I"$root/include" $pcgflags \
    -o "$tmp/peers_driver" "$here/peers_driver.c" \
    ${pcg:+"$tmp/pcg-c/src/libpcg_random.a"} -L"$build/src" -Wl,-rpath,"$build/src" -lsrlab -lm

echo "# $(uname -m), $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ //'), $(nproc) cores; CPFloat $(git -C "$cpfloat" rev-parse --short HEAD 2>/dev/null || echo '(not a git checkout)'), pcg-c: ${pcg:-none}"
for t in $threads; do
    for d in $dists; do
        echo "# load before: $(uptime | sed 's/.*load average/load average/')"
        OMP_NUM_THREADS=$t "$tmp/peers_driver" --n "$n" --reps "$reps" --threads "$t" --dist "$d"
    done
done
if [ -n "$llmc" ]; then
    echo "# llm.c ($llmc): GPT ms/step rows not produced by this script yet: train_gpt2.c reads"
    echo "# gpt2_124M.bin, gpt2_tokenizer.bin and dev/data token files at fixed paths and fixes"
    echo "# B = 4, T = 64 in main(); see BENCHMARKS.md (Side by side with CPFloat)."
fi
