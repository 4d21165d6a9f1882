#!/bin/sh
# tests/train/cli_train.sh SRLAB: `srlab train` and `srlab theory` from the outside (suite cli).
#   Bad input: exit status 2, exactly one line on standard error naming the argument, standard
#   output empty, and an existing -o FILE untouched (no temporary file left).
#   A diverging run: exit 0, a warning on standard error, the CSV written with a final
#   'diverged' row. A good run: the docs/design.md §11 columns, one block per seed.
#   srlab theory: the listing, each statement, its predictions against values derived by hand
#   from the theory/ formulas, and its bad input.
set -u
. "$(dirname "$0")/../cli_lib.sh"
cli_setup train "$1"
usage_tail="-o out.csv"

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
"$srlab" theory >list.txt 2>stderr && grep -q "^  T01 sr-basics" list.txt &&
    grep -q "^  T05 gd-quadratic" list.txt && grep -q "^  T12 replicas" list.txt &&
    grep -q "^  T13 memory" list.txt && ok "theory: list" || bad "theory: list"
for s in T01 T02 T03 T04 T05 T06 T07 T08 T09 T10 T11 T12 T13 gd-quadratic t08 sr-basics \
    summation implicit-regularization replicas; do
    "$srlab" theory $s >out.txt 2>stderr && [ -s out.txt ] && [ ! -s stderr ] ||
        bad "theory $s: $(cat stderr)"
done
ok "theory: every statement prints"
"$srlab" theory T05 lr=0.01 xstar=0.3 | grep -q "^  stall_distance  *0.09765625 " &&
    ok "theory T05: stall distance 2^-9/0.02" || bad "theory T05: stall distance"
"$srlab" theory T13 | grep -q "^  bf16-sr  *2  *2  *2  *2  *0  *0  *8$" && ok "theory T13: bf16-sr 8" ||
    bad "theory T13: table"
# th_value TEST NAME VALUE ARGS...: `srlab theory ARGS` prints the prediction NAME as VALUE, the
# shortest decimal that reads back as the binary64 number; VALUE ending in "..." gives its
# leading digits (for a formula through exp, log or an inexact division).
th_value() {
    name=$1
    key=$2
    want=$3
    shift 3
    got=$("$srlab" "$@" 2>&1 | sed -n "s/^  $key  *\([^ ]*\) .*/\1/p")
    case $want in
    *...) case $got in "${want%...}"*) ok "$name"; return ;; esac ;;
    *) [ "$got" = "$want" ] && { ok "$name"; return; } ;;
    esac
    bad "$name: $key = '$got' (want $want)"
}
# In bf16 (p = 8) the spacing in [1, 2) is q = 2^-7; x = 1 + 9 2^-11 = 1.00439453125 lies at
# f = 9/16 of its cell: a = x - RD = 9 2^-11, b = RU - x = 7 2^-11.
X=1.00439453125
# T01: p_up = a/q = 9/16; Var = ab = 63 2^-22 = 1.5020370483398438e-05 (exact in binary64);
# the RN bound u|x| = 2^-8 (1 + 9 2^-11) = 0.0039234161376953125.
th_value "theory T01: p_up = 9/16" p_up 0.5625 theory T01 x=$X
th_value "theory T01: variance ab = 63 2^-22" sr_variance 1.5020370483398438e-05 theory T01 x=$X
th_value "theory T01: rn bound u|x|" rn_error_bound 0.0039234161376953125 theory T01 x=$X
# T02, R = 2: F = floor(4 9/16) = 2, P = 2/4; bias = -q (9/16 - 1/2) = -2^-11; the maximum
# q 2^-2 = 2^-9, the mean q 2^-3 = 2^-10; Var = q^2 P (1 - P) = 2^-16.
th_value "theory T02: p_away F/2^R = 1/2" p_away 0.5 theory T02 x=$X r=2
th_value "theory T02: bias -2^-11" bias -0.00048828125 theory T02 x=$X r=2
th_value "theory T02: bias_max 2^-9" bias_max 0.001953125 theory T02 x=$X r=2
th_value "theory T02: bias_mean 2^-10" bias_mean 0.0009765625 theory T02 x=$X r=2
th_value "theory T02: variance 2^-16" variance 1.52587890625e-05 theory T02 x=$X r=2
# T03, bf16 rn, n = 10: h = 9, v = u = 2^-8, gamma = 9 2^-8 / (1 - 9 2^-8) = 9/247;
# lambda = 2: P = 1 - 2 e^-2 = 0.72932943352677...; the harmonic sum stagnates at k = 65 with
# s = 5.0625 (T03's derivation by hand: s_64 = 162 2^-5, t_65 = 63 2^-12 < 2^-6 = ulp/2).
th_value "theory T03: gamma_9 = 9/247" gamma 0.03643724696356275 theory T03 n=10
th_value "theory T03: P(lambda=2) = 1 - 2e^-2" sr_prob 0.729329433526... theory T03 lambda=2
th_value "theory T03: harmonic bf16 rn k = 65" stagnation_k 65 theory T03
th_value "theory T03: harmonic bf16 rn sum 5.0625" stagnation_sum 5.0625 theory T03
th_value "theory T03: pairwise path ceil(log2 1000) = 10" h 10 theory T03 order=pairwise
# T04, bf16 rn, n = 4, m = 1: theta = (1 + 2^-8)^4 - 1 = 2^-6 + 6 2^-16 + 2^-22 + 2^-32
# = 0.01571679138578474521636962890625 (the library goes through expm1 and log1p: leading
# digits); gamma_4 = 4u / (1 - 4u) = 2^-6 / (63 2^-6), one correctly rounded division: the
# binary64 nearest 1/63; lambda_m = sqrt(lambda^2 + 2 ln 1) = lambda.
th_value "theory T04: theta = (1+u)^4 - 1" theta 0.0157167913857847... theory T04 n=4 m=1
th_value "theory T04: gamma_4 = 1/63" gamma_n 0.015873015873015872 theory T04 n=4 m=1
th_value "theory T04: lambda_1 = lambda" lambda_m 3 theory T04 n=4 m=1
# T10, bf16, x* = 1.5 (ulp 2^-7), a = sigma = 1, lr = 2^-7: lr' = 2^-7, sigma_g^2 / sigma^2 =
# 1 + 2^-7 / (2 - 2^-7) = 256/255; penalty = v(r) / r^2 (256/255) at the step's noise r = lr sigma /
# ulp = 1, v(r) = 1/6 - sum_k e^(-2 pi^2 k^2 r^2) / (pi^2 k^2) (theory/T06): 6 v(1) 256/1530 =
# 0.16732026116578214..., 1.6e-9 below the large-r form 256/1530 = 0.16732026143790849;
# RN freeze at x0 = 1.5: 2^-7 / (2 (1 + 3e-4)) = 0.0039050784764...
th_value "theory T10: penalty 6 v(1) 256/1530" relative_penalty 0.1673202611657... theory T10 lr=0.0078125
th_value "theory T10: freeze lr 2^-8/1.0003" rn_freeze_lr 0.00390507847645... theory T10
th_value "theory T10: RN frozen at lr 0.003" rn_at_x0 frozen theory T10 lr=0.003
# T11, bf16, y = 1 + 2^-9 (a = 2^-9, b = 3 2^-9, q = 2^-7): s^2 = 3 2^-18; the shift
# 3 y s^2 = 9 (1 + 2^-9) 2^-18 = 4617 2^-27; exact: + ab (b - a) = 6 2^-27 -> 4623 2^-27;
# the remainder bound ab (a + b) = 12 2^-27.
Y=1.001953125
th_value "theory T11: shift 4617 2^-27" shift 3.4399330615997314e-05 theory T11 y=$Y
th_value "theory T11: exact shift 4623 2^-27" shift_exact 3.444403409957886e-05 theory T11 y=$Y
th_value "theory T11: remainder 12 2^-27" remainder_bound 8.940696716308594e-08 theory T11 y=$Y
# T12, bf16 sr, x = 1.5 (q = 2^-7), lr update = 2^-9 = q/4: xe = 1.5 - 2^-9 lies 3/4 of the
# cell above 1.4921875, so p = 3/4, 2 p (1 - p) = 3/8, step_d2 = 3/8 2^-14
# = 2.288818359375e-05; over 1000 steps and 10 weights 10^4 3/8 2^-14 = 0.2288818359375;
# item 4's approximation 2 lr |update| q = 2^-15. With rn the write is deterministic: 0.
th_value "theory T12: p = 3/4" p_away 0.75 theory T12 lr=0.001953125
th_value "theory T12: 2p(1-p) = 3/8" diff_prob 0.375 theory T12 lr=0.001953125
th_value "theory T12: step_d2 = 3/8 2^-14" step_d2 2.288818359375e-05 theory T12 lr=0.001953125
th_value "theory T12: d2 over 1000 steps, 10 weights" d2 0.2288818359375 \
    theory T12 lr=0.001953125 steps=1000 params=10
th_value "theory T12: item 4 2 lr |u| q = 2^-15" step_d2_small 3.0517578125e-05 \
    theory T12 lr=0.001953125
th_value "theory T12: rn write, no drift" step_d2 0 theory T12 rounding=rn
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
th_error "theory: unknown statement lists all" "known: T01 sr-basics, .* T13 memory, T14 sr-vs-rn.*)" theory T99
th_error "theory T01: x beyond xmax" "x: '1e40' is beyond" theory T01 x=1e40
th_error "theory T01: x not a number" "x: 'abc' is not a number" theory T01 x=abc
th_error "theory T02: r 0" "r: '0' is out of range" theory T02 r=0
th_error "theory T02: r 65" "r: '65' is out of range" theory T02 r=65
th_error "theory T03: n 0" "n: '0'" theory T03 n=0
th_error "theory T03: bad order" "order: 'sideways' is not an order" theory T03 order=sideways
th_error "theory T03: order with a key" "order: 'recursive,kahan=on'" theory T03 order=recursive,kahan=on
th_error "theory T03: blocked:0" "order: 'blocked:0'" theory T03 order=blocked:0
th_error "theory T03: bad rounding" "rounding: unknown rounding mode 'upward'" theory T03 rounding=upward
th_error "theory T03: lambda 0" "lambda: '0' must be positive" theory T03 lambda=0
th_error "theory T03: nmax 0" "nmax: '0'" theory T03 nmax=0
th_error "theory T04: m 0" "m: '0'" theory T04 m=0
th_error "theory T04: n too large" "n: '20000000' is too large" theory T04 n=20000000
th_error "theory T10: unstable lr" "lr: a lr / sigma = 3 must be below 2" theory T10 lr=3
th_error "theory T10: delta negative" "delta: '-1' must not be negative" theory T10 delta=-1
th_error "theory T10: sigma 0" "sigma: '0' must be positive" theory T10 sigma=0
th_error "theory T11: y inf" "y: 'inf'" theory T11 y=inf
th_error "theory T11: lr 0" "lr: '0' must be positive" theory T11 lr=0
th_error "theory T12: params 0" "params: '0'" theory T12 params=0
th_error "theory T12: bad rounding" "rounding: unknown rounding mode 'sx'" theory T12 rounding=sx
th_error "theory T12: update not a number" "update: 'x' is not a number" theory T12 update=x
th_error "theory T12: update leaves the range" "update: the weight 3e38" theory T12 x=3e38 lr=1 update=-1e38
exit $fail
