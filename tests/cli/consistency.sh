#!/bin/sh
# tests/cli/consistency.sh SRLAB: one command line across commands (issue 13, item 7):
#  - `srlab theory T05 --lr 0.01` and `--lr=0.01` give the same output as `lr=0.01`; a --KEY the
#    statement lacks is refused naming it (exit 2); `--lr` without a value is refused;
#  - one default seed: round and op without --seed use seed 1, the same draws as --seed 1, like
#    train/run (whose default is 1), and their help says so;
#  - `srlab -V` is `srlab --version`;
#  - `--threads N` on train and run: accepted, echoed nowhere in the rows (results do not depend
#    on it: byte-identical rows for 1 and 2 threads), a bad N refused naming --threads.
. "$(dirname "$0")/../cli_lib.sh"
cli_setup consistency "$1"

# theory: --key value as key=value
"$srlab" theory T05 lr=0.01 >a.txt 2>&1 || bad "theory T05 lr=0.01 fails"
"$srlab" theory T05 --lr 0.01 >b.txt 2>err.txt
rc=$?
if [ $rc -eq 0 ] && cmp -s a.txt b.txt; then ok "theory T05 --lr 0.01 = lr=0.01"
else bad "theory T05 --lr 0.01: exit $rc: $(head -c 300 err.txt)"; fi
"$srlab" theory T05 --lr=0.01 format=bf16 >c.txt 2>err.txt
if cmp -s a.txt c.txt; then ok "theory T05 --lr=0.01 = lr=0.01"; else bad "theory --lr=0.01 differs"; fi
grep -q 'lr=0.01' b.txt && ok "theory echoes lr=0.01" || bad "theory output lacks lr=0.01"
usage_error "theory: unknown --key named" "'--frob': unknown key for T05" theory T05 --frob 1
usage_error "theory: --lr without a value" "'--lr': missing value" theory T05 --lr
usage_error "theory: bad --lr value" "lr: 'x' is not" theory T05 --lr x

# one default seed
for c in "round 0.1 -r sr" "op add 1 0x1p-9 -f bf16 -r sr"; do
    "$srlab" $c >d.txt 2>&1
    "$srlab" $c --seed 1 >e.txt 2>&1
    if cmp -s d.txt e.txt && grep -q '^seed      1 (pcg32)' d.txt; then ok "$c: default seed 1"
    else bad "$c: default seed is not 1: $(grep '^seed' d.txt)"; fi
done
for c in round op; do
    "$srlab" $c --help | grep -q 'default 1, as in every' && ok "$c --help: default seed 1" ||
        bad "$c --help does not state the default seed 1"
done
printf '0.1\n' | "$srlab" round --batch -r sr --comments >f.txt 2>/dev/null
grep -q '^# seed: 1 ' f.txt && ok "round --batch: seed 1 by default" || bad "batch seed: $(grep seed f.txt)"

# -V
v1=$("$srlab" --version) && v2=$("$srlab" -V) && [ "$v1" = "$v2" ] && [ -n "$v1" ] &&
    ok "-V = --version ($v1)" || bad "-V: '$v2' vs '$v1'"
usage_error "-V with arguments" "-V takes no arguments" -V x
"$srlab" --help | grep -q -- '-V, --version' && ok "--help lists -V" || bad "--help lacks -V"

# --threads on train and run
"$srlab" train --problem quadratic --strategy bf16-sr --steps 50 --seeds 3 --threads 1 >t1.csv 2>err.txt ||
    bad "train --threads 1: $(cat err.txt)"
"$srlab" train --problem quadratic --strategy bf16-sr --steps 50 --seeds 3 --threads 2 >t2.csv 2>err.txt ||
    bad "train --threads 2: $(cat err.txt)"
grep -v '^# command' t1.csv >t1.rows
grep -v '^# command' t2.csv >t2.rows
[ -s t1.rows ] && cmp -s t1.rows t2.rows && ok "train: rows identical for --threads 1 and 2" ||
    bad "train --threads changes the rows"
"$srlab" run --problem sum -f fp16 -r sr --n 1000 --seeds 3 --threads 2 >r2.csv 2>err.txt &&
    "$srlab" run --problem sum -f fp16 -r sr --n 1000 --seeds 3 >r1.csv 2>&1 &&
    [ "$(grep -v '^# command' r1.csv)" = "$(grep -v '^# command' r2.csv)" ] &&
    ok "run --threads 2: same rows" || bad "run --threads: $(cat err.txt)"
usage_error "train --threads 0" "--threads: '0'" train --problem quadratic --threads 0
usage_error "run --threads x" "--threads: 'x'" run --problem sum --threads x
for c in train run; do
    "$srlab" $c --help | grep -q -- '--threads N' && ok "$c --help lists --threads" ||
        bad "$c --help lacks --threads"
done
exit $fail
