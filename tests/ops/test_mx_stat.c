/* tests/ops/test_mx_stat.c: stochastic rounding of block-scaled formats, element by element given
 * the scale (suite `stat`; include/srlab/mx.h).
 *
 * For every block format, scale rule and stochastic mode (sr, sr-eq, sr:r=3), one fixed block
 * (values across the element range, some on the grid, some in the OCP rule's clipping band) is
 * repeated R times in one array and quantized once, so each copy has its own draws. For every
 * element the reference, from MPFR and the contract alone, gives its scale (brute force over the
 * E8M0 exponents; NVFP4's s_t and s_b by MPFR divisions), its two neighbours and its probability
 * of rounding away from zero (sr: the exact fraction f; sr-eq: 1/2; sr:r=3: floor(8 f) / 8). The
 * test checks that every result is one of the two neighbours (or the saturated value, where the
 * element clips: then always) and that the count of results away from zero passes an exact
 * two-sided binomial test (GSL) at a family-wise false-alarm rate of 1e-6 (Bonferroni over every
 * element tested). So SR with a shared scale is unbiased given the scale, except where an element
 * clips (theory/T18-block-scaled-sr.md). Fixed seeds, printed on failure. */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <gsl/gsl_cdf.h>
#include <mpfr.h>

#include "srlab/mx.h"

#include "../testutil.h"

#define SEED UINT64_C(0x57a7)
#define FAMILY_ALPHA 1e-6

static int ref_k(double amax, const srl_format *e, srl_mx_rule r)
{
    if (amax == 0)
        return -127;
    int best = r == SRL_MX_CEIL ? 127 : -127;
    for (int k = 127; k >= -127; k--) /* ceil: the smallest k that does not clip */
        if (r == SRL_MX_CEIL && amax <= ldexp(e->xmax, k))
            best = k;
    for (int k = -127; k <= 127 && r != SRL_MX_CEIL; k++) /* ocp: the largest k at most amax */
        if (ldexp(1.0, e->emax + k) <= amax)
            best = k;
    return best;
}

/* The two candidates (toward, away from zero; saturated) and P(away) of x's element. */
typedef struct cand {
    double tow, awy, pa;
    bool clips; /* the exact value lies beyond the largest: the result is always it */
} cand;

static cand candidates(double x, double c, double S, int k, const srl_format *e, srl_rounding m)
{
    mpfr_t X, A, fr;
    mpfr_inits2(400, X, A, fr, (mpfr_ptr)0);
    mpfr_set_d(X, x, MPFR_RNDN);
    if (S != 0)
        mpfr_div_d(X, X, S, MPFR_RNDZ); /* NVFP4: x / (s_b s_t) in element units */
    else
        mpfr_mul_d(X, X, c, MPFR_RNDN); /* MX: (c x) 2^-k, exact */
    mpfr_mul_2si(X, X, S != 0 ? 0 : -k, MPFR_RNDN);
    cand o = {0, 0, 0, false};
    const double unit = S != 0 ? S : ldexp(1.0, k);
    if (!mpfr_zero_p(X)) {
        const long ee = (long)mpfr_get_exp(X) - 1;
        const long qe = (ee >= e->emin ? ee : e->emin) - e->p + 1;
        mpfr_abs(A, X, MPFR_RNDN);
        mpfr_mul_2si(A, A, -qe, MPFR_RNDN);
        mpfr_frac(fr, A, MPFR_RNDN); /* exact */
        mpfr_trunc(A, A);             /* T < 2^p, exact */
        const double T = mpfr_get_d(A, MPFR_RNDN);
        const double f = mpfr_get_d(fr, MPFR_RNDN), sgn = mpfr_signbit(X) ? -1 : 1;
        o.tow = sgn * ldexp(T, (int)qe);
        o.awy = sgn * ldexp(T + 1, (int)qe);
        o.pa = m.mode == SRL_SR ? f : m.mode == SRL_SR_EQ ? (f > 0 ? 0.5 : 0) : floor(8 * f) / 8;
        if (fabs(o.tow) >= e->xmax) { /* clipping: every result is the largest */
            o.clips = fabs(o.tow) > e->xmax || f > 0;
            o.tow = o.awy = sgn * e->xmax;
            o.pa = 0;
        } else if (fabs(o.awy) > e->xmax) {
            o.awy = sgn * e->xmax;
        }
        o.tow *= unit, o.awy *= unit;
    }
    mpfr_clears(X, A, fr, (mpfr_ptr)0);
    return o;
}

int main(void)
{
    setvbuf(stdout, NULL, _IOLBF, 0);
    const size_t R = (size_t)srl_test_n(20000);
    static const char *const modes[] = {"sr", "sr-eq", "sr:r=3"};
    const size_t ntests = srl_mx_preset_count() * SRL_MX_RULE_COUNT * 3 * 32;
    const double alpha = FAMILY_ALPHA / (double)ntests;
    long clipped = 0;
    for (size_t fi = 0; fi < srl_mx_preset_count(); fi++) {
        const long before = srl_test_failures;
        const srl_mx_format *f = srl_mx_preset(fi);
        const size_t bs = (size_t)f->block;
        const srl_format *e = &f->elem;
        /* the block: amax = 1.9 2^emax (in the ocp clipping band of every element format), the
         * rest spread over the element range, two on the grid */
        double xb[32];
        srl_rng g;
        srl_rng_init(&g, SRL_RNG_PCG64, SEED, fi);
        xb[0] = 1.9 * ldexp(1.0, e->emax);
        xb[1] = -xb[0] * 0.97;
        xb[2] = e->xmin;
        xb[3] = -ldexp(e->xsub, 1);
        for (size_t j = 4; j < bs; j++)
            xb[j] = ldexp(srl_rng_uniform(&g) + 0.5, e->emax - (int)(j % 7)) *
                    ((j & 1) ? -1 : 1);
        double *x = malloc(R * bs * sizeof *x), *y = malloc(R * bs * sizeof *y);
        for (size_t i = 0; i < R * bs; i++)
            x[i] = xb[i % bs];
        for (int r = 0; r < SRL_MX_RULE_COUNT; r++)
            for (int mi = 0; mi < 3; mi++) {
                srl_rounding m;
                if (srl_rounding_parse(&m, modes[mi], NULL) != SRL_OK)
                    return 1;
                srl_rng s;
                const uint64_t seed = SEED + 100 * fi + 10 * (uint64_t)r + (uint64_t)mi;
                srl_rng_init(&s, SRL_RNG_PCG32, seed, 0);
                double ts = 1;
                if (srl_mx_quantize(y, NULL, &ts, x, R * bs, f, (srl_mx_rule)r, m, &s) != SRL_OK)
                    return 1;
                /* the reference scale */
                double amax = 0;
                for (size_t j = 0; j < bs; j++)
                    amax = fabs(xb[j]) > amax ? fabs(xb[j]) : amax;
                int k = 0;
                double S = 0, c = r == SRL_MX_34 ? 0.75 : 1.0;
                if (f->scale == SRL_MX_E8M0) {
                    k = ref_k(amax, e, (srl_mx_rule)r);
                } else {
                    mpfr_t q;
                    mpfr_init2(q, 24);
                    mpfr_set_d(q, amax, MPFR_RNDN);
                    mpfr_div_ui(q, q, r == SRL_MX_34 ? 2016 : 2688, MPFR_RNDN); /* 448 t */
                    const double st = mpfr_get_d(q, MPFR_RNDN);
                    mpfr_set_prec(q, 4);
                    mpfr_set_d(q, amax, MPFR_RNDN);
                    mpfr_div_d(q, q, (r == SRL_MX_34 ? 4.5 : 6.0) * st,
                               r == SRL_MX_CEIL ? MPFR_RNDU : MPFR_RNDN);
                    S = mpfr_get_d(q, MPFR_RNDN) * st;
                    mpfr_clear(q);
                    c = 1;
                    CHECK(ts == st, "%s: tensor scale %a, reference %a", f->name, ts, st);
                }
                for (size_t j = 0; j < bs; j++) {
                    const cand o = candidates(xb[j], c, S, k, e, m);
                    uint64_t away = 0, other = 0;
                    for (size_t q = 0; q < R; q++) {
                        const double v = y[q * bs + j];
                        if (v == o.awy && o.awy != o.tow)
                            away++;
                        else if (v != o.tow)
                            other++;
                    }
                    CHECK(other == 0, "seed %#llx %s %s %s x=%a: %llu results are neither %a nor %a",
                          (unsigned long long)seed, f->name, srl_mx_rule_name((srl_mx_rule)r),
                          modes[mi], xb[j], (unsigned long long)other, o.tow, o.awy);
                    clipped += o.clips && mi == 0;
                    if (o.awy == o.tow)
                        continue;
                    const double lo = away ? gsl_cdf_binomial_P((unsigned)away, o.pa, (unsigned)R)
                                           : 1.0,
                                 hi = away ? gsl_cdf_binomial_Q((unsigned)away - 1, o.pa,
                                                                (unsigned)R)
                                           : 1.0;
                    const double pv = 2 * (lo < hi ? lo : hi);
                    CHECK(pv > alpha,
                          "seed %#llx %s %s %s x=%a: %llu of %zu away, P(away) %.17g: p-value %.3g "
                          "below %.3g", (unsigned long long)seed, f->name,
                          srl_mx_rule_name((srl_mx_rule)r), modes[mi], xb[j],
                          (unsigned long long)away, R, o.pa, pv, alpha);
                }
            }
        free(x), free(y);
        char name[200];
        snprintf(name, sizeof name, "%s: each element's SR given the scale, 3 rules x sr, sr-eq, "
                 "sr:r=3, %zu copies each (binomial, family-wise 1e-6)", f->name, R);
        GROUP(name, before);
    }
    CHECK(clipped > 0, "no element clipped: the clipping band is not exercised");
    printf("elements that clip (always saturate) under some rule: %ld\n", clipped);
    mpfr_free_cache();
    TEST_END();
}
