/* src/linalg/kernels_impl.h: what the files of the kernels share (private).
 *
 *   src/linalg/accum.c        accumulation configs: default, parsing, names, validity, draws;
 *   src/linalg/kernels_ref.c  the reference loop: one output's explicit sequence of exact
 *                             operations (the scalar engine), and sum, dot, gemv, axpy on it;
 *   src/linalg/kernels.c      the matrix product: its vector engines and the choice among them;
 *   src/linalg/gemm32.c       the native binary32 matrix product by packed panels.
 *
 * include/srlab/kernels.h DEFINES every kernel as a sequence of exact operations
 * (srl_op_apply_draw) with fixed draw indices; tests/linalg/ compares every configuration,
 * kernel, layout and instruction set with the explicit loop of srl_op_apply_draw calls, bit for
 * bit. Legend: a sum has n terms; C (m x n) = A (m x k) B (k x n); D = srl_dot_draws(k) per
 * output.
 *
 * One operation of the definition is computed in one of three ways, each equal to it (the
 * functions k_mul, k_add, k_sub, k_fma below; the vector engines do the same on lanes):
 *   native  binary32 (binary64) hardware arithmetic where that IS the operation: for binary32
 *           numbers a, b the hardware's a*b and a + b are the exact product and sum rounded to
 *           nearest binary32, with IEEE subnormals, overflow to inf and signed zeros: exactly
 *           srl_op_apply_draw into the fp32 format with rn. The same for binary64 and fp64, and
 *           for fmaf / fma (one rounding of a*b + c). -ffp-contract=off keeps s + a*b two
 *           roundings.
 *   exact   the operation's exact result is a binary64 (or binary32) number d, which is then
 *           rounded by srl_round's rule: srl__round_one (src/round/round_core.h), or the same
 *           decision (src/round/decide.h) on lanes (src/linalg/kernels_isa.h, as
 *           src/round/round_bulk.c does). srl_op_apply_draw rounds the exact result once with
 *           that rule too, so the same draw gives the same bits. d is known exact when
 *             - products: a and b are binary32 numbers (24 + 24 <= 53 bits, exponents within
 *               binary64's range); binary64 numbers whose error fma(a, b, -p) is 0 with
 *               |p| >= 2^-968 (so that the error is itself exact); a zero factor;
 *             - sums: Knuth's TwoSum error is 0 (it is computed exactly for any a, b without
 *               overflow, in binary64 or binary32). A zero sum keeps the hardware's sign (+0
 *               unless both are -0), the exact operation's sign in every mode but rd, where a
 *               zero sum takes the slow path.
 *   slow    srl_op_apply_draw itself (same draw, same index), for everything else. */
#ifndef SRL_KERNELS_IMPL_H
#define SRL_KERNELS_IMPL_H

#include <math.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "core/pcg_impl.h"
#include "round/round_bulk.h"
#include "srlab/kernels.h"
#include "srlab/ops.h"
#include "linalg/gemm_ep.h"

/* Outputs (multiply-adds) below which a call stays on the calling thread. */
#define KERN_OMP_MIN ((size_t)1 << 15)

/* The checks every kernel makes on its config and stream (kernels.h, "Errors"): SRL_OK or
 * SRL_EINVAL. products: the kernel multiplies; isf: binary32 arrays. (src/linalg/accum.c) */
int srl__accum_check(const srl_accum *c, bool products, const srl_rng *rng, bool isf);

/* body(ctx, i) for i in [0, n), over the threads when `par` (src/linalg/kernels_ref.c). */
void srl__kern_for(size_t n, bool par, void (*body)(void *ctx, size_t i), void *ctx);

/* The calling thread's workspace number `slot` (0: the packed product's panels, 1: a transposed
 * operand), of at least `bytes` bytes, 64-byte aligned; NULL if it cannot be allocated. It stays
 * the thread's until its next call with the same slot (src/linalg/kernels_ref.c). */
void *srl__kern_ws(int slot, size_t bytes);

/* Move rng past the draws of a call. */
static inline void kern_advance(srl_rng *rng, uint64_t draws)
{
    if (rng && draws)
        srl_rng_seek(rng, rng->counter + draws);
}

/* ---- one call's config, as the engines read it ---- */

typedef struct kcfg {
    const srl_format *pf, *af, *jf;
    srl_rounding pm, am, jm; /* jf, jm: the joins' (acc's unless join=) */
    bool join;        /* join= set: the joins round differently (some engines do not take it) */
    bool fma;         /* products enter the accumulation exactly */
    bool psto, asto;  /* product draws exist; term-accumulation draws are used */
    bool jsto;        /* join draws are used (asto || jsto: the accumulation's indices exist) */
    bool isf;         /* binary32 inputs: every product is exact in binary64 */
    srl_order order;
    size_t K;         /* block size (blocked) */
    bool kahan;
} kcfg;

static inline void kcfg_init(kcfg *k, const srl_accum *c, bool products, bool isf)
{
    k->pf = &c->prod_fmt;
    k->af = &c->acc_fmt;
    k->pm = c->prod_mode;
    k->am = c->acc_mode;
    k->join = c->join;
    k->jf = c->join ? &c->join_fmt : &c->acc_fmt;
    k->jm = c->join ? c->join_mode : c->acc_mode;
    k->fma = products && c->fma;
    k->psto = products && !c->fma && srl_rounding_is_stochastic(c->prod_mode);
    k->asto = srl_rounding_is_stochastic(c->acc_mode);
    k->jsto = srl_rounding_is_stochastic(k->jm);
    k->isf = isf;
    k->order = c->order;
    k->K = c->block;
    k->kahan = c->kahan;
}

/* ---- the operations of the definition (native / exact / slow, above) ---- */

static inline bool format_is(const srl_format *f, int p, int emin, int emax)
{
    return f->p == p && f->emin == emin && f->emax == emax && f->subnormals && f->inf &&
           !f->saturate;
}

static inline bool is_binary32(const srl_format *f)
{
    return format_is(f, 24, -126, 127);
}

static inline bool is_binary64(const srl_format *f)
{
    return format_is(f, 53, -1022, 1023);
}

/* Is p = RN64(x*y) the exact product? (See "exact" above.) */
static inline bool prod_exact(const kcfg *k, double x, double y, double p)
{
    if (k->isf)
        return true;
    if (p == 0)
        return x == 0 || y == 0;
    if (!(fabs(p) >= 0x1p-968))
        return false;
    return fma(x, y, -p) == 0;
}

/* Is d = RN64(a + b) the exact sum? Knuth's TwoSum error is exact, so it is 0 iff d is. */
static inline bool sum_exact(double a, double b, double d)
{
    const double bp = d - a, ap = d - bp;
    return (a - ap) + (b - bp) == 0;
}

/* round(x*y) into f with m, with draw u of index idx: srl_op_apply_draw(SRL_MUL, ...). */
static inline double k_mul(const kcfg *k, double x, double y, const srl_format *f,
                           srl_rounding m, uint64_t u, const srl_rng *rng, uint64_t idx)
{
    const double p = x * y;
    if (prod_exact(k, x, y, p))
        return srl__round_one(p, f, m, u, rng, idx);
    return srl_op_apply_draw(SRL_MUL, x, y, 0.0, f, m, u, rng, idx);
}

/* RND(a + b) into f with m: srl_op_apply_draw(SRL_ADD, a, b, ...), directly when exact. */
static inline double k_sum_into(double a, double b, const srl_format *f, srl_rounding m,
                                uint64_t u, const srl_rng *rng, uint64_t idx)
{
    const double d = a + b;
    if (sum_exact(a, b, d) && (d != 0 || m.mode != SRL_RD))
        return srl__round_one(d, f, m, u, rng, idx);
    return srl_op_apply_draw(SRL_ADD, a, b, 0.0, f, m, u, rng, idx);
}

/* round_acc(a + b). */
static inline double k_add(const kcfg *k, double a, double b, uint64_t u, const srl_rng *rng,
                           uint64_t idx)
{
    return k_sum_into(a, b, k->af, k->am, u, rng, idx);
}

/* round_join(a + b): the join of two partial sums, into jf with jm (k_add's when no join=). */
static inline double k_join(const kcfg *k, double a, double b, uint64_t u, const srl_rng *rng,
                            uint64_t idx)
{
    return k_sum_into(a, b, k->jf, k->jm, u, rng, idx);
}

/* round_acc(a - b): srl_op_apply_draw(SRL_SUB, a, b, ...). */
static inline double k_sub(const kcfg *k, double a, double b, uint64_t u, const srl_rng *rng,
                           uint64_t idx)
{
    const double d = a - b;
    if (sum_exact(a, -b, d) && (d != 0 || k->am.mode != SRL_RD))
        return srl__round_one(d, k->af, k->am, u, rng, idx);
    return srl_op_apply_draw(SRL_SUB, a, b, 0.0, k->af, k->am, u, rng, idx);
}

/* round_acc(x*y + s): srl_op_apply_draw(SRL_FMA, x, y, s, ...). */
static inline double k_fma(const kcfg *k, double x, double y, double s, uint64_t u,
                           const srl_rng *rng, uint64_t idx)
{
    const double p = x * y;
    if (prod_exact(k, x, y, p)) {
        const double d = p + s;
        if (sum_exact(p, s, d) && (d != 0 || k->am.mode != SRL_RD))
            return srl__round_one(d, k->af, k->am, u, rng, idx);
    }
    return srl_op_apply_draw(SRL_FMA, x, y, s, k->af, k->am, u, rng, idx);
}

/* The full draw of a pcg32 lane whose state (before the draw's first output) is st. */
static inline uint64_t kern_draw(uint64_t st, uint64_t inc)
{
    return ((uint64_t)srl__pcg32_out(st) << 32) | srl__pcg32_out(st * SRL_PCG32_MULT + inc);
}

/* The next draw of a cursor that is `on` (its index in *idx), or 0 (and index 0) when off. */
static inline uint64_t cursor_next(srl_rng *g, bool on, uint64_t *idx)
{
    if (!on) {
        *idx = 0;
        return 0;
    }
    *idx = g->counter;
    return srl_rng_next(g);
}

/* ---- the native binary32 matrix product (src/linalg/gemm32.c) ---- */

/* Product kinds: the exact product; RN of it into p = 24 - ps bits of binary32's exponent range.
 * Accumulation kinds: binary32 rn (the hardware's sum); RZ, RN, SR into the accumulator's format
 * of p = 24 - as bits (src/linalg/gemm32_isa.h says how each is exact). */
enum { SRL__G32_P_EXACT = 0, SRL__G32_P_RN };
enum { SRL__G32_A_NAT = 0, SRL__G32_A_RZ, SRL__G32_A_RN, SRL__G32_A_SR };

/* C = A B, binary32: C (m, n) row-major, A[i, l] = A[i a_row + l a_step],
 * B[l, j] = B[l b_row + j b_step], blocks of K terms (K >= k: the recursive order). Natively
 * (pk exact, ak nat: binary32 products and sums with rn, or fma when fused), or emulated, for
 * products the scan has shown exact in binary32 (pk, ak; jk the joins' kind, nat or ak; alo,
 * ahi the accumulator's normal magnitudes as binary32 bits; kc the config, for the lanes the
 * kernels recompute; rng, c0, D: SR's draws, term l of output o at c0 + o D + l). */
typedef struct srl__g32 {
    float *C;
    const float *A, *B;
    size_t m, n, k;
    size_t a_row, a_step, b_row, b_step;
    size_t K;
    bool fused;
    int pk, ak, jk, ps, as;
    uint32_t alo, ahi;
    const kcfg *kc;
    const srl_rng *rng;
    uint64_t c0, D;
    srl__gemm_ep *ep; /* NULL: none */
} srl__g32;

/* The largest block size of a blocked order (K < k) the engine takes: a chunk holds whole blocks. */
#define SRL__G32_KMAX ((size_t)4096)

/* Does the engine take this product at instruction-set level lvl (the fused one needs FMA, the
 * emulated ones x86-64-v4, SR the recursive order or binary32 joins)? */
bool srl__gemm32_takes(const srl__g32 *g, int lvl);

/* Set a's emulation (pk, ak, jk, ps, as, alo, ahi, kc) for config k on binary32 inputs whose
 * products are exact binary32 numbers of at most pbits significant bits, normal or zero (the
 * scan of src/linalg/kernels.c), and return true; false when the engine does not emulate it.
 * pk exact and ak nat is the native product (prod=bf16 of fp8 values, say). The caller sets
 * rng, c0 and D. */
bool srl__gemm32_emulate(srl__g32 *a, const kcfg *k, int pbits);

/* The product for m, n, k > 0, over the threads when `par`: SRL_OK, or SRL_ENOMEM (nothing
 * written) when its workspace cannot be allocated. */
int srl__gemm32(const srl__g32 *g, int lvl, bool par);

/* ---- the reference loop (src/linalg/kernels_ref.c) ---- */

/* The terms of one sum: t_i = x_i (y == NULL) or the products x_i * y_i. */
typedef struct kterms {
    const void *x, *y;
    size_t sx, sy; /* strides, in elements */
} kterms;

static inline double term_at(const void *p, size_t i, bool isf)
{
    return isf ? (double)((const float *)p)[i] : ((const double *)p)[i];
}

/* One sum of n terms whose draws start at `base` (products first when they have draws), one
 * operation at a time: the definition itself. */
double srl__kseq_eval(const kcfg *k, const kterms *tm, size_t n, const srl_rng *rng,
                      uint64_t base);

#endif
