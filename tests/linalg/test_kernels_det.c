/* tests/linalg/test_kernels_det.c: the kernels give the same bits for any thread count and
 * without OpenMP (include/srlab/kernels.h: "identical for any thread count and without OpenMP"),
 * suite `determinism`.
 *
 * Built twice (tests/linalg/meson.build): against libsrlab (OpenMP) and libsrlab_noomp. Each
 * run computes one fixed workload: srl_gemm_f, srl_gemm_nt_f, srl_gemm_tn_f and srl_gemm on
 * shapes large enough that the OpenMP build splits them into many tiles (sizes not multiples of
 * the tile width or of the thread counts), srl_gemv and srl_axpy above their thresholds, srl_sum
 * and srl_dot, in configurations that take every engine (native binary32/binary64 with and
 * without fma, the binary32 and binary64 lanes with sr, rn, blocked orders, the packed
 * engine's emulation with promoted joins (join=fp32:rn), the scalar engine
 * for Kahan, pairwise and pcg64 streams) on bf16-valued, binary32 and binary64 inputs with
 * zeros, cancellations and extreme exponents. The native binary32 configs also run shapes that
 * the packed engine (src/linalg/gemm32.c) cuts into several chunks of k, blocks of rows, and
 * threads' bands of rows (a tall product) or of columns (a wide one). The digest is a 64-bit FNV-1a hash of every
 * output bit and every final stream counter, in a fixed order.
 *
 *   test_kernels_det            OpenMP build: the workload at 1, 2, 3 and 8 threads in-process;
 *                               fails unless the four digests agree; prints the digest.
 *   test_kernels_det --digest   prints only the digest (default thread count), for
 *                               tests/core/determinism.sh, which compares the OpenMP build at
 *                               OMP_NUM_THREADS=1,2,3,8 with the OpenMP-free build.
 * Equality is exact: there is no tolerance. */
#include <math.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>


#include "srlab/kernels.h"
#include "srlab/rng.h"
#include "srlab/rounding.h"
#include "../testdet.h"

#define SEED UINT64_C(0xde7e2a1c)

static const char *const specs[] = {
    "prod=fp32:rn,acc=fp32:rn",
    "prod=fp32:rn,acc=fp32:rn,fma=on",
    "prod=fp32:rn,acc=fp32:rn,order=blocked:100",
    "prod=bf16:rn,acc=fp32:rn",
    "prod=bf16:rn,acc=bf16:sr",
    "prod=fp32:rn,acc=bf16:sr",
    "prod=bf16:sr,acc=fp16:sr:r=13,order=blocked:16",
    "prod=tf32:rn,acc=bf16:rn,order=blocked:9",
    "prod=bf16:sr,acc=bf16:sr,kahan=on",
    "prod=fp32:rn,acc=bf16:sr,order=pairwise",
    "prod=fp64:rn,acc=fp64:rn",
    "prod=fp64:rn,acc=fp64:rn,fma=on",
    "prod=fp64:rn,acc=bf16:sr-eq",
    "prod=fp32:rn,acc=(p=14,emax=127,emin=-126):rz,order=blocked:128,join=fp32:rn",
    "prod=bf16:rn,acc=bf16:sr,order=blocked:16,join=fp32:rn",
};
#define NSPECS (sizeof specs / sizeof specs[0])

typedef struct digest {
    uint64_t h;
} digest;

static void absorb(digest *d, const void *p, size_t n)
{
    d->h = srl_fnv1a64(p, n, d->h);
}

/* Inputs: 0 bf16 values, 1 binary32, 2 binary64, each with zeros, cancellations and a few
 * extreme magnitudes. */
static void gen(double *x, size_t n, int cls, uint64_t seed)
{
    srl_rng g;
    srl_rng_init(&g, SRL_RNG_PCG64, seed, 5);
    const srl_format *bf16 = srl_format_find("bf16");
    for (size_t i = 0; i < n; i++) {
        double v = srl_rng_normal(&g);
        const uint64_t u = srl_rng_next(&g);
        if (u % 23 == 0)
            v = 0.0;
        else if (u % 23 == 1 && i > 0)
            v = -x[i - 1];
        else if (u % 23 == 2)
            v = ldexp(v, (int)((u >> 8) % 41) - 20);
        if (cls == 0)
            v = srl_round(v, bf16, SRL_ROUND_RN, NULL);
        else if (cls == 1)
            v = (float)v;
        x[i] = v;
    }
}

static int check_status(int st, const char *what, const char *spec)
{
    if (st != SRL_OK) {
        fprintf(stderr, "%s with %s: status %d\n", what, spec, st);
        return -1;
    }
    return 0;
}

static int run_digest(uint64_t *out)
{
    enum { M = 37, N = 131, K = 67, M2 = 4, N2 = 70, K2 = 200, NV = 40000 };
    enum { M3 = 150, N3 = 40, K3 = 600 }; /* the packed engine's cuts */
    const size_t na = (size_t)M3 * K3, nb = na; /* also B of N3 x M3 ... M3 x K3 */
    double *A = malloc(na * sizeof *A), *B = malloc(nb * sizeof *B), *C = malloc(NV * sizeof *C);
    double *x = malloc(NV * sizeof *x), *y = malloc(NV * sizeof *y);
    float *Af = malloc(na * sizeof *Af), *Bf = malloc(nb * sizeof *Bf), *Cf = malloc(NV * sizeof *Cf);
    digest d = {SRL_FNV1A64_BASIS};
    int status = 0;
    for (size_t si = 0; si < NSPECS && !status; si++) {
        srl_accum c = srl_accum_binary64();
        srl_err err;
        if (srl_accum_parse(&c, specs[si], &err) != SRL_OK) {
            fprintf(stderr, "%s: %s\n", specs[si], err.msg);
            status = -1;
            break;
        }
        const bool fits = srl_format_fits_float(&c.acc_fmt);
        for (int cls = 0; cls < 3 && !status; cls++) {
            for (int kind = cls == 0 ? 0 : 1; kind < 2 && !status; kind++) { /* pcg64 once */
                const uint64_t salt = 100 * si + 10 * (uint64_t)cls + (uint64_t)kind;
                srl_rng r;
                srl_rng_init(&r, kind ? SRL_RNG_PCG32 : SRL_RNG_PCG64, SEED, salt);
                srl_rng_seek(&r, (UINT64_C(1) << 36) + 7919 * salt);
                gen(A, na, cls, SEED + salt);
                gen(B, nb, cls, SEED + salt + 1);
                for (size_t i = 0; i < na; i++)
                    Af[i] = (float)A[i];
                for (size_t i = 0; i < nb; i++)
                    Bf[i] = (float)B[i];
                if (fits) {
                    status |= check_status(srl_gemm_f(Cf, Af, Bf, M, N, K, &c, &r), "gemm_f",
                                           specs[si]);
                    absorb(&d, Cf, (size_t)M * N * sizeof *Cf);
                    status |= check_status(srl_gemm_nt_f(Cf, Af, Bf, M2, N2, K2, &c, &r),
                                           "gemm_nt_f", specs[si]);
                    absorb(&d, Cf, (size_t)M2 * N2 * sizeof *Cf);
                    status |= check_status(srl_gemm_tn_f(Cf, Af, Bf, M, N, K, &c, &r),
                                           "gemm_tn_f", specs[si]);
                    absorb(&d, Cf, (size_t)M * N * sizeof *Cf);
                }
                if (fits && c.acc_fmt.p == 24 && c.acc_mode.mode == SRL_RN && !c.kahan) {
                    status |= check_status(srl_gemm_f(Cf, Af, Bf, M3, N3, K3, &c, &r), "gemm_f",
                                           specs[si]);
                    absorb(&d, Cf, (size_t)M3 * N3 * sizeof *Cf);
                    status |= check_status(srl_gemm_nt_f(Cf, Af, Bf, N3, M3, K3, &c, &r),
                                           "gemm_nt_f", specs[si]);
                    absorb(&d, Cf, (size_t)M3 * N3 * sizeof *Cf);
                }
                status |= check_status(srl_gemm(C, A, B, M2, N2, K2, &c, &r), "gemm", specs[si]);
                absorb(&d, C, (size_t)M2 * N2 * sizeof *C);
                gen(x, NV, cls, SEED + salt + 2);
                gen(y, NV, cls, SEED + salt + 3);
                status |= check_status(srl_gemv(C, x, y, 100, 400, &c, &r), "gemv", specs[si]);
                absorb(&d, C, 100 * sizeof *C);
                status |= check_status(srl_axpy(y, x[7], x, NV, &c, &r), "axpy", specs[si]);
                absorb(&d, y, NV * sizeof *y);
                double s = 0;
                status |= check_status(srl_dot(&s, x, y, 1000, &c, &r), "dot", specs[si]);
                absorb(&d, &s, sizeof s);
                status |= check_status(srl_sum(&s, x, 1500, &c, &r), "sum", specs[si]);
                absorb(&d, &s, sizeof s);
                absorb(&d, &r.counter, sizeof r.counter);
                const uint64_t next = srl_rng_next(&r); /* the stream's position, too */
                absorb(&d, &next, sizeof next);
            }
        }
    }
    free(A);
    free(B);
    free(C);
    free(x);
    free(y);
    free(Af);
    free(Bf);
    free(Cf);
    *out = d.h;
    return status;
}

int main(int argc, char **argv)
{
    return srl_test_det_main(argc, argv, "kernels", SEED, run_digest);
}
