/* tests/linalg/test_mxgemm_det.c: the product of block-scaled operands (include/srlab/mxgemm.h)
 * gives the same bits for any thread count and without OpenMP, suite `determinism`.
 *
 * Built twice (tests/linalg/meson.build): against libsrlab (OpenMP) and libsrlab_noomp. The
 * workload multiplies fixed operands large enough that the rows' quantization and the engine
 * both fork (m k above 32768 values, m n k above the kernels' threshold), in the three layouts,
 * with each path of src/linalg/mx_gemm.c: MX on the bulk kernels in one flat call (k a multiple
 * of 32) and row by row (k = 330), MX through binary64 (block 24), with the RHT and the fixed
 * rotation, NVFP4; stochastic operands and accumulators. It hashes every output bit and the
 * final stream counters; tests/core/determinism.sh compares the OpenMP build at 1, 2, 3, 8
 * threads with the OpenMP-free build. */
#include <math.h>
#include <stdint.h>
#include <stdlib.h>

#include "srlab/mxgemm.h"
#include "srlab/rng.h"
#include "../testdet.h"

#define SEED UINT64_C(0x6d7864)

static const struct {
    const char *spec;
    size_t k;
} cases[] = {
    {"fmt=mxfp4,round=sr,scale=3/4,rot=rht,acc=fp32:sr", 320},
    {"fmt=mxfp8,round=sr", 320},
    {"fmt=mxfp6,round=sr,acc=bf16:sr", 330},
    {"fmt=mxfp4,block=24,round=sr:r=3", 330},
    {"fmt=nvfp4,round=sr,rot=hadamard,rot-block=64", 320},
};

static int run_digest(uint64_t *h)
{
    const size_t m = 112, n = 40, kmax = 330;
    float *A = malloc(m * kmax * sizeof *A), *B = malloc(kmax * m * sizeof *B),
          *C = malloc(m * m * sizeof *C);
    if (!A || !B || !C)
        return 1;
    srl_rng d;
    srl_rng_init(&d, SRL_RNG_PCG64, SEED, 0);
    for (size_t i = 0; i < m * kmax; i++) {
        A[i] = (float)(srl_rng_normal(&d) * ldexp(1.0, (int)(i / 97 % 9) - 4));
        B[i] = (float)srl_rng_normal(&d);
    }
    uint64_t dg = SRL_FNV1A64_BASIS;
    for (size_t ci = 0; ci < sizeof cases / sizeof *cases; ci++)
        for (int lay = 0; lay < 3; lay++) {
            srl_mxgemm c = srl_mxgemm_default();
            if (srl_mxgemm_parse(&c, cases[ci].spec, NULL) != SRL_OK)
                return 1;
            srl_rng g;
            srl_rng_init(&g, SRL_RNG_DEFAULT, SEED + ci, (uint64_t)lay);
            if (srl_mxgemm_f(C, A, B, m, n, cases[ci].k, (srl_mxgemm_layout)lay, &c, &g))
                return 1;
            dg = srl_fnv1a64(C, m * n * sizeof *C, dg);
            dg = srl_fnv1a64(&g.counter, sizeof g.counter, dg);
        }
    free(A), free(B), free(C);
    *h = dg;
    return 0;
}

int main(int argc, char **argv)
{
    return srl_test_det_main(argc, argv, "block GEMM (srl_mxgemm_f)", SEED, run_digest);
}
