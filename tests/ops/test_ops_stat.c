/* tests/ops/test_ops_stat.c: stochastic rounding of exact operations, statistically (suite `stat`).
 *
 * For quotients and square roots (fractions with infinite expansions: periodic or irrational) and
 * a few sums with huge exponent gaps, in several formats:
 *   - p_up from srl_op_explain equals the probability computed here with MPFR (ops_ref.h: the
 *     exact fraction f): sr p_up = RN(f) for positive results and RN(1 - f) for negative ones
 *     (each rounded once, srl_round_info's definition); sr:r=R floor(f 2^R) / 2^R (or its
 *     complement); sr-eq 1/2;
 *   - n = 10^6 roundings through srl_op_apply with a seeded stream (consecutive draws) land on ru
 *     with a frequency that passes a two-sided exact binomial test at that probability. The
 *     threshold comes from n and the binomial distribution (GSL's CDFs): the p-value
 *     2 min(P(X <= k), P(X >= k)) must exceed ALPHA / ncases, a family-wise false-alarm rate
 *     ALPHA = 10^-6 with Bonferroni's correction. Every result must be rd or ru, and the stream
 *     must have advanced by exactly n.
 * Seeds are fixed and printed on failure; n scales with SRL_TEST_SCALE (the thresholds follow
 * the n actually used). */
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <gsl/gsl_cdf.h>
#include <mpfr.h>

#include "srlab/format.h"
#include "srlab/ops.h"
#include "srlab/rng.h"
#include "srlab/rounding.h"

#include "../testutil.h"
#include "ops_ref.h"

#define ALPHA 1e-6

typedef struct scase {
    const char *fmt, *mode;
    srl_op op;
    double a, b;
} scase;

static const scase cases[] = {
    {"bf16", "sr", SRL_DIV, 1.0, 3.0},
    {"bf16", "sr", SRL_DIV, -2.0, 7.0},
    {"bf16", "sr", SRL_DIV, 1.0, 1.0 + 0x1p-7},
    {"bf16", "sr", SRL_SQRT, 2.0, 0},
    {"bf16", "sr", SRL_SQRT, 3.0, 0},
    {"bf16", "sr", SRL_SQRT, 1.0 + 0x1p-6, 0},
    {"bf16", "sr:r=4", SRL_DIV, 1.0, 3.0},
    {"bf16", "sr:r=16", SRL_SQRT, 3.0, 0},
    {"bf16", "sr-eq", SRL_DIV, 1.0, 3.0},
    {"fp16", "sr", SRL_DIV, 10.0, 3.0},
    {"fp16", "sr", SRL_SQRT, 5.0, 0},
    {"fp32", "sr", SRL_DIV, 1.0, 3.0},
    {"fp32", "sr", SRL_DIV, -1.0, 10.0},
    {"fp32", "sr", SRL_SQRT, 2.0, 0},
    {"fp32", "sr", SRL_SQRT, 1.0 + 0x1p-23, 0},
    {"fp32", "sr", SRL_DIV, 0x1p-140, 3.0},   /* a subnormal result */
    {"fp32", "sr", SRL_ADD, 1.0, 0x1.555p-25}, /* f = 0.333..., a binary64 sum */
    {"fp32", "sr", SRL_SUB, 1.0, 0x1.8p-26},   /* 1 - 3 2^-27 in [1/2, 1): f = 5/8 */
    {"e4m3", "sr", SRL_DIV, 1.0, 3.0},
    {"e4m3", "sr", SRL_SQRT, 7.0, 0},
    {"e5m2", "sr", SRL_DIV, 5.0, 7.0},
    {"fp64", "sr", SRL_DIV, 1.0, 3.0},
    {"fp64", "sr", SRL_SQRT, 2.0, 0},
    {"fp64", "sr", SRL_DIV, -1.0, 49.0},
    {"fp64", "sr:r=16", SRL_SQRT, 2.0, 0},
};
#define NCASES ((int)(sizeof cases / sizeof cases[0]))

/* Two-sided exact binomial p-value of k successes in n trials at probability p. */
static double binom_pvalue(unsigned k, double p, unsigned n)
{
    const double lo = gsl_cdf_binomial_P(k, p, n);                  /* P(X <= k) */
    const double hi = k == 0 ? 1.0 : gsl_cdf_binomial_Q(k - 1, p, n); /* P(X >= k) */
    const double v = 2.0 * (lo < hi ? lo : hi);
    return v > 1.0 ? 1.0 : v;
}

int main(void)
{
    setvbuf(stdout, NULL, _IOLBF, 0);
    const unsigned n = (unsigned)srl_test_n(1000000);
    const double alpha_case = ALPHA / NCASES;
    printf("test_ops_stat: %d cases, n = %u each, two-sided binomial p-value > %g "
           "(family-wise %g, Bonferroni)\n", NCASES, n, alpha_case, ALPHA);
    for (int c = 0; c < NCASES; c++) {
        const long before = srl_test_failures;
        const scase *S = &cases[c];
        srl_format f;
        srl_rounding m;
        srl_err err;
        if (srl_format_parse(&f, S->fmt, &err) != SRL_OK ||
            srl_rounding_parse(&m, S->mode, &err) != SRL_OK) {
            CHECK(0, "case %d: %s", c, err.msg);
            continue;
        }
        ref_fmt F;
        ref_fmt_from(&F, &f);
        opref_ws w;
        opref_ws_init(&w, &F);
        opref o;
        opref_run(&o, &w, &F, S->op, S->a, S->b, 0, 0);
        CHECK(o.fok && o.err == 0, "case %d: the reference has no fraction (err %d)", c, o.err);
        if (!o.fok) {
            opref_ws_clear(&w);
            continue;
        }
        /* the probability of moving away from zero, exactly (to binary64) */
        const double f_rn = opref_frac_d(&w, w.qexp);
        bool ends;
        const uint64_t f1 = opref_word(&w, w.qexp, 0, &ends);
        double pa;
        if (m.mode == SRL_SR)
            pa = f_rn;
        else if (m.mode == SRL_SR_EQ)
            pa = 0.5;
        else
            pa = ldexp((double)(f1 >> (64 - m.r)), -m.r);
        /* RN(1 - f) for negative results in sr, from MPFR: (|a| - |x|)/q */
        double one_minus = 1.0 - pa;
        if (m.mode == SRL_SR) {
            mpfr_t t;
            mpfr_init2(t, 4000);
            const opref_range rg = opref_widen();
            opref_scaled(&w, w.qexp, 3000); /* t1 = |x| 2^(3000 - qexp), exact digits */
            mpfr_div_2si(t, w.t1, 3000, MPFR_RNDN);
            mpfr_frac(t, t, MPFR_RNDN);
            mpfr_ui_sub(t, 1, t, MPFR_RNDN);
            one_minus = mpfr_get_d(t, MPFR_RNDN); /* 1 - f to 3000 bits, then RN */
            opref_restore(rg);
            mpfr_clear(t);
        }
        /* p_up = P(result = ru): for a negative result the probability of moving toward zero,
         * rounded once (rounding.h) */
        double pc = 1.0 - pa; /* exact for sr-eq and sr:r=R (multiples of 2^-R) */
        if (m.mode == SRL_SR)
            pc = one_minus;
        const double p_up_want = o.neg ? pc : pa;

        srl_rng rng;
        const uint64_t seed = UINT64_C(0x57a70000) + (uint64_t)c;
        srl_rng_init(&rng, SRL_RNG_DEFAULT, seed, 3);
        srl_round_info I;
        const int st = srl_op_explain(&I, S->op, S->a, S->b, 0, &f, m, &rng);
        CHECK(st == SRL_OK && I.p_up == p_up_want && (m.mode != SRL_SR || I.frac == f_rn),
              "case %d %s(%a, %a) %s %s: p_up %a frac %a, MPFR: p_up %a (RN(1-f) %a), f %a",
              c, srl_op_name(S->op), S->a, S->b, S->fmt, S->mode, I.p_up, I.frac, p_up_want,
              one_minus, f_rn);

        /* n roundings, consecutive draws */
        srl_rng_seek(&rng, 0);
        unsigned up = 0, other = 0;
        for (unsigned i = 0; i < n; i++) {
            const double y = srl_op_apply(S->op, S->a, S->b, 0, &f, m, &rng);
            if (y == I.ru)
                up++;
            else if (y != I.rd)
                other++;
        }
        CHECK(rng.counter == n, "case %d: the stream advanced by %" PRIu64 ", not %u", c,
              rng.counter, n);
        CHECK(other == 0, "case %d: %u results were neither rd %a nor ru %a", c, other, I.rd,
              I.ru);
        const double pv = binom_pvalue(up, I.p_up, n);
        CHECK(pv > alpha_case, "case %d %s(%a, %a) %s %s (seed 0x%" PRIx64 " stream 3): %u of %u "
              "up, expected p_up %.17g (mean %.1f): two-sided p-value %.3g <= %.3g", c,
              srl_op_name(S->op), S->a, S->b, S->fmt, S->mode, seed, up, n, I.p_up,
              I.p_up * n, pv, alpha_case);
        char label[200];
        snprintf(label, sizeof label, "%s(%a, %a) in %s %s: p_up %.6f exact, %u/%u up (p-value "
                 "%.3g)", srl_op_name(S->op), S->a, S->b, S->fmt, S->mode, I.p_up, up, n, pv);
        GROUP(label, before);
        opref_ws_clear(&w);
    }
    TEST_END();
}
