#!/bin/sh
# tests/train/cli_train.sh SRLAB: `srlab train` and `srlab theory` from the outside (suite cli).
#   Bad input: exit status 2, exactly one line on standard error naming the argument, standard
#   output empty, and an existing -o FILE untouched (no temporary file left).
#   A diverging run: exit 0, a warning on standard error, the CSV written with a final
#   'diverged' row. A good run: the DESIGN §11 columns, one block per seed.
#   srlab theory: the listing, each statement, and its bad input.
set -u
srlab=$1
case $srlab in /*) ;; *) srlab=$PWD/$srlab ;; esac
tmp=$(mktemp -d "${TMPDIR:-/tmp}/srlab-train.XXXXXX") || exit 99
trap 'rm -rf "$tmp"' EXIT HUP INT TERM
cd "$tmp" || exit 99
fail=0
ok() { echo "PASS $1"; }
bad() { echo "FAIL $1"; fail=1; }

# usage_error NAME PATTERN ARGS...: exit 2, one stderr line matching PATTERN, no stdout, out.csv
# untouched.
usage_error() {
    name=$1
    pat=$2
    shift 2
    echo precious >out.csv
    "$srlab" "$@" -o out.csv >stdout 2>stderr
    rc=$?
    lines=$(wc -l <stderr)
    if [ $rc -ne 2 ]; then bad "$name: exit $rc (want 2): $(cat stderr)"; return; fi
    if [ "$lines" -ne 1 ]; then bad "$name: $lines lines on stderr: $(cat stderr)"; return; fi
    if ! grep -q -- "$pat" stderr; then bad "$name: message '$(cat stderr)' lacks '$pat'"; return; fi
    if [ -s stdout ]; then bad "$name: standard output not empty"; return; fi
    if [ "$(cat out.csv)" != precious ]; then bad "$name: out.csv changed"; return; fi
    if ls -A | grep -q '\.tmp-'; then bad "$name: temporary file left"; return; fi
    ok "$name"
}

T="train --problem quad1d"
usage_error "unknown strategy" "^srlab train: --strategy: unknown strategy 'nope'" $T --strategy nope
usage_error "unknown optimizer" "^srlab train: --opt: unknown value 'lion'" $T --opt lion
usage_error "unknown problem" "^srlab train: --problem: unknown problem 'quad2d'" train --problem quad2d
usage_error "no problem" "^srlab train: --problem is required" train --lr 0.1
usage_error "lr 0" "^srlab train: --lr: 0 is not a positive" $T --lr 0
usage_error "lr negative" "^srlab train: --lr: -1 is not a positive" $T --lr -1
usage_error "lr nan" "^srlab train: --lr: nan is not a positive" $T --lr nan
usage_error "lr inf" "^srlab train: --lr: inf is not a positive" $T --lr inf
usage_error "lr text" "^srlab train: --lr: 'fast' is not a number" $T --lr fast
usage_error "kappa below 1" "^srlab train: --kappa: 0.5 is below 1" train --problem quadratic --kappa 0.5
usage_error "format cannot hold x0" "cannot hold its initial value x0\[0\] = 1000" $T --format e4m3 --x0 1000
usage_error "fp32 update, fp64 weights" "^srlab train: --param-format: fp64: .*cannot hold" $T --strategy bf16-rn --param-format fp64
usage_error "unknown key" "frobnicate" $T --frobnicate 1
usage_error "key of another problem" "kappa" $T --kappa 3
usage_error "shorthand conflict" "format 'bf16' and param-format 'fp16'" $T --format bf16 --param-format fp16
usage_error "bad rounding" "^srlab train: --rounding: " $T --rounding sr:r=0
usage_error "given twice" "given twice" $T --lr 0.1 --lr 0.2
usage_error "seeds 0" "seeds" $T --seeds 0

# a diverging run: exit 0, warning, CSV with the diverged row
"$srlab" $T --lr 3 --steps 1000 --log-every 100 -o div.csv 2>stderr
rc=$?
[ $rc -eq 0 ] && ok "diverged: exit 0" || bad "diverged: exit $rc"
grep -q "^srlab train: warning: seed 1: diverged at step" stderr && ok "diverged: warning" ||
    bad "diverged: warning '$(cat stderr)'"
tail -n 1 div.csv | grep -q ",diverged," && ok "diverged: last row" || bad "diverged: last row"
grep -q "^# warning (seed 1): diverged at step" div.csv && ok "diverged: '#' line" ||
    bad "diverged: no '#' line"

# a good run: columns, seeds, comments
"$srlab" $T --strategy bf16-sr --lr 0.01 --steps 20 --log-every 10 --seeds 3 >good.csv 2>stderr
rc=$?
[ $rc -eq 0 ] && [ ! -s stderr ] && ok "good: exit 0, quiet" || bad "good: exit $rc $(cat stderr)"
hdr=$(grep -v '^#' good.csv | head -n 1)
want="problem,opt,strategy,format,rounding,lr,a,xstar,x0,steps,log-every,seed,step,lr_used,loss,loss_gap,dist_to_opt,grad_norm,lost_update_frac,status,x"
[ "$hdr" = "$want" ] && ok "good: header" || bad "good: header '$hdr'"
[ "$(grep -v '^#' good.csv | wc -l)" -eq 10 ] && ok "good: 3 seeds x 3 rows" || bad "good: rows"
grep -v '^#' good.csv | sed -n 2p | grep -q "^quad1d,sgd,bf16-sr,bf16,sr:r=16,0.01," &&
    ok "good: axis values in force" || bad "good: axis values"
[ "$(grep -v '^#' good.csv | cut -d, -f12 | sort -u | grep -c .)" -eq 4 ] &&
    ok "good: seed column 1..3" || bad "good: seed column"
grep -q "^# strategy: bf16-sr: param bf16 sr:r=16.*4 bytes per parameter with sgd" good.csv &&
    ok "good: strategy line" || bad "good: strategy line"
# the same command again: identical bytes
"$srlab" $T --strategy bf16-sr --lr 0.01 --steps 20 --log-every 10 --seeds 3 >good2.csv 2>/dev/null
cmp -s good.csv good2.csv && ok "good: reproducible" || bad "good: differs between runs"

# help
"$srlab" train --help >help.txt 2>stderr
rc=$?
[ $rc -eq 0 ] && ok "help: exit 0" || bad "help: exit $rc"
for k in --param-format --grad-rounding --state-format --master-format --kahan --update-arith \
    --grad-noise --warmup --lr-min --beta2 --kappa --samples --l2 bf16-sr-exact adamw momentum \
    logreg "(default 0.999)" examples:; do
    grep -q -- "$k" help.txt || bad "help: lacks $k"
done
ok "help: keys, defaults, problems, optimizers, strategies, examples"

# srlab theory
"$srlab" theory >list.txt 2>stderr && grep -q "^  T05 gd-quadratic" list.txt &&
    grep -q "^  T13 memory" list.txt && ok "theory: list" || bad "theory: list"
for s in T05 T06 T07 T08 T09 T13 gd-quadratic t08; do
    "$srlab" theory $s >out.txt 2>stderr && [ -s out.txt ] && [ ! -s stderr ] ||
        bad "theory $s: $(cat stderr)"
done
ok "theory: every statement prints"
"$srlab" theory T05 lr=0.01 xstar=0.3 | grep -q "^  stall_distance  *0.09765625 " &&
    ok "theory T05: stall distance 2^-9/0.02" || bad "theory T05: stall distance"
"$srlab" theory T13 | grep -q "^  bf16-sr  *2  *2  *2  *2  *0  *0  *8$" && ok "theory T13: bf16-sr 8" ||
    bad "theory T13: table"
th_error() {
    name=$1
    pat=$2
    shift 2
    "$srlab" "$@" >stdout 2>stderr
    rc=$?
    if [ $rc -eq 2 ] && [ "$(wc -l <stderr)" -eq 1 ] && grep -q -- "$pat" stderr && [ ! -s stdout ]; then
        ok "$name"
    else
        bad "$name: exit $rc, '$(cat stderr)'"
    fi
}
th_error "theory: unknown statement" "unknown statement 'T99'" theory T99
th_error "theory: unknown key" "'foo=1': unknown key for T05" theory T05 foo=1
th_error "theory: not key=value" "expected key=value" theory T05 lr
th_error "theory: lr 0" "lr: '0' must be positive" theory T05 lr=0
th_error "theory: bad format" "format" theory T06 format=bf17
th_error "theory: twice" "given twice" theory T08 lr=1 lr=2
exit $fail
