/* src/linalg/kernels.c: the matrix product in emulated precision -- srl_gemm, srl_gemm_f,
 * srl_gemm_nt_f, srl_gemm_tn_f (include/srlab/kernels.h, docs/design.md §6): its vector engines
 * and the choice among them. Each computes the definition (the reference loop of
 * src/linalg/kernels_ref.c; src/linalg/kernels_impl.h says how one operation is computed
 * natively, exactly or slowly), faster where it can prove the faster computation gives the same
 * bits.
 *
 * Engines (srl__kernels_engine in src/linalg/kernels_priv.h names them):
 *   native binary32 / binary64   prod and acc both binary32 (binary64) with rn, with or without
 *                fma: hardware arithmetic; binary32 by packed panels and register tiles
 *                (src/linalg/gemm32.c), binary64 eight output columns a vector
 *                (src/linalg/kernels_isa.h);
 *   binary32 lanes   binary32 inputs whose products the scan (f32_products_exact) has shown to
 *                be binary32 numbers -- the significant bits of A and of B sum to at most 24 and
 *                exponents keep products normal (bf16 inputs, say): the binary32 product is then
 *                exact, rounding runs on binary32 bits, and every stochastic decision needs only
 *                the high half of the draw. With acc binary32 rn the accumulation is the
 *                hardware sum of two binary32 numbers (fma or not: a*b + s = p + s);
 *   binary64 lanes   everything else with the recursive or blocked order and pcg32 streams (or
 *                deterministic modes): products and sums in binary64 with the checks of
 *                kernels_impl.h;
 *   scalar       one output at a time, one operation at a time: the reference loop (pairwise,
 *                Kahan, sr with pcg64 streams, joins rounded otherwise than the sums (join=)
 *                but for the packed engine's promoted joins).
 * join= with binary32 rn joins (a limited accumulator promoted every K terms) runs on the packed
 * engine's emulation (src/linalg/gemm32.c), which adds a finished block into C in binary32.
 * The vector engines flag a lane whose operation is not provably exact or whose magnitude is
 * outside the format's normal range, and recompute it with the scalar code before the next step.
 *
 * Order: every output keeps its own sequence: the matrix engines run l outermost and the output
 * columns j in vector lanes (i-l-j), which keeps each C[i][j]'s sequence l = 0, 1, ...
 * Threads: `omp parallel for schedule(static)` over outputs (tiles of one row and up to MK_W
 * columns) only; every output's draws are at fixed indices and each tile positions its own
 * copies of the stream, so the thread count cannot change a bit. No reduction clauses. */
#include "srlab/kernels.h"

/* The vector helpers are static and inlined (or take arrays): the ABI note does not apply. */
#pragma GCC diagnostic ignored "-Wpsabi"

#include <math.h>
#include <stdlib.h>
#include <string.h>
#if defined(__x86_64__)
#include <immintrin.h>
#endif

#include "core/isa.h"
#include "core/mutant.h"
#include "core/pcg_impl.h"
#include "core/threads.h"
#include "linalg/kernels_impl.h"
#include "linalg/kernels_priv.h"
#include "round/lanes.h"
#include "round/round_core.h"

/* ================================================================================================
 * The vector engines (src/linalg/kernels_isa.h) and their fix-ups
 * ============================================================================================== */

#define MK_W 64            /* output columns (lanes) per tile */
#define MK_NV (MK_W / 8)   /* vectors of eight lanes per tile */

/* Product kinds: the binary32 product (prod binary32 rn, binary32 inputs); the binary64 product
 * (prod binary64 rn, binary64 inputs); the exact product unrounded (fma, or a product format
 * holding every product of binary32 numbers, with a deterministic mode); bit-logic rounding. */
enum { MK_PK_F32MUL = 0, MK_PK_F64MUL, MK_PK_EXACT, MK_PK_ROUND };
/* Accumulation kinds: binary32 hardware sum (acc binary32 rn, terms binary32 numbers); binary64
 * hardware sum (acc binary64 rn); exact sum then conversion to binary32 (acc binary32 rn, other
 * terms); exact sum then bit-logic rounding. */
enum { MK_AK_F32ADD = 0, MK_AK_F64ADD, MK_AK_CONV32, MK_AK_BITS };

/* Bit-logic rounding into one format: magnitudes (as binary64 bits) in [lo, hi] are its normal
 * range (within binary64's), where the grid spacing is 2^s ulps, s = 53 - p. */
typedef struct mk_round {
    int s;
    uint64_t lo, span, hi;
    srl_mode mode;
    int r;
} mk_round;

static void mk_round_init(mk_round *r, const srl_format *f, srl_rounding m)
{
    const double lo = f->xmin > 0x1p-1022 ? f->xmin : 0x1p-1022;
    r->s = 53 - f->p;
    r->lo = srl__bits(lo);
    r->hi = srl__bits(f->xmax);
    r->span = r->hi - r->lo;
    r->mode = m.mode;
    r->r = m.r;
}

/* The same on binary32 bits (the binary32-lane engine): s = 24 - p, [lo, hi] the format's normal
 * range within binary32's, as binary32 bits. */
typedef struct mk_round32 {
    int s;
    uint32_t lo, span, hi;
    srl_mode mode;
    int r;
} mk_round32;

static uint32_t bits32(float x)
{
    uint32_t b;
    memcpy(&b, &x, sizeof b);
    return b;
}

static void mk_round32_init(mk_round32 *r, const srl_format *f, srl_rounding m)
{
    const double lo = f->xmin > 0x1p-126 ? f->xmin : 0x1p-126;
    r->s = 24 - f->p;
    r->lo = bits32((float)lo);
    r->hi = bits32((float)f->xmax); /* exact: f is a subset of binary32 */
    r->span = r->hi - r->lo;
    r->mode = m.mode;
    r->r = m.r < 32 ? m.r : 32; /* sr:r=R, R > 32, decides at bit 32 here (kernels_isa.h) */
}

/* One tile: row i, columns j0 .. j0+w of C (see src/linalg/kernels_isa.h for the shapes). */
typedef struct mk_job {
    const void *a;
    size_t a_step;
    const void *b;
    size_t ldb;
    size_t k, K;
    int w;
    void *out;
    const kcfg *kc;
    const srl_rng *rng;
    mk_round pr, ar;
    mk_round32 pr32, ar32;
    int pk, ak;
    bool psto, asto;
    /* lane q's draws: first index idx0 + q*D; products idx + l, accumulation idx + P + l,
     * joins idx + P + k + b - 1; pcg32 states positioned at the first of each */
    uint64_t idx0, D, P;
    uint64_t m2, c2, inc; /* the pcg32 map of one draw (two outputs); the increment */
    uint64_t stp[MK_W], sta[MK_W], stj[MK_W];
} mk_job;

/* Recompute the flagged lanes of step l by the scalar definition: product (with its draw),
 * then start or add (with its draw). b: the lanes' B values, s: their sums before the step. */
static void mk_fix_term(const mk_job *jb, size_t l, int v, int first, double av, const double *b,
                        const double *s, double *r, const uint64_t *bad, const uint64_t *gp,
                        const uint64_t *ga)
{
    const kcfg *k = jb->kc;
    for (int q = 0; q < 8; q++) {
        if (!bad[q])
            continue;
        const uint64_t lane = 8 * (uint64_t)v + (uint64_t)q;
        const uint64_t base = jb->idx0 + lane * jb->D, ia = base + jb->P + l;
        const uint64_t ua = jb->asto ? kern_draw(ga[q], jb->inc) : 0;
        if (k->fma) {
            r[q] = first ? k_mul(k, av, b[q], k->af, k->am, ua, jb->rng, ia)
                         : k_fma(k, av, b[q], s[q], ua, jb->rng, ia);
        } else {
            const uint64_t up = jb->psto ? kern_draw(gp[q], jb->inc) : 0;
            const double t = k_mul(k, av, b[q], k->pf, k->pm, up, jb->rng, base + l);
            r[q] = first ? srl__round_one(t, k->af, k->am, ua, jb->rng, ia)
                         : k_add(k, s[q], t, ua, jb->rng, ia);
        }
    }
}

/* Recompute the flagged lanes of the join of block blk >= 1: round_acc(t + s). */
static void mk_fix_join(const mk_job *jb, size_t blk, int v, const double *t, const double *s,
                        double *r, const uint64_t *bad, const uint64_t *gj)
{
    const kcfg *k = jb->kc;
    for (int q = 0; q < 8; q++) {
        if (!bad[q])
            continue;
        const uint64_t lane = 8 * (uint64_t)v + (uint64_t)q;
        const uint64_t idx = jb->idx0 + lane * jb->D + jb->P + jb->k + blk - 1;
        const uint64_t u = jb->asto ? kern_draw(gj[q], jb->inc) : 0;
        r[q] = k_add(k, t[q], s[q], u, jb->rng, idx);
    }
}

/* The specialised instances of the emulated engine: name, binary64 inputs, product kind,
 * accumulation kind, product mode, accumulation mode (the gen ones read them from the job). */
#define MK_GENERIC(X)                                                                             \
    X(f_gen, 0, jb->pk, jb->ak, jb->pr.mode, jb->ar.mode)                                         \
    X(d_gen, 1, jb->pk, jb->ak, jb->pr.mode, jb->ar.mode)
#define MK_SPECS(X)                                                                               \
    MK_GENERIC(X)                                                                                 \
    X(f_mul_sr, 0, MK_PK_F32MUL, MK_AK_BITS, SRL_RN, SRL_SR)                                      \
    X(f_ex_sr, 0, MK_PK_EXACT, MK_AK_BITS, SRL_RN, SRL_SR)                                        \
    X(f_rn_a32, 0, MK_PK_ROUND, MK_AK_F32ADD, SRL_RN, SRL_RN)                                     \
    X(f_rn_sr, 0, MK_PK_ROUND, MK_AK_BITS, SRL_RN, SRL_SR)

/* The binary32-lane engine's instances: name, product kind (MF_PK_P: the product itself;
 * MF_PK_ROUND), accumulation kind (MK_AK_F32ADD or MK_AK_BITS), modes. */
enum { MF_PK_P = 0, MF_PK_ROUND };
#define MF_GENERIC(X) X(gen, jb->pk, jb->ak, jb->pr32.mode, jb->ar32.mode)
#define MF_SPECS(X)                                                                               \
    MF_GENERIC(X)                                                                                 \
    X(p_sr, MF_PK_P, MK_AK_BITS, SRL_RN, SRL_SR)                                                  \
    X(r_a32, MF_PK_ROUND, MK_AK_F32ADD, SRL_RN, SRL_RN)                                           \
    X(r_sr, MF_PK_ROUND, MK_AK_BITS, SRL_RN, SRL_SR)                                              \
    X(r_rn, MF_PK_ROUND, MK_AK_BITS, SRL_RN, SRL_RN)

/* The engines, once per instruction set (src/core/isa.h); the baseline copy keeps only the
 * generic instances (compile time: a CPU without x86-64-v3 is rare). */
#define SRL_ISA_TEMPLATE "linalg/kernels_isa.h"
#include "core/isa_instantiate.h"

typedef void (*mk_fn)(mk_job *);

#define MK_ENUM(name, ...) MK_S_##name,
#define MF_ENUM(name, ...) MF_S_##name,
enum {
    MK_SPECS(MK_ENUM) MF_SPECS(MF_ENUM) MK_S_NAT_F32,
    MK_S_NAT_F32_FMA,
    MK_S_NAT_F64,
    MK_S_NAT_F64_FMA,
    MK_NS
};
#undef MK_ENUM
#undef MF_ENUM

/* baseline: every instance is the generic one (see kernels_isa.h: SRL_ISA_LEVEL) */
#define MK_ADDR_base(name, dbl, ...) ((dbl) ? mk_d_gen_base : mk_f_gen_base),
#define MK_ADDR_v3(name, ...) mk_##name##_v3,
#define MK_ADDR_v4(name, ...) mk_##name##_v4,
#define MF_ADDR_base(name, ...) mf_gen_base,
#define MF_ADDR_v3(name, ...) mf_##name##_v3,
#define MF_ADDR_v4(name, ...) mf_##name##_v4,

static int forced_level = -1; /* srl__kernels_isa */

/* 0: baseline x86-64 (or another architecture), 1: x86-64-v3 (AVX2, FMA), 2: x86-64-v4, 3:
 * x86-64-v4 with AVX-512 BF16 (the packed engine's bfloat16 products, src/linalg/gemm32.c; the
 * other engines take their x86-64-v4 copies); at most the forced level. */
static int isa_level(void)
{
    const int cpu = srl__isa_level_bf16();
    return forced_level >= 0 && forced_level < cpu ? forced_level : cpu;
}

int srl__kernels_isa(int force)
{
    forced_level = force;
    return isa_level();
}

static mk_fn mk_lookup(int spec, int lvl)
{
    /* the native binary32 instances are src/linalg/gemm32.c's engine (gemm_run): no entry */
    static const mk_fn base[MK_NS] = {MK_SPECS(MK_ADDR_base) MF_SPECS(MF_ADDR_base) NULL, NULL,
                                      nat_f64_base, nat_f64_fma_base};
#if SRL_MULTI_ISA
    static const mk_fn v3[MK_NS] = {MK_SPECS(MK_ADDR_v3) MF_SPECS(MF_ADDR_v3) NULL, NULL,
                                    nat_f64_v3, nat_f64_fma_v3};
    static const mk_fn v4[MK_NS] = {MK_SPECS(MK_ADDR_v4) MF_SPECS(MF_ADDR_v4) NULL, NULL,
                                    nat_f64_v4, nat_f64_fma_v4};
    if (lvl >= 2)
        return v4[spec];
    if (lvl == 1)
        return v3[spec];
#endif
    (void)lvl;
    return base[spec];
}

/* Does the format hold every product of two binary32 numbers exactly? (At most 48 significant
 * bits, magnitudes in [2^-298, 2^256), and infinities for infinite inputs.) */
static bool holds_float_products(const srl_format *f)
{
    return f->p >= 48 && f->emin <= -298 && f->emax >= 256 && f->inf && !f->saturate;
}

/* The scan behind the binary32-lane engine: is every product a*b, a in A and b in B, a binary32
 * number? True when all are finite, none is subnormal, the significant bits of the two arrays
 * (24 - the fewest trailing zeros of a significand) sum to at most 24, and the exponents keep
 * every nonzero product within [2^-126, 2^128): then the significand product has at most 24 bits
 * and its exponent is in the normal range, so a*b is exact in binary32. Integer reductions
 * (or, min, max): the same answer in any order. */
typedef struct f32_stats {
    uint32_t ormant; /* OR of the significand fields */
    uint32_t emin, emax; /* min (over nonzero values) and max of the exponent fields */
    uint32_t sub;    /* a subnormal was seen */
} f32_stats;

SRL__PLAIN_CLONES
static void f32_scan(f32_stats *st, const float *x, size_t n)
{
    uint32_t orm = 0, mn = 255, mx = 0, sub = 0;
    for (size_t i = 0; i < n; i++) { /* branch-free: the compiler vectorises it */
        uint32_t b;
        memcpy(&b, &x[i], sizeof b);
        const uint32_t a = b & 0x7fffffffu, e = a >> 23, en = a ? e : 255u;
        orm |= a & 0x7fffffu;
        mn = en < mn ? en : mn;
        mx = e > mx ? e : mx;
        sub |= (e == 0) & (a != 0);
    }
    st->ormant = orm;
    st->emin = mn;
    st->emax = mx;
    st->sub = sub;
}

static bool f32_products_exact(const float *A, size_t na, const float *B, size_t nb, int *bits)
{
    f32_stats a, b;
    f32_scan(&a, A, na);
    f32_scan(&b, B, nb);
    if (a.sub || b.sub || a.emax == 255 || b.emax == 255)
        return false;
    *bits = 0;
    if (a.emin == 255 || b.emin == 255)
        return true; /* an all-zero operand: every product is an exact zero */
    const int bits_a = 24 - __builtin_ctz(a.ormant | 0x800000u);
    const int bits_b = 24 - __builtin_ctz(b.ormant | 0x800000u);
    const int emin = (int)a.emin + (int)b.emin - 254, emax = (int)a.emax + (int)b.emax - 254;
    *bits = bits_a + bits_b;
    return bits_a + bits_b <= 24 && emin >= -126 && emax <= 126;
}

/* Choose the kinds and the instance of the binary32-lane engine (products known exact in
 * binary32, of at most pbits significant bits), or return -1 when it does not apply: a product
 * format wider than binary32, or an emulated accumulation whose terms are so wide that binary32
 * sums would often be inexact. (A binary32 sum s + t of an accumulator s of at most 24 bits and
 * a term t of b bits is exact whenever |t| >= 2^(b-24) |s|, roughly; with terms of at most 10 bits
 * the exceptions are rare enough for the slow fix-ups; wider terms go to the binary64 lanes.) */
static int mf_plan(mk_job *jb, const kcfg *k, int pbits)
{
    const srl_mode pm = k->pm.mode, am = k->am.mode;
    int pk;
    if (k->fma || (is_binary32(k->pf) && pm == SRL_RN) ||
        (holds_float_products(k->pf) && !srl__mode_stochastic(pm)))
        pk = MF_PK_P; /* the term is the (exact) product */
    else if (srl_format_fits_float(k->pf))
        pk = MF_PK_ROUND;
    else
        return -1;
    /* acc binary32 rn: RN32(s + t) of two binary32 numbers is the hardware sum (with fma too:
     * RN32(a*b + s) = RN32(p + s) for the exact product p) */
    const int ak = (is_binary32(k->af) && am == SRL_RN) ? MK_AK_F32ADD : MK_AK_BITS;
    const int tbits = pk == MF_PK_ROUND && k->pf->p < pbits ? k->pf->p : pbits;
    if (ak == MK_AK_BITS && tbits > 10)
        return -1;
    jb->pk = pk;
    jb->ak = ak;
    jb->psto = pk == MF_PK_ROUND && srl__mode_stochastic(pm);
    jb->asto = ak == MK_AK_BITS && srl__mode_stochastic(am);
    if (pk == MF_PK_ROUND)
        mk_round32_init(&jb->pr32, k->pf, k->pm);
    mk_round32_init(&jb->ar32, k->af, k->am);
    int spec = MF_S_gen;
    if (pk == MF_PK_P && ak == MK_AK_F32ADD)
        spec = MK_S_NAT_F32; /* unfused is exact here, fma or not */
    else if (pk == MF_PK_P && am == SRL_SR)
        spec = MF_S_p_sr;
    else if (pm == SRL_RN && ak == MK_AK_F32ADD)
        spec = MF_S_r_a32;
    else if (pm == SRL_RN && am == SRL_SR)
        spec = MF_S_r_sr;
    else if (pm == SRL_RN && am == SRL_RN)
        spec = MF_S_r_rn;
    return spec;
}

/* Choose the kinds and the instance for a config (see the MK_PK_* and MK_AK_* comments).
 * f32exact: the scan has shown every product to be a binary32 number, so RN32 of it is itself. */
static int mk_plan(mk_job *jb, const kcfg *k, bool isf, bool f32exact)
{
    const srl_mode pm = k->pm.mode, am = k->am.mode;
    int pk;
    if (k->fma)
        pk = MK_PK_EXACT;
    else if (isf && is_binary32(k->pf) && pm == SRL_RN)
        pk = f32exact ? MK_PK_EXACT : MK_PK_F32MUL;
    else if (!isf && is_binary64(k->pf) && pm == SRL_RN)
        pk = MK_PK_F64MUL;
    else if (isf && holds_float_products(k->pf) && !srl__mode_stochastic(pm))
        pk = MK_PK_EXACT;
    else
        pk = MK_PK_ROUND;
    const bool t_f32 = pk == MK_PK_F32MUL || (pk == MK_PK_ROUND && srl_format_fits_float(k->pf));
    int ak;
    if (is_binary32(k->af) && am == SRL_RN)
        ak = t_f32 ? MK_AK_F32ADD : MK_AK_CONV32;
    else if (is_binary64(k->af) && am == SRL_RN)
        ak = MK_AK_F64ADD;
    else
        ak = MK_AK_BITS;
    jb->pk = pk;
    jb->ak = ak;
    jb->psto = pk == MK_PK_ROUND && srl__mode_stochastic(pm);
    jb->asto = ak == MK_AK_BITS && srl__mode_stochastic(am);
    mk_round_init(&jb->pr, k->pf, k->pm);
    mk_round_init(&jb->ar, k->af, k->am);

    const int lvl = isa_level();
    int spec = isf ? MK_S_f_gen : MK_S_d_gen;
    if (isf) {
        if (pk == MK_PK_F32MUL && ak == MK_AK_F32ADD)
            spec = MK_S_NAT_F32;
        else if (k->fma && ak == MK_AK_CONV32 && lvl >= 1)
            spec = MK_S_NAT_F32_FMA;
        else if (pk == MK_PK_F32MUL && ak == MK_AK_BITS && am == SRL_SR)
            spec = MK_S_f_mul_sr;
        else if (pk == MK_PK_EXACT && ak == MK_AK_BITS && am == SRL_SR)
            spec = MK_S_f_ex_sr;
        else if (pk == MK_PK_ROUND && pm == SRL_RN && ak == MK_AK_F32ADD)
            spec = MK_S_f_rn_a32;
        else if (pk == MK_PK_ROUND && pm == SRL_RN && ak == MK_AK_BITS && am == SRL_SR)
            spec = MK_S_f_rn_sr;
    } else {
        if (pk == MK_PK_F64MUL && ak == MK_AK_F64ADD)
            spec = MK_S_NAT_F64;
        else if (k->fma && ak == MK_AK_F64ADD && lvl >= 1)
            spec = MK_S_NAT_F64_FMA;
    }
    return spec;
}

/* pcg32 states of lanes 0 .. w-1 whose first draws are first, first + D, ... */
static void mk_states(uint64_t *st, int w, const srl_rng *rng, uint64_t first, uint64_t mD,
                      uint64_t cD)
{
    srl_rng g = *rng;
    srl_rng_seek(&g, first);
    uint64_t s = g.g.p32.state;
    for (int q = 0; q < w; q++) {
        st[q] = s;
        s = s * mD + cD;
    }
    for (int q = w; q < MK_W; q++)
        st[q] = 0;
}

/* ================================================================================================
 * Drivers
 * ============================================================================================== */

/* A matrix product C = A B in one of the layouts: A_i[l] = A[i*a_row + l*a_step],
 * B[l, j] = B[l*b_row + j*b_step], C[i, j] = C[i*n + j]; binary32 or binary64 arrays. The
 * lane and scalar engines read B by rows (b_step 1, b_row n): gemm_run gives them a transposed
 * copy of any other layout. */
typedef struct gemm_args {
    void *C;
    const void *A, *B;
    size_t m, n, k;
    size_t a_row, a_step, b_row, b_step;
    bool isf;
    srl__gemm_ep *ep; /* binary32 only; NULL: none */
} gemm_args;

static void store(void *C, size_t o, double v, bool isf)
{
    if (isf)
        ((float *)C)[o] = (float)v;
    else
        ((double *)C)[o] = v;
}

/* The call as the native binary32 engine takes it (src/linalg/gemm32.c). */
static srl__g32 g32_args(const gemm_args *g, const srl_accum *c, bool fused)
{
    srl__g32 a;
    memset(&a, 0, sizeof a); /* native: the exact product, binary32 sums (kinds 0) */
    a.C = (float *)g->C;
    a.A = g->A;
    a.B = g->B;
    a.m = g->m;
    a.n = g->n;
    a.k = g->k;
    a.a_row = g->a_row;
    a.a_step = g->a_step;
    a.b_row = g->b_row;
    a.b_step = g->b_step;
    a.K = c->order == SRL_ORDER_BLOCKED ? c->block : g->k;
    a.fused = fused;
    a.ep = g->ep;
    return a;
}

/* The packed engine's emulated instance (src/linalg/gemm32.c): a spec of its own. */
enum { MK_S_G32E = MK_NS + 1 };

/* The engine for a valid call with m, n, k > 0: -1 for the scalar engine, else the instance
 * (jt filled). A native binary32 instance (and MK_S_G32E, *a set) runs on src/linalg/gemm32.c's
 * engine; *gen is then the lane instance that computes the same (for what that engine does not
 * take, and when it cannot allocate its workspace). */
static int gemm_plan(const gemm_args *g, const srl_accum *c, const kcfg *kc, const srl_rng *rng,
                     mk_job *jt, int *gen, srl__g32 *a)
{
    const bool sto = kc->psto || kc->asto || kc->jsto;
    if (c->order == SRL_ORDER_PAIRWISE || c->kahan || (sto && rng->kind != SRL_RNG_PCG32))
        return -1;
    /* the lanes round their joins as their sums: join= must be the accumulator's rounding */
    const bool lanes = !c->join || (srl_format_equal(&c->join_fmt, &c->acc_fmt) &&
                                    c->join_mode.mode == c->acc_mode.mode &&
                                    c->join_mode.r == c->acc_mode.r);
    memset(jt, 0, sizeof *jt);
    int spec = mk_plan(jt, kc, g->isf, false), pbits = 0;
    *gen = MK_S_f_gen;
    if (g->isf && spec != MK_S_NAT_F32 &&
        f32_products_exact(g->A, g->m * g->k, g->B, g->k * g->n, &pbits)) {
        const int s32 = mf_plan(jt, kc, pbits);
        spec = s32 >= 0 ? s32 : mk_plan(jt, kc, true, true);
        *gen = s32 >= 0 ? MF_S_gen : spec;
        *a = g32_args(g, c, false);
        if (spec != MK_S_NAT_F32 && srl__gemm32_emulate(a, kc, pbits)) {
            if (a->pk == SRL__G32_P_EXACT && a->ak == SRL__G32_A_NAT) {
                if (s32 >= 0) /* each term its product: binary32 arithmetic throughout */
                    spec = MK_S_NAT_F32;
            } else {
                a->rng = rng;
                a->c0 = rng ? rng->counter : 0;
                a->D = srl_dot_draws(g->k, c);
                if (srl__gemm32_takes(a, isa_level())) {
                    *gen = lanes ? spec : -1;
                    return MK_S_G32E;
                }
            }
        }
    }
    if (!lanes) /* joins rounded otherwise than the sums: only the definition takes them */
        return -1;
    if (spec == MK_S_NAT_F32 || spec == MK_S_NAT_F32_FMA) {
        *a = g32_args(g, c, spec == MK_S_NAT_F32_FMA);
        if (!srl__gemm32_takes(a, isa_level()))
            spec = *gen;
    }
    return spec;
}

int srl__kernels_engine(const srl_accum *c, const void *A, const void *B, size_t m, size_t n,
                        size_t k, int isf, const srl_rng *rng)
{
    const gemm_args g = {NULL, A, B, m, n, k, k, 1, n, 1, isf != 0, NULL};
    if (!c || srl__accum_check(c, true, rng, g.isf) != SRL_OK || !m || !n || !k)
        return -2;
    kcfg kc;
    kcfg_init(&kc, c, true, g.isf);
    mk_job jt;
    int gen;
    srl__g32 a;
    const int spec = gemm_plan(&g, c, &kc, rng, &jt, &gen, &a);
    if (spec < 0)
        return SRL__ENGINE_SCALAR;
    switch (spec) {
    case MK_S_G32E: return SRL__ENGINE_PACKED_EMU32;
    case MK_S_NAT_F32: return SRL__ENGINE_NATIVE32;
    case MK_S_NAT_F32_FMA: return SRL__ENGINE_NATIVE32_FMA;
    case MK_S_NAT_F64: return SRL__ENGINE_NATIVE64;
    case MK_S_NAT_F64_FMA: return SRL__ENGINE_NATIVE64_FMA;
    default: return spec >= MF_S_gen ? SRL__ENGINE_LANES32 : SRL__ENGINE_LANES64;
    }
}

/* Tile t of a grid of nr row blocks by nc column strips: (*r, *c). The order changes no result
 * (tiles are independent outputs), only where their operands are. On one thread the row blocks
 * of a strip are consecutive (rows_first false), so the strip of B stays in cache. When the
 * loop forks (rows_first true) the row blocks come first: the static schedule then gives each
 * thread a band of output rows, which are the rows of A it reads, and the rows that the
 * row-wise loops around a product (layer norm, elementwise operations, roundings: static
 * halves) have on the same thread. A strip split instead makes each thread read the whole of
 * A and write into every row, and lines written by the other core arrive at about a third of
 * the speed of the shared cache's (BENCHMARKS.md). */
static inline void tile_at(size_t t, size_t nr, size_t nc, bool rows_first, size_t *r, size_t *c)
{
    if (rows_first) {
        *r = t / nc;
        *c = t % nc;
    } else {
        *r = t % nr;
        *c = t / nr;
    }
}

/* One tile of output (i, j0..j0+w) on a lane engine. */
typedef struct gemm_tile_ctx {
    const gemm_args *g;
    const mk_job *jt;
    mk_fn fn;
    const srl_rng *rng;
    uint64_t c0, D;
    size_t es;
    uint64_t mD, cD;
    bool rows_first; /* tile order (tile_at) */
} gemm_tile_ctx;

static void gemm_tile(void *vctx, size_t t)
{
    const gemm_tile_ctx *c = vctx;
    const gemm_args *g = c->g;
    const size_t m = g->m, n = g->n, k = g->k;
    size_t i, jc;
    tile_at(t, m, (n + MK_W - 1) / MK_W, c->rows_first, &i, &jc);
    const size_t j0 = jc * MK_W;
    mk_job jb = *c->jt;
    jb.a = (const char *)g->A + i * g->a_row * c->es;
    jb.b = (const char *)g->B + j0 * c->es;
    jb.w = (int)(n - j0 < MK_W ? n - j0 : MK_W);
    jb.out = (char *)g->C + (i * n + j0) * c->es;
    jb.idx0 = c->c0 + (uint64_t)(i * n + j0) * c->D;
    if (jb.psto)
        mk_states(jb.stp, jb.w, c->rng, jb.idx0, c->mD, c->cD);
    if (jb.asto) {
        mk_states(jb.sta, jb.w, c->rng, jb.idx0 + jb.P, c->mD, c->cD);
        mk_states(jb.stj, jb.w, c->rng, jb.idx0 + jb.P + k, c->mD, c->cD);
    }
    c->fn(&jb);
}

/* One output C[o] on the scalar engine. */
typedef struct gemm_out_ctx {
    const gemm_args *g;
    const kcfg *kc;
    const srl_rng *rng;
    uint64_t c0, D;
    size_t es;
} gemm_out_ctx;

static void gemm_out(void *vctx, size_t o)
{
    const gemm_out_ctx *c = vctx;
    const gemm_args *g = c->g;
    const size_t n = g->n, i = o / n, j = o % n;
    kterms tm;
    tm.x = (const char *)g->A + i * g->a_row * c->es;
    tm.sx = g->a_step;
    tm.y = (const char *)g->B + j * c->es;
    tm.sy = n;
    store(g->C, o, srl__kseq_eval(c->kc, &tm, g->k, c->rng, c->c0 + (uint64_t)o * c->D), g->isf);
}

/* Row l of B^T (n values) from B (n-by-k). */
typedef struct transpose_ctx {
    float *Bt;
    const float *B;
    size_t n, k;
} transpose_ctx;

static void transpose_row(void *vctx, size_t l)
{
    const transpose_ctx *c = vctx;
    for (size_t j = 0; j < c->n; j++)
        c->Bt[l * c->n + j] = c->B[j * c->k + l];
}

static void gemm_engines(const gemm_args *g, const srl_accum *c, const kcfg *kc, srl_rng *rng,
                         mk_job *jt, int spec, bool par);

/* Checks, draws, then the engine. */
static int gemm_run(const gemm_args *g, const srl_accum *c, srl_rng *rng)
{
    if (!g->C || (!g->A && g->m && g->k) || (!g->B && g->n && g->k))
        return SRL_EINVAL;
    int st = srl__accum_check(c, true, rng, g->isf);
    if (st != SRL_OK)
        return st;
    const uint64_t total = srl_gemm_draws(g->m, g->n, g->k, c);
    if (total == UINT64_MAX && srl_dot_draws(g->k, c) != 0)
        return SRL_ERANGE;
    const size_t m = g->m, n = g->n, k = g->k;
    if (m == 0 || n == 0)
        return SRL_OK;
    if (k == 0) { /* empty sums: +0 */
        for (size_t o = 0; o < m * n; o++)
            store(g->C, o, 0.0, g->isf);
        return SRL_OK;
    }
    kcfg kc;
    kcfg_init(&kc, c, true, g->isf);
    /* whether the loop forks (decided once: the tile order depends on it) */
    const bool par = (double)m * (double)n * (double)k >= (double)KERN_OMP_MIN && srl__may_fork();
    mk_job jt;
    srl__g32 a;
    int gen, spec = gemm_plan(g, c, &kc, rng, &jt, &gen, &a);
    if (spec == MK_S_NAT_F32 || spec == MK_S_NAT_F32_FMA || spec == MK_S_G32E) {
        if (srl__gemm32(&a, isa_level(), par) == SRL_OK) {
            kern_advance(rng, total);
            return SRL_OK;
        }
        spec = gen; /* no workspace: the lanes compute the same */
    }
    if (g->b_step != 1) { /* the other engines read B by rows: B^T in the thread's workspace */
        float *Bt = srl__kern_ws(1, n * k * sizeof *Bt);
        if (!Bt)
            return SRL_ENOMEM;
        transpose_ctx tc = {Bt, g->B, n, k};
        srl__kern_for(k, n * k >= KERN_OMP_MIN, transpose_row, &tc);
        gemm_args gt = *g;
        gt.B = Bt;
        gt.b_row = n;
        gt.b_step = 1;
        gemm_engines(&gt, c, &kc, rng, &jt, spec, par);
    } else {
        gemm_engines(g, c, &kc, rng, &jt, spec, par);
    }
    kern_advance(rng, total);
    return SRL_OK;
}

/* The lane engine `spec` (or the scalar one, spec < 0) on B read by rows. */
static void gemm_engines(const gemm_args *g, const srl_accum *c, const kcfg *kc, srl_rng *rng,
                         mk_job *jt, int spec, bool par)
{
    const size_t m = g->m, n = g->n, k = g->k;
    const uint64_t D = srl_dot_draws(k, c), c0 = rng ? rng->counter : 0;
    const size_t es = g->isf ? sizeof(float) : sizeof(double);
    if (spec >= 0) {
        const mk_fn fn = mk_lookup(spec, isa_level());
        const bool sto = kc->psto || kc->asto;
        jt->a_step = g->a_step;
        jt->ldb = n;
        jt->k = k;
        jt->K = c->order == SRL_ORDER_BLOCKED ? c->block : k;
        jt->kc = kc;
        jt->rng = rng;
        /* the draws per output lane; defect gemm-draws (src/core/mutant.h): D - 1 */
        const uint64_t Dv = D - (uint64_t)(SRL__MUT(GEMM_DRAWS) && D > 1);
        jt->D = Dv;
        jt->P = kc->psto ? k : 0;
        uint64_t mD = 1, cD = 0;
        if (sto) {
            jt->inc = rng->g.p32.inc;
            srl__lcg64_jump(&jt->m2, &jt->c2, SRL_PCG32_MULT, jt->inc, 2);
            srl__lcg64_jump(&mD, &cD, SRL_PCG32_MULT, jt->inc, 2 * Dv);
        }
        const size_t nch = (n + MK_W - 1) / MK_W, tiles = m * nch;
        gemm_tile_ctx tc = {g, jt, fn, rng, c0, Dv, es, mD, cD, par};
        srl__kern_for(tiles, par, gemm_tile, &tc);
    } else {
        gemm_out_ctx oc = {g, kc, rng, c0, D, es};
        srl__kern_for(m * n, par, gemm_out, &oc);
    }
}

int srl_gemm(double *C, const double *A, const double *B, size_t m, size_t n, size_t k,
             const srl_accum *c, srl_rng *rng)
{
    const gemm_args g = {C, A, B, m, n, k, k, 1, n, 1, false, NULL};
    return gemm_run(&g, c, rng);
}

int srl_gemm_f(float *C, const float *A, const float *B, size_t m, size_t n, size_t k,
               const srl_accum *c, srl_rng *rng)
{
    const gemm_args g = {C, A, B, m, n, k, k, 1, n, 1, true, NULL};
    return gemm_run(&g, c, rng);
}

int srl_gemm_tn_f(float *C, const float *A, const float *B, size_t m, size_t n, size_t k,
                  const srl_accum *c, srl_rng *rng)
{
    const gemm_args g = {C, A, B, m, n, k, 1, m, n, 1, true, NULL}; /* A^T[i, l] = A[l*m + i] */
    return gemm_run(&g, c, rng);
}

int srl_gemm_nt_f(float *C, const float *A, const float *B, size_t m, size_t n, size_t k,
                  const srl_accum *c, srl_rng *rng)
{
    const gemm_args g = {C, A, B, m, n, k, k, 1, 1, k, true, NULL}; /* B^T[l, j] = B[j*k + l] */
    return gemm_run(&g, c, rng);
}

int srl__gemm_f_ep(float *C, const float *A, const float *B, size_t m, size_t n, size_t k,
                   int layout, const srl_accum *c, srl_rng *rng, srl__gemm_ep *ep)
{
    const size_t a_row = layout == 2 ? 1 : k, a_step = layout == 2 ? m : 1;
    const size_t b_row = layout == 1 ? 1 : n, b_step = layout == 1 ? k : 1;
    const gemm_args g = {C, A, B, m, n, k, a_row, a_step, b_row, b_step, true, ep};
    ep->done = false;
    ep->status = SRL_OK;
    return gemm_run(&g, c, rng);
}
