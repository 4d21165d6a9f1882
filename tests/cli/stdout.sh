#!/bin/sh
# tests/cli/stdout.sh SRLAB: standard output means standard output (issue 28, item 7). One rule
# for every command with -o (src/cli/cli.h, docs/reliability.md): -o - and -o /dev/stdout are
# standard output, both spellings, and write there what the command writes without -o (or, for
# a command whose output is a file, that file: plot's figure as PNG; a set's rows file alone:
# sweep and merge write no runs or summary file then); a folder (reproduce) cannot be standard
# output and is refused. For each command: the two spellings give the same bytes, the bytes a
# file would hold (without a set's stamp line), no other file is created, and standard output
# that cannot be written is an error (exit 3) with its errno.
. "$(dirname "$0")/../cli_lib.sh"
cli_setup stdout "$1"
export SOURCE_DATE_EPOCH=1700000000
unset SRLAB_EXPERIMENTS SRLAB_REPRODUCE_EXE
awk 'BEGIN { for (i = 1; i <= 50; i++) printf "%.17g\n", i / 7 }' >numbers.txt
awk 'BEGIN { for (i = 1; i <= 50; i++) printf "%.17g,%.17g\n", i / 3, i / 11 }' >pairs.txt
sw() { "$srlab" sweep --problem quad1d --strategy fp32,bf16-rn --seeds 2 --steps 100 --log-every 10 --quiet "$@"; }
sw --shard 0/2 -o in0.csv && sw --shard 1/2 -o in1.csv && sw -o whole.csv ||
    { echo "FAIL: the inputs of the test"; exit 1; }
mkdir work
grep -v '^# set: \|^# command: ' whole.csv >plain.whole
inputs=$(ls -A | grep -v '^out\.\|^err\.txt$\|^file\.txt$\|^plain\.' | tr '\n' ' ')

# one NAME ARGS...: the command with "-o -", "-o /dev/stdout" and "-o work/f" (@ in ARGS is
# replaced by each), run in turn; the three outputs must be the same bytes (but for the '# command:'
# line, which repeats -o, and the file's set line), and nothing else is created
plain() { grep -v '^# set: \|^# command: ' "$1"; }
scratch() { ls -A | grep -v '^out\.\|^err\.txt$\|^file\.txt$\|^plain\.' | tr '\n' ' '; }
one() {
    name=$1
    shift
    for o in - /dev/stdout work/f; do
        args=""
        for a in "$@"; do [ "$a" = @ ] && a=$o; args="$args '$a'"; done
        eval "\"\$srlab\" $args" >"out.$(echo "$o" | tr / _)" 2>err.txt </dev/null ||
            { bad "$name -o $o: exit $?: $(head -c 300 err.txt)"; return; }
    done
    plain work/f >file.txt
    plain out.- >plain.a
    plain out._dev_stdout >plain.b
    if cmp -s plain.a plain.b && cmp -s plain.a file.txt && [ -s plain.a ]; then
        ok "$name: -o - and -o /dev/stdout write what -o FILE does, to standard output"
    else
        bad "$name: -o -, -o /dev/stdout and -o FILE differ ($(cmp plain.a plain.b; cmp plain.a file.txt))"
    fi
    rm -f work/f work/f.* work/.??* 2>/dev/null
    [ "$(scratch)" = "$inputs" ] && [ -z "$(ls -A work)" ] && ok "  ... and no other file" ||
        bad "$name: files created: $(ls -A) / $(ls -A work)"
}
# (the batch commands read standard input: by hand)
for o in - /dev/stdout work/f; do "$srlab" round --batch -r sr -o $o <numbers.txt >"b.$(echo $o | tr / _)" 2>/dev/null; done
cmp -s b.- b._dev_stdout && cmp -s b.- work/f && [ -s b.- ] && ok "round --batch: -o -, -o /dev/stdout, -o FILE: the same CSV" ||
    bad "round --batch differs"
for o in - /dev/stdout work/f; do "$srlab" op add --batch -f bf16 -r sr -o $o <pairs.txt >"p.$(echo $o | tr / _)" 2>/dev/null; done
cmp -s p.- p._dev_stdout && cmp -s p.- work/f && [ -s p.- ] && ok "op --batch: -o -, -o /dev/stdout, -o FILE: the same CSV" ||
    bad "op --batch differs"
rm -f b.* p.* work/f
one "run" run --problem harmonic --seeds 2 -o @
one "train" train --problem quad1d --steps 100 --log-every 10 -o @
one "compare" compare whole.runs.csv --baseline fp32 -o @
one "check" check T01a --seeds 2 -o @
# sweep and merge: the rows alone (the set's runs and summary files need a file name)
one "sweep" sweep --problem quad1d --strategy fp32,bf16-rn --seeds 2 --steps 100 --log-every 10 --quiet -o @
plain out.- >plain.a
cmp -s plain.a plain.whole && ok "sweep -o -: the rows of -o FILE, without its set line" || bad "sweep -o -: not the rows"
one "merge" merge in0.csv in1.csv -o @
plain out.- >plain.a
cmp -s plain.a plain.whole && ok "merge -o -: the merged rows" || bad "merge -o -: not the rows"
"$srlab" sweep --problem quad1d --seeds 2 --steps 10 --quiet >nodash.txt 2>/dev/null
"$srlab" sweep --problem quad1d --seeds 2 --steps 10 --quiet -o - >dash.txt 2>/dev/null
cmp -s nodash.txt dash.txt && ok "sweep -o - is sweep without -o" || bad "sweep -o - differs from no -o"
rm -f nodash.txt dash.txt
# the set's options that need files say so for standard output too
"$srlab" sweep --problem quad1d --seeds 2 --shard 0/2 -o - >/dev/null 2>err.txt
[ $? -eq 2 ] && grep -q -- '--shard needs an output file (-o out.csv; standard output holds the rows alone)' err.txt &&
    ok "sweep --shard -o -: exit 2, a shard needs a file" || bad "sweep --shard -o -: $(cat err.txt)"
# --slurm writes a job script and shards beside its output (a stand-in sbatch, never reached)
mkdir bin && printf '#!/bin/sh\nexit 1\n' >bin/sbatch && chmod +x bin/sbatch
for w in --slurm --slurm-status; do
    n=""
    [ $w = --slurm ] && n=2
    PATH=$PWD/bin:$PATH "$srlab" sweep --problem quad1d --lr 0.1,0.2 $w $n -o - >/dev/null 2>err.txt
    [ $? -eq 2 ] && grep -q -- '--slurm needs -o OUT.csv, not standard output' err.txt && [ ! -e ./-.sbatch ] &&
        ok "sweep $w -o -: exit 2, the job needs an output file" || bad "sweep $w -o -: $(cat err.txt)"
done
rm -rf bin
if command -v gnuplot >/dev/null 2>&1; then
    for o in - /dev/stdout; do
        "$srlab" plot lr_sweep --in whole.summary.csv -o $o >"fig.$(echo $o | tr / _)" 2>err.txt ||
            bad "plot -o $o: $(cat err.txt)"
    done
    [ "$(head -c 4 fig.- | od -An -c | tr -d ' ')" = "211PNG" ] && cmp -s fig.- fig._dev_stdout &&
        ok "plot -o - and -o /dev/stdout: the same PNG on standard output" ||
        bad "plot -o -: $(head -c 8 fig.- | od -c | head -1)"
    rm -f fig.*
fi
# bench measures (its numbers differ run to run): the same table, cases and run counts
for o in - /dev/stdout work/f; do "$srlab" bench sweep --csv -o $o >"bn.$(echo $o | tr / _)" 2>/dev/null; done
cols() { cut -d, -f1-3 "$1"; }
[ "$(cols bn.-)" = "$(cols bn._dev_stdout)" ] && [ "$(cols bn.-)" = "$(cols work/f)" ] &&
    [ "$(head -1 bn.-)" = "case,threads,runs,runs_per_s,speedup" ] && [ ! -s bn.work_f ] &&
    ok "bench: -o -, -o /dev/stdout, -o FILE: the same table" || bad "bench: $(head -3 bn.-)"
rm -f bn.* work/f
[ "$(scratch)" = "$inputs" ] && [ -z "$(ls -A work)" ] && ok "  ... and no other file" ||
    bad "bench: files created: $(ls -A) / $(ls -A work)"
for o in - /dev/stdout; do
    # (no experiments: were -o accepted, nothing would run for long)
    SRLAB_EXPERIMENTS=$PWD/none "$srlab" reproduce --checks none -o $o >/dev/null 2>err.txt
    rc=$?
    [ $rc -eq 2 ] && grep -q "is standard output, and a report is a folder of files" err.txt && [ ! -e ./- ] &&
        ok "reproduce -o $o: exit 2, a report is a folder; nothing created" || bad "reproduce -o $o: exit $rc: $(cat err.txt)"
done
# standard output closed, or a file whose folder is gone: exit 3 with the errno
"$srlab" formats >&- 2>err.txt
[ $? -eq 3 ] && grep -q 'cannot write standard output: Bad file descriptor' err.txt &&
    ok "standard output closed: exit 3, EBADF" || bad "closed standard output: $(cat err.txt)"
"$srlab" sweep --problem quad1d --seeds 2 --steps 10 --quiet -o - >&- 2>err.txt
[ $? -eq 3 ] && grep -q 'cannot write standard output: Bad file descriptor' err.txt &&
    ok "sweep -o - into a closed standard output: exit 3, EBADF" || bad "sweep, closed: $(cat err.txt)"
if [ -w /dev/full ]; then
    "$srlab" train --problem quad1d --steps 100 -o /dev/stdout >/dev/full 2>err.txt
    [ $? -eq 3 ] && grep -q 'cannot write standard output: No space left on device' err.txt &&
        ok "train -o /dev/stdout into /dev/full: exit 3, ENOSPC" || bad "/dev/full: $(cat err.txt)"
    "$srlab" sweep --help >/dev/full 2>err.txt
    [ $? -eq 3 ] && grep -q 'cannot write standard output: No space left on device' err.txt &&
        ok "--help into /dev/full: exit 3, ENOSPC" || bad "--help into /dev/full: $(cat err.txt)"
    "$srlab" check --list >/dev/full 2>err.txt
    [ $? -eq 3 ] && grep -q 'cannot write standard output: No space left on device' err.txt &&
        ok "check --list into /dev/full: exit 3, ENOSPC" || bad "check --list into /dev/full: $(cat err.txt)"
fi
exit $fail
