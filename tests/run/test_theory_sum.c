/* tests/run/test_theory_sum.c: the predictions of include/srlab/theory.h (theory/T01-T04).
 *
 *   T01  the variance formula against the two-point distribution given by the library's exact
 *        p_up; the RN and SR error bounds against rounding every probed x (a bound that must
 *        hold: no tolerance).
 *   T02  the closed-form sr:r=R bias against E[result] - x computed exactly (MPFR) from the
 *        library's p_up; zero bias for fp32 inputs into bf16 with R = 16.
 *   T03  gamma, path lengths per order, the SR bounds' first order, and the harmonic
 *        stagnation terms (bf16, fp16, tf32, e4m3, e5m2 under rn and rz; fp32 in the slow
 *        suite), hand-checked here from the criterion t_k < ulp(s)/2 where stated.
 *   T04  the matvec bound against gamma_n.
 *   srl_t01_eval .. srl_t04_eval (the values `srlab theory` prints) against hand-derived numbers.
 * Probe values come from a fixed pcg32 stream (seed printed on failure). */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <mpfr.h>

#include "srlab/kernels.h"
#include "srlab/rng.h"
#include "srlab/rounding.h"
#include "srlab/theory.h"
#include "../testutil.h"

#define SEED 20241129u

static srl_format fmt(const char *name)
{
    srl_format f;
    srl_err e;
    if (srl_format_parse(&f, name, &e) != SRL_OK) {
        fprintf(stderr, "bad format %s: %s\n", name, e.msg);
        exit(99);
    }
    return f;
}

/* A probe in [2^lo, 2^hi) with random sign and 53 random significand bits. */
static double probe(srl_rng *r, int lo, int hi)
{
    const double m = 1 + srl_rng_uniform(r);
    const int e = lo + (int)srl_rng_below(r, (uint64_t)(hi - lo));
    const double x = ldexp(m, e);
    return (srl_rng_next(r) & 1) ? -x : x;
}

static void test_t01(void)
{
    const long before = srl_test_failures;
    const char *names[] = {"bf16", "fp16", "fp32", "e4m3", "e5m2", "p=5,emax=7,subnormals=off"};
    srl_rng r;
    srl_rng_init(&r, SRL_RNG_PCG32, SEED, 1);
    mpfr_t a, b, v1, v2, pr;
    mpfr_inits2(2400, a, b, v1, v2, pr, (mpfr_ptr)0);
    for (size_t fi = 0; fi < sizeof names / sizeof *names; fi++) {
        const srl_format f = fmt(names[fi]);
        const int lo = f.emin - f.p - 2, hi = f.emax;
        for (int t = 0; t < 20000; t++) {
            const double x = probe(&r, lo, hi);
            if (fabs(x) > f.xmax)
                continue;
            srl_round_info in;
            srl_rng d;
            srl_rng_init(&d, SRL_RNG_PCG32, SEED, 2);
            CHECK(srl_round_explain(&in, x, &f, SRL_ROUND_SR, &d) == SRL_OK, "explain %a", x);
            /* Var of the two-point law, (ru-x)^2 P(ru) + (x-rd)^2 P(rd), and (x-rd)(ru-x),
             * both exactly (MPFR), with P(away from zero) = frac, exact (a binary64 number
             * here); p_up is P(ru) rounded to binary64. The library's value rounds at most
             * three times (two differences, exact in the normal range, and the product). */
            mpfr_set_d(pr, in.frac, MPFR_RNDN);
            if (x < 0)
                mpfr_ui_sub(pr, 1, pr, MPFR_RNDN); /* P(ru) = P(toward zero) */
            CHECK(fabs(in.p_up - mpfr_get_d(pr, MPFR_RNDN)) == 0, "%s x=%a p_up %a", f.name, x,
                  in.p_up);
            mpfr_set_d(a, in.ru, MPFR_RNDN);
            mpfr_sub_d(a, a, x, MPFR_RNDN);   /* ru - x */
            mpfr_set_d(b, x, MPFR_RNDN);
            mpfr_sub_d(b, b, in.rd, MPFR_RNDN); /* x - rd */
            mpfr_mul(v1, a, b, MPFR_RNDN);
            mpfr_sqr(a, a, MPFR_RNDN);
            mpfr_mul(a, a, pr, MPFR_RNDN);
            mpfr_sqr(b, b, MPFR_RNDN);
            mpfr_ui_sub(pr, 1, pr, MPFR_RNDN);
            mpfr_mul(b, b, pr, MPFR_RNDN);
            mpfr_add(v2, a, b, MPFR_RNDN);
            mpfr_sub(a, v1, v2, MPFR_RNDN);
            CHECK(mpfr_cmpabs(a, v1) <= 0 && (mpfr_zero_p(a) ||
                  mpfr_get_exp(a) < mpfr_get_exp(v1) - 500), "%s x=%a two-point variance %a vs "
                  "(x-rd)(ru-x) %a", f.name, x, mpfr_get_d(v2, MPFR_RNDN),
                  mpfr_get_d(v1, MPFR_RNDN));
            const double var = srl_t01_sr_variance(x, &f);
            mpfr_sub_d(a, v1, var, MPFR_RNDN);
            CHECK(fabs(mpfr_get_d(a, MPFR_RNDN)) <= 0x1p-51 * var, "%s x=%a var %a vs exact %a",
                  f.name, x, var, mpfr_get_d(v1, MPFR_RNDN));
            CHECK(var <= srl_t01_sr_variance_max(x, &f), "%s x=%a var above ulp^2/4", f.name, x);
            const double rn = srl_round(x, &f, SRL_ROUND_RN, NULL);
            CHECK(fabs(rn - x) <= srl_t01_rn_error_bound(x, &f), "%s x=%a rn err %a > %a",
                  f.name, x, fabs(rn - x), srl_t01_rn_error_bound(x, &f));
            const double sb = srl_t01_sr_error_bound(x, &f);
            CHECK(in.exact || (fabs(in.ru - x) < sb && fabs(in.rd - x) < sb),
                  "%s x=%a sr err not < %a", f.name, x, sb);
        }
    }
    mpfr_clears(a, b, v1, v2, pr, (mpfr_ptr)0);
    GROUP("T01 variance (x-rd)(ru-x), RN <= u|x|, SR < 2u|x|", before);
}

static void test_t02(void)
{
    const long before = srl_test_failures;
    const char *names[] = {"bf16", "fp16", "e5m2", "fp32"};
    const int Rs[] = {1, 2, 4, 8, 13, 16, 30};
    srl_rng r;
    srl_rng_init(&r, SRL_RNG_PCG32, SEED, 3);
    mpfr_t e;
    mpfr_init2(e, 256);
    for (size_t fi = 0; fi < sizeof names / sizeof *names; fi++) {
        const srl_format f = fmt(names[fi]);
        for (size_t ri = 0; ri < sizeof Rs / sizeof *Rs; ri++) {
            const srl_rounding m = {SRL_SR_BITS, Rs[ri]};
            for (int t = 0; t < 3000; t++) {
                const double x = probe(&r, f.emin, f.emax);
                srl_round_info in;
                srl_rng d;
                srl_rng_init(&d, SRL_RNG_PCG32, SEED, 4);
                CHECK(srl_round_explain(&in, x, &f, m, &d) == SRL_OK, "explain %a", x);
                /* E[result] - x = rd + p_up (ru - rd) - x, exactly in MPFR. */
                mpfr_set_d(e, in.ru, MPFR_RNDN);
                mpfr_sub_d(e, e, in.rd, MPFR_RNDN);
                mpfr_mul_d(e, e, in.p_up, MPFR_RNDN);
                mpfr_add_d(e, e, in.rd, MPFR_RNDN);
                mpfr_sub_d(e, e, x, MPFR_RNDN);
                const double bias = srl_t02_sr_bits_bias(x, &f, Rs[ri]);
                CHECK(mpfr_cmp_d(e, bias) == 0, "%s R=%d x=%a bias %a vs %a", f.name, Rs[ri], x,
                      bias, mpfr_get_d(e, MPFR_RNDN));
                CHECK(bias * x <= 0 && fabs(bias) < srl_t02_sr_bits_bias_max(x, &f, Rs[ri]) +
                                                         (bias == 0 ? 1e-300 : 0),
                      "%s R=%d x=%a bias %a outside (-q 2^-R, 0]", f.name, Rs[ri], x, bias);
            }
        }
    }
    /* fp32 values into bf16 with 16 random bits: the fraction has at most 16 bits: unbiased. */
    const srl_format bf = fmt("bf16");
    for (int t = 0; t < 20000; t++) {
        const double x = (double)(float)probe(&r, -100, 100);
        CHECK(srl_t02_sr_bits_bias(x, &bf, 16) == 0, "fp32 %a into bf16 with R = 16 biased", x);
    }
    /* The mean over a uniform fraction is q 2^-(R+1). */
    CHECK(srl_t02_sr_bits_bias_mean(1.5, &bf, 4) == 0x1p-7 * 0x1p-5, "mean bias");
    mpfr_clear(e);
    GROUP("T02 sr:r=R bias -q (f - floor(f 2^R) 2^-R)", before);
}

static srl_accum accum(const char *f, srl_order order, size_t block, bool kahan)
{
    srl_accum c = srl_accum_binary64();
    c.prod_fmt = c.acc_fmt = fmt(f);
    c.prod_mode = c.acc_mode = SRL_ROUND_RN;
    c.order = order;
    c.block = block;
    c.kahan = kahan;
    return c;
}

static void test_t03_bounds(void)
{
    const long before = srl_test_failures;
    const double u = 0x1p-8;
    CHECK(srl_t03_gamma(0, u) == 0, "gamma_0");
    CHECK(srl_t03_gamma(1, u) == u / (1 - u), "gamma_1");
    CHECK(isinf(srl_t03_gamma(256, u)), "gamma_256 for u = 2^-8 is no bound");
    const srl_accum rec = accum("bf16", SRL_ORDER_RECURSIVE, 1, false);
    const srl_accum pw = accum("bf16", SRL_ORDER_PAIRWISE, 1, false);
    const srl_accum bl = accum("bf16", SRL_ORDER_BLOCKED, 16, false);
    const srl_accum ka = accum("bf16", SRL_ORDER_RECURSIVE, 1, true);
    /* Path lengths counted by hand: pairwise on 9 terms is 8 + 1 -> depth 4; blocked:16 on 100
     * terms is 15 additions in the first block, then 6 more to add the 7 block sums. */
    CHECK(srl_t03_path(1, &rec) == 0 && srl_t03_path(100, &rec) == 99, "recursive path");
    CHECK(srl_t03_path(8, &pw) == 3 && srl_t03_path(9, &pw) == 4, "pairwise path");
    CHECK(srl_t03_path(100, &bl) == 15 + 6 && srl_t03_path(10, &bl) == 9, "blocked path");
    CHECK(srl_t03_path(10, &ka) == -1 && isnan(srl_t03_sum_bound(10, &ka)), "kahan: no path");
    CHECK(srl_t03_sum_bound(100, &rec) == srl_t03_gamma(99, u), "sum bound = gamma_{n-1}(u)");
    srl_accum sr = rec;
    sr.acc_mode = SRL_ROUND_SR;
    CHECK(srl_t03_sum_bound(100, &sr) == srl_t03_gamma(99, 2 * u), "sr: gamma_{n-1}(2u)");
    /* P(lambda) and the first order of the SR bound: lambda sqrt(n-1) u as n u -> 0. */
    CHECK(fabs(srl_t03_sr_prob(3) - (1 - 2 * exp(-4.5))) < 1e-15 && srl_t03_sr_prob(1) == 0,
          "P(lambda)");
    const srl_format f32 = fmt("fp32");
    const double b = srl_t03_sum_sr_bound(101, &f32, 3), first = 3 * 10 * f32.u;
    CHECK(b >= first && b <= first * (1 + 1e-4), "fp32 n=101: %a vs %a", b, first);
    const srl_format b16 = fmt("bf16");
    double prev = 0;
    for (size_t n = 2; n < 100000; n = n * 3 / 2 + 1) {
        const double bn = srl_t03_sum_sr_bound(n, &b16, 2);
        CHECK(bn > prev, "SR bound not increasing at n = %zu", n);
        prev = bn;
    }
    /* T04: (1+u)^n - 1 <= gamma_n with one format and rn; fma one rounding fewer per term. */
    for (size_t n = 1; n < 200; n += 7) {
        const double t = srl_t04_matvec_bound(n, &rec);
        CHECK(t <= srl_t03_gamma((double)n, u) && t >= n * u, "matvec bound n = %zu: %a", n, t);
    }
    srl_accum fm = rec;
    fm.fma = true;
    CHECK(srl_t04_matvec_bound(10, &fm) == expm1(10 * log1p(u)), "fma: (1+u)^n - 1");
    CHECK(isnan(srl_t04_matvec_sr_bound(10, 4, &pw, 3)), "SR matvec bound: recursive only");
    CHECK(srl_t04_matvec_sr_bound(100, 1, &rec, 3) < srl_t04_matvec_sr_bound(100, 100, &rec, 3),
          "more rows, larger lambda_m");
    GROUP("T03/T04 bounds: gamma, paths, SR bounds", before);
}

typedef struct stag_case {
    const char *fmt, *mode;
    uint64_t k;
    double sum;
} stag_case;

static void test_t03_stagnation(bool slow)
{
    const long before = srl_test_failures;
    /* bf16 rn: s_64 = 5.0625 in [4, 8): ulp 2^-5, half-ulp 2^-6 = 0.015625 > t_65 = fl(1/65)
     * = 0.015380859375 (= 63 2^-12), while t_64 = 2^-6 is a tie that s_63 = 5.03125 (odd
     * significand 161) breaks upward. fp16 rn: s_512 = 7.0859375, ulp 2^-8, t_513 =
     * 0.001949310302734375 < 2^-9. fp32 rn: 1/2^21 = 2^-21 is exactly half of ulp(15.40...)
     * = 2^-20, a tie, and s = 15.403682708740234 has an even significand: it stays. */
    const stag_case cases[] = {
        {"bf16", "rn", 65, 5.0625},        {"fp16", "rn", 513, 7.0859375},
        {"tf32", "rn", 513, 7.0859375},    {"bf16", "rz", 41, 4.0},
        {"bf16", "rd", 41, 4.0},           {"fp16", "rz", 257, 5.74609375},
        {"e4m3", "rn", 9, 3.0},            {"e5m2", "rn", 5, 2.0},
        {"fp32", "rn", 2097152, 15.403682708740234},
        {"fp32", "rna", 2097153, 15.403683662414551},
    };
    for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
        if (!slow && cases[i].k > 100000)
            continue;
        const srl_format f = fmt(cases[i].fmt);
        srl_rounding m;
        srl_err e;
        CHECK(srl_rounding_parse(&m, cases[i].mode, &e) == SRL_OK, "mode");
        srl_t03_stagnation st;
        const int rc = srl_t03_harmonic_stagnation(&st, &f, m, 4 * cases[i].k, &e);
        CHECK(rc == SRL_OK && st.found && st.k == cases[i].k && st.sum == cases[i].sum,
              "%s %s: rc %d found %d k %llu sum %.17g (expected %llu, %.17g)", cases[i].fmt,
              cases[i].mode, rc, st.found, (unsigned long long)st.k, st.sum,
              (unsigned long long)cases[i].k, cases[i].sum);
        /* The criterion of T03 at the stagnation term, read off the returned values. */
        if (m.mode == SRL_RN)
            CHECK(st.term <= st.ulp / 2, "%s: t_k %a not <= ulp/2 %a", cases[i].fmt, st.term,
                  st.ulp / 2);
    }
    srl_t03_stagnation st;
    srl_err e;
    const srl_format bf = fmt("bf16");
    CHECK(srl_t03_harmonic_stagnation(&st, &bf, SRL_ROUND_RN, 64, &e) == SRL_OK && !st.found,
          "bf16 rn: no stagnation within 64 terms");
    CHECK(srl_t03_harmonic_stagnation(&st, &bf, (srl_rounding){SRL_RU, 0}, 1000, &e) == SRL_OK &&
              !st.found, "ru never stagnates");
    CHECK(srl_t03_harmonic_stagnation(&st, &bf, SRL_ROUND_SR, 1000, &e) == SRL_EINVAL,
          "sr is not a deterministic mode");
    GROUP(slow ? "T03 harmonic stagnation terms (with fp32)" : "T03 harmonic stagnation terms",
          before);
}

/* The values `srlab theory` prints (srl_tNN_eval), against hand-derived numbers. In bf16 the
 * spacing in [1, 2) is q = 2^-7; X = 1 + 9 2^-11 lies at 9/16 of its cell: a = X - RD = 9 2^-11,
 * b = RU - X = 7 2^-11. */
#define X_9_16 1.00439453125

static void test_eval_t01_t02(void)
{
    const long before = srl_test_failures;
    const srl_format bf = fmt("bf16");
    const double q = 0x1p-7;
    srl_t01_values v;
    srl_t01_eval(&v, X_9_16, &bf);
    CHECK(v.u == 0x1p-8 && v.rd == 1 && v.ru == 1 + q && v.q == q && v.inexact, "T01 grid");
    CHECK(v.p_up == 0.5625 && v.sr_mean == X_9_16, "T01 p_up 9/16, mean x: %a %a", v.p_up,
          v.sr_mean);
    CHECK(v.sr_variance == 63 * 0x1p-22 && v.sr_variance_max == q * q / 4, "T01 variance %a",
          v.sr_variance);
    CHECK(v.rn == 1 + q && v.rn_error == 7 * 0x1p-11 && v.sr_error_max == 9 * 0x1p-11,
          "T01 errors: rn %a, |RN - x| %a, max %a", v.rn, v.rn_error, v.sr_error_max);
    CHECK(v.rn_error <= v.rn_error_bound && v.sr_error_max < v.sr_error_bound &&
              v.sr_error_bound == 2 * v.rn_error_bound,
          "T01 bounds %a %a", v.rn_error_bound, v.sr_error_bound);
    srl_t01_eval(&v, 1.5, &bf);
    CHECK(!v.inexact && v.q == 0 && v.rd == 1.5 && isnan(v.p_up) && v.sr_variance == 0 &&
              v.rn_error == 0 && v.sr_error_max == 0,
          "T01 at a value of bf16");
    /* T02, R = 2: F = floor(4 9/16) = 2, P = 1/2; bias -q (9/16 - 1/2) = -2^-11 = -q/16; the
     * supremum q 2^-2, the mean q 2^-3; Var = q^2 / 4 */
    srl_t02_values w;
    srl_t02_eval(&w, X_9_16, &bf, 2);
    CHECK(w.q == q && w.frac == 0.5625 && w.p_away == 0.5, "T02 f %a, p %a", w.frac, w.p_away);
    CHECK(w.bias == -0x1p-11 && w.bias_ulps == -1.0 / 16, "T02 bias %a", w.bias);
    CHECK(w.bias_max == q / 4 && w.bias_mean == q / 8 && w.variance == q * q / 4,
          "T02 max %a mean %a variance %a", w.bias_max, w.bias_mean, w.variance);
    srl_t02_eval(&w, -X_9_16, &bf, 2);
    CHECK(w.bias == 0x1p-11 && w.p_away == 0.5, "T02 negative x: bias toward zero %a", w.bias);
    srl_t02_eval(&w, X_9_16, &bf, 4); /* 9/16 has 4 bits: no bias, P = f */
    CHECK(w.bias == 0 && w.p_away == 0.5625 &&
              w.variance == q * q * 0.5625 * 0.4375,
          "T02 R = 4: %a %a", w.bias, w.variance);
    GROUP("T01/T02 values of srlab theory (srl_t01_eval, srl_t02_eval)", before);
}

static void test_eval_t03_t04(void)
{
    const long before = srl_test_failures;
    /* bf16 rn, n = 10: h = 9, v = u = 2^-8, gamma = 9 2^-8 / (1 - 9 2^-8) = 9/247 */
    const srl_accum rec = accum("bf16", SRL_ORDER_RECURSIVE, 1, false);
    srl_t03_values v;
    srl_t03_eval(&v, 10, &rec, 2, 1000);
    CHECK(v.u == 0x1p-8 && v.v == 0x1p-8 && v.h == 9 && v.gamma == 9.0 / 247, "T03 gamma %a",
          v.gamma);
    CHECK(v.sr_prob == srl_t03_sr_prob(2) && v.sr_rule == 2 * sqrt(10.0) * 0x1p-8 &&
              v.sr_bound == srl_t03_sum_sr_bound(10, &rec.acc_fmt, 2),
          "T03 SR values");
    CHECK(v.harmonic_status == SRL_OK && v.harmonic.found && v.harmonic.k == 65 &&
              v.harmonic.sum == 5.0625 && v.harmonic_mode.mode == SRL_RN,
          "T03 harmonic bf16 rn: k %llu", (unsigned long long)v.harmonic.k);
    srl_accum sr = rec;
    sr.acc_mode = sr.prod_mode = SRL_ROUND_SR;
    srl_t03_eval(&v, 10, &sr, 2, 1000);
    CHECK(v.v == 0x1p-7 && v.harmonic_mode.mode == SRL_RN && v.harmonic.k == 65,
          "T03 under sr: v = 2u, the harmonic contrast under rn");
    srl_accum ru = rec;
    ru.acc_mode = (srl_rounding){SRL_RU, 0};
    srl_t03_eval(&v, 10, &ru, 2, 1000);
    CHECK(v.harmonic_status == SRL_OK && !v.harmonic.found && v.harmonic_mode.mode == SRL_RU,
          "T03 under ru: never");
    srl_accum nosub = rec;
    nosub.acc_fmt = nosub.prod_fmt = fmt("p=8,emax=7,subnormals=off"); /* 1/1000 < xmin 2^-6 */
    srl_t03_eval(&v, 10, &nosub, 2, 1000);
    CHECK(v.harmonic_status == SRL_ENOTSUP && strstr(v.harmonic_err.msg, "no subnormals"),
          "T03 refused: %d '%s'", v.harmonic_status, v.harmonic_err.msg);
    /* T04, n = 4, m = 1: nu = 2^-6, sqrt(n) u = 2^-7, gamma_4 = 4u / (1 - 4u) = 1/63 (one
     * correctly rounded division), lambda_1 = lambda */
    srl_t04_values w;
    srl_t04_eval(&w, 4, 1, &rec, 3);
    CHECK(w.nu == 0x1p-6 && w.sqrt_nu == 0x1p-7 && w.h == 3 && w.gamma_n == 1.0 / 63 &&
              w.lambda_m == 3,
          "T04 scales: %a %a %a %a", w.nu, w.sqrt_nu, w.gamma_n, w.lambda_m);
    CHECK(w.theta == srl_t04_matvec_bound(4, &rec) && fabs(w.theta - 0x1.0181004p-6) < 1e-17,
          "T04 theta = (1 + 2^-8)^4 - 1: %a", w.theta);
    srl_t04_eval(&w, 1024, 100, &sr, 3);
    /* the union bound: 2 m exp(-lambda_m^2 / 2) = 2 exp(-lambda^2 / 2) */
    CHECK(fabs(100 * exp(-w.lambda_m * w.lambda_m / 2) / exp(-4.5) - 1) < 1e-13 &&
              w.lambda_m == srl_t04_union_lambda(3, 100) && srl_t04_union_lambda(3, 0) == 3,
          "T04 lambda_m %.17g", w.lambda_m);
    CHECK(w.sr_bound == srl_t04_matvec_sr_bound(1024, 100, &sr, 3) && w.sr_prob == srl_t03_sr_prob(3),
          "T04 SR values");
    GROUP("T03/T04 values of srlab theory (srl_t03_eval, srl_t04_eval)", before);
}

int main(int argc, char **argv)
{
    const bool slow = argc > 1 && !strcmp(argv[1], "--slow");
    test_t01();
    test_t02();
    test_t03_bounds();
    test_t03_stagnation(slow);
    test_eval_t01_t02();
    test_eval_t03_t04();
    mpfr_free_cache();
    TEST_END();
}
