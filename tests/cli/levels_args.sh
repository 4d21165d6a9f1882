#!/bin/sh
# tests/cli/levels_args.sh LEVELS_SH BUILD_DIR: bench/levels.sh (issue 16) checks its arguments
# before it builds anything: a bad value, an unknown option or an option without its value exits
# with status 2 and a message on standard error naming the argument, prints nothing on standard
# output and leaves no temporary directory. Then a small real run: every instruction-set level
# this CPU has must give the baseline's bytes in every case (the table's "same" column all
# "yes", exit 0), with one row per case and the temporary directory removed; and one with
# --against this same build (its columns present, its bytes the
# baseline's; not in a sanitizer build, whose runtime refuses the RTLD_DEEPBIND it needs).
. "$(dirname "$0")/../cli_lib.sh"
cli_setup levels-args "$1"
levels=$srlab
build=$2
export TMPDIR="$tmp/t"
mkdir "$TMPDIR"

refused() { script_refuses "$levels" "$@"; }
B="--build $build"
refused "missing build" "--build 'nosuchdir'" --build nosuchdir
refused "unknown option" "unknown option '--cpfloat'" --cpfloat x $B
refused "option without value" "'--reps' needs a value" $B --reps
refused "n with a suffix" "--n '10M'" $B --n 10M
refused "reps zero" "--reps '0'" $B --reps 0
refused "threads zero" "--threads '0'" $B --threads "1 0"
refused "threads empty" "--threads: empty list" $B --threads " "
refused "distribution" "--dist: 'gauss' is not one of" $B --dist gauss
SRL_BENCH_SCHED=rr refused "scheduling" "SRL_BENCH_SCHED 'rr': not fifo or other" $B
refused "dist empty" "--dist: empty list" $B --dist " "
refused "against nowhere" "--against 'nosuchdir'" $B --against nosuchdir
refused "against without value" "'--against' needs a value" $B --against

# a small run: 5000 values (not a multiple of 8 or 16), every case, every level
sh "$levels" $B --n 5000 --reps 1 --dist uniform --threads 1 >stdout 2>stderr
rc=$?
rows=$(grep -c '^| [bef][f45p][1m][2-6]' stdout)
if [ $rc -ne 0 ]; then bad "small run: exit $rc: $(cat stderr) $(grep NO stdout)"
elif [ "$rows" -ne 28 ]; then bad "small run: $rows rows (want 28): $(cat stdout)"
elif grep -q '| NO |' stdout || [ "$(grep -c '| yes |$' stdout)" -ne 28 ]; then
    bad "small run: a level differs from the baseline: $(cat stdout)"
elif [ -n "$(ls -A "$TMPDIR")" ]; then bad "small run: left $(ls -A "$TMPDIR")"
else ok "small run: 28 cases, every level the baseline's bytes ($(sed -n 's/.*this CPU.s level: //p' stdout) here)"; fi
case "${CFLAGS:-}" in
*sanitize*) ok "against: not run under a sanitizer (RTLD_DEEPBIND)" ;;
*)
    sh "$levels" $B --n 5000 --reps 1 --dist normal --threads 1 --against "$build" >stdout 2>stderr
    rc=$?
    if [ $rc -ne 0 ]; then bad "against: exit $rc: $(cat stderr) $(grep NO stdout)"
    elif ! grep -q '^| case |.* against M/s |.* / against | same |$' stdout; then
        bad "against: no columns for it: $(head -4 stdout)"
    elif [ "$(grep -c '| yes |$' stdout)" -ne 28 ]; then bad "against: not the same bytes: $(cat stdout)"
    else ok "against: this build as the other one too, 28 cases, the baseline's bytes"; fi
    ;;
esac
exit $fail
