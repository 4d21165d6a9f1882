/* tests/round/test_stat_round.c: stochastic rounding statistics (suite `stat`).
 *
 * What is tested, against the contract of include/srlab/rounding.h:
 *   1. Exact probabilities. For sr, sr-eq and sr:r=R, srl_round_explain's p_up and frac equal
 *      the exact values computed with MPFR by tests/round/ref_round.h (f = (x-RD)/(RU-RD); p_up
 *      is the probability of landing on RU, so 1 - f for negative x; F/2^R for sr:r=R), rounded
 *      once to binary64 (and exactly equal, mpfr_cmp_d == 0, whenever representable), on 10^5
 *      random inputs per preset; the same for srl_mpfr_round on 200-bit inputs.
 *   2. Frequencies. For inputs with p_up in (0,1), N roundings with fixed seeds (srl_round_array
 *      on N copies; srl_round and srl_mpfr_round for some) and an exact two-sided binomial test
 *      (GSL binomial CDF; p-value 2 min(P(X<=k), P(X>=k))).
 *   3. Means. E[SR(x)] = x: the exact sum of SR(x_i) - x_i over N draws (one x, or a batch of
 *      distinct x in one binade) against a threshold from the exact variance sum
 *      V = sum (x-RD)(RU-x), by Bernstein's inequality (rigorous for bounded variables:
 *      P(|S| >= t) <= 2 exp(-t^2 / (2V + 2ct/3)), c = RU - RD), reported as a z = S/sqrt(V).
 *   4. sr:r=R: p_up = floor(f 2^R)/2^R exactly for R = 1, 2, 4, 8, 16, 20 (and 32, 52, 64) on
 *      fractions longer than R bits, frequencies at that probability, the batch mean at its
 *      closed-form bias; fp32 values rounded to bf16 with r=16 are exactly unbiased.
 *   5. sr-eq: p_up = 1/2 for inexact inputs, frequencies; exact inputs unchanged.
 *   6. Far below the grid (f < 2^-64): p_up exact; and the extra-word tie-break decided exactly
 *      (draws whose first 64 bits tie with f, constructed on purpose, in both input paths).
 *   7. Draw counting: every stochastic mode consumes exactly one draw per value, exact or not,
 *      in every API; element i of a bulk call uses draw counter + i.
 *
 * Statistical design: all tests of 2 and 3 form one family with family-wise false-alarm rate
 * ALPHA_FW = 1e-6, Bonferroni-corrected: each of the M tests runs at ALPHA_FW / M. Seeds are
 * fixed, so the outcome is repeatable; a real bias of the size printed as "detectable" fails.
 * Power checks (the test rejects a wrong hypothesis: the unbiased f for a truncated sr:r=R) have
 * their own miss probability, computed with GSL and required below 1e-9 each.
 * Sizes scale with SRL_TEST_SCALE; thresholds always come from the n actually used. */
#include <float.h>
#include <math.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <gsl/gsl_cdf.h>
#include <mpfr.h>

#include "srlab/format.h"
#include "srlab/mpfr.h"
#include "srlab/rng.h"
#include "srlab/rounding.h"

#include "../testutil.h"
#include "ref_round.h"

#define ALPHA_FW 1e-6
#define POWER_MISS_MAX 1e-9

static double now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

static const char *mname(srl_rounding m)
{
    static char buf[8][32];
    static int k;
    k = (k + 1) % 8;
    return srl_rounding_name(buf[k], sizeof buf[k], m);
}

/* ---------------------------------------------------------------------------------------- */
/* Exact probabilities from the reference.                                                  */

typedef struct sto_ws {
    ref_ws w;
    mpfr_t pa; /* probability of rounding away from zero, exact */
    mpfr_t pe; /* p_up, exact (2200 bits hold 1 - pa for every pa met here) */
} sto_ws;

static void sto_ws_init(sto_ws *s, const ref_fmt *F)
{
    ref_ws_init(&s->w, F);
    mpfr_init2(s->pa, REF_WPREC);
    mpfr_init2(s->pe, 2200);
}

/* The reference of format f into *F, and a workspace s for it. */
static void sto_ws_for(sto_ws *s, ref_fmt *F, const srl_format *f)
{
    ref_fmt_from(F, f);
    sto_ws_init(s, F);
}

static void sto_ws_clear(sto_ws *s)
{
    ref_ws_clear(&s->w);
    mpfr_clear(s->pa);
    mpfr_clear(s->pe);
}

/* The probability of rounding away from zero, exactly, into s->pa (after ref_round_*). */
static void exact_pa(sto_ws *s, const ref_all *o, srl_rounding m)
{
    if (o->kind != REF_FINITE || !o->inexact) {
        mpfr_set_zero(s->pa, 1);
        return;
    }
    switch (m.mode) {
    case SRL_SR: /* f */
        mpfr_set(s->pa, s->w.fr, MPFR_RNDN);
        break;
    case SRL_SR_EQ: /* 1/2 */
        mpfr_set_ui_2exp(s->pa, 1, -1, MPFR_RNDN);
        break;
    default: /* sr:r=R: floor(f 2^R) / 2^R */
        mpfr_mul_2ui(s->pa, s->w.fr, (unsigned long)m.r, MPFR_RNDN);
        mpfr_floor(s->pa, s->pa);
        mpfr_div_2ui(s->pa, s->pa, (unsigned long)m.r, MPFR_RNDN);
        break;
    }
}

/* The contract's p_up, exactly into s->pe: the probability that the result is ru, 0 when rd
 * and ru coincide. The result can only be tow (probability 1 - pa) or awy (pa), each through
 * the stochastic overflow rule. Returns it rounded to nearest binary64; *repr tells whether the
 * exact value is a binary64 number. */
static double exact_pup(sto_ws *s, const ref_all *o, srl_rounding m, bool *repr)
{
    mpfr_set_zero(s->pe, 1);
    if (!ref_same(o->rd.v, o->ru.v)) {
        exact_pa(s, o, m);
        if (ref_same(o->tow.v, o->ru.v))
            mpfr_ui_sub(s->pe, 1, s->pa, MPFR_RNDN); /* exact */
        if (ref_same(o->awy.v, o->ru.v))
            mpfr_add(s->pe, s->pe, s->pa, MPFR_RNDN); /* exact */
    }
    const double d = mpfr_get_d(s->pe, MPFR_RNDN);
    *repr = mpfr_cmp_d(s->pe, d) == 0;
    return d;
}

/* ---------------------------------------------------------------------------------------- */
/* Statistical machinery.                                                                   */

static long g_family;   /* M: number of tests in the family (counted before running) */
static long g_ran;      /* tests actually run */
static double g_alpha;  /* per-test level ALPHA_FW / M */
static bool g_counting; /* first pass: only count tests */

/* Two-sided exact binomial p-value: 2 min(P(X <= k), P(X >= k)), capped at 1. */
static double binom_pvalue(unsigned long k, double p, unsigned long n)
{
    if (p <= 0)
        return k == 0 ? 1.0 : 0.0;
    if (p >= 1)
        return k == n ? 1.0 : 0.0;
    const double lo = gsl_cdf_binomial_P((unsigned)k, p, (unsigned)n);
    const double hi = k == 0 ? 1.0 : gsl_cdf_binomial_Q((unsigned)(k - 1), p, (unsigned)n);
    const double pv = 2.0 * (lo < hi ? lo : hi);
    return pv > 1.0 ? 1.0 : pv;
}

/* The acceptance region [*klo, *khi] of the test at level alpha for (p, n). */
static void binom_accept(double p, unsigned long n, double alpha, unsigned long *klo,
                         unsigned long *khi)
{
    unsigned long mode = (unsigned long)floor(p * (double)n);
    /* smallest k <= mode with p-value >= alpha (p-value increases toward the mode) */
    unsigned long a = 0, b = mode;
    while (a < b) {
        const unsigned long c = a + (b - a) / 2;
        if (binom_pvalue(c, p, n) >= alpha)
            b = c;
        else
            a = c + 1;
    }
    *klo = a;
    a = mode, b = n;
    while (a < b) { /* largest k >= mode with p-value >= alpha */
        const unsigned long c = a + (b - a + 1) / 2;
        if (binom_pvalue(c, p, n) >= alpha)
            a = c;
        else
            b = c - 1;
    }
    *khi = a;
}

/* Probability that X ~ Bin(n, p) falls in [klo, khi]. */
static double binom_prob_in(double p, unsigned long n, unsigned long klo, unsigned long khi)
{
    const double up = gsl_cdf_binomial_P((unsigned)khi, p, (unsigned)n);
    const double below = klo == 0 ? 0.0 : gsl_cdf_binomial_P((unsigned)(klo - 1), p, (unsigned)n);
    return up - below;
}

/* Count one test of the family: true on the first pass (counting only: the caller returns),
 * false when the test is run. */
static bool family_count(void)
{
    if (g_counting) {
        g_family++;
        return true;
    }
    g_ran++;
    return false;
}

/* One binomial test of the family: k successes in n with probability p. */
static void family_binom(const char *what, unsigned long k, unsigned long n, double p,
                         uint64_t seed, uint64_t stream)
{
    if (family_count())
        return;
    const double pv = binom_pvalue(k, p, n);
    const double sd = sqrt(p * (1 - p) * (double)n);
    const double zthr = gsl_cdf_ugaussian_Qinv(g_alpha / 2);
    CHECK(pv >= g_alpha, "%s: %lu of %lu rounded up, expected p_up = %a (%.6g), mean %.1f, "
          "sd %.1f; two-sided exact binomial p-value %.3g < per-test level %.3g (family %ld "
          "tests, family-wise %g); detectable bias about %.2g in probability; rng seed 0x%"
          PRIx64 " stream %" PRIu64, what, k, n, p, p, p * (double)n, sd, pv, g_alpha, g_family,
          ALPHA_FW, zthr * sd / (double)n, seed, stream);
}

/* Bernstein threshold t for |S| with variance sum V, bound c, level alpha. */
static double bernstein_t(double V, double c, double alpha)
{
    const double L = log(2.0 / alpha);
    const double a = c * L / 3.0;
    return a + sqrt(a * a + 2.0 * V * L);
}

/* One mean test of the family: S = sum of (Y_i - mu_i) (in units of q), V = sum of variances,
 * |Y_i - mu_i| <= c. */
static void family_mean(const char *what, double S, double V, double c, unsigned long n,
                        uint64_t seed, uint64_t stream)
{
    if (family_count())
        return;
    const double t = bernstein_t(V, c, g_alpha);
    CHECK(fabs(S) < t && V > 0, "%s: n = %lu, sum of (SR(x) - E) = %.6g ulp, exact variance sum "
          "%.6g ulp^2, z = %.3f; Bernstein threshold %.6g ulp (z %.3f) at per-test level %.3g "
          "(family-wise %g); rng seed 0x%" PRIx64 " stream %" PRIu64, what, n, S, V,
          V > 0 ? S / sqrt(V) : 0.0, t, V > 0 ? t / sqrt(V) : 0.0, g_alpha, ALPHA_FW, seed,
          stream);
}

/* ---------------------------------------------------------------------------------------- */
/* 1. Exact p_up and frac on random inputs.                                                 */

static srl_rounding sto_mode(int k)
{
    static const int R[] = {1, 2, 4, 8, 16, 20, 32, 52, 64};
    if (k == 0)
        return (srl_rounding){SRL_SR, 0};
    if (k == 1)
        return (srl_rounding){SRL_SR_EQ, 0};
    return (srl_rounding){SRL_SR_BITS, R[(k - 2) % 9]};
}
#define NSTO 11

/* p_up equal to the exact value (mpfr_cmp_d == 0) when that is a binary64 number, else to the
 * exact value rounded to nearest; frac equal to the exact fraction rounded to nearest. The
 * first few failures of a run are printed in full, all are counted (tally). */
typedef struct tally {
    long n, fail;
} tally;

static void check_pup(const char *where, const srl_format *f, sto_ws *s, const ref_all *o,
                      srl_rounding m, const srl_round_info *I, long *nrepr, const char *xs,
                      tally *t)
{
    bool repr;
    const double e = exact_pup(s, o, m, &repr);
    bool ok;
    if (repr) {
        (*nrepr)++;
        ok = mpfr_cmp_d(s->pe, I->p_up) == 0;
    } else {
        ok = I->p_up == e;
    }
    const bool fok = !(o->kind == REF_FINITE && !o->above) || I->frac == o->frac;
    t->n++;
    if (ok && fok)
        return;
    if (t->fail++ < 4)
        CHECK(ok && fok, "%s: format %s mode %s x=%s: p_up %a, exact %s%a; frac %a, exact %a",
              where, f->name, mname(m), xs, I->p_up,
              repr ? "" : "(not a binary64 number) rounded to nearest ", e, I->frac, o->frac);
}

static void tally_report(const char *what, const tally *t)
{
    CHECK(t->fail == 0, "%s: %ld of %ld inputs with p_up or frac different from the exact value",
          what, t->fail, t->n);
}

/* One format's setup for test_exact_probabilities: its reference F, workspace s, an input
 * generator g and a default srl_rng (stream 0). */
typedef struct fmt_ws {
    ref_fmt F;
    sto_ws s;
    trng g;
    srl_rng rng;
} fmt_ws;

static void fmt_setup(fmt_ws *u, const srl_format *f, uint64_t input_seed, uint64_t rng_seed)
{
    sto_ws_for(&u->s, &u->F, f);
    u->g.s = input_seed;
    srl_rng_init(&u->rng, SRL_RNG_DEFAULT, rng_seed, 0);
}

static void test_exact_probabilities(void)
{
    long before = srl_test_failures;
    tally t1 = {0, 0}, t2 = {0, 0};
    const size_t n = (size_t)srl_test_n(100000);
    long nrepr = 0, nchecked = 0;
    for (size_t fi = 0; fi < srl_format_preset_count(); fi++) {
        const srl_format *f = srl_format_preset(fi);
        fmt_ws u;
        fmt_setup(&u, f, UINT64_C(0x9a0000) + fi, UINT64_C(0x9a5eed) + fi);
        const ref_fmt *F = &u.F;
        for (size_t i = 0; i < n; i++) {
            double x;
            switch (i % 4) {
            case 0: x = tr_double_whole(&u.g); break;
            case 1: x = tr_double_exp(&u.g, (long)F->emin - F->p - 70, (long)F->emin); break;
            default: x = tr_double_exp(&u.g, (long)F->emin - F->p - 2, (long)F->emax + 1); break;
            }
            ref_all o;
            ref_round_d(&o, &u.s.w, F, x);
            char xs[40];
            snprintf(xs, sizeof xs, "%a", x);
            /* sr on every input; one of sr-eq, sr:r=R (R = 1..64) in turn */
            for (int k = 0; k < 2; k++) {
                const srl_rounding m = sto_mode(k == 0 ? 0 : 1 + (int)(i % (NSTO - 1)));
                srl_round_info I;
                const uint64_t c0 = u.rng.counter;
                const int st = srl_round_explain(&I, x, f, m, &u.rng);
                CHECK(st == SRL_OK && u.rng.counter == c0 + 1, "explain status %d, counter %"
                      PRIu64 " -> %" PRIu64, st, c0, u.rng.counter);
                check_pup("srl_round_explain", f, &u.s, &o, m, &I, &nrepr, xs, &t1);
                nchecked++;
            }
        }
        sto_ws_clear(&u.s);
    }
    tally_report("srl_round_explain", &t1);
    GROUP("p_up and frac of sr, sr-eq, sr:r=R (R = 1..64) equal the exact MPFR values: "
          "srl_round_explain on binary64 inputs", before);
    before = srl_test_failures;
    /* The MPFR path: 200-bit inputs, near the range, whose fractions are not binary64 numbers
     * (p_up = 1 - f for negative x must still be the exact value rounded once). */
    const size_t nm = (size_t)srl_test_n(20000);
    for (size_t fi = 0; fi < srl_format_preset_count(); fi++) {
        const srl_format *f = srl_format_preset(fi);
        fmt_ws u;
        fmt_setup(&u, f, UINT64_C(0x9b0000) + fi, UINT64_C(0x9b5eed) + fi);
        const ref_fmt *F = &u.F;
        mpfr_t x;
        mpfr_init2(x, 200);
        for (size_t i = 0; i < nm; i++) {
            /* x = (T + f) 2^qe with a 150-bit fraction f */
            const long e =
                (long)F->emin - 2 + (long)tr_below(&u.g, (uint64_t)(F->emax - F->emin + 3));
            mpfr_set_ui(x, (unsigned long)(tr_next(&u.g) | 1), MPFR_RNDN);
            for (int k = 0; k < 2; k++) {
                mpfr_mul_2ui(x, x, 64, MPFR_RNDN);
                mpfr_add_ui(x, x, (unsigned long)tr_next(&u.g), MPFR_RNDN);
            }
            mpfr_set_exp(x, (mpfr_exp_t)(e + 1));
            if (tr_next(&u.g) & 1)
                mpfr_neg(x, x, MPFR_RNDN);
            ref_all o;
            ref_round_mp(&o, &u.s.w, F, x);
            const srl_rounding m = sto_mode((int)(i % NSTO));
            srl_round_info I;
            double y;
            const uint64_t c0 = u.rng.counter;
            const int st = srl_mpfr_round(&y, &I, x, f, m, &u.rng);
            CHECK(st == SRL_OK && u.rng.counter == c0 + 1, "srl_mpfr_round status %d", st);
            char xs[120];
            mpfr_snprintf(xs, sizeof xs, "%Ra", x);
            check_pup("srl_mpfr_round", f, &u.s, &o, m, &I, &nrepr, xs, &t2);
            nchecked++;
        }
        mpfr_clear(x);
        sto_ws_clear(&u.s);
    }
    tally_report("srl_mpfr_round", &t2);
    GROUP("p_up and frac of sr, sr-eq, sr:r=R equal the exact MPFR values: srl_mpfr_round on "
          "200-bit inputs", before);
    before = srl_test_failures;
    /* Tiny probabilities: exactness only (no frequency could see them). */
    {
        const srl_format *bf16 = srl_format_find("bf16"), *fp64 = srl_format_find("fp64");
        fmt_ws u;
        fmt_setup(&u, bf16, 0, 0x7192);
        const double xs[] = {1.0 + 0x1p-47, -(1.0 + 0x1p-47), 0x1p-133 * (1 + 0x1p-40),
                             1.0 + 0x1p-7 - 0x1p-50};
        const double want[] = {0x1p-40, 1 - 0x1p-40, 0x1p-40, 1 - 0x1p-43};
        for (size_t i = 0; i < sizeof xs / sizeof xs[0]; i++) {
            srl_round_info I;
            if (srl_round_explain(&I, xs[i], bf16, (srl_rounding){SRL_SR, 0}, &u.rng) != SRL_OK)
                I.p_up = -1;
            CHECK(I.p_up == want[i], "tiny probability: bf16 sr x=%a: p_up %a, exactly %a", xs[i],
                  I.p_up, want[i]);
        }
        sto_ws_clear(&u.s);
        mpfr_t x;
        mpfr_init2(x, 200);
        mpfr_set_ui(x, 1, MPFR_RNDN);
        mpfr_nextabove(x);
        mpfr_nextabove(x); /* 1 + 2^-198: p_up = 2^-146 in fp64 */
        srl_round_info I;
        double y;
        if (srl_mpfr_round(&y, &I, x, fp64, (srl_rounding){SRL_SR, 0}, &u.rng) != SRL_OK)
            I.p_up = -1;
        CHECK(I.p_up == 0x1p-146 && I.frac == 0x1p-146, "tiny probability: fp64 sr x=1+2^-198 "
              "(MPFR path): p_up %a frac %a, exactly 0x1p-146", I.p_up, I.frac);
        mpfr_clear(x);
    }
    /* fp32 values rounded to bf16 with sr:r=16 are exactly unbiased: F/2^16 = f because an fp32
     * value has at most 16 bits below bf16's grid (normal and subnormal ranges alike). */
    {
        const srl_format *bf16 = srl_format_find("bf16");
        fmt_ws u;
        fmt_setup(&u, bf16, 0xf32b16, 0xf32);
        const size_t nf = (size_t)srl_test_n(100000);
        long bad = 0;
        for (size_t i = 0; i < nf; i++) {
            uint32_t b = (uint32_t)tr_next(&u.g);
            if (i % 4 == 0)
                b &= 0x83ffffffu; /* small exponents: bf16's subnormal range */
            float xf;
            memcpy(&xf, &b, 4);
            if (!isfinite(xf))
                continue;
            const double x = xf;
            ref_all o;
            ref_round_d(&o, &u.s.w, &u.F, x);
            srl_round_info I16, Isr;
            if (srl_round_explain(&I16, x, bf16, (srl_rounding){SRL_SR_BITS, 16}, &u.rng) ||
                srl_round_explain(&Isr, x, bf16, (srl_rounding){SRL_SR, 0}, &u.rng))
                bad++;
            bool repr;
            const double e = exact_pup(&u.s, &o, (srl_rounding){SRL_SR, 0}, &repr);
            if (!(I16.p_up == e && Isr.p_up == e && repr) && bad++ < 5)
                CHECK(0, "fp32 -> bf16 sr:r=16 x=%a: p_up %a, sr p_up %a, exact f-based %a",
                      x, I16.p_up, Isr.p_up, e);
        }
        CHECK(bad == 0, "fp32 -> bf16 sr:r=16: %ld inputs with p_up != the unbiased f", bad);
        sto_ws_clear(&u.s);
    }
    printf("  exact p_up/frac: %ld roundings, %ld with a binary64-representable p_up\n", nchecked,
           nrepr);
    GROUP("tiny p_up exact (2^-40, 2^-146); fp32 -> bf16 with sr:r=16 exactly unbiased",
          before);
}

/* ---------------------------------------------------------------------------------------- */
/* 2-5. Frequencies and means.                                                              */

typedef enum { PATH_ARRAY, PATH_SCALAR, PATH_MPFR } path_t;

typedef struct fcase {
    const srl_format *f;
    srl_rounding m;
    double x;     /* binary64 input (PATH_ARRAY / PATH_SCALAR) */
    mpfr_srcptr xm; /* MPFR input (PATH_MPFR) */
    path_t path;
    unsigned long n;
    bool mean;   /* also the mean test */
} fcase;

static double *g_x, *g_y; /* scratch of the largest n */

/* Count how often the result is ru; every result must be tow or awy (rd or ru). */
static void run_fcase(const fcase *c, uint64_t stream)
{
    const uint64_t seed = UINT64_C(0xf5eed);
    ref_fmt F;
    sto_ws s;
    sto_ws_for(&s, &F, c->f);
    ref_all o;
    if (c->path == PATH_MPFR)
        ref_round_mp(&o, &s.w, &F, c->xm);
    else
        ref_round_d(&o, &s.w, &F, c->x);
    bool repr;
    const double p = exact_pup(&s, &o, c->m, &repr);
    char what[400], xs[120];
    if (c->path == PATH_MPFR)
        mpfr_snprintf(xs, sizeof xs, "%.40Ra", c->xm);
    else
        snprintf(xs, sizeof xs, "%a", c->x);
    snprintf(what, sizeof what, "%s %s x=%s via %s", c->f->name, mname(c->m), xs,
             c->path == PATH_ARRAY ? "srl_round_array" : c->path == PATH_SCALAR ? "srl_round"
                                                                                : "srl_mpfr_round");
    if (g_counting) {
        CHECK(p > 0 && p < 1, "test design: %s has p_up %a, not in (0,1)", what, p);
        family_binom(what, 0, c->n, p, seed, stream);
        if (c->mean)
            family_mean(what, 0, 0, 1, c->n, seed, stream);
        sto_ws_clear(&s);
        return;
    }
    srl_rng rng;
    srl_rng_init(&rng, SRL_RNG_DEFAULT, seed, stream);
    const unsigned long n = c->n;
    if (c->path == PATH_ARRAY) {
        for (unsigned long i = 0; i < n; i++)
            g_x[i] = c->x;
        const int st = srl_round_array(g_y, g_x, n, c->f, c->m, &rng);
        CHECK(st == SRL_OK && rng.counter == n, "%s: status %d, counter %" PRIu64, what, st,
              rng.counter);
    } else if (c->path == PATH_SCALAR) {
        for (unsigned long i = 0; i < n; i++)
            g_y[i] = srl_round(c->x, c->f, c->m, &rng);
    } else {
        for (unsigned long i = 0; i < n; i++)
            if (srl_mpfr_round(&g_y[i], NULL, c->xm, c->f, c->m, &rng) != SRL_OK)
                g_y[i] = NAN;
    }
    unsigned long k = 0, bad = 0;
    for (unsigned long i = 0; i < n; i++) {
        if (ref_same(g_y[i], o.ru.v))
            k++;
        else if (!ref_same(g_y[i], o.rd.v))
            bad++;
    }
    CHECK(bad == 0, "%s: %lu results are neither rd %a nor ru %a", what, bad, o.rd.v, o.ru.v);
    family_binom(what, k, n, p, seed, stream);
    if (c->mean) {
        /* S = sum (y_i - x) / q, q = |awy - tow|. Each term is an exact binary64 number (y and x
         * are within a factor of two, or y = 0: Sterbenz; q is a power of two), and the sum is
         * accumulated exactly in MPFR (every addition is checked exact). */
        const double q = fabs(o.awy.v - o.tow.v);
        bool exact = isfinite(q) && q > 0;
        mpfr_t acc, dm;
        mpfr_init2(acc, 512);
        mpfr_init2(dm, 400);
        mpfr_set_zero(acc, 1);
        for (unsigned long i = 0; i < n && exact; i++) {
            if (c->path == PATH_MPFR) { /* x has 200 bits: the difference in MPFR */
                mpfr_set_d(dm, g_y[i], MPFR_RNDN);
                exact = mpfr_sub(dm, dm, c->xm, MPFR_RNDN) == 0 &&
                        mpfr_div_d(dm, dm, q, MPFR_RNDN) == 0 &&
                        mpfr_add(acc, acc, dm, MPFR_RNDN) == 0;
            } else {
                const double d = (g_y[i] - c->x) / q;
                exact = d * q + c->x == g_y[i] && mpfr_add_d(acc, acc, d, MPFR_RNDN) == 0;
            }
        }
        mpfr_clear(dm);
        CHECK(exact, "%s: the exact sum of SR(x) - x could not be formed", what);
        /* V = n f (1 - f), f = |x - tow| / q the exact sr fraction (a binary64 number here) */
        const double f = mpfr_get_d(s.w.fr, MPFR_RNDN);
        family_mean(what, mpfr_get_d(acc, MPFR_RNDN), (double)n * f * (1 - f), 1.0, n, seed,
                    stream);
        mpfr_clear(acc);
    }
    sto_ws_clear(&s);
}

/* Power check: the binomial test of the family level must reject the unbiased probability f for
 * a truncated sr:r=R, whose true probability is F/2^R (the miss probability is computed first). */
static void power_check(const srl_format *f, double x, int R, unsigned long n, uint64_t stream)
{
    if (g_counting)
        return;
    ref_fmt F;
    sto_ws s;
    sto_ws_for(&s, &F, f);
    ref_all o;
    ref_round_d(&o, &s.w, &F, x);
    const srl_rounding m = {SRL_SR_BITS, R}, msr = {SRL_SR, 0};
    bool repr;
    const double ptrue = exact_pup(&s, &o, m, &repr);
    const double pwrong = exact_pup(&s, &o, msr, &repr);
    unsigned long klo, khi;
    binom_accept(pwrong, n, g_alpha, &klo, &khi);
    const double miss = binom_prob_in(ptrue, n, klo, khi);
    CHECK(miss < POWER_MISS_MAX, "test design: power check %s sr:r=%d x=%a: P(miss) = %.3g",
          f->name, R, x, miss);
    srl_rng rng;
    srl_rng_init(&rng, SRL_RNG_DEFAULT, UINT64_C(0x90e5), stream);
    for (unsigned long i = 0; i < n; i++)
        g_x[i] = x;
    if (srl_round_array(g_y, g_x, n, f, m, &rng) != SRL_OK)
        CHECK(0, "srl_round_array failed");
    unsigned long k = 0;
    for (unsigned long i = 0; i < n; i++)
        k += ref_same(g_y[i], o.ru.v);
    CHECK(binom_pvalue(k, pwrong, n) < g_alpha,
          "power: %s sr:r=%d x=%a: %lu of %lu up; the test at level %.3g fails to reject the "
          "unbiased p %a although the truth is %a (miss probability %.3g)", f->name, R, x, k, n,
          g_alpha, pwrong, ptrue, miss);
    sto_ws_clear(&s);
}

/* A batch of distinct inputs in one binade [2^e, 2^(e+1)) (or the subnormal range when e < emin),
 * each rounded once: S = sum (SR(x_i) - mu_i)/q with mu_i = x_i for sr (unbiased) or the
 * closed-form mean tow + pa (awy - tow) for sr:r=R, V = sum of the exact variances. Inputs are
 * binary64 numbers, or fp32 numbers when `fp32_inputs`. */
static void batch_mean(const srl_format *f, srl_rounding m, long e, bool fp32_inputs,
                       bool unbiased_hyp, unsigned long n, uint64_t stream, bool expect_reject)
{
    if (g_counting) {
        if (!expect_reject)
            family_mean("", 0, 0, 1, n, 0, 0);
        return;
    }
    ref_fmt F;
    ref_fmt_from(&F, f);
    trng g = {UINT64_C(0xba7c0000) + stream};
    const bool sub = e < F.emin;
    const double lo = sub ? 0.0 : ldexp(1.0, (int)e);
    const double q = sub ? F.xsub : ldexp(1.0, (int)e - F.p + 1);
    for (unsigned long i = 0; i < n; i++) {
        double x;
        do {
            const double u = (double)(tr_next(&g) >> 11) * 0x1p-53; /* [0,1), 53 bits */
            x = sub ? u * F.xmin : lo + u * lo;
            if (fp32_inputs)
                x = (double)(float)x;
        } while (!(x >= lo && (sub ? x < F.xmin : x < 2 * lo)) || x == 0);
        g_x[i] = (tr_next(&g) & 1) ? -x : x;
    }
    srl_rng rng;
    const uint64_t seed = UINT64_C(0xba7c5eed);
    srl_rng_init(&rng, SRL_RNG_DEFAULT, seed, stream);
    if (srl_round_array(g_y, g_x, n, f, m, &rng) != SRL_OK)
        CHECK(0, "srl_round_array failed");
    /* Per element, in parallel: e_i = (|y_i| - |tow_i|)/q in {0, 1} and the hypothesis's
     * probability h_i of moving away (f_i for "mean = x", F_i/2^R for the closed form), both
     * exact binary64 numbers. Then sum (|y_i| - mu_i)/q = sum e_i - sum h_i exactly. */
    double *ev = malloc(n * sizeof *ev), *hv = malloc(n * sizeof *hv);
    unsigned char *bad_i = calloc(n, 1);
    if (!ev || !hv || !bad_i) {
        fprintf(stderr, "out of memory\n");
        exit(2);
    }
#pragma omp parallel num_threads(ref_threads())
    {
        sto_ws sw;
        sto_ws_init(&sw, &F);
#pragma omp for schedule(static)
        for (unsigned long i = 0; i < n; i++) {
            ref_all o;
            ref_round_d(&o, &sw.w, &F, g_x[i]);
            if (!ref_same(g_y[i], o.tow.v) && !ref_same(g_y[i], o.awy.v))
                bad_i[i] = 1;
            ev[i] = (fabs(g_y[i]) - fabs(o.tow.v)) / q;
            exact_pa(&sw, &o, m);
            const double hh = mpfr_get_d(unbiased_hyp ? sw.w.fr : sw.pa, MPFR_RNDN);
            if (mpfr_cmp_d(unbiased_hyp ? sw.w.fr : sw.pa, hh) != 0)
                bad_i[i] = 2;
            hv[i] = hh;
        }
        sto_ws_clear(&sw);
    }
    mpfr_t acc;
    mpfr_init2(acc, 256);
    mpfr_set_zero(acc, 1);
    bool ok = true;
    unsigned long bad = 0;
    double V = 0;
    for (unsigned long i = 0; i < n; i++) {
        bad += bad_i[i] != 0;
        ok = ok && mpfr_add_d(acc, acc, ev[i] - hv[i], MPFR_RNDN) == 0 &&
             (ev[i] == 0 || ev[i] == 1);
        V += hv[i] * (1 - hv[i]);
    }
    free(ev);
    free(hv);
    free(bad_i);
    char what[300];
    snprintf(what, sizeof what, "batch %s %s, %lu distinct %s inputs in %s, mean %s", f->name,
             mname(m), n, fp32_inputs ? "fp32" : "binary64",
             sub ? "the subnormal range" : "one binade",
             unbiased_hyp ? "= x (unbiased)" : "= closed form x - (f - F/2^R) q");
    CHECK(bad == 0 && ok, "%s: %lu results not a neighbour; exact sums %s", what, bad,
          ok ? "ok" : "failed");
    const double S = mpfr_get_d(acc, MPFR_RNDN);
    if (expect_reject) {
        /* power: the unbiased hypothesis must be rejected for a truncating sr:r=R */
        const double t = bernstein_t(V, 1.0, g_alpha);
        CHECK(fabs(S) >= t, "power: %s: |S| = %.6g below the threshold %.6g: the truncation bias "
              "of sr:r=%d was not detected", what, S, t, m.r);
    } else {
        family_mean(what, S, V, 1.0, n, seed, stream);
    }
    mpfr_clear(acc);
}

/* The inputs of the frequency tests for one format: positive values with p_up in (0,1). */
static size_t freq_inputs(const ref_fmt *F, double *xs)
{
    size_t k = 0;
    const double q1 = ldexp(1.0, 1 - F->p); /* spacing at 1 */
    const int fb = 53 - F->p < 40 ? 53 - F->p : 40; /* fraction bits available below q1 */
    const double one = (F->emin <= 0 && F->emax >= 0) ? 1.0 : F->xmin;
    const double qone = one == 1.0 ? q1 : ldexp(1.0, F->emin - F->p + 1);
    if (fb >= 1)
        xs[k++] = one + qone / 2; /* tie: p = 1/2 */
    if (fb >= 3) /* a long random-looking fraction: 0.1011 0110 1100 ... */
        xs[k++] = one + qone * ldexp((double)(UINT64_C(0xb6c5a3f1e2d4b) >> (52 - fb)), -fb);
    if (fb >= 12)
        xs[k++] = one + qone * (0x1p-10 + 0x1p-11 + 0x1p-12); /* p ~ 0.0017 */
    if (fb >= 8)
        xs[k++] = one + qone * (1 - 0x1p-8); /* p ~ 0.996 */
    if (F->sub && F->emin - F->p - 1 >= -1074) /* subnormal range: 5.3125 xsub */
        xs[k++] = F->xsub * 5.3125;
    if (!F->sub) /* below xmin without subnormals: between 0 and xmin */
        xs[k++] = F->xmin * 0.3125;
    {   /* overflow region: xmax + 0.375 q rounds past xmax w.p. 0.375 (unless saturating) */
        const double v = F->xmax + 0.375 * F->qtop;
        if (!F->sat && isfinite(v) && v - F->xmax == 0.375 * F->qtop)
            xs[k++] = v;
    }
    return k;
}

static void test_frequencies(void)
{
    const unsigned long N = (unsigned long)srl_test_n(1L << 20);
    const unsigned long Ns = (unsigned long)srl_test_n(1L << 16);
    const unsigned long Nm = (unsigned long)srl_test_n(1L << 15);
    const unsigned long Nb = (unsigned long)srl_test_n(1L << 18);
    g_x = malloc(N * sizeof *g_x);
    g_y = malloc(N * sizeof *g_y);
    if (!g_x || !g_y) {
        fprintf(stderr, "out of memory\n");
        exit(2);
    }
    srl_format nosub, sat;
    if (srl_format_parse(&nosub, "p=8,emax=127,subnormals=off", NULL) != SRL_OK ||
        srl_format_parse(&sat, "p=4,emax=8,emin=-6,inf=off,saturate=on", NULL) != SRL_OK)
        CHECK(0, "custom formats do not parse");
    const srl_format *fmts[32]; /* every preset and the two customs */
    size_t nf = 0;
    if (srl_format_preset_count() + 2 > sizeof fmts / sizeof *fmts) {
        fprintf(stderr, "more presets than the table holds\n");
        exit(2);
    }
    for (size_t i = 0; i < srl_format_preset_count(); i++)
        fmts[nf++] = srl_format_preset(i);
    fmts[nf++] = &nosub;
    fmts[nf++] = &sat;
    const int Rs[] = {1, 2, 4, 8, 16, 20};
    /* fp64 inputs through the MPFR path: x = 1 + f 2^-52 with a 100-bit f */
    mpfr_t xm[3];
    for (int i = 0; i < 3; i++)
        mpfr_init2(xm[i], 200);
    mpfr_set_ui(xm[0], 1, MPFR_RNDN);
    mpfr_set_str(xm[1], "1.0000000000000000000000000000000000000000000000000001011010110101"
                        "10001011010010101101010001110101101101011010001011010110101", 2,
                 MPFR_RNDN);
    mpfr_set_str(xm[2], "-1.0000000000000000000000000000000000000000000000000001111110101101"
                        "011101000101101001010110101000111010110110101101000101101011", 2,
                 MPFR_RNDN);
    mpfr_nextabove(xm[0]);
    mpfr_nextabove(xm[0]); /* 1 + 2^-198: p_up = 2^-146, exactness only (no frequency test) */
    const double t0 = now();
    for (int pass = 0; pass < 2; pass++) {
        g_counting = pass == 0;
        uint64_t stream = 0;
        for (size_t fi = 0; fi < nf; fi++) {
            const srl_format *f = fmts[fi];
            ref_fmt F;
            ref_fmt_from(&F, f);
            double xs[16];
            const size_t nx = F.p == 53 ? 0 : freq_inputs(&F, xs);
            for (size_t j = 0; j < nx; j++) {
                for (int sgn = 0; sgn < 2; sgn++) {
                    if (sgn && j % 2 == 0 && j + 1 != nx) /* negatives for half of the inputs */
                        continue;
                    const double x = sgn ? -xs[j] : xs[j];
                    fcase c = {f, {SRL_SR, 0}, x, NULL, PATH_ARRAY, N, j == 1 && !sgn};
                    run_fcase(&c, stream++);
                    if (j == 1 || j == 4) {
                        c.m = (srl_rounding){SRL_SR_EQ, 0};
                        c.mean = false;
                        run_fcase(&c, stream++);
                    }
                    if (j == 1 && !sgn) {
                        for (size_t r = 0; r < sizeof Rs / sizeof Rs[0]; r++) {
                            c.m = (srl_rounding){SRL_SR_BITS, Rs[r]};
                            c.mean = false;
                            /* only fractions longer than R bits (else F/2^R = f) */
                            ref_all o;
                            sto_ws s;
                            sto_ws_init(&s, &F);
                            ref_round_d(&o, &s.w, &F, x);
                            bool repr;
                            const double pb = exact_pup(&s, &o, c.m, &repr);
                            const double pf = exact_pup(&s, &o, (srl_rounding){SRL_SR, 0}, &repr);
                            sto_ws_clear(&s);
                            if (pb == pf || pb == 0)
                                continue;
                            run_fcase(&c, stream++);
                        }
                    }
                    if (j == 1 || j == 4) { /* the scalar path */
                        c.m = (srl_rounding){SRL_SR, 0};
                        c.path = PATH_SCALAR;
                        c.n = Ns;
                        c.mean = false;
                        run_fcase(&c, stream++);
                    }
                }
            }
        }
        /* an fp32 value written to bf16 with sr:r=16: frequency at the unbiased f */
        {
            const float xf = 1.0f + 0x1.6d8b4p-8f; /* 16 bits below bf16's grid at 1 */
            fcase c = {srl_format_find("bf16"), {SRL_SR_BITS, 16}, (double)xf, NULL, PATH_ARRAY,
                       N, true};
            run_fcase(&c, stream++);
        }
        /* fp64 through the MPFR path */
        {
            const srl_format *f = srl_format_find("fp64");
            for (int i = 1; i < 3; i++) {
                fcase c = {f, {SRL_SR, 0}, 0, xm[i], PATH_MPFR, Nm, i == 1};
                run_fcase(&c, stream++);
                c.mean = false;
                for (size_t r = 0; r < sizeof Rs / sizeof Rs[0]; r++) {
                    c.m = (srl_rounding){SRL_SR_BITS, Rs[r]};
                    ref_fmt F;
                    sto_ws s;
                    sto_ws_for(&s, &F, f);
                    ref_all o;
                    ref_round_mp(&o, &s.w, &F, xm[i]);
                    bool repr;
                    const double pb = exact_pup(&s, &o, c.m, &repr);
                    sto_ws_clear(&s);
                    if (pb > 0 && pb < 1)
                        run_fcase(&c, stream++);
                }
                c.m = (srl_rounding){SRL_SR_EQ, 0};
                run_fcase(&c, stream++);
            }
        }
        /* batch means: unbiased sr in one binade and in the subnormal range, per preset */
        for (size_t fi = 0; fi < nf; fi++) {
            const srl_format *f = fmts[fi];
            ref_fmt F;
            ref_fmt_from(&F, f);
            if (F.p == 53)
                continue;
            /* (a format of one binade, int8, has only its top binade, whose inputs above xmax
             * saturate: no unbiased mean there; its subnormal range below is tested) */
            if (F.emax > F.emin)
                batch_mean(f, (srl_rounding){SRL_SR, 0}, F.emin + (F.emax - F.emin) / 3, false,
                           true, Nb, 1000 + 2 * fi, false);
            if (F.sub)
                batch_mean(f, (srl_rounding){SRL_SR, 0}, F.emin - 1, false, true, Nb,
                           1001 + 2 * fi, false);
        }
        /* sr:r=R: the closed-form biased mean on binary64 inputs into bf16, and the fp32 -> bf16
         * r=16 write, which is exactly unbiased */
        const srl_format *bf16 = srl_format_find("bf16");
        for (size_t r = 0; r < sizeof Rs / sizeof Rs[0]; r++)
            batch_mean(bf16, (srl_rounding){SRL_SR_BITS, Rs[r]}, 3, false, false, Nb,
                       1100 + r, false);
        batch_mean(bf16, (srl_rounding){SRL_SR_BITS, 16}, 3, true, true, Nb, 1200, false);
        batch_mean(bf16, (srl_rounding){SRL_SR_BITS, 16}, -130, true, true, Nb, 1201, false);
        /* power: a truncating sr:r=R is detected as biased (not part of the family) */
        batch_mean(bf16, (srl_rounding){SRL_SR_BITS, 4}, 3, false, true, Nb, 1300, true);
        if (g_counting) {
            g_alpha = ALPHA_FW / (double)g_family;
            printf("  statistical family: %ld tests, family-wise false-alarm rate %g, per-test "
                   "level %.3g (Bonferroni); N = %lu per binomial test (array path), %lu (scalar),"
                   " %lu (MPFR path), %lu per batch mean\n",
                   g_family, ALPHA_FW, g_alpha, N, Ns, Nm, Nb);
        }
    }
    /* power of the binomial test: sr:r=4 and sr:r=8 against the unbiased f */
    {
        const srl_format *bf16 = srl_format_find("bf16");
        /* f = 0.1011 0110 1100 0101 1010 0011 ... : F/16 = 11/16 vs f = 0.7139... */
        power_check(bf16, 1.0 + 0x1p-7 * 0x1.6d8b47e3c5a96p-1, 4, N, 2000);
        power_check(srl_format_find("fp16"), 1.0 + 0x1p-10 * 0x1.6d8b47e3c5a96p-1, 2, N, 2001);
    }
    CHECK(g_ran == g_family, "ran %ld tests, counted %ld", g_ran, g_family);
    for (int i = 0; i < 3; i++)
        mpfr_clear(xm[i]);
    free(g_x);
    free(g_y);
    printf("  [frequencies and means: %.1f s]\n", now() - t0);
}

/* ---------------------------------------------------------------------------------------- */
/* 6. Far below the grid, and the extra-word tie-break.                                     */

static void test_far_below(void)
{
    const long before = srl_test_failures;
    /* p_up exact for f < 2^-64 (binary64 inputs far below the smallest subnormal of a format,
     * and just above zero in the no-subnormal format) */
    tally tf = {0, 0};
    const char *names[] = {"fp32", "bf16", "fp16", "e4m3", "e5m2", "tf32",
                           "p=8,emax=127,subnormals=off", "p=11,emax=15,emin=-20"};
    long n = 0;
    for (size_t a = 0; a < sizeof names / sizeof names[0]; a++) {
        srl_format f;
        if (!srl_test_format(&f, names[a]))
            continue;
        ref_fmt F;
        sto_ws s;
        sto_ws_for(&s, &F, &f);
        trng g = {UINT64_C(0xfa7) + a};
        srl_rng rng;
        srl_rng_init(&rng, SRL_RNG_PCG64, UINT64_C(0xfa75eed), a);
        const long qe = F.sub ? (long)F.emin - F.p + 1 : F.emin;
        for (int i = 0; i < 4000; i++) {
            /* |x| / 2^qe < 2^-64: exponent in [-1074, qe - 65] */
            const double x = tr_double_exp(&g, -1074, qe - 65);
            ref_all o;
            ref_round_d(&o, &s.w, &F, x);
            const srl_rounding m = sto_mode(i % NSTO);
            srl_round_info I;
            if (srl_round_explain(&I, x, &f, m, &rng) != SRL_OK)
                CHECK(0, "explain failed");
            char xs[40];
            snprintf(xs, sizeof xs, "%a", x);
            long dummy = 0;
            check_pup("far below the grid", &f, &s, &o, m, &I, &dummy, xs, &tf);
            CHECK(mpfr_cmp_ui_2exp(s.w.fr, 1, -64) < 0, "test design: f >= 2^-64 for x=%a", x);
            n++;
        }
        sto_ws_clear(&s);
    }
    tally_report("far below the grid", &tf);
    printf("  far below the grid: %ld inputs\n", n);
    GROUP("p_up exact for fractions below 2^-64", before);

    /* The tie-break, binary64 path: find draws u < 2^52 (top 12 bits zero) and build
     * x = (2u + 1) 2^(qe - 65) below the smallest subnormal 2^qe, so f = (2u+1) 2^-65: f's first
     * word is u (a tie with the draw) and its expansion continues with one 1 bit. Then U < f iff
     * the first extra word w1 = srl_rng_extra(index, 0) is below 2^63 (w1 = 2^63 and later words
     * zero would give U = f, not below). */
    const long before2 = srl_test_failures;
    {
        srl_format fp32 = *srl_format_find("fp32");
        ref_fmt F;
        ref_fmt_from(&F, &fp32);
        srl_rng scan;
        srl_rng_init(&scan, SRL_RNG_DEFAULT, UINT64_C(0x71e), 3);
        long found = 0, away = 0;
        const uint64_t limit = (uint64_t)srl_test_n(1L << 22) + (UINT64_C(1) << 14);
        mpfr_t xm;
        mpfr_init2(xm, 53);
        for (uint64_t idx = 0; idx < limit; idx++) {
            const uint64_t u = srl_rng_next(&scan);
            if (u >> 52)
                continue;
            found++;
            const double x = ldexp((double)(2 * u + 1), (int)(F.emin - F.p + 1) - 65);
            const uint64_t w1 = srl_rng_extra(&scan, idx, 0);
            const bool expect_away = w1 < (UINT64_C(1) << 63);
            away += expect_away;
            const double expect = expect_away ? F.xsub : 0.0;
            srl_rng r = scan;
            srl_rng_seek(&r, idx);
            const double y1 = srl_round(x, &fp32, (srl_rounding){SRL_SR, 0}, &r);
            srl_rng_seek(&r, idx);
            double y2 = -1, xa[1] = {x};
            if (srl_round_array(&y2, xa, 1, &fp32, (srl_rounding){SRL_SR, 0}, &r) != SRL_OK)
                y2 = -1;
            srl_rng_seek(&r, idx);
            mpfr_set_d(xm, x, MPFR_RNDN);
            double y3 = -1;
            if (srl_mpfr_round(&y3, NULL, xm, &fp32, (srl_rounding){SRL_SR, 0}, &r) != SRL_OK)
                y3 = -1;
            CHECK(ref_same(y1, expect) && ref_same(y2, expect) && ref_same(y3, expect),
                  "tie-break: fp32 sr x=%a at draw %" PRIu64 " (u = 0x%" PRIx64 " = f's first "
                  "word, first extra word 0x%" PRIx64 "): expected %a, srl_round %a, "
                  "srl_round_array %a, srl_mpfr_round %a", x, idx, u, w1, expect, y1, y2, y3);
        }
        mpfr_clear(xm);
        CHECK(found >= 1, "no draw below 2^52 in %" PRIu64 " draws", limit);
        printf("  tie-break (binary64 inputs): %ld constructed ties, %ld decided away\n", found,
               away);
    }
    /* The tie-break, MPFR path, two words deep: f = 0.u w1 1 (binary, 64-bit words) with
     * w1 = srl_rng_extra(index, 0): U < f iff w2 = srl_rng_extra(index, 1) < 2^63. And
     * f = 0.u w1 exactly: U >= f always, never away. */
    {
        const srl_format *bf16 = srl_format_find("bf16");
        srl_rng r;
        srl_rng_init(&r, SRL_RNG_PCG64, UINT64_C(0xdee9), 1);
        trng g = {0xdee9};
        mpfr_t x;
        mpfr_init2(x, 256);
        long away = 0, n2 = 0;
        for (int i = 0; i < 2000; i++) {
            const uint64_t idx = tr_next(&g) >> 20;
            const uint64_t u = tr_next(&g);
            const uint64_t w1 = srl_rng_extra(&r, idx, 0), w2 = srl_rng_extra(&r, idx, 1);
            const bool deep = i % 2 == 0;
            /* x = (T + f) q with T = 0x80 + (i mod 128) at q = 2^-7 (x in [1,2)) */
            mpfr_set_ui(x, u, MPFR_RNDN);
            mpfr_mul_2ui(x, x, 64, MPFR_RNDN);
            mpfr_add_ui(x, x, w1, MPFR_RNDN);
            mpfr_mul_2ui(x, x, 1, MPFR_RNDN);
            if (deep)
                mpfr_add_ui(x, x, 1, MPFR_RNDN); /* f = (u 2^65 + w1 2 + 1) 2^-129 */
            mpfr_div_2ui(x, x, 129, MPFR_RNDN);
            mpfr_add_ui(x, x, 0x80 + (unsigned long)(i % 128), MPFR_RNDN);
            mpfr_div_2ui(x, x, 7, MPFR_RNDN);
            if (i % 4 >= 2)
                mpfr_neg(x, x, MPFR_RNDN);
            const bool expect_away = deep && w2 < (UINT64_C(1) << 63);
            away += expect_away;
            n2++;
            ref_fmt F;
            sto_ws s;
            sto_ws_for(&s, &F, bf16);
            ref_all o;
            ref_round_mp(&o, &s.w, &F, x);
            sto_ws_clear(&s);
            double y;
            srl_round_info I;
            const int st = srl_mpfr_round_draw(&y, &I, x, bf16, (srl_rounding){SRL_SR, 0}, u, &r,
                                               idx);
            const double expect = expect_away ? o.awy.v : o.tow.v;
            char xs[200];
            mpfr_snprintf(xs, sizeof xs, "%Ra", x);
            CHECK(st == SRL_OK && ref_same(y, expect) && ref_same(I.result, y),
                  "tie-break (MPFR path, %s): bf16 sr x=%s, draw u=0x%" PRIx64 " index %" PRIu64
                  ", extra words 0x%" PRIx64 " 0x%" PRIx64 ": expected %a, got %a", deep ?
                  "f = 0.u w1 1" : "f = 0.u w1", xs, u, idx, w1, w2, expect, y);
        }
        mpfr_clear(x);
        printf("  tie-break (MPFR inputs, two words deep): %ld cases, %ld decided away\n", n2,
               away);
    }
    GROUP("sr's extra words break ties with f's expansion exactly (both paths)", before2);
}

/* ---------------------------------------------------------------------------------------- */
/* 7. Draw counting.                                                                         */

/* A bulk call fn of n elements that began at draw counter c0 and returned st: it succeeded and
 * left r's counter at c0 + n; element i is srl_round of its input (xd[i], or xs[i] when xd is
 * NULL) with draw c0 + i of fresh (the generator at counter 0), its result yd[i] (or ys[i] when
 * yd is NULL). The first three elements that differ fail. */
static void check_bulk_draws(const char *fn, int st, const srl_rng *r, const srl_format *f,
                             srl_rounding m, const srl_rng *fresh, uint64_t c0, size_t n,
                             const double *xd, const float *xs, const double *yd, const float *ys)
{
    CHECK(st == SRL_OK && r->counter == c0 + n, "%s %s %s n=%zu: status %d, counter %" PRIu64
          " -> %" PRIu64, fn, f->name, mname(m), n, st, c0, r->counter);
    srl_rng e = *fresh;
    srl_rng_seek(&e, c0);
    long bad = 0;
    for (size_t i = 0; i < n; i++) {
        const double x = xd ? xd[i] : (double)xs[i], y = yd ? yd[i] : (double)ys[i];
        const double want = srl_round(x, f, m, &e);
        if (!ref_same(want, y) && bad++ < 3)
            CHECK(0, "%s %s %s element %zu x=%a (draw %" PRIu64 "): %a, srl_round with that "
                  "draw %a", fn, f->name, mname(m), i, x, c0 + i, y, want);
    }
}

static void test_draw_counts(void)
{
    const long before = srl_test_failures;
    const double specials[] = {0.0, -0.0, NAN, INFINITY, -INFINITY, 1.0, 3.0, -1.0 - 0x1p-10,
                               1e300, -1e-300, 0x1p-140, 0x1.00001p-130, 449.0, 65535.0};
    const size_t ns = sizeof specials / sizeof specials[0];
    const srl_rounding modes[] = {{SRL_SR, 0}, {SRL_SR_EQ, 0}, {SRL_SR_BITS, 1},
                                  {SRL_SR_BITS, 16}, {SRL_SR_BITS, 64}};
    const char *fnames[] = {"bf16", "e4m3", "fp32", "fp64", "p=5,emax=4,subnormals=off,"
                            "saturate=on"};
    const size_t nbig = (size_t)srl_test_n(70000) + 5;
    double *x = malloc(nbig * sizeof *x), *y = malloc(nbig * sizeof *y);
    float *xf = malloc(nbig * sizeof *xf), *yf = malloc(nbig * sizeof *yf);
    if (!x || !y || !xf || !yf) {
        fprintf(stderr, "out of memory\n");
        exit(2);
    }
    trng g = {0xd4a3};
    for (size_t i = 0; i < nbig; i++) {
        x[i] = (i % 3 == 0) ? specials[i % ns] : tr_double_exp(&g, -150, 20);
        xf[i] = (float)x[i];
    }
    mpfr_t xm;
    mpfr_init2(xm, 53);
    for (size_t a = 0; a < sizeof fnames / sizeof fnames[0]; a++) {
        srl_format f;
        if (!srl_test_format(&f, fnames[a]))
            continue;
        for (size_t k = 0; k < sizeof modes / sizeof modes[0]; k++) {
            const srl_rounding m = modes[k];
            for (int kind = 0; kind < 2; kind++) {
                const srl_rng_kind rk = kind ? SRL_RNG_PCG64 : SRL_RNG_PCG32;
                srl_rng r, fresh;
                const uint64_t c0 = tr_next(&g) >> 24;
                srl_rng_init(&r, rk, UINT64_C(0xc0417), a * 16 + k);
                srl_rng_seek(&r, c0);
                fresh = r;
                /* one value at a time: every API, every kind of input */
                for (size_t i = 0; i < ns; i++) {
                    uint64_t c = r.counter;
                    (void)srl_round(specials[i], &f, m, &r);
                    CHECK(r.counter == c + 1, "srl_round %s %s x=%a: counter %" PRIu64 " -> %"
                          PRIu64, f.name, mname(m), specials[i], c, r.counter);
                    srl_round_info I;
                    c = r.counter;
                    CHECK(srl_round_explain(&I, specials[i], &f, m, &r) == SRL_OK &&
                          r.counter == c + 1, "srl_round_explain %s %s x=%a: counter %" PRIu64
                          " -> %" PRIu64, f.name, mname(m), specials[i], c, r.counter);
                    c = r.counter;
                    double yy;
                    mpfr_set_d(xm, specials[i], MPFR_RNDN);
                    CHECK(srl_mpfr_round(&yy, NULL, xm, &f, m, &r) == SRL_OK && r.counter == c + 1,
                          "srl_mpfr_round %s %s x=%a: counter %" PRIu64 " -> %" PRIu64, f.name,
                          mname(m), specials[i], c, r.counter);
                }
                /* the stream itself is positioned where the counter says */
                {
                    srl_rng t = r;
                    CHECK(srl_rng_next(&t) == srl_rng_draw_at(&fresh, c0 + 3 * ns),
                          "%s %s: stream not at draw counter after scalar calls", f.name, mname(m));
                }
                /* bulk: n draws, element i uses draw counter + i (compared with srl_round at
                 * that draw), for a small and a large (multi-threaded) n */
                const size_t sizes[2] = {1003, nbig};
                for (int sz = 0; sz < 2; sz++) {
                    const size_t n = sizes[sz];
                    const uint64_t cb = r.counter;
                    const int sb = srl_round_array(y, x, n, &f, m, &r);
                    check_bulk_draws("srl_round_array", sb, &r, &f, m, &fresh, cb, n, x, NULL, y,
                                     NULL);
                    srl_rng t = r;
                    CHECK(srl_rng_next(&t) == srl_rng_draw_at(&fresh, cb + n),
                          "srl_round_array %s %s: stream not at the counter", f.name, mname(m));
                    srl_test_checks++;
                    if (!srl_format_fits_float(&f))
                        continue;
                    const uint64_t cf = r.counter;
                    const int sf = srl_round_array_float(yf, xf, n, &f, m, &r);
                    check_bulk_draws("srl_round_array_float", sf, &r, &f, m, &fresh, cf, n, NULL,
                                     xf, NULL, yf);
                    const uint64_t cd = r.counter;
                    const int sd = srl_round_array_d2f(yf, x, n, &f, m, &r);
                    check_bulk_draws("srl_round_array_d2f", sd, &r, &f, m, &fresh, cd, n, x,
                                     NULL, NULL, yf);
                }
            }
        }
    }
    /* sr-eq leaves exact inputs unchanged and rounds inexact ones by the draw's top bit */
    {
        const srl_format *bf16 = srl_format_find("bf16");
        srl_rng r;
        srl_rng_init(&r, SRL_RNG_DEFAULT, 0xe9, 0);
        const double ex[] = {1.0, -3.5, 0x1p-133, 0x1.fep127, -0.0};
        for (size_t i = 0; i < sizeof ex / sizeof ex[0]; i++) {
            for (int k = 0; k < 64; k++) {
                srl_round_info I;
                const uint64_t c = r.counter;
                CHECK(srl_round_explain(&I, ex[i], bf16, (srl_rounding){SRL_SR_EQ, 0}, &r) ==
                          SRL_OK && ref_same(I.result, ex[i]) && I.p_up == 0 && I.exact &&
                          r.counter == c + 1,
                      "sr-eq exact bf16 x=%a: result %a p_up %a exact %d", ex[i], I.result,
                      I.p_up, I.exact);
            }
        }
        const double x0 = 1.0 + 0x1p-10; /* inexact in bf16: away iff top bit of the draw */
        for (int k = 0; k < 256; k++) {
            const uint64_t u = srl_rng_draw_at(&r, r.counter);
            const double yv = srl_round(x0, bf16, (srl_rounding){SRL_SR_EQ, 0}, &r);
            CHECK(ref_same(yv, (u >> 63) ? 1.0 + 0x1p-7 : 1.0), "sr-eq bf16 x=%a draw 0x%" PRIx64
                  ": %a", x0, u, yv);
        }
    }
    mpfr_clear(xm);
    free(x);
    free(y);
    free(xf);
    free(yf);
    GROUP("one draw per value in every stochastic mode and API; element i uses draw counter+i",
          before);
}

int main(void)
{
    setvbuf(stdout, NULL, _IOLBF, 0);
    const double t0 = now();
    printf("test_stat_round: MPFR %s, GSL binomial tests, SRL_TEST_SCALE=%s\n",
           mpfr_get_version(), getenv("SRL_TEST_SCALE") ? getenv("SRL_TEST_SCALE") : "1");
    double t = now();
    test_exact_probabilities();
    printf("  [%.1f s]\n", now() - t);
    t = now();
    test_far_below();
    printf("  [%.1f s]\n", now() - t);
    t = now();
    {
        const long before = srl_test_failures;
        test_frequencies();
        GROUP("frequencies (exact binomial tests) and means (Bernstein, exact variance) of sr, "
              "sr-eq, sr:r=R; power checks", before);
    }
    t = now();
    test_draw_counts();
    printf("  [%.1f s]\n", now() - t);
    printf("total %.1f s\n", now() - t0);
    mpfr_free_cache();
    TEST_END();
}
