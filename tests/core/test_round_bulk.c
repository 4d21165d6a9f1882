/* tests/core/test_round_bulk.c: bulk rounding against one-at-a-time rounding
 * (include/srlab/rounding.h), suite `unit`.
 *
 * Contract under test: srl_round_array, srl_round_array_float and srl_round_array_d2f give, for
 * element i, exactly srl_round(x[i]) with draw rng->counter + i (reproduced here by srl_round on
 * a copy of the stream positioned at the starting counter, which uses draw counter, counter+1,
 * ... in order), bit for bit, whatever n, the format, the mode, the stream kind, the thread count
 * and the aliasing y == x; they add n to the counter for stochastic modes and leave a
 * deterministic-mode stream alone; NULL rng with a stochastic mode is SRL_EINVAL; the float
 * functions reject formats that are not subsets of binary32. Also srl_round_explain against
 * srl_round.
 *
 * Inputs mix every case the rounding rule distinguishes: random normal values, grid points, exact
 * ties (normal and subnormal), the subnormal range, values far below the grid (f longer than 64
 * bits, so exact sr may consult srl_rng_extra), binary64 subnormals, the overflow thresholds
 * (xmax, the rn tie xmax + q/2 and its neighbours, the next grid point xmax + q), the
 * neighbourhood of xmin, NaN, +-inf, +-0 and random bit patterns. Exact-boundary inputs built
 * from known draws (sr's U = f and U = f + 2^-64, the tail word, sr:r=R's carry) are checked
 * against a direct reading of the rule as well. Everything is an equality; nothing is statistical.
 * Seeds are fixed and printed with every failure. */
#include <float.h>
#include <math.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "srlab/format.h"
#include "srlab/rng.h"
#include "srlab/rounding.h"
#include "../testutil.h"

#define SEED UINT64_C(0x5eed0b01)

static const srl_rng_kind kinds[2] = {SRL_RNG_PCG64, SRL_RNG_PCG32};
static const char *const kind_names[2] = {"pcg64", "pcg32"};

static const char *const format_specs[] = {
    "bf16", "fp16", "fp32", "tf32", "e4m3", "e5m2", "fp64",
    "bf16,subnormals=off",
    "e4m3,saturate=on",
    "fp16,saturate=on",
    "p=5,emax=15,inf=off",                 /* no infinities, exponent field not full */
    "p=2,emax=3",                          /* tiny p */
    "p=3,emax=4,subnormals=off,inf=off",
    "fp32,subnormals=off",
    "p=4,emax=10,emin=-140",               /* emin below binary32's, still a binary32 subset */
    "p=10,emax=20,emin=-1060",             /* emin below binary64's normal range */
    "p=2,emax=0,emin=-1073",               /* spacing 2^-1074 */
    "p=52,emax=1023",                      /* one bit below binary64 */
    "p=53,emax=100,emin=-100",             /* binary64 precision, narrow range */
};
#define NFORMATS (sizeof format_specs / sizeof format_specs[0])

static const char *const mode_specs[] = {"rn", "rna", "rz", "ru", "rd", "ro", "sr", "sr-eq",
                                         "sr:r=1", "sr:r=2", "sr:r=7", "sr:r=16", "sr:r=52",
                                         "sr:r=64"};
#define NMODES (sizeof mode_specs / sizeof mode_specs[0])

static srl_format formats[NFORMATS];
static srl_rounding modes[NMODES];

static uint32_t fbits(float x)
{
    uint32_t b;
    memcpy(&b, &x, 4);
    return b;
}

static bool same_f(float a, float b)
{
    return (isnan(a) && isnan(b)) || fbits(a) == fbits(b);
}

static int setup(void)
{
    srl_err err = {{0}};
    for (size_t i = 0; i < NFORMATS; i++) {
        const int st = srl_format_parse(&formats[i], format_specs[i], &err);
        CHECK(st == SRL_OK, "format \"%s\": %s", format_specs[i], err.msg);
        if (st)
            return st;
    }
    for (size_t i = 0; i < NMODES; i++) {
        const int st = srl_rounding_parse(&modes[i], mode_specs[i], &err);
        CHECK(st == SRL_OK, "mode \"%s\": %s", mode_specs[i], err.msg);
        if (st)
            return st;
    }
    return SRL_OK;
}

/* binary32 subset, from the definition "every value of f is a binary32 number": binary32's
 * finest spacing is 2^-149 and its precision 24, so f qualifies iff p <= 24, xmax <= FLT_MAX
 * (emax <= 127 given p <= 24) and f's finest spacing 2^(emin-p+1) (of its subnormals, or of its
 * lowest normal binade when it has none) is at least 2^-149. */
static bool expect_fits_float(const srl_format *f)
{
    return f->p <= 24 && f->emax <= 127 && f->emin - f->p + 1 >= -149;
}

/* ---- inputs ---- */

static double clamp_ldexp(double m, long e)
{
    if (e > 1100)
        e = 1100;
    if (e < -1200)
        e = -1200;
    return ldexp(m, (int)e);
}

/* One input for format f from two random words. */
static double gen_one(const srl_format *f, uint64_t u, uint64_t v)
{
    const int p = f->p, emin = f->emin, emax = f->emax;
    const double m52 = (double)(v >> 12) * 0x1p-52; /* [0, 1) with 52 bits */
    const long e = emin + (long)((u >> 8) % (uint64_t)(emax - emin + 1));
    const uint64_t half = UINT64_C(1) << (p - 1);
    const uint64_t M = half + (v % half); /* a normal significand */
    const double q_top = ldexp(1.0, emax - p + 1);
    double x;
    switch ((u >> 1) % 13) {
    case 0:
    case 1: /* a random value in the normal range */
        x = clamp_ldexp(1.0 + m52, e);
        break;
    case 2: /* a grid point */
        x = clamp_ldexp((double)M, e - p + 1);
        if (x > f->xmax)
            x = f->xmax;
        break;
    case 3: /* an exact tie between normal neighbours, (M + 1/2) 2^(e-p+1) */
        x = (e - p >= -1074 && p <= 52) ? ldexp((double)(2 * M + 1), (int)(e - p))
                                        : clamp_ldexp(1.0 + m52, e);
        break;
    case 4: /* the subnormal range: (0, xmin) */
        x = clamp_ldexp((double)(v >> 11), (long)emin - 53);
        break;
    case 5: /* an exact tie in the subnormal range, (k + 1/2) 2^(emin-p+1) */
        x = (emin - p >= -1074 && p <= 52)
                ? ldexp((double)(2 * (v % half) + 1), emin - p)
                : clamp_ldexp((double)(v >> 11), (long)emin - 53);
        break;
    case 6: /* far below the grid: f has more than 64 bits */
        x = clamp_ldexp(1.0 + m52, (long)emin - p + 1 - 64 - (long)(u % 150));
        break;
    case 7: { /* a binary64 subnormal */
        const uint64_t b = v >> (12 + (u % 52));
        x = b ? ldexp((double)b, -1074) : 0x1p-1074;
        break;
    }
    case 8: { /* around the overflow threshold */
        const double t[] = {f->xmax,
                            f->xmax + q_top / 2,
                            nextafter(f->xmax + q_top / 2, 0),
                            nextafter(f->xmax + q_top / 2, INFINITY),
                            f->xmax + q_top,
                            nextafter(f->xmax, INFINITY),
                            nextafter(f->xmax, 0),
                            f->xmax + q_top / 4,
                            f->xmax * 2,
                            DBL_MAX,
                            f->xmax - q_top / 2,
                            f->xmax + 3 * q_top / 2};
        x = t[v % (sizeof t / sizeof t[0])];
        break;
    }
    case 9: { /* around xmin */
        const double t[] = {f->xmin,
                            nextafter(f->xmin, 0),
                            nextafter(f->xmin, INFINITY),
                            f->xmin - f->xsub / 2,
                            f->xmin - f->xsub,
                            f->xsub,
                            f->xsub / 2,
                            f->xsub * 1.5,
                            nextafter(f->xsub / 2, 0),
                            f->xmin / 2,
                            nextafter(f->xmin / 2, INFINITY),
                            f->xmin * 0.75};
        x = t[v % (sizeof t / sizeof t[0])];
        break;
    }
    case 10: { /* specials */
        const double t[] = {NAN, INFINITY, -INFINITY, 0.0, -0.0, 1.0};
        x = t[v % 6];
        break;
    }
    default: /* any binary64 bit pattern */
        memcpy(&x, &v, 8);
        break;
    }
    return (u >> 63) ? -x : x;
}

static void gen_inputs(double *x, size_t n, const srl_format *f, uint64_t seed)
{
    srl_rng g;
    srl_rng_init(&g, SRL_RNG_PCG64, seed, 0x1a2b);
    for (size_t i = 0; i < n; i++) {
        const uint64_t u = srl_rng_next(&g), v = srl_rng_next(&g);
        x[i] = gen_one(f, u, v);
    }
}

/* Float inputs: the double inputs converted (whatever they become), mixed with random binary32
 * bit patterns and binary32 subnormals (below a coarse format's grid by far more than 64 bits). */
static void gen_inputs_float(float *x, size_t n, const srl_format *f, uint64_t seed)
{
    srl_rng g;
    srl_rng_init(&g, SRL_RNG_PCG64, seed, 0x3c4d);
    for (size_t i = 0; i < n; i++) {
        const uint64_t u = srl_rng_next(&g), v = srl_rng_next(&g);
        uint32_t b;
        switch (u % 8) {
        case 0: /* any pattern */
            b = (uint32_t)v;
            memcpy(&x[i], &b, 4);
            break;
        case 1: /* a binary32 subnormal */
            b = ((uint32_t)v >> (9 + (u >> 3) % 23)) | (uint32_t)(u >> 63 << 31);
            memcpy(&x[i], &b, 4);
            break;
        default:
            x[i] = (float)gen_one(f, u, v);
            break;
        }
    }
}

/* ---- the comparison ---- */

typedef enum { FN_D2D, FN_F2F, FN_D2F } fn_kind;
static const char *const fn_names[3] = {"srl_round_array", "srl_round_array_float",
                                        "srl_round_array_d2f"};

static const uint64_t starts[] = {0u, 1u, 12345u, (UINT64_C(1) << 40) + 3,
                                  (UINT64_C(1) << 63) + 7};

/* Round x (double or float, per fn) into y with the bulk function and compare with srl_round;
 * returns the number of mismatching elements (reported once). `alias` runs in place. */
static long run_case(fn_kind fn, const srl_format *f, srl_rounding m, int k, size_t n,
                     uint64_t c0, const void *xin, bool alias)
{
    char mname[32];
    srl_rounding_name(mname, sizeof mname, m);
    const bool sto = srl_rounding_is_stochastic(m);
    const size_t esz = fn == FN_D2D ? sizeof(double) : sizeof(float);
    const size_t isz = fn == FN_F2F ? sizeof(float) : sizeof(double);
    /* exact sizes, so that an overrun is an error under AddressSanitizer; in place: a copy of x */
    void *y = malloc(n ? n * (alias ? isz : esz) : 1);
    const void *xc = xin;
    if (alias) {
        memcpy(y, xin, n * isz);
        xc = y;
    }
    srl_rng r;
    srl_rng_init(&r, kinds[k], SEED, 77u);
    srl_rng_seek(&r, c0);
    const srl_rng r0 = r;
    int st;
    switch (fn) {
    case FN_D2D:
        st = srl_round_array((double *)y, (const double *)xc, n, f, m, &r);
        break;
    case FN_F2F:
        st = srl_round_array_float((float *)y, (const float *)xc, n, f, m, &r);
        break;
    default:
        st = srl_round_array_d2f((float *)y, (const double *)xin, n, f, m, &r);
        break;
    }
    long bad = 0;
    CHECK(st == SRL_OK, "%s %s %s %s n=%zu: status %d", fn_names[fn], f->name, mname,
          kind_names[k], n, st);
    if (st != SRL_OK) {
        free(y);
        return 1;
    }
    /* the counter: +n for stochastic modes, unchanged otherwise; the stream positioned there */
    const uint64_t c1 = sto ? c0 + n : c0;
    const uint64_t next = srl_rng_next(&r);
    const bool pos_ok = r.counter == c1 + 1 && next == srl_rng_draw_at(&r0, c1);
    CHECK(pos_ok, "%s %s %s %s n=%zu seed=%#llx c0=%#llx: counter %#llx after, want %#llx (or "
          "the stream is not positioned at it)",
          fn_names[fn], f->name, mname, kind_names[k], n, (unsigned long long)SEED,
          (unsigned long long)c0, (unsigned long long)(r.counter - 1), (unsigned long long)c1);
    bad += !pos_ok;
    /* element by element against srl_round with draw c0 + i */
    srl_rng ref = r0;
    for (size_t i = 0; i < n; i++) {
        const double xi = fn == FN_F2F ? (double)((const float *)xin)[i] : ((const double *)xin)[i];
        const double want = srl_round(xi, f, m, &ref);
        bool ok;
        double got;
        if (fn == FN_D2D) {
            got = ((double *)y)[i];
            ok = srl_test_same(got, want);
        } else {
            const float g = ((float *)y)[i];
            got = g;
            ok = same_f(g, (float)want);
        }
        if (!ok) {
            if (bad++ == 0)
                CHECK(ok, "%s %s %s %s n=%zu%s seed=%#llx c0=%#llx: x[%zu] = %a -> %a, srl_round "
                      "gives %a (draw %#llx at index %#llx)",
                      fn_names[fn], f->name, mname, kind_names[k], n, alias ? " (y == x)" : "",
                      (unsigned long long)SEED, (unsigned long long)c0, i, xi, got, want,
                      (unsigned long long)(sto ? srl_rng_draw_at(&r0, c0 + i) : 0),
                      (unsigned long long)(c0 + i));
        }
    }
    if (bad > 1)
        CHECK(bad == 0, "  ... %ld elements differ in that call", bad);
    /* a deterministic mode with a NULL stream gives the same result */
    if (!sto && !alias) {
        void *y2 = malloc(n ? n * esz : 1);
        switch (fn) {
        case FN_D2D: st = srl_round_array((double *)y2, (const double *)xin, n, f, m, NULL); break;
        case FN_F2F: st = srl_round_array_float((float *)y2, (const float *)xin, n, f, m, NULL); break;
        default: st = srl_round_array_d2f((float *)y2, (const double *)xin, n, f, m, NULL); break;
        }
        const bool same = st == SRL_OK && memcmp(y, y2, n * esz) == 0;
        CHECK(same, "%s %s %s n=%zu: NULL rng gives status %d or other bits", fn_names[fn],
              f->name, mname, n, st);
        bad += !same;
        free(y2);
    }
    free(y);
    return bad;
}

static const size_t lengths[] = {0, 1, 7, 8, 9, 511, 512, 513, 1537};
#define NLENGTHS (sizeof lengths / sizeof lengths[0])

/* Every format x mode x kind x function, the small and tile-boundary lengths. */
static void test_matrix(void)
{
    for (int fn = 0; fn < 3; fn++) {
        const long before = srl_test_failures;
        long cases = 0;
        for (size_t fi = 0; fi < NFORMATS; fi++) {
            const srl_format *f = &formats[fi];
            if (fn != FN_D2D && !srl_format_fits_float(f))
                continue;
            const size_t nmax = lengths[NLENGTHS - 1];
            double *xd = malloc(nmax * sizeof *xd);
            float *xf = malloc(nmax * sizeof *xf);
            gen_inputs(xd, nmax, f, SEED + fi);
            gen_inputs_float(xf, nmax, f, SEED + fi);
            for (size_t mi = 0; mi < NMODES; mi++) {
                for (int k = 0; k < 2; k++) {
                    for (size_t li = 0; li < NLENGTHS; li++) {
                        const size_t n = lengths[li];
                        const uint64_t c0 = starts[(li + mi + (size_t)k) % 5];
                        /* different slices of the inputs for different lengths */
                        const size_t off = (li * 131) % (nmax - n + 1);
                        const void *x = fn == FN_F2F ? (const void *)(xf + off)
                                                     : (const void *)(xd + off);
                        (void)run_case((fn_kind)fn, f, modes[mi], k, n, c0, x, false);
                        if (fn != FN_D2F && (n == 9 || n == 513))
                            (void)run_case((fn_kind)fn, f, modes[mi], k, n, c0, x, true);
                        cases++;
                    }
                }
            }
            free(xd);
            free(xf);
        }
        char name[160];
        snprintf(name, sizeof name, "%s == srl_round element-wise: %ld cases (formats x modes x "
                 "kinds x lengths 0..1537), aliasing", fn_names[fn], cases);
        GROUP(name, before);
    }
}

/* Long arrays (above SRL_BULK_OMP_MIN, so OpenMP splits them), every mode, both kinds. */
static void test_long(void)
{
    const long before = srl_test_failures;
    const size_t n = 100003;
    const char *fmt_for[3][2] = {{"bf16", "p=10,emax=20,emin=-1060"},
                                 {"fp16", "p=4,emax=10,emin=-140"},
                                 {"e4m3", "tf32"}};
    double *xd = malloc(n * sizeof *xd);
    float *xf = malloc(n * sizeof *xf);
    for (int fn = 0; fn < 3; fn++) {
        for (int j = 0; j < 2; j++) {
            const srl_format *f = NULL;
            for (size_t fi = 0; fi < NFORMATS; fi++)
                if (strcmp(format_specs[fi], fmt_for[fn][j]) == 0)
                    f = &formats[fi];
            if (!f)
                continue;
            gen_inputs(xd, n, f, SEED ^ 0xabc);
            gen_inputs_float(xf, n, f, SEED ^ 0xabc);
            for (size_t mi = 0; mi < NMODES; mi++) {
                const int k = (int)((mi + (size_t)j) % 2);
                const uint64_t c0 = starts[(mi + (size_t)fn) % 5];
                const void *x = fn == FN_F2F ? (const void *)xf : (const void *)xd;
                (void)run_case((fn_kind)fn, f, modes[mi], k, n, c0, x, false);
                if (fn != FN_D2F && mi % 3 == 0)
                    (void)run_case((fn_kind)fn, f, modes[mi], 1 - k, n, c0, x, true);
            }
        }
    }
    free(xd);
    free(xf);
    GROUP("n = 100003 (OpenMP-split): every mode, both kinds, the three functions, aliasing",
          before);
}

/* Arrays so long that each OpenMP block (at the default thread count on two cores) holds more
 * than 16 MiB of binary64 output, the size above which an implementation may switch to
 * streaming stores with an aligned start; y both 64-byte aligned and misaligned by one element,
 * and in place. The reference is computed once per (mode, kind) and shared by the variants. */
static void test_huge(void)
{
    const long before = srl_test_failures;
    const size_t n = ((size_t)1 << 22) + 37;
    const srl_format *f = &formats[0]; /* bf16 */
    const srl_rounding ms[] = {{SRL_RN, 0}, {SRL_SR, 0}, {SRL_SR_BITS, 16}};
    const size_t bytes = ((n + 8) * sizeof(double) + 63) / 64 * 64;
    double *x = malloc(n * sizeof *x), *want = malloc(n * sizeof *want);
    double *buf = aligned_alloc(64, bytes);
    if (!x || !want || !buf) {
        CHECK(0, "cannot allocate %zu bytes for the long arrays", 3 * bytes);
        free(x), free(want), free(buf);
        return;
    }
    gen_inputs(x, n, f, SEED + 99);
    for (size_t mi = 0; mi < sizeof ms / sizeof ms[0]; mi++) {
        const srl_rounding m = ms[mi];
        const bool sto = srl_rounding_is_stochastic(m);
        for (int k = 0; k < (sto ? 2 : 1); k++) {
            srl_rng r0;
            srl_rng_init(&r0, kinds[k], SEED, 123u);
            srl_rng_seek(&r0, 1u << 20);
            srl_rng ref = r0;
            for (size_t i = 0; i < n; i++)
                want[i] = srl_round(x[i], f, m, &ref);
            for (int variant = 0; variant < 3; variant++) {
                /* 0: y aligned to 64 bytes; 1: y one element past alignment; 2: y == x (aligned) */
                double *y = variant == 1 ? buf + 1 : buf;
                if (variant == 2)
                    memcpy(y, x, n * sizeof *y);
                srl_rng a = r0;
                const int st = srl_round_array(y, variant == 2 ? y : x, n, f, m, &a);
                size_t bad = n, nbad = 0;
                for (size_t i = 0; i < n; i++)
                    if (!srl_test_same(y[i], want[i]))
                        nbad++, bad = bad < n ? bad : i;
                char mn[32];
                CHECK(st == SRL_OK && nbad == 0 && a.counter == r0.counter + (sto ? n : 0),
                      "bf16 %s %s n=%zu y %s seed=%#llx: status %d, %zu elements differ, first "
                      "x[%zu] = %a -> %a, srl_round %a; counter %#llx",
                      srl_rounding_name(mn, sizeof mn, m), kind_names[k], n,
                      variant == 0 ? "aligned" : variant == 1 ? "misaligned" : "== x",
                      (unsigned long long)SEED, st, nbad, bad < n ? bad : 0,
                      x[bad < n ? bad : 0], y[bad < n ? bad : 0],
                      want[bad < n ? bad : 0], (unsigned long long)a.counter);
            }
        }
    }
    free(x);
    free(want);
    free(buf);
    GROUP("n = 2^22 + 37 (blocks above 16 MiB): rn, sr, sr:r=16, y aligned, misaligned, == x",
          before);
}

/* ---- exact boundaries built from known draws ---- */

/* sr decides "away iff U < f", U = 0.u w1 w2 ... (u the element's draw, wk = srl_rng_extra(rng,
 * index, k-1)). Where a draw u < 2^52 occurs, three inputs below the format's smallest spacing
 * q = 2^(emin-p+1) pin the rule down:
 *   A: f = (2u + 1) 2^-65: f1 = u, one more bit 1, so away iff w1 < 2^63;
 *   B: f = u 2^-64 exactly: U >= f always, so toward zero;
 *   C: f = (u + 1) 2^-64: U < f always, so away (to q).
 * Such inputs take the reference path of the bulk functions. */
static void test_exact_boundaries(void)
{
    const long before = srl_test_failures;
    const char *fmts[] = {"bf16", "e4m3", "p=5,emax=15,inf=off", "fp16"};
    for (size_t fi = 0; fi < sizeof fmts / sizeof fmts[0]; fi++) {
        const srl_format *f = NULL;
        for (size_t j = 0; j < NFORMATS; j++)
            if (strcmp(format_specs[j], fmts[fi]) == 0)
                f = &formats[j];
        if (!f)
            continue;
        const int qe = f->emin - f->p + 1;
        const double q = ldexp(1.0, qe);
        for (int k = 0; k < 2; k++) {
            srl_rng r;
            srl_rng_init(&r, kinds[k], SEED + 5, 3u);
            const uint64_t c0 = 1000u;
            srl_rng_seek(&r, c0);
            const srl_rng r0 = r;
            /* the array runs until 36 draws below 2^52 (one in 4096) have occurred */
            size_t n = 0, cap = 1 << 20;
            double *x = malloc(cap * sizeof *x), *want = malloc(cap * sizeof *want);
            bool *known = malloc(cap * sizeof *known);
            srl_rng scan = r0;
            int hits = 0;
            const srl_rounding sr = {SRL_SR, 0};
            while (hits < 36 && n < cap) {
                const uint64_t idx = scan.counter, u = srl_rng_next(&scan);
                const double sgn = (n & 1) ? -1.0 : 1.0;
                known[n] = false;
                x[n] = sgn * (1.0 + (double)(u >> 11) * 0x1p-53); /* filler: any value */
                if (u < (UINT64_C(1) << 52)) {
                    switch (hits % 3) {
                    case 0: { /* A */
                        x[n] = sgn * ldexp((double)(2 * u + 1), qe - 65);
                        const uint64_t w1 = srl_rng_extra(&r0, idx, 0);
                        want[n] = sgn * (w1 < (UINT64_C(1) << 63) ? q : 0.0);
                        break;
                    }
                    case 1: /* B */
                        x[n] = sgn * ldexp((double)u, qe - 64);
                        want[n] = sgn * 0.0;
                        break;
                    default: /* C */
                        x[n] = sgn * ldexp((double)(u + 1), qe - 64);
                        want[n] = sgn * q;
                        break;
                    }
                    known[n] = true;
                    hits++;
                }
                n++;
            }
            CHECK(hits == 36, "%s: only %d draws below 2^52 in %zu", kind_names[k], hits, n);
            /* bulk, double and (for binary32 subsets) double-to-float, against the rule */
            double *y = malloc(n * sizeof *y);
            float *yf = malloc(n * sizeof *yf);
            srl_rng a = r0;
            int st = srl_round_array(y, x, n, f, sr, &a);
            const bool ff = srl_format_fits_float(f);
            srl_rng b = r0;
            int st2 = ff ? srl_round_array_d2f(yf, x, n, f, sr, &b) : SRL_OK;
            CHECK(st == SRL_OK && st2 == SRL_OK, "%s %s: status %d %d", f->name, kind_names[k],
                  st, st2);
            srl_rng ref = r0;
            long bad = 0;
            for (size_t i = 0; i < n && st == SRL_OK && st2 == SRL_OK; i++) {
                const double s = srl_round(x[i], f, sr, &ref);
                bool ok = srl_test_same(y[i], s) && (!ff || same_f(yf[i], (float)s));
                if (known[i])
                    ok = ok && srl_test_same(s, want[i]);
                if (!ok && bad++ < 3)
                    CHECK(ok, "%s sr %s seed=%#llx: x[%zu] = %a (draw index %#llx): bulk %a, d2f "
                          "%a, srl_round %a, rule %a",
                          f->name, kind_names[k], (unsigned long long)(SEED + 5), i, x[i],
                          (unsigned long long)(c0 + i), y[i], ff ? (double)yf[i] : 0.0, s,
                          known[i] ? want[i] : s);
            }
            free(y);
            free(yf);
            free(x);
            free(want);
            free(known);
        }
    }
    GROUP("exact boundaries from known draws, reference path: sr with U = f, U = f + 2^-64 and "
          "the tail word",
          before);
}

/* The same idea in the normal range, where the bulk functions take their integer fast path. An
 * input x = (T 2^s + g) 2^(qn-s), T a normal significand, has s fraction bits below the grid
 * (s = 53-p for binary64 inputs, 24-p for binary32), f = g 2^-s. For element index j with draw u:
 *   sr:r=R  Z = top R bits of u, F = floor(f 2^R); away iff F + Z >= 2^R. With Z > 0:
 *           D: F = 2^R - Z (away), E: f just below that (toward zero). Representable when the
 *           R - s low bits of Z are zero (R > s), so those draws are searched for.
 *   sr      f1 = floor(f 2^64); away iff u < f1 (no tail: f has s <= 64 bits).
 *           B': f1 = u (toward zero), C': f1 = u + 2^(64-s) (away); needs u's 64 - s low bits
 *           zero. */
static void test_fast_boundaries(void)
{
    const long before = srl_test_failures;
    const char *fmts[] = {"p=2,emax=3", "bf16", "e4m3", "p=5,emax=15,inf=off"};
    const int Rs[] = {0 /* sr */, 1, 7, 16, 23, 52, 64};
    long total_hits = 0;
    for (int fn = 0; fn < 3; fn++) {
        for (size_t fi = 0; fi < sizeof fmts / sizeof fmts[0]; fi++) {
            const srl_format *f = NULL;
            for (size_t j = 0; j < NFORMATS; j++)
                if (strcmp(format_specs[j], fmts[fi]) == 0)
                    f = &formats[j];
            if (!f)
                continue;
            const int s = (fn == FN_F2F ? 24 : 53) - f->p;
            for (size_t ri = 0; ri < sizeof Rs / sizeof Rs[0]; ri++) {
                const int R = Rs[ri];
                /* the low bits of the draw that must be zero; skip rarer than 1 in 2^14 */
                const int zbits = R == 0 ? 64 - s : (R > s ? R - s : 0);
                if (zbits > 14)
                    continue;
                const srl_rounding m = R == 0 ? (srl_rounding){SRL_SR, 0}
                                              : (srl_rounding){SRL_SR_BITS, R};
                for (int k = 0; k < 2; k++) {
                    const size_t cap = (size_t)1 << 18;
                    double *x = malloc(cap * sizeof *x), *want = malloc(cap * sizeof *want);
                    float *xf = malloc(cap * sizeof *xf);
                    bool *known = malloc(cap * sizeof *known);
                    srl_rng r;
                    srl_rng_init(&r, kinds[k], SEED + 7, (uint64_t)(100 * R + k));
                    srl_rng_seek(&r, 4242u);
                    const srl_rng r0 = r;
                    srl_rng scan = r0;
                    const uint64_t zmask = zbits ? (UINT64_C(1) << zbits) - 1 : 0;
                    size_t n = 0;
                    int hits = 0;
                    while (n < cap && hits < 16) {
                        const uint64_t u = srl_rng_next(&scan);
                        const int span = f->emax - f->emin; /* exponents below the top binade */
                        const int e = f->emin + (int)(n % (size_t)span);
                        const int qn = e - f->p + 1;
                        const uint64_t T = (UINT64_C(1) << (f->p - 1)) + (n % 3) % (UINT64_C(1) << (f->p - 1));
                        const double sgn = (n & 2) ? -1.0 : 1.0;
                        uint64_t g = (u >> 20) & ((UINT64_C(1) << s) - 1); /* filler fraction */
                        bool away = false;
                        known[n] = false;
                        if (R > 0) {
                            const uint64_t Z = R == 64 ? u : u >> (64 - R);
                            if (Z != 0 && (Z & zmask) == 0) {
                                const uint64_t F = R == 64 ? (uint64_t)0 - Z
                                                           : (UINT64_C(1) << R) - Z;
                                const uint64_t gD = R > s ? F >> (R - s) : F << (s - R);
                                away = hits % 2 == 0;
                                g = away ? gD : gD - 1;
                                known[n] = true;
                            }
                        } else if ((u & zmask) == 0) {
                            const uint64_t gB = u >> (64 - s);
                            if (gB + 1 < (UINT64_C(1) << s)) {
                                away = hits % 2 == 0;
                                g = away ? gB + 1 : gB;
                                known[n] = true;
                            }
                        }
                        hits += known[n];
                        x[n] = sgn * ldexp((double)((T << s) | g), qn - s);
                        want[n] = sgn * ldexp((double)(away ? T + 1 : T), qn);
                        xf[n] = (float)x[n]; /* exact when s = 24 - p */
                        n++;
                    }
                    total_hits += hits;
                    CHECK(hits >= 1, "%s %s R=%d %s: no usable draw in %zu", fn_names[fn],
                          f->name, R, kind_names[k], n);
                    double *y = malloc(n * sizeof *y);
                    float *yf = malloc(n * sizeof *yf);
                    srl_rng a = r0;
                    int st;
                    if (fn == FN_D2D)
                        st = srl_round_array(y, x, n, f, m, &a);
                    else if (fn == FN_F2F)
                        st = srl_round_array_float(yf, xf, n, f, m, &a);
                    else
                        st = srl_round_array_d2f(yf, x, n, f, m, &a);
                    CHECK(st == SRL_OK, "%s %s: status %d", fn_names[fn], f->name, st);
                    srl_rng ref = r0;
                    long bad = 0;
                    for (size_t i = 0; i < n && st == SRL_OK; i++) {
                        const double xi = fn == FN_F2F ? (double)xf[i] : x[i];
                        const double sref = srl_round(xi, f, m, &ref);
                        const double got = fn == FN_D2D ? y[i] : (double)yf[i];
                        bool ok = srl_test_same(got, fn == FN_D2D ? sref : (double)(float)sref);
                        if (known[i])
                            ok = ok && srl_test_same(got, want[i]) && srl_test_same(sref, want[i]);
                        if (!ok && bad++ < 3) {
                            char mn[32];
                            CHECK(ok, "%s %s %s %s seed=%#llx: x[%zu] = %a (draw %#llx, index "
                                  "%#llx): bulk %a, srl_round %a, rule %a",
                                  fn_names[fn], f->name, srl_rounding_name(mn, sizeof mn, m),
                                  kind_names[k], (unsigned long long)(SEED + 7), i, xi,
                                  (unsigned long long)srl_rng_draw_at(&r0, 4242u + i),
                                  (unsigned long long)(4242u + i), got, sref,
                                  known[i] ? want[i] : sref);
                        }
                    }
                    free(y);
                    free(yf);
                    free(x);
                    free(xf);
                    free(want);
                    free(known);
                }
            }
        }
    }
    char name[200];
    snprintf(name, sizeof name, "exact boundaries from known draws, fast path: sr (f1 = u, f1 = u "
             "+ 1 ulp) and sr:r=R carry (R = 1..64), %ld boundary inputs", total_hits);
    GROUP(name, before);
}

/* ---- arguments ---- */

static void test_arguments(void)
{
    const long before = srl_test_failures;
    double xd[4] = {1.1, -2.3, 0x1p-140, 3e38}, yd[4];
    float xf[4] = {1.1f, -2.3f, 0x1p-140f, 3e38f}, yf[4];
    for (size_t mi = 0; mi < NMODES; mi++) {
        if (!srl_rounding_is_stochastic(modes[mi]))
            continue;
        const srl_format *f = &formats[0];
        CHECK(srl_round_array(yd, xd, 4, f, modes[mi], NULL) == SRL_EINVAL &&
                  srl_round_array_float(yf, xf, 4, f, modes[mi], NULL) == SRL_EINVAL &&
                  srl_round_array_d2f(yf, xd, 4, f, modes[mi], NULL) == SRL_EINVAL,
              "%s with a NULL rng is not SRL_EINVAL", mode_specs[mi]);
        srl_round_info info;
        CHECK(srl_round_explain(&info, 1.1, f, modes[mi], NULL) == SRL_EINVAL,
              "srl_round_explain %s with a NULL rng", mode_specs[mi]);
    }
    /* invalid modes */
    srl_rng r;
    srl_rng_init(&r, SRL_RNG_DEFAULT, 1, 1);
    const srl_rounding badm[] = {{SRL_SR_BITS, 0}, {SRL_SR_BITS, 65}, {SRL_MODE_COUNT, 0}};
    for (size_t i = 0; i < 3; i++) {
        srl_round_info info;
        const uint64_t c = r.counter;
        CHECK(srl_round_array(yd, xd, 4, &formats[0], badm[i], &r) == SRL_EINVAL &&
                  srl_round_explain(&info, 1.1, &formats[0], badm[i], &r) == SRL_EINVAL &&
                  r.counter == c,
              "invalid mode {%d, %d} accepted", (int)badm[i].mode, badm[i].r);
    }
    /* binary32 subsets: srl_format_fits_float, and the float functions reject the others */
    long nfit = 0, nrej = 0;
    for (size_t fi = 0; fi < NFORMATS; fi++) {
        const srl_format *f = &formats[fi];
        const bool want = expect_fits_float(f);
        CHECK(srl_format_fits_float(f) == want, "fits_float(%s) = %d", f->name, !want);
        if (want) {
            nfit++;
            continue;
        }
        nrej++;
        for (size_t mi = 0; mi < NMODES; mi++) {
            CHECK(srl_round_array_float(yf, xf, 4, f, modes[mi], &r) == SRL_EINVAL &&
                      srl_round_array_d2f(yf, xd, 4, f, modes[mi], &r) == SRL_EINVAL,
                  "%s %s accepted by a float function", f->name, mode_specs[mi]);
        }
    }
    const char *more[] = {"p=25,emax=100", "p=10,emax=128", "p=4,emax=10,emin=-147",
                          "p=10,emax=10,emin=-145,subnormals=off", "p=24,emax=127,emin=-127",
                          "p=4,emax=10,emin=-146", "p=24,emax=127", "p=2,emax=127,emin=-148"};
    for (size_t i = 0; i < sizeof more / sizeof more[0]; i++) {
        srl_format f;
        srl_err err;
        if (srl_format_parse(&f, more[i], &err) != SRL_OK) {
            CHECK(0, "format %s: %s", more[i], err.msg);
            continue;
        }
        const bool want = expect_fits_float(&f);
        CHECK(srl_format_fits_float(&f) == want, "fits_float(%s) = %d", more[i], !want);
        if (!want)
            CHECK(srl_round_array_float(yf, xf, 4, &f, modes[0], NULL) == SRL_EINVAL,
                  "%s accepted by srl_round_array_float", more[i]);
    }
    CHECK(nfit >= 10 && nrej >= 4, "format list covers %ld float and %ld non-float formats", nfit,
          nrej);
    GROUP("NULL rng, invalid modes, binary32-subset checks", before);
}

/* ---- srl_round_explain ---- */

static void test_explain(void)
{
    const long before = srl_test_failures;
    enum { NX = 400 };
    double x[NX];
    long checked = 0;
    for (size_t fi = 0; fi < NFORMATS; fi++) {
        const srl_format *f = &formats[fi];
        gen_inputs(x, NX, f, SEED * 3 + fi);
        for (size_t mi = 0; mi < NMODES; mi++) {
            const srl_rounding m = modes[mi];
            const bool sto = srl_rounding_is_stochastic(m);
            for (int k = 0; k < 2; k++) {
                srl_rng ra, rb;
                srl_rng_init(&ra, kinds[k], SEED, 9u);
                srl_rng_seek(&ra, starts[(mi + fi) % 5]);
                rb = ra;
                for (int i = 0; i < NX; i++) {
                    srl_round_info in;
                    const uint64_t c = ra.counter;
                    const int st = srl_round_explain(&in, x[i], f, m, &ra);
                    const double s = srl_round(x[i], f, m, &rb);
                    bool ok = st == SRL_OK && ra.counter == c + (sto ? 1u : 0u) &&
                              srl_test_same(in.x, x[i]) && srl_test_same(in.result, s);
                    /* the result is one of the two neighbours, in order */
                    ok = ok && (srl_test_same(in.result, in.rd) || srl_test_same(in.result, in.ru));
                    if (!isnan(in.rd) && !isnan(in.ru) && !isnan(in.result))
                        ok = ok && in.rd <= in.result && in.result <= in.ru;
                    /* ternary, exactness */
                    const int tern = (isnan(in.result) || isnan(x[i]))
                                         ? 0
                                         : (in.result > x[i]) - (in.result < x[i]);
                    ok = ok && in.ternary == tern;
                    /* exact: returned unchanged; a saturating format clamps infinities */
                    ok = ok && in.exact == (srl_format_contains(f, x[i]) &&
                                            !(isinf(x[i]) && f->saturate));
                    if (in.exact && isfinite(x[i]))
                        ok = ok && srl_test_same(in.rd, x[i]) && srl_test_same(in.ru, x[i]) &&
                             in.p_up == 0 && in.frac == 0;
                    ok = ok && in.p_up >= 0 && in.p_up <= 1;
                    /* the probabilities, where the neighbours are finite and distinct */
                    if (isfinite(x[i]) && !in.exact && !in.overflow && isfinite(in.rd) &&
                        isfinite(in.ru) && in.rd != in.ru) {
                        const double fr = x[i] > 0 ? (x[i] - in.rd) / (in.ru - in.rd)
                                                   : (in.ru - x[i]) / (in.ru - in.rd);
                        ok = ok && in.frac == fr && in.frac > 0 && in.frac < 1;
                        double pa; /* probability of moving the magnitude away from zero */
                        if (m.mode == SRL_SR)
                            pa = fr;
                        else if (m.mode == SRL_SR_EQ)
                            pa = 0.5;
                        else if (m.mode == SRL_SR_BITS)
                            pa = ldexp(floor(ldexp(fr, m.r)), -m.r);
                        else
                            pa = fabs(in.result) > fabs(x[i]) ? 1.0 : 0.0;
                        const double pu = x[i] > 0 ? pa : 1 - pa;
                        ok = ok && in.p_up == pu;
                        if (!sto)
                            ok = ok && srl_test_same(in.result, in.p_up == 1 ? in.ru : in.rd);
                    }
                    checked++;
                    if (!ok)
                        CHECK(ok, "%s %s %s seed=%#llx c=%#llx: x=%a: status %d, rd %a ru %a "
                              "result %a (srl_round %a) ternary %d exact %d overflow %d p_up %a "
                              "frac %a",
                              f->name, mode_specs[mi], kind_names[k], (unsigned long long)SEED,
                              (unsigned long long)c, x[i], st, in.rd, in.ru, in.result, s,
                              in.ternary, in.exact, in.overflow, in.p_up, in.frac);
                }
            }
        }
    }
    char name[128];
    snprintf(name, sizeof name, "srl_round_explain: %ld roundings consistent with srl_round",
             checked);
    GROUP(name, before);
}

int main(void)
{
    if (setup() != SRL_OK)
        TEST_END();
    test_arguments();
    test_matrix();
    test_long();
    test_huge();
    test_exact_boundaries();
    test_fast_boundaries();
    test_explain();
    TEST_END();
}
