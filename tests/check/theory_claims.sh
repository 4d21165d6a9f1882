#!/bin/sh
# tests/check/theory_claims.sh SRLAB SRCDIR [full]: the numbers theory/*.md and theory/paper.md
# quote, recomputed from the code, so that neither a document nor the code can drift from what
# the other says (the study's numbers: tests/sweep/study_claims.sh).
#
# Each claim names a file, a phrase of one of its lines that holds the number (a fixed string:
# the phrase must be in the file) and the number as quoted; the number is recomputed (`srlab
# theory`, `srlab check`, awk on their output) and formatted to the quoted digits, and must read
# the same.
#   without `full` (suite unit): the predictions `srlab theory` prints and what follows from them
#             by arithmetic (seconds);
#   with `full` (suite slow): also every number of a check run: the measured values, intervals
#             and minimum detectable effects of `srlab check` at its full and --quick sizes, and
#             what the experiment mutations the documents quote measure (`srlab check --mutate
#             experiment ID...` at the full size, every row FAILing) (minutes on 2 cores;
#             SRL_CLAIMS_TABLES=DIR takes the tables from DIR/full.txt, DIR/quick.txt and, if
#             there, DIR/mut.txt instead, as `srlab check [--quick | --mutate experiment $mids]
#             >FILE` writes them; mids is below).
# Not claims here: parameters (lr 0.01, 2^22 draws), definitions (u = 2^-8), the cited
# literature's numbers (the paper's perplexities), the issue measurements T14 cites beside its
# model, CPU times, and docs/study's pages (study_claims.sh; the study's numbers a theory file
# quotes are recomputed here from docs/study's data files).
. "$(dirname "$0")/../cli_lib.sh"
src=$(cd "$2" && pwd)
cli_setup theory-claims "$1"
full=${3:-}
T=$src/theory

# claim FILE PHRASE QUOTED GOT: PHRASE is on a line of theory/FILE, QUOTED is in PHRASE, and the
# recomputed GOT reads QUOTED.
claim() {
    if ! grep -qF -- "$2" "$T/$1"; then
        bad "$1: the phrase '$2' is not there"
    elif ! printf '%s' "$2" | grep -qF -- "$3"; then
        bad "$1: '$3' is not in '$2'"
    elif [ "$3" != "$4" ]; then
        bad "$1: '$2' quotes $3, the code gives $4"
    else
        ok "$1: $3 ($2)"
    fi
}
# awk with pi, T14's v(r) = E[frac(s)(1 - frac(s))] for s ~ N(0, r^2) (its Fourier series), the
# normal upper tail Q (Abramowitz-Stegun 26.2.17, error < 1e-7) and its inverse zq.
AWKLIB='function pi() { return 3.14159265358979324 }
function v(r,  k, s) { s = 1 / 6; for (k = 1; k <= 2000; k++) s -= exp(-2 * pi()^2 * k^2 * r^2) / (pi()^2 * k^2); return s }
function Q(z,  t) { t = 1 / (1 + 0.2316419 * z); return exp(-z * z / 2) / sqrt(2 * pi()) * t * (0.319381530 + t * (-0.356563782 + t * (1.781477937 + t * (-1.821255978 + t * 1.330274429)))) }
function zq(p,  a, b, m, i) { a = 0; b = 40; for (i = 0; i < 200; i++) { m = (a + b) / 2; if (Q(m) > p) a = m; else b = m }; return m }'
# f FMT EXPR: EXPR evaluated by awk (with AWKLIB), printed with FMT; pct EXPR: 100 EXPR, %.0f.
f() { awk "$AWKLIB"' BEGIN { s = sprintf("'"$1"'", '"$2"'); sub(/e-0/, "e-", s); sub(/e\+0/, "e+", s);
    print s }'; }
aw() { awk "$AWKLIB"' BEGIN { '"$1"' }'; }
pct() { f %.0f "100 * ($1)"; }
# th STATEMENT ARGS NAME: the value `srlab theory STATEMENT ARGS` prints on line NAME.
th() {
    "$srlab" theory $1 $2 >th.out 2>&1 || { bad "srlab theory $1 $2: $(cat th.out)"; echo nan; return; }
    awk -v n="$3" '$1 == n { print $2; exit }' th.out
}
# thm STATEMENT ARGS PATTERN: the number that follows PATTERN in that output.
thm() {
    "$srlab" theory $1 $2 >th.out 2>&1
    sed -n "s/.*$3 *\([-0-9.e+]*\).*/\1/p" th.out | head -1
}

# ---- T06: the penalty in r ----
p=$(th T06 lr=0.002 relative_penalty)
large=$(th T06 lr=0.002 penalty_large_r)
claim T06-noisy-sgd.md "lr = 0.002, sigma = 1: v(r)/r^2 = 2.117" 2.117 "$(f %.4g "$p")"
claim T06-noisy-sgd.md "ulp^2/(6 lr^2 sigma^2) = 2.543)" 2.543 "$(f %.4g "$large")"
claim T06-noisy-sgd.md "overstates it**: by 20% at r = 0.256" 20 "$(pct "$large / $p - 1")"
lr2=$(f %.17g "0.2 * 2^-7")
claim T06-noisy-sgd.md "by 39% at r = 0.2," 39 \
    "$(pct "$(th T06 lr=$lr2 penalty_large_r) / $(th T06 lr=$lr2 relative_penalty) - 1")"
# the iterate's spread sqrt(lr sigma^2 / (a (2 - lr a))) in spacings at r = 0.256 and 0.2
claim T06-noisy-sgd.md "although the iterate's spread there is 4.0 and 3.6 spacings" 4.0 \
    "$(f %.1f "sqrt(0.002 / 1.998) / 2^-7")"
claim T06-noisy-sgd.md "although the iterate's spread there is 4.0 and 3.6 spacings" 3.6 \
    "$(f %.1f "sqrt($lr2 / (2 - $lr2)) / 2^-7")"
claim T06-noisy-sgd.md "position uniform: at bf16, x* = 1.5, lr = 0.002 the spread is 4.05 spacings" \
    4.05 "$(f %.2f "sqrt(0.002 / 1.998) / 2^-7")"
claim T06-noisy-sgd.md "2.54, while 200 paired seeds" 2.54 "$(f %.3g "$large")"
claim T06-noisy-sgd.md "(v(r)/r^2 = 2.117; T06c)" 2.117 "$(f %.4g "$p")"
claim T06-noisy-sgd.md "0.44% (within e^(-2 pi^2 r^2) 6/pi^2)" 0.44 "$(f %.2f "100 * (1 / 6 - v(0.5)) * 6")"
# step 3's neglected term: the iterate's spread adds r^2 lr a (1 + P) / (2 - lr a) to r^2; its
# largest effect on v over lr a <= 0.01 (P at each lr) must be below the 0.1% quoted
worst=$(aw 'm = 0; for (i = 1; i <= 400; i++) { lr = 0.01 * i / 400; r = lr / 2^-7; P = v(r) / r^2;
    e = v(r * sqrt(1 + lr * (1 + P) / (2 - lr))) / v(r) - 1; if (e > m) m = e }; print 100 * m')
awk -v w="$worst" 'BEGIN { exit !(w < 0.2) }' && claim T06-noisy-sgd.md "changes v by less than 0.2%" 0.2 0.2 ||
    bad "T06 step 3's neglected term: $worst%, not below the quoted 0.2%"
claim T06-noisy-sgd.md "by 0.08% at T06c's r = 0.256" 0.08 "$(f %.2f "100 * (v(0.256 * sqrt(1 + 0.002 * (1 + $p) / 1.998)) / v(0.256) - 1)")"
claim T06-noisy-sgd.md "the neglected term of step 3 is below 0.2%" 0.2 "$(f %.1f "0.2 * ($worst < 0.2)")"
claim T06-noisy-sgd.md "T06c (lr 0.002, r 0.256, spread 4.05 spacings)" 0.256 "$(th T06 lr=0.002 r)"
claim T06-noisy-sgd.md "T06a (lr 0.01, r 1.28)" 1.28 "$(th T06 lr=0.01 r)"
claim T06-noisy-sgd.md "T06b (lr 0.005, r 0.64)" 0.64 "$(th T06 lr=0.005 r)"
claim T06-noisy-sgd.md "v(r)/r^2 = 2.117; the prediction mutation is" 2.117 "$(f %.4g "$p")"
claim T06-noisy-sgd.md "the large-r form 2.543 (the statement before)" 2.543 "$(f %.4g "$large")"

# ---- T10: the model of Adam with momentum ----
claim T10-adam-convergence.md "(T10a: lr 0.01 gives 0.1022 in bf16" 0.1022 "$(f %.4g "$(th T10 lr=0.01 relative_penalty)")"
claim T10-adam-convergence.md "T10b: lr 0.005 gives 0.4078)" 0.4078 "$(f %.4g "$(th T10 lr=0.005 relative_penalty)")"
claim T10-adam-convergence.md "0.1020 at lr 0.01, 0.4075 at 0.005;" 0.1020 "$(f %.4f "$(th T10 lr=0.01 model_penalty)")"
claim T10-adam-convergence.md "0.1020 at lr 0.01, 0.4075 at 0.005;" 0.4075 "$(f %.4f "$(th T10 lr=0.005 model_penalty)")"
m5=$(th T10 "lr=0.005 beta1=0.9" model_penalty)
claim T10-adam-convergence.md "beta1 = 0.9: 0.2456 at 0.005, T10g)" 0.2456 "$(f %.4f "$m5")"
claim T10-adam-convergence.md "r_m = 0.147 and" 0.147 "$(f %.3f "$(thm T10 "lr=0.005 beta1=0.9" "r_m =")")"
claim T10-adam-convergence.md "P_SR = 0.246, where the beta1 = 0 formula gives 0.408;" 0.246 "$(f %.3f "$m5")"
claim T10-adam-convergence.md "P_SR = 0.246, where the beta1 = 0 formula gives 0.408;" 0.408 \
    "$(f %.3f "$(th T10 lr=0.005 relative_penalty)")"
claim T10-adam-convergence.md "at lr = 0.01 the two agree (0.099" 0.099 "$(f %.3f "$(th T10 "lr=0.01 beta1=0.9" model_penalty)")"
claim T10-adam-convergence.md "and 0.102), at lr = 0.002" 0.102 "$(f %.3f "$(th T10 lr=0.01 relative_penalty)")"
claim T10-adam-convergence.md "threefold (0.68 and 2.12)" 0.68 "$(f %.2f "$(th T10 "lr=0.002 beta1=0.9" model_penalty)")"
claim T10-adam-convergence.md "threefold (0.68 and 2.12)" 2.12 "$(f %.2f "$(th T10 lr=0.002 relative_penalty)")"
claim T10-adam-convergence.md "where its formula is 66% too large at lr 0.005" 66 \
    "$(pct "$(th T10 lr=0.005 relative_penalty) / $m5 - 1")"
claim T10-adam-convergence.md "the beta1 = 0 formula by 1.66 (T10g)" 1.66 \
    "$(f %.2f "$(th T10 lr=0.005 relative_penalty) / $m5")"
claim T10-adam-convergence.md "(the beta1 = 0 formula is 66% off)" 66 \
    "$(pct "$(th T10 lr=0.005 relative_penalty) / $m5 - 1")"
claim T10-adam-convergence.md "x = 1.5: 2^-8 / (1 + delta) = 0.0039)" 0.0039 "$(f %.2g "$(th T10 "" rn_freeze_lr)")"
# v_hat's relative sd sqrt(2 (1 - beta2)/(1 + beta2)) and the neglected 2 (1 - beta2) (3/8)
claim T10-adam-convergence.md "standard deviation is sqrt(2 (1 - beta2) / (1 + beta2)) ~ 3% for" 3 \
    "$(pct "sqrt(2 * 0.001 / 1.999)")"
claim T10-adam-convergence.md "2 (1 - beta2) (3/8) ~ 0.08%;" 0.08 "$(f %.2f "100 * 2 * 0.001 * 3 / 8")"
claim T10-adam-convergence.md "All together below 2 (1 - beta2) = 0.2% of P_SR" 0.2 "$(f %.1f "100 * 2 * 0.001")"
# T10d/e: s = lr g / (g + eps) against the spacings 2^-11 .. 2^-2 of x0_i = 1.5 2^(i-4): the
# spacings moved per step (rint(s/q)) of the coordinates that move, their relative biases, and
# how many are frozen
t10de=$(aw 's = 0.003 * 1e-4 / (1e-4 + 1e-8); fz = 0; n = 0;
    for (i = 0; i < 10; i++) { q = 2^(i - 11); k = int(s / q + 0.5); if (k == 0) { fz++; continue }
        b = 100 * (k * q - s) / s; n++; K[n] = k; B[n] = sprintf(b < -10 || b > 10 ? "%+.0f%%" : "%+.1f%%", b) }
    for (j = 1; j <= n; j++) { k1 = k1 (j == 1 ? "" : j == n ? " and " : ", ") K[j];
        b1 = b1 (j == 1 ? "" : j == n ? " and " : ", ") B[j] }
    print k1 "|" b1 "|" fz')
claim T10-adam-convergence.md "by 6, 3, 2 and 1 spacings per step" "6, 3, 2 and 1" "${t10de%%|*}"
b=${t10de#*|}
claim T10-adam-convergence.md "relative biases -2.3%, -2.3%, +30% and +30% of s)" \
    "-2.3%, -2.3%, +30% and +30%" "${b%%|*}"
claim T10-adam-convergence.md "and six are frozen (s < q_i/2 from the binade" six \
    "$(echo "${t10de##*|}" | sed 's/^6$/six/')"

# ---- T12: the error of step 3's p_r = p_0 under decoupled decay ----
claim T12-replicas.md "less than 3 10^-4 of" "3 10^-4" "$(f %.0f "1e-3^2 * 100 * 3 * 1e4") 10^-4"
# T12c (AdamW, wd 1, lr 10^-3, 200 steps): 1 - (1 - k^200) / ((1 - k) 200), k = (1 - lr wd)^2
claim T12-replicas.md "the contraction lowers the prediction by 18% for steady increments;" 18 \
    "$(pct "1 - (1 - 0.999^400) / ((1 - 0.999^2) * 200)")"
# item 3's contraction on the GPT of experiments/gpt_replicas.ini: the sum D of the recursion
# D <- k_t D + V_t (k_t = srl_t12_decay_keep's (1 - lr_t wd)^2, AdamW) against the uncontracted
# sum of V_t at step T, 1 - D/sum V, with srl_optim_lr's schedule (lr_t = lr t/warmup over the
# warm-up, then cosine to lr-min = 0 at T): steady V_t, and V_t proportional to lr_t (item 4)
ini=$src/experiments/gpt_replicas.ini
iv() { sed -n "/^\[sweep\]/,/^\[/s/^$1 *= *//p" "$ini" | head -1; }
t12g=$(aw "lr = $(iv lr); wd = $(iv wd); wu = $(iv warmup); T = $(iv steps)"'
    for (t = 1; t <= T; t++) { l = t <= wu ? lr * t / wu : lr / 2 * (1 + cos(pi() * (t - wu) / (T - wu)))
        k = (1 - l * wd)^2; D1 = k * D1 + 1; S1 += 1; D2 = k * D2 + l; S2 += l }
    printf "%.0f %.0f %d", 100 * (1 - D1 / S1), 100 * (1 - D2 / S2), T')
claim T12-replicas.md "the sum at step 1200 is 14% below the uncontracted one for steady increments and 21% for" \
    "1200 is 14%" "$(echo "$t12g" | awk '{ print $3 " is " $1 "%" }')"
claim T12-replicas.md "the sum at step 1200 is 14% below the uncontracted one for steady increments and 21% for" \
    21 "$(echo "$t12g" | awk '{ print $2 }')"

# ---- T15: the small-h form and RN's fixed point ----
claim T15-heat-equation.md "S = 1.352, not pi^2/6 = 1.645" 1.352 \
    "$(aw 's = pi()^2 / 6; for (k = 1; k < 100; k++) s -= exp(-2 * pi()^2 * k^2 / 16) / k^2; printf "%.3f", s')"
claim T15-heat-equation.md "S = 1.352, not pi^2/6 = 1.645" 1.645 "$(f %.3f "pi()^2 / 6")"
claim T15-heat-equation.md "t = 1/16: P = 28 at m = 128, 24 of them at step 1" 28 "$(th T15 m=128 rn_passes)"
claim T15-heat-equation.md "t = 1/16: P = 28 at m = 128, 24 of them at step 1" 24 "$(thm T15 m=128 "pass before RN stagnates:")"
claim T15-heat-equation.md "fixed point after 2 steps, a lost" 2 "$(thm T15 m=128 "fixed point after")"
lost=$(thm T15 m=128 "the lost fraction 1 - passes\\/updates (L != 0) is")
claim T15-heat-equation.md "fraction of 0.9999232 = 1 - 7.7e-5; P = 2 at m = 256;" 0.9999232 "$(f %.7f "$lost")"
claim T15-heat-equation.md "fraction of 0.9999232 = 1 - 7.7e-5; P = 2 at m = 256;" 7.7e-5 "$(f %.1e "1 - $lost")"
claim T15-heat-equation.md "fraction of 0.9999232 = 1 - 7.7e-5; P = 2 at m = 256;" "P = 2" "P = $(th T15 m=256 rn_passes)"
claim T15-heat-equation.md "none at m = 512)" none "$(th T15 m=512 rn_passes | sed 's/^0$/none/')"
claim T15-heat-equation.md "whenever dt mu1/u < 1/2: at m = 128 in fp16, 7.7e-5 of the updates pass" 7.7e-5 \
    "$(f %.1e "1 - $lost")"
claim T15-heat-equation.md "(dt mu1 / u = 0.308 < 1/2)" 0.308 "$(f %.3f "$(th T15 m=128 update_ratio)")"
claim T15-heat-equation.md "(28 passes of 364546 updates)" 28 "$(th T15 m=128 rn_passes)"
claim T15-heat-equation.md "(28 passes of 364546 updates)" 364546 \
    "$(f %.0f "$(th T15 m=128 rn_passes) / (1 - $lost)")"
# the statement before (u^2/(12 r h): twice the bound's RMS limit): bound / old form at large t
for mr in 64:0.508 256:0.502 1024:0.5005; do
    m=${mr%%:*} want=${mr##*:}
    b=$(th T15 "m=$m t=2" sr_rms_bound) l=$(th T15 "m=$m t=2" sr_rms_limit)
    claim T15-heat-equation.md "0.508, 0.502, 0.5005 at m = 64, 256, 1024" "$want" \
        "$(f "%.$(( ${#want} - 2 ))f" "$b / (2 * $l)")"
done

# ---- T16: plain SR, from the law on the grid ----
pl=$(th T16 "" plain_sr_ms) pu=$(th T16 "" plain_sr_ms_uniform) ka=$(th T16 "" kahan_sr_ms)
claim T16-kahan-updates.md "(bf16): 5.63e-4, 148 times Kahan's 3.79e-6" 5.63e-4 "$(f %.2e "$pl")"
claim T16-kahan-updates.md "(bf16): 5.63e-4, 148 times Kahan's 3.79e-6" 148 "$(f %.0f "$pl / $ka")"
claim T16-kahan-updates.md "(bf16): 5.63e-4, 148 times Kahan's 3.79e-6" 3.79e-6 "$(f %.2e "$ka")"
claim T16-kahan-updates.md "(ulp^2/6)(1 - c^(2t))/(1 - c^2) = 8.04e-4, 212 times)" 8.04e-4 "$(f %.2e "$pu")"
claim T16-kahan-updates.md "(ulp^2/6)(1 - c^(2t))/(1 - c^2) = 8.04e-4, 212 times)" 212 "$(f %.0f "$pu / $ka")"
claim T16-kahan-updates.md "3.794e-6 (plain SR: 5.63e-4, 148 times more)." 3.794e-6 "$(f %.3e "$ka")"
claim T16-kahan-updates.md "3.794e-6 (plain SR: 5.63e-4, 148 times more)." 5.63e-4 "$(f %.2e "$pl")"
claim T16-kahan-updates.md "over 4000 seeds (quick 1000) against the law's 5.63e-4;" 5.63e-4 "$(f %.2e "$pl")"
claim T16-kahan-updates.md "uniform-cell value 8.04e-4." 8.04e-4 "$(f %.2e "$pu")"
claim T16-kahan-updates.md "(or the 148-fold accumulation of plain SR)" 148 "$(f %.0f "$pl / $ka")"
claim T16-kahan-updates.md "so the uniform-cell value (43% above) fails" 43 "$(pct "$pu / $pl - 1")"
claim T16-kahan-updates.md "(here 7e-4 against 3.9e-3)" 7e-4 "$(f %.0e "1e-3 * 0.7")"
claim T16-kahan-updates.md "(here 7e-4 against 3.9e-3)" 3.9e-3 "$(f %.1e "2^-8")"

# ---- T01: the MDE arithmetic of the probes rounded N times (z: two-sided 1e-6 over 7 probes) ----
z7=$(f %.6f "zq(1e-6 / 14)") z99=$(f %.6f "zq(0.01)")
claim T01-sr-basics.md "(about 5.3 for seven probes at 1e-6)" 5.3 "$(f %.1f "$z7")"
claim T01-sr-basics.md "so about \`7.6 sqrt(f(1-f)/N)\`." 7.6 "$(f %.1f "$z7 + $z99")"
# mdef FMT F: (z + z_0.99) sqrt(F (1 - F) / 2^22), T01a's MDE at a probe whose fraction is F
mdef() { f "$1" "($z7 + $z99) * sqrt(($2) * (1 - ($2)) / 2^22)"; }
claim T01-sr-basics.md "MDE 1.9e-3 spacings of bias at \`f = 1/2\`, 7e-4 at the" 1.9e-3 "$(mdef %.1e 0.5)"
claim T01-sr-basics.md "MDE 1.9e-3 spacings of bias at \`f = 1/2\`, 7e-4 at the" 7e-4 \
    "$(mdef %.0e "3e-7 / 2^-24 - int(3e-7 / 2^-24)")" # the fp16 subnormal probe x = 3e-7
claim T01-sr-basics.md "fp16 subnormal probe, 2e-4 at the probe with \`f = 3/1024\`" 2e-4 "$(mdef %.0e "3 / 1024")"
claim T01-sr-basics.md "\`floor(256 f)/256 = 0\` instead of \`f = 3/1024\`, a deviation of about 15 MDEs" 15 \
    "$(f %.0f "3 / 1024 / (($z7 + $z99) * sqrt(3 / 1024 * (1 - 3 / 1024) / 2^22))")"

# ---- T07: one move of the walk in bf16 at 1.5 ----
claim T07-sr-random-walk.md "spacing, 2^-7, which is 0.52% of 1.5." 0.52 "$(f %.2f "100 * 2^-7 / 1.5")"
# ---- T08, T09: the bf16 thresholds ----
claim T08-weight-decay.md "(bf16: 2^-9 = 0.001953125)" 0.001953125 "$(f %.9f "2^-9")"
claim T09-second-moment.md "i.e. beta2 >= 0.998046875;" 0.998046875 "$(f %.9f "1 - 2^-9")"

# ---- T14: the plateau, lr*, the crossover and the checks' predictions ----
q7=$(f %.17g "2^-7")
claim T14-sr-vs-rn.md "q sigma / (2 sqrt(2 pi)) ~ 0.1995 q sigma" 0.1995 "$(f %.4f "1 / (2 * sqrt(2 * pi()))")"
claim T14-sr-vs-rn.md "(value q sigma/sqrt 24 ~ 0.204 q sigma)" 0.204 "$(f %.3f "1 / sqrt(24)")"
claim T14-sr-vs-rn.md "flat at the plateau (2% lower)" 2 "$(pct "1 - sqrt(24) / (2 * sqrt(2 * pi()))")"
claim T14-sr-vs-rn.md "lr_c = 2.49e-3 at T = 10^3," 2.49e-3 "$(f %.2e "$(th T14 steps=1000 crossover_lr)")"
claim T14-sr-vs-rn.md "1.46e-3 at 10^4, 1.14e-3 at 10^5." 1.46e-3 "$(f %.2e "$(th T14 steps=10000 crossover_lr)")"
claim T14-sr-vs-rn.md "1.46e-3 at 10^4, 1.14e-3 at 10^5." 1.14e-3 "$(f %.2e "$(th T14 steps=100000 crossover_lr)")"
claim T14-sr-vs-rn.md "(lr_c = 1.46e-3 for 10^4 steps)" 1.46e-3 "$(f %.2e "$(th T14 steps=10000 crossover_lr)")"
rn2=$(th T14 "lr=0.002 steps=100000" excess_rn) sr2=$(th T14 "lr=0.002 steps=100000" excess_sr)
claim T14-sr-vs-rn.md "predicted from k and w (8.38e-4, vs" 8.38e-4 "$(f %.2e "$rn2")"
claim T14-sr-vs-rn.md "5.0e-4 exact and 11.4e-4 dithered" 5.0e-4 "$(f %.1e "$(th T14 "lr=0.002 steps=100000" excess_exact)")"
dith=$(f %.17g "0.002 / 4 + $q7^2 / (48 * 0.002)")
claim T14-sr-vs-rn.md "5.0e-4 exact and 11.4e-4 dithered" 11.4e-4 "$(f %.1f "$dith * 1e4")e-4"
claim T14-sr-vs-rn.md "limit (+36%), sr (+86%)." +36 "+$(pct "$dith / $rn2 - 1")"
claim T14-sr-vs-rn.md "limit (+36%), sr (+86%)." +86 "+$(pct "$sr2 / $rn2 - 1")"
claim T14-sr-vs-rn.md "sr alone, predicted 1.559e-3 (the large-r formula:" 1.559e-3 \
    "$(f %.3e "$(th T14 "lr=0.001 steps=25000" excess_sr)")"
claim T14-sr-vs-rn.md "2.79e-3, the prediction mutation)" 2.79e-3 "$(f %.2e "0.001 / 4 + $q7^2 / (24 * 0.001)")"
claim T14-sr-vs-rn.md "not q^2/(24 lr) + lr/4 = 5.2e-3." 5.2e-3 "$(f %.1e "$q7^2 / (24 * 5e-4) + 5e-4 / 4")"

# ---- T15, T16: the frozen fp16 run and the Kahan bands ----
claim T15-heat-equation.md "fp16, m = 512 (dt mu1 / u = 0.019)" 0.019 "$(f %.3f "$(th T15 m=512 update_ratio)")"
claim T16-kahan-updates.md "x0 = 1, 0.977 away from the stall bound" 0.977 "$(f %.3f "$(th T16 "" rn_stall)")"
claim T16-kahan-updates.md "(1.8e-9, from uc)" 1.8e-9 "$(f %.1e "$(th T16 "" kahan_sr_tol)")"

# ---- T02b: the smallest fraction of the four values sr:r=12 never rounds away ----
# src/check/round.c draws their 16 fraction bits below bf16 as F = 8 + (3 random bits)
if grep -qF 'F = i < 8 ? ((w >> 16) & 0xFF) << 8 | (0xF0 + ((w >> 24) & 0xF))' "$src/src/check/round.c" &&
    grep -qF ': 8 + ((w >> 16) & 7);' "$src/src/check/round.c"; then
    claim T02-sr-bits-bias.md "1.2e-4\`, three times the MDE or more)." 1.2e-4 "$(f %.1e "8 / 2^16")"
else
    bad "src/check/round.c: T02b's values are no longer F = 8 + (w >> 16 & 7): recompute T02's 1.2e-4"
fi
# ---- T02, theory/README: the 16-bit write's off-by-one against T02b's power ----
claim T02-sr-bits-bias.md "write moves the mean by 2^-16 = 1.5e-5 of a spacing" 1.5e-5 "$(f %.1e "2^-16")"
claim README.md "has 23 defects built into the library's own paths" 23 \
    "$("$srlab" check --list | sed -n '/^built-in defects/,$p' | grep -c '^  [a-z]')"

# ---- T09, T13, paper.md ----
claim paper.md "smaller: 0.246 against 0.408 at lr 0.005 in bf16" 0.246 "$(f %.3f "$m5")"
claim paper.md "smaller: 0.246 against 0.408 at lr 0.005 in bf16" 0.408 "$(f %.3f "$(th T10 lr=0.005 relative_penalty)")"
claim paper.md "between 2.96 and 4.91 for bf16 and beta2 = 0.999" 2.96 "$(f %.2f "$(th T09 "" rise_ratio_min)")"
claim paper.md "between 2.96 and 4.91 for bf16 and beta2 = 0.999" 4.91 "$(f %.2f "$(th T09 "" rise_ratio_max)")"
claim T09-second-moment.md "from 2.96 to 4.91." 2.96 "$(f %.2f "$(th T09 "" rise_ratio_min)")"
claim T09-second-moment.md "from 2.96 to 4.91." 4.91 "$(f %.2f "$(th T09 "" rise_ratio_max)")"
"$srlab" theory T13 >t13.out 2>&1
mem() { awk -v s="$1" '$1 == s { print s " " $NF; exit }' t13.out; }
for st in fp32 mp bf16-rn bf16-sr; do
    claim paper.md "AdamW: fp32 16, mp 16, bf16-rn 8, bf16-sr 8," "$(mem $st)" "$(mem $st)"
done
claim paper.md "bf16-sr-exact 8, bf16-kahan 10. theory/T13." "$(mem bf16-sr-exact)" "$(mem bf16-sr-exact)"
claim paper.md "bf16-sr-exact 8, bf16-kahan 10. theory/T13." "$(mem bf16-kahan)" "$(mem bf16-kahan)"

# ---- T03: the harmonic stagnation table, and paper.md's bf16 row ----
# stag FORMAT MODE ROW: ROW of T03's table quotes the term k, the sum and t_k that `srlab theory
# T03` gives (the sum and t_k as %.17g; k's first word; a row without t_k quotes none)
stag() {
    k=$(th T03 "format=$1 rounding=$2" stagnation_k)
    sum=$(th T03 "format=$1 rounding=$2" stagnation_sum)
    tk=$(thm T03 "format=$1 rounding=$2" "t_k =")
    claim T03-summation.md "$3" "$(printf '%s' "$3" | awk -F' *[|] *' '{ split($4, w, " "); print w[1] }')" "$k"
    claim T03-summation.md "$3" "$(printf '%s' "$3" | awk -F' *[|] *' '{ print $5 }')" "$(f %.17g "$sum")"
    case $3 in
    *"< 2^"*) claim T03-summation.md "$3" "$(printf '%s' "$3" | awk -F' *[|] *' '{ split($6, w, " "); print w[1] }')" \
        "$(f %.17g "$tk")" ;;
    esac
}
stag bf16 rn "| bf16 | rn | 65 | 5.0625 | 0.015380859375 < 2^-6 |"
stag fp16 rn "| fp16, tf32 | rn | 513 | 7.0859375 | 0.001949310302734375 < 2^-9 |"
stag tf32 rn "| fp16, tf32 | rn | 513 | 7.0859375 | 0.001949310302734375 < 2^-9 |"
stag fp32 rn "| fp32 | rn | 2097152 = 2^21 | 15.403682708740234 | 2^-21 = 2^-21: a tie, s even |"
stag fp32 rna "| fp32 | rna | 2097153 | 15.403683662414551 | the tie went up |"
stag e4m3 rn "| e4m3 | rn | 9 | 3 | |"
stag e5m2 rn "| e5m2 | rn | 5 | 2 | |"
stag bf16 rz "| bf16 | rz, rd | 41 | 4 | |"
stag bf16 rd "| bf16 | rz, rd | 41 | 4 | |"
stag fp16 rz "| fp16 | rz | 257 | 5.74609375 | |"
claim T03-summation.md "| fp32 | rn | 2097152 = 2^21 | 15.403682708740234 | 2^-21 = 2^-21: a tie, s even |" "2^-21 = 2^-21" \
    "$(aw "printf \"2^%d = 2^%d\", log($(thm T03 "format=fp32 rounding=rn" "t_k =")) / log(2), log($(thm T03 "format=fp32 rounding=rn" "ulp(s) =")) / log(2) - 1")"
claim paper.md "(bf16: term 65, sum 5.0625)" "term 65, sum 5.0625" \
    "term $(th T03 "format=bf16 rounding=rn" stagnation_k), sum $(th T03 "format=bf16 rounding=rn" stagnation_sum)"

# ---- T03: fp16 rn's relative error at n = 10^4 (the sum problem, seed 1) ----
"$srlab" run --problem sum -f fp16 -r rn --n 100000 >t03sum.csv 2>&1 ||
    bad "srlab run --problem sum: $(tail -3 t03sum.csv)"
claim T03-summation.md "(\`rel_err\` near 0.6 at \`n = 10^4\` in fp16)" 0.6 \
    "$(grep -v '^#' t03sum.csv | awk -F, 'NR == 1 { for (i = 1; i <= NF; i++) c[$i] = i; next }
        $c["k"] == 10000 { printf "%.1f", $c["rel_err"] }')"
# sr with 8 random bits: the mean over a uniform fraction f of f - floor(256 f)/256 is 2^-9
claim T03-summation.md "drifts toward zero by about \`q/512\` per step" q/512 "q/$(f %.0f "1 / (2^-8 / 2)")"

# ---- T10 step 5: the binary32 moments' error terms (u32 = 2^-24) ----
claim T10-adam-convergence.md "1.2e-6 + 6e-5 + ... < 1e-4 for beta1 = 0.9" 1.2e-6 "$(f %.1e "2 * 2^-24 / 0.1")"
claim T10-adam-convergence.md "1.2e-6 + 6e-5 + ... < 1e-4 for beta1 = 0.9" 6e-5 "$(f %.0e "2^-24 / 0.001")"
claim T10-adam-convergence.md "1.2e-6 + 6e-5 + ... < 1e-4 for beta1 = 0.9" 1e-4 \
    "$(aw 'print (2 * 2^-24 / 0.1 + 2^-24 / 0.001 + 8 * 2^-24 < 1e-4) ? "1e-4" : "no"')"

# ---- T11: T11b's remainder bound against its prediction, q s^2 / (3 y s^2) at y = 1 ----
claim T11-implicit-regularization.md "q/(3y), at most 0.26% of the" 0.26 "$(f %.2f "100 * 2^-7 / 3")"

# ---- T14: the model (in brackets) beside issue 11's measurements, 10^4 steps from x0 1.25 ----
t14m() { f "$1" "$(th T14 "lr=$2 steps=10000" "$3")"; }
claim T14-sr-vs-rn.md "lr 0.01: rn 2.64e-3 [2.640e-3], sr 2.77e-3 [2.768e-3], fp32" 2.640e-3 "$(t14m %.3e 0.01 excess_rn)"
claim T14-sr-vs-rn.md "lr 0.01: rn 2.64e-3 [2.640e-3], sr 2.77e-3 [2.768e-3], fp32" 2.768e-3 "$(t14m %.3e 0.01 excess_sr)"
claim T14-sr-vs-rn.md "2.50e-3 [2.513e-3]; lr 0.002: rn 8.95e-4 [8.38e-4], sr 1.49e-3 [1.560e-3]" 2.513e-3 "$(t14m %.3e 0.01 excess_exact)"
claim T14-sr-vs-rn.md "2.50e-3 [2.513e-3]; lr 0.002: rn 8.95e-4 [8.38e-4], sr 1.49e-3 [1.560e-3]" 8.38e-4 "$(t14m %.2e 0.002 excess_rn)"
claim T14-sr-vs-rn.md "2.50e-3 [2.513e-3]; lr 0.002: rn 8.95e-4 [8.38e-4], sr 1.49e-3 [1.560e-3]" 1.560e-3 "$(t14m %.3e 0.002 excess_sr)"
claim T14-sr-vs-rn.md "[5.01e-4]; lr 5e-4: rn 3.1e-2 frozen [3.125e-2], sr 1.61e-3 [1.560e-3], fp32 1.25e-4" 5.01e-4 "$(t14m %.2e 0.002 excess_exact)"
claim T14-sr-vs-rn.md "[5.01e-4]; lr 5e-4: rn 3.1e-2 frozen [3.125e-2], sr 1.61e-3 [1.560e-3], fp32 1.25e-4" 3.125e-2 "$(t14m %.3e 5e-4 excess_rn)"
claim T14-sr-vs-rn.md "[5.01e-4]; lr 5e-4: rn 3.1e-2 frozen [3.125e-2], sr 1.61e-3 [1.560e-3], fp32 1.25e-4" 1.560e-3 "$(t14m %.3e 5e-4 excess_sr)"
claim T14-sr-vs-rn.md "[1.26e-4]. The SR number at 5e-4" 1.26e-4 "$(t14m %.2e 5e-4 excess_exact)"

# ---- T18: the RHT bound's gain, the aligned input ----
# g / (2 ln 2g + 2): how much smaller the RHT's bound is than the trivial (4/9) 2^-2m ||a||^2 ||b||^2
claim T18-block-scaled-sr.md "3.1 at g = 32, 17.7 at g = 256), and it is reached" 3.1 "$(f %.1f "32 / (2 * log(64) + 2)")"
claim T18-block-scaled-sr.md "3.1 at g = 32, 17.7 at g = 256), and it is reached" 17.7 "$(f %.1f "256 / (2 * log(512) + 2)")"
claim T18-block-scaled-sr.md "with g = 32 (the bound is then only 3.1 times below" 3.1 "$(f %.1f "32 / (2 * log(64) + 2)")"
claim T18-block-scaled-sr.md "(||a||^2 = 42.25, ||b|| = 1)" 42.25 "$(f %.2f "256 * (6.5 / 16)^2")"
# the aligned input under the fixed Hadamard: the single entry 6.5, (4/3) Q(3/4 6.5) on E2M1's
# grid 4, 6 around 4.875
claim T18-block-scaled-sr.md "(16/9)(4.875 - 4)(6 - 4.875) = 1.75)" 1.75 "$(f %.2f "16 / 9 * (4.875 - 4) * (6 - 4.875)")"

# ---- T12: the false-alarm rate of the drift check's 5 standard errors (normal, two-sided) ----
claim T12-replicas.md "about 6e-7 under the normal approximation" 6e-7 "$(f %.0e "2 * Q(5)")"
# ---- T13, paper.md: the tables of bytes per parameter, row by row from srlab theory T13 ----
# T13's rows (every column, the spacing of the table squeezed); paper.md's (moments as m + v, no
# master as -)
for st in fp32 mp bf16-rn bf16-sr bf16-sr-exact bf16-kahan; do
    row=$(grep "^| $st " "$T/T13-memory.md")
    got=$(awk -v s="$st" '$1 == s { print "| " s " | " $2 " | " $3 " | " $4 " | " $5 " | " $6 " | " $7 " | " $8 " |" }' t13.out)
    [ "$(echo "$row" | tr -s ' ')" = "$got" ] && got=$row
    claim T13-memory.md "${row:-| $st |}" "${row:-| $st |}" "$got"
done
for sl in "fp32:fp32" "mp:(bf16, fp32) mixed precision (\`mp\`)" "bf16-rn:vanilla bf16 (\`bf16-rn\`)" \
          "bf16-sr:bf16 + SR (\`bf16-sr\`)"; do
    row=$(awk -v s="${sl%%:*}" '$1 == s { print "| L | " $2 " | " $3 " | " $4 " + " $5 " | " ($6 == 0 ? "-" : $6) " | " $8 " |" }' t13.out)
    row="| ${sl#*:} |${row#| L |}"
    claim paper.md "$row" "$row" "$row"
done
# ---- T16 step 3: the drift term lr a ulp^2 / (4 (2 - lr a)) at lr a = 10^-3, in ulp^2 ----
claim T16-kahan-updates.md "about 10^-4" 10^-4 "$(f %.0e "1e-3 / (4 * (2 - 1e-3))" | sed 's/^1e-/10^-/')"

# ---- T14: the GPT study's numbers it quotes (docs/study's data files; the page itself:
# tests/sweep/study_claims.sh) ----
sd=$src/docs/study
# csv FILE AWK: AWK over FILE's rows without '#' lines, c[NAME] the column of NAME
csv() { grep -v '^#' "$1" | awk -F, 'NR == 1 { for (i = 1; i <= NF; i++) c[$i] = i; next } '"$2"; }
# (a) the scan at 5e-4 and 1e-3: bf16-rn's gap over every other strategy's, seed by seed
claim T14-sr-vs-rn.md "bf16-rn's gap is 18-45% larger than every other strategy's on each seed" 18-45 \
    "$(csv "$sd/gpt_lr.runs.csv" '{ e[$c["strategy"], $c["lr"], $c["seed"]] = $c["final_val_loss"] - $c["final_fstar"]; s[$c["strategy"]] }
        END { lo = 1e9; hi = 0; for (k in s) if (k != "bf16-rn") for (sd = 1; sd <= 2; sd++) { split("0.0005 0.001", L, " ")
            for (j = 1; j <= 2; j++) { r = e["bf16-rn", L[j], sd] / e[k, L[j], sd]; if (r < lo) lo = r; if (r > hi) hi = r } }
            printf "%.0f-%.0f", 100 * (lo - 1), 100 * (hi - 1) }')"
# (b) bf16-rn's mean lost_update_frac in the scan (steps > 0) at 8e-3 .. 6.4e-2
claim T14-sr-vs-rn.md "(the scan's mean \`lost_update_frac\` 0.27-0.35 at 8e-3 to 6.4e-2)" 0.27-0.35 \
    "$(csv "$sd/gpt_lr.csv" '$c["step"] > 0 && $c["strategy"] == "bf16-rn" && $c["lr"] >= 0.008 { s[$c["lr"]] += $c["lost_update_frac"]; n[$c["lr"]]++ }
        END { lo = 1; hi = 0; for (k in s) { m = s[k] / n[k]; if (m < lo) lo = m; if (m > hi) hi = m }; printf "%.2f-%.2f", lo, hi }')"
# the study's 16 seeds: mean gaps per strategy and rate
csv "$sd/gpt16.runs.csv" '{ k = $c["strategy"] " " $c["lr"]; g[k] += $c["final_val_loss"] - $c["final_fstar"]; n[k]++ }
    END { for (k in g) printf "%s %.17g\n", k, g[k] / n[k] }' >gpt16.gaps
gap() { awk -v k="$1 $2" '$1 " " $2 == k { print $3 }' gpt16.gaps; }
claim T14-sr-vs-rn.md "coordinates do not have r >~ 0.5, and bf16-rn trails bf16-sr by 0.0024-0.0034 at 8e-3 and" 0.0024-0.0034 \
    "$(aw "a = $(gap bf16-rn 8e-3) - $(gap bf16-sr 8e-3); b = $(gap bf16-rn 1.6e-2) - $(gap bf16-sr 1.6e-2)
        printf \"%.4f-%.4f\", (a < b ? a : b), (a < b ? b : a)")"
best() { awk -v s="$1" '$1 == s && (b == "" || $3 < m) { m = $3; b = $2 } END { print b }' gpt16.gaps; }
claim T14-sr-vs-rn.md "(c) bf16-sr's best rate is 8e-3 and bf16-rn's 1.6e-2," "8e-3 and bf16-rn's 1.6e-2" \
    "$(best bf16-sr) and bf16-rn's $(best bf16-rn)"

# paper.md: tuned bf16-sr against tuned mp over the 16 seeds (srlab compare --at-best lr), the
# 95% interval on 15 degrees of freedom (t_0.975,15 = 2.131449546)
"$srlab" compare "$sd/gpt16.runs.csv" --baseline mp --at-best lr -o best.csv >/dev/null 2>&1 ||
    bad "srlab compare $sd/gpt16.runs.csv --at-best lr failed"
tuned=$(csv best.csv '$c["level"] == "bf16-sr" { d = $c["mean_diff"]; e = $c["se"]
    printf "%+.4f +- %.4f nats, 95%% interval\n[%+.4f, %+.4f]", d, e, d - 2.131449546 * e, d + 2.131449546 * e }' | sed 's/^\[+/[/')
claim paper.md "bf16-sr - mp = +0.0013 +- 0.0016 nats, 95% interval" "+0.0013 +- 0.0016 nats, 95% interval" "$(echo "$tuned" | head -1)"
claim paper.md "[-0.0021, +0.0048]: an advantage the size of the paper's is excluded" "[-0.0021, +0.0048]" "$(echo "$tuned" | tail -1)"

# ---- T02b's MDE at its four values with f = F 2^-16 < 2^-12 (F = 8 .. 15), z two-sided 1e-6
# over its 12 values (src/check/round.c's NT02B), 2^22 draws; the 12-bit write's deviation f
# against it, and the 16-bit write's off-by-one 2^-16 ----
if grep -qF '#define NT02B 12' "$src/src/check/round.c"; then
    m02() { f %.17g "(zq(1e-6 / 24) + zq(0.01)) * sqrt($1 / 2^16 * (1 - $1 / 2^16) / 2^22)"; }
    m8=$(m02 8) m15=$(m02 15)
    claim T02-sr-bits-bias.md "spacings at \`f ~ 1/2\` and 4e-5 to 6e-5 at the four" "4e-5 to 6e-5" "$(f %.0e "$m8") to $(f %.0e "$m15")"
    claim T02-sr-bits-bias.md "1.2e-4\`, three times the MDE or more)." three \
        "$(f %.0f "8 / 2^16 / $m8" | sed 's/^3$/three/')"
    q2=$(f %.0f "$m15 / 2^-16")-$(f %.0f "$m8 / 2^-16")
    claim T02-sr-bits-bias.md "of a spacing, a quarter to a third of T02b's MDE there." "a quarter to a third" \
        "$(echo "$q2" | sed 's/^4-3$/a quarter to a third/')"
    claim README.md "of a spacing, a quarter to a third of T02b's smallest MDEs." "a quarter to a third" \
        "$(echo "$q2" | sed 's/^4-3$/a quarter to a third/')"
else
    bad "src/check/round.c: T02b no longer has 12 values: recompute T02's MDEs 4e-5 to 6e-5"
fi

# ---- T01: SR's p_up for 1 + 2^-200 into fp32, as srlab op prints it ----
claim T01-sr-basics.md "\`p_up = 2^-177\` exactly, far below" "p_up = 2^-177" \
    "p_up = $("$srlab" op add 1 0x1p-200 -f fp32 -r sr 2>&1 | sed -n 's/^ *p_up .* = \(2^-[0-9]*\) .*/\1/p')"

# ---- T16: T16b's run with the strategy's own bf16 buffer (400 seeds, 500 steps) against item 3's
# law: the mean of (w_500 - x_500)^2, x_t = x* + (1 - lr a)^t (x0 - x*) ----
if "$srlab" train --problem quad1d --opt sgd --strategy bf16-kahan --rounding sr --grad-format fp64 \
    --update-arith fp64 --comp-format bf16 --xstar 0.3 --x0 1 --lr 1e-3 --steps 500 --seeds 400 \
    --log-every 500 -o t16bf.csv >t16bf.out 2>&1; then
    ms=$(csv t16bf.csv '$c["step"] == 500 { d = $c["x"] - (0.3 + 0.999^500 * 0.7); s += d * d; n++ } END { printf "%.17g", s / n }')
    claim T16-kahan-updates.md "although the runs agree with item 3 to 0.2% with it too" 0.2 \
        "$(f %.1f "100 * sqrt(($ms / $(th T16 "" kahan_sr_ms) - 1)^2)")"
else
    bad "srlab train (T16b with a bf16 buffer): $(tail -3 t16bf.out)"
fi

# ---- full: the numbers of check runs ----
if [ "$full" = full ]; then
    if [ -n "${SRL_CLAIMS_TABLES:-}" ]; then # tables of earlier runs (for editing the documents)
        cp "$SRL_CLAIMS_TABLES/full.txt" "$SRL_CLAIMS_TABLES/quick.txt" . || exit 99
        [ ! -f "$SRL_CLAIMS_TABLES/mut.txt" ] || cp "$SRL_CLAIMS_TABLES/mut.txt" . || exit 99
    else
        "$srlab" check >full.txt 2>&1 || bad "srlab check (full) failed: $(tail -3 full.txt)"
        "$srlab" check --quick >quick.txt 2>&1 || bad "srlab check --quick failed: $(tail -3 quick.txt)"
    fi
    # the experiment mutations whose results the documents quote (every row must FAIL)
    mids="T03g T03h T03i T03j T04c T04d T04e T15a T18e T18g"
    if [ ! -f mut.txt ]; then
        "$srlab" check --mutate experiment $mids >mut.txt 2>&1
    fi
    grep -q "^$(echo $mids | wc -w) checks: 0 PASS," mut.txt || bad "srlab check --mutate experiment $mids: $(tail -3 mut.txt)"
    # ck TABLE ID FIELD: measured, lo, hi, predicted or mde of row ID
    ck() {
        awk -v id="$2" -v w="$3" '$1 == id { gsub(/[\[\],]/, "", $5); gsub(/[\[\],]/, "", $6);
            v = w == "measured" ? $4 : w == "lo" ? $5 : w == "hi" ? $6 : w == "predicted" ? $7 : $9;
            print v; exit }' "$1"
    }
    # rt TABLE ID SED: the number SED's \1 picks from row ID's text
    rt() { grep "^$2 " "$1" | sed -n "s/.*$3.*/\\1/p" | head -1; }
    # mde FILE ID PHRASE QUOTED [FMT [TABLE]]: the full (or TABLE's) run's MDE of row ID reads QUOTED
    mde() { claim "$1" "$3" "$4" "$(f "${5:-%.2g}" "$(ck "${6:-full.txt}" "$2" mde)")"; }
    mdep() { # ... as a percentage of the prediction
        claim "$1" "$3" "$4" "$(pct "$(ck "${5:-full.txt}" "$2" mde) / ($(ck "${5:-full.txt}" "$2" predicted))" | sed 's/^-//')"
    }
    mde T01-sr-basics.md T01e "MDE 2.6e-3 in \`P(both away) - f^2\`" 2.6e-3 %.1e
    mde T01-sr-basics.md T01b "MDE 8e-4 of \`Var/q^2\` at the worst probe" 8e-4 %.0e
    # T01e's worst probe (its x and format in the row's text): f(1 - f), f = p_up of srlab theory T01
    t01e=$(awk '$1 == "T01e" { for (i = 1; i < NF; i++) if ($i == "x" && $(i + 1) == "=") { sub(/,$/, "", $(i + 4)); print "x=" $(i + 2) " format=" $(i + 4) }; exit }' full.txt)
    fe=$(th T01 "$t01e" p_up)
    claim T01-sr-basics.md "by a pair moves it by \`f(1 - f)\`, 0.16 at the worst probe" 0.16 "$(f %.2f "$fe * (1 - $fe)")"
    # T16b's measured and predicted mean square in ulp(x_exact)^2 = 2^-16 (x_exact in [1/2, 1))
    claim T16-kahan-updates.md "0.2484 ulp^2, predicted 0.2486); the checks" 0.2484 "$(f %.4f "$(ck full.txt T16b measured) / 2^-16")"
    claim T16-kahan-updates.md "0.2484 ulp^2, predicted 0.2486); the checks" 0.2486 "$(f %.4f "$(th T16 "" kahan_sr_ms) / 2^-16")"
    claim T16-kahan-updates.md "0.2484 ulp^2, predicted 0.2486); the checks" 0.2486 "$(f %.4f "$(ck full.txt T16b predicted) / 2^-16")"
    # T17c's MDE: the share p whose Clopper-Pearson lower limit (normal form, 1e-6) exceeds 1/4
    # with probability 0.99 at the row's seed count: p = 1/4 + (z_1e-6 + z_0.99) sqrt(p (1 - p)/n)
    n17=$(awk '$1 == "T17c" { for (i = 1; i <= NF; i++) if ($i == "seeds" && $(i + 1) ~ /^1-[0-9]/) { split($(i + 1), a, "-"); sub(/[,;]$/, "", a[2]); print a[2] } ; exit }' full.txt)
    claim T17-sr-sum-variance.md "(its MDE: a true share above 0.29" 0.29 \
        "$(aw "p = 0.25; for (i = 0; i < 100; i++) p = 0.25 + (zq(1e-6) + zq(0.01)) * sqrt(p * (1 - p) / $n17); printf \"%.2f\", p")"
    claim T01-sr-basics.md "the largest error seen is 0.4% below \`2u|x|\`" 0.4 "$(f %.1f "100 * (1 - $(ck full.txt T01d measured))")"
    mde T02-sr-bits-bias.md T02a "MDE 1.6e-3 spacings of bias. The defect" 1.6e-3 %.1e
    mde T02-sr-bits-bias.md T02b "MDE 1.6e-3 spacings at \`f ~ 1/2\`" 1.6e-3 %.1e
    claim T03-summation.md "the largest ratio seen is 0.8% (T03a) below gamma" 0.8 "$(f %.1f "100 * (1 - $(ck full.txt T03a measured))")"
    mde T03-summation.md T03b "MDE 0.27 in the exceedance frequency (100 seeds)" 0.27
    mde T03-summation.md T03f "T03f (60 seeds): MDE 0.040 in the relative bias" 0.040 %.3f
    mde T03-summation.md T03j "MDE 0.0715 in the slope" 0.0715 %.3g
    claim T04-matvec.md "the largest backward error seen is 5.7% below theta" 5.7 "$(f %.1f "100 * (1 - $(ck full.txt T04a measured))")"
    mde T04-matvec.md T04b "MDE 0.27 in the exceedance frequency (100 seeds), as T03b" 0.27
    mde T04-matvec.md T04d "\`E[s] = S\`: MDE 0.051 RMS(s - S)" 0.051 %.2g
    mde T05-gd-quadratic.md T05a "T05a: MDE 1.2e-3 in the stall distance" 1.2e-3 %.1e
    mdep T05-gd-quadratic.md T05a "(the band's larger half; 1.2% of D)" 1
    mde T05-gd-quadratic.md T05c "MDE 2.45e-3 in the mean iterate" 2.45e-3 %.2e
    mde T05-gd-quadratic.md T05d "MDE 1.0e-8 in the floor, 2.2% of 4.58e-7" 1.0e-8 %.1e
    claim T05-gd-quadratic.md "MDE 1.0e-8 in the floor, 2.2% of 4.58e-7" 4.58e-7 "$(f %.2e "$(ck full.txt T05d predicted)")"
    mde T06-noisy-sgd.md T06a "- T06a: MDE 0.017 in the relative SR penalty, 17% of 0.102." 0.017
    mdep T06-noisy-sgd.md T06a "- T06a: MDE 0.017 in the relative SR penalty, 17% of 0.102." 17
    claim T06-noisy-sgd.md "- T06a: MDE 0.017 in the relative SR penalty, 17% of 0.102." 0.102 "$(f %.3f "$(ck full.txt T06a predicted)")"
    mde T06-noisy-sgd.md T06b "- T06b: MDE 0.0545, 13% of 0.41." 0.0545 %.3g
    mdep T06-noisy-sgd.md T06b "- T06b: MDE 0.0545, 13% of 0.41." 13
    mde T06-noisy-sgd.md T06c "- T06c: MDE 0.29, 14% of 2.12" 0.29
    mdep T06-noisy-sgd.md T06c "- T06c: MDE 0.29, 14% of 2.12" 14
    claim T06-noisy-sgd.md "T06c measures 2.10 [1.90, 2.29] at 400 seeds" 2.10 "$(f %.2f "$(ck full.txt T06c measured)")"
    claim T06-noisy-sgd.md "T06c measures 2.10 [1.90, 2.29] at 400 seeds" 1.90 "$(f %.2f "$(ck full.txt T06c lo)")"
    claim T06-noisy-sgd.md "T06c measures 2.10 [1.90, 2.29] at 400 seeds" 2.29 "$(f %.2f "$(ck full.txt T06c hi)")"
    mde T10-adam-convergence.md T10a "- T10a (400 seeds): MDE 0.017 in the relative SR penalty" 0.017
    mde T10-adam-convergence.md T10b "T10b: 0.055, 13% of 0.41." 0.055 %.3f
    mde T10-adam-convergence.md T10g "- T10g (400 seeds): MDE 0.044, 18% of 0.246" 0.044
    mdep T10-adam-convergence.md T10g "- T10g (400 seeds): MDE 0.044, 18% of 0.246" 18
    mdep T10-adam-convergence.md T10h "- T10h (100 seeds): 5% of the predicted term." 5
    claim T11-implicit-regularization.md "(Sigma_t predicted, nothing measured: -7.65e-3)" -7.65e-3 "$(f %.2e "$(ck full.txt T11c predicted)")"
    claim T11-implicit-regularization.md "iterate (about -7.5e-3; the iterate's sd is about 0.063)" -7.5e-3 "$(f %.1e "$(ck full.txt T11c measured)")"
    claim T11-implicit-regularization.md "recursion's Sigma_100 (4.81e-5)" 4.81e-5 "$(f %.2e "$(ck full.txt T11d predicted)")"
    mdep T11-implicit-regularization.md T11d "detectable effect about 1% of Var(x_T) (200 seeds)" 1
    mdep T11-implicit-regularization.md T11c "(t + z_0.99) SE: about 15% of D_T with 40 seeds, 6% with 200" 6
    mdep T11-implicit-regularization.md T11c "(t + z_0.99) SE: about 15% of D_T with 40 seeds, 6% with 200" 15 quick.txt
    grep '^T11c' full.txt | sed -n 's/.*off by at most +\([0-9.]*\)% per step (e5m2, [^:]*: \([-+0-9.]*\)%); S_t along the mean path: \([-+0-9]*\)% to \([-+0-9]*\)%.*/\1 \2 \3 \4/p' >t11c.txt
    read -r t11e t11c5 t11lo t11hi <t11c.txt
    # the Gaussian law on e5m2's grid: the recursion's largest error there (T11c's row), an
    # overstatement (positive)
    claim T11-implicit-regularization.md "law overstates Sigma_t by up to 14%" 14 \
        "$(f %.0f "${t11c5:-0} * (${t11c5:-0} > 0)")"
    claim T11-implicit-regularization.md "lr 0.05, 40 steps: a grid of 8 values per binade" 8 8
    claim T11-implicit-regularization.md "them, crossing the binade at 1) within 4.4%, and the shift D_T it predicts within" 4.4 "${t11e:-?}"
    claim T11-implicit-regularization.md "y(m_t) alone) the recursion is off by -39% to +46% per step on the e4m3 setup" -39 "${t11lo:-?}"
    claim T11-implicit-regularization.md "y(m_t) alone) the recursion is off by -39% to +46% per step on the e4m3 setup" +46 "${t11hi:-?}"
    # the first form of item 3 (one step's s^2 for Sigma_t): its shift, and how many times too
    # small it is; the mean-path S_t's Sigma_T against T11d's measured variance
    t11o=$(grep '^T11c' full.txt | sed -n "s/.*one step's s^2: shift \([-+0-9.e]*\).*/\1/p")
    claim T11-implicit-regularization.md "first statement: predicts -9.0e-4 against -7.5e-3 measured)" -9.0e-4 "$(f %.1e "${t11o:-0}")"
    claim T11-implicit-regularization.md "first statement: predicts -9.0e-4 against -7.5e-3 measured)" -7.5e-3 "$(f %.1e "$(ck full.txt T11c measured)")"
    claim T11-implicit-regularization.md "which predicts a shift about 9 times too small" 9 \
        "$(f %.0f "$(ck full.txt T11c predicted) / ${t11o:-1}")"
    t11p=$(grep '^T11d' full.txt | sed -n 's/.*S_t along the mean path: \([-+0-9.e]*\)).*/\1/p')
    claim T11-implicit-regularization.md "path, is 10% high here and FAILs" 10 "$(pct "${t11p:-0} / $(ck full.txt T11d measured) - 1")"
    # T11b's statistical half-width (its interval's, the remainder bound included) against the
    # prediction, at 2^21 (quick) and 2^23 draws
    hw() { f %.0f "100 * ($(ck "$1" T11b hi) - $(ck "$1" T11b lo)) / 2 / $(ck "$1" T11b predicted)"; }
    claim T11-implicit-regularization.md "At N = 2^21 the statistical half-width is about 13% of the prediction" 13 "$(hw quick.txt)"
    claim T11-implicit-regularization.md "is tested). At N = 2^21 the statistical half-width is about 13% of the prediction (7% at" 7 "$(hw full.txt)"
    claim T15-heat-equation.md "bound of item 2 over the same dt (-0.234 for m = 8 .. 256, -0.230 for 8 .. 128; both tend to" \
        -0.234 "$(f %.3f "$(ck full.txt T15a predicted)")"
    claim T15-heat-equation.md "bound of item 2 over the same dt (-0.234 for m = 8 .. 256, -0.230 for 8 .. 128; both tend to" \
        -0.230 "$(f %.3f "$(ck quick.txt T15a predicted)")"
    claim T15-heat-equation.md "-1/4 as h -> 0). Measured (full): -0.245, interval [-0.304, -0.185]; quick -0.256," \
        -0.256 "$(f %.3f "$(ck quick.txt T15a measured)")"
    claim T15-heat-equation.md "  [-0.341, -0.171]." -0.341 "$(f %.3f "$(ck quick.txt T15a lo)")"
    claim T15-heat-equation.md "  [-0.341, -0.171]." -0.171 "$(f %.3f "$(ck quick.txt T15a hi)")"
    claim T15-heat-equation.md "measured/bound 0.43 at the worst m, 0.29 quick)." 0.43 "$(f %.2f "$(ck full.txt T15b measured) / $(ck full.txt T15b predicted)")"
    claim T15-heat-equation.md "measured/bound 0.43 at the worst m, 0.29 quick)." 0.29 "$(f %.2f "$(ck quick.txt T15b measured) / $(ck quick.txt T15b predicted)")"
    # T15b's and T17's MDEs as multiples of the measured mean square (the rows' "(X x measured)")
    xm() { grep "^$2" "$1" | sed -n 's/.*(\([0-9.]*\) x measured).*/\1/p'; }
    claim T15-heat-equation.md "(3.2 full, 4.4 quick: a" 3.2 "$(f %.1f "$(xm full.txt T15b)")"
    claim T15-heat-equation.md "(3.2 full, 4.4 quick: a" 4.4 "$(f %.1f "$(xm quick.txt T15b)")"
    claim T17-sr-sum-variance.md "measured mean square: 3.5 (recursive) and 2.3 (pairwise) at the full size" 3.5 "$(f %.1f "$(xm full.txt T17a)")"
    claim T17-sr-sum-variance.md "measured mean square: 3.5 (recursive) and 2.3 (pairwise) at the full size" 2.3 "$(f %.1f "$(xm full.txt T17b)")"
    claim T17-sr-sum-variance.md "these rows catch an SR whose variance is 3.5 (2.3) times too large" 3.5 "$(f %.1f "$(xm full.txt T17a)")"
    claim T17-sr-sum-variance.md "these rows catch an SR whose variance is 3.5 (2.3) times too large" 2.3 "$(f %.1f "$(xm full.txt T17b)")"
    claim T17-sr-sum-variance.md "- **T17a** recursive: mean of (s - S)^2 = 415 against the bound 1407;" 415 "$(f %.0f "$(ck full.txt T17a measured)")"
    claim T17-sr-sum-variance.md "- **T17a** recursive: mean of (s - S)^2 = 415 against the bound 1407;" 1407 "$(f %.0f "$(ck full.txt T17a predicted)")"
    claim T17-sr-sum-variance.md "(recursive): 0.0006, bound 1/4." 0.0006 "$(f %.4f "$(ck full.txt T17c measured)")"
    claim T17-sr-sum-variance.md "fixed data, S = 517.08, every" 517.08 \
        "$(grep '^T17a' full.txt | sed -n 's/.*(S = \([0-9.]*\)).*/\1/p' | awk '{ printf "%.2f", $1 }')"
    claim T17-sr-sum-variance.md "limit; Chebyshev is loose by a factor of about 400 here" 400 "$(f %.0f "0.25 / $(ck full.txt T17c measured)")"
    # T12 item 3 on one real run of experiments/gpt_replicas.ini (its [sweep] settings, seed 1,
    # independent streams): the increments V_j per step of each logged window, recovered from
    # replica_d2_pred (P_j = K_j P_j-1 + V_j A_j, K_j the window's product of k_t, A_j its
    # contracted count of steps), their uncontracted sum, and the contraction 1 - P_T / sum
    set --
    for k in n-layer n-embd n-head block-size batch-size vocab markov-order opt wd warmup schedule \
             strategy lr replicas steps log-every; do set -- "$@" --$k "$(iv $k)"; done
    if OMP_NUM_THREADS=1 "$srlab" train --problem "$(iv problem)" "$@" --sr-seed independent --seed 1 -o t12gpt.csv \
        >t12gpt.out 2>&1; then
        t12r=$(grep -v '^#' t12gpt.csv | awk -F, -v lr0="$(iv lr)" -v wd="$(iv wd)" -v wu="$(iv warmup)" -v T="$(iv steps)" "$AWKLIB"'
            function lr(t) { return t <= wu ? lr0 * t / wu : lr0 / 2 * (1 + cos(pi() * (t - wu) / (T - wu))) }
            NR == 1 { for (i = 1; i <= NF; i++) c[$i] = i; next }
            { n++; st[n] = $c["step"]; P[n] = $c["replica_d2_pred"] }
            END { for (j = 2; j <= n; j++) { K = 1; A = 0
                      for (t = st[j - 1] + 1; t <= st[j]; t++) { k = (1 - lr(t) * wd)^2; K *= k; A = A * k + 1 }
                      S += (P[j] - K * P[j - 1]) / A * (st[j] - st[j - 1]) }
                  printf "%.0f %d", 100 * (1 - P[n] / S), st[n] }')
        claim T12-replicas.md "one run of it (seed 1, independent streams) gives 14% at step 1200" \
            "14% at step 1200" "$(echo "$t12r" | awk '{ print $1 "% at step " $2 }')"
    else
        bad "srlab train (experiments/gpt_replicas.ini, seed 1): $(tail -3 t12gpt.out)"
    fi
    t11d=$(grep '^T11d' full.txt | sed -n 's/.*off by at most \([-+0-9.]*\)% per step.*/\1/p')
    claim T11-implicit-regularization.md "lr 0.02, 100 steps) the predicted Sigma_t is within 0.4% of the measured variance" 0.4 \
        "$(f %.1f "${t11d#-} + 0")"
    mde T12-replicas.md T12b "MDE 4.65e-3 in E||x_r - x_0||^2, 11% of" 4.65e-3 %.2e
    mdep T12-replicas.md T12b "MDE 4.65e-3 in E||x_r - x_0||^2, 11% of" 11
    mdep T12-replicas.md T12c "minimum detectable effect about 10% of the" 10
    mdep T14-sr-vs-rn.md T14a "(200): MDE ~ 14% (31%)" 14
    mdep T14-sr-vs-rn.md T14b "800 seeds (150): MDE ~ 9% (20%). Mutation: the dithered" 9
    mdep T14-sr-vs-rn.md T14d "2.79e-3, the prediction mutation); 800 seeds (150): MDE ~ 9% (20%)." 8
    mde T15-heat-equation.md T15a "0.087 at the full size (0.125 quick)" 0.087 %.2g
    claim T15-heat-equation.md "Measured (full): -0.245, interval [-0.304, -0.185]" -0.245 "$(f %.3f "$(ck full.txt T15a measured)")"
    claim T15-heat-equation.md "Measured (full): -0.245, interval [-0.304, -0.185]" -0.304 "$(f %.3f "$(ck full.txt T15a lo)")"
    claim T15-heat-equation.md "Measured (full): -0.245, interval [-0.304, -0.185]" -0.185 "$(f %.3f "$(ck full.txt T15a hi)")"
    mde T16-kahan-updates.md T16b "2.1e-7 at 400 seeds" 2.1e-7 %.1e
    mdep T16-kahan-updates.md T16d "arithmetic is the experiment's own); MDE about 16% of the prediction at 4000 seeds" 16
    mdep T16-kahan-updates.md T16d "MDE about 16% of the prediction at 4000 seeds, 34% at 1000," 34 quick.txt
    claim T16-kahan-updates.md "2.1e-7 at 400 seeds, 5.5% of the prediction" 5.5 \
        "$(f %.1f "100 * $(ck full.txt T16b mde) / $(ck full.txt T16b predicted)")"
    mdep T12-replicas.md T12c "prediction with 200 seeds, 14% with the 100 of --quick" 14 quick.txt
    mdep T14-sr-vs-rn.md T14a "(200): MDE ~ 14% (31%)" 31 quick.txt
    mde T15-heat-equation.md T15a "0.087 at the full size (0.125 quick)" 0.125 %.3g quick.txt
    claim T16-kahan-updates.md "measure about 149 times (T16d, 4000 seeds)" 149 \
        "$(f %.0f "$(ck full.txt T16d measured) / $(ck full.txt T16b predicted)")"
    claim T17-sr-sum-variance.md "- **T17b** pairwise: 3.67 against 8.16;" 3.67 "$(f %.3g "$(ck full.txt T17b measured)")"
    claim T17-sr-sum-variance.md "- **T17b** pairwise: 3.67 against 8.16;" 8.16 "$(f %.3g "$(ck full.txt T17b predicted)")"

    # ---- T03, T04: the path identities' MDEs and what their experiment mutations measure ----
    claim T03-summation.md "0.5015 at the sizes below (0.5005 at the quick size)," 0.5015 \
        "$(grep '^T03j' full.txt | sed -n 's/.*the identity.s slope (of sqrt(E V)\/S) \([0-9.]*\).*/\1/p')"
    claim T03-summation.md "0.5015 at the sizes below (0.5005 at the quick size)," 0.5005 \
        "$(grep '^T03j' quick.txt | sed -n 's/.*the identity.s slope (of sqrt(E V)\/S) \([0-9.]*\).*/\1/p')"
    # T03g/T04c measure ((s - S)^2 - V) / V: their MDE and mutation as percentages of E(s - S)^2
    claim T03-summation.md "MDE 7% of \`E(s - S)^2\` (sr-eq, variance \`q^2/4\`, is off" 7 "$(pct "$(ck full.txt T03g mde)")"
    claim T03-summation.md "by 76%). T03h: MDE a bias of 0.051 RMS(s - S) (sr:r=4 is off by 1.3 RMS)." 76 "$(pct "$(ck mut.txt T03g measured)")"
    mde T03-summation.md T03h "by 76%). T03h: MDE a bias of 0.051 RMS(s - S) (sr:r=4 is off by 1.3 RMS)." 0.051
    claim T03-summation.md "by 76%). T03h: MDE a bias of 0.051 RMS(s - S) (sr:r=4 is off by 1.3 RMS)." 1.3 "$(f %.1f "$(ck mut.txt T03h measured)")"
    mde T03-summation.md T03i "(sr:r=4 is off by 1.3 RMS). T03i: MDE 0.05" 0.05 %.1g
    claim T03-summation.md "here, and sr:r=4 is off by 2.7 RMS." 2.7 "$(f %.1f "-($(ck mut.txt T03i measured))")"
    claim T03-summation.md "MDE 0.0715 in the slope. sr:r=4 gives slope 0.91" 0.91 "$(f %.2f "$(ck mut.txt T03j measured)")"
    claim T04-matvec.md "MDE 7% of \`E(s - S)^2\` (sr-eq is off by 55%);" 7 "$(pct "$(ck full.txt T04c mde)")"
    claim T04-matvec.md "MDE 7% of \`E(s - S)^2\` (sr-eq is off by 55%);" 55 "$(pct "$(ck mut.txt T04c measured)")"
    claim T04-matvec.md "(sr:r=4: 1.05 RMS); T04e, the sum of" 1.05 "$(f %.2f "$(ck mut.txt T04d measured)")"
    mde T04-matvec.md T04e "\`E[delta sign(y)]\` over the roundings: MDE 0.051 RMS (sr:r=4: 1.4 RMS)." 0.051
    claim T04-matvec.md "\`E[delta sign(y)]\` over the roundings: MDE 0.051 RMS (sr:r=4: 1.4 RMS)." 1.4 \
        "$(f %.1f "-($(ck mut.txt T04e measured))")"
    # T05c's MDE relative to the mean iterate
    claim T05-gd-quadratic.md "MDE 2.45e-3 in the mean iterate (0.34% of it)" 0.34 \
        "$(f %.2f "100 * $(ck full.txt T05c mde) / $(ck full.txt T05c measured)")"
    # T10h's prediction mutation, the bound (a/2) ulp^2/4 against the predicted term
    claim T10-adam-convergence.md "is 1.65 times the term and FAILs" 1.65 \
        "$(f %.2f "$(grep '^T10h' full.txt | sed -n 's/.*bound (a\/2) ulp^2\/4 = \([0-9.e+-]*\)).*/\1/p') / $(ck full.txt T10h predicted)")"
    # T11c's resolution: its interval's half-width against the prediction
    # the closed recursion's D_T against item 3's mean recursion fed the measured Sigma_t
    claim T11-implicit-regularization.md "move the prediction by about 2% of" 2 \
        "$(pct "$(ck full.txt T11c predicted) / $(rt full.txt T11c 'measured Sigma_t: shift \([-0-9.e]*\)') - 1")"
    claim T11-implicit-regularization.md "the 4% resolution of T11c." 4 \
        "$(pct "($(ck full.txt T11c hi) - $(ck full.txt T11c lo)) / 2 / -($(ck full.txt T11c predicted))")"
    # T15: sr:r=1 (T15a's experiment mutation) against RN's slope -1
    claim T15-heat-equation.md "grows like dt^-0.97, RN's coherent accumulation" 0.97 "$(f %.2f "-($(ck mut.txt T15a measured))")"
    claim T15-heat-equation.md "(a biased SR, \`sr:r=1\` here, measures -0.97)" -0.97 "$(f %.2f "$(ck mut.txt T15a measured)")"

    # ---- T18: the rows of srlab check T18 (full; quick where quoted) ----
    t18="T18-block-scaled-sr.md"
    claim $t18 "below xmax 2^k: -0.0004, interval" -0.0004 "$(f %.4f "$(ck full.txt T18a measured)")"
    claim $t18 "  [-0.0017, 0.0009], predicted 0;" -0.0017 "$(f %.4f "$(ck full.txt T18a lo)")"
    claim $t18 "  [-0.0017, 0.0009], predicted 0;" 0.0009 "$(f %.4f "$(ck full.txt T18a hi)")"
    claim $t18 "every copy gives 6, bias -1.5 exactly" -1.5 "$(ck full.txt T18b measured)"
    claim $t18 "every copy gives 6, bias -1.5 exactly" "gives 6" "gives $(f %g "7.5 + $(ck full.txt T18b measured)")"
    claim $t18 "Q(5.625) - 7.5 = 0.0002, interval" 0.0002 "$(f %.4f "$(ck full.txt T18c measured)")"
    claim $t18 "  [-0.020, 0.020], predicted 0;" -0.020 "$(f %.3f "$(ck full.txt T18c lo)")"
    claim $t18 "  [-0.020, 0.020], predicted 0;" 0.020 "$(f %.3f "$(ck full.txt T18c hi)")"
    claim $t18 "{-2, ..., 1.9375}: 10.14, interval" 10.14 "$(f %.2f "$(ck full.txt T18d measured)")"
    claim $t18 "  [9.88, 10.40], predicted 10.11 (the worst case q^2/4 would be 15.08)." 9.88 "$(f %.2f "$(ck full.txt T18d lo)")"
    claim $t18 "  [9.88, 10.40], predicted 10.11 (the worst case q^2/4 would be 15.08)." 10.40 "$(f %.2f "$(ck full.txt T18d hi)")"
    claim $t18 "  [9.88, 10.40], predicted 10.11 (the worst case q^2/4 would be 15.08)." 10.11 "$(f %.2f "$(ck full.txt T18d predicted)")"
    w18=$(rt full.txt T18d '(worst case q^2\/4: \([0-9.]*\))')
    claim $t18 "  [9.88, 10.40], predicted 10.11 (the worst case q^2/4 would be 15.08)." 15.08 "$w18"
    claim $t18 "E (s - a.b)^2 = 0.0108, interval [0.0104, 0.0112], bound 0.2655: a bound 25 times loose" 0.0108 "$(f %.4f "$(ck full.txt T18e measured)")"
    claim $t18 "E (s - a.b)^2 = 0.0108, interval [0.0104, 0.0112], bound 0.2655: a bound 25 times loose" 0.0104 "$(f %.4f "$(ck full.txt T18e lo)")"
    claim $t18 "E (s - a.b)^2 = 0.0108, interval [0.0104, 0.0112], bound 0.2655: a bound 25 times loose" 0.0112 "$(f %.4f "$(ck full.txt T18e hi)")"
    claim $t18 "E (s - a.b)^2 = 0.0108, interval [0.0104, 0.0112], bound 0.2655: a bound 25 times loose" 0.2655 "$(f %.4f "$(ck full.txt T18e predicted)")"
    claim $t18 "E (s - a.b)^2 = 0.0108, interval [0.0104, 0.0112], bound 0.2655: a bound 25 times loose" 25 \
        "$(f %.0f "$(ck full.txt T18e predicted) / $(ck full.txt T18e measured)")"
    claim $t18 "bound): at g = 256 the bound is 25 times the measured value, so the row catches a variance 25" 25 \
        "$(f %.0f "$(ck full.txt T18e predicted) / $(ck full.txt T18e measured)")"
    # the fixed Hadamard on the aligned input: T18e's experiment mutation
    claim $t18 "The fixed Hadamard on the same input gives 1.74" 1.74 "$(f %.2f "$(ck mut.txt T18e measured)")"
    claim $t18 "= 1.75): 6.6 times the RHT's bound, 161" 6.6 "$(f %.1f "$(ck mut.txt T18e measured) / $(ck full.txt T18e predicted)")"
    claim $t18 "= 1.75): 6.6 times the RHT's bound, 161" 161 "$(f %.0f "$(ck mut.txt T18e measured) / $(ck full.txt T18e measured)")"
    claim $t18 "(the fixed Hadamard on the aligned input: 1.74 against 0.27)" 1.74 "$(f %.2f "$(ck mut.txt T18e measured)")"
    claim $t18 "(the fixed Hadamard on the aligned input: 1.74 against 0.27)" 0.27 "$(f %.2f "$(ck full.txt T18e predicted)")"
    eh=$(rt full.txt T18f 'E e_H^2 = \([0-9.]*\),') er=$(rt full.txt T18f 'E e_RHT^2 = \([0-9.]*\),') e0=$(rt full.txt T18f 'no rotation \([0-9.]*\))')
    claim $t18 "fresh per copy): E e_H^2 = 0.1302" 0.1302 "$eh"
    claim $t18 "  and E e_RHT^2 = 0.1295 (difference 0.0006, interval [-0.0065, 0.0077], predicted 0); without a" 0.1295 "$er"
    claim $t18 "  and E e_RHT^2 = 0.1295 (difference 0.0006, interval [-0.0065, 0.0077], predicted 0); without a" 0.0006 \
        "$(f %.4f "$(ck full.txt T18f measured)")"
    claim $t18 "  and E e_RHT^2 = 0.1295 (difference 0.0006, interval [-0.0065, 0.0077], predicted 0); without a" -0.0065 \
        "$(f %.4f "$(ck full.txt T18f lo)")"
    claim $t18 "  and E e_RHT^2 = 0.1295 (difference 0.0006, interval [-0.0065, 0.0077], predicted 0); without a" 0.0077 \
        "$(f %.4f "$(ck full.txt T18f hi)")"
    claim $t18 "  rotation 0.1468: on these inputs the fixed rotation lowers SR's error by 11% and the random" 0.1468 "$e0"
    claim $t18 "  rotation 0.1468: on these inputs the fixed rotation lowers SR's error by 11% and the random" 11 "$(pct "1 - ${eh:-0} / ${e0:-1}")"
    claim $t18 "  one by 12%." 12 "$(pct "1 - ${er:-0} / ${e0:-1}")"
    claim $t18 "= 0.0615 / 0.1281 = 0.480, interval" 0.0615 "$(f %.4f "$(rt full.txt T18g 'inputs: \([0-9.]*\) \/')")"
    claim $t18 "= 0.0615 / 0.1281 = 0.480, interval" 0.1281 "$(rt full.txt T18g 'inputs: [0-9.]* \/ \([0-9.]*\)')"
    claim $t18 "= 0.0615 / 0.1281 = 0.480, interval" 0.480 "$(f %.3f "$(ck full.txt T18g measured)")"
    claim $t18 "  [0.453, 0.507], bound 1 (and about 1/2 predicted); RN without a rotation: 0.0983." 0.453 "$(f %.3f "$(ck full.txt T18g lo)")"
    claim $t18 "  [0.453, 0.507], bound 1 (and about 1/2 predicted); RN without a rotation: 0.0983." 0.507 "$(f %.3f "$(ck full.txt T18g hi)")"
    g0=$(rt full.txt T18g 'rn without rotation: \([0-9.]*\))')
    claim $t18 "  [0.453, 0.507], bound 1 (and about 1/2 predicted); RN without a rotation: 0.0983." 0.0983 "$(f %.4f "$g0")"
    # the MDEs (full, quick)
    claim $t18 "(t + 2.33) se): T18a 0.002 spacings" 0.002 "$(f %.1g "$(ck full.txt T18a mde)")"
    claim $t18 "(quick 0.006), T18c 0.03 (quick 0.08) on x = 7.5, T18d 4% of the variance (quick 11%)" 0.006 "$(f %.1g "$(ck quick.txt T18a mde)")"
    claim $t18 "(quick 0.006), T18c 0.03 (quick 0.08) on x = 7.5, T18d 4% of the variance (quick 11%)" 0.03 "$(f %.1g "$(ck full.txt T18c mde)")"
    claim $t18 "(quick 0.006), T18c 0.03 (quick 0.08) on x = 7.5, T18d 4% of the variance (quick 11%)" 0.08 "$(f %.1g "$(ck quick.txt T18c mde)")"
    mdep $t18 T18d "(quick 0.006), T18c 0.03 (quick 0.08) on x = 7.5, T18d 4% of the variance (quick 11%)" 4
    mdep $t18 T18d "(quick 0.006), T18c 0.03 (quick 0.08) on x = 7.5, T18d 4% of the variance (quick 11%)" 11 quick.txt
    claim $t18 "below 0.002 spacings; T18d catches a variance 4% off" 0.002 "$(f %.1g "$(ck full.txt T18a mde)")"
    claim $t18 "below 0.002 spacings; T18d catches a variance 4% off" 4 "$(pct "$(ck full.txt T18d mde) / $(ck full.txt T18d predicted)")"
    claim $t18 "T18f's MDE is 8% of E e_RHT^2 (quick 23%): a fixed rotation 8% worse" 8 "$(pct "$(ck full.txt T18f mde) / $er")"
    claim $t18 "T18f's MDE is 8% of E e_RHT^2 (quick 23%): a fixed rotation 8% worse" 23 \
        "$(pct "$(ck quick.txt T18f mde) / $(rt quick.txt T18f 'E e_RHT^2 = \([0-9.]*\),')")"
    claim $t18 "T18g fails when the true ratio is 1.04 or more (quick 1.11)." 1.04 "$(rt full.txt T18g 'a true ratio of \([0-9.]*\) fails')"
    claim $t18 "T18g fails when the true ratio is 1.04 or more (quick 1.11)." 1.11 "$(rt quick.txt T18g 'a true ratio of \([0-9.]*\) fails')"
    claim $t18 "(experiment, ratio 23) and the bound 1/4 (prediction)." 23 "$(f %.0f "$(ck mut.txt T18g measured)")"
fi

exit $fail
