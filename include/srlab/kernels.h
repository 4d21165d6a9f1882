/* srlab/kernels.h: linear-algebra kernels in emulated precision (docs/design.md §6).
 *
 * Every kernel is DEFINED as an explicit sequence of exact operations (include/srlab/ops.h),
 * each rounded once, in a documented order, with documented draw indices; tests compare each
 * configuration with that explicit loop, bit for bit. Faster code paths are only ways of
 * computing the same sequence (src/linalg/kernels_impl.h and src/linalg/kernels.c say why each
 * one is equal to it; src/linalg/kernels_ref.c is the loop itself).
 *
 * An accumulation config (srl_accum) says how terms are formed and summed:
 *   prod_fmt, prod_mode   the rounding of each product: t_i = round_prod(x_i * y_i) (ignored
 *                         with fma and by srl_sum, whose terms are t_i = x_i);
 *   acc_fmt, acc_mode     the rounding of every accumulation operation below, round_acc;
 *   fma                   the exact product x_i * y_i enters the accumulation unrounded: where a
 *                         term is added, s = round_acc(x_i * y_i + s) (op fma, one rounding);
 *   order, kahan          which operations, in which order (below);
 *   join, join_fmt, join_mode   (join true) the joins of the blocked and pairwise orders round
 *                         into join_fmt with join_mode instead of acc_fmt and acc_mode: a
 *                         limited-precision accumulator promoted to a wider one every K terms
 *                         (the FP8 tensor-core case: a 14-bit accumulator added into binary32
 *                         every 128 products, "acc=(p=14,emax=127,emin=-126):rz,
 *                         order=blocked:128,join=fp32:rn"; docs/design.md §6).
 *
 * The accumulation operations on terms t_0 .. t_{n-1}:
 *   start(i)   round_acc(t_i): a (sub)sum starts from its first term, rounded into acc_fmt.
 *              This rounding is always performed and always owns a draw index; it returns t_i
 *              unchanged when t_i is already a value of acc_fmt (exact inputs are fixed by
 *              every mode). With fma it is round_acc(x_i * y_i), the exact product rounded once.
 *              A sum never starts from an added zero, so -0 terms survive.
 *   add(s, i)  round_acc(s + t_i); with fma round_acc(x_i * y_i + s).
 *   join(a, b) round_acc(a + b), for two partial sums (round_join with join=: into join_fmt
 *              with join_mode).
 * Orders, for n >= 1 terms (the empty sum is +0, with no rounding):
 *   recursive  s = start(0); s = add(s, i) for i = 1 .. n-1.
 *   blocked:K  (K >= 1) the terms in blocks [bK, min(n, (b+1)K)); each block summed recursively
 *              from its first term, giving S_b; then S = S_0, S = join(S, S_b) for b = 1, 2, ...
 *              (chunked fp16 accumulation, tensor cores). K >= n is the recursive order.
 *   pairwise   sum(t[a:b]) = start(a) when b - a = 1, else
 *              join(sum(t[a:m]), sum(t[m:b])) with m = a + h, h the largest power of two
 *              strictly below b - a (so the left half is a complete binary tree: n = 3 splits
 *              2 + 1, n = 6 splits 4 + 2, n = 8 splits 4 + 4).
 *   kahan      (recursive order only) compensated summation, every operation rounded in the
 *              accumulator format and mode:
 *                  s = start(0); c = +0;
 *                  for i = 1 .. n-1:  y = round_acc(t_i - c)   (fma: round_acc(x_i*y_i - c))
 *                                     t = round_acc(s + y)
 *                                     z = round_acc(t - s)
 *                                     c = round_acc(z - y)
 *                                     s = t
 *              and the result is s.
 *
 * Draws. A call consumes a fixed number of draws, whatever the data, adds that number to
 * rng->counter, and gives every rounding its own index. For one sum of n terms the
 * accumulation roundings use, relative to the sum's first accumulation index:
 *   recursive, blocked  term i's rounding (start or add) uses i; the join of block b >= 1 uses
 *                       n + b - 1.             Total n + ceil(n/K) - 1 (n for recursive).
 *   pairwise            the leaf start(i) uses i; the join whose right half begins at term m
 *                       uses n + m - 1 (every m in 1 .. n-1 is the split point of exactly one
 *                       join).                 Total 2n - 1.
 *   kahan               start(0) uses 0; the four operations of term i >= 1 use
 *                       4i - 3, 4i - 2, 4i - 1, 4i (y, t, z, c).   Total 4n - 3.
 * (0 for n = 0, and 0 when acc_mode is deterministic, and join_mode too if join is set: the
 * same indices are kept when only one of them is stochastic.) Products (when prod_mode is stochastic
 * and fma is off) use their own n indices, before the accumulation's (srl_dot). Indices are
 * laid out so that outputs computed in parallel never share one: results are identical for
 * any thread count and without OpenMP. rng may be NULL when every mode the call uses is
 * deterministic (it is then not touched); otherwise NULL is SRL_EINVAL.
 *
 * Values. A kernel computes with the values it is given. Arguments are binary64 (or binary32
 * for the _f kernels) numbers, taken exactly; when a caller means them as values of a narrower
 * format (bf16 weights held in float, say) it must have rounded them into that format: the
 * kernels do not check. NaN results are NaN (sign and payload unspecified).
 * Matrices are row-major; outputs may not alias inputs (srl_axpy's y is both). Sizes of 0 are
 * valid; an array argument may be NULL only when its size is 0.
 * Memory: the binary32 matrix products keep a workspace per calling thread (packed panels of
 * the operands, about 1 MiB, and for srl_gemm_nt_f on some configurations a transposed copy of
 * B), allocated on first need, reused by the thread's later calls and freed when it exits.
 * Errors: SRL_EINVAL for a NULL config or output, a NULL array of nonzero size, an invalid
 * config (unknown order or mode, block 0, kahan with a non-recursive order, join with the
 * recursive order), a NULL rng with a stochastic mode in use, or (the _f kernels) an acc_fmt (or
 * join_fmt) that is not a subset of binary32;
 * SRL_ERANGE when the number of draws does not fit in 64 bits; SRL_ENOMEM if srl_gemm_nt_f
 * cannot allocate its workspace. On error nothing is written and rng is unchanged. */
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
    size_t block; /* block size K for SRL_ORDER_BLOCKED (>= 1); ignored by the other orders */
    bool kahan;   /* only with SRL_ORDER_RECURSIVE */
    bool join;    /* the joins round into join_fmt with join_mode (blocked or pairwise only) */
    srl_format join_fmt;
    srl_rounding join_mode;
} srl_accum;

/* binary64 products and accumulation, rn, recursive, no fma, no Kahan: a plain binary64 loop
 * (block 0, unused). */
srl_accum srl_accum_binary64(void);

/* Parse "prod=FMT:MODE,acc=FMT:MODE[,fma=on|off][,order=recursive|pairwise|blocked:K]
 * [,kahan=on|off][,join=FMT:MODE|acc]", keys in any order (join=acc: the joins round as the
 * accumulator does, join false), each optional; missing keys keep the values already in
 * *c (start from srl_accum_binary64()). FMT is a preset name or a custom spec in parentheses,
 * prod=(p=8,emax=127):rn; MODE is any srl_rounding_parse name (acc=bf16:sr:r=16); "prod=FMT"
 * alone keeps the mode. Malformed text is SRL_EPARSE; contradictions in the result (kahan with
 * a non-recursive order, block 0) are SRL_EINVAL; both with a message in err (may be NULL),
 * and *c is then unchanged. */
int srl_accum_parse(srl_accum *c, const char *spec, srl_err *err) SRL_WUR;

/* Canonical spelling of a config, accepted by srl_accum_parse (every key, custom formats in
 * parentheses; join only when set): "prod=bf16:rn,acc=fp32:rn,fma=off,order=blocked:32,
 * kahan=off". Returns buf. */
const char *srl_accum_name(char *buf, size_t len, const srl_accum *c);

/* Draws consumed (see above; 0 if the modes in use are deterministic or c is invalid):
 *   sum   the accumulation roundings of n terms;
 *   dot   P + that, P = n when prod_mode is stochastic and fma is off, else 0;
 *   axpy  2n when a mode in use is stochastic, else 0;
 *   gemv  m * dot(n);   gemm  m * n * dot(k)   (UINT64_MAX if that overflows). */
uint64_t srl_sum_draws(size_t n, const srl_accum *c);
uint64_t srl_dot_draws(size_t n, const srl_accum *c);
uint64_t srl_axpy_draws(size_t n, const srl_accum *c);
uint64_t srl_gemv_draws(size_t m, size_t n, const srl_accum *c);
uint64_t srl_gemm_draws(size_t m, size_t n, size_t k, const srl_accum *c);

/* *s = sum x[0..n), terms t_i = x_i (prod_* and fma are ignored). Draws: the accumulation
 * roundings at counter + (their index above). */
int srl_sum(double *s, const double *x, size_t n, const srl_accum *c, srl_rng *rng) SRL_WUR;

/* *s = sum x[i]*y[i]. Draws: product i uses counter + i (P = n of them, when prod_mode is
 * stochastic and fma is off), then the accumulation roundings use counter + P + (their index
 * above). */
int srl_dot(double *s, const double *x, const double *y, size_t n, const srl_accum *c,
            srl_rng *rng) SRL_WUR;

/* y[i] = round_acc(y[i] + round_prod(alpha * x[i])) (with fma: round_acc(alpha*x[i] + y[i])).
 * Draws: when any mode in use is stochastic, element i uses counter + 2i (product) and
 * counter + 2i + 1 (sum), 2n in all (the product's index is skipped with fma). The order,
 * kahan and join fields are ignored (one addition per element). */
int srl_axpy(double *y, double alpha, const double *x, size_t n, const srl_accum *c,
             srl_rng *rng) SRL_WUR;

/* y = A x, A m-by-n row-major: y[i] = dot(A[i,:], x) with the config. Draws: row i uses the
 * block [counter + i*D, counter + (i+1)*D) where D = srl_dot_draws(n, c), as srl_dot would. */
int srl_gemv(double *y, const double *A, const double *x, size_t m, size_t n,
             const srl_accum *c, srl_rng *rng) SRL_WUR;

/* C = A B, A m-by-k, B k-by-n, all row-major: C[i,j] = dot(A[i,:], B[:,j]) with the config
 * (terms in the order l = 0 .. k-1). Draws: output (i,j) uses [counter + (i*n+j)*D, ...+D),
 * D = srl_dot_draws(k, c), as srl_dot would. */
int srl_gemm(double *C, const double *A, const double *B, size_t m, size_t n, size_t k,
             const srl_accum *c, srl_rng *rng) SRL_WUR;

/* The same on binary32 arrays, used by the MLP and GPT: acc_fmt must be a subset of binary32
 * (srl_format_fits_float), so every result is stored exactly; prod_fmt may be any format
 * (products are formed and held in binary64, where a product of two binary32 numbers is
 * exact). Same definition, same draws as srl_gemm on the same values. */
int srl_gemm_f(float *C, const float *A, const float *B, size_t m, size_t n, size_t k,
               const srl_accum *c, srl_rng *rng) SRL_WUR;

/* C = A B^T with B n-by-k (the layout of weight matrices in the models), binary32:
 * C[i,j] = dot(A[i,:], B[j,:]). Allocates a transposed copy of B (n*k floats) for the call. */
int srl_gemm_nt_f(float *C, const float *A, const float *B, size_t m, size_t n, size_t k,
                  const srl_accum *c, srl_rng *rng) SRL_WUR;

/* C = A^T B with A k-by-m (weight gradients), binary32: C[i,j] = dot(A[:,i], B[:,j]). */
int srl_gemm_tn_f(float *C, const float *A, const float *B, size_t m, size_t n, size_t k,
                  const srl_accum *c, srl_rng *rng) SRL_WUR;

#ifdef __cplusplus
}
#endif
#endif
