/* srlab/kernels.h: linear-algebra kernels in emulated precision (DESIGN §6).
 *
 * Every kernel is defined as an explicit sequence of exact operations (include/srlab/ops.h),
 * each rounded once, in a documented order; tests compare each configuration with that explicit
 * loop. An accumulation config (srl_accum) says how:
 *   prod_fmt, prod_mode   the rounding of each product x_i * y_i (ignored with fma);
 *   acc_fmt, acc_mode     the rounding of each accumulation s + t;
 *   fma                   s = round_acc(s + x_i * y_i) with the exact product (one rounding);
 *   order                 recursive: s = ((t1 + t2) + t3) + ...;
 *                         pairwise: sum(t[0:n]) = sum(t[0:h]) + sum(t[h:n]), h = n/2 rounded
 *                                   up to a power of two, recursion down to one term;
 *                         blocked with block size k: each block of k consecutive terms summed
 *                                   recursively from its first term, then the block sums summed
 *                                   recursively (chunked fp16 accumulation, tensor cores);
 *   kahan                 compensated (Kahan) recursive accumulation, every operation of the
 *                         compensation rounded in the accumulator format and mode.
 * A sum starts from its first term (rounded to acc_fmt with acc_mode when it is not already a
 * value of it: that is a rounding too), never from an added zero, so an n-term sum performs n-1
 * additions. An empty sum is +0.
 *
 * Draws: a kernel call consumes a fixed number of draws, whatever the data, laid out so that
 * every rounding has its own index (documented per function), and adds that number to
 * rng->counter. Outputs computed in parallel never share an index, so results are identical
 * for any thread count. rng may be NULL when every mode of the config is deterministic.
 * Matrices are row-major; outputs may not alias inputs. Sizes of 0 are valid. */
#ifndef SRLAB_KERNELS_H
#define SRLAB_KERNELS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "srlab/common.h"
#include "srlab/format.h"
#include "srlab/rng.h"
#include "srlab/rounding.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef enum srl_order { SRL_ORDER_RECURSIVE = 0, SRL_ORDER_PAIRWISE, SRL_ORDER_BLOCKED } srl_order;

typedef struct srl_accum {
    srl_format prod_fmt;
    srl_rounding prod_mode;
    srl_format acc_fmt;
    srl_rounding acc_mode;
    bool fma;
    srl_order order;
    size_t block; /* block size for SRL_ORDER_BLOCKED (>= 1) */
    bool kahan;   /* only with SRL_ORDER_RECURSIVE */
} srl_accum;

/* binary64 products and accumulation, rn, recursive: a plain binary64 loop. */
srl_accum srl_accum_binary64(void);

/* Parse "prod=FMT:MODE,acc=FMT:MODE[,fma=on|off][,order=recursive|pairwise|blocked:K]
 * [,kahan=on|off]"; missing keys keep the values already in *c (start from
 * srl_accum_binary64()). FMT may be a custom spec in parentheses: prod=(p=8,emax=127):rn.
 * Contradictions (kahan with a non-recursive order, block 0) are SRL_EINVAL with a message. */
int srl_accum_parse(srl_accum *c, const char *spec, srl_err *err) SRL_WUR;

/* Canonical spelling of a config, accepted by srl_accum_parse. */
const char *srl_accum_name(char *buf, size_t len, const srl_accum *c);

/* Number of draws a kernel consumes for these sizes (0 if all modes are deterministic). */
uint64_t srl_sum_draws(size_t n, const srl_accum *c);
uint64_t srl_dot_draws(size_t n, const srl_accum *c);

/* s = sum x[0..n). Draws: the accumulation roundings in order (index counter + j for the j-th
 * rounding performed, the rounding of the first term included). */
int srl_sum(double *s, const double *x, size_t n, const srl_accum *c, srl_rng *rng) SRL_WUR;

/* s = sum x[i]*y[i]. Draws: product i uses counter + i (n of them, when prod_mode is
 * stochastic and fma is off), then the accumulation roundings as in srl_sum. */
int srl_dot(double *s, const double *x, const double *y, size_t n, const srl_accum *c,
            srl_rng *rng) SRL_WUR;

/* y[i] = round_acc(y[i] + round_prod(alpha * x[i])) (with fma: round_acc(alpha*x[i] + y[i])).
 * Draws: element i uses counter + 2i (product) and counter + 2i + 1 (sum). */
int srl_axpy(double *y, double alpha, const double *x, size_t n, const srl_accum *c,
             srl_rng *rng) SRL_WUR;

/* y = A x, A m-by-n row-major: y[i] = dot(A[i,:], x) with the config. Draws: row i uses the
 * block [counter + i*D, counter + (i+1)*D) where D = srl_dot_draws(n, c). */
int srl_gemv(double *y, const double *A, const double *x, size_t m, size_t n,
             const srl_accum *c, srl_rng *rng) SRL_WUR;

/* C = A B, A m-by-k, B k-by-n, all row-major: C[i,j] = dot(A[i,:], B[:,j]) with the config.
 * Draws: output (i,j) uses [counter + (i*n+j)*D, ...+D), D = srl_dot_draws(k, c). */
int srl_gemm(double *C, const double *A, const double *B, size_t m, size_t n, size_t k,
             const srl_accum *c, srl_rng *rng) SRL_WUR;

/* The same on binary32 arrays (the formats of the config must fit binary32 and every input be
 * a binary32 number; results are stored exactly). Used by the MLP and GPT. Same draws. */
int srl_gemm_f(float *C, const float *A, const float *B, size_t m, size_t n, size_t k,
               const srl_accum *c, srl_rng *rng) SRL_WUR;

/* C = A B^T with B n-by-k (the layout of weight matrices in the models), binary32. */
int srl_gemm_nt_f(float *C, const float *A, const float *B, size_t m, size_t n, size_t k,
                  const srl_accum *c, srl_rng *rng) SRL_WUR;

/* C = A^T B with A k-by-m (weight gradients), binary32. */
int srl_gemm_tn_f(float *C, const float *A, const float *B, size_t m, size_t n, size_t k,
                  const srl_accum *c, srl_rng *rng) SRL_WUR;

#ifdef __cplusplus
}
#endif
#endif
