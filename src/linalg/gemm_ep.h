/* src/linalg/gemm_ep.h: a binary32 matrix product with an epilogue (private): work on the outputs
 * done where they are computed, by the thread that has just written them, while they are in its
 * cache (the models round each product's output into their activation or gradient slot this
 * way: src/problems/model_ops.h, mm_lin_rounded). src/linalg/gemm32.c runs the epilogue on its
 * threads' units of rows (bands with stealing); every other engine leaves it to the caller. */
#ifndef SRL_LINALG_GEMM_EP_H
#define SRL_LINALG_GEMM_EP_H

#include <stdbool.h>
#include <stddef.h>

#include "srlab/kernels.h"

/* An epilogue of a binary32 product (private; srl__gemm_f_ep): fn(ctx, e0, len) on the elements
 * [e0, e0 + len) of C (row-major) once their sums are final, on the thread that has just written
 * them (while they are in its cache), before the call returns. */
typedef struct srl__gemm_ep {
    int (*fn)(void *ctx, size_t e0, size_t len);
    void *ctx;
    bool done;  /* set by the engine: fn ran on every element (else the caller must) */
    int status; /* a failure fn returned (SRL_OK: none) */
} srl__gemm_ep;

/* srl_gemm_f (layout 0), srl_gemm_nt_f (1) or srl_gemm_tn_f (2), with the epilogue ep where the
 * engine runs one (the packed engine, on its threads); ep->done says whether it did. */
int srl__gemm_f_ep(float *C, const float *A, const float *B, size_t m, size_t n, size_t k,
                   int layout, const srl_accum *c, srl_rng *rng, srl__gemm_ep *ep);

#endif
