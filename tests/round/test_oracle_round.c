/* tests/round/test_oracle_round.c: srlab's rounding against an independent MPFR reference
 * (suite `oracle`: bit for bit, and the rounding direction against MPFR's ternary).
 *
 * The reference is tests/round/ref_round.h: MPFR rounds at precision p with the format's
 * exponent range emulated (mpfr_subnormalize for gradual underflow), and the overflow rules of
 * include/srlab/rounding.h are applied on top. It never calls srlab's rounding code.
 *
 * For every preset (bf16 fp16 fp32 tf32 e4m3 e5m2 fp64 e2m1 e3m2 e2m3 int8), random custom formats, and every
 * deterministic mode (rn rna rz ru rd ro), it compares srl_round, srl_round_explain (result,
 * sign of ternary, rd, ru, p_up, frac, exact, overflow) and the bulk functions
 * (srl_round_array, and srl_round_array_float / _d2f when the format fits binary32) on:
 *   - every bit pattern of every preset up to 19 bits wide (bf16, fp16, tf32, e4m3, e5m2) and of
 *     custom formats up to 16 bits, decoded with a decoder written here from format.h (and
 *     checked against srl_format_decode/encode), plus
 *     every midpoint between consecutive values and the midpoints +- one binary64 ulp;
 *     a sample of patterns (with their upper midpoints) for fp32 and fp64;
 *   - boundary cases (largest finite, the overflow threshold of each mode, xmin, xsub, half of
 *     them, signed zeros, NaN, +-inf, binary64 subnormals, binade edges), each +- one ulp;
 *   - 10^6 random binary64 over the whole binary64 range, and 5 10^5 concentrated near the
 *     format's range or on its grid (exact values, ties, near ties), per preset;
 *   - random custom formats (p 2..53, any emax/emin, subnormals/inf/saturate on/off, e4m3-like
 *     full exponent fields, formats without NaN and infinities), 10^5 inputs each;
 *   - the MPFR-input path: srl_mpfr_round on values of 2..320 bits (not binary64 numbers,
 *     huge and tiny exponents, exact and perturbed midpoints of every format including fp64);
 * and cross-checks srl_round / srl_round_explain of 10^6 binary64 inputs against srl_mpfr_round
 * of the same value with the same draw, in every mode including the stochastic ones (whose
 * decision is also predicted exactly from the draw and the reference's exact fraction, and
 * whose draw counter must advance by exactly one).
 *
 * Two checks are tallied apart, over the whole run: for |x| >= 2^(emax+1) rounding.h reports
 * frac = 0 (every neighbour overflows there), and the two input paths must agree on it (mpfr.h).
 * The last two groups of the output report them.
 *
 * Sizes scale with SRL_TEST_SCALE (tests/testutil.h); seeds are fixed and printed on failure.
 * OpenMP over independent inputs; results and messages do not depend on the thread count. */
#include <float.h>
#include <math.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <gmp.h>
#include <mpfr.h>
#ifdef _OPENMP
#include <omp.h>
#endif

#include "srlab/format.h"
#include "srlab/mpfr.h"
#include "srlab/rng.h"
#include "srlab/rounding.h"

#include "../testutil.h"
#include "ref_round.h"

#define NM REF_NDET

static const char *const mode_name[NM] = {"rn", "rna", "rz", "ru", "rd", "ro"};

static double now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

#define OMP_THREADS ref_threads()

/* ---------------------------------------------------------------------------------------- */
/* Comparison of one library description against the reference.                            */

enum {
    B_ROUND = 1 << 0,  /* srl_round result */
    B_RESULT = 1 << 1, /* explain: result */
    B_TERN = 1 << 2,   /* explain: sign of ternary */
    B_RD = 1 << 3,
    B_RU = 1 << 4,
    B_PUP = 1 << 5,
    B_FRAC = 1 << 6,
    B_EXACT = 1 << 7,
    B_OVF = 1 << 8,
    B_FRAC_ABOVE = 1 << 9, /* frac for |x| >= 2^(emax+1) (reported separately) */
    B_STATUS = 1 << 10,
    B_ARRAY = 1 << 11,
    B_FLOAT = 1 << 12,
    B_D2F = 1 << 13,
    B_REF = 1 << 14, /* the reference's own self-check */
    B_COUNTER = 1 << 15,
};

static unsigned compare_info(const ref_all *o, int mode, const srl_round_info *I, int st)
{
    if (st != SRL_OK)
        return B_STATUS;
    unsigned b = 0;
    const ref_out *e = &o->m[mode];
    if (!ref_same(I->result, e->v))
        b |= B_RESULT;
    if (ref_sgn(I->ternary) != e->t)
        b |= B_TERN;
    if (!ref_same(I->rd, o->rd.v))
        b |= B_RD;
    if (!ref_same(I->ru, o->ru.v))
        b |= B_RU;
    if (!(I->p_up == ref_pup_det(o, mode)))
        b |= B_PUP;
    if (o->kind == REF_FINITE || o->kind == REF_ZERO)
        if (!(I->frac == o->frac))
            b |= o->above ? B_FRAC_ABOVE : B_FRAC;
    if (I->exact != o->exact)
        b |= B_EXACT;
    /* The overflow flag of an infinite input is not specified (IEEE raises no overflow). */
    if (o->kind != REF_INF && I->overflow != e->ovf)
        b |= B_OVF;
    if (o->err)
        b |= B_REF;
    return b;
}

/* Human-readable list of the mismatching fields. */
static void describe(char *buf, size_t len, unsigned b, const ref_all *o, int mode,
                     const srl_round_info *I, const char *yname, double y_round, double y_arr,
                     double y_flt, double y_d2f)
{
    size_t n = 0;
#define ADD(...)                                                                                  \
    do {                                                                                          \
        if (n < len)                                                                              \
            n += (size_t)snprintf(buf + n, len - n, __VA_ARGS__);                                 \
    } while (0)
    const ref_out *e = &o->m[mode];
    if (b & B_STATUS)
        ADD(" [explain status != SRL_OK]");
    if (b & B_ROUND)
        ADD(" [%s: expected %a got %a]", yname, e->v, y_round);
    if (b & B_RESULT)
        ADD(" [result: expected %a got %a]", e->v, I->result);
    if (b & B_TERN)
        ADD(" [ternary sign: expected %d got %d]", e->t, I->ternary);
    if (b & B_RD)
        ADD(" [rd: expected %a got %a]", o->rd.v, I->rd);
    if (b & B_RU)
        ADD(" [ru: expected %a got %a]", o->ru.v, I->ru);
    if (b & B_PUP)
        ADD(" [p_up: expected %a got %a]", ref_pup_det(o, mode), I->p_up);
    if (b & (B_FRAC | B_FRAC_ABOVE))
        ADD(" [frac: expected %a got %a]", o->frac, I->frac);
    if (b & B_EXACT)
        ADD(" [exact: expected %d got %d]", o->exact, I->exact);
    if (b & B_OVF)
        ADD(" [overflow: expected %d got %d]", e->ovf, I->overflow);
    if (b & B_ARRAY)
        ADD(" [srl_round_array: expected %a got %a]", e->v, y_arr);
    if (b & B_FLOAT)
        ADD(" [srl_round_array_float: expected %a got %a]", e->v, y_flt);
    if (b & B_D2F)
        ADD(" [srl_round_array_d2f: expected %a got %a]", e->v, y_d2f);
    if (b & B_REF)
        ADD(" [reference self-check failed: err %d]", o->err);
    if (b & B_COUNTER)
        ADD(" [draw counter did not advance by exactly one]");
#undef ADD
}

/* frac for |x| >= 2^(emax+1) is tallied apart from everything else, over the whole run, and
 * reported as two groups at the end: against the contract's top-binade grid (ABOVE_CONTRACT),
 * and between the binary64 and MPFR paths of the library (ABOVE_PATHS). */
enum { ABOVE_CONTRACT = 0, ABOVE_PATHS = 1 };
#define ABOVE_EX 8
typedef struct above_tally {
    long n, fail;
    int nex;
    char ex[ABOVE_EX][700];
    char fmt[ABOVE_EX][SRL_FORMAT_NAME_LEN];
} above_tally;
static above_tally g_above[2];

static void above_count(int kind, long n)
{
    g_above[kind].n += n;
}

/* One failure; keeps the first example per format (up to ABOVE_EX formats). */
static void above_fail(int kind, const char *fmt, const char *example)
{
    above_tally *a = &g_above[kind];
    a->fail++;
    for (int i = 0; i < a->nex; i++)
        if (strcmp(a->fmt[i], fmt) == 0)
            return;
    if (a->nex == ABOVE_EX)
        return;
    snprintf(a->fmt[a->nex], sizeof a->fmt[0], "%s", fmt);
    snprintf(a->ex[a->nex], sizeof a->ex[0], "%s", example);
    a->nex++;
}

static bool above_wants_example(int kind, const char *fmt)
{
    const above_tally *a = &g_above[kind];
    for (int i = 0; i < a->nex; i++)
        if (strcmp(a->fmt[i], fmt) == 0)
            return false;
    return a->nex < ABOVE_EX;
}

/* The mismatch bits b of input o but frac-above (reported apart), after counting o in tally
 * kind when it is a finite value above 2^(emax+1). */
static unsigned main_bits(int kind, const ref_all *o, unsigned b)
{
    if (o->above && o->kind == REF_FINITE)
        above_count(kind, 1);
    return b & ~(unsigned)B_FRAC_ABOVE;
}

static void above_report(void)
{
    static const char *const what[2] = {
        "frac for |x| >= 2^(emax+1) is 0 as rounding.h says (srl_round_explain and "
        "srl_mpfr_round)",
        "frac for |x| >= 2^(emax+1): srl_round_explain and srl_mpfr_round agree (mpfr.h: "
        "'receives the same description as srl_round_explain')"};
    for (int k = 0; k < 2; k++) {
        const above_tally *a = &g_above[k];
        const long before = srl_test_failures;
        CHECK(a->fail == 0, "%ld of %ld checks differ; first example per format:", a->fail,
              a->n);
        if (a->fail)
            for (int i = 0; i < a->nex; i++)
                fprintf(stderr, "    %s\n", a->ex[i]);
        GROUP(what[k], before);
    }
}

/* The report of a batch's mismatch masks (run_batch, run_batch_mpfr), serially and in input
 * order: each (input, mode) is one check; a frac-above mismatch counts against the contract's
 * tally (with the first example per format) instead of failing the check. For a mismatch it
 * reports, rerun calls the library again on input i in mode m: its description into *I (result
 * NaN when refused), the values that describe() shows into y (the single-value call's, then
 * those of the array, float and d2f paths; left NaN where the batch has none), the input as text
 * into xs. */
typedef void rerun_fn(const void *ctx, size_t i, srl_rounding m, srl_round_info *I, double y[4],
                      char *xs, size_t xs_len);

typedef struct batch_report {
    const char *label;
    const char *checked;   /* before "format" in a failure: "" or a function and a space */
    const char *explained; /* the function whose frac a frac-above example shows */
    const char *yname;     /* the single-value call, as describe() names it */
    uint64_t seed;         /* of the inputs, with index0 + i the input's index */
    size_t index0;
    rerun_fn *rerun;
    const void *ctx;
} batch_report;

static void report_batch(const batch_report *r, const srl_format *f, const uint16_t *mask,
                         const ref_all *ref, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        for (int md = 0; md < NM; md++) {
            const unsigned b = mask[i * NM + (size_t)md];
            const unsigned main_b = main_bits(ABOVE_CONTRACT, &ref[i], b);
            srl_test_checks++;
            if (!b)
                continue;
            if (!main_b && !above_wants_example(ABOVE_CONTRACT, f->name)) {
                above_fail(ABOVE_CONTRACT, f->name, "");
                continue;
            }
            const srl_rounding m = {(srl_mode)md, 0};
            srl_round_info I;
            memset(&I, 0, sizeof I);
            double y[4] = {NAN, NAN, NAN, NAN};
            char xs[200], buf[900];
            r->rerun(r->ctx, i, m, &I, y, xs, sizeof xs);
            describe(buf, sizeof buf, b, &ref[i], md, &I, r->yname, y[0], y[1], y[2], y[3]);
            if (main_b) {
                srl_test_checks--; /* CHECK counts itself */
                CHECK(main_b == 0, "%s: %sformat %s mode %s x=%s (input seed 0x%" PRIx64
                      ", index %zu):%s", r->label, r->checked, f->name, mode_name[md], xs,
                      r->seed, r->index0 + i, buf);
            }
            if (b & B_FRAC_ABOVE) {
                char ex[700];
                snprintf(ex, sizeof ex, "%s format %s mode %s x=%.100s:%.400s", r->explained,
                         f->name, mode_name[md], xs, buf);
                above_fail(ABOVE_CONTRACT, f->name, ex);
            }
        }
    }
}

/* ---------------------------------------------------------------------------------------- */
/* Batches of binary64 inputs.                                                              */

/* Chunk of a batch: below the library's OpenMP threshold for bulk calls (2^15 elements), so the
 * bulk functions run on the calling thread while the reference work is parallel here. */
#define CH ((size_t)32000)

/* run_batch's chunk: its inputs x and the bulk paths' results (mode md of input i at
 * md * CH + i). */
typedef struct batch64 {
    const srl_format *f;
    const double *x, *y, *yflt;
    const float *yd2f;
} batch64;

static void rerun64(const void *ctx, size_t i, srl_rounding m, srl_round_info *I, double y[4],
                    char *xs, size_t xs_len)
{
    const batch64 *c = ctx;
    const size_t at = (size_t)m.mode * CH + i;
    if (srl_round_explain(I, c->x[i], c->f, m, NULL) != SRL_OK)
        I->result = NAN;
    y[0] = srl_round(c->x[i], c->f, m, NULL);
    y[1] = c->y[at];
    y[2] = c->yflt[at];
    y[3] = (double)c->yd2f[at];
    snprintf(xs, xs_len, "%a", c->x[i]);
}

static void run_batch(const char *label, const srl_format *f, const ref_fmt *F, const double *x,
                      size_t n, uint64_t seed)
{
    const long before = srl_test_failures;
    ref_all *ref = malloc(CH * sizeof *ref);
    uint16_t *mask = malloc(CH * NM * sizeof *mask);
    double *y = malloc(CH * NM * sizeof *y);
    float *xf = malloc(CH * sizeof *xf);
    float *yf = malloc(CH * NM * sizeof *yf);
    float *yd2f = malloc(CH * NM * sizeof *yd2f);
    size_t *fidx = malloc(CH * sizeof *fidx);
    double *yflt = malloc(CH * NM * sizeof *yflt); /* float results scattered back by index */
    if (!ref || !mask || !y || !xf || !yf || !yd2f || !fidx || !yflt) {
        fprintf(stderr, "out of memory\n");
        exit(2);
    }
    const bool fits = srl_format_fits_float(f);
    for (size_t c0 = 0; c0 < n; c0 += CH) {
        const size_t k = n - c0 < CH ? n - c0 : CH;
        const double *xc = x + c0;
#pragma omp parallel num_threads(OMP_THREADS)
        {
            ref_ws w;
            ref_ws_init(&w, F);
#pragma omp for schedule(static)
            for (size_t i = 0; i < k; i++) {
                ref_round_d(&ref[i], &w, F, xc[i]);
                for (int md = 0; md < NM; md++) {
                    const srl_rounding m = {(srl_mode)md, 0};
                    srl_round_info I;
                    const int st = srl_round_explain(&I, xc[i], f, m, NULL);
                    unsigned b = compare_info(&ref[i], md, &I, st);
                    if (!ref_same(srl_round(xc[i], f, m, NULL), ref[i].m[md].v))
                        b |= B_ROUND;
                    mask[i * NM + (size_t)md] = (uint16_t)b;
                }
            }
            ref_ws_clear(&w);
        }
        /* bulk paths (parallel inside the library above its threshold) */
        size_t nf = 0;
        if (fits) {
            for (size_t i = 0; i < k; i++) {
                const float v = (float)xc[i];
                if (isnan(xc[i]) || ref_same((double)v, xc[i])) {
                    fidx[nf] = i;
                    xf[nf++] = v;
                }
            }
        }
        for (size_t i = 0; i < CH * NM; i++) { /* the float results of unused lanes */
            yflt[i] = NAN;
            yd2f[i] = NAN;
        }
        for (int md = 0; md < NM; md++) {
            const srl_rounding m = {(srl_mode)md, 0};
            double *ym = y + (size_t)md * CH;
            const int st = srl_round_array(ym, xc, k, f, m, NULL);
            for (size_t i = 0; i < k; i++)
                if (st != SRL_OK || !ref_same(ym[i], ref[i].m[md].v))
                    mask[i * NM + (size_t)md] |= B_ARRAY;
            if (!fits)
                continue;
            float *yd = yd2f + (size_t)md * CH;
            const int st2 = srl_round_array_d2f(yd, xc, k, f, m, NULL);
            for (size_t i = 0; i < k; i++)
                if (st2 != SRL_OK || !ref_same((double)yd[i], ref[i].m[md].v))
                    mask[i * NM + (size_t)md] |= B_D2F;
            float *yff = yf + (size_t)md * CH;
            const int st3 = srl_round_array_float(yff, xf, nf, f, m, NULL);
            double *yfl = yflt + (size_t)md * CH;
            for (size_t j = 0; j < nf; j++) {
                const size_t i = fidx[j];
                yfl[i] = (double)yff[j];
                if (st3 != SRL_OK || !ref_same(yfl[i], ref[i].m[md].v))
                    mask[i * NM + (size_t)md] |= B_FLOAT;
            }
        }
        const batch64 c = {f, xc, y, yflt, yd2f};
        const batch_report r = {label, "", "srl_round_explain", "srl_round", seed, c0, rerun64,
                                &c};
        report_batch(&r, f, mask, ref, k);
    }
    GROUP(label, before);
    free(ref);
    free(mask);
    free(y);
    free(xf);
    free(yf);
    free(yd2f);
    free(fidx);
    free(yflt);
}

/* ---------------------------------------------------------------------------------------- */
/* Inputs.                                                                                  */

typedef struct dvec {
    double *v;
    size_t n, cap;
} dvec;

static void dv_push(dvec *d, double x)
{
    if (d->n == d->cap) {
        d->cap = d->cap ? 2 * d->cap : 1024;
        d->v = realloc(d->v, d->cap * sizeof *d->v);
        if (!d->v) {
            fprintf(stderr, "out of memory\n");
            exit(2);
        }
    }
    d->v[d->n++] = x;
}

/* x, -x, and both binary64 neighbours of each (finite x only). */
static void dv_push_nb(dvec *d, double x)
{
    if (!isfinite(x))
        return;
    const double c[3] = {x, nextafter(x, 0.0), nextafter(x, INFINITY)};
    for (int k = 0; k < 3; k++) {
        dv_push(d, c[k]);
        dv_push(d, -c[k]);
    }
}

/* a + h if that is exactly representable (and finite), else nothing. */
static void dv_push_sum_nb(dvec *d, double a, double h)
{
    const double s = a + h;
    if (isfinite(s) && s - a == h && s - h == a)
        dv_push_nb(d, s);
}

/* 2^e as a binary64, or 0 when outside [-1074, 1023]. */
static double pow2_or0(long e)
{
    if (e < -1074 || e > 1023)
        return 0.0;
    return ldexp(1.0, (int)e);
}

/* Boundary cases of a format. */
static void boundary_inputs(dvec *d, const ref_fmt *F)
{
    dv_push(d, 0.0);
    dv_push(d, -0.0);
    dv_push(d, NAN);
    dv_push(d, -NAN);
    dv_push(d, INFINITY);
    dv_push(d, -INFINITY);
    const double q = F->qtop;
    /* largest finite and the overflow thresholds: directed modes overflow just above xmax,
     * rn/rna at xmax + q/2 (a tie: rn by the parity of xmax's significand), everything at
     * xmax + q; the top of the binade 2^(emax+1) and beyond */
    dv_push_nb(d, F->xmax);
    dv_push_sum_nb(d, F->xmax, -q);
    dv_push_sum_nb(d, F->xmax, -q / 2);
    dv_push_sum_nb(d, F->xmax, q / 2);
    dv_push_sum_nb(d, F->xmax, q);
    dv_push_sum_nb(d, F->xmax, 1.5 * q);
    dv_push_sum_nb(d, F->xmax, 2 * q);
    dv_push_sum_nb(d, F->xmax, q / 4);
    dv_push_sum_nb(d, F->xmax, 3 * q / 4);
    const double top = pow2_or0((long)F->emax + 1);
    if (top != 0) {
        dv_push_nb(d, top);
        dv_push_sum_nb(d, top, q / 2);
        dv_push_sum_nb(d, top, q);
        dv_push_sum_nb(d, top, 3 * q);
        dv_push_sum_nb(d, top, top / 2);
    }
    dv_push_nb(d, pow2_or0((long)F->emax + 2));
    dv_push_nb(d, pow2_or0((long)F->emax + 3));
    dv_push_nb(d, DBL_MAX);
    /* normal/subnormal boundary */
    const double qmin = ldexp(1.0, F->emin - F->p + 1); /* spacing just above xmin */
    dv_push_nb(d, F->xmin);
    dv_push_sum_nb(d, F->xmin, qmin / 2);
    dv_push_sum_nb(d, F->xmin, -qmin / 2);
    dv_push_sum_nb(d, F->xmin, qmin);
    dv_push_sum_nb(d, F->xmin, -qmin);
    dv_push_nb(d, pow2_or0((long)F->emin - 1));       /* xmin / 2: the tie without subnormals */
    dv_push_sum_nb(d, pow2_or0((long)F->emin - 1), pow2_or0((long)F->emin - 2)); /* 3/4 xmin */
    dv_push_nb(d, pow2_or0((long)F->emin - 2));
    dv_push_nb(d, pow2_or0((long)F->emin + 1));
    /* the smallest subnormal, half of it (a tie with 0), and around */
    const double xs = ldexp(1.0, F->emin - F->p + 1);
    dv_push_nb(d, xs);
    dv_push_nb(d, pow2_or0((long)F->emin - F->p));                 /* xsub / 2 */
    dv_push_nb(d, pow2_or0((long)F->emin - F->p - 1));             /* xsub / 4 */
    dv_push_sum_nb(d, xs, xs / 2);                                  /* 3/2 xsub */
    dv_push_sum_nb(d, 2 * xs, xs / 2);                              /* 5/2 xsub */
    dv_push_sum_nb(d, xs, xs);
    /* binary64 subnormals and the binary64 normal boundary */
    dv_push_nb(d, 0x1p-1074);
    dv_push_nb(d, 0x1p-1073);
    dv_push_nb(d, 0x3p-1074);
    dv_push_nb(d, 0x1.8p-1050);
    dv_push_nb(d, 0x1.5555555555555p-1030);
    dv_push_nb(d, DBL_MIN);
    dv_push_nb(d, 0x1.fffffffffffffp-1023 * 0.5);
    /* 1 and its ties, binade edges */
    const double u = ldexp(1.0, -F->p);
    dv_push_nb(d, 1.0);
    dv_push_sum_nb(d, 1.0, u);
    dv_push_sum_nb(d, 1.0, 3 * u);
    dv_push_sum_nb(d, 2.0, -u / 2);
    dv_push_sum_nb(d, 2.0, -u);
    dv_push_sum_nb(d, 2.0, -1.5 * u);
    dv_push_nb(d, 1.5);
    dv_push_nb(d, 0.1);
    dv_push_nb(d, 1.0 / 3.0);
    /* powers of two across the range, with their ties just below */
    const long step = 1 + ((long)F->emax - F->emin) / 40;
    for (long e = (long)F->emin - F->p - 3; e <= (long)F->emax + 3; e += step) {
        const double v = pow2_or0(e);
        if (v == 0)
            continue;
        dv_push_nb(d, v);
        const long qe = (e - 1 >= F->emin ? e - 1 : F->emin) - F->p + 1; /* spacing below 2^e */
        dv_push_sum_nb(d, v, -pow2_or0(qe - 1));
        dv_push_sum_nb(d, v, pow2_or0(qe));
    }
}

/* The header's encoding, decoded here (format.h): sign | exponent field | p-1 fraction bits,
 * bias 1-emin; code 0 = zero and subnormals; all-ones code = inf/NaN with infinities; without
 * them only S.1..1.1..1 is NaN. Returns 0 for a pattern the format does not use. */
static int my_decode(const ref_fmt *F, uint64_t b, double *v)
{
    const int fb = F->p - 1;
    const uint64_t fmask = (UINT64_C(1) << fb) - 1;
    const uint64_t emask = (UINT64_C(1) << F->ebits) - 1;
    const bool neg = (b >> (F->width - 1)) & 1u;
    const uint64_t code = (b >> fb) & emask, fr = b & fmask;
    double r;
    if (F->inf && code == emask) {
        r = fr ? NAN : INFINITY;
    } else if (!F->inf && F->nan && code == emask && fr == fmask) {
        r = NAN;
    } else if (code == 0) {
        if (fr && !F->sub)
            return 0;
        r = ldexp((double)fr, F->emin - F->p + 1);
    } else {
        const long e = (long)code - 1 + F->emin;
        if (e > F->emax)
            return 0;
        r = ldexp((double)(fr | (fmask + 1)), (int)(e - fb));
        if (r > F->xmax)
            return 0;
    }
    *v = (neg && !isnan(r)) ? -r : r;
    return 1;
}

static int cmp_double(const void *a, const void *b)
{
    const double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

/* Midpoints m of consecutive positive values a < b, and m +- one binary64 ulp, both signs. */
static void push_midpoints(dvec *d, double a, double b)
{
    const double h = (b - a) / 2;
    const double m = a + h;
    if (b - a == 2 * h && m - a == h && b - m == h && a < m && m < b)
        dv_push_nb(d, m);
}

/* Every bit pattern of a format at most `maxw` bits wide: check the library's decode and
 * encode against my_decode, and collect the values and midpoints as inputs. */
static void encoding_inputs(dvec *d, const srl_format *f, const ref_fmt *F)
{
    const long before = srl_test_failures;
    const uint64_t np = UINT64_C(1) << F->width;
    dvec pos = {0};
    for (uint64_t b = 0; b < np; b++) {
        double v = 0, w = 0;
        const int ok = my_decode(F, b, &v);
        const int st = srl_format_decode(&w, f, b);
        CHECK((st == SRL_OK) == (ok == 1) && (!ok || ref_same(v, w)),
              "format %s: decode(0x%" PRIx64 "): expected %s %a, got status %d value %a",
              f->name, b, ok ? "value" : "rejection", v, st, w);
        if (!ok)
            continue;
        if (!isnan(v)) {
            uint64_t e = 0;
            const int est = srl_format_encode(&e, f, v);
            CHECK(est == SRL_OK && e == b, "format %s: encode(%a) = 0x%" PRIx64 " (status %d), "
                  "expected 0x%" PRIx64, f->name, v, e, est, b);
        }
        dv_push(d, v);
        if (isfinite(v) && !signbit(v))
            dv_push(&pos, v);
    }
    qsort(pos.v, pos.n, sizeof *pos.v, cmp_double);
    for (size_t i = 0; i + 1 < pos.n; i++)
        push_midpoints(d, pos.v[i], pos.v[i + 1]);
    CHECK(pos.n > 0 && pos.v[pos.n - 1] == F->xmax, "format %s: largest decoded value %a, "
          "xmax %a", f->name, pos.n ? pos.v[pos.n - 1] : 0.0, F->xmax);
    free(pos.v);
    char g[200];
    snprintf(g, sizeof g, "%s: every encoding decodes/encodes as format.h says", f->name);
    GROUP(g, before);
}

/* A sample of bit patterns of a wide format (fp32, fp64), with the midpoint to the next value. */
static void sampled_encoding_inputs(dvec *d, const ref_fmt *F, size_t n, uint64_t seed)
{
    trng g = {seed};
    const uint64_t wmask = F->width == 64 ? ~UINT64_C(0) : (UINT64_C(1) << F->width) - 1;
    for (size_t i = 0; i < n; i++) {
        uint64_t b = tr_next(&g) & wmask;
        if (i % 4 == 0) /* bias toward small exponent codes: subnormals and the bottom binades */
            b &= ~(((UINT64_C(1) << (F->ebits - 2)) - 1) << (F->p - 1 + 1));
        double v, w;
        if (!my_decode(F, b, &v))
            continue;
        dv_push(d, v);
        if (!isfinite(v) || fabs(v) >= F->xmax)
            continue;
        if (my_decode(F, b + 1, &w) && isfinite(w))
            push_midpoints(d, fabs(v), fabs(w));
    }
}

/* A value of the format's grid plus a fraction j/2^k of the spacing: exact values, ties and
 * near ties (k <= 53 - p keeps it a binary64 number). */
static double tr_grid(trng *g, const ref_fmt *F)
{
    long e = (long)F->emin - 1 + (long)tr_below(g, (uint64_t)(F->emax - F->emin + 2));
    long qe;
    uint64_t T;
    if (e < F->emin) { /* below xmin */
        qe = F->sub ? (long)F->emin - F->p + 1 : F->emin;
        T = F->sub ? tr_next(g) & ((UINT64_C(1) << (F->p - 1)) - 1) : 0;
    } else {
        qe = e - F->p + 1;
        T = (UINT64_C(1) << (F->p - 1)) | (tr_next(g) & ((UINT64_C(1) << (F->p - 1)) - 1));
        if (e == F->emax && tr_below(g, 4) == 0)
            T = (UINT64_C(1) << F->p) - 1 - (tr_next(g) & 3); /* the top of the range */
    }
    int kmax = 53 - F->p;
    if (kmax > 20)
        kmax = 20;
    const int k = (int)tr_below(g, (uint64_t)kmax + 1);
    uint64_t j;
    switch (tr_below(g, 4)) {
    case 0: j = 0; break;
    case 1: j = k ? UINT64_C(1) << (k - 1) : 0; break; /* tie */
    case 2: j = k ? (UINT64_C(1) << (k - 1)) + (tr_next(g) & 1 ? 1 : (uint64_t)-1) : 0; break;
    default: j = k ? tr_next(g) & ((UINT64_C(1) << k) - 1) : 0; break;
    }
    if (k == 0 || j >= (UINT64_C(1) << k))
        j = 0;
    long ex = qe - k;
    uint64_t M = (T << k) + j;
    while (ex < -1074 && M) { /* keep it exact: drop zero bits, else give up the offset */
        if (M & 1)
            M &= ~UINT64_C(1);
        M >>= 1;
        ex++;
    }
    double x = ldexp((double)M, (int)(ex < -1074 ? -1074 : ex));
    return (tr_next(g) & 1) ? -x : x;
}

/* A mix concentrated on the format: exponents near its range, and its grid. */
static double tr_conc(trng *g, const ref_fmt *F)
{
    if (tr_below(g, 2))
        return tr_double_exp(g, (long)F->emin - F->p - 4, (long)F->emax + 3);
    return tr_grid(g, F);
}

/* ---------------------------------------------------------------------------------------- */
/* MPFR inputs.                                                                             */

typedef struct mvec {
    mpfr_t *v;
    size_t n;
} mvec;

static void mv_init(mvec *m, size_t n)
{
    m->v = malloc(n * sizeof *m->v);
    if (!m->v) {
        fprintf(stderr, "out of memory\n");
        exit(2);
    }
    m->n = n;
}

static void mv_clear(mvec *m)
{
    for (size_t i = 0; i < m->n; i++)
        mpfr_clear(m->v[i]);
    free(m->v);
}

static mpfr_prec_t tr_prec(trng *g)
{
    static const mpfr_prec_t precs[] = {2, 24, 53, 54, 64, 113, 200, 200, 200, 256, 320};
    return precs[tr_below(g, sizeof precs / sizeof precs[0])];
}

/* x = random significand of prec(x) bits times 2^e (MPFR: EXP(x) = e). */
static void tr_mp_random(trng *g, mpfr_t x, long e)
{
    const mpfr_prec_t pr = mpfr_get_prec(x);
    const size_t nw = (size_t)(pr + 63) / 64;
    uint64_t w[8];
    for (size_t i = 0; i < nw; i++)
        w[i] = tr_next(g);
    w[0] |= UINT64_C(1) << 63; /* a leading one */
    if (tr_below(g, 3) == 0) { /* a structured tail: runs of 0 or 1 */
        const size_t i = tr_below(g, nw);
        w[i] = (tr_next(g) & 1) ? ~UINT64_C(0) : 0;
        if (i == 0)
            w[0] |= UINT64_C(1) << 63;
    }
    mpz_t z;
    mpz_init(z);
    mpz_import(z, nw, 1, sizeof w[0], 0, 0, w);
    mpfr_set_z_2exp(x, z, e - (long)(64 * nw), MPFR_RNDZ);
    mpz_clear(z);
}

/* MPFR inputs for a format: random values near its range and far from it, grid values,
 * exact midpoints and midpoints perturbed below binary64 resolution, the thresholds. */
static void mpfr_inputs(mvec *m, const ref_fmt *F, size_t n, uint64_t seed)
{
    trng g = {seed};
    mv_init(m, n);
    mpfr_t t;
    mpfr_init2(t, 400);
    for (size_t i = 0; i < n; i++) {
        mpfr_ptr x = m->v[i];
        mpfr_init2(x, tr_prec(&g));
        const unsigned kind = (unsigned)tr_below(&g, 20);
        if (kind < 8) { /* near the range */
            const long lo = (long)F->emin - F->p - 4, hi = (long)F->emax + 4;
            tr_mp_random(&g, x, lo + (long)tr_below(&g, (uint64_t)(hi - lo + 1)));
        } else if (kind < 11) { /* huge or tiny exponents */
            const long e = 1100 + (long)tr_below(&g, 200000);
            tr_mp_random(&g, x, (tr_next(&g) & 1) ? e : -e);
        } else if (kind < 17) { /* grid value + q/2 (+- q 2^-k) or + a random multiple */
            const double v = fabs(tr_grid(&g, F));
            const long e = v == 0 ? F->emin - 1 : (long)ilogb(v);
            const long qe = (e >= F->emin ? e : F->emin) - F->p + 1;
            const long qe2 = F->sub || e >= F->emin ? qe : F->emin; /* below xmin: spacing xmin */
            mpfr_set_d(t, v, MPFR_RNDN);
            mpfr_t h;
            mpfr_init2(h, 200);
            const unsigned sw = (unsigned)tr_below(&g, 4);
            if (sw <= 1) { /* the midpoint above v */
                mpfr_set_ui_2exp(h, 1, qe2 - 1, MPFR_RNDN);
                mpfr_add(t, t, h, MPFR_RNDN);
            }
            if (sw == 1 || sw == 2) { /* +- q 2^-k, k up to 300 */
                const long k = 1 + (long)tr_below(&g, 300);
                mpfr_set_si_2exp(h, (tr_next(&g) & 1) ? 1 : -1, qe2 - k, MPFR_RNDN);
                mpfr_add(t, t, h, MPFR_RNDN);
            } else if (sw == 3) { /* a random fraction of q with many bits */
                tr_mp_random(&g, h, qe2 - (long)tr_below(&g, 3));
                mpfr_add(t, t, h, MPFR_RNDN);
            }
            mpfr_clear(h);
            mpfr_set(x, t, MPFR_RNDN);
            if (tr_next(&g) & 1)
                mpfr_neg(x, x, MPFR_RNDN);
        } else { /* thresholds, exactly or perturbed far below binary64 resolution */
            mpfr_t h;
            mpfr_init2(h, 2);
            switch (tr_below(&g, 5)) {
            case 0: /* xmax + q/2: rn's overflow threshold */
                mpfr_set_d(t, F->xmax, MPFR_RNDN);
                mpfr_set_ui_2exp(h, 1, (long)F->emax - F->p, MPFR_RNDN);
                mpfr_add(t, t, h, MPFR_RNDN);
                break;
            case 1: mpfr_set_d(t, F->xmax, MPFR_RNDN); break;
            case 2: mpfr_set_ui_2exp(t, 1, (long)F->emin - 1, MPFR_RNDN); break; /* xmin/2 */
            case 3: mpfr_set_ui_2exp(t, 1, (long)F->emin - F->p, MPFR_RNDN); break; /* xsub/2 */
            default: mpfr_set_d(t, F->xmin, MPFR_RNDN); break;
            }
            if (tr_below(&g, 4)) {
                const long k = 40 + (long)tr_below(&g, 250);
                mpfr_set_si_2exp(h, (tr_next(&g) & 1) ? 1 : -1, mpfr_get_exp(t) - k, MPFR_RNDN);
                mpfr_add(t, t, h, MPFR_RNDN);
            }
            mpfr_clear(h);
            mpfr_set(x, t, MPFR_RNDN);
            if (tr_next(&g) & 1)
                mpfr_neg(x, x, MPFR_RNDN);
        }
        if (i < 6) { /* specials */
            switch (i) {
            case 0: mpfr_set_nan(x); break;
            case 1: mpfr_set_inf(x, 1); break;
            case 2: mpfr_set_inf(x, -1); break;
            case 3: mpfr_set_zero(x, 1); break;
            case 4: mpfr_set_zero(x, -1); break;
            default: mpfr_set_ui_2exp(x, 1, -100000, MPFR_RNDN); break;
            }
        }
    }
    mpfr_clear(t);
}

/* run_batch_mpfr's inputs. */
typedef struct batchmp {
    const srl_format *f;
    const mvec *x;
} batchmp;

static void rerun_mpfr(const void *ctx, size_t i, srl_rounding m, srl_round_info *I,
                       double y[4], char *xs, size_t xs_len)
{
    const batchmp *c = ctx;
    if (srl_mpfr_round(&y[0], I, c->x->v[i], c->f, m, NULL) != SRL_OK)
        I->result = NAN;
    mpfr_snprintf(xs, xs_len, "%Ra (%ld bits)", c->x->v[i], (long)mpfr_get_prec(c->x->v[i]));
}

static void run_batch_mpfr(const char *label, const srl_format *f, const ref_fmt *F,
                           const mvec *xs, uint64_t seed)
{
    const long before = srl_test_failures;
    const size_t n = xs->n;
    ref_all *ref = malloc(n * sizeof *ref);
    uint16_t *mask = malloc(n * NM * sizeof *mask);
    if (!ref || !mask) {
        fprintf(stderr, "out of memory\n");
        exit(2);
    }
#pragma omp parallel num_threads(OMP_THREADS)
    {
        ref_ws w;
        ref_ws_init(&w, F);
#pragma omp for schedule(static)
        for (size_t i = 0; i < n; i++) {
            ref_round_mp(&ref[i], &w, F, xs->v[i]);
            for (int md = 0; md < NM; md++) {
                const srl_rounding m = {(srl_mode)md, 0};
                srl_round_info I;
                double y;
                const int st = srl_mpfr_round(&y, &I, xs->v[i], f, m, NULL);
                unsigned b = compare_info(&ref[i], md, &I, st);
                if (!ref_same(y, ref[i].m[md].v))
                    b |= B_ROUND;
                mask[i * NM + (size_t)md] = (uint16_t)b;
            }
        }
        ref_ws_clear(&w);
    }
    const batchmp c = {f, xs};
    const batch_report r = {label, "srl_mpfr_round ", "srl_mpfr_round", "srl_mpfr_round's *y",
                            seed, 0, rerun_mpfr, &c};
    report_batch(&r, f, mask, ref, n);
    GROUP(label, before);
    free(ref);
    free(mask);
}

/* ---------------------------------------------------------------------------------------- */
/* Cross-check: binary64 path vs MPFR path with the same draw, all modes.                  */

#define NXM 9 /* rn rna rz ru rd ro sr sr-eq sr:r=R */

static srl_rounding xmode(int k, size_t i)
{
    if (k < NM)
        return (srl_rounding){(srl_mode)k, 0};
    if (k == NM)
        return (srl_rounding){SRL_SR, 0};
    if (k == NM + 1)
        return (srl_rounding){SRL_SR_EQ, 0};
    return (srl_rounding){SRL_SR_BITS, 1 + (int)(i % 64)};
}

static unsigned compare_two(const srl_round_info *a, const srl_round_info *b, bool above)
{
    unsigned m = 0;
    if (!ref_same(a->result, b->result))
        m |= B_RESULT;
    if (ref_sgn(a->ternary) != ref_sgn(b->ternary))
        m |= B_TERN;
    if (!ref_same(a->rd, b->rd))
        m |= B_RD;
    if (!ref_same(a->ru, b->ru))
        m |= B_RU;
    if (!(a->p_up == b->p_up))
        m |= B_PUP;
    if (!(a->frac == b->frac))
        m |= above ? B_FRAC_ABOVE : B_FRAC;
    if (a->exact != b->exact)
        m |= B_EXACT;
    if (a->overflow != b->overflow)
        m |= B_OVF;
    return m;
}

/* The contract's decision for a stochastic mode given the draw u: away from zero or not.
 * f1 = floor(f 2^64), more = f 2^64 not an integer; a tie (u == f1 with more) is reported as
 * -1 (the extra words decide; checked in the stat suite). */
static int sto_decision(srl_rounding m, uint64_t u, uint64_t f1, bool more, bool inexact)
{
    if (!inexact)
        return 0;
    switch (m.mode) {
    case SRL_SR:
        if (u != f1)
            return u < f1;
        return more ? -1 : 0;
    case SRL_SR_EQ:
        return (int)(u >> 63);
    case SRL_SR_BITS: {
        /* F + Z >= 2^R with F = floor(f 2^R), Z the top R bits of u */
        const unsigned __int128 F = f1 >> (64 - m.r), Z = u >> (64 - m.r);
        return F + Z >= ((unsigned __int128)1 << m.r);
    }
    default:
        return -2;
    }
}

static void cross_check(const char *label, const srl_format *f, const ref_fmt *F, const double *x,
                        size_t n, uint64_t seed, uint64_t rng_seed)
{
    const long before = srl_test_failures;
    uint32_t *mask = calloc(n * NXM, sizeof *mask);
    ref_all *ref = malloc(n * sizeof *ref);
    if (!mask || !ref) {
        fprintf(stderr, "out of memory\n");
        exit(2);
    }
    enum { B_DECIDE = 1 << 16, B_ROUND3 = 1 << 17 };
#pragma omp parallel num_threads(OMP_THREADS)
    {
        ref_ws w;
        ref_ws_init(&w, F);
        mpfr_t xm, tt;
        mpfr_init2(xm, 53);
        mpfr_init2(tt, REF_WPREC);
        srl_rng r[NXM];
        for (int k = 0; k < NXM; k++)
            srl_rng_init(&r[k], SRL_RNG_DEFAULT, rng_seed, (uint64_t)k);
        size_t next = (size_t)-1;
#pragma omp for schedule(static)
        for (size_t i = 0; i < n; i++) {
            if (i != next)
                for (int k = 0; k < NXM; k++)
                    srl_rng_seek(&r[k], i);
            next = i + 1;
            ref_round_d(&ref[i], &w, F, x[i]);
            mpfr_set_d(xm, x[i], MPFR_RNDN);
            /* f1 and `more` of the exact fraction, for the stochastic decisions */
            uint64_t f1 = 0;
            bool more = false;
            if (ref[i].kind == REF_FINITE && ref[i].inexact) {
                mpfr_mul_2ui(tt, w.fr, 64, MPFR_RNDN);
                f1 = (uint64_t)mpfr_get_ui(tt, MPFR_RNDZ);
                more = !mpfr_integer_p(tt);
            }
            for (int k = 0; k < NXM; k++) {
                const srl_rounding m = xmode(k, i);
                srl_rng a = r[k], b = r[k], c = r[k], peek = r[k];
                const uint64_t u = srl_rng_next(&peek);
                srl_round_info Ia, Ib;
                double yb;
                unsigned bits = 0;
                const int sa = srl_round_explain(&Ia, x[i], f, m, &a);
                const int sb = srl_mpfr_round(&yb, &Ib, xm, f, m, &b);
                const double yc = srl_round(x[i], f, m, &c);
                if (sa != SRL_OK || sb != SRL_OK)
                    bits |= B_STATUS;
                else
                    bits |= compare_two(&Ia, &Ib, ref[i].above && ref[i].kind == REF_FINITE);
                if (!ref_same(yb, Ib.result) || !ref_same(yc, Ia.result))
                    bits |= B_ROUND3;
                /* a stochastic mode consumes exactly one draw per value, exact or not */
                if (k >= NM && (a.counter != i + 1 || b.counter != i + 1 || c.counter != i + 1))
                    bits |= B_COUNTER;
                r[k] = peek; /* element i + 1 uses the next draw */
                if (k < NM) {
                    if (!ref_same(Ia.result, ref[i].m[k].v))
                        bits |= B_DECIDE;
                } else if (ref[i].kind == REF_FINITE) {
                    const int d = sto_decision(m, u, f1, more, ref[i].inexact);
                    const double e = d == 1 ? ref[i].awy.v : ref[i].tow.v;
                    if (d >= 0 && !ref_same(Ia.result, e))
                        bits |= B_DECIDE;
                } else if (!ref_same(Ia.result, ref[i].m[SRL_RN].v)) {
                    bits |= B_DECIDE; /* zeros, NaN, inf: as in every mode */
                }
                mask[i * NXM + (size_t)k] = bits;
            }
        }
        mpfr_clear(xm);
        mpfr_clear(tt);
        ref_ws_clear(&w);
    }
    for (size_t i = 0; i < n; i++) {
        for (int k = 0; k < NXM; k++) {
            const uint32_t b = mask[i * NXM + (size_t)k];
            const uint32_t main_b = main_bits(ABOVE_PATHS, &ref[i], b);
            char mn[32];
            srl_rounding_name(mn, sizeof mn, xmode(k, i));
            if (main_b || !b) {
                CHECK(main_b == 0, "%s: format %s mode %s x=%a (input seed 0x%" PRIx64
                      ", index %zu, rng seed 0x%" PRIx64 " stream %d draw %zu): mismatch bits "
                      "0x%x (%s%s%s%s%s%s%s%s%s%s%s)", label, f->name, mn, x[i], seed, i, rng_seed,
                      k, i, main_b, (b & B_RESULT) ? "result " : "",
                      (b & B_TERN) ? "ternary " : "", (b & B_RD) ? "rd " : "",
                      (b & B_RU) ? "ru " : "", (b & B_PUP) ? "p_up " : "",
                      (b & B_FRAC) ? "frac " : "", (b & B_EXACT) ? "exact " : "",
                      (b & B_OVF) ? "overflow " : "", (b & B_COUNTER) ? "draw-count " : "",
                      (b & B_DECIDE) ? "decision-vs-reference " : "",
                      (b & (B_ROUND3 | B_STATUS)) ? "srl_round/status " : "");
            }
            if ((b & B_FRAC_ABOVE) && above_wants_example(ABOVE_PATHS, f->name)) {
                srl_rng a, bb;
                srl_rng_init(&a, SRL_RNG_DEFAULT, rng_seed, (uint64_t)k);
                srl_rng_seek(&a, i);
                bb = a;
                srl_round_info Ia, Ib;
                double yb;
                mpfr_t xm;
                mpfr_init2(xm, 53);
                mpfr_set_d(xm, x[i], MPFR_RNDN);
                if (srl_round_explain(&Ia, x[i], f, xmode(k, i), &a) == SRL_OK &&
                    srl_mpfr_round(&yb, &Ib, xm, f, xmode(k, i), &bb) == SRL_OK)
                {
                    char ex[700];
                    snprintf(ex, sizeof ex, "format %s mode %s x=%a: srl_round_explain frac %a, "
                             "srl_mpfr_round frac %a (top-binade grid: %a)", f->name, mn, x[i],
                             Ia.frac, Ib.frac, ref[i].frac);
                    above_fail(ABOVE_PATHS, f->name, ex);
                }
                mpfr_clear(xm);
            } else if (b & B_FRAC_ABOVE) {
                above_fail(ABOVE_PATHS, f->name, "");
            }
        }
    }
    GROUP(label, before);
    free(mask);
    free(ref);
}

/* ---------------------------------------------------------------------------------------- */
/* Checks of the reference itself, and hand-computed cases straight from the headers.      */

/* The format `text` into *f, its reference into *F and a workspace w for it (ref_ws_clear
 * after): false, after a failed check, when the text does not parse. */
static bool format_ws(srl_format *f, ref_fmt *F, ref_ws *w, const char *text)
{
    if (!srl_test_format(f, text))
        return false;
    ref_fmt_from(F, f);
    ref_ws_init(w, F);
    return true;
}

static void reference_selfchecks(void)
{
    const long before = srl_test_failures;
    /* MPFR's RNDN at the exact midpoint between 0 and its smallest positive number 2^(emin_m-1):
     * observed (MPFR 4.x) to give 0 with ternary -1 (and -0, +1 for the negative), i.e. the
     * tie goes to 0, whether the smallest positive number is xmin (no subnormals) or the smallest
     * subnormal. This is rounding.h's "ties to 0" below xmin without subnormals, and ties to even
     * (0 is even, the smallest subnormal is odd) with them. */
    const int ps[] = {2, 8, 11, 24, 53};
    const int emins[] = {-126, -14, -6, -1022, 3};
    for (size_t a = 0; a < sizeof ps / sizeof ps[0]; a++) {
        for (size_t b = 0; b < sizeof emins / sizeof emins[0]; b++) {
            const long em = emins[b] + 1; /* no subnormals */
            mpfr_t r;
            mpfr_init2(r, ps[a]);
            const mpfr_exp_t e0 = mpfr_get_emin();
            mpfr_set_emin(em);
            const double mid = ldexp(1.0, emins[b] - 1);
            const int t = mpfr_set_d(r, mid, MPFR_RNDN);
            const bool z = mpfr_zero_p(r) && !mpfr_signbit(r) && t < 0;
            const int t2 = mpfr_set_d(r, -mid, MPFR_RNDN);
            const bool z2 = mpfr_zero_p(r) && mpfr_signbit(r) && t2 > 0;
            const int t3 = mpfr_set_d(r, nextafter(mid, INFINITY), MPFR_RNDN);
            const bool up = mpfr_cmp_ui_2exp(r, 1, emins[b]) == 0 && t3 > 0;
            mpfr_set_emin(e0);
            CHECK(z && z2 && up, "MPFR RNDN at the midpoint xmin/2 = %a without subnormals (p=%d): "
                  "expected +-0 (ternary -+1) and xmin just above; got %d %d %d", mid, ps[a], z,
                  z2, up);
            mpfr_clear(r);
        }
    }
    /* Hand-computed cases: each follows from one sentence of rounding.h / format.h. */
    struct hand {
        const char *fmt;
        int mode;
        double x, expect;
    };
    const struct hand H[] = {
        /* e4m3: xmax 448 (S.1111.111 is NaN); 464 is the tie between 448 (even) and 480 */
        {"e4m3", SRL_RN, 464, 448},
        {"e4m3", SRL_RN, 0x1.d000000000001p8, NAN},
        {"e4m3", SRL_RNA, 464, NAN},
        {"e4m3", SRL_RZ, 1e6, 448},
        {"e4m3", SRL_RO, 460, 448},
        {"e4m3", SRL_RU, 449, NAN},
        {"e4m3", SRL_RD, 449, 448},
        {"e4m3", SRL_RD, -449, NAN},
        {"e4m3", SRL_RN, INFINITY, NAN},
        {"e4m3", SRL_RN, 0x1p-10, 0},           /* half the smallest subnormal 2^-9: tie to 0 */
        {"e4m3", SRL_RN, 0x1.8p-9, 0x1p-8},     /* 1.5 xsub: tie to even 2 xsub */
        {"e4m3", SRL_RO, 0x1p-12, 0x1p-9},
        /* fp16: rn overflows at xmax + q/2 = 65520 (xmax's significand is odd) */
        {"fp16", SRL_RN, 65520, INFINITY},
        {"fp16", SRL_RN, 0x1.ffdffffffffffp15, 65504},
        {"fp16", SRL_RZ, 1e300, 65504},
        {"fp16", SRL_RO, 1e300, 65504},
        {"fp16", SRL_RU, -1e300, -65504},
        {"fp16", SRL_RD, -65504.5, -INFINITY},
        {"fp16", SRL_RN, -0x1p-26, -0.0},
        {"fp16", SRL_RU, 0x1p-60, 0x1p-24},
        /* no subnormals: values below xmin choose between 0 and xmin, rn ties to 0 */
        {"p=8,emax=127,subnormals=off", SRL_RN, 0x1p-127, 0},
        {"p=8,emax=127,subnormals=off", SRL_RN, 0x1.0000000000001p-127, 0x1p-126},
        {"p=8,emax=127,subnormals=off", SRL_RO, 0x1p-140, 0x1p-126},
        {"p=8,emax=127,subnormals=off", SRL_RD, -0x1p-140, -0x1p-126},
        {"p=8,emax=127,subnormals=off", SRL_RZ, -0x1.fp-127, -0.0},
        /* saturating: overflow and infinite inputs clamp */
        {"p=3,emax=4,saturate=on", SRL_RN, 1e9, 28},
        {"p=3,emax=4,saturate=on", SRL_RU, INFINITY, 28},
        {"p=3,emax=4,saturate=on", SRL_RD, -INFINITY, -28},
        {"p=3,emax=4,inf=off", SRL_RN, 30, NAN},
        {"p=3,emax=4,inf=off", SRL_RN, 29.9, 28},
    };
    for (size_t i = 0; i < sizeof H / sizeof H[0]; i++) {
        srl_format f;
        ref_fmt F;
        ref_ws w;
        if (!format_ws(&f, &F, &w, H[i].fmt))
            continue;
        ref_all o;
        ref_round_d(&o, &w, &F, H[i].x);
        ref_ws_clear(&w);
        const double lib = srl_round(H[i].x, &f, (srl_rounding){(srl_mode)H[i].mode, 0}, NULL);
        CHECK(ref_same(o.m[H[i].mode].v, H[i].expect) && !o.err,
              "reference: hand case %s %s x=%a: expected %a, reference gives %a", H[i].fmt,
              mode_name[H[i].mode], H[i].x, H[i].expect, o.m[H[i].mode].v);
        CHECK(ref_same(lib, H[i].expect), "library: hand case %s %s x=%a: expected %a, "
              "srl_round gives %a", H[i].fmt, mode_name[H[i].mode], H[i].x, H[i].expect, lib);
    }
    /* The proxy route for MPFR inputs below the emulation's range agrees with mpfr_set_d. */
    trng g = {0x5e1f};
    const char *fmts[] = {"fp32", "bf16", "e4m3", "fp16", "p=8,emax=127,subnormals=off",
                          "p=5,emax=3,emin=-12,subnormals=off,inf=off"};
    for (size_t a = 0; a < sizeof fmts / sizeof fmts[0]; a++) {
        srl_format f;
        ref_fmt F;
        ref_ws w;
        if (!format_ws(&f, &F, &w, fmts[a]))
            continue;
        mpfr_t xm;
        mpfr_init2(xm, 53);
        long bad = 0;
        for (int i = 0; i < 20000; i++) {
            double x;
            if (i < 6) {
                const double s = ldexp(1.0, (int)F.emin_m - 1); /* smallest positive */
                const double c[6] = {s / 2, nextafter(s / 2, 0), nextafter(s / 2, 1), s * 0.75,
                                     nextafter(s, 0), s / 4};
                x = c[i];
            } else {
                x = tr_double_exp(&g, -1074, (long)F.emin_m - 2);
            }
            if (i & 1)
                x = -x;
            ref_all o1, o2;
            ref_round_d(&o1, &w, &F, x);
            mpfr_set_d(xm, x, MPFR_RNDN);
            ref_round_mp(&o2, &w, &F, xm);
            bool same = o1.err == 0 && o2.err == 0 && o1.exact == o2.exact &&
                        ref_same(o1.frac, o2.frac) && ref_same(o1.rd.v, o2.rd.v) &&
                        ref_same(o1.ru.v, o2.ru.v);
            for (int k = 0; k < NM; k++)
                same = same && ref_same(o1.m[k].v, o2.m[k].v) && o1.m[k].t == o2.m[k].t;
            if (!same && bad++ < 3)
                CHECK(same, "reference: proxy route differs from mpfr_set_d for %s x=%a", fmts[a],
                      x);
        }
        srl_test_checks++;
        mpfr_clear(xm);
        ref_ws_clear(&w);
    }
    GROUP("reference self-checks (MPFR tie at 0, hand cases, proxies)", before);
}

/* The derived fields of a format against the header's formulas. */
static void check_format_fields(const srl_format *f, const ref_fmt *F)
{
    CHECK(f->ebits == F->ebits && f->width == F->width && f->xmax == F->xmax &&
          f->xmin == F->xmin && f->xsub == F->xsub && f->u == ldexp(1.0, -F->p),
          "format %s: derived fields ebits %d width %d xmax %a xmin %a xsub %a u %a; format.h "
          "gives %d %d %a %a %a %a", f->name, f->ebits, f->width, f->xmax, f->xmin, f->xsub, f->u,
          F->ebits, F->width, F->xmax, F->xmin, F->xsub, ldexp(1.0, -F->p));
}

/* ---------------------------------------------------------------------------------------- */

static void test_format(const srl_format *f, size_t n_whole, size_t n_conc, size_t n_mpfr,
                        uint64_t seed, bool is_preset)
{
    ref_fmt F;
    ref_fmt_from(&F, f);
    check_format_fields(f, &F);
    char label[300];
    dvec d = {0};
    boundary_inputs(&d, &F);
    snprintf(label, sizeof label, "%s: boundary cases (%zu inputs)", f->name, d.n);
    run_batch(label, f, &F, d.v, d.n, 0);
    d.n = 0;
    if (F.width <= (is_preset ? 19 : 16)) {
        encoding_inputs(&d, f, &F);
        snprintf(label, sizeof label, "%s: every encoding, midpoints and midpoints +-1 ulp "
                 "(%zu inputs)", f->name, d.n);
        run_batch(label, f, &F, d.v, d.n, 0);
    } else if (is_preset && F.width <= 64) {
        const size_t ns = (size_t)srl_test_n(1L << 17);
        sampled_encoding_inputs(&d, &F, ns, seed ^ 0xe1c);
        snprintf(label, sizeof label, "%s: %zu sampled encodings, their midpoints +-1 ulp "
                 "(%zu inputs)", f->name, ns, d.n);
        run_batch(label, f, &F, d.v, d.n, seed ^ 0xe1c);
    }
    d.n = 0;
    if (n_whole) {
        trng g = {seed};
        for (size_t i = 0; i < n_whole; i++)
            dv_push(&d, tr_double_whole(&g));
        snprintf(label, sizeof label, "%s: %zu random binary64 over the whole range", f->name,
                 n_whole);
        run_batch(label, f, &F, d.v, d.n, seed);
        d.n = 0;
    }
    if (n_conc) {
        trng g = {seed ^ 0xc0c};
        for (size_t i = 0; i < n_conc; i++)
            dv_push(&d, tr_conc(&g, &F));
        snprintf(label, sizeof label, "%s: %zu random binary64 near the range and on the grid",
                 f->name, n_conc);
        run_batch(label, f, &F, d.v, d.n, seed ^ 0xc0c);
        d.n = 0;
    }
    free(d.v);
    if (n_mpfr) {
        mvec m;
        mpfr_inputs(&m, &F, n_mpfr, seed ^ 0x3f);
        snprintf(label, sizeof label, "%s: srl_mpfr_round on %zu MPFR inputs of 2..320 bits",
                 f->name, n_mpfr);
        run_batch_mpfr(label, f, &F, &m, seed ^ 0x3f);
        mv_clear(&m);
    }
}

/* A random valid custom format. */
static void random_format(srl_format *f, trng *g)
{
    for (;;) {
        const int p = 2 + (int)tr_below(g, 52);
        int emax, emin;
        const unsigned r = (unsigned)tr_below(g, 10);
        if (r < 4)
            emax = 1 + (int)tr_below(g, 20);
        else if (r < 7)
            emax = 20 + (int)tr_below(g, 300);
        else if (r < 9)
            emax = 300 + (int)tr_below(g, 724);
        else
            emax = -30 + (int)tr_below(g, 31);
        const unsigned s = (unsigned)tr_below(g, 4);
        bool inf = tr_below(g, 2) != 0;
        if (s < 2) {
            emin = 1 - emax;
        } else if (s == 2) {
            const int lo = -1074 + p - 1 > emax - 2000 ? -1074 + p - 1 : emax - 2000;
            emin = lo + (int)tr_below(g, (uint64_t)(emax - lo + 1));
        } else { /* full exponent field without infinities (e4m3-like) */
            const int k = 2 + (int)tr_below(g, 10);
            emin = emax + 2 - (1 << k);
            inf = false;
        }
        const bool sub = tr_below(g, 2) != 0, sat = tr_below(g, 4) == 0;
        if (emin > emax || (long)emin - p + 1 < -1074)
            continue;
        srl_err err;
        /* a third of the saturating formats without infinities have no NaN either (OCP FP6,
         * FP4): every pattern is a number */
        const bool nonan = !inf && sat && tr_below(g, 3) == 0;
        char spec[160];
        snprintf(spec, sizeof spec, "p=%d,emax=%d,emin=%d,subnormals=%s,inf=off,nan=off,"
                 "saturate=on", p, emax, emin, sub ? "on" : "off");
        const int st = nonan ? srl_format_parse(f, spec, &err)
                             : srl_format_make(f, p, emax, emin, sub, inf, sat, &err);
        CHECK(st == SRL_OK, "srl_format_make(p=%d emax=%d emin=%d sub=%d inf=%d sat=%d nan=%d): %s",
              p, emax, emin, sub, inf, sat, !nonan, err.msg);
        if (st == SRL_OK)
            return;
    }
}

int main(void)
{
    setvbuf(stdout, NULL, _IOLBF, 0);
    const double t0 = now();
    printf("test_oracle_round: MPFR %s (TLS %s), %d threads, SRL_TEST_SCALE=%s\n",
           mpfr_get_version(), mpfr_buildopt_tls_p() ? "yes" : "no", OMP_THREADS,
           getenv("SRL_TEST_SCALE") ? getenv("SRL_TEST_SCALE") : "1");

    reference_selfchecks();

    /* presets */
    const size_t n_whole = (size_t)srl_test_n(1000000), n_conc = (size_t)srl_test_n(500000);
    const size_t n_mpfr = (size_t)srl_test_n(100000);
    for (size_t i = 0; i < srl_format_preset_count(); i++) {
        const double t = now();
        const srl_format *f = srl_format_preset(i);
        test_format(f, n_whole, n_conc, n_mpfr, UINT64_C(0x0c1e0000) + i, true);
        printf("  [%s: %.1f s]\n", f->name, now() - t);
    }

    /* random custom formats: 10^5 inputs each (a quarter over the whole binary64 range) */
    {
        const double t = now();
        trng g = {0xc057};
        const int nf = 32;
        for (int k = 0; k < nf; k++) {
            srl_format f;
            random_format(&f, &g);
            test_format(&f, (size_t)srl_test_n(25000), (size_t)srl_test_n(75000),
                        (size_t)srl_test_n(10000), UINT64_C(0xc0570000) + (uint64_t)k, false);
        }
        printf("  [%d custom formats: %.1f s]\n", nf, now() - t);
    }

    /* binary64 path vs MPFR path, same draws: 10^6 inputs over the presets and 8 customs */
    {
        const double t = now();
        const size_t per = (size_t)srl_test_n(100000);
        trng g = {0xc4055};
        dvec d = {0};
        for (size_t i = 0; i < srl_format_preset_count() + 8; i++) {
            srl_format fc;
            const srl_format *f;
            if (i < srl_format_preset_count()) {
                f = srl_format_preset(i);
            } else {
                random_format(&fc, &g);
                f = &fc;
            }
            ref_fmt F;
            ref_fmt_from(&F, f);
            const size_t n = i < srl_format_preset_count() ? per : per * 3 / 8;
            d.n = 0;
            trng gi = {UINT64_C(0xc4050000) + i};
            for (size_t j = 0; j < n; j++)
                dv_push(&d, (j % 3 == 0) ? tr_double_whole(&gi) : tr_conc(&gi, &F));
            char label[300];
            snprintf(label, sizeof label, "%s: srl_round/explain vs srl_mpfr_round, same draws, "
                     "%zu inputs x %d modes", f->name, n, NXM);
            cross_check(label, f, &F, d.v, d.n, UINT64_C(0xc4050000) + i, UINT64_C(0x5eed) + i);
        }
        free(d.v);
        printf("  [cross-check: %.1f s]\n", now() - t);
    }

    above_report();
    printf("total %.1f s\n", now() - t0);
    mpfr_free_cache();
    TEST_END();
}
