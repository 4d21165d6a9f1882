/* tests/round/test_round_isa.c: the bulk rounding kernels at one forced instruction-set level
 * against the scalar reference, bit for bit (suite `unit`).
 *
 * Usage: test_round_isa base|v3|v4|v4i. src/round/round_bulk_isa.h is compiled once per x86-64
 * level (baseline, x86-64-v3 = AVX2, x86-64-v4 = AVX-512, v4i = x86-64-v4 with AVX-512 IFMA,
 * whose pcg64 lanes step with 52-bit multiply-adds; src/core/isa.h) and the CPU picks one; srl__round_bulk_isa() forces a lower one, so the copies this CPU would not choose run
 * too. At the named level every bulk entry point (srl_round_array: binary64 in/out,
 * srl_round_array_float: binary32 in/out, srl_round_array_d2f) must give, element by element,
 * exactly what srl_round() gives with draw counter + i, for every mode and both stream kinds,
 * on specials, binary64 subnormals, each format's subnormal range and its ties, the overflow
 * thresholds, values far below the grid and random values, in arrays of awkward lengths and
 * alignments, and once in arrays large enough for the streaming-store path. A level this
 * machine (or this compiler: only GCC on x86-64 builds the copies) does not have is not run:
 * the test says so and exits 77, which meson reports as SKIP. Everything is an equality. */
#include <float.h>
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#if defined(_OPENMP)
#include <omp.h>
#endif

#include "core/isa.h"             /* SRL_MULTI_ISA */
#include "round/round_bulk.h" /* srl__round_bulk_isa */
#include "srlab/format.h"
#include "srlab/mx.h"
#include "srlab/rng.h"
#include "srlab/rounding.h"
#include "../testutil.h"

#define SEED UINT64_C(0x15a0e4a3)
#define START UINT64_C(987654321) /* the streams' starting counter (not a multiple of 16) */
#define N_MIX 12003               /* not a multiple of 8 or 16: every kernel has a tail */
#define N_BIG (((size_t)1 << 21) + 37) /* binary64: over 16 MiB, the streaming stores' threshold */

static const char *const format_specs[] = {
    "e4m3", "e5m2", "bf16", "fp16", "tf32", "fp32", "e4m3,saturate=on", "fp16,subnormals=off",
    "p=2,emax=3", "p=10,emax=20,emin=-1060", "p=52,emax=1023",
    /* binary32's exponent range (the binary32 kernels' pattern path, srl__vparams.pat) and
     * each property that keeps a format off it */
    "p=13,emax=127", "bf16,saturate=on", "bf16,subnormals=off", "bf16,inf=off",
    "p=8,emax=127,emin=-125",
    /* q a normal input number a few binades above the input's smallest normal: zero and the
     * input's subnormals lie less than W bits below q (the lanes' 0-or-q case) */
    "p=20,emax=100", "p=5,emax=100,emin=-115", "p=12,emax=1000,emin=-1000",
};
static const char *const mode_specs[] = {"rn", "rna", "rz", "ru", "rd", "ro", "sr", "sr-eq",
                                         "sr:r=1", "sr:r=7", "sr:r=16", "sr:r=52", "sr:r=64"};
#define NF (sizeof format_specs / sizeof *format_specs)
#define NM (sizeof mode_specs / sizeof *mode_specs)

/* The values a format's rounding distinguishes: its grid points and the midpoints between
 * them (ties) in the subnormal range, at xmin, around 1 and at xmax, the overflow tie, each
 * with its binary64 neighbours; values far below the grid. Appended to v from *k. */
static void format_edges(double *v, size_t *k, size_t cap, const srl_format *f)
{
    const double q = ldexp(1.0, f->emin - f->p + 1); /* the subnormal spacing */
    const double anchors[] = {q,         2 * q,      3 * q,     f->xmin / 2, f->xmin - q,
                              f->xmin,   1.0,        1.5,       f->xmax / 2, f->xmax,
                              f->xmax * (1 + ldexp(1.0, -f->p))};
    for (size_t a = 0; a < sizeof anchors / sizeof *anchors; a++) {
        const double g = anchors[a], ulp = g < f->xmin ? q : ldexp(1.0, ilogb(g) - f->p + 1);
        const double pts[] = {g, g + ulp / 2, g - ulp / 2, g + ulp / 4, g + 3 * ulp / 4};
        for (size_t j = 0; j < sizeof pts / sizeof *pts; j++) {
            const double w[] = {pts[j], nextafter(pts[j], 0), nextafter(pts[j], INFINITY)};
            for (size_t l = 0; l < 3 && *k + 2 <= cap; l++) {
                v[(*k)++] = w[l];
                v[(*k)++] = -w[l];
            }
        }
    }
    /* the first grid points of the subnormal range and the midpoints between them, with their
     * binary64 neighbours */
    for (int j = 1; j <= 16 && j * q < f->xmin; j++) {
        const double pts[] = {j * q, (j + 0.5) * q};
        for (size_t p = 0; p < 2; p++) {
            const double w[] = {pts[p], nextafter(pts[p], 0), nextafter(pts[p], INFINITY)};
            for (size_t l = 0; l < 3 && *k + 2 <= cap; l++) {
                v[(*k)++] = w[l];
                v[(*k)++] = -w[l];
            }
        }
    }
    const double far[] = {q / 3, q * 0x1p-11, q * 0x1p-40, q * 0x1p-70};
    for (size_t j = 0; j < sizeof far / sizeof *far && *k + 2 <= cap; j++) {
        v[(*k)++] = far[j];
        v[(*k)++] = -far[j];
    }
}

/* N_MIX inputs: a run of values inside every format's normal range (whole groups on the fast
 * path), then the edges of every format, specials and binary64 subnormals, random values of
 * every scale and random bit patterns, shuffled so that groups mix them. */
static void make_inputs(double *x, const srl_format *fs)
{
    srl_rng g;
    srl_rng_init(&g, SRL_RNG_PCG64, SEED, 7);
    size_t k = 0;
    for (; k < 1024; k++) /* in [2^-6, 2): the normal range of fp8 and every wider format */
        x[k] = ldexp(1.0 + srl_rng_uniform(&g), -6 + (int)(srl_rng_next(&g) % 7)) *
               (srl_rng_next(&g) & 1 ? -1 : 1);
    const size_t mixed = k;
    for (size_t i = 0; i < NF; i++)
        format_edges(x, &k, N_MIX, &fs[i]);
    const double specials[] = {0.0, -0.0, INFINITY, -INFINITY, NAN, -NAN, DBL_MIN, -DBL_MIN,
                               DBL_MAX, -DBL_MAX, DBL_TRUE_MIN, -3 * DBL_TRUE_MIN,
                               DBL_MIN / 3, 0x1p-1060, FLT_MIN, FLT_TRUE_MIN, FLT_MAX};
    for (size_t i = 0; i < sizeof specials / sizeof *specials; i++)
        x[k++] = specials[i];
    while (k < N_MIX) {
        const uint64_t r = srl_rng_next(&g);
        double v;
        switch (r % 4) {
        case 0: v = srl_rng_normal(&g); break;
        case 1: v = 2 * srl_rng_uniform(&g) - 1; break;
        case 2: v = ldexp(srl_rng_normal(&g), (int)(r >> 8) % 300 - 150); break;
        default: {
            const uint64_t b = srl_rng_next(&g);
            memcpy(&v, &b, sizeof v);
        }
        }
        x[k++] = v;
    }
    for (size_t i = N_MIX - 1; i > mixed; i--) { /* Fisher-Yates on the mixed part */
        const size_t j = mixed + (size_t)(srl_rng_next(&g) % (i - mixed + 1));
        const double t = x[i];
        x[i] = x[j];
        x[j] = t;
    }
}

/* The bulk call under test on x[0..n) against srl_round one element at a time; `what` names
 * the case in a failure. path 0: binary64 in/out, 1: binary32 in/out, 2: binary64 in, binary32
 * out. */
static void check_path(int path, const double *xd, const float *xf, size_t n,
                       const srl_format *f, srl_rounding m, srl_rng_kind kind, const char *what)
{
    double *yd = malloc(n * sizeof *yd);
    float *yf = malloc(n * sizeof *yf);
    CHECK(yd && yf, "out of memory");
    if (!yd || !yf) {
        free(yd), free(yf);
        return;
    }
    srl_rng bulk, ref;
    srl_rng_init(&bulk, kind, SEED, 3);
    srl_rng_seek(&bulk, START);
    ref = bulk;
    const int st = path == 0   ? srl_round_array(yd, xd, n, f, m, &bulk)
                   : path == 1 ? srl_round_array_float(yf, xf, n, f, m, &bulk)
                               : srl_round_array_d2f(yf, xd, n, f, m, &bulk);
    CHECK(st == SRL_OK, "%s: status %d", what, st);
    const uint64_t moved = srl_rounding_is_stochastic(m) ? n : 0;
    CHECK(bulk.counter == START + moved, "%s: counter %" PRIu64 ", expected %" PRIu64, what,
          bulk.counter, START + moved);
    for (size_t i = 0; i < n && st == SRL_OK; i++) {
        const double in = path == 1 ? (double)xf[i] : xd[i];
        const double r = srl_round(in, f, m, &ref);
        const float rf = (float)r;
        const int same =
            path == 0 ? !memcmp(&yd[i], &r, sizeof r) : !memcmp(&yf[i], &rf, sizeof rf);
        CHECK(same, "%s: element %zu, x = %a: bulk %a, srl_round %a", what, i, in,
              path == 0 ? yd[i] : (double)yf[i], r);
    }
    free(yd), free(yf);
}

/* Block quantization of binary32 values (srl_mx_quantize_float, whose MX formats run on the bulk
 * kernels at the forced level) against srl_mx_quantize of the same values (binary64, the
 * element-by-element reference path): every output and scale code bit for bit, the counter. */
static void check_mx_from(const float *xf, size_t n, const srl_mx_format *f, srl_mx_rule r,
                          srl_rounding m, srl_rng_kind kind, const char *what, size_t yoff,
                          uint64_t start)
{
    /* the output yoff floats past a 64-byte boundary (the streaming stores' line offset) */
    float *const ya = aligned_alloc(64, ((n + yoff) * sizeof(float) + 63) / 64 * 64);
    float *const y = ya ? ya + yoff : NULL;
    double *xd = malloc(n * sizeof *xd);
    const size_t nb = (n + (size_t)f->block - 1) / (size_t)f->block;
    uint8_t *c = malloc(nb), *cr = malloc(nb);
    CHECK(y && xd && c && cr, "out of memory");
    if (!y || !xd || !c || !cr) {
        free(ya), free(xd), free(c), free(cr);
        return;
    }
    for (size_t i = 0; i < n; i++)
        xd[i] = (double)xf[i];
    srl_rng bulk, ref;
    srl_rng_init(&bulk, kind, SEED, 5);
    srl_rng_seek(&bulk, start);
    ref = bulk;
    const int st = srl_mx_quantize_float(y, c, NULL, xf, n, f, r, m, &bulk);
    const int sr = srl_mx_quantize(xd, cr, NULL, xd, n, f, r, m, &ref);
    CHECK(st == SRL_OK && sr == SRL_OK, "%s: status %d, reference %d", what, st, sr);
    CHECK(bulk.counter == ref.counter, "%s: counter %" PRIu64 ", reference %" PRIu64, what,
          bulk.counter, ref.counter);
    for (size_t b = 0; b < nb && st == SRL_OK; b++)
        CHECK(c[b] == cr[b], "%s: block %zu: scale code %u, reference %u", what, b, c[b], cr[b]);
    for (size_t i = 0; i < n && st == SRL_OK; i++) {
        const float want = (float)xd[i];
        CHECK(!memcmp(&y[i], &want, sizeof want), "%s: element %zu, x = %a: %a, reference %a",
              what, i, (double)xf[i], (double)y[i], (double)want);
    }
    free(ya), free(xd), free(c), free(cr);
}

static void check_mx_at(const float *xf, size_t n, const srl_mx_format *f, srl_mx_rule r,
                        srl_rounding m, srl_rng_kind kind, const char *what, size_t yoff)
{
    check_mx_from(xf, n, f, r, m, kind, what, yoff, START);
}

static void check_mx(const float *xf, size_t n, const srl_mx_format *f, srl_mx_rule r,
                     srl_rounding m, srl_rng_kind kind, const char *what)
{
    check_mx_at(xf, n, f, r, m, kind, what, 4);
}

/* check_mx under every scale rule and mode of ms, sr's modes with both generators, each case
 * labelled "NAME RULE MODE GENERATOR, CONTEXT". */
static void check_mx_every(const float *xf, size_t n, const srl_mx_format *f,
                           const srl_rounding *ms, const char *name, const char *context)
{
    static const srl_rng_kind kinds[2] = {SRL_RNG_PCG32, SRL_RNG_PCG64};
    char what[256];
    for (int r = 0; r < SRL_MX_RULE_COUNT; r++)
        for (size_t mi = 0; mi < NM; mi++)
            for (int ki = 0; ki < (srl_rounding_is_stochastic(ms[mi]) ? 2 : 1); ki++) {
                snprintf(what, sizeof what, "%s %s %s %s, %s", name,
                         srl_mx_rule_name((srl_mx_rule)r), mode_specs[mi],
                         ki ? "pcg64" : "pcg32", context);
                check_mx(xf, n, f, (srl_mx_rule)r, ms[mi], kinds[ki], what);
            }
}

int main(int argc, char **argv)
{
    static const char *const names[] = {"base", "v3", "v4", "v4i"};
    static const char *const isas[] = {"x86-64", "x86-64-v3, AVX2", "x86-64-v4, AVX-512",
                                       "x86-64-v4 with AVX-512 IFMA"};
    int lvl = -1;
    for (int l = 0; argc == 2 && l < 4; l++)
        if (!strcmp(argv[1], names[l]))
            lvl = l;
    if (lvl < 0) {
        fprintf(stderr, "usage: test_round_isa base|v3|v4|v4i\n");
        return 2;
    }
    const int got = srl__round_bulk_isa(lvl);
    if (got != lvl) {
        printf("SKIP: level %s (%s) is not available here (%s); the highest is %s\n",
               names[lvl], isas[lvl],
               SRL_MULTI_ISA ? "this CPU lacks it" : "built without per-level copies",
               names[got]);
        return 77;
    }
    printf("bulk kernels forced to level %s\n", names[lvl]);

    srl_format fs[NF];
    srl_rounding ms[NM];
    srl_err err = {{0}};
    for (size_t i = 0; i < NF; i++)
        if (srl_format_parse(&fs[i], format_specs[i], &err) != SRL_OK) {
            fprintf(stderr, "format '%s': %s\n", format_specs[i], err.msg);
            return 1;
        }
    for (size_t i = 0; i < NM; i++)
        if (srl_rounding_parse(&ms[i], mode_specs[i], &err) != SRL_OK) {
            fprintf(stderr, "mode '%s': %s\n", mode_specs[i], err.msg);
            return 1;
        }
    double *xd = malloc(2 * N_BIG * sizeof *xd); /* (d2f's big case: 2 N_BIG values) */
    float *xf = malloc(2 * N_BIG * sizeof *xf);
    if (!xd || !xf)
        return 1;
    make_inputs(xd, fs);
    for (size_t i = 0; i < N_MIX; i++)
        xf[i] = (float)xd[i];
    /* binary32 NaNs that no conversion from binary64 gives: signalling ones, payloads next to
     * the infinity's bits, either sign (spread over the mixed part, groups of every kernel) */
    static const uint32_t nans[] = {0x7f800001u, 0xff800001u, 0x7fbfffffu, 0xffbfffffu,
                                    0x7fc00001u, 0xffc00000u, 0x7fffffffu, 0xffffffffu};
    for (size_t j = 0; j < sizeof nans / sizeof *nans; j++)
        memcpy(&xf[1100 + 1301 * j], &nans[j], sizeof nans[j]);

    static const srl_rng_kind kinds[2] = {SRL_RNG_PCG32, SRL_RNG_PCG64};
    /* (offset, length) pairs: the whole mix, a misaligned part, pieces shorter than a group */
    static const size_t parts[][2] = {{0, N_MIX}, {3, N_MIX - 3}, {1029, 13}, {4001, 7}};
    char what[160], ctx[128];
    for (size_t fi = 0; fi < NF; fi++) {
        const long before = srl_test_failures;
        const int fits = srl_format_fits_float(&fs[fi]);
        for (size_t mi = 0; mi < NM; mi++)
            for (int ki = 0; ki < (srl_rounding_is_stochastic(ms[mi]) ? 2 : 1); ki++)
                for (int path = 0; path < (fits ? 3 : 1); path++)
                    for (size_t pi = 0; pi < sizeof parts / sizeof *parts; pi++) {
                        snprintf(what, sizeof what, "%s %s %s %s, [%zu, +%zu)", format_specs[fi],
                                 mode_specs[mi], ki ? "pcg64" : "pcg32",
                                 path == 0 ? "d2d" : path == 1 ? "f2f" : "d2f", parts[pi][0],
                                 parts[pi][1]);
                        check_path(path, xd + parts[pi][0], xf + parts[pi][0], parts[pi][1],
                                   &fs[fi], ms[mi], kinds[ki], what);
                    }
        snprintf(what, sizeof what, "level %s, %s: every mode, stream and path", names[lvl],
                 format_specs[fi]);
        GROUP(what, before);
    }

    /* Inputs aimed at the draws. A random input's stochastic decision (U < f) is settled by the
     * draw's first 32 bits but for a chance of 2^-32, so a kernel that got a draw's second half
     * wrong (pcg32: the output of the odd state) would pass the mix above. Here element i's
     * fraction below the format's grid equals draw counter + i cut to its width, or that plus one
     * unit, so the decision turns on the draw's bits below the first 32 (binary64 input: bf16
     * keeps 45 fraction bits below its grid, e4m3 49); in every other group of eight, every
     * seventh element lies above xmax, where the reference path takes it with the draw the
     * kernel hands on (the groups between keep no flagged lane: a group with one is decided
     * again with whole draws, so only those test the lanes' own decision); for e4m3 every fifth
     * group of eight lies in its subnormal range (the lanes' subnormal block). Same streams and
     * starts as check_path. */
    {
        const long before_t = srl_test_failures;
        static const size_t targeted[] = {2, 0}; /* bf16, e4m3 (indices into format_specs) */
        const size_t n = N_MIX;
        double *xt = malloc(n * sizeof *xt);
        if (!xt)
            return 1;
        for (size_t ti = 0; ti < 2; ti++) {
            const srl_format *f = &fs[targeted[ti]];
            const int s = 53 - f->p; /* fraction bits below the grid, binary64 in [1, 2) */
            for (int ki = 0; ki < 2; ki++) {
                srl_rng g;
                srl_rng_init(&g, kinds[ki], SEED, 3);
                for (size_t i = 0; i < n; i++) {
                    const uint64_t d = srl_rng_draw_at(&g, START + i);
                    uint64_t below = (d >> (64 - s)) + (i & 1); /* the draw's top s bits, + 0/1 */
                    if (below >> s)                             /* (all ones + 1: keep it equal) */
                        below = d >> (64 - s);
                    const uint64_t ones = (UINT64_C(1) << (52 - s)) - 1;
                    uint64_t top = (uint64_t)(i * 2654435761u) & ones, e = 1023;
                    if (i % 7 == 3 && i / 8 % 2 == 0) /* above xmax, xmax's significand: a
                                                         flagged lane (the reference path)
                                                         whose draw decides xmax or overflow */
                        top = ones, e = (uint64_t)(1023 + f->emax);
                    const uint64_t bits = (e << 52) | (top << s) | below;
                    memcpy(&xt[i], &bits, sizeof bits);
                    if (f->p < 8 && i / 8 % 5 == 1) { /* e4m3: whole groups of eight in its
                                                         subnormal range, (N + F) q with F the
                                                         draw's first 49 bits, + 0/1 */
                        const uint64_t F = (d >> 15) + ((i & 1) && (d >> 15) + 1 < (UINT64_C(1) << 49));
                        xt[i] = ldexp((double)(i / 2 % 8) + ldexp((double)F, -49),
                                      f->emin - f->p + 1);
                    }
                    if (i % 3 == 2)
                        xt[i] = -xt[i];
                }
                for (int path = 0; path < 3; path += 2) { /* binary64 in: d2d and d2f */
                    snprintf(what, sizeof what, "%s sr %s %s, inputs at the draws",
                             format_specs[targeted[ti]], ki ? "pcg64" : "pcg32",
                             path ? "d2f" : "d2d");
                    check_path(path, xt, NULL, n, f, ms[6], kinds[ki], what);
                }
            }
        }
        free(xt);
        snprintf(what, sizeof what, "level %s: sr inputs at the draws (the draws' low halves)",
                 names[lvl]);
        GROUP(what, before_t);
    }

    /* The block formats (srlab/mx.h) on the mix: every MX element format, rule (3/4 included:
     * its own lanes for rn and sr) and mode, blocks of 32 (one pass per tile), 16 and 4 (the
     * scaled-tile path), whole and misaligned; nvfp4 (its E4M3 block scales and tensor scale). */
    {
        const long before_mx = srl_test_failures;
        static const char *const mx_specs[] = {"mxfp8",      "mxfp8-e5m2",     "mxfp6",
                                               "mxfp6-e2m3", "mxfp4",          "mxint8",
                                               "nvfp4",      "mxfp4,block=16", "mxfp8,block=4"};
        for (size_t fi = 0; fi < sizeof mx_specs / sizeof *mx_specs; fi++) {
            srl_mx_format f;
            if (srl_mx_parse(&f, mx_specs[fi], &err) != SRL_OK) {
                fprintf(stderr, "block format '%s': %s\n", mx_specs[fi], err.msg);
                return 1;
            }
            for (int r = 0; r < SRL_MX_RULE_COUNT; r++)
                for (size_t mi = 0; mi < NM; mi++)
                    for (int ki = 0; ki < (srl_rounding_is_stochastic(ms[mi]) ? 2 : 1); ki++)
                        for (size_t pi = 0; pi < 2; pi++) {
                            snprintf(what, sizeof what, "%s %s %s %s, [%zu, +%zu)", mx_specs[fi],
                                     srl_mx_rule_name((srl_mx_rule)r), mode_specs[mi],
                                     ki ? "pcg64" : "pcg32", parts[pi][0], parts[pi][1]);
                            check_mx(xf + parts[pi][0], parts[pi][1], &f, (srl_mx_rule)r, ms[mi],
                                     kinds[ki], what);
                        }
        }
        snprintf(what, sizeof what, "level %s: block formats, every rule, mode and stream",
                 names[lvl]);
        GROUP(what, before_mx);
    }

    /* Inputs aimed at the block kernel's carry forms: blocks of 32 whose largest magnitude is
     * 2^emax (scale 2^0 under every rule, but where an element of the 3/4 rule's set is larger),
     * the other elements E's midpoints (ties: rn's T odd and even, the choice among 0, q and 2q
     * below 2q) and values one binary32 unit either side, and the same for the 3/4 rule (x with
     * (3/4) x a midpoint, where binary32 holds it), and the midpoints times 2^-10 (below q 2^-8
     * for the smallest: sr's tiny lanes), both signs; every rule, mode and stream. */
    {
        const long before_t = srl_test_failures;
        static const char *const tie_specs[] = {"mxfp8", "mxfp8-e5m2", "mxfp6", "mxfp6-e2m3",
                                                "mxfp4", "mxint8"};
        float *xt = malloc(N_MIX * sizeof *xt);
        if (!xt)
            return 1;
        for (size_t fi = 0; fi < sizeof tie_specs / sizeof *tie_specs; fi++) {
            srl_mx_format f;
            if (srl_mx_parse(&f, tie_specs[fi], &err) != SRL_OK)
                return 1;
            const srl_format *e = &f.elem;
            size_t n = 0;
            double prev = 0;
            /* E's positive grid in increasing order: q i below xmin, then each binade's */
            for (int b = e->emin - 1; b <= e->emax && n + 16 < N_MIX; b++)
                for (int j = 0; j < (1 << (e->p - 1)) && n + 16 < N_MIX; j++) {
                    const double g = b < e->emin ? ldexp(j + 1, e->emin - e->p + 1)
                                                 : ldexp((1 << (e->p - 1)) + j, b - e->p + 1);
                    if (g > e->xmax)
                        break;
                    const double mid = (prev + g) / 2, cands[3] = {mid, mid / 0.75, mid / 1024};
                    prev = g;
                    for (int c = 0; c < 3; c++) {
                        const float v = (float)cands[c];
                        if ((double)v != cands[c])
                            continue;
                        const float near[3] = {v, nextafterf(v, 0), nextafterf(v, INFINITY)};
                        for (int k = 0; k < 3; k++) {
                            if (n % 32 == 0)
                                xt[n++] = (float)ldexp(1.0, e->emax);
                            xt[n] = n % 3 ? near[k] : -near[k];
                            n++;
                        }
                    }
                }
            n -= n % 32;
            snprintf(ctx, sizeof ctx, "midpoints (%zu values)", n);
            check_mx_every(xt, n, &f, ms, tie_specs[fi], ctx);
        }
        free(xt);
        snprintf(what, sizeof what, "level %s: block formats at E's midpoints", names[lvl]);
        GROUP(what, before_t);
    }

    /* sr's tiny lanes where their 32 bits do not decide (the block kernel flags them for the
     * reference path). Pass 0: blocks of 32 led by 2^emax (scale 2^0 under ocp and ceil), and
     * wherever the element's draw has its high 32 bits d below 2^20, x = q 2^-32 (d + 3/4), q
     * E's least spacing: the first 32 bits say down (floor(x 2^32 / q) = d), the whole draw says
     * up in three draws of four. Elsewhere E's values and halfway points. A kernel that decided
     * such a lane itself would give 0 where the reference gives q. nvfp4 (mx_nv_isa.h's nv_sr16
     * flags them as well): the first element 2688 (tensor scale 1 under ocp and ceil), every
     * other block of 16 led by 6 (block scale 1), the other values below 6; once more without
     * the last five elements (a partial last block).
     * Pass 1, the 3/4 rule, where v = (3/4) x has two bits more than x and X = v 2^32 / q of a
     * tiny lane (below 2^25 there, with fraction bits) can sit just above a draw of 2^24 and
     * more, which pass 0 never reaches (its draws are below 2^20, and under its rules a tiny
     * lane's X is an integer from 2^23 on): blocks of 32 led by 2^emax (v = (3/4) x), and
     * wherever d is below 3 2^22 with 4d + 1 a multiple of 3, x = q 2^-32 (4d + 1) / 3, a
     * binary32 number, so that X = d + 1/4: the first 32 bits say up, the whole draw says down
     * in three draws of four; where d lies in [2^24, 3 2^23) with 2d + 1 a multiple of 3, x =
     * q 2^-31 (2d + 1) / 3 (X = d + 1/2: down in one draw of two). The other elements are E's
     * values and halfway points below 2^emax (the block's scale stays 2^0). */
    for (int pass = 0; pass < 2; pass++) {
        const long before_y = srl_test_failures;
        /* pass 1 not nvfp4, whose 3/4 rule is another target for the block scale */
        static const char *const specs[2][6] = {
            {"mxfp8", "mxfp8-e5m2", "mxfp6", "mxfp6-e2m3", "mxfp4", "nvfp4"},
            {"mxfp8", "mxfp8-e5m2", "mxfp6", "mxfp6-e2m3", "mxfp4", "mxint8"}};
        const char *const *const tiny_specs = specs[pass];
        const size_t nt = (size_t)32 * (pass ? 8192 : 4096);
        float *xt = malloc(nt * sizeof *xt);
        if (!xt)
            return 1;
        srl_rounding sr;
        if (srl_rounding_parse(&sr, "sr", &err) != SRL_OK)
            return 1;
        for (size_t fi = 0; fi < sizeof *specs / sizeof **specs; fi++) {
            srl_mx_format f;
            if (srl_mx_parse(&f, tiny_specs[fi], &err) != SRL_OK)
                return 1;
            const srl_format *e = &f.elem;
            const int nv = f.scale == SRL_MX_E4M3_T32;
            for (int ki = 0; ki < 2; ki++) {
                srl_rng g;
                srl_rng_init(&g, kinds[ki], SEED, 5); /* (check_mx's stream) */
                size_t tiny = 0, high = 0, high24 = 0; /* pass 1: d in [2^23, 2^24), from 2^24 */
                for (size_t i = 0; i < nt; i++) {
                    const uint64_t d = srl_rng_draw_at(&g, START + i) >> 32;
                    const int ex = e->emin + (int)(i % 5) - 3 * nv;
                    if (i % (size_t)f.block == 0) {
                        xt[i] = nv ? (i ? 6.0f : 2688.0f) : (float)ldexp(1.0, e->emax);
                    } else if (!pass && d < (UINT64_C(1) << 20)) {
                        xt[i] = (float)ldexp((double)d + 0.75, e->emin - e->p + 1 - 32);
                        tiny++;
                    } else if (pass && d < (UINT64_C(3) << 22) && (4 * d + 1) % 3 == 0) {
                        xt[i] = (float)ldexp((double)((4 * d + 1) / 3), e->emin - e->p + 1 - 32);
                        tiny++;
                        high += d >= (UINT64_C(1) << 23);
                    } else if (pass && d >= (UINT64_C(1) << 24) && d < (UINT64_C(3) << 23) &&
                               (2 * d + 1) % 3 == 0) {
                        xt[i] = (float)ldexp((double)((2 * d + 1) / 3), e->emin - e->p + 1 - 31);
                        tiny++;
                        high24++;
                    } else {
                        xt[i] = (float)ldexp(1.0 + (double)(i % 8) / 16,
                                             pass && ex >= e->emax ? e->emax - 1 : ex);
                    }
                    if (i % 3 == 1)
                        xt[i] = -xt[i];
                }
                CHECK(tiny >= 16, "%s: only %zu tiny lanes at their draws", tiny_specs[fi], tiny);
                CHECK(!pass || (high >= 8 && high24 >= 8),
                      "%s: only %zu and %zu tiny lanes at draws in [2^23, 2^24) and from 2^24",
                      tiny_specs[fi], high, high24);
                for (int r = 0; r < SRL_MX_RULE_COUNT; r++) {
                    if (pass && r != SRL_MX_34)
                        continue;
                    snprintf(what, sizeof what,
                             "%s %s sr %s, tiny lanes at their draws (%zu; %zu in [2^23, 2^24), "
                             "%zu from 2^24)", tiny_specs[fi], srl_mx_rule_name((srl_mx_rule)r),
                             ki ? "pcg64" : "pcg32", tiny, high, high24);
                    check_mx(xt, nt, &f, (srl_mx_rule)r, sr, kinds[ki], what);
                    if (f.block == 16) /* (nvfp4: a last partial block, its draws from g) */
                        check_mx(xt, nt - 5, &f, (srl_mx_rule)r, sr, kinds[ki], what);
                }
            }
        }
        free(xt);
        snprintf(what, sizeof what, "level %s: block formats' sr tiny lanes%s", names[lvl],
                 pass ? ", 3/4 rule" : "");
        GROUP(what, before_y);
    }

    /* sr under the 3/4 rule where v = (3/4) x has more bits than binary32 holds, so that the part
     * of v below binary32's last place decides (the block kernel's form 6 takes it from the
     * fused product's residual). Blocks of 32 led by 2^emax (scale 2^0), and at each element
     * whose draw has high 32 bits d: x = (2^23 + m) 2^(a - 22), m odd, v = N 2^(a - 24) with
     * N = 3 (2^23 + m) odd and below 2^25, in binade a of E (its subnormal range up to
     * emax - 2); q = 2^lq the spacing there, Q = q / 2^(a - 24) and G = 2^32 / Q. With
     * N = t (mod Q), t = floor(d / G) + 1, X = (v - down) 2^32 / q = t G > d: up; v cut to
     * binary32 has X - G <= d: down. Each lane is checked in binary64 before use. */
    {
        const long before_r = srl_test_failures;
        static const char *const res_specs[] = {"mxfp8", "mxfp8-e5m2", "mxfp6", "mxfp6-e2m3",
                                                "mxfp4", "mxint8"};
        const size_t nr = (size_t)32 * 2048;
        float *xt = malloc(nr * sizeof *xt);
        srl_rounding sr;
        if (!xt || srl_rounding_parse(&sr, "sr", &err) != SRL_OK)
            return 1;
        for (size_t fi = 0; fi < sizeof res_specs / sizeof *res_specs; fi++) {
            srl_mx_format f;
            if (srl_mx_parse(&f, res_specs[fi], &err) != SRL_OK)
                return 1;
            const srl_format *e = &f.elem;
            const int span = e->emax - e->emin; /* binades emin - 1 .. emax - 2 */
            for (int ki = 0; ki < 2 && span >= 1; ki++) {
                srl_rng g;
                srl_rng_init(&g, kinds[ki], SEED, 5);
                size_t hit = 0;
                for (size_t i = 0; i < nr; i++) {
                    xt[i] = (float)ldexp(1.0, i % 32 == 0 ? e->emax : e->emin);
                    if (i % 32 == 0)
                        continue;
                    const uint64_t d = srl_rng_draw_at(&g, START + i) >> 32;
                    const int a = e->emin - 1 + (int)(i % (size_t)span);
                    const int lq = (a > e->emin ? a : e->emin) - e->p + 1, lQ = lq - a + 24;
                    const uint64_t t = (d >> (32 - lQ)) + 1;
                    /* m = (t - 3 2^23) / 3 mod Q (0xAA...AB: 3's inverse mod 2^64) */
                    const uint64_t m = ((t - 3 * (UINT64_C(1) << 23)) * UINT64_C(0xAAAAAAAAAAAAAAAB)) &
                                       ((UINT64_C(1) << lQ) - 1);
                    if (!(t & 1) || m >= (UINT64_C(1) << 23) / 3)
                        continue;
                    const double x = ldexp((double)((UINT64_C(1) << 23) + m), a - 22);
                    const double v = 0.75 * x, q = ldexp(1.0, lq), ulp = ldexp(1.0, a - 23);
                    const double down = floor(v / q) * q, hz = floor(v / ulp) * ulp;
                    const double X = ldexp((v - down) / q, 32), Xz = ldexp((hz - down) / q, 32);
                    if (!(Xz <= (double)d && (double)d < X))
                        continue;
                    xt[i] = (float)(i % 3 == 1 ? -x : x);
                    hit++;
                }
                CHECK(hit >= 2000, "%s: only %zu lanes where the residual decides",
                      res_specs[fi], hit);
                snprintf(what, sizeof what, "%s 3/4 sr %s, lanes where v's last bits decide (%zu)",
                         res_specs[fi], ki ? "pcg64" : "pcg32", hit);
                check_mx(xt, nr, &f, SRL_MX_34, sr, kinds[ki], what);
            }
        }
        free(xt);
        snprintf(what, sizeof what, "level %s: block formats' 3/4 sr below binary32's last place",
                 names[lvl]);
        GROUP(what, before_r);
    }

    /* NVFP4 at its elements' and its scales' decisions (src/ops/mx_nv_isa.h makes both from
     * exact products):
     * a first block whose 2688 makes the tensor scale 1 (ocp, ceil), then blocks whose largest
     * magnitude 6 s_b makes the block scale s_b (a few E4M3 values, normal and subnormal), their
     * other elements E2M1's grid points and midpoints times s_b (exact binary32 numbers: ties,
     * exact results) and one binary32 unit either side, both signs; every rule, mode and
     * stream. */
    {
        const long before_nv = srl_test_failures;
        static const double sbs[] = {1, 0.75, 0x1p-4, 0x1.8p-7, 0x1p-9, 0x1.cp5};
        static const double pos[] = {0.25, 0.5, 0.75, 1, 1.25, 1.5, 1.75, 2,
                                     2.5,  3,   3.5,  4, 5,    6,   7};
        srl_mx_format f;
        srl_format e4m3s;
        const srl_format *fs_e4m3 = &e4m3s;
        float *xt = calloc(N_MIX, sizeof *xt);
        if (!xt || srl_mx_parse(&f, "nvfp4", &err) != SRL_OK ||
            srl_format_parse(&e4m3s, "e4m3,saturate=on", &err) != SRL_OK)
            return 1;
        size_t n = 16;
        xt[0] = 2688;
        for (size_t si = 0; si < sizeof sbs / sizeof *sbs; si++)
            for (size_t pi = 0; pi < sizeof pos / sizeof *pos; pi++) {
                const float v = (float)(pos[pi] * sbs[si]);
                const float near[3] = {v, nextafterf(v, 0), nextafterf(v, INFINITY)};
                for (int k = 0; k < 3; k++) {
                    if (n % 16 == 0)
                        xt[n++] = (float)(6 * sbs[si]);
                    xt[n] = n % 3 ? near[k] : -near[k];
                    n++;
                }
            }
        n -= n % 16;
        /* then blocks whose largest magnitude is 6 s for s each E4M3 value and midpoint (s_b's
         * ties under the ocp rule, exact quotients under ceil) and one binary32 unit either
         * side, eight blocks to a vector of the scale pass; below 448, so that 2688 stays the
         * largest magnitude and the tensor scale 1 */
        double prev = 0;
        for (uint64_t code = 1; code < 0x7E && n + 80 <= N_MIX; code++) {
            double v;
            if (srl_format_decode(&v, fs_e4m3, code) != SRL_OK)
                continue;
            const double mid = (prev + v) / 2;
            prev = v;
            const float c[5] = {(float)(6 * v), (float)(6 * mid), nextafterf((float)(6 * mid), 0),
                                nextafterf((float)(6 * mid), INFINITY),
                                nextafterf((float)(6 * v), INFINITY)};
            for (int q = 0; q < 5; q++) {
                xt[n] = c[q], xt[n + 1] = -c[q] / 3, xt[n + 2] = c[q] / 7, xt[n + 3] = (float)mid;
                for (int z = 4; z < 16; z++)
                    xt[n + (size_t)z] = xt[n + (size_t)z % 4] / (float)(z + 1);
                n += 16;
            }
        }
        snprintf(ctx, sizeof ctx, "grid and midpoints (%zu values)", n);
        check_mx_every(xt, n, &f, ms, "nvfp4", ctx);
        free(xt);
        snprintf(what, sizeof what, "level %s: nvfp4 at E2M1's grid and midpoints", names[lvl]);
        GROUP(what, before_nv);
    }

    /* NVFP4 under a tensor scale s_t of 24 bits (v = s_b s_t and the thresholds are no binary32
     * numbers) whose 1 / (6 s_t) rounds down in binary32: src/ops/mx_nv_isa.h's estimates of
     * s_b's code and of an element's place on E2M1's grid then fall below the exact ones where
     * the quotient is just above an E4M3 value or midpoint G, and the correcting comparison
     * decides. s_t is the first such with at least four G of each kind where the estimate of
     * the least binary32 amax above 6 G s_t falls below G. Blocks led by that amax, the one
     * below and the one above it, for each G; their other elements g G s_t, g E2M1's grid
     * points and midpoints up to 5, rounded, and one unit either side; every rule, mode and
     * stream. */
    {
        const long before_ts = srl_test_failures;
        static const double pos[] = {0.25, 0.5, 0.75, 1, 1.25, 1.5, 1.75, 2,
                                     2.5,  3,   3.5,  4, 5,    6,   7};
        srl_mx_format f;
        srl_format e4m3s;
        srl_rounding rn, sr;
        float *xt = calloc(N_MIX, sizeof *xt), y16[16], x16[16] = {0};
        if (!xt || srl_mx_parse(&f, "nvfp4", &err) != SRL_OK ||
            srl_format_parse(&e4m3s, "e4m3,saturate=on", &err) != SRL_OK ||
            srl_rounding_parse(&rn, "rn", &err) != SRL_OK ||
            srl_rounding_parse(&sr, "sr", &err) != SRL_OK)
            return 1;
        double ts = 1;
        for (uint32_t mt = 0x2345; ; mt += 2) { /* (the tensor scale as ocp and ceil make it) */
            x16[0] = (float)(2688 * (1 + ldexp(mt, -23)));
            if (srl_mx_quantize_float(y16, NULL, &ts, x16, 16, &f, SRL_MX_OCP, rn, NULL) !=
                SRL_OK)
                return 1;
            const float tf = (float)ts, rd = (float)(1 / (6 * ts));
            uint32_t tb;
            memcpy(&tb, &tf, sizeof tb);
            if (!((double)rd < 1 / (6 * ts) && (tb & 1))) /* (24 bits) */
                continue;
            int below[2] = {0, 0};
            double pv = 0;
            for (uint64_t code = 1; code < 0x7E; code++) {
                double v;
                if (srl_format_decode(&v, &e4m3s, code) != SRL_OK)
                    return 1;
                for (int h = 0; h < 2; h++) {
                    const double gv = h ? (pv + v) / 2 : v;
                    float a = (float)(6 * gv * ts); /* (6 G s_t: exact in binary64) */
                    if ((double)a <= 6 * gv * ts)
                        a = nextafterf(a, INFINITY);
                    below[h] += (double)(float)((double)a * rd) < gv;
                }
                pv = v;
            }
            if (below[0] >= 4 && below[1] >= 4)
                break;
        }
        size_t n = 16;
        xt[0] = x16[0];
        double prev = 0;
        for (uint64_t code = 1; code < 0x7E && n + 96 <= N_MIX; code++) {
            double v;
            if (srl_format_decode(&v, &e4m3s, code) != SRL_OK)
                return 1;
            const double mv[2] = {v, (prev + v) / 2};
            prev = v;
            for (int q = 0; q < 6; q++) {
                const double m = mv[q % 2];
                float a = (float)(6 * m * ts);
                if ((double)a <= 6 * m * ts)
                    a = nextafterf(a, INFINITY); /* (the least above 6 m s_t) */
                xt[n] = q / 2 == 0 ? a : nextafterf(a, q / 2 == 1 ? 0 : INFINITY);
                for (size_t z = 1; z < 16; z++) {
                    const float e = (float)(pos[(z - 1) % 13] * m * ts); /* (below 6) */
                    const float nz = (z + (size_t)q) % 3 == 0   ? e
                                     : (z + (size_t)q) % 3 == 1 ? nextafterf(e, 0)
                                                                : nextafterf(e, INFINITY);
                    xt[n + z] = z % 2 ? nz : -nz;
                }
                n += 16;
            }
        }
        snprintf(ctx, sizeof ctx, "s_t = %a (%zu values)", ts, n);
        check_mx_every(xt, n, &f, ms, "nvfp4", ctx);
        /* the same times 2^-100 and 2^-135: tensor scales where binary32's 4 / v, 1 / (t s_t) or
         * 2^32 / (w v) overflow, which take the comparisons one by one and the general kernel */
        float *xs2 = malloc(n * sizeof *xs2);
        if (!xs2)
            return 1;
        for (int sc = 0; sc < 2; sc++) {
            for (size_t i = 0; i < n; i++)
                xs2[i] = ldexpf(xt[i], sc ? -135 : -100);
            snprintf(ctx, sizeof ctx, "s_t = %a 2^%d (%zu values)", ts, sc ? -135 : -100, n);
            check_mx_every(xs2, n, &f, ms, "nvfp4", ctx);
        }
        free(xs2);
        /* sr where |x| = RN32(g_k v) lies just above g_k v: inexact with F = f 2^32 below 769,
         * up only for a draw below f, which binary32 lanes tell from an exact lane by
         * nv_rows_sr's lo (g_k v's part below RN32(g_k v)). The s_b and k of the largest such
         * F; the lane at each stream position (of 2^25 from START) whose draw's first 32 bits
         * are below F - 1, in a call of two blocks of its own that starts there. */
        static const double grid[8] = {0, 0.5, 1, 1.5, 2, 3, 4, 6};
        double best = 0, bsb = 0;
        int bk = 0;
        for (uint64_t code = 8; code <= 0x7E; code++) {
            double sb;
            if (srl_format_decode(&sb, &e4m3s, code) != SRL_OK)
                return 1;
            for (int k = 1; k < 7; k++) {
                const double l = grid[k] * sb * ts, fk = ((float)l - l) * 0x1p32 /
                                                          ((grid[k + 1] - grid[k]) * sb * ts);
                if (fk > best)
                    best = fk, bsb = sb, bk = k;
            }
        }
        CHECK(best > 129, "nvfp4 sr: s_t = %a: the largest F just above g_k v is %g", ts, best);
        const uint64_t dmax = (uint64_t)(best - 1); /* (a draw below: up, whatever its rest) */
        float xs[32] = {0};
        xs[0] = x16[0];
        xs[16] = (float)(6 * bsb * ts);
        xs[21] = (float)(grid[bk] * bsb * ts);
        for (int ki = 0; ki < 2; ki++) {
            srl_rng g;
            srl_rng_init(&g, kinds[ki], SEED, 5);
            srl_rng_seek(&g, START);
            size_t hits = 0;
            for (uint64_t p = 0; p < (UINT64_C(1) << 25); p++) {
                if (srl_rng_next(&g) >> 32 >= dmax || p < 21)
                    continue;
                snprintf(what, sizeof what, "nvfp4 sr %s, |x| = RN32(%g v) = %a (F = %.1f), s_b "
                         "%g, its draw at %" PRIu64, ki ? "pcg64" : "pcg32", grid[bk],
                         (double)xs[21], best, bsb, START + p);
                check_mx_from(xs, 32, &f, SRL_MX_OCP, sr, kinds[ki], what, 0, START + p - 21);
                hits++;
            }
            CHECK(hits >= 1, "nvfp4 sr %s: no draw below %" PRIu64 " at 2^25 positions",
                  ki ? "pcg64" : "pcg32", dmax);
        }
        /* sr where each element's fraction F lies near its draw's first 32 bits d: |x| =
         * RN32(g_k v + (d + 1/2) w_k v 2^-32), F within 1536 of d (|x|'s unit is up to 2^-23
         * of g_k v < 3 w_k v), so that binary32's roundings (up to 1153) are what decide or flag
         * the lane; blocks of s_b the E4M3 values from 2^-3 up, k = 1..6 */
        for (int ki = 0; ki < 2; ki++) {
            srl_rng g;
            srl_rng_init(&g, kinds[ki], SEED, 5);
            const size_t nf = N_MIX / 16 * 16;
            double sb = 0;
            for (size_t i = 0; i < nf; i++) {
                if (i % 16 == 0) {
                    if (srl_format_decode(&sb, &e4m3s, 0x20 + i / 16 % 0x5E) != SRL_OK)
                        return 1;
                    xt[i] = i ? (float)(6 * sb * ts) : x16[0];
                    continue;
                }
                const int k = 1 + (int)(i % 6);
                const double d = (double)(srl_rng_draw_at(&g, START + i) >> 32);
                const float e = (float)(grid[k] * sb * ts +
                                        (d + 0.5) * 0x1p-32 * (grid[k + 1] - grid[k]) * sb * ts);
                xt[i] = i % 3 == 1 ? -e : e;
            }
            snprintf(what, sizeof what, "nvfp4 sr %s, s_t = %a, F near the draw (%zu values)",
                     ki ? "pcg64" : "pcg32", ts, nf);
            check_mx(xt, nf, &f, SRL_MX_OCP, sr, kinds[ki], what);
        }
        free(xt);
        snprintf(what, sizeof what, "level %s: nvfp4 under a tensor scale of 24 bits",
                 names[lvl]);
        GROUP(what, before_ts);
    }

    /* The streaming-store path: outputs over 16 MiB, starting off a 64-byte boundary. The big
     * arrays repeat the mix. One thread: a thread's share of the array is what must exceed
     * 16 MiB (with two, neither half would stream). */
#if defined(_OPENMP)
    omp_set_num_threads(1);
#endif
    const long before = srl_test_failures;
    for (size_t i = N_MIX; i < 2 * N_BIG; i++) {
        xd[i] = xd[i % N_MIX];
        xf[i] = xf[i % N_MIX];
    }
    static const size_t big_modes[] = {0, 6}; /* rn, sr (indices into mode_specs) */
    for (size_t bm = 0; bm < 2; bm++)
        for (int ki = 0; ki < (bm ? 2 : 1); ki++) { /* e4m3 (fs[0]) */
            const char *const mode = mode_specs[big_modes[bm]];
            const char *const kind = ki ? "pcg64" : "pcg32";
            snprintf(what, sizeof what, "e4m3 %s %s d2d, n = %zu", mode, kind, N_BIG - 1);
            check_path(0, xd + 1, NULL, N_BIG - 1, &fs[0], ms[big_modes[bm]], kinds[ki], what);
            /* binary64 -> binary32: over 16 MiB of binary32 output (streamed from its first
             * 64-byte line on) */
            snprintf(what, sizeof what, "e4m3 %s %s d2f, n = %zu", mode, kind, 2 * N_BIG - 1);
            check_path(2, xd + 1, NULL, 2 * N_BIG - 1, &fs[0], ms[big_modes[bm]], kinds[ki], what);
            snprintf(what, sizeof what, "e4m3 %s %s f2f, n = %zu", mode, kind, 2 * N_BIG - 1);
            check_path(1, NULL, xf + 1, 2 * N_BIG - 1, &fs[0], ms[big_modes[bm]], kinds[ki], what);
            /* bf16 of binary32: the pattern path, which takes a block's whole groups of
             * sixteen in one call (round_bulk.c), here with streaming stores and a tail */
            snprintf(what, sizeof what, "bf16 %s %s f2f, n = %zu", mode, kind, 2 * N_BIG - 1);
            check_path(1, NULL, xf + 1, 2 * N_BIG - 1, &fs[2], ms[big_modes[bm]], kinds[ki], what);
        }
    {
        /* MX: each tile streamed, from x86-64-v4 by the tile itself (lanes_isa.h's out16: off
         * a line each line from two groups, the partial lines at a tile's ends by masks), below
         * out of the workspace (round_bulk.c, stream_copy32: the lanes up to the first 64-byte
         * line and after the last by plain stores); the output 0, 4 and 15 floats past a line,
         * the carry forms (mxfp4, the wide 3/4 form of e4m3) and the general one (mxint8);
         * nvfp4's rn and sr by comparisons, streamed a block at a time through out16 too */
        static const struct {
            const char *fmt;
            srl_mx_rule rule;
            size_t mode, yoff;
        } bigs[] = {{"mxfp4", SRL_MX_OCP, 0, 4},      {"mxfp4", SRL_MX_OCP, 1, 4},
                    {"mxfp4", SRL_MX_OCP, 0, 0},      {"mxfp4", SRL_MX_OCP, 1, 15},
                    {"mxfp8-e4m3", SRL_MX_34, 1, 0},  {"mxfp8-e4m3", SRL_MX_34, 0, 15},
                    {"mxint8", SRL_MX_CEIL, 1, 1},    {"nvfp4", SRL_MX_OCP, 0, 4},
                    {"nvfp4", SRL_MX_CEIL, 0, 0},     {"nvfp4", SRL_MX_34, 0, 15},
                    {"nvfp4", SRL_MX_OCP, 1, 4}};
        for (size_t q = 0; q < sizeof bigs / sizeof *bigs; q++) {
            srl_mx_format f;
            if (srl_mx_parse(&f, bigs[q].fmt, &err) != SRL_OK)
                return 1;
            const size_t mi = big_modes[bigs[q].mode];
            snprintf(what, sizeof what, "%s %s %s pcg32, n = %zu, output %zu floats past a line",
                     bigs[q].fmt, srl_mx_rule_name(bigs[q].rule), mode_specs[mi], 2 * N_BIG - 1,
                     bigs[q].yoff);
            check_mx_at(xf + 1, 2 * N_BIG - 1, &f, bigs[q].rule, ms[mi], kinds[0], what,
                        bigs[q].yoff);
        }
        /* Flagged lanes in streamed tiles: the fix-ups after the streaming stores. Blocks of 32
         * whose first element is 1 to 2 and whose others lie 2^0 to 2^-30 below it, so that
         * about half the lanes fall in E's subnormal range or below it: the general form's
         * flagged lanes (ru, sr:r=7: the kernel's value there is not the result, so a fix-up
         * that does not land fails), and the carry forms' (sr of mxfp4 ocp, and of mxfp8-e4m3
         * under the 3/4 rule: one tiny lane in 256 flagged, its draw below 2^24), the output off
         * a line and on one. (Without the fix-ups on the streamed path these cases fail 914273
         * checks, at x86-64-v4.) */
        {
            const size_t nt2 = 2 * N_BIG - 1;
            float *const xs = malloc(nt2 * sizeof *xs);
            CHECK(xs != NULL, "out of memory");
            srl_rng gs;
            srl_rng_init(&gs, SRL_RNG_PCG64, SEED, 10);
            for (size_t i = 0; xs && i < nt2; i++) {
                const int e = i % 32 == 0 ? 0 : (int)(srl_rng_next(&gs) % 31);
                xs[i] = (float)(ldexp(1.0 + srl_rng_uniform(&gs), -e) *
                                (srl_rng_next(&gs) & 1 ? -1 : 1));
            }
            static const struct {
                const char *fmt;
                srl_mx_rule rule;
                size_t mode, yoff; /* (mode: an index into mode_specs) */
            } tin[] = {{"mxfp4", SRL_MX_OCP, 3, 4},
                       {"mxfp6-e3m2", SRL_MX_OCP, 9, 0},
                       {"mxfp4", SRL_MX_OCP, 6, 4},
                       {"mxfp8-e4m3", SRL_MX_34, 6, 0}};
            for (size_t q = 0; xs && q < sizeof tin / sizeof *tin; q++) {
                srl_mx_format f;
                if (srl_mx_parse(&f, tin[q].fmt, &err) != SRL_OK)
                    return 1;
                snprintf(what, sizeof what,
                         "%s %s %s pcg32, n = %zu, tiny lanes, output %zu floats past a line",
                         tin[q].fmt, srl_mx_rule_name(tin[q].rule), mode_specs[tin[q].mode], nt2,
                         tin[q].yoff);
                check_mx_at(xs, nt2, &f, tin[q].rule, ms[tin[q].mode], kinds[0], what,
                            tin[q].yoff);
            }
            free(xs);
        }
        /* nvfp4 of a large array whose tensor scale nv_codes16 estimates the scales under (the
         * mix above has extremes that put it outside that range): the array's largest finite
         * magnitude shares its block with an infinity, in the last thread's share; another block
         * (the largest before) has a NaN; one thread and two (whose tensor maximum is a
         * reduction over the threads), rn and sr. Magnitudes from 2^-24 to 2^10. */
        const size_t nn = ((size_t)1 << 20) + 16 * 3 + 5;
        float *const xt = malloc(nn * sizeof *xt);
        srl_mx_format f;
        if (!xt || srl_mx_parse(&f, "nvfp4", &err) != SRL_OK)
            return 1;
        srl_rng gv;
        srl_rng_init(&gv, SRL_RNG_PCG64, SEED, 9);
        size_t im = 0;
        for (size_t i = 0; i < nn; i++) { /* (as make_inputs makes its first run) */
            xt[i] = (float)(ldexp(1.0 + srl_rng_uniform(&gv), (int)(srl_rng_next(&gv) % 34) - 24) *
                            (srl_rng_next(&gv) & 1 ? -1 : 1));
            if (fabsf(xt[i]) > fabsf(xt[im]))
                im = i;
        }
        const size_t ip = nn - 16 * 7 - 9;
        xt[ip] = 2 * fabsf(xt[im]);
        xt[ip / 16 * 16 + (ip % 16 == 0)] = INFINITY;
        xt[im / 16 * 16 + 3] = NAN;
        for (int th = 1; th <= 2; th++)
            for (size_t bm = 0; bm < 2; bm++) {
#if defined(_OPENMP)
                omp_set_num_threads(th);
#endif
                const size_t mi = big_modes[bm];
                snprintf(what, sizeof what,
                         "nvfp4 ocp %s pcg32, n = %zu, largest finite beside an infinity, %d "
                         "thread%s",
                         mode_specs[mi], nn, th, th > 1 ? "s" : "");
                check_mx(xt, nn, &f, SRL_MX_OCP, ms[mi], kinds[0], what);
            }
        /* the same values' first 16 (3 64 + 8) + 5: a last chunk of eight whole blocks, whose
         * scale codes nv_codes16 makes eight at a time (its other chunks: sixteen) */
        for (size_t bm = 0; bm < 2; bm++) {
            const size_t mi = big_modes[bm], n8 = 16 * (3 * 64 + 8) + 5;
            snprintf(what, sizeof what, "nvfp4 ocp %s pcg32, n = %zu (a last chunk of 8 blocks)",
                     mode_specs[mi], n8);
            check_mx(xt, n8, &f, SRL_MX_OCP, ms[mi], kinds[0], what);
        }
        free(xt);
#if defined(_OPENMP)
        omp_set_num_threads(1);
#endif
    }
    snprintf(what, sizeof what, "level %s: outputs over 16 MiB (streaming stores)", names[lvl]);
    GROUP(what, before);
    free(xd), free(xf);
    TEST_END();
}
