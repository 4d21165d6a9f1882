/* tests/check/test_theory_values.c: the values `srlab theory` prints for T05-T12 and T15-T17
 * (srl_t05_eval .. srl_t12_eval of include/srlab/theory.h, the functions `srlab check` calls
 * too) against numbers derived by hand from the theory/ files; T01-T04 are in
 * tests/run/test_theory_sum.c. In bf16 (p = 8) the spacing is 2^-7 in [1, 2) and 2^-9 in
 * [0.25, 0.5). */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "srlab/format.h"
#include "srlab/theory.h"
#include "../testutil.h"

static const srl_format *bf16(void)
{
    return srl_format_find("bf16");
}

/* T05 with the defaults of `srlab theory T05`: a = 1, x* = 0.3, x0 = 1, lr = 0.01. */
static void test_t05(void)
{
    const long before = srl_test_failures;
    const srl_format *fp32 = srl_format_find("fp32");
    srl_t05_values v;
    CHECK(srl_t05_eval(&v, 1, 0.3, 1, 0.01, 1000, bf16(), fp32, SRL_ARITH_FP32) == SRL_OK,
          "T05 eval");
    /* ulp(0.3) = 2^-9; D = 2^-9 / 0.02; 0.3 lies between 153 2^-9 and 154 2^-9 */
    const double D = 0x1p-9 / 0.02, g0 = 153 * 0x1p-9, g1 = 154 * 0x1p-9;
    CHECK(v.u == 0x1p-8 && v.ulp == 0x1p-9 && v.stall_distance == D &&
              v.freeze_grad == 0x1p-9 / 0.02,
          "T05 D %a", v.stall_distance);
    CHECK(v.band && v.band_lo == D - 0x1p-9, "T05 band");
    CHECK(v.g0 == g0 && v.g1 == g1 && v.sr_floor == 0.5 * (0.3 - g0) * (g1 - 0.3),
          "T05 floor %a", v.sr_floor);
    /* the exact RN run stops in the band [D - ulp, D] (T05 step 2), and its values agree */
    CHECK(v.stall.fixed && v.stall.distance >= D - 0x1p-9 && v.stall.distance <= D,
          "T05 stall at distance %a", v.stall.distance);
    CHECK(v.stall_ratio == v.stall.distance / D &&
              v.stall_loss_gap == 0.5 * v.stall.distance * v.stall.distance,
          "T05 stall ratio and loss gap");
    CHECK(v.x0 == 1 && v.sr_mean_iterate == 0.3 + pow(0.99, 1000) * 0.7, "T05 mean iterate %a",
          v.sr_mean_iterate);
    srl_t05_values w;
    CHECK(srl_t05_eval(&w, 1, 0.3, 1, 0.01, 1000, srl_format_find("fp64"), fp32,
                       SRL_ARITH_FP32) == SRL_EINVAL,
          "T05: fp32 arithmetic cannot hold fp64 weights");
    GROUP("T05 values (srl_t05_eval)", before);
}

/* v(r) by its Fourier series (theory/T14 step 3): 1/6 - sum_k exp(-2 pi^2 k^2 r^2)/(pi^2 k^2). */
static double v_fourier(double r)
{
    const double pi = 3.14159265358979323846;
    double v = 1.0 / 6;
    for (int k = 1; k < 100; k++)
        v -= exp(-2 * pi * pi * k * k * r * r) / (pi * pi * k * k);
    return v;
}

/* T06 and T10 at x* = 1.5 (ulp 2^-7), a = sigma = 1. */
static void test_t06_t10(void)
{
    const long before = srl_test_failures;
    srl_t06_values v;
    srl_t06_eval(&v, 1.5, 1, 0.01, 1, bf16());
    /* r = 0.01 / 2^-7 = 1.28: lr sigma^2 / (2 (2 - lr a)) = 0.01 / 3.98; v(r) = 1/6 to 1e-14,
     * ulp^2 / (6 lr^2 sigma^2) = 2^-14 / 6e-4 */
    CHECK(v.ulp == 0x1p-7 && v.r == 1.28 && fabs(v.excess_exact / (0.01 / 3.98) - 1) < 1e-15 &&
              fabs(v.relative_penalty / (0x1p-14 / 6e-4) - 1) < 1e-13 &&
              fabs(v.penalty_large_r / (0x1p-14 / 6e-4) - 1) < 1e-15,
          "T06 excess %a penalty %a", v.excess_exact, v.relative_penalty);
    CHECK(fabs(v.excess_sr / v.excess_exact / v.relative_penalty - 1) < 1e-14,
          "T06: the penalty is the ratio of the two excesses");
    CHECK(fabs(srl_t06_relative_penalty(v.lr_for_1pct, v.ulp, 1) - 0.01) < 1e-15,
          "T06: the penalty at lr_for_1pct is 1%%");
    /* r = 0.256 (lr 0.002, the spread 4 spacings wide): v(r)/r^2 = 2.117, the large-r form
     * 2.543 is 20% too large (the statement before, which the spread's width did not rule out) */
    srl_t06_eval(&v, 1.5, 1, 0.002, 1, bf16());
    const double r = 0.256, pen = v_fourier(r) / (r * r);
    CHECK(fabs(v.relative_penalty / pen - 1) < 1e-12 && fabs(v.relative_penalty - 2.1169) < 1e-4 &&
              fabs(v.penalty_large_r - 2.5431) < 1e-4,
          "T06 at r = 0.256: %.6g (Fourier %.6g), large-r form %.6g", v.relative_penalty, pen,
          v.penalty_large_r);
    CHECK(fabs(v.excess_sr / (v_fourier(r) * 0x1p-14 / (2 * 0.002 * 1.998)) - 1) < 1e-12,
          "T06 SR extra at r = 0.256: %a", v.excess_sr);
    /* T10, lr = 2^-7: lr' = 2^-7, sigma_g^2 / sigma^2 = 1 + 2^-7 / (2 - 2^-7) = 256/255, the
     * penalty (r = 1: v = 1/6 to 3e-9) 2^-14 (256/255) / (6 2^-14) = 256/1530; RN freezes at
     * x0 = 1.5 below 2^-7 / (2 (1 + delta)) */
    srl_t10_values w;
    srl_t10_eval(&w, 1.5, 1, 0x1p-7, 1, 0, 1.5, 3e-4, bf16());
    CHECK(w.lr_eff == 0x1p-7 && fabs(w.sigma_g2_ratio - 256.0 / 255) < 1e-15 &&
              fabs(w.relative_penalty - 256.0 / 1530) < 1e-8,
          "T10 ratio %.17g penalty %.17g", w.sigma_g2_ratio, w.relative_penalty);
    CHECK(w.penalty_at_2lr == srl_t10_adam_relative_penalty(0x1p-6, 0x1p-7, 1, 1) &&
              w.penalty_at_2lr < w.relative_penalty / 3.9,
          "T10 penalty at 2 lr %a", w.penalty_at_2lr);
    CHECK(w.x0 == 1.5 && w.rn_freeze_lr == 0x1p-7 / (2 * (1 + 3e-4)) && !w.rn_frozen,
          "T10 freeze %a", w.rn_freeze_lr);
    /* the Lyapunov model at beta1 = 0 is T06 on SGD with lr' = lr / sigma_g (its own fixed
     * point): the closed form to 1e-3 at lr 0.01; at beta1 = 0.9 and lr 0.005 0.2456, not the
     * beta1 = 0 formula's 0.408 (the statement before said nothing of beta1 > 0) */
    srl_t10_adam_model am;
    CHECK(srl_t10_adam_stationary(&am, 0.01, 0x1p-7, 1, 1, 0) == SRL_OK &&
              fabs(am.penalty / srl_t10_adam_relative_penalty(0.01, 0x1p-7, 1, 1) - 1) < 3e-3 &&
              fabs(am.r_m - 1.28) < 2e-3,
          "T10 model at beta1 0: %.6g (closed form %.6g), r_m %g", am.penalty,
          srl_t10_adam_relative_penalty(0.01, 0x1p-7, 1, 1), am.r_m);
    CHECK(srl_t10_adam_stationary(&am, 0.005, 0x1p-7, 1, 1, 0.9) == SRL_OK &&
              fabs(am.penalty - 0.2456) < 1e-4 &&
              fabs(srl_t10_adam_relative_penalty(0.005, 0x1p-7, 1, 1) - 0.4078) < 1e-4,
          "T10 model at beta1 0.9, lr 0.005: %.6g", am.penalty);
    CHECK(srl_t10_adam_stationary(&am, 0.005, 0x1p-7, 1, 1, 1) == SRL_EINVAL &&
              isnan(am.penalty),
          "T10 model: beta1 1 refused");
    srl_t10_eval(&w, 1.5, 1, 0.003, 1, 0, 1.5, 3e-4, bf16());
    CHECK(w.rn_frozen, "T10: lr 0.003 is below the freeze lr");
    srl_t10_eval(&w, 1.5, 1, 0.003, 1, 0, 2, 0, bf16()); /* a power of two: the gap below halves */
    CHECK(w.rn_freeze_lr == 0x1p-7 / 2, "T10 freeze at 2: %a", w.rn_freeze_lr);
    GROUP("T06, T10 values (srl_t06_eval, srl_t10_eval, srl_t10_adam_stationary)", before);
}

/* T07: x = 1.5 (ulp 2^-7), lr |g| = 1.5e-4: p = 0.0192. */
static void test_t07(void)
{
    const long before = srl_test_failures;
    srl_t07_values v;
    srl_t07_eval(&v, 1.5, 1e-4, -1.5, 10000, 0.0625, bf16());
    const double p = 1e-4 * 1.5 * 128;
    CHECK(v.ulp == 0x1p-7 && v.drift == 1e-4 * 1.5 && fabs(v.move_prob / p - 1) < 1e-15,
          "T07 p %.17g", v.move_prob);
    CHECK(v.rn_frozen, "T07: lr |g| < ulp/2 freezes RN");
    CHECK(fabs(v.moves_mean / 192 - 1) < 1e-14 &&
              fabs(v.moves_sd / sqrt(192 * (1 - p)) - 1) < 1e-14,
          "T07 moves %.17g sd %.17g", v.moves_mean, v.moves_sd);
    /* 0.0625 = 8 spacings: negative binomial with K = 8 */
    CHECK(v.wait_mean == 1 / v.move_prob && fabs(v.cover_mean / (8 / p) - 1) < 1e-14 &&
              fabs(v.cover_sd / (sqrt(8 * (1 - p)) / p) - 1) < 1e-14,
          "T07 wait %.17g cover %.17g", v.wait_mean, v.cover_mean);
    srl_t07_eval(&v, 1.5, 0.5, 0.01, 100, 0.0625, bf16()); /* lr |g| = 2^-8 (0.6 ulp) */
    CHECK(!v.rn_frozen, "T07: lr |g| >= ulp/2 moves RN");
    GROUP("T07 values (srl_t07_eval)", before);
}

/* T08: lr wd = 10^-4 (below 2^-9) and 3 2^-10 (between 2^-9 and 2^-8). */
static void test_t08(void)
{
    const long before = srl_test_failures;
    srl_t08_values v;
    srl_t08_eval(&v, 1, 1e-3, 0.1, 1000, bf16());
    CHECK(v.lr_wd == 1e-3 * 0.1 && v.threshold == 0x1p-9 && v.below_threshold &&
              v.lost_fraction == 1,
          "T08 below the threshold: lost everywhere");
    CHECK(v.x == 1 && v.lost && v.rn_x_T == 1 && v.sr_mean_x_T == pow(1 - 1e-4, 1000),
          "T08 at x = 1: %a", v.sr_mean_x_T);
    srl_t08_eval(&v, 1.9921875, 0x1p-5, 3 * 0x1p-5, 10, bf16());
    /* the lost fraction against every significand of [1, 2) decided one by one */
    int lost = 0;
    for (int M = 128; M < 256; M++)
        lost += srl_t08_rn_decay_lost(M * 0x1p-7, 3 * 0x1p-10, bf16());
    CHECK(!v.below_threshold && v.lost_fraction == lost / 128.0 && lost > 0 && lost < 128,
          "T08 lost fraction %g, counted %d/128", v.lost_fraction, lost);
    /* at x = 255 2^-7 the decrement 3 2^-10 x exceeds half a spacing: applied */
    CHECK(!v.lost && isnan(v.rn_x_T), "T08: the decay is applied at the top of the binade");
    srl_t08_eval(&v, 1.3, 1e-3, 0.1, 3, bf16()); /* x is stored as RN(1.3) = 166 2^-7 */
    CHECK(v.x == 166 * 0x1p-7 && v.sr_mean_x_T == v.x * pow(1 - 1e-4, 3), "T08 stored x %a",
          v.x);
    GROUP("T08 values (srl_t08_eval)", before);
}

/* T09 at v = 1 (a power of two: the spacing above is 2^-7) and beta2 = 0.999. */
static void test_t09(void)
{
    const long before = srl_test_failures;
    srl_t09_values v;
    CHECK(srl_t09_eval(&v, 1, 0.999, bf16()) == SRL_OK, "T09 eval");
    const double c = 1 - 0.999;
    CHECK(v.no_decrease_bound == 0x1p-9 && v.decay == c && v.ratchet, "T09 ratchet");
    CHECK(!v.write.can_decrease && v.write.v_min_next == 1, "T09 v = 1 cannot decrease");
    CHECK(v.write.rise_ratio == 1 + 0x1p-7 / (2 * c) && v.rise_ratio_max == v.write.rise_ratio &&
              v.rise_ratio_min == 1 + 1 / (2 * c * 255),
          "T09 rise ratios %a %a %a", v.write.rise_ratio, v.rise_ratio_min, v.rise_ratio_max);
    CHECK(srl_t09_eval(&v, 1, 0.99, bf16()) == SRL_OK && !v.ratchet && v.write.can_decrease,
          "T09 beta2 0.99: v can decrease");
    CHECK(srl_t09_eval(&v, 0, 0.999, bf16()) == SRL_EINVAL &&
              srl_t09_eval(&v, 1, 0.3, bf16()) == SRL_EINVAL,
          "T09: v must be normal and beta2 in [0.5, 1)");
    GROUP("T09 values (srl_t09_eval)", before);
}

/* T11 at y = 1 + 2^-9: a = 2^-9, b = 3 2^-9, s^2 = 3 2^-18. */
static void test_t11(void)
{
    const long before = srl_test_failures;
    srl_t11_values v;
    srl_t11_eval(&v, 1 + 0x1p-9, 0.05, bf16());
    CHECK(v.a == 0x1p-9 && v.b == 3 * 0x1p-9 && v.s2 == 3 * 0x1p-18, "T11 a b s2");
    /* 3 y s^2 = 9 (1 + 2^-9) 2^-18 = 4617 2^-27; + ab (b - a) = 6 2^-27; ab (a + b) = 12 2^-27 */
    CHECK(v.shift == 4617 * 0x1p-27 && v.shift_exact == 4623 * 0x1p-27 &&
              v.remainder_bound == 12 * 0x1p-27,
          "T11 shifts %a %a %a", v.shift, v.shift_exact, v.remainder_bound);
    CHECK(v.mean_step_shift == -0.05 * v.shift, "T11 mean step shift");
    GROUP("T11 values (srl_t11_eval)", before);
}

/* T12: bf16 sr from x = 1.5 (q = 2^-7) with lr update = 2^-9 = q/4: xe = 1.5 - 2^-9 lies 3/4 of
 * its cell above 1.4921875, so p = 3/4 and 2 p (1 - p) = 3/8. */
static void test_t12(void)
{
    const long before = srl_test_failures;
    srl_t12_values v;
    srl_t12_eval(&v, 1.5, 0x1p-9, 1, 1000, 10, bf16(), SRL_ROUND_SR);
    CHECK(v.in_range && v.x == 1.5 && v.xe == 1.5 - 0x1p-9 && v.q == 0x1p-7, "T12 grid");
    CHECK(v.p_away == 0.75 && v.diff_prob == 0.375 && v.step_d2 == 0.375 * 0x1p-14,
          "T12 p %g diff %g d2 %a", v.p_away, v.diff_prob, v.step_d2);
    CHECK(v.small_step && v.step_d2_small == 0x1p-15 && v.step_d2 <= v.step_d2_small,
          "T12 item 4: %a", v.step_d2_small);
    CHECK(v.d2 == 1e4 * 0.375 * 0x1p-14 && v.dist_rms == sqrt(v.d2), "T12 d2 %a", v.d2);
    srl_t12_eval(&v, 1.5, 0x1p-9, 1, 1000, 10, bf16(), SRL_ROUND_RN);
    CHECK(v.p_away == 0 && v.diff_prob == 0 && v.d2 == 0, "T12 rn: no drift");
    srl_t12_eval(&v, 1.5, 0x1p-9, 1, 1000, 10, bf16(), (srl_rounding){SRL_SR_BITS, 1});
    CHECK(v.p_away == 0.5 && v.diff_prob == 0.5, "T12 sr:r=1: p = floor(2 3/4) / 2");
    srl_t12_eval(&v, 3e38, 1, -1e38, 1, 1, bf16(), SRL_ROUND_SR);
    CHECK(!v.in_range, "T12: a write beyond the format's range");
    /* T12 step 3 with decoupled decay: the replicas' exact values differ by (1 - lr wd) d, d a
     * multiple of q, so their fractions differ by lr wd d / q and the per-step increment's error
     * |p_r (1 - p_r) - p_0 (1 - p_0)| q^2 is at most lr wd |d| q (bf16 around 1.5, lr wd 1e-3,
     * |d| up to 40 q, 256 fractions p_0) */
    const double qq = 0x1p-7, lw = 1e-3;
    double worst = 0;
    for (int k = -40; k <= 40; k++)
        for (int j = 0; j < 256; j++) {
            const double xe0 = 1.5 + (j + 0.5) / 256 * qq, xer = xe0 + (1 - lw) * k * qq;
            const srl_rounding sr = SRL_ROUND_SR;
            const double p0 = srl_t12_away_prob(xe0, bf16(), sr), pr = srl_t12_away_prob(xer, bf16(), sr);
            const double err = fabs(pr * (1 - pr) - p0 * (1 - p0));
            if (k)
                worst = fmax(worst, err / (lw * abs(k)));
            CHECK(err <= lw * abs(k) + 1e-15, "T12 step 3 at d = %d q, p0 %g: %g", k, p0, err);
        }
    CHECK(worst > 0.5, "T12 step 3: the bound is nearly attained (%g of it)", worst);
    GROUP("T12 values (srl_t12_eval)", before);
}

/* T11 item 3's recursions: with Sigma = 0 the mean stays on exact GD (D = 0 exactly); one step
 * from x0 with Sigma_0 = S shifts the mean by -3 lr x0 S; the variance recursion by hand. */
static void test_t11_shift(void)
{
    const long before = srl_test_failures;
    const double zero[3] = {0, 0, 0}, one[1] = {1e-3};
    double gT;
    CHECK(srl_t11_quartic_mean_shift(&gT, 1.5, 0.05, zero, 3) == 0, "T11 shift without Sigma");
    double g = 1.5;
    for (int t = 0; t < 3; t++)
        g -= 0.05 * g * g * g;
    CHECK(gT == g, "T11 exact GD %a", gT);
    const double D = srl_t11_quartic_mean_shift(&gT, 1.5, 0.05, one, 1);
    CHECK(fabs(D / (-0.05 * 3 * 1.5 * 1e-3) - 1) < 1e-14, "T11 one-step shift %g", D);
    CHECK(srl_t11_sigma_next(2.0, 0.1, 3.0, 0.5) == 0.7 * 0.7 * 2.0 + 0.5, "T11 Sigma step");
    /* the closed recursion: from x0 on the grid (Sigma 0) the first step's variance is the one
     * rounding's s^2 of y = x0 - lr x0^3, and no shift yet; a spread law averages s^2 over the
     * grid (bf16, m = 1.5, Sigma = (20 ulp)^2: within 2% of ulp^2/6 = E f(1-f) of a uniform f? no:
     * the position of y in its cell is set by the step, lr m^3 = 0.16875 = 21.6 ulp: fraction 0.6) */
    const srl_format *e4m3 = srl_format_find("e4m3");
    double sg[2], Dd[2], gg;
    srl_t11_quartic_predict(sg, Dd, &gg, 1.5, 0.05, 2, e4m3);
    const double y0 = 1.5 - 0.05 * 3.375;
    CHECK(sg[0] == srl_t01_sr_variance(y0, e4m3) && Dd[0] == 0 && gg == y0 - 0.05 * y0 * y0 * y0,
          "T11 recursion, step 1: Sigma %a D %a", sg[0], Dd[0]);
    CHECK(srl_t11_grid_sr_var(1.5, 0, 0.05, e4m3) == sg[0], "T11 S at Sigma 0");
    /* lr 1e-4: the step from every grid value near 1.5 is 0.0432 of a spacing (it changes by
     * 7e-4 of one per grid value), so over a law two spacings wide y sits 0.0432 below a grid value:
     * S = 0.0432 (1 - 0.0432) ulp^2, not the uniform cell's ulp^2/6 */
    const double q = 0x1p-7, sgrid = srl_t11_grid_sr_var(1.5, 4 * q * q, 1e-4, bf16()),
                 fr = 1e-4 * 3.375 / q;
    CHECK(fabs(sgrid / (fr * (1 - fr) * q * q) - 1) < 0.02,
          "T11 S on the grid %g ulp^2 (%g): set by the step, not 1/6", sgrid / (q * q),
          fr * (1 - fr));
    GROUP("T11 item 3 (srl_t11_quartic_mean_shift, srl_t11_sigma_next)", before);
}

/* T14's Gaussian sums against their Fourier series (Poisson summation, theory/T14 steps 2-3),
 * an independent route: with e_k = exp(-2 pi^2 k^2 r^2),
 *   E[frac(s)(1 - frac(s))] = 1/6 - sum_k e_k / (pi^2 k^2),
 *   E[round(s)^2]           = r^2 + 1/12 + sum_k (-1)^k e_k (4 r^2 + 1/(pi^2 k^2)),
 *   d/dm E[round(s + m)]    = 1 + 2 sum_k (-1)^k e_k. */
static void t14_fourier(double r, double *v, double *w, double *k)
{
    const double pi = 3.14159265358979323846;
    *v = 1.0 / 6;
    *w = r * r + 1.0 / 12;
    *k = 1;
    for (int j = 1; j <= 200; j++) {
        const double e = exp(-2 * pi * pi * j * j * r * r), sg = j % 2 ? -1 : 1;
        *v -= e / (pi * pi * j * j);
        *w += sg * e * (4 * r * r + 1 / (pi * pi * j * j));
        *k += 2 * sg * e;
    }
}

/* T14 at x* = 1.5 (ulp 2^-7), a = sigma = 1, x0 = 1.25. */
static void test_t14(void)
{
    const long before = srl_test_failures;
    const double q = 0x1p-7;
    static const double rs[] = {0.15, 0.3, 0.5, 1, 3};
    for (size_t i = 0; i < sizeof rs / sizeof rs[0]; i++) {
        double v, w, k;
        t14_fourier(rs[i], &v, &w, &k);
        CHECK(fabs(srl_t14_sr_cell_var(rs[i]) - v) < 1e-12 &&
                  fabs(srl_t14_rn_step_var(rs[i]) / w - 1) < 1e-12 &&
                  fabs(srl_t14_rn_gain(rs[i]) - k) < 1e-12,
              "T14 sums at r = %g: %.17g %.17g %.17g", rs[i], srl_t14_sr_cell_var(rs[i]),
              srl_t14_rn_step_var(rs[i]), srl_t14_rn_gain(rs[i]));
    }
    /* stationary: exact is T06's, SR at r >= 1 is T06's exact + SR extra (ulp^2/6 per step,
     * within e_1 / pi^2 < 3e-10 relative), RN at r >= 1 half that extra */
    const double lr = 0.02, ex = srl_t06_excess_exact(lr, 1, 1), sr = srl_t06_excess_sr_large_r(lr, q, 1);
    CHECK(fabs(srl_t14_excess(SRL_T14_EXACT, 1, lr, 1, q, 0, INFINITY) / ex - 1) < 1e-14,
          "T14 exact stationary");
    CHECK(fabs(srl_t14_excess(SRL_T14_SR, 1, lr, 1, q, 0, INFINITY) / (ex + sr) - 1) < 1e-9,
          "T14 SR stationary");
    CHECK(fabs(srl_t14_excess(SRL_T14_RN, 1, lr, 1, q, 0, INFINITY) / (ex + sr / 2) - 1) < 1e-9,
          "T14 RN stationary (dithered)");
    /* SR's plateau at small r: v ~ r sqrt(2/pi) - r^2, so the excess -> q sigma / (2 sqrt(2 pi))
     * with relative error of order r */
    const double plateau = q / (2 * sqrt(2 * 3.14159265358979323846));
    CHECK(fabs(srl_t14_excess(SRL_T14_SR, 1, 1e-6, 1, q, 0, INFINITY) / plateau - 1) < 1e-3,
          "T14 SR plateau");
    /* the path from e0 = 0 stays at m = 0, so it is the closed form at every step */
    double path[1001];
    srl_t14_path(path, SRL_T14_RN, 1, 0.002, 1, q, 0, 1000);
    CHECK(fabs(path[1000] / srl_t14_excess(SRL_T14_RN, 1, 0.002, 1, q, 0, 1000) - 1) < 1e-12,
          "T14 path = closed form at x*");
    /* frozen: from x* the move probability is 2 Q(q / (2 lr sigma)) */
    CHECK(fabs(srl_t14_rn_move_prob(1, 5e-4, 1, q, 0) / erfc(7.8125 / sqrt(2.0)) - 1) < 1e-12,
          "T14 move probability");
    srl_t14_values v;
    srl_t14_eval(&v, 1.5, 1, 0.002, 1, 1.25, 10000, bf16());
    CHECK(v.ulp == q && v.r == 0.002 / q && v.lr_star == q / sqrt(6.0), "T14 lr*");
    /* at the crossover the two excesses meet, just below it SR wins */
    const double c = v.crossover_lr;
    const double d = srl_t14_excess(SRL_T14_SR, 1, c, 1, q, -0.25, 1e4) /
                     srl_t14_excess(SRL_T14_RN, 1, c, 1, q, -0.25, 1e4);
    CHECK(c > 1e-3 && c < 0.002 && fabs(d - 1) < 1e-9 &&
              srl_t14_excess(SRL_T14_SR, 1, c / 1.01, 1, q, -0.25, 1e4) <
                  srl_t14_excess(SRL_T14_RN, 1, c / 1.01, 1, q, -0.25, 1e4),
          "T14 crossover %g (ratio %.17g)", c, d);
    GROUP("T14 values (srl_t14_*)", before);
}

/* T15: m = 64, r = 1/4, t = 1/16 in fp16 (u = 2^-11): dt = 2^-14, 1024 steps. */
static void test_t15(void)
{
    const long before = srl_test_failures;
    const srl_format *fp16 = srl_format_find("fp16");
    double work[4 * 129];
    srl_t15_values v;
    CHECK(srl_t15_eval(&v, 64, 0.25, 0.0625, fp16, work) == SRL_OK, "T15 eval");
    const double sn = sin(3.14159265358979323846 / 128), mu1 = 4 * 4096 * sn * sn;
    CHECK(v.u == 0x1p-11 && v.dt == 0x1p-14 && v.steps == 1024 && v.t == 0.0625 &&
              v.rn_bound == 1024 * 0x1p-11,
          "T15 grid: dt %a steps %llu", v.dt, (unsigned long long)v.steps);
    CHECK(fabs(v.update_ratio / (0x1p-14 * mu1 * 0x1p11) - 1) < 1e-15 && !v.rn_frozen,
          "T15 update ratio %g (about pi^2 2^-3 = 1.23: RN moves)", v.update_ratio);
    /* the bound with one mode (m = 2: lambda = 1 - 4 r sin^2(pi/4) = 1/2): u^2/4 (1 - 4^-N)/(3/4) */
    const double b2 = srl_t15_sr_ms_bound(2, 0.25, 3, 0x1p-11);
    CHECK(fabs(b2 / (0x1p-22 / 4 * (1 - pow(0.25, 3)) / 0.75) - 1) < 1e-14, "T15 m = 2 bound %a",
          b2);
    /* its dt^-1/4 law: quadrupling m (dt / 16) doubles the mean square once N is large */
    const double r1 = srl_t15_sr_ms_bound(256, 0.25, 1u << 20, 1) /
                      srl_t15_sr_ms_bound(64, 0.25, 1u << 16, 1);
    CHECK(fabs(r1 - 4) < 0.1 && fabs(v.sr_rms_limit / (0x1p-11 * sqrt(64.0 / 12)) - 1) < 1e-15,
          "T15: 16x smaller dt, %g x the mean square (-> 4)", r1);
    /* the small-h form is the bound's limit (u^2/(48 r h) for t >> 1/(2 pi^2); the statement
     * before had 12: twice the RMS): at t = 1 the ratio tends to 1 as h -> 0 */
    for (uint64_t m = 64; m <= 1024; m *= 4) {
        const double steps = 1.0 / (0.25 / (double)(m * m));
        const double ratio = srl_t15_sr_ms_bound(m, 0.25, (uint64_t)steps, 1) /
                             srl_t15_sr_ms_asym(m, 0.25, 1.0, 1);
        CHECK(fabs(ratio - 1) < 3.0 / (double)m, "T15 bound / small-h form at m = %llu: %.6f",
              (unsigned long long)m, ratio);
        CHECK(fabs(srl_t15_sr_ms_asym(m, 0.25, 1.0, 1) * 48 * 0.25 / (double)m - 1) < 1e-8,
              "T15 at t = 1 the form is u^2/(48 r h)");
    }
    /* at t = 1/16 the low modes have not saturated: S(t) = 1.3519, not pi^2/6 */
    CHECK(fabs(srl_t15_sr_ms_asym(1024, 0.25, 0.0625, 1) * 8 * 9.8696044010893586 * 0.25 / 1024 -
               1.3519) < 1e-4,
          "T15 S(1/16)");
    /* RN at m = 128 (fp16): 24 updates pass at step 1 (U0's rounding noise), 4 at step 2, then
     * the rounded map is at a fixed point: 28 of 364546 updates pass (the statement before said
     * none); at m = 512 none passes */
    srl_t15_rn fp;
    CHECK(srl_t15_rn_fixed_point(&fp, 128, 0.25, 4096, fp16, work) == SRL_OK && fp.passes == 28 &&
              fp.first_step_passes == 24 && fp.fixed_step == 2 && fp.changed == 364546 &&
              fabs(1 - fp.lost_frac - 7.68e-5) < 1e-7,
          "T15 RN fixed point at m = 128: %llu passes (%llu at step 1), fixed after %llu, %llu",
          (unsigned long long)fp.passes, (unsigned long long)fp.first_step_passes,
          (unsigned long long)fp.fixed_step, (unsigned long long)fp.changed);
    /* nothing moves in 0 steps; at m = 2 the one point halves every step (1 + (0 - 2 + 0)/4):
     * no fixed point within a step, NaN */
    CHECK(isnan(srl_t15_frozen_rms(2, 0.25, 1, fp16, work)) &&
              srl_t15_frozen_rms(64, 0.25, 0, fp16, work) == 0,
          "T15 frozen error");
    const double x[3] = {0, 1, 2}, y[3] = {1, 0.5, 0};
    CHECK(srl_t15_slope(x, y, 3) == -0.5, "T15 slope");
    GROUP("T15 values (srl_t15_eval)", before);
}

/* T16 at the defaults of `srlab theory T16`: x* = 0.3, x0 = 1, lr 1e-3, t = 500. */
static void test_t16(void)
{
    const long before = srl_test_failures;
    srl_t16_values v;
    srl_t16_eval(&v, 1, 0.3, 1, 1e-3, 500, bf16(), 0x1p-24);
    /* 0.3 = 153.6 2^-9: RN(0.3) = 154 2^-9 */
    CHECK(v.ulp == 0x1p-9 && v.rn_limit == 154 * 0x1p-9 && v.rn_stall == 0x1p-9 / 2e-3,
          "T16 RN limit %a", v.rn_limit);
    const double xe = 0.3 + pow(0.999, 500) * 0.7, f = xe / 0x1p-8 - floor(xe / 0x1p-8);
    CHECK(v.x_exact == xe && v.ulp_t == 0x1p-8 &&
              fabs(v.sr_kahan_ms / (f * (1 - f) * 0x1p-16) - 1) < 1e-9 &&
              v.sr_kahan_ms <= 0x1p-16 / 4,
          "T16 SR: f = %g, ms %a", f, v.sr_kahan_ms);
    CHECK(v.sr_plain_ms > 100 * v.sr_kahan_ms && v.comp_tol < 1e-3 * v.sr_kahan_ms,
          "T16 plain SR accumulates: %g", v.sr_plain_ms);
    /* plain SR from the law on the grid: 5.63e-4 (148 times Kahan's), not the uniform-cell
     * formula's 8.04e-4 (212 times) that the statement quoted */
    CHECK(fabs(v.sr_plain_ms - 5.629e-4) < 1e-7 && fabs(v.sr_plain_ms_uniform - 8.044e-4) < 1e-7 &&
              fabs(v.sr_plain_ms / v.sr_kahan_ms - 148.4) < 0.1,
          "T16 plain SR %.6g (uniform cells %.6g), %.4g x Kahan", v.sr_plain_ms,
          v.sr_plain_ms_uniform, v.sr_plain_ms / v.sr_kahan_ms);
    /* the law on one step: from x0 the two neighbours of the update, exactly */
    const double y1 = 1 - 1e-3 * (1 - 0.3), lo = 255 * 0x1p-8, p1 = (y1 - lo) / 0x1p-8,
                 x1 = 0.3 + (1 - 1e-3) * 0.7,
                 ms1 = (1 - p1) * (lo - x1) * (lo - x1) + p1 * (1 - x1) * (1 - x1);
    CHECK(fabs(srl_t16_plain_sr_ms(1, 0.3, 1, 1e-3, 1, bf16()) / ms1 - 1) < 1e-12,
          "T16 plain SR, one step");
    GROUP("T16 values (srl_t16_eval)", before);
}

/* T17: equal terms against the general recursions, and small cases by hand. */
static void test_t17(void)
{
    const long before = srl_test_failures;
    const double u = 0x1p-8, u2 = u * u;
    double x[1000];
    for (int i = 0; i < 1000; i++)
        x[i] = 0.001;
    srl_t17_values v;
    srl_t17_eval(&v, 0.001, 1000, 0.01, bf16());
    CHECK(fabs(v.var_rec / srl_t17_var_recursive(x, 1000, u) - 1) < 1e-12 &&
              fabs(v.var_pair / srl_t17_var_pairwise(x, 1000, u) - 1) < 1e-12,
          "T17 equal terms: rec %g pair %g", v.var_rec, v.var_pair);
    /* three terms 1, 2, 3: recursive (1 + u^2) u^2 9 + u^2 36; pairwise: (1 + 2) then + 3 */
    const double t[3] = {1, 2, 3};
    CHECK(srl_t17_var_recursive(t, 3, u) == (1 + u2) * (u2 * 9) + u2 * 36 &&
              srl_t17_var_pairwise(t, 3, u) == (1 + u2) * (u2 * 9) + u2 * 36,
          "T17 three terms");
    const double q[4] = {1, 2, 3, 4}; /* pairwise (1 + 2) + (3 + 4) */
    CHECK(srl_t17_var_pairwise(q, 4, u) == (1 + u2) * (u2 * 9 + u2 * 49) + u2 * 100,
          "T17 pairwise of four");
    /* the large-n forms: recursive ~ u sqrt(n/3), pairwise ~ sqrt(2) u (n a power of two) */
    CHECK(fabs(v.rel_rec / v.rel_rec_asym - 1) < 0.01 && v.lambda == 10 &&
              v.prob_rec == 10 * v.rel_rec,
          "T17 recursive %g against u sqrt(n/3) = %g", v.rel_rec, v.rel_rec_asym);
    srl_t17_eval(&v, 1, 1024, 0.25, bf16());
    CHECK(fabs(v.rel_pair / (sqrt(2.0) * u) - 1) < 0.01, "T17 pairwise %g", v.rel_pair / u);
    GROUP("T17 values (srl_t17_eval)", before);
}

int main(void)
{
    test_t05();
    test_t06_t10();
    test_t07();
    test_t08();
    test_t09();
    test_t11();
    test_t11_shift();
    test_t12();
    test_t14();
    test_t15();
    test_t16();
    test_t17();
    TEST_END();
}
