#!/bin/sh
# tests/cli/progress.sh SRLAB: long commands say how far they are (issue 30, item 5).
#  - On a terminal (script(1) gives the commands a pseudo-terminal) srlab train, run, sweep and
#    demo crossover draw a progress line on standard error, "srlab CMD: 0/N UNIT, ..." at the
#    start and later states, and clear it; train and run end with one line saying what ran,
#    in how long, and where the rows are.
#  - With standard error a file none of this is written: train and run leave it empty, and the
#    rows are the same bytes either way.
# (sweep's closing line is written either way, and its cli tests pin it.)
. "$(dirname "$0")/../cli_lib.sh"
cli_setup progress "$1"
command -v script >/dev/null 2>&1 || { echo "SKIP: script(1) is not installed (bsdutils)"; exit 77; }

# on_tty NAME COMMAND...: the command run on a pseudo-terminal, its terminal output in NAME.tty
on_tty() {
    out=$1
    shift
    script -qec "$*" /dev/null </dev/null >"$out.tty" 2>&1 || bad "$out: exit $? on a terminal"
    tr '\r' '\n' <"$out.tty" >"$out.lines"
}

gpt="--problem gpt --n-layer 1 --n-embd 16 --n-head 2 --block-size 8 --batch-size 4 --steps 40 --log-every 1"
on_tty train "'$srlab' train $gpt -o t.csv"
grep -q '^srlab train: 0/40 steps, 0:00 elapsed, ? left' train.lines && ok "train: progress line" ||
    bad "train: no progress line: $(cat train.lines)"
grep -q '^srlab train: gpt, 1 seed of 40 steps in [0-9]*:[0-9][0-9], 0 diverged; rows in t.csv' \
    train.lines && ok "train: closing line" || bad "train: no closing line: $(cat train.lines)"
mkdir off
(cd off && "$srlab" train $gpt -o t.csv 2>err)
[ ! -s off/err ] && ok "train: nothing on standard error off a terminal" || bad "train stderr: $(cat off/err)"
cmp -s t.csv off/t.csv && ok "train: the same rows on a terminal or not" || bad "train: rows differ"

on_tty run "'$srlab' run --problem sum --n 1000 --seeds 3 -o r.csv"
grep -q '^srlab run: 0/3 seeds' run.lines && ok "run: progress in seeds" || bad "run: $(cat run.lines)"
grep -q '^srlab run: sum, 3 seeds in .*; rows in r.csv' run.lines && ok "run: closing line" ||
    bad "run: no closing line: $(cat run.lines)"

on_tty sweep "'$srlab' sweep --problem quad1d --lr 1e-2,1e-1 --steps 100 -o s.csv"
grep -q '^srlab sweep: 0/2 runs' sweep.lines && ok "sweep: progress line" || bad "sweep: $(cat sweep.lines)"
grep -q '^srlab sweep: 2 runs in' sweep.lines && ok "sweep: closing line" || bad "sweep: $(cat sweep.lines)"

on_tty demo "'$srlab' demo crossover --n 2000"
grep -q '^srlab demo crossover: 0/15 learning rates' demo.lines && ok "demo crossover: progress line" ||
    bad "demo crossover: $(head -3 demo.lines)"
grep -q '^Noisy SGD on' demo.lines && ok "demo crossover: its text after the cleared line" ||
    bad "demo crossover: no text"
"$srlab" demo crossover --n 2000 >d.txt 2>err
[ ! -s err ] && ok "demo crossover: nothing on standard error off a terminal" || bad "demo stderr: $(cat err)"
exit $fail
