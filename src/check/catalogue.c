/* src/check/catalogue.c: the catalogue of `srlab check` (include/srlab/check.h): one row per
 * check, in order: its id and statement, the title `srlab check --list` shows, what each of its
 * mutations does, the function that runs its experiment (src/check/check_impl.h says which file
 * holds it) and that function's parameters. Adding a check is one row here (and its function,
 * unless an existing one takes the new parameters). A mutation text is the only place that
 * says a check has that mutation: srl_check_run refuses the others. */
#include "check/check_impl.h"

#include <math.h>
#include <stdio.h>
#include <string.h>
#include <strings.h>

/* the mutation texts of a check: [NONE] (always NULL), [EXPERIMENT], [PREDICTION] */
#define M(e, p) {NULL, e, p}
/* the basis of a verdict (include/srlab/check.h) */
#define STAT SRL_CHECK_STATISTICAL
#define PROBE SRL_CHECK_PROBE
/* the parameters of a function that serves one row */
#define NO_PARAMS {.matvec = false}

static const srl__chk_row rows[] = {
    {{"T01a", "T01", "SR is unbiased: E[SR(x)] = x (sampled, exact Clopper-Pearson interval)",
      M("round with sr:r=4 (truncated fraction) instead of sr", NULL),
      "a bias of 1.9e-3 spacings at f = 1/2 (7.6 sqrt(f(1-f)/N), N = 2^22; 7e-4 at the fp16 "
      "subnormal probe, 2e-4 at f = 3/1024)", STAT},
     srl__chk_sr_mean, NO_PARAMS},
    {{"T01b", "T01", "Var[SR(x)] = (x - RD(x))(RU(x) - x) <= ulp^2/4",
      M("round with sr-eq (variance ulp^2/4 everywhere)",
        "predict the largest variance ulp^2/4 instead of (x - RD)(RU - x)"),
      "8e-4 in Var/q^2 (the worst probe; 7.6 |1 - 2f| sqrt(f(1-f)/N), N = 2^22)", STAT},
     srl__chk_sr_variance, NO_PARAMS},
    {{"T01c", "T01", "|RN(x) - x| <= u|x| (normal range; half a spacing below it)",
      M("round with rz instead of rn", "predict half the bound: u|x|/2"),
      "any excess over u|x| (the bound is attained: 0 left), any midpoint rounded to the odd "
      "neighbour", PROBE},
     srl__chk_rn_error_bound, NO_PARAMS},
    {{"T01d", "T01", "|SR(x) - x| < 2u|x| (normal range; one spacing below it)",
      M("round into the format with one bit less (p - 1)", "predict RN's bound u|x|"),
      "an error 0.4% above the largest seen reaches 2u|x| (deterministic over 7 x 65536 "
      "probes)", PROBE},
     srl__chk_sr_error_bound, NO_PARAMS},
    {{"T01e", "T01",
      "the elements of one array are rounded independently: P(a pair both away) = f^2",
      M(NULL, "predict f (one draw shared by the pair) instead of f^2"),
      "2.6e-3 in P(pair both away) - f^2 (2^21 pairs); a shared draw moves it by f(1-f), up "
      "to 0.25", STAT},
     srl__chk_sr_pairs, NO_PARAMS},
    {{"T01f", "T01",
      "every rounding path decides as the definition, on inputs built from each element's draw",
      M("the paths draw one index late (element i takes i + 1's draw)",
        "the definition's rn breaks ties away from zero"),
      "any result that differs from the definition (exact): one element of one path, however "
      "rare at random (a fraction equal to its draw, a tie, the carry edge of sr:r=R)", PROBE},
     srl__chk_probe_paths, NO_PARAMS},
    {{"T02a", "T02", "sr:r=R bias E[SR_R(x)] - x = -sign(x) q (f - floor(f 2^R) 2^-R)",
      M("round with exact sr", "predict no bias (0)"),
      "a bias of 1.6e-3 spacings (2^22 draws per probe)", STAT},
     srl__chk_sr_bits_bias, NO_PARAMS},
    {{"T02b", "T02", "the seed paper's write sr:r=16 of binary32 values into bf16 is unbiased",
      M("round with sr:r=8", NULL),
      "a bias of 1.6e-3 spacings at f ~ 1/2, 4e-5 to 6e-5 at the 4 values with f < 2^-12 "
      "(2^22 draws)", STAT},
     srl__chk_sr16_unbiased, NO_PARAMS},
    {{"T02c", "T02",
      "the seed paper's optimizer write (bf16 Adam, sr:r=16 and rn) decides as the definition at "
      "each element's carry edge, fused kernel and generic tiles",
      M("the step numbered t - 1 (its write takes the previous step's draws)",
        "the definition with sr:r=15 (rn: ties away from zero)"),
      "any weight or moment that differs from the definition (exact): the carry edge F + Z = "
      "2^16 - 1 / 2^16 of one element", PROBE},
     srl__chk_probe_write, NO_PARAMS},
    {{"T03a", "T03", "recursive summation under RN: |s - S| <= gamma_{n-1} sum|x_i|",
      M(NULL, "bound with the unit roundoff of a format one bit more precise (u/2)"),
      "an error 0.8% of gamma_{n-1} above the largest seen (deterministic)", PROBE},
     srl__chk_rn_bound, {.matvec = false}},
    {{"T03b", "T03",
      "recursive summation under SR: the bound ~ lambda sqrt(n) u holds with "
      "probability >= 1 - 2 exp(-lambda^2/2)",
      M("sum with rn instead of sr", NULL),
      "an exceedance probability 0.27 above 2 exp(-lambda^2/2) (100 seeds): weak, see T03", STAT},
     srl__chk_sr_bound, {.matvec = false}},
    {{"T03c", "T03", "harmonic series under RN stagnates at the predicted term: bf16",
      M("sum with rz instead of rn", "predict the term of the fp16 format"),
      "any change of the stagnation term (exact)", PROBE},
     srl__chk_harmonic_rn, {.harmonic = {"bf16", "fp16", 1000}}},
    {{"T03d", "T03", "harmonic series under RN stagnates at the predicted term: fp16",
      M("sum with rz instead of rn", "predict the term of the bf16 format"),
      "any change of the stagnation term (exact)", PROBE},
     srl__chk_harmonic_rn, {.harmonic = {"fp16", "bf16", 2000}}},
    {{"T03e", "T03", "harmonic series under RN stagnates at the predicted term: fp32",
      M("sum with rz instead of rn", "predict the term of the fp16 format"),
      "any change of the stagnation term (exact)", PROBE},
     srl__chk_harmonic_rn, {.harmonic = {"fp32", "fp16", (UINT64_C(1) << 21) + 1000}}},
    {{"T03f", "T03", "harmonic series under SR does not stagnate: E[s_n] = H_n",
      M("sum with sr:r=4 (stagnates for good)", NULL),
      "a relative bias of E[s_n]/H_n - 1 of 0.040 (60 seeds)", STAT},
     srl__chk_harmonic_sr, NO_PARAMS},
    {{"T03g", "T03",
      "SR summation: path-variance identity E(s - S)^2 = sum_k E[(y_k - RD(y_k))(RU(y_k) - y_k)]",
      M("sum with sr-eq (variance q^2/4 per step)",
        "predict q^2/4 per step instead of (y - RD)(RU - y)"),
      "7% of E(s - S)^2 (20000 paths)", STAT},
     srl__chk_sr_paths, {.paths = {'v', false}}},
    {{"T03h", "T03", "SR summation is unbiased: E[s] = S (2048 terms, in units of RMS(s - S))",
      M("sum with sr:r=4 instead of sr", NULL), "a bias of 0.051 RMS(s - S) (20000 paths)", STAT},
     srl__chk_sr_paths, {.paths = {'m', false}}},
    {{"T03i", "T03",
      "SR summation: mean independence E[delta_k | past] = 0 (tested with E[delta_k sign(y_k)])",
      M("sum with sr:r=4 instead of sr", NULL), "0.05 RMS(s - S) in sum_k E[delta_k sign(y_k)]", STAT},
     srl__chk_sr_paths, {.paths = {'i', false}}},
    {{"T03j", "T03",
      "SR summation: RMS relative error grows as sqrt(n) (log-log slope 1/2 over 4.2 decades)",
      M("sum with sr:r=4 (biased: the error grows as n)",
        "predict the worst case's growth n u (slope 1)"),
      "0.072 in the slope (96 paths per n)", STAT},
     srl__chk_sr_slope, NO_PARAMS},
    {{"T04a", "T04",
      "matrix-vector product under RN: backward error <= theta = (1+u)^n - 1 "
      "(~ n u)",
      M(NULL, "bound with the unit roundoff of a format one bit more precise (u/2)"),
      "an error 5.7% of theta above the largest seen (deterministic)", PROBE},
     srl__chk_rn_bound, {.matvec = true}},
    {{"T04b", "T04",
      "matrix-vector product under SR: backward error <= ~2 lambda sqrt(n) u with "
      "probability >= 1 - 2 exp(-lambda^2/2)",
      M("compute with rn instead of sr", NULL),
      "an exceedance probability 0.27 above 2 exp(-lambda^2/2) (100 seeds): weak, see T04", STAT},
     srl__chk_sr_bound, {.matvec = true}},
    {{"T04c", "T04",
      "SR inner product (one row of A x): path-variance identity over products and additions",
      M("compute with sr-eq (variance q^2/4 per rounding)",
        "predict q^2/4 per rounding instead of (y - RD)(RU - y)"),
      "7% of E(s - S)^2 (20000 paths)", STAT},
     srl__chk_sr_paths, {.paths = {'v', true}}},
    {{"T04d", "T04", "SR inner product is unbiased: E[s] = S (2048 products)",
      M("compute with sr:r=4 instead of sr", NULL), "a bias of 0.051 RMS(s - S) (20000 paths)", STAT},
     srl__chk_sr_paths, {.paths = {'m', true}}},
    {{"T04e", "T04",
      "SR inner product: mean independence of the product and addition errors (E[delta sign(y)])",
      M("compute with sr:r=4 instead of sr", NULL),
      "0.051 RMS(s - S) in the sum of E[delta sign(y)] (20000 paths)", STAT},
     srl__chk_sr_paths, {.paths = {'i', true}}},
    {{"T05a", "T05",
      "GD on a quadratic under RN stalls at distance in [D - ulp, D], "
      "D = ulp/(2 lr a)",
      M("write with sr instead of rn", "predict D with the spacing below x*'s binade (ulp/2)"),
      "1.2e-3 in the stall distance (the band's larger half; 1.2% of D)", PROBE},
     srl__chk_gd_stall_band, NO_PARAMS},
    {{"T05b", "T05", "GD under RN stops exactly at the fixed point of the rounded map",
      M("write with sr instead of rn", NULL), "any change of the stall point (exact)", PROBE},
     srl__chk_gd_stall_point, NO_PARAMS},
    {{"T05c", "T05", "GD under SR: the mean iterate equals the exact GD iterate",
      M("write with rn instead of sr", NULL),
      "2.5e-3 in the mean iterate (0.34% of it; 2000 seeds)", STAT},
     srl__chk_gd_sr_mean, NO_PARAMS},
    {{"T05d", "T05", "GD under SR: excess-loss floor (a/2)(x* - g0)(g1 - x*) at lr 0.1",
      M("write with rn instead of sr", "predict the floor of a uniform spread, ulp^2 a/12"),
      "1.0e-8 in the floor (2.2% of 4.58e-7; 400 seeds)", STAT},
     srl__chk_gd_sr_floor, {.lr = 0.1}},
    {{"T05e", "T05", "GD under SR: the same floor at lr 0.01 (independent of lr)",
      M("write with rn instead of sr", "predict the floor of a uniform spread, ulp^2 a/12"),
      "9.6e-9 in the floor (2.1% of 4.58e-7; 400 seeds)", STAT},
     srl__chk_gd_sr_floor, {.lr = 0.01}},
    {{"T06a", "T06", "noisy SGD: relative SR penalty v(r)/r^2 = ulp^2/(6 lr^2 sigma^2) at lr 0.01 (r 1.28)",
      M("write with rn instead of sr", "predict the penalty with ulp^2/4 in place of v(r) ulp^2"),
      "0.017 in the relative penalty (17% of 0.102; 400 seeds)", STAT},
     srl__chk_sr_penalty, {.penalty = {"sgd", 0.01, 0, 'q'}}},
    {{"T06b", "T06", "noisy SGD: relative SR penalty v(r)/r^2 = ulp^2/(6 lr^2 sigma^2) at lr 0.005 (r 0.64)",
      M("write with rn instead of sr", "predict the penalty with ulp^2/4 in place of v(r) ulp^2"),
      "0.055 in the relative penalty (13% of 0.41; 400 seeds)", STAT},
     srl__chk_sr_penalty, {.penalty = {"sgd", 0.005, 0, 'q'}}},
    {{"T06c", "T06",
      "noisy SGD at r = lr sigma/ulp = 0.256 (spread 4 spacings): penalty v(r)/r^2 = 2.12, "
      "not ulp^2/(6 lr^2 sigma^2) = 2.54",
      M("write with rn instead of sr", "predict the large-r form ulp^2/(6 lr^2 sigma^2)"),
      "0.23 in the relative penalty (11% of 2.12; 400 seeds)", STAT},
     srl__chk_sr_penalty, {.penalty = {"sgd", 0.002, 0, 'r'}}},
    {{"T07a", "T07", "SR walk at small lr: mean steps per move = ulp/(lr |g|)",
      M("write with rn instead of sr", NULL), "12 steps per move (12% of 100)", STAT},
     srl__chk_walk_moves, NO_PARAMS},
    {{"T07b", "T07",
      "SR walk at small lr: steps to cover K spacings, mean K ulp/(lr |g|) (= exact GD's)",
      M("write with sr:r=4 (the truncated fraction biases the walk toward zero: 1/16 per step)",
        NULL), "157 steps (20% of 800)", STAT},
     srl__chk_walk_cover, NO_PARAMS},
    {{"T08a", "T08", "decoupled weight decay under RN is lost when lr wd <= 2^-9 (bf16)",
      M("write with sr (strategy bf16-sr)", NULL), "any decay step kept (exact)", PROBE},
     srl__chk_decay_rn_lost, NO_PARAMS},
    {{"T08b", "T08", "the fraction of a binade where RN loses the decay (lr wd = 3 2^-10)",
      M("write with rz instead of rn", NULL), "any change of the fraction (exact)", PROBE},
     srl__chk_decay_lost_fraction, NO_PARAMS},
    {{"T08c", "T08",
      "decoupled weight decay under SR is applied in mean: E[x_T] = x0 (1 - lr "
      "wd)^T",
      M("write with rn (strategy bf16-rn)", NULL), "0.023 in E[x_T]/x0 (2.5% of 0.905)", STAT},
     srl__chk_decay_sr_mean, NO_PARAMS},
    {{"T09a", "T09", "bf16 second moment under RN with beta2 = 0.999 never decreases",
      M("store v in fp32 (strategy fp32)", NULL), "any decrease of v (exact)", PROBE},
     srl__chk_moment_no_decrease, NO_PARAMS},
    {{"T09b", "T09", "bf16 second moment under RN rises iff g^2 > r(v) v",
      M(NULL, "predict the threshold r(v) = 1 (v rises whenever g^2 > v)"),
      "any step against the predicted threshold (exact)", PROBE},
     srl__chk_moment_rise, NO_PARAMS},
    {{"T10a", "T10", "Adam (beta1 0) with SR: relative SR penalty ~ulp^2/(6 lr^2) at lr 0.01 (model)",
      M("write with rn instead of sr", "predict the penalty with ulp^2/4 in place of ulp^2/6"),
      "0.017 in the relative penalty (17% of 0.102; 400 seeds)", STAT},
     srl__chk_sr_penalty, {.penalty = {"adam", 0.01, 0, 'q'}}},
    {{"T10b", "T10", "Adam (beta1 0) with SR: relative SR penalty ~ulp^2/(6 lr^2) at lr 0.005 (model)",
      M("write with rn instead of sr", "predict the penalty with ulp^2/4 in place of ulp^2/6"),
      "0.055 in the relative penalty (13% of 0.41; 400 seeds)", STAT},
     srl__chk_sr_penalty, {.penalty = {"adam", 0.005, 0, 'q'}}},
    {{"T10c", "T10", "Adam with RN below lr < gap/2: the whole initial loss remains (bias)",
      M("write with sr instead of rn", NULL), "any progress of the RN run (exact)", PROBE},
     srl__chk_adam_rn_freeze, NO_PARAMS},
    {{"T10d", "T10",
      "Adam (beta1 0), RN, coordinates in 10 binades: frozen iff lr < ulp/2, else moved by the "
      "nearest multiple of ulp",
      M("write with sr (strategy bf16-sr)", "predict the exact step (no RN bias)"),
      "any displacement off T q_i rint(s/q_i) (exact): one spacing of one coordinate", PROBE},
     srl__chk_adam_rn_moves, {.beta1 = 0}},
    {{"T10e", "T10",
      "Adam (beta1 0.9), RN, coordinates in 10 binades: frozen iff lr < ulp/2, else moved by the "
      "nearest multiple of ulp",
      M("write with sr (strategy bf16-sr)", "predict the exact step (no RN bias)"),
      "any displacement off T q_i rint(s/q_i) (exact): one spacing of one coordinate", PROBE},
     srl__chk_adam_rn_moves, {.beta1 = 0.9}},
    {{"T10f", "T10",
      "one Adam / AdamW step equals include/srlab/optim.h's operations bit for bit (five "
      "strategies, both paths, steps 1, 2, 9)",
      M("the step numbered t + 1 (bias corrections and draws of the next step)",
        "the definition with eps inside the square root"),
      "any weight, moment or master that differs from the definition (exact): one rounding of "
      "one element", PROBE},
     srl__chk_probe_step, NO_PARAMS},
    {{"T10g", "T10",
      "Adam with beta1 0.9 (the paper's) at lr 0.005: penalty from the Lyapunov model (0.246), "
      "not the beta1 = 0 formula (0.408)",
      M("write with rn instead of sr", "predict with the beta1 = 0 formula"),
      "0.04 in the relative penalty (16% of 0.246; 400 seeds)", STAT},
     srl__chk_sr_penalty, {.penalty = {"adam", 0.005, 0.9, 'b'}}},
    {{"T10h", "T10",
      "the bound's SR term per step: E[F(x_t+1) - F(x^_t+1)] = (a/2) E(x^ - RD)(RU - x^): the "
      "first-order term vanishes in mean (Adam beta1 0.9)",
      M("write with rn instead of sr", "predict the bound (a/2) ulp^2/4 itself"),
      "12% of the predicted term (100 seeds; 23% quick)", STAT},
     srl__chk_adam_bound_term, NO_PARAMS},
    {{"T11a", "T11",
      "GD under SR on a rotated quadratic: the mean trajectory is exact (sanity: T05c in 8-D)",
      M("write with rn instead of sr", NULL),
      "9.2e-4 in the mean trajectory's distance from GD", STAT},
     srl__chk_sr_trajectory, NO_PARAMS},
    {{"T11b", "T11",
      "f = x^4/4: SR shifts the mean gradient by 3 x s^2 (sanity: T01's two-point law's "
      "third moment)",
      M("round with rn instead of sr", "predict x s^2 (a missing factor 3)"),
      "4.6e-6 in the mean gradient shift (10% of 4.7e-5)", STAT},
     srl__chk_quartic_shift, NO_PARAMS},
    {{"T11c", "T11",
      "x^4/4, e4m3 SR: the mean iterate's shift from exact GD, from the closed recursion of item 3 "
      "(Sigma_t predicted, not measured)",
      M("write with rn instead of sr",
        "the first form of item 3: one step's rounding variance s^2 in place of Sigma_t"),
      "6% of the predicted shift (200 seeds; 15% with --quick's 40)", STAT},
     srl__chk_quartic_trajectory, NO_PARAMS},
    {{"T11d", "T11",
      "x^4/4, bf16 SR: the iterate variance Var(x_T) from the closed recursion of item 3 "
      "(the law on the grid: S_t = E (y - RD)(RU - y) over it)",
      M("write with rn instead of sr",
        "S_t as one step's rounding variance along the mean path (not over x_t's law)"),
      "1% of Var(x_T) (200 seeds x 4000; 2% quick)", STAT},
     srl__chk_quartic_variance, NO_PARAMS},
    {{"T12a", "T12", "replicas with shared SR randomness stay bit-identical",
      M("independent SR streams", NULL), "any difference between replicas (exact)", PROBE},
     srl__chk_replicas_shared, NO_PARAMS},
    {{"T12b", "T12",
      "replicas with independent SR streams drift: E||x_r - x_0||^2 = sum 2 p(1-p) "
      "q^2",
      M(NULL, "predict half the drift (one replica's variance)"),
      "4.7e-3 in E||x_r - x_0||^2 (11% of 0.043)", STAT},
     srl__chk_replicas_drift, NO_PARAMS},
    {{"T12c", "T12",
      "replicas under AdamW with weight decay: the drift contracts by (1 - lr wd)^2 per step",
      M(NULL, "predict the drift without the contraction (steady increments)"),
      "14% of the predicted drift (100 seeds)", STAT},
     srl__chk_replicas_decay, NO_PARAMS},
    {{"T13a", "T13", "bytes per parameter allocated, fp32 with AdamW = 16",
      M("allocate for SGD instead of AdamW", NULL), "any byte (exact)", PROBE},
     srl__chk_memory, {.memory = {"fp32", 16}}},
    {{"T13b", "T13", "bytes per parameter allocated, mp with AdamW = 16",
      M("allocate for SGD instead of AdamW", NULL), "any byte (exact)", PROBE},
     srl__chk_memory, {.memory = {"mp", 16}}},
    {{"T13c", "T13", "bytes per parameter allocated, bf16-rn with AdamW = 8",
      M("allocate for SGD instead of AdamW", NULL), "any byte (exact)", PROBE},
     srl__chk_memory, {.memory = {"bf16-rn", 8}}},
    {{"T13d", "T13", "bytes per parameter allocated, bf16-sr with AdamW = 8",
      M("allocate for SGD instead of AdamW", NULL), "any byte (exact)", PROBE},
     srl__chk_memory, {.memory = {"bf16-sr", 8}}},
    {{"T13e", "T13", "bytes per parameter allocated, bf16-sr-exact with AdamW = 8",
      M("allocate for SGD instead of AdamW", NULL), "any byte (exact)", PROBE},
     srl__chk_memory, {.memory = {"bf16-sr-exact", 8}}},
    {{"T13f", "T13", "bytes per parameter allocated, bf16-kahan with AdamW = 10",
      M("allocate for SGD instead of AdamW", NULL), "any byte (exact)", PROBE},
     srl__chk_memory, {.memory = {"bf16-kahan", 10}}},
    {{"T14a", "T14",
      "noisy SGD, lr sigma = 1.3 ulp: RN dithers, adding ulp^2/12 per step (half SR's ulp^2/6)",
      M("write with sr instead of rn", "predict SR's ulp^2/6 per step"),
      "13% of the predicted excess (1000 seeds; 30% quick)", STAT},
     srl__chk_t14_dither, NO_PARAMS},
    {{"T14b", "T14",
      "noisy SGD near RN's freeze (lr sigma = ulp/4): RN's loss from its gain and step variance",
      M("write with sr instead of rn", "predict the dithered limit (gain 1, ulp^2/12)"),
      "9% of the predicted loss (800 seeds; 20% quick)", STAT},
     srl__chk_t14_rn_edge, NO_PARAMS},
    {{"T14c", "T14", "noisy SGD, lr sigma < ulp/8: RN never moves the weight (frozen)",
      M("write with sr instead of rn", NULL), "any move of any seed (exact)", STAT},
     srl__chk_t14_rn_frozen, NO_PARAMS},
    {{"T14d", "T14",
      "noisy SGD below lr* = ulp/(sigma sqrt 6): SR's loss plateaus at ~ulp sigma/(2 sqrt(2 pi))",
      M("write with rn instead of sr",
        "predict lr sigma^2/4 + ulp^2/(24 lr) (the large-r formula)"),
      "9% of the predicted plateau (800 seeds; 20% quick)", STAT},
     srl__chk_t14_sr_plateau, NO_PARAMS},
    {{"T14e", "T14",
      "the crossover lr_c over 10^4 steps: SR beats RN below it, RN beats SR above it",
      M("write with rn in both runs", "predict RN already stationary (no freeze)"),
      "the sign of rn - sr on either side of lr_c (the worst side's interval)", STAT},
     srl__chk_t14_crossover, NO_PARAMS},
    {{"T15a", "T15",
      "heat equation, SR updates: RMS rounding error grows like dt^-1/4 along dt = h^2/4 "
      "(Croci-Giles)",
      M("update with sr:r=1 (biased: r L has 2 extra bits, so r = 1 truncates)",
        "predict the exponent -1/2 (fixed h) instead of the model's slope"),
      "0.085 in the slope (64 seeds; 0.12 quick)", STAT},
     srl__chk_heat_sr_slope, NO_PARAMS},
    {{"T15b", "T15", "heat equation, SR updates: mean square error <= the propagated u^2/4 bound",
      M("update in p = 20 (four bits coarser) with the binary32 bound", NULL),
      "a mean square error 3.2x the measured one (a bound row)", STAT},
     srl__chk_heat_sr_bound, NO_PARAMS},
    {{"T15c", "T15", "heat equation, RN updates below half a spacing: stagnation, error exact",
      M("update with sr instead of rn", NULL), "any difference from the frozen error (exact)", PROBE},
     srl__chk_heat_rn_frozen, NO_PARAMS},
    {{"T15d", "T15",
      "heat equation, fp16 rn at m = 128: the few updates that pass (U0's rounding noise) and the "
      "fixed point after them, exactly",
      M("update with sr instead of rn", "predict that no update survives (the old statement)"),
      "any difference in the lost fraction or the final error (exact)", PROBE},
     srl__chk_heat_rn_passes, NO_PARAMS},
    {{"T16a", "T16",
      "Kahan-compensated RN GD: the weight's time average is x* where plain RN stalls",
      M("kahan off (plain bf16-rn writes)", NULL),
      "a time average 5.1e-7 off x* (the derived band)", PROBE},
     srl__chk_kahan_rn, NO_PARAMS},
    {{"T16b", "T16",
      "Kahan-compensated SR GD: E (x_t - x_exact)^2 = (x_t - RD)(RU - x_t): one rounding",
      M("kahan off (plain sr writes accumulate a variance)", NULL),
      "2.1e-7 in E (x_t - x_exact)^2 (5.5% of 3.79e-6)", STAT},
     srl__chk_kahan_sr, NO_PARAMS},
    {{"T16c", "T16",
      "the Kahan-compensated write equals include/srlab/optim.h's, weight and compensation "
      "(steps 1 and 2, SGD and Adam)",
      M(NULL, "the definition without compensation (comp stays 0)"),
      "any weight or compensation that differs from the definition (exact)", PROBE},
     srl__chk_probe_kahan, NO_PARAMS},
    {{"T16d", "T16",
      "plain SR GD (no compensation): E (w_t - x_t)^2 from the law propagated over the grid, not "
      "the uniform-cell formula",
      M("write with rn instead of sr", "predict the uniform-cell formula (ulp^2/6 per step)"),
      "11% of the predicted mean square (4000 seeds; 22% quick)", STAT},
     srl__chk_plain_sr, NO_PARAMS},
    {{"T17a", "T17", "recursive SR summation: E (s - S)^2 <= u^2 sum_k (1 + u^2)^(n-k) S_k^2",
      M("sum with sr:r=2 (biased)", "bound with u/4 (a format two bits more precise)"),
      "a variance 3.5x the measured one (a bound row)", STAT},
     srl__chk_sum_var_bound, {.pairwise = false}},
    {{"T17b", "T17", "pairwise SR summation: E (s - S)^2 <= the tree's bound (~ 2 u^2 S^2)",
      M("sum in p = 7 (one bit coarser) with the bf16 bound",
        "bound with u/4 (a format two bits more precise)"),
      "a variance 2.3x the measured one (a bound row)", STAT},
     srl__chk_sum_var_bound, {.pairwise = true}},
    {{"T17c", "T17", "recursive SR summation: P(|s - S| >= 2 sqrt(V)) <= 1/4 (Chebyshev)",
      M("sum with sr:r=2 (biased)", NULL), "a true share above 0.29 (bound 1/4)", STAT},
     srl__chk_sum_chebyshev, NO_PARAMS},
    {{"T18a", "T18", "block-scaled SR is unbiased given the scale: E[Q(x)] = x below xmax 2^k",
      M("quantize with sr:r=1 (truncated fraction)", NULL),
      "a bias of 0.002 spacings (quick: 0.006), (t + 2.33) se over 65536 copies", 0},
     srl__chk_t18_unbiased, NO_PARAMS},
    {{"T18b", "T18", "the OCP scale clips: x in (xmax, 2^(emax+1)) 2^k gives xmax 2^k always",
      M("quantize with the ceil rule (nothing clips)", "predict no bias (unbiased SR)"),
      "any draw that does not clip (exact)", 0},
     srl__chk_t18_clip, {.pairwise = false}},
    {{"T18c", "T18", "the 3/4 rule removes the clipping bias: E[(4/3) Q(3x/4)] = x",
      M("quantize with the ocp rule", "predict the ocp clipping bias 6 - 7.5"),
      "a bias of 0.03 (quick: 0.08) on x = 7.5, against the ocp rule's -1.5", 0},
     srl__chk_t18_clip, {.pairwise = true}},
    {{"T18d", "T18",
      "block-quantized dot product: Var[sum b_i Q(a_i)] = sum b_i^2 (a_i - RD)(RU - a_i)",
      M("quantize with sr-eq (variance q^2/4)", "predict the worst case sum b_i^2 q_i^2 / 4"),
      "4% of the variance (quick: 11%); the worst case q^2/4 is 49% above it", 0},
     srl__chk_t18_dot_var, NO_PARAMS},
    {{"T18e", "T18",
      "the RHT bounds SR's variance: E (s - a.b)^2 <= (4/9) 2^-2m (2 ln 2g + 2)/g ||a||^2 ||b||^2",
      M("rotate with the fixed Hadamard (the input is its worst case)", NULL),
      "a true value 0.25 above the measured 0.011 (the bound is 25x loose at g = 256)", 0},
     srl__chk_t18_rht_bound, NO_PARAMS},
    {{"T18f", "T18",
      "on inputs with independent symmetric signs the fixed Hadamard's SR error equals the RHT's",
      M("an input aligned with H (the fixed rotation makes a spike)",
        "predict the difference E e_RHT^2 (the fixed rotation error-free)"),
      "a difference of 8% of E e_RHT^2 (quick: 23%)", 0},
     srl__chk_t18_fixed_rot, {.pairwise = false}},
    {{"T18g", "T18",
      "on the same inputs the fixed Hadamard with rn has the smaller mean square error than the RHT with sr",
      M("an input aligned with H", "bound 1/4 rather than 1"),
      "a true ratio of 1.04 (quick: 1.11)", 0},
     srl__chk_t18_fixed_rot, {.pairwise = true}},
};
#define NROWS (sizeof rows / sizeof rows[0])

size_t srl_check_count(void)
{
    return NROWS;
}

const srl_check *srl_check_at(size_t i)
{
    return i < NROWS ? &rows[i].check : NULL;
}

const srl_check *srl_check_find(const char *id)
{
    for (size_t i = 0; id && i < NROWS; i++)
        if (!strcasecmp(id, rows[i].check.id))
            return &rows[i].check;
    return NULL;
}

bool srl_check_selects(const char *name, const srl_check *c)
{
    return name && c && (!strcasecmp(name, c->id) || !strcasecmp(name, c->statement));
}

/* The row whose public part c is, or NULL for a check not from the catalogue. */
static const srl__chk_row *row_of(const srl_check *c)
{
    for (size_t i = 0; c && i < NROWS; i++)
        if (c == &rows[i].check)
            return &rows[i];
    return NULL;
}

int srl_check_run(srl_check_result *out, const srl_check *c, const srl_check_opts *o, srl_err *err)
{
    srl__chk_result_begin(out, c ? c->id : "?", "%s", c ? c->title : "");
    const srl__chk_row *row = row_of(c);
    if (!row || !o || (unsigned)o->mutation >= SRL_CHECK_MUT_COUNT)
        return srl_err_set(err, SRL_EINVAL, "srl_check_run: bad arguments");
    if (o->mutation != SRL_CHECK_MUT_NONE && !c->mutation[o->mutation])
        return srl_err_set(err, SRL_EINVAL, "%s has no %s mutation", c->id,
                           o->mutation == SRL_CHECK_MUT_EXPERIMENT ? "experiment" : "prediction");
    if (o->bug > srl_check_bug_count() || (o->bug && o->mutation != SRL_CHECK_MUT_NONE))
        return srl_err_set(err, SRL_EINVAL, "srl_check_run: defect %u with a mutation, or out of "
                           "range", o->bug);
    if (o->bug && !srl_check_bugs_built())
        return srl_err_set(err, SRL_ENOTSUP, "this build has no built-in defects (configure with "
                           "meson setup -Dmutants=true)");
    srl__chk_defect(o->bug); /* on for this run only */
    int st = row->run(out, row, o, err);
    srl__chk_defect(0);
    snprintf(out->id, sizeof out->id, "%s", c->id);
    if (st) {
        out->pass = false;
        out->margin = NAN;
    }
    return st;
}
