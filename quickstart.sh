#!/bin/sh
# quickstart.sh: everything on a fresh Debian 12 machine, in one of two commands.
#
#   sh quickstart.sh         install what is missing, build the srlab command, run the main job:
#                            the whole study as one report (srlab reproduce --quick ->
#                            report/index.html); about 3 CPU-minutes
#   sh quickstart.sh test    install what is missing, build everything, run the whole test suite
#                            (release build, then an address+undefined sanitizer build), the
#                            built-in defects against the checks (a -Dmutants=true build), then
#                            a short run of each fuzz target (clang, tests/fuzz); about 50 CPU-minutes
#
# Run as root, or as a user who may sudo (only apt-get needs it). Nothing is downloaded at run
# time besides Debian's packages. .ci/run calls `sh quickstart.sh test`.
set -eu
cd "$(dirname "$0")"

what=${1:-run}
case "$what" in
run | test) ;;
*)
    echo "usage: sh quickstart.sh [test]" >&2
    exit 2
    ;;
esac

# What each command costs, measured on a 2-core VM from a clean clone (the times README.md
# states; tests/house/quickstart.sh checks that both say the same): CPU time, which other work
# on the machine does not stretch; on C free cores the wall time is about CPU time / C.
run_time="about 3 CPU-minutes (build 2.3, report 0.8)"
test_time="about 50 CPU-minutes"
if [ "$what" = run ]; then
    echo "quickstart: build srlab and make the quick report: $run_time"
else
    echo "quickstart: build everything, run every test in two builds and fuzz: $test_time"
fi
started=$(date +%s)
took() { # how long since the start, as M:SS
    s=$(($(date +%s) - started))
    printf '%d:%02d' $((s / 60)) $((s % 60))
}

# ---- Debian packages ----
pkgs="meson ninja-build pkg-config gcc g++ libmpfr-dev libgmp-dev libgsl-dev libpcg-cpp-dev
      libinih-dev gnuplot-nox python3-numpy python3-pytest python3-dev"
# The test command also wants Debian's chromium (a test opens the report in it, headless),
# python3-torch (the srlab.torch tests), and slurm-wlm with munge (a test starts a single-node
# SLURM cluster on this machine, tests/slurm, as root). None is required: without one its
# tests are skipped (meson's status 77), and say so.
optional=""
if [ "$what" = test ]; then optional="chromium python3-torch slurm-wlm munge"; fi
# The test command builds the fuzz targets (tests/fuzz) with Debian's clang and its libFuzzer,
# and the Python package as `pip install .` builds it (python3-mesonpy, python3-venv; ccache lets
# that second build of the library reuse the release build's objects).
if [ "$what" = test ]; then
    pkgs="$pkgs clang-14 libclang-rt-14-dev python3-mesonpy python3-venv ccache"
fi
missing_of() {
    for p in "$@"; do
        if ! dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed"; then
            printf ' %s' "$p"
        fi
    done
}
missing=$(missing_of $pkgs)
missing_optional=$(missing_of $optional)
if [ -n "$missing$missing_optional" ]; then
    sudo=""
    if [ "$(id -u)" -ne 0 ]; then sudo=sudo; fi
    $sudo apt-get update -q
fi
if [ -n "$missing" ]; then
    echo "quickstart: installing$missing"
    DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -q --no-install-recommends $missing
fi
for p in $missing_optional; do # one at a time: one that cannot be installed skips only its tests
    echo "quickstart: installing $p (optional)"
    DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -q --no-install-recommends \
        "$p" || echo "quickstart: could not install $p; its tests will be skipped"
done

# ---- build ----
jobs=$(nproc 2>/dev/null || echo 2)
if [ ! -f build/build.ninja ]; then
    meson setup build --buildtype=release
fi
srlab=./build/src/cli/srlab
if [ "$what" = run ]; then
    ninja -C build src/cli/srlab # the main job needs the command only (tests, man pages: later)
else
    ninja -C build
fi

if [ "$what" = run ]; then
    # The main job on its built-in defaults.
    "$srlab" --version
    "$srlab" formats
    echo
    "$srlab" round 1.00390625 -f bf16 -r sr --samples 100000
    echo
    # The whole study, quick mode, as one report (a few minutes on 2 cores): every experiment,
    # every figure, srlab check. Exit 1 means the report is written and lists a problem.
    status=0
    "$srlab" reproduce --quick -o report --force || status=$?
    if [ -f report/index.html ]; then
        echo "quickstart: the report is $(pwd)/report/index.html (open it in a browser)"
    fi
    echo "quickstart: done in $(took). srlab is $(pwd)/build/src/cli/srlab: run it by that path,"
    echo "  or put its folder first on PATH (export PATH=\"$(pwd)/build/src/cli:\$PATH\"),"
    echo "  or install it with its man pages: meson install -C build (as root; /usr/local)"
    exit "$status"
fi

# ---- tests ----
meson test -C build --print-errorlogs --num-processes "$jobs"
# The Python package as users install it (docs/python.md): `pip install --no-build-isolation .`
# into a fresh venv that sees Debian's packages (numpy, meson-python, torch), offline; the build
# directory build-pip is kept, so a second run only relinks. Then the tests that need no build
# tree of the package run against the installed one (the CLI comes from build/). README.md's
# "From Python" shows the same two commands (tests/house/quickstart.sh checks it).
python=/usr/bin/python3 # Debian's, which has python3-numpy (another python3 may come first on PATH)
rm -rf build-venv
"$python" -m venv --system-site-packages build-venv
build-venv/bin/pip install --no-build-isolation --no-index --config-settings builddir=build-pip .
SRLAB_CLI=$(pwd)/build/src/cli/srlab build-venv/bin/python -m pytest -q -p no:cacheprovider -rs \
    python/tests/test_api.py python/tests/test_errors.py python/tests/test_round_mx.py \
    python/tests/test_torch_round.py \
    python/tests/test_torch_nn.py
if [ ! -f build-asan/build.ninja ]; then
    meson setup build-asan -Db_sanitize=address,undefined -Dbuildtype=debugoptimized \
        -Db_lundef=false -Dc_args=-fno-sanitize-recover=all -Dcpp_args=-fno-sanitize-recover=all
fi
ninja -C build-asan
# The sanitizer build skips the slurm suite: it tests the cluster's side (the scheduler, requeues,
# the job script) with the same srlab code the cli suite's slurm_cli test already runs under the
# sanitizers, and would add its minute and a half for nothing more.
ASAN_OPTIONS=detect_leaks=1:abort_on_error=1 UBSAN_OPTIONS=halt_on_error=1:print_stacktrace=1 \
    meson test -C build-asan --print-errorlogs --num-processes "$jobs" --no-suite slurm
# The built-in defects (theory/README.md, "Built-in defects"): a build that has them, in which
# the probes PASS with every defect off and every defect, switched on, makes some check FAIL
# (srlab check --mutate bug --quick: about 3 minutes on 2 cores with the build; the default
# builds above have no trace of them).
if [ ! -f build-mutants/build.ninja ]; then
    meson setup build-mutants --buildtype=release -Dmutants=true -Dslow_tests=false
fi
ninja -C build-mutants src/cli/srlab
./build-mutants/src/cli/srlab check --quick T01f T02c T10f T16c
./build-mutants/src/cli/srlab check --mutate bug --quick
# The fuzz targets (tests/fuzz, docs/testing.md): built with clang under the address and
# undefined sanitizers in build-fuzz, each run 5 seconds from its seed corpus, which holds the
# inputs of the bugs fuzzing found; any crash, sanitizer report, hang or memory blow-up fails.
# The long run is `meson test -C build --suite fuzz` (SRL_FUZZ_SECONDS per target, default 1800).
SRL_FUZZ_BUILDDIR=build-fuzz sh tests/fuzz/run.sh --seconds 5
echo "quickstart: all tests passed (release and address+undefined sanitizer builds, built-in" \
    "defects, fuzz targets) in $(took)"
