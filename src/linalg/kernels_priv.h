/* src/linalg/kernels_priv.h: test hooks of src/linalg/kernels.c (private).
 *
 * The vector engines exist once per instruction set (baseline x86-64, x86-64-v3, x86-64-v4;
 * src/linalg/kernels_isa.h) and must give the same bits; the CPU picks one. Tests run them all. */
#ifndef SRL_KERNELS_PRIV_H
#define SRL_KERNELS_PRIV_H

#include <stddef.h>

#include "srlab/kernels.h"

/* With force >= 0, use instruction-set level min(force, what the CPU supports) from now on
 * (0 baseline, 1 x86-64-v3, 2 x86-64-v4, 3 x86-64-v4 with AVX-512 BF16); with force < 0, go back
 * to the CPU's choice. Returns the level now in use. Not thread-safe: call it between kernel
 * calls. */
int srl__kernels_isa(int force);

/* Which engine srl_gemm (isf = 0) or srl_gemm_f/_nt_f/_tn_f (isf = 1, the same decision) would
 * run for these operands (A holds m*k values, B k*n, in any of the layouts): one of the values
 * below, or -2 for an invalid call or an empty product. Tests use it to show that their cases
 * reach every engine. */
enum {
    SRL__ENGINE_SCALAR = 0,   /* one operation at a time (pairwise, Kahan, pcg64 with sr) */
    SRL__ENGINE_NATIVE32,     /* binary32 hardware: prod and acc binary32 rn */
    SRL__ENGINE_NATIVE32_FMA, /* the same with fmaf */
    SRL__ENGINE_NATIVE64,     /* binary64 hardware */
    SRL__ENGINE_NATIVE64_FMA, /* the same with fma */
    SRL__ENGINE_LANES64,      /* emulated, eight binary64 lanes */
    SRL__ENGINE_LANES32,      /* emulated, sixteen binary32 lanes (products exact in binary32) */
    SRL__ENGINE_PACKED_EMU32, /* emulated on the packed binary32 engine (x86-64-v4) */
    SRL__ENGINE_COUNT
};
int srl__kernels_engine(const srl_accum *c, const void *A, const void *B, size_t m, size_t n,
                        size_t k, int isf, const srl_rng *rng);

#endif
