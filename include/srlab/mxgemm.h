/* srlab/mxgemm.h: the matrix product of block-scaled operands, as tensor cores compute it: both
 * operands quantized per block along the reduction dimension (include/srlab/mx.h), the exact
 * products accumulated with an accumulation config (include/srlab/kernels.h); optionally a
 * blockwise Hadamard rotation of the reduction dimension first, random (the RHT of Tseng, Yu and
 * Park 2025) or fixed. docs/mx.md is the guide, theory/T18-block-scaled-sr.md the theory.
 *
 * Definition: C = A B with A m-by-k and B k-by-n (the layout only says where the numbers are):
 *   1. Rotation (rot=rht or rot=hadamard, block g = 2^L, 2 <= g <= 4096). Positions 0 .. k-1 of
 *      the reduction dimension are cut into blocks of g; the last k mod g positions are not
 *      rotated. On a block, every row a of A becomes 2^-h H D a and every column b of B becomes
 *      2^-(L-h) H D b, with H the Sylvester Hadamard matrix of order g (H_ij = (-1)^popcount(i&j)),
 *      h = floor(L/2), and D = diag(s_0 .. s_{g-1}): rht draws the signs, s_l = +1 or -1 for
 *      position l of the reduction dimension (the same for A and B, so
 *      (2^-h H D)^T (2^-(L-h) H D) = I and the exact product is unchanged); hadamard: D = I.
 *      The rotation is computed in binary64 by the butterfly (L stages of a + b, a - b, each
 *      rounded to nearest binary64, on the signed binary32 inputs), then scaled by the power of
 *      two: this is the exact rotation whenever the block's inputs span at most 53 - 24 - L
 *      binades (every partial sum then fits binary64), and within 2^-52 L otherwise.
 *   2. Quantization: row i of A (rotated) is quantized as srl_mx_quantize quantizes an array of
 *      k elements with a's format, scale rule and mode (blocks restart at each row; the last
 *      block of a row may be partial); column j of B likewise with b's. NVFP4's tensor scale is
 *      taken over the whole operand (A's m k values, B's k n) and kept out of the elements: the
 *      value used is e s_b (exact in binary32).
 *   3. Products and accumulation: C[i,j] = S_ij, the dot product of quantized row i and column j
 *      with the accumulation config, as srl_gemm_f defines it (its engines compute it). Every
 *      product of two quantized values (at most 7 significant bits each, exponents within
 *      binary64's) is exact in binary64: prod=fp64:rn (the default) keeps products exact.
 *   4. Epilogue: with gain G = gain_a gain_b (srl_mx_gain: 3/4 per MX operand under the 3/4
 *      rule) and tensor scales P = t_a t_b (1 for MX), when G != 1 or P != 1:
 *      C[i,j] = S_ij P / G computed exactly and rounded once, to nearest, into the accumulator
 *      format (no draw). Otherwise C = S.
 * Values beyond binary32's range after the rotation and quantization become infinities (only for
 * inputs near FLT_MAX).
 *
 * Draws (a fixed number whatever the data; rng->counter advances by srl_mxgemm_draws):
 *   counter + [0, R)            rht: R = ceil(k / 64); s_l is bit (l mod 64) of draw l / 64
 *                               (1: -1). hadamard and none: R = 0.
 *   then [0, QA)                a's mode stochastic: QA = m k, element l of row i uses i k + l
 *   then [0, QB)                b's mode stochastic: QB = n k, element l of column j uses j k + l
 *   then srl_gemm_draws(m,n,k)  the accumulation, as srl_gemm_f uses them.
 * Thread count and OpenMP do not change a bit. rng may be NULL only when nothing is drawn.
 *
 * Errors: SRL_EINVAL for NULL arguments of nonzero size, an invalid config (srl_mxgemm_check),
 * an accumulator format that is not a subset of binary32, or a NULL rng when draws are needed;
 * SRL_ERANGE when the draws do not fit in 64 bits; SRL_ENOMEM. On error nothing is written and
 * rng is unchanged. */
#ifndef SRLAB_MXGEMM_H
#define SRLAB_MXGEMM_H

#include <stddef.h>
#include <stdint.h>

#include "srlab/common.h"
#include "srlab/kernels.h"
#include "srlab/mx.h"
#include "srlab/rng.h"
#include "srlab/rounding.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef enum srl_mxgemm_rot {
    SRL_MXGEMM_ROT_NONE = 0,
    SRL_MXGEMM_ROT_RHT,      /* random signs, then the Hadamard matrix */
    SRL_MXGEMM_ROT_HADAMARD  /* the Hadamard matrix alone (deterministic) */
} srl_mxgemm_rot;

/* How one operand is quantized. */
typedef struct srl_mxgemm_operand {
    srl_mx_format fmt;
    srl_mx_rule rule;
    srl_rounding mode;
} srl_mxgemm_operand;

typedef struct srl_mxgemm {
    srl_mxgemm_operand a, b;
    srl_mxgemm_rot rot;
    int rot_block;   /* g: a power of two, 2 .. 4096 */
    srl_accum accum; /* products and accumulation of the quantized operands */
} srl_mxgemm;

/* Where the operands are: NN A m-by-k, B k-by-n; NT B given n-by-k (C = A B^T); TN A given
 * k-by-m (C = A^T B). All row-major; C is m-by-n. */
typedef enum srl_mxgemm_layout { SRL_MXGEMM_NN = 0, SRL_MXGEMM_NT, SRL_MXGEMM_TN } srl_mxgemm_layout;

/* mxfp8 for both operands, rn, the OCP rule, no rotation (block 32 when one is set), products
 * exact and accumulation in binary32 to nearest: "prod=fp64:rn,acc=fp32:rn" in the recursive
 * order. */
srl_mxgemm srl_mxgemm_default(void);

/* Parse "KEY=VALUE,..." into *c; missing keys keep *c's values (start from srl_mxgemm_default()):
 *   fmt=NAME      both operands' block format (srl_mx_parse's names); a-fmt=, b-fmt= one
 *   block=B       both operands' block size (after fmt; 1 .. 4096)
 *   round=MODE    both operands' rounding (srl_rounding_parse); a-round=, b-round= one
 *   scale=RULE    both operands' scale rule (ocp, 3/4, ceil); a-scale=, b-scale= one
 *   rot=none|rht|hadamard   rot-block=G
 *   prod=, acc=, fma=, order=, kahan=   the accumulation config (srl_accum_parse)
 * Keys are applied in the order given. SRL_EPARSE / SRL_EINVAL with a message naming the key;
 * *c is then unchanged. */
int srl_mxgemm_parse(srl_mxgemm *c, const char *spec, srl_err *err) SRL_WUR;

/* Canonical spelling, accepted by srl_mxgemm_parse:
 * "a-fmt=mxfp4,a-round=sr,a-scale=3/4,b-fmt=...,rot=rht,rot-block=32,prod=...". Returns buf. */
const char *srl_mxgemm_name(char *buf, size_t len, const srl_mxgemm *c);

/* SRL_OK, or SRL_EINVAL with a message: a block size outside 1 .. 4096, an unknown rule or
 * rotation, rot-block not a power of two in 2 .. 4096, an invalid mode or accumulation config. */
int srl_mxgemm_check(const srl_mxgemm *c, srl_err *err) SRL_WUR;

/* Draws of one product (above; UINT64_MAX if that overflows; 0 for an invalid config). */
uint64_t srl_mxgemm_draws(size_t m, size_t n, size_t k, const srl_mxgemm *c);

/* C = A B in layout `lay`, binary32 (the accumulator format must be a subset of binary32). */
int srl_mxgemm_f(float *C, const float *A, const float *B, size_t m, size_t n, size_t k,
                 srl_mxgemm_layout lay, const srl_mxgemm *c, srl_rng *rng) SRL_WUR;

#ifdef __cplusplus
}
#endif
#endif
