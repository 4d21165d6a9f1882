#!/bin/sh
# bench/peers.sh: srlab beside its peers on this machine, in one run (issues 16, 33): bulk
# rounding beside CPFloat, GPT training beside llm.c's CPU trainer, and the binary32 matrix
# product beside OpenBLAS.
#
# Usage: bench/peers.sh [--cpfloat DIR] [--pcg DIR] [--llmc DIR] [--openblas LIB] [--build DIR]
#                       [--n N] [--reps R] [--threads "1 2"] [--dist "normal uniform"]
#                       [--gpt-sizes "a b c"] [--gpt-steps S] [--gpt-rounds R]
#                       [--gpt-strategies "fp32 mp bf16-rn bf16-sr bf16-kahan"] [--isa v3|v4]
#                       [--blas-sizes "512 1024 2048"] [--blas-reps R]
#                       [--blas-cores "SkylakeX Cooperlake Haswell"]
#   --cpfloat DIR  a CPFloat checkout you provide (its header-only interface, DIR/src, is used)
#   --pcg DIR      a pcg-c checkout: CPFloat then draws with pcg64 / pcg32 as it does when
#                  built with pcg-c (without it, CPFloat falls back to the C library's rand)
#   --llmc DIR     an llm.c checkout you provide: its CPU trainer train_gpt2.c, built with the
#                  flags DIR/Makefile gives train_gpt2 here, runs beside `srlab train --problem
#                  gpt` on the same model sizes (bench/llmc_driver.c, bench/srlab_gpt_driver.c)
#   --openblas LIB the OpenBLAS library to time srlab's binary32 matrix product against
#                  (bench/blas_driver.c, which loads it with dlopen): a file (Debian's
#                  libopenblas-dev: /usr/lib/x86_64-linux-gnu/libopenblas.so), or `system` for
#                  the dynamic loader's libopenblas.so.0. n x n x n products, --threads' counts, one process per OpenBLAS
#                  kernel of --blas-cores (OPENBLAS_CORETYPE: on an AMD Zen 5, OpenBLAS 0.3.21
#                  picks an AVX2 kernel by default or when told Haswell, AVX-512 ones when told
#                  SkylakeX or Cooperlake), each timing both libraries in turn (--blas-reps
#                  repeats, default 9)
#   --build DIR    srlab's meson build directory (default: build, next to this script's parent)
#   --n N, --reps R, --dist LIST   bulk rounding: values per case, repeats, input distributions
#   --threads LIST thread counts (OMP_NUM_THREADS) of both parts (default "1 2")
#   --isa v3|v4    bulk rounding as on a machine of that x86-64 level: CPFloat and its driver
#                  built with -march=x86-64-v3 (or -v4) instead of -march=native, and srlab's
#                  kernels forced to that level's copy (default: native, and srlab's own choice)
#   --gpt-sizes LIST  GPT sizes, of a (2 layers, width 64, 2 heads, context 32, batch 16),
#                  b (3, 96, 4 heads, 64, 8), c (4, 256, 4 heads, 128, 8), all three of
#                  vocabulary 16; g, GPT-2's shapes at two layers (2, 768, 12 heads, 256, 4,
#                  vocabulary 50257), both programs training on the same token file in llm.c's
#                  format, which this script writes first (bench/token_file.c: 2^20 tokens,
#                  nothing downloaded); llm.c pads that vocabulary to 50304 as GPT-2 does
#   --gpt-steps S  optimizer steps per run, the first a warm-up (>= 2; default 5)
#   --gpt-rounds R runs of each contender per size and thread count (default 2)
#   --gpt-strategies LIST  srlab strategies timed (fp32 mp bf16-rn bf16-sr bf16-sr-exact
#                  bf16-kahan; default all but bf16-sr-exact)
#   --gpt-alternate N  also, in every round, one process per contender that takes N blocks of 3
#                  steps on each thread count in turn (bench/gpt_steps.h, GPT_ALTERNATE), and a
#                  column of its speedup: both counts then see the same machine (default 0: off)
# At least one of --cpfloat, --llmc and --openblas. Nothing is vendored, downloaded or linked into srlab:
# the peers and our drivers are compiled in a temporary directory outside the repository,
# which is removed at the end. CPFloat and its driver are compiled as the issue measured
# CPFloat: -O3 -march=native -fopenmp. Prints one markdown table per (thread count, input
# distribution) for CPFloat, and one table of GPT training for llm.c (see BENCHMARKS.md). The
# CPFloat tables also time a memcpy of the same bytes and the same copy with streaming stores:
# for arrays beyond the caches (the default 10^7 values) the latter is about the fastest any
# elementwise kernel moves those bytes, and its rate over CPFloat's ("ceiling") is the most any
# rounding kernel could gain on CPFloat on this machine (in the caches, ordinary stores win).
# Arrays of 16 MiB or more are evicted from the caches before each of the four (untimed), so
# that every one starts from memory, whatever ran before it.
# GPT timing: within a round the contenders run one after another (llm.c, then each strategy),
# and each contender's thread counts run back to back, so that a change of load, or of the
# machine (a VM's speed can change between processes by 20%), hits them alike; per step, CPU
# time of the process (all its threads) and wall time; the table gives medians over every
# timed step of every round, and the speedup over one thread paired by round: each round's
# median wall time at 1 thread over its median at T threads, the median of the rounds' ratios
# (their smallest and largest in brackets). Both
# programs use libgomp, whose idle threads spin by default: on a shared machine that spinning
# is most of the CPU time at 2 threads, so run there with OMP_WAIT_POLICY=passive (the header
# says which policy was in force). SRL_BENCH_SCHED=fifo runs every timed program under
# SCHED_FIFO priority 1 (bench/args.sh's `timed`; bench/benchmarks.sh sets it where it may: on
# a VM whose kernel wakes a sleeping thread on its waker's vCPU, two threads otherwise take
# turns on one), other (the default) under the normal policy; the headers say which.
# Exit status: 2 for a bad argument (the message names it), 1 if a build or run fails.
set -eu

here=$(cd "$(dirname "$0")" && pwd)
root=$(dirname "$here")
cpfloat='' pcg='' llmc='' build="$root/build" n=10000000 reps=15 threads="1 2" dists="normal uniform"
isa=''
sizes="a b c" gsteps=5 grounds=2 strategies="fp32 mp bf16-rn bf16-sr bf16-kahan" galt=0
openblas='' bsizes="512 1024 2048" breps=9 bcores="SkylakeX Cooperlake Haswell"
usage() {
    echo "usage: $0 [--cpfloat DIR] [--pcg DIR] [--llmc DIR] [--openblas LIB] [--build DIR] [--n N] [--reps R] [--threads LIST] [--dist LIST] [--gpt-sizes LIST] [--gpt-steps S] [--gpt-rounds R] [--gpt-strategies LIST] [--gpt-alternate N] [--isa v3|v4] [--blas-sizes LIST] [--blas-reps R] [--blas-cores LIST]" >&2
    exit 2
}
me=peers.sh
# shellcheck source=bench/args.sh
. "$here/args.sh"
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
    --gpt-sizes) sizes=$2 ;;
    --gpt-steps) gsteps=$2 ;;
    --gpt-rounds) grounds=$2 ;;
    --gpt-strategies) strategies=$2 ;;
    --gpt-alternate) galt=$2 ;;
    --isa) isa=$2 ;;
    --openblas) openblas=$2 ;;
    --blas-sizes) bsizes=$2 ;;
    --blas-reps) breps=$2 ;;
    --blas-cores) bcores=$2 ;;
    *) echo "peers.sh: unknown argument '$1'" >&2; usage ;;
    esac
    shift 2
done
posint --n "$n" 1
posint --reps "$reps" 1
posint --gpt-steps "$gsteps" 2
posint --gpt-rounds "$grounds" 1
posint --gpt-alternate "$galt" 0
# shellcheck disable=SC2086
[ "$(nwords $threads)" -gt 0 ] || bad "--threads: empty list"
for t in $threads; do posint --threads "$t" 1; done
oneof --dist "$dists" normal uniform
oneof --gpt-sizes "$sizes" a b c g
oneof --gpt-strategies "$strategies" fp32 mp bf16-rn bf16-sr bf16-sr-exact bf16-kahan
[ -z "$isa" ] || oneof --isa "$isa" v3 v4
[ -z "$isa" ] || [ -n "$cpfloat" ] || bad "--isa '$isa': only with --cpfloat"
[ "$galt" = 0 ] || [ -n "$llmc" ] || bad "--gpt-alternate '$galt': only with --llmc"
[ -n "$cpfloat$llmc$openblas" ] || { echo "peers.sh: give --cpfloat DIR, --llmc DIR or --openblas LIB" >&2; usage; }
posint --blas-reps "$breps" 1
[ "$breps" -le 101 ] || bad "--blas-reps '$breps': at most 101"
# shellcheck disable=SC2086
[ "$(nwords $bsizes)" -gt 0 ] || bad "--blas-sizes: empty list"
for b in $bsizes; do posint --blas-sizes "$b" 1; [ "$b" -le 100000 ] || bad "--blas-sizes '$b': at most 100000"; done
# shellcheck disable=SC2086
[ "$(nwords $bcores)" -gt 0 ] || bad "--blas-cores: empty list"
for b in $bcores; do case "$b" in *[!A-Za-z0-9]*) bad "--blas-cores '$b': not a core name" ;; esac; done
[ -z "$openblas" ] || [ "$openblas" = system ] || [ -f "$openblas" ] || bad "--openblas '$openblas': no such file (give the library, or 'system')"
[ -z "$cpfloat" ] || [ -f "$cpfloat/src/cpfloat_binary64.h" ] || bad "--cpfloat '$cpfloat': no src/cpfloat_binary64.h there"
[ -z "$pcg" ] || [ -n "$cpfloat" ] || bad "--pcg '$pcg': only with --cpfloat"
[ -z "$pcg" ] || [ -f "$pcg/include/pcg_variants.h" ] || bad "--pcg '$pcg': no include/pcg_variants.h there"
[ -z "$llmc" ] || { [ -f "$llmc/train_gpt2.c" ] && [ -f "$llmc/Makefile" ]; } || bad "--llmc '$llmc': no train_gpt2.c and Makefile there"
[ -f "$build/src/libsrlab.a" ] || bad "--build '$build': no src/libsrlab.a (run meson compile first)"
build=$(cd "$build" && pwd)

tmp=$(mktemp -d "${TMPDIR:-/tmp}/srlab-peers.XXXXXX")
trap 'rm -rf "$tmp"' EXIT INT TERM
cc=${CC:-cc}
sched_check
libs=$(srlab_libs "$build") || exit 2
load() { uptime | sed 's/.*load average/load average/'; }
echo "# $(uname -m), $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ //'), $(nproc) cores"

if [ -n "$cpfloat" ]; then
    cpfloat=$(cd "$cpfloat" && pwd)
    pcgflags=
    if [ -n "$pcg" ]; then
        cp -r "$pcg" "$tmp/pcg-c"
        make -s -C "$tmp/pcg-c/src" libpcg_random.a >/dev/null
        pcgflags="-I$tmp/pcg-c/include -include pcg_variants.h"
    fi
    # shellcheck disable=SC2086
    "$cc" -O3 -march="${isa:+x86-64-}${isa:-native}" -fopenmp -std=gnu11 -w -I"$cpfloat/src" -I"$root/include" $pcgflags \
        -o "$tmp/peers_driver" "$here/peers_driver.c" \
        ${pcg:+"$tmp/pcg-c/src/libpcg_random.a"} "$build/src/libsrlab.a" $libs
    echo "# CPFloat $(git -C "$cpfloat" rev-parse --short HEAD 2>/dev/null || echo '(not a git checkout)'), pcg-c: ${pcg:-none}, -march=${isa:+x86-64-}${isa:-native}${isa:+, srlab forced to its $isa copy}"
    for t in $threads; do
        for d in $dists; do
            echo "# load before: $(load); scheduling: ${SRL_BENCH_SCHED:-other}"
            # shellcheck disable=SC2086
            timed env OMP_NUM_THREADS="$t" "$tmp/peers_driver" --n "$n" --reps "$reps" --threads "$t" --dist "$d" \
                ${isa:+--isa $isa}
        done
    done
fi

if [ -n "$openblas" ]; then
    lib=$openblas
    [ "$openblas" != system ] || lib=libopenblas.so.0
    # shellcheck disable=SC2086 # libs: words on purpose
    "$cc" -O2 -std=c11 -fopenmp -I"$root/include" -o "$tmp/blas_driver" "$here/blas_driver.c" \
        "$build/src/libsrlab.a" $libs -ldl ||
        { echo "peers.sh: --openblas '$openblas': the driver did not build" >&2; exit 1; }
    echo "# OpenBLAS: $openblas; srlab: srl_gemm_f prod=fp32:rn,acc=fp32:rn; n x n x n, standard normal binary32 values; wall time, $breps repeats; OMP_WAIT_POLICY=${OMP_WAIT_POLICY:-(unset)}; scheduling: ${SRL_BENCH_SCHED:-other}"
    for core in $bcores; do
        echo "# load before: $(load)"
        timed env OPENBLAS_CORETYPE="$core" "$tmp/blas_driver" --openblas "$lib" --sizes "$bsizes" --threads "$threads" --reps "$breps" ||
            { echo "peers.sh: the OpenBLAS driver failed (OPENBLAS_CORETYPE=$core)" >&2; exit 1; }
    done
    echo "# load after: $(load)"
fi

[ -n "$llmc" ] || exit 0
llmc=$(cd "$llmc" && pwd)
# train_gpt2's flags as llm.c's Makefile computes them on this machine (CFLAGS with its
# -march=native and OpenMP checks, INCLUDES, LDFLAGS, LDLIBS), read by a goal of our own added
# after it; make runs in the temporary directory, so nothing is written into the checkout.
mkdir "$tmp/llmc"
# shellcheck disable=SC2016
printf 'srlab-peers-flags:\n\t@echo "srlab-peers-cflags $(CFLAGS) $(INCLUDES) $(LDFLAGS)"\n\t@echo "srlab-peers-libs $(LDLIBS)"\n' >"$tmp/llmc/flags.mk"
(cd "$tmp/llmc" && make --no-print-directory -s -f "$llmc/Makefile" -f flags.mk CC="$cc" srlab-peers-flags) >"$tmp/llmc/flags" 2>/dev/null ||
    { echo "peers.sh: --llmc '$llmc': its Makefile did not give train_gpt2's flags" >&2; exit 1; }
lflags=$(sed -n 's/^srlab-peers-cflags //p' "$tmp/llmc/flags")
llibs=$(sed -n 's/^srlab-peers-libs //p' "$tmp/llmc/flags")
# shellcheck disable=SC2086
"$cc" $lflags -I"$llmc" -I"$here" -Dmain=llmc_upstream_main -o "$tmp/llmc_driver" \
    "$here/llmc_driver.c" $llibs
# shellcheck disable=SC2086 # libs: words on purpose
"$cc" -O2 -std=c11 -ffp-contract=off -I"$root/src" -I"$root/include" -I"$here" \
    -fopenmp -o "$tmp/srlab_gpt_driver" "$here/srlab_gpt_driver.c" \
    "$build/src/libsrlab.a" $libs
case " $sizes " in *" g "*)
    "$cc" -O2 -std=c11 -o "$tmp/token_file" "$here/token_file.c" -lm
    "$tmp/token_file" "$tmp/tokens.bin" 1048576 50257 ||
        { echo "peers.sh: cannot write the token file" >&2; exit 1; } ;;
esac
echo "# llm.c $(git -C "$llmc" rev-parse --short HEAD 2>/dev/null || echo '(not a git checkout)'), train_gpt2 flags: $lflags $llibs"
echo "# GPT training, AdamW (lr 1e-3, wd 0.1); $grounds rounds of $gsteps steps per contender, the first step of each a warm-up; OMP_WAIT_POLICY=${OMP_WAIT_POLICY:-(unset)}; scheduling: ${SRL_BENCH_SCHED:-other}"
echo "# sizes (layers, width, heads, context, batch, vocabulary): a = 2, 64, 2, 32, 16, 16; b = 3, 96, 4, 64, 8, 16; c = 4, 256, 4, 128, 8, 16; g = 2, 768, 12, 256, 4, 50257 (llm.c: padded to 50304), both reading one token file of 2^20 tokens"

# shape SIZE: its layers, width, heads, context, batch, vocabulary
shape() {
    case $1 in a) echo 2 64 2 32 16 16 ;; b) echo 3 96 4 64 8 16 ;; c) echo 4 256 4 128 8 16 ;; g) echo 2 768 12 256 4 50257 ;; esac
}
# data SIZE: the drivers' --data option for SIZE
data() { [ "$1" != g ] || echo "--data $tmp/tokens.bin"; }

# med FILE COLUMN: the median of a column
med() { awk -v c="$2" '{print $c}' "$1" | sort -g | awk '{v[NR]=$1} END {print (NR%2 ? v[(NR+1)/2] : (v[NR/2]+v[NR/2+1])/2)}'; }
# run SIZE THREADS WHO: one run, its step lines appended to $tmp/r.SIZE.THREADS.WHO
run() {
    # shellcheck disable=SC2046
    set -- "$1" "$2" "$3" $(shape "$1")
    dims="--layers $4 --width $5 --heads $6 --context $7 --batch $8 --vocab $9 --steps $gsteps $(data "$1")"
    if [ "$3" = llm.c ]; then
        # shellcheck disable=SC2086
        timed env OMP_NUM_THREADS="$2" "$tmp/llmc_driver" $dims --ckpt "$tmp/llmc/model.bin" >"$tmp/out" ||
            { echo "peers.sh: llm.c failed at size $1" >&2; exit 1; }
        params=$(sed -n 's/^loss .* params //p' "$tmp/out")
    else
        # shellcheck disable=SC2086
        timed env OMP_NUM_THREADS="$2" "$tmp/srlab_gpt_driver" $dims --strategy "$3" >"$tmp/out" ||
            { echo "peers.sh: srlab $3 failed at size $1" >&2; exit 1; }
        params=$(sed -n 's/^info \([0-9]*\) .*/\1/p' "$tmp/out")
    fi
    grep '^step ' "$tmp/out" >"$tmp/one"
    cat "$tmp/one" >>"$tmp/r.$1.$2.$3"
    med "$tmp/one" 4 >>"$tmp/w.$1.$2.$3" # this run's median wall time, one line per round
    echo "$params" >"$tmp/p.$1.$3"
    echo "$(($7 * $8))" >"$tmp/tok.$1"
}
# alt SIZE WHO: one process alternating the thread counts ($galt blocks each); for each count T
# the ratio of its median wall time at 1 thread over that at T, appended to $tmp/a.SIZE.T.WHO
alt() {
    # shellcheck disable=SC2046
    set -- "$1" "$2" $(shape "$1")
    # shellcheck disable=SC2086
    dims="--layers $3 --width $4 --heads $5 --context $6 --batch $7 --vocab $8 --steps $((3 * galt * $(nwords $threads))) $(data "$1")"
    if [ "$2" = llm.c ]; then
        # shellcheck disable=SC2086
        timed env GPT_ALTERNATE="$threads" "$tmp/llmc_driver" $dims --ckpt "$tmp/llmc/model.bin" >"$tmp/out" ||
            { echo "peers.sh: llm.c failed at size $1 (alternating)" >&2; exit 1; }
    else
        # shellcheck disable=SC2086
        timed env GPT_ALTERNATE="$threads" "$tmp/srlab_gpt_driver" $dims --strategy "$2" >"$tmp/out" ||
            { echo "peers.sh: srlab $2 failed at size $1 (alternating)" >&2; exit 1; }
    fi
    awk '$1 == "step" && $5 == 1 {print}' "$tmp/out" >"$tmp/one"
    [ -s "$tmp/one" ] || return 0
    one=$(med "$tmp/one" 4)
    for t in $threads; do
        awk -v t="$t" '$1 == "step" && $5 == t {print}' "$tmp/out" >"$tmp/one"
        echo "$one $(med "$tmp/one" 4)" | awk '{print $1 / $2}' >>"$tmp/a.$1.$t.$2"
    done
}
for s in $sizes; do
    r=0
    while [ $r -lt "$grounds" ]; do
        echo "# size $s, round $((r + 1)) of $grounds, load before: $(load)"
        for who in llm.c $strategies; do
            for t in $threads; do run "$s" "$t" "$who"; done
            [ "$galt" = 0 ] || alt "$s" "$who"
        done
        r=$((r + 1))
    done
done
echo "# load after: $(load)"
# spread: "median (min-max)" of a column of numbers
spread() {
    sort -g | awk '{v[NR] = $1} END {printf "%.2f (%.2f-%.2f)", (NR % 2 ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2), v[1], v[NR]}'
}
# paired SIZE T WHO: the spread of the rounds' wall-time ratios, 1 thread over T
paired() {
    paste "$tmp/w.$1.1.$3" "$tmp/w.$1.$2.$3" | awk '{print $1 / $2}' | spread
}
for s in $sizes; do
    for t in $threads; do
        for who in llm.c $strategies; do
            sp=- asp=-
            if [ "$t" != 1 ] && [ -f "$tmp/w.$s.1.$who" ]; then sp=$(paired "$s" "$t" "$who"); fi
            if [ "$t" != 1 ] && [ -f "$tmp/a.$s.$t.$who" ]; then asp=$(spread <"$tmp/a.$s.$t.$who"); fi
            echo "$s $t $who $(cat "$tmp/p.$s.$who") $(cat "$tmp/tok.$s") $(med "$tmp/r.$s.$t.$who" 3) $(med "$tmp/r.$s.$t.$who" 4) $(wc -l <"$tmp/r.$s.$t.$who")|$sp|$asp"
        done
    done
done >"$tmp/summary"
echo
echo "| size | threads | contender | parameters | CPU ms/step | x llm.c CPU | tokens per CPU-second | wall ms/step | CPU x 1 thread | speedup over 1 thread (wall, paired by round) | speedup, one process alternating | steps |"
echo "|---|---|---|---|---|---|---|---|---|---|---|---|"
awk '
    { split($0, h, "|"); $0 = h[1]; sp[NR] = h[2]; asp[NR] = h[3] }
    { cpu[$1 " " $2 " " $3] = $6 }
    $3 == "llm.c" { ref[$1 " " $2] = $6 }
    { line[NR] = $0 }
    END {
        for (i = 1; i <= NR; i++) {
            split(line[i], f, " ")
            one = cpu[f[1] " 1 " f[3]]
            printf "| %s | %s | %s | %s | %.1f | %.2f | %.0f | %.1f | %s | %s | %s | %s |\n", f[1], f[2], f[3], f[4], f[6], f[6] / ref[f[1] " " f[2]], 1000 * f[5] / f[6], f[7], (one == "" || f[2] == 1 ? "-" : sprintf("%.2f", f[6] / one)), sp[i], asp[i], f[8]
        }
    }' "$tmp/summary"
