/* tests/core/test_determinism.c: bulk rounding gives the same bits for any thread count and
 * without OpenMP (docs/design.md §4, include/srlab/rounding.h: "bit-identical for any thread count"),
 * suite `determinism`.
 *
 * Built twice (tests/core/meson.build): against libsrlab (OpenMP) and libsrlab_noomp. Each run
 * computes one fixed workload: about 3e6 values through srl_round_array, srl_round_array_float
 * and srl_round_array_d2f, every mode, both stream kinds, arrays longer than the bulk calls'
 * fork thresholds (SRL_BULK_OMP_MIN; SRL_BULK_OMP_MAX for binary32 in and out, whose pattern
 * path waits longer: so the OpenMP build splits them) with lengths that are not multiples of
 * the thread counts, inputs
 * that take both the fast and the reference paths; plus three binary64 arrays of 2^22 + 37
 * elements (blocks above 16 MiB at one or two threads, below at three or eight). The digest is a 64-bit FNV-1a hash of every
 * output bit and every final stream counter, in a fixed order.
 *
 *   test_determinism            OpenMP build: the workload at 1, 2, 3 and 8 threads in-process;
 *                               fails unless the four digests agree; prints the digest.
 *   test_determinism --digest   prints only the digest (default thread count), for
 *                               tests/core/determinism.sh, which compares the OpenMP build at
 *                               OMP_NUM_THREADS=1,2,3,8 with the OpenMP-free build.
 * Equality is exact: there is no tolerance. */
#include <math.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>


#include "round/round_bulk.h" /* SRL_BULK_OMP_MIN */
#include "srlab/format.h"
#include "srlab/rng.h"
#include "srlab/rounding.h"
#include "../testdet.h"

#define SEED UINT64_C(0xde7e2a1)

static const char *const mode_specs[] = {"rn", "rna", "rz", "ru", "rd", "ro", "sr", "sr-eq",
                                         "sr:r=1", "sr:r=7", "sr:r=16", "sr:r=23", "sr:r=52",
                                         "sr:r=64"};
#define NMODES (sizeof mode_specs / sizeof mode_specs[0])

/* Formats for the float functions must be binary32 subsets; the double function also gets one
 * whose range extends below binary64's normal numbers. */
static const char *const float_formats[] = {"bf16", "fp16", "e4m3", "tf32", "e4m3,saturate=on",
                                            "p=5,emax=15,inf=off"};
static const char *const double_formats[] = {"bf16", "fp16", "e5m2", "p=10,emax=20,emin=-1060",
                                             "fp16,subnormals=off", "p=52,emax=1023"};
#define NFF (sizeof float_formats / sizeof float_formats[0])
#define NDF (sizeof double_formats / sizeof double_formats[0])

typedef struct digest {
    uint64_t h;
} digest;

static void absorb(digest *d, const void *p, size_t n)
{
    d->h = srl_fnv1a64(p, n, d->h);
}

/* Inputs around format f: mostly normal-range values (fast path), plus subnormal-range values,
 * ties, values far below the grid, overflow neighbours and specials (reference path). */
static void gen(double *x, size_t n, const srl_format *f, uint64_t seed)
{
    srl_rng g;
    srl_rng_init(&g, SRL_RNG_PCG64, seed, 11u);
    for (size_t i = 0; i < n; i++) {
        const uint64_t u = srl_rng_next(&g);
        const double m = 1.0 + (double)(u >> 12) * 0x1p-52;
        const int span = f->emax - f->emin + 1;
        const int e = f->emin + (int)((u >> 4) % (uint64_t)span);
        double v;
        switch (u % 16) {
        case 0: v = ldexp(m, f->emin - 1 - (int)((u >> 20) % 8)); break;  /* subnormal range */
        case 1: v = ldexp(m, f->emin - f->p - 70); break;                  /* far below */
        case 2: v = ldexp((double)(2 * ((u >> 9) % 64) + 1), e - f->p); break; /* tie */
        case 3: v = f->xmax * (1 + ((u >> 8) % 4) * 0x1p-9); break;        /* overflow zone */
        case 4: {
            const double s[] = {NAN, INFINITY, 0.0, 1.0};
            v = s[(u >> 8) % 4];
            break;
        }
        default: v = ldexp(m, e); break;
        }
        x[i] = (u >> 63) ? -v : v;
    }
}

static int parse_all(srl_format *ff, srl_format *df, srl_rounding *modes)
{
    srl_err err = {{0}};
    for (size_t i = 0; i < NFF; i++)
        if (srl_format_parse(&ff[i], float_formats[i], &err) != SRL_OK)
            return fprintf(stderr, "format %s: %s\n", float_formats[i], err.msg), -1;
    for (size_t i = 0; i < NDF; i++)
        if (srl_format_parse(&df[i], double_formats[i], &err) != SRL_OK)
            return fprintf(stderr, "format %s: %s\n", double_formats[i], err.msg), -1;
    for (size_t i = 0; i < NMODES; i++)
        if (srl_rounding_parse(&modes[i], mode_specs[i], &err) != SRL_OK)
            return fprintf(stderr, "mode %s: %s\n", mode_specs[i], err.msg), -1;
    return 0;
}

/* The workload; returns 0 and sets *out, or -1 if a call fails. */
static int workload(uint64_t *out, long *values)
{
    srl_format ff[NFF], df[NDF];
    srl_rounding modes[NMODES];
    if (parse_all(ff, df, modes))
        return -1;
    const size_t nmax = SRL_BULK_OMP_MAX + 3251 + 97 * NMODES;
    double *xd = malloc(nmax * sizeof *xd), *yd = malloc(nmax * sizeof *yd);
    float *xf = malloc(nmax * sizeof *xf), *yf = malloc(nmax * sizeof *yf);
    digest d = {SRL_FNV1A64_BASIS};
    int status = 0;
    *values = 0;
    for (size_t mi = 0; mi < NMODES && !status; mi++) {
        for (int k = 0; k < 2 && !status; k++) {
            const srl_rng_kind kind = k ? SRL_RNG_PCG32 : SRL_RNG_PCG64;
            for (int fn = 0; fn < 3 && !status; fn++) {
                const size_t n = (fn == 1 ? SRL_BULK_OMP_MAX : SRL_BULK_OMP_MIN) + 3251 + 97 * mi +
                                 13 * (size_t)k;
                const size_t c = (mi * 2 + (size_t)k) * 3 + (size_t)fn;
                const srl_format *f = fn == 0 ? &df[c % NDF] : &ff[c % NFF];
                gen(xd, n, f, SEED + c);
                srl_rng r;
                srl_rng_init(&r, kind, SEED, c);
                srl_rng_seek(&r, (UINT64_C(1) << 40) + 977 * c);
                int st;
                if (fn == 0) {
                    st = srl_round_array(yd, xd, n, f, modes[mi], &r);
                    absorb(&d, yd, n * sizeof *yd);
                } else if (fn == 1) {
                    for (size_t i = 0; i < n; i++)
                        xf[i] = (float)xd[i];
                    st = srl_round_array_float(yf, xf, n, f, modes[mi], &r);
                    absorb(&d, yf, n * sizeof *yf);
                } else {
                    st = srl_round_array_d2f(yf, xd, n, f, modes[mi], &r);
                    absorb(&d, yf, n * sizeof *yf);
                }
                absorb(&d, &r.counter, sizeof r.counter);
                const uint64_t next = srl_rng_next(&r); /* the stream's position, too */
                absorb(&d, &next, sizeof next);
                *values += (long)n;
                if (st != SRL_OK) {
                    fprintf(stderr, "%s on %s %s: status %d\n",
                            fn == 0 ? "srl_round_array" : fn == 1 ? "srl_round_array_float"
                                                                  : "srl_round_array_d2f",
                            f->name, mode_specs[mi], st);
                    status = -1;
                }
            }
        }
    }
    /* One array whose blocks exceed 16 MiB of output at up to two threads (where bulk rounding
     * may use streaming stores) but not at three or eight: both code paths must agree. */
    const size_t nh = ((size_t)1 << 22) + 37;
    double *xh = malloc(nh * sizeof *xh), *yh = malloc(nh * sizeof *yh);
    if (!xh || !yh) {
        fprintf(stderr, "cannot allocate the long arrays\n");
        status = -1;
    }
    for (int c = 0; c < 3 && !status; c++) {
        const srl_rounding m = c == 0 ? modes[0] : modes[6]; /* rn, sr */
        gen(xh, nh, &df[0], SEED + 1000 + (uint64_t)c);
        srl_rng r;
        srl_rng_init(&r, c == 2 ? SRL_RNG_PCG64 : SRL_RNG_PCG32, SEED, 1000u + (uint64_t)c);
        if (srl_round_array(yh, xh, nh, &df[0], m, &r) != SRL_OK) {
            fprintf(stderr, "srl_round_array on %zu elements failed\n", nh);
            status = -1;
        }
        absorb(&d, yh, nh * sizeof *yh);
        absorb(&d, &r.counter, sizeof r.counter);
        *values += (long)nh;
    }
    free(xh);
    free(yh);
    free(xd);
    free(yd);
    free(xf);
    free(yf);
    *out = d.h;
    return status;
}

static int run_digest(uint64_t *h)
{
    long values;
    return workload(h, &values);
}

int main(int argc, char **argv)
{
    return srl_test_det_main(argc, argv, "bulk rounding", SEED, run_digest);
}
