#!/bin/sh
# tests/fuzz/run.sh: build the libFuzzer targets of tests/fuzz with clang and run them
# (docs/testing.md, "Fuzzing").
#
#   sh tests/fuzz/run.sh [--seconds N] [TARGET...]
#
# TARGET: format rounding number batch spec journal merge compare plot plotgp data bulk (default: all,
# in turn). plotgp is fuzz_plot with a real gnuplot (SRL_FUZZ_GNUPLOT=1, its corpus plot/ and
# plotgp/): a finding is any file created outside its output folder (tests/fuzz/fuzz_plot.c);
# skipped when gnuplot is not on PATH.
# N: seconds of fuzzing per target (default $SRL_FUZZ_SECONDS, else 1800).
# The build is one of its own, $SRL_FUZZ_BUILDDIR (default: build-fuzz in the source tree, or
# fuzz-clang in the build directory of `meson test --suite fuzz`):
# clang ($SRL_FUZZ_CC, default clang-14, else clang), -Dfuzz=enabled, address and undefined
# sanitizers that stop at the first report, coverage instrumentation on the whole library, no
# OpenMP. Only the targets are compiled (and the library under them).
# Each target starts from a copy of its seed corpus, tests/fuzz/corpus/TARGET (what it finds
# is not written back: the corpus stays small and reviewed), with per input a 10 s time limit
# (plotgp 60 s: an input starts gnuplot, whose wall time a loaded machine stretches)
# and a 1024 MB limit on any one allocation, and 2048 MB on the process (the sanitizers' own
# bookkeeping takes several hundred). Exit 0 when every target ran its time without a finding; 1 on a
# finding: a crash, a sanitizer report, a leak, a hang (an input over 10 s), a memory blow-up,
# or a target's own check (abort), with the input saved under BUILDDIR/artifacts/TARGET/ and
# the end of the log printed (replay: BUILDDIR/tests/fuzz/fuzz_TARGET FILE, for plotgp with
# SRL_FUZZ_GNUPLOT=1 TMPDIR=an empty folder); 77 (meson's skip)
# when clang or libFuzzer is missing.
set -eu
here=$(cd "$(dirname "$0")" && pwd)
src=$(cd "$here/../.." && pwd)
all="format rounding number batch spec journal merge compare plot plotgp data bulk"
secs=${SRL_FUZZ_SECONDS:-1800}
if [ "${1:-}" = --seconds ]; then
    secs=${2:?--seconds needs a number}
    shift 2
fi
case "$secs" in '' | *[!0-9]*) echo "run.sh: --seconds: '$secs' is not a number of seconds" >&2; exit 2 ;; esac
targets=${*:-$all}
for t in $targets; do
    case " $all " in *" $t "*) ;; *) echo "run.sh: unknown target '$t' (known: $all)" >&2; exit 2 ;; esac
done
build=${SRL_FUZZ_BUILDDIR:-${SRL_FUZZ_DEFAULT_BUILDDIR:-$src/build-fuzz}}
case "$build" in /*) ;; *) build=$(pwd)/$build ;; esac # the targets run in a directory of their own

cc=${SRL_FUZZ_CC:-}
if [ -z "$cc" ]; then
    for c in clang-14 clang; do
        if command -v "$c" >/dev/null 2>&1; then cc=$c; break; fi
    done
fi
if [ -z "$cc" ]; then
    echo "run.sh: no clang (install Debian's clang-14 and libclang-rt-14-dev): fuzzing skipped" >&2
    exit 77
fi
probe=$(mktemp -d)
printf 'int LLVMFuzzerTestOneInput(const unsigned char *d, unsigned long n)\n{ (void)d; (void)n; return 0; }\n' >"$probe/p.c"
if ! "$cc" -fsanitize=fuzzer,address,undefined "$probe/p.c" -o "$probe/p" >"$probe/log" 2>&1; then
    echo "run.sh: $cc cannot link -fsanitize=fuzzer (install libclang-rt-14-dev): fuzzing skipped" >&2
    rm -rf "$probe"
    exit 77
fi
rm -rf "$probe"

if [ ! -f "$build/build.ninja" ]; then
    cxx=$(printf '%s' "$cc" | sed 's/clang/clang++/')
    command -v "$cxx" >/dev/null 2>&1 || cxx=c++
    CC=$cc CXX=$cxx meson setup "$build" "$src" -Dfuzz=enabled -Dbuildtype=debugoptimized \
        -Db_sanitize=address,undefined -Db_lundef=false -Dopenmp=disabled -Dslow_tests=false \
        -Dc_args='-fsanitize=fuzzer-no-link -fno-sanitize-recover=all' >"$build.setup.log" 2>&1 || {
        cat "$build.setup.log" >&2
        exit 1
    }
    rm -f "$build.setup.log"
fi
exe() { [ "$1" = plotgp ] && echo plot || echo "$1"; } # the binary of a target
ninja_targets=""
for t in $targets; do ninja_targets="$ninja_targets tests/fuzz/fuzz_$(exe "$t")"; done
# shellcheck disable=SC2086
ninja -C "$build" $ninja_targets >"$build/fuzz-build.log" 2>&1 || {
    tail -n 40 "$build/fuzz-build.log" >&2
    exit 1
}

export ASAN_OPTIONS="${ASAN_OPTIONS:-detect_leaks=1:abort_on_error=1}"
export UBSAN_OPTIONS="${UBSAN_OPTIONS:-halt_on_error=1:print_stacktrace=1}"
status=0
for t in $targets; do
    gp=0
    if [ "$t" = plotgp ]; then
        if ! command -v gnuplot >/dev/null 2>&1; then
            echo "fuzz_plotgp: skipped: no gnuplot on PATH (Debian's gnuplot-nox)"
            continue
        fi
        gp=1
    fi
    work=$(mktemp -d "${TMPDIR:-/tmp}/srlab-fuzz-$t.XXXXXX")
    mkdir "$work/corpus"
    for c in "$t" $([ $gp = 1 ] && echo plot || true); do
        if [ -d "$here/corpus/$c" ]; then cp "$here/corpus/$c"/* "$work/corpus/" 2>/dev/null || true; fi
    done
    art="$build/artifacts/$t"
    mkdir -p "$art"
    log="$build/artifacts/$t-$$.log" # one per run: runs of the same build may overlap
    rc=0
    # -close_fd_mask=3: the commands' own messages are discarded, libFuzzer's and the
    # sanitizers' reports are kept. The outer timeout catches a hang libFuzzer would miss.
    (cd "$work" && TMPDIR="$work" SRL_FUZZ_GNUPLOT=$gp timeout -k 10 $((secs + 300)) nice \
        "$build/tests/fuzz/fuzz_$(exe "$t")" \
        -max_total_time="$secs" -timeout=$([ $gp = 1 ] && echo 60 || echo 10) \
        -rss_limit_mb=2048 -malloc_limit_mb=1024 \
        -max_len=8192 -use_value_profile=1 -close_fd_mask=3 -error_exitcode=1 \
        -timeout_exitcode=1 -print_final_stats=1 -artifact_prefix="$art/" "$work/corpus") \
        >"$log" 2>&1 || rc=$?
    runs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$log" | tail -n 1)
    cov=$(grep -a -o 'cov: [0-9]*' "$log" | tail -n 1 | sed 's/cov: /, coverage /')
    if [ "$rc" -eq 0 ]; then
        echo "fuzz_$t: ${secs} s, ${runs:-?} inputs$cov: no finding"
        rm -f "$log"
    else
        status=1
        echo "fuzz_$t: FINDING after ${runs:-?} inputs (exit $rc); the input is in $art/," \
            "the log in $log:"
        grep -a -v '^#[0-9]' "$log" | tail -n 60
    fi
    rm -rf "$work"
done
exit "$status"
