/* src/linalg/kernels_isa.h: the vector engines of the matrix product, as a template (private).
 *
 * src/linalg/kernels.c compiles this file once per instruction set (baseline x86-64, x86-64-v3,
 * x86-64-v4) through src/core/isa_instantiate.h, with ISA(name) naming the functions, as
 * src/round/round_bulk.c does with round_bulk_isa.h. The code is generic GCC vectors (plus FMA
 * intrinsics where the instruction set has them), so every instantiation computes the same
 * bits; only the speed differs. The baseline instantiation (SRL_ISA_LEVEL 0) keeps only the
 * generic engines, to spare compile time.
 *
 * One call computes one tile: one output row and up to MK_W = 64 columns, C[i, j0 .. j0+w), and
 * holds, per output column j (a lane), the state of that output's own sequence of operations:
 *     sb   the running sum of the current block        st   the sum of the finished blocks
 *     gp, ga, gj   pcg32 states of its product, term-accumulation and join draws.
 * The loop runs l = 0 .. k-1 outermost and the lanes innermost (the i-l-j order): every lane
 * sees its terms in the order l = 0, 1, ..., which is all the definition asks (kernels.h), so
 * vectorising over j changes nothing. Shapes:
 *     A_i[l] = a[l * a_step]   (k values: a row of A, or a column for A^T)
 *     B[l, j0 + q] = b[l * ldb + q]   (k rows of w values; a partial tile reads a zero-padded
 *                                      copy, and its extra lanes are never stored)
 *     out[q] = C[i, j0 + q]
 * Blocks of K terms (K >= k for the recursive order): start(l0), add for l0+1 .. l1-1, join.
 *
 * Engines (see src/linalg/kernels.c and kernels_impl.h for why each equals the definition):
 *   mk_*   binary64 lanes, eight a vector: product t = round_prod(a*b) formed in binary64,
 *          then start / add / join, each either native or exact-then-bit-logic;
 *   mf_*   binary32 lanes, sixteen a vector, when every product is a binary32 number;
 *   nat_*  hardware binary64 arithmetic (prod and acc rn binary64; binary32: gemm32.c).
 * Lanes where an exactness or range condition fails are flagged and recomputed, before the next
 * step, by the scalar definition (mk_fix_* in src/linalg/kernels.c) with the same draws. */

#include "round/lanes_isa.h" /* lane_pcg32_out, lane_draw, lane_any, lane_decide64/32 */

/* ---- rounding an exact binary64 value by bit logic (the decision of src/round/decide.h) ----
 * For |d| in [lo, hi] (the format's normal range, within binary64's) the grid spacing is 2^s
 * binary64 ulps (s = 53 - p); with R = |d| mod 2^s the fraction f has one word
 * f1 = R << (64 - s) and no tail, T's parity is bit s, and the result is (|d| - R) + (away << s)
 * with the carry into the exponent field being the step into the next binade. Zeros are exact
 * and kept (the sign of a zero *sum* from the hardware is right for every mode but rd, so
 * `sum` zeros are flagged under rd). Everything else is flagged.
 * Stochastic modes use the draw's high half only (one pcg32 output), except sr:r=R with R > 32:
 * sr compares it with f1's high half and flags the rare tie (the low half then decides, in the
 * scalar fix-up). */
SRL_INLINE srl__f64x8 ISA(vround)(srl__f64x8 d, const mk_round *rp, srl_mode mode, srl__u64x8 st,
                                  srl__u64x8 mult, srl__u64x8 inc, int sum, srl__u64x8 *bad)
{
    const srl__u64x8 zero = mult - mult, sign = zero + SRL__HALF;
    const int s = rp->s;
    srl__u64x8 b;
    memcpy(&b, &d, sizeof b);
    const srl__u64x8 a = b & ~sign;
    srl__u64x8 u = zero;
    int ub = 64;
    if (mode == SRL_SR_BITS && rp->r > 32) {
        u = ISA(lane_draw)(st, st * mult + inc);
    } else if (srl__mode_stochastic(mode)) {
        u = ISA(lane_pcg32_out)(st) << 32;
        ub = 32;
    }
    const srl__u64x8 res = ISA(lane_round64)(a, s, mode, rp->r, b >> 63, u, ub, bad);
    const srl__u64x8 lo = zero + rp->lo, span = zero + rp->span, hi = zero + rp->hi;
    const srl__u64x8 iz = ISA(lane_eq64)(a, zero);
    srl__u64x8 nok = (ISA(lane_lt64)(span, a - lo) | ISA(lane_lt64)(hi, res)) & ~iz;
    if (sum && mode == SRL_RD)
        nok |= iz;
    *bad |= nok;
    const srl__u64x8 yb = res | (b & sign);
    srl__f64x8 y;
    memcpy(&y, &yb, sizeof y);
    return y;
}

/* Lanes where a + b is not exact in binary64 (Knuth's TwoSum error is nonzero or NaN). */
SRL_INLINE srl__u64x8 ISA(sum_inexact)(srl__f64x8 a, srl__f64x8 b, srl__f64x8 d)
{
    const srl__f64x8 zd = {0, 0, 0, 0, 0, 0, 0, 0};
    const srl__f64x8 bp = d - a, ap = d - bp, e = (a - ap) + (b - bp);
    return ~(srl__u64x8)(e == zd); /* NaN compares unequal: flagged */
}

/* Lanes where the binary64 product p = RN(a*b) of binary64 numbers is not the exact product:
 * the error a*b - p (FMA, or Dekker's product without one) is nonzero, or p is outside the
 * range where that error is itself exact (|p| >= 2^-968; |a|, |b|, |p| <= 2^995 for the
 * splitting). An exact zero product (a or b zero, the other finite) is exact. */
SRL_INLINE srl__u64x8 ISA(prod_inexact)(srl__f64x8 a, srl__f64x8 b, srl__f64x8 p)
{
    const srl__f64x8 zd = {0, 0, 0, 0, 0, 0, 0, 0};
    srl__f64x8 e;
#if SRL_ISA_LEVEL >= 2
    e = (srl__f64x8)_mm512_fmsub_pd((__m512d)a, (__m512d)b, (__m512d)p);
#elif SRL_ISA_LEVEL >= 1
    __m256d a2[2], b2[2], p2[2], e2[2];
    memcpy(a2, &a, sizeof a2);
    memcpy(b2, &b, sizeof b2);
    memcpy(p2, &p, sizeof p2);
    e2[0] = _mm256_fmsub_pd(a2[0], b2[0], p2[0]);
    e2[1] = _mm256_fmsub_pd(a2[1], b2[1], p2[1]);
    memcpy(&e, e2, sizeof e);
#else
    const srl__f64x8 split = zd + 134217729.0; /* 2^27 + 1: Veltkamp's splitting */
    const srl__f64x8 ca = split * a, cb = split * b;
    const srl__f64x8 ah = ca - (ca - a), al = a - ah, bh = cb - (cb - b), bl = b - bh;
    e = (((ah * bh - p) + ah * bl) + al * bh) + al * bl;
#endif
    srl__f64x8 ap, bp, pp;
    srl__u64x8 t;
    memcpy(&t, &a, sizeof t);
    t &= ~(t - t + SRL__HALF);
    memcpy(&ap, &t, sizeof ap);
    memcpy(&t, &b, sizeof t);
    t &= ~(t - t + SRL__HALF);
    memcpy(&bp, &t, sizeof bp);
    memcpy(&t, &p, sizeof t);
    t &= ~(t - t + SRL__HALF);
    memcpy(&pp, &t, sizeof pp);
    const srl__f64x8 big = zd + 0x1p995, small = zd + 0x1p-968;
    const srl__u64x8 ok = ISA(lane_feq64)(e, zd) & ISA(lane_flt64)(pp, big) &
                          ~ISA(lane_flt64)(pp, small) & ISA(lane_flt64)(ap, big) &
                          ISA(lane_flt64)(bp, big);
    const srl__u64x8 zero_ok =
        (ISA(lane_feq64)(a, zd) | ISA(lane_feq64)(b, zd)) & ISA(lane_feq64)(p, zd);
    return ~(ok | zero_ok);
}

/* One accumulation round_acc(s + t) of exact binary64 values, by kind. */
SRL_INLINE srl__f64x8 ISA(vacc)(srl__f64x8 s, srl__f64x8 t, const mk_round *ar, int ak,
                                srl_mode amode, srl__u64x8 st, srl__u64x8 mult, srl__u64x8 inc,
                                srl__u64x8 *bad)
{
    switch (ak) {
    case MK_AK_F32ADD: { /* both binary32 numbers: the native binary32 sum is RN32(s + t) */
        const srl__f32x8 r =
            __builtin_convertvector(s, srl__f32x8) + __builtin_convertvector(t, srl__f32x8);
        return __builtin_convertvector(r, srl__f64x8);
    }
    case MK_AK_F64ADD: return s + t; /* RN64(s + t), the hardware's rounding */
    case MK_AK_CONV32: {             /* exact sum, then RN32 by conversion */
        const srl__f64x8 d = s + t;
        *bad |= ISA(sum_inexact)(s, t, d);
        return __builtin_convertvector(__builtin_convertvector(d, srl__f32x8), srl__f64x8);
    }
    default: {
        const srl__f64x8 d = s + t;
        *bad |= ISA(sum_inexact)(s, t, d);
        return ISA(vround)(d, ar, amode, st, mult, inc, 1, bad);
    }
    }
}

/* Row l of B for this tile: B's own row for a full tile, else a copy in `pad` (zero beyond w,
 * so the lanes past w compute on zeros and are never stored or fixed up). */
SRL_INLINE const void *ISA(brow)(const mk_job *jb, size_t l, void *pad, size_t es)
{
    const char *row = (const char *)jb->b + l * jb->ldb * es;
    if (jb->w == MK_W)
        return row;
    memcpy(pad, row, (size_t)jb->w * es);
    return pad;
}

/* Eight B values of lanes 8v .. 8v+7, as binary64. */
SRL_INLINE srl__f64x8 ISA(load8)(const void *row, int v, int dbl)
{
    if (dbl) {
        srl__f64x8 x;
        memcpy(&x, (const double *)row + 8 * v, sizeof x);
        return x;
    }
    srl__f32x8 x;
    memcpy(&x, (const float *)row + 8 * v, sizeof x);
    return __builtin_convertvector(x, srl__f64x8);
}

#define SRL_SPLAT8(x) {x, x, x, x, x, x, x, x}
#define SRL_SPLAT16(x) {x, x, x, x, x, x, x, x, x, x, x, x, x, x, x, x}

/* The flagged lanes, recomputed by the scalar definition (src/linalg/kernels.c). Vectors cross into
 * the baseline-ISA functions as arrays: their by-value ABI differs between instruction sets. */
static __attribute__((noinline, cold)) srl__f64x8 ISA(fix_term)(
    const mk_job *jb, size_t l, int v, int first, double av, srl__f64x8 b8, srl__f64x8 s8,
    srl__f64x8 r8, srl__u64x8 bad, srl__u64x8 gp, srl__u64x8 ga)
{
    double b[8], s[8], r[8];
    uint64_t f[8], p[8], a[8];
    memcpy(b, &b8, sizeof b);
    memcpy(s, &s8, sizeof s);
    memcpy(r, &r8, sizeof r);
    memcpy(f, &bad, sizeof f);
    memcpy(p, &gp, sizeof p);
    memcpy(a, &ga, sizeof a);
    mk_fix_term(jb, l, v, first, av, b, s, r, f, p, a);
    memcpy(&r8, r, sizeof r);
    return r8;
}

static __attribute__((noinline, cold)) srl__f64x8 ISA(fix_join)(
    const mk_job *jb, size_t blk, int v, srl__f64x8 t8, srl__f64x8 s8, srl__f64x8 r8,
    srl__u64x8 bad, srl__u64x8 gj)
{
    double t[8], s[8], r[8];
    uint64_t f[8], g[8];
    memcpy(t, &t8, sizeof t);
    memcpy(s, &s8, sizeof s);
    memcpy(r, &r8, sizeof r);
    memcpy(f, &bad, sizeof f);
    memcpy(g, &gj, sizeof g);
    mk_fix_join(jb, blk, v, t, s, r, f, g);
    memcpy(&r8, r, sizeof r);
    return r8;
}

/* One term l for all lanes: product, then start (first) or add, with fix-ups. */
SRL_INLINE void ISA(mk_step)(mk_job *jb, size_t l, const int first, const int dbl, const int pk,
                             const int ak, const srl_mode pmode, const srl_mode amode,
                             srl__f64x8 *sb, srl__u64x8 *gp, srl__u64x8 *ga,
                             const srl__u64x8 *valid, void *pad, const mk_round *pr,
                             const mk_round *ar, srl__u64x8 m2, srl__u64x8 c2, srl__u64x8 inc)
{
    const bool psto = pk == MK_PK_ROUND && srl__mode_stochastic(pmode);
    const bool asto = ak == MK_AK_BITS && srl__mode_stochastic(amode);
    const srl__u64x8 zero = {0, 0, 0, 0, 0, 0, 0, 0};
    const srl__u64x8 mult = zero + SRL_PCG32_MULT;
    const double av = dbl ? ((const double *)jb->a)[l * jb->a_step]
                          : (double)((const float *)jb->a)[l * jb->a_step];
    const srl__f64x8 a8 = SRL_SPLAT8(av); /* not 0 + av: -0 must stay -0 */
    const void *row = ISA(brow)(jb, l, pad, dbl ? sizeof(double) : sizeof(float));
    for (int v = 0; v < MK_NV; v++) {
        const srl__f64x8 b8 = ISA(load8)(row, v, dbl);
        const srl__f64x8 p = a8 * b8; /* exact for binary32 inputs */
        srl__u64x8 bad = zero;
        if (dbl && pk != MK_PK_F64MUL)
            bad |= ISA(prod_inexact)(a8, b8, p);
        srl__f64x8 t;
        if (pk == MK_PK_F32MUL) /* RN32 of the exact product: the binary32 product */
            t = __builtin_convertvector(__builtin_convertvector(p, srl__f32x8), srl__f64x8);
        else if (pk == MK_PK_ROUND)
            t = ISA(vround)(p, pr, pmode, gp[v], mult, inc, 0, &bad);
        else
            t = p;
        srl__f64x8 r;
        if (first) { /* start: round_acc of the term, one rounding */
            if (ak == MK_AK_BITS)
                r = ISA(vround)(t, ar, amode, ga[v], mult, inc, 0, &bad);
            else if (ak == MK_AK_CONV32)
                r = __builtin_convertvector(__builtin_convertvector(t, srl__f32x8), srl__f64x8);
            else
                r = t; /* F32ADD: t is a binary32 number; F64ADD: t is binary64 */
        } else {
            r = ISA(vacc)(sb[v], t, ar, ak, amode, ga[v], mult, inc, &bad);
        }
        bad &= valid[v];
        if (__builtin_expect(ISA(lane_any)(bad), 0))
            r = ISA(fix_term)(jb, l, v, first, av, b8, sb[v], r, bad, gp[v], ga[v]);
        sb[v] = r;
        if (psto)
            gp[v] = gp[v] * m2 + c2;
        if (asto)
            ga[v] = ga[v] * m2 + c2;
    }
}

/* The emulated engine. dbl: binary64 inputs (else binary32); pk, ak, pmode, amode: the kinds and
 * modes, compile-time constants in the specialised instances, read from jb in the generic ones.
 * Blocks of K terms (K >= k: one block, the recursive order): start, adds, then the join. */
SRL_INLINE void ISA(mk_core)(mk_job *jb, const int dbl, const int pk, const int ak,
                             const srl_mode pmode, const srl_mode amode)
{
    const size_t k = jb->k, K = jb->K;
    const int w = jb->w;
    const bool asto = ak == MK_AK_BITS && srl__mode_stochastic(amode);
    const srl__u64x8 zero = {0, 0, 0, 0, 0, 0, 0, 0};
    const srl__u64x8 m2 = zero + jb->m2, c2 = zero + jb->c2;
    const srl__u64x8 mult = zero + SRL_PCG32_MULT, inc = zero + jb->inc;
    const mk_round pr = jb->pr, ar = jb->ar; /* locals: kept in registers, not reread */
    double pad[MK_W]; /* also holds MK_W floats */
    memset(pad, 0, sizeof pad);
    srl__f64x8 sb[MK_NV], st[MK_NV];
    srl__u64x8 gp[MK_NV], ga[MK_NV], gj[MK_NV], valid[MK_NV];
    memcpy(gp, jb->stp, sizeof gp);
    memcpy(ga, jb->sta, sizeof ga);
    memcpy(gj, jb->stj, sizeof gj);
    for (int v = 0; v < MK_NV; v++) {
        sb[v] = st[v] = (srl__f64x8){0, 0, 0, 0, 0, 0, 0, 0};
        for (int q = 0; q < 8; q++)
            valid[v][q] = 8 * v + q < w ? ~UINT64_C(0) : 0;
    }
    size_t blk = 0;
    for (size_t l0 = 0; l0 < k; l0 += K, blk++) {
        const size_t l1 = K < k - l0 ? l0 + K : k;
        ISA(mk_step)(jb, l0, 1, dbl, pk, ak, pmode, amode, sb, gp, ga, valid, pad, &pr, &ar, m2,
                     c2, inc);
        for (size_t l = l0 + 1; l < l1; l++)
            ISA(mk_step)(jb, l, 0, dbl, pk, ak, pmode, amode, sb, gp, ga, valid, pad, &pr, &ar,
                         m2, c2, inc);
        for (int v = 0; v < MK_NV; v++) {
            if (blk == 0) {
                st[v] = sb[v];
                continue;
            }
            srl__u64x8 bad = zero;
            srl__f64x8 r = ISA(vacc)(st[v], sb[v], &ar, ak, amode, gj[v], mult, inc, &bad);
            bad &= valid[v];
            if (__builtin_expect(ISA(lane_any)(bad), 0))
                r = ISA(fix_join)(jb, blk, v, st[v], sb[v], r, bad, gj[v]);
            st[v] = r;
            if (asto)
                gj[v] = gj[v] * m2 + c2;
        }
    }
    for (int q = 0; q < w; q++) {
        const double y = st[q / 8][q % 8];
        if (dbl)
            ((double *)jb->out)[q] = y;
        else
            ((float *)jb->out)[q] = (float)y; /* exact: acc_fmt is a subset of binary32 */
    }
}

#define MK_INSTANCE(name, dbl, pk, ak, pm, am)                                                    \
    static void ISA(mk_##name)(mk_job * jb) { ISA(mk_core)(jb, dbl, pk, ak, pm, am); }
#if SRL_ISA_LEVEL > 0 /* the baseline copy keeps the generic instances only (compile time) */
MK_SPECS(MK_INSTANCE)
#else
MK_GENERIC(MK_INSTANCE)
#endif
#undef MK_INSTANCE

/* ---- the native binary64 engine: binary64 products and accumulation, rn ----
 * (The native binary32 product has an engine of its own, src/linalg/gemm32.c.)
 * The hardware's a*b, s + t and fma(a, b, s) are RN of the exact result, which is the whole
 * definition here; lanes are independent outputs as above. */

SRL_INLINE srl__f64x8 ISA(fma_d8)(srl__f64x8 a, srl__f64x8 b, srl__f64x8 c)
{
#if SRL_ISA_LEVEL >= 2
    return (srl__f64x8)_mm512_fmadd_pd((__m512d)a, (__m512d)b, (__m512d)c);
#elif SRL_ISA_LEVEL >= 1
    __m256d a2[2], b2[2], c2[2];
    memcpy(a2, &a, sizeof a2);
    memcpy(b2, &b, sizeof b2);
    memcpy(c2, &c, sizeof c2);
    c2[0] = _mm256_fmadd_pd(a2[0], b2[0], c2[0]);
    c2[1] = _mm256_fmadd_pd(a2[1], b2[1], c2[1]);
    srl__f64x8 r;
    memcpy(&r, c2, sizeof r);
    return r;
#else
    srl__f64x8 r;
    for (int q = 0; q < 8; q++)
        r[q] = fma(a[q], b[q], c[q]);
    return r;
#endif
}

/* One native engine: T the element type, V its vector of L lanes, FMA the fused operation. */
#define MK_NATIVE(NAME, T, V, L, SPLAT, FMA)                                                      \
    SRL_INLINE void ISA(NAME##_core)(mk_job * jb, const int fused)                                \
    {                                                                                             \
        enum { NV = MK_W / (L) };                                                                 \
        const size_t k = jb->k, K = jb->K;                                                        \
        const T *a = (const T *)jb->a;                                                            \
        T pad[MK_W];                                                                              \
        memset(pad, 0, sizeof pad);                                                               \
        V st[NV];                                                                                 \
        memset(st, 0, sizeof st);                                                                 \
        size_t blk = 0;                                                                           \
        for (size_t l0 = 0; l0 < k; l0 += K, blk++) {                                            \
            const size_t l1 = K < k - l0 ? l0 + K : k;                                            \
            V sb[NV];                                                                             \
            {                                                                                     \
                const T av = a[l0 * jb->a_step];                                                  \
                const V a8 = SPLAT(av);                                                           \
                const T *row = (const T *)ISA(brow)(jb, l0, pad, sizeof(T));                      \
                for (int v = 0; v < NV; v++) {                                                    \
                    V b8;                                                                         \
                    memcpy(&b8, row + (L)*v, sizeof b8);                                          \
                    sb[v] = a8 * b8; /* start: RN of the exact product */                         \
                }                                                                                 \
            }                                                                                     \
            for (size_t l = l0 + 1; l < l1; l++) {                                                \
                const T av = a[l * jb->a_step];                                                   \
                const V a8 = SPLAT(av);                                                           \
                const T *row = (const T *)ISA(brow)(jb, l, pad, sizeof(T));                       \
                for (int v = 0; v < NV; v++) {                                                    \
                    V b8;                                                                         \
                    memcpy(&b8, row + (L)*v, sizeof b8);                                          \
                    if (fused)                                                                    \
                        sb[v] = FMA(a8, b8, sb[v]);                                               \
                    else                                                                          \
                        sb[v] = sb[v] + a8 * b8; /* two roundings: -ffp-contract=off */           \
                }                                                                                 \
            }                                                                                     \
            for (int v = 0; v < NV; v++)                                                          \
                st[v] = blk == 0 ? sb[v] : st[v] + sb[v];                                         \
        }                                                                                         \
        T *out = (T *)jb->out;                                                                    \
        for (int q = 0; q < jb->w; q++)                                                           \
            out[q] = st[q / (L)][q % (L)];                                                        \
    }                                                                                             \
    static void ISA(NAME)(mk_job * jb) { ISA(NAME##_core)(jb, 0); }                               \
    static void ISA(NAME##_fma)(mk_job * jb) { ISA(NAME##_core)(jb, 1); }

MK_NATIVE(nat_f64, double, srl__f64x8, 8, SRL_SPLAT8, ISA(fma_d8))
#undef MK_NATIVE

/* ---- the binary32-lane engine (binary32 inputs whose products are exact in binary32) ----
 * Used when the scan of src/linalg/kernels.c has shown that every product a*b of the call is a binary32
 * number (significant bits of A and B sum to at most 24, exponents keep it normal and finite):
 * then the binary32 product IS the exact product, and the exact sum of two binary32 numbers is a
 * binary32 number whenever binary32 TwoSum's error is 0. Sixteen lanes per vector; the rounding
 * is the one above on binary32 bits (s = 24 - p), with the decision on 32-bit words
 * (ISA(lane_decide32)): f1 = R << (64 - s) has a zero low word, so f1_hi is the whole fraction
 * and every stochastic decision needs only the high half of the draw, hi:
 *   sr       u < f1 iff hi < f1_hi (equality of the high halves means u >= f1);
 *   sr-eq    the top bit of hi;
 *   sr:r=R   R < 32: F = f1_hi >> (32 - R), Z = hi >> (32 - R), carry of F + Z at bit R;
 *            R >= 32: F + Z = (f1_hi + hi) 2^(R-32) + (bits of lo below 2^(R-32)), so the carry
 *            at bit R is the carry of the 32-bit sum f1_hi + hi (mk_round32_init stores
 *            min(R, 32)). */

SRL_INLINE int ISA(any16)(srl__u32x16 v)
{
    srl__u64x8 w;
    memcpy(&w, &v, sizeof w);
    return ISA(lane_any)(w);
}

SRL_INLINE srl__f32x16 ISA(vround32)(srl__f32x16 d, const mk_round32 *rp, srl_mode mode,
                                     srl__u32x16 hi, int sum, srl__u32x16 *bad)
{
    const srl__u32x16 zero = hi - hi, sign = zero + 0x80000000u;
    const int s = rp->s;
    srl__u32x16 b;
    memcpy(&b, &d, sizeof b);
    const srl__u32x16 a = b & ~sign;
    const srl__u32x16 res = ISA(lane_round32)(a, s, mode, rp->r, b >> 31, hi, 32, bad);
    const srl__u32x16 lo = zero + rp->lo, span = zero + rp->span, hi32 = zero + rp->hi;
    const srl__u32x16 iz = (srl__u32x16)(a == zero);
    srl__u32x16 nok = ((srl__u32x16)(span < (a - lo)) | (srl__u32x16)(hi32 < res)) & ~iz;
    if (sum && mode == SRL_RD)
        nok |= iz;
    *bad |= nok;
    const srl__u32x16 yb = res | (b & sign);
    srl__f32x16 y;
    memcpy(&y, &yb, sizeof y);
    return y;
}

SRL_INLINE srl__u32x16 ISA(sum_inexact32)(srl__f32x16 a, srl__f32x16 b, srl__f32x16 d)
{
    const srl__f32x16 zf = {0};
    const srl__f32x16 bp = d - a, ap = d - bp, e = (a - ap) + (b - bp);
    return ~(srl__u32x16)(e == zf);
}

/* Flagged lanes of sixteen: the eight-lane fix-ups of src/linalg/kernels.c, twice. */
static __attribute__((noinline, cold)) srl__f32x16 ISA(fix_term16)(
    const mk_job *jb, size_t l, int v, int first, double av, srl__f32x16 b16, srl__f32x16 s16,
    srl__f32x16 r16, srl__u32x16 bad, const srl__u64x8 *gp, const srl__u64x8 *ga)
{
    for (int h = 0; h < 2; h++) {
        double b[8], s[8], r[8];
        uint64_t f[8], p[8], a[8];
        for (int q = 0; q < 8; q++) {
            b[q] = b16[8 * h + q];
            s[q] = s16[8 * h + q];
            r[q] = r16[8 * h + q];
            f[q] = bad[8 * h + q];
            p[q] = gp[h][q];
            a[q] = ga[h][q];
        }
        mk_fix_term(jb, l, 2 * v + h, first, av, b, s, r, f, p, a);
        for (int q = 0; q < 8; q++)
            r16[8 * h + q] = (float)r[q]; /* a value of acc_fmt: a binary32 number */
    }
    return r16;
}

static __attribute__((noinline, cold)) srl__f32x16 ISA(fix_join16)(
    const mk_job *jb, size_t blk, int v, srl__f32x16 t16, srl__f32x16 s16, srl__f32x16 r16,
    srl__u32x16 bad, const srl__u64x8 *gj)
{
    for (int h = 0; h < 2; h++) {
        double t[8], s[8], r[8];
        uint64_t f[8], g[8];
        for (int q = 0; q < 8; q++) {
            t[q] = t16[8 * h + q];
            s[q] = s16[8 * h + q];
            r[q] = r16[8 * h + q];
            f[q] = bad[8 * h + q];
            g[q] = gj[h][q];
        }
        mk_fix_join(jb, blk, 2 * v + h, t, s, r, f, g);
        for (int q = 0; q < 8; q++)
            r16[8 * h + q] = (float)r[q];
    }
    return r16;
}

/* One term l for all lanes of the binary32-lane engine. */
SRL_INLINE void ISA(mf_step)(mk_job *jb, size_t l, const int first, const int pk, const int ak,
                             const srl_mode pmode, const srl_mode amode, srl__f32x16 *sb,
                             srl__u64x8 (*gp)[2], srl__u64x8 (*ga)[2], const srl__u32x16 *valid,
                             float *pad, const mk_round32 *pr, const mk_round32 *ar, srl__u64x8 m2,
                             srl__u64x8 c2)
{
    enum { NV = MK_W / 16 };
    const bool psto = pk == MF_PK_ROUND && srl__mode_stochastic(pmode);
    const bool asto = ak == MK_AK_BITS && srl__mode_stochastic(amode);
    const srl__u32x16 z16 = {0};
    const float av = ((const float *)jb->a)[l * jb->a_step];
    const srl__f32x16 a16 = SRL_SPLAT16(av);
    const float *row = (const float *)ISA(brow)(jb, l, pad, sizeof(float));
    for (int v = 0; v < NV; v++) {
        srl__f32x16 b16;
        memcpy(&b16, row + 16 * v, sizeof b16);
        const srl__f32x16 p = a16 * b16; /* exact: the scan */
        srl__u32x16 bad = z16;
        const srl__f32x16 t =
            pk == MF_PK_ROUND
                ? ISA(vround32)(p, pr, pmode,
                                psto ? ISA(lane_pcg32_out16)(gp[v][0], gp[v][1]) : z16, 0, &bad)
                : p;
        const srl__u32x16 hi_a = asto ? ISA(lane_pcg32_out16)(ga[v][0], ga[v][1]) : z16;
        srl__f32x16 r;
        if (first) {
            r = ak == MK_AK_BITS ? ISA(vround32)(t, ar, amode, hi_a, 0, &bad) : t;
        } else if (ak == MK_AK_F32ADD) {
            r = sb[v] + t; /* RN32 of the exact sum */
        } else {
            const srl__f32x16 d = sb[v] + t;
            bad |= ISA(sum_inexact32)(sb[v], t, d);
            r = ISA(vround32)(d, ar, amode, hi_a, 1, &bad);
        }
        bad &= valid[v];
        if (__builtin_expect(ISA(any16)(bad), 0))
            r = ISA(fix_term16)(jb, l, v, first, (double)av, b16, sb[v], r, bad, gp[v], ga[v]);
        sb[v] = r;
        if (psto) {
            gp[v][0] = gp[v][0] * m2 + c2;
            gp[v][1] = gp[v][1] * m2 + c2;
        }
        if (asto) {
            ga[v][0] = ga[v][0] * m2 + c2;
            ga[v][1] = ga[v][1] * m2 + c2;
        }
    }
}

/* pk: MF_PK_P (the term is the product: prod binary32 rn, fma, or a format holding it) or
 * MF_PK_ROUND; ak: MK_AK_F32ADD (acc binary32 rn) or MK_AK_BITS. */
SRL_INLINE void ISA(mf_core)(mk_job *jb, const int pk, const int ak, const srl_mode pmode,
                             const srl_mode amode)
{
    enum { NV = MK_W / 16 };
    const size_t k = jb->k, K = jb->K;
    const int w = jb->w;
    const bool asto = ak == MK_AK_BITS && srl__mode_stochastic(amode);
    const srl__u64x8 z8 = {0, 0, 0, 0, 0, 0, 0, 0};
    const srl__u64x8 m2 = z8 + jb->m2, c2 = z8 + jb->c2;
    const srl__u32x16 z16 = {0};
    const mk_round32 pr = jb->pr32, ar = jb->ar32; /* locals: kept in registers */
    float pad[MK_W];
    memset(pad, 0, sizeof pad);
    srl__f32x16 sb[NV], st[NV];
    srl__u64x8 gp[NV][2], ga[NV][2], gj[NV][2];
    srl__u32x16 valid[NV];
    memcpy(gp, jb->stp, sizeof gp);
    memcpy(ga, jb->sta, sizeof ga);
    memcpy(gj, jb->stj, sizeof gj);
    for (int v = 0; v < NV; v++) {
        sb[v] = st[v] = (srl__f32x16){0};
        for (int q = 0; q < 16; q++)
            valid[v][q] = 16 * v + q < w ? ~0u : 0u;
    }
    size_t blk = 0;
    for (size_t l0 = 0; l0 < k; l0 += K, blk++) {
        const size_t l1 = K < k - l0 ? l0 + K : k;
        ISA(mf_step)(jb, l0, 1, pk, ak, pmode, amode, sb, gp, ga, valid, pad, &pr, &ar, m2, c2);
        for (size_t l = l0 + 1; l < l1; l++)
            ISA(mf_step)(jb, l, 0, pk, ak, pmode, amode, sb, gp, ga, valid, pad, &pr, &ar, m2,
                         c2);
        for (int v = 0; v < NV; v++) {
            if (blk == 0) {
                st[v] = sb[v];
                continue;
            }
            srl__u32x16 bad = z16;
            srl__f32x16 r;
            if (ak == MK_AK_F32ADD) {
                r = st[v] + sb[v];
            } else {
                const srl__f32x16 d = st[v] + sb[v];
                bad |= ISA(sum_inexact32)(st[v], sb[v], d);
                r = ISA(vround32)(d, &ar, amode,
                                  asto ? ISA(lane_pcg32_out16)(gj[v][0], gj[v][1]) : z16, 1, &bad);
            }
            bad &= valid[v];
            if (__builtin_expect(ISA(any16)(bad), 0))
                r = ISA(fix_join16)(jb, blk, v, st[v], sb[v], r, bad, gj[v]);
            st[v] = r;
            if (asto) {
                gj[v][0] = gj[v][0] * m2 + c2;
                gj[v][1] = gj[v][1] * m2 + c2;
            }
        }
    }
    float *out = (float *)jb->out;
    for (int q = 0; q < w; q++)
        out[q] = st[q / 16][q % 16];
}

#define MF_INSTANCE(name, pk, ak, pm, am)                                                         \
    static void ISA(mf_##name)(mk_job * jb) { ISA(mf_core)(jb, pk, ak, pm, am); }
#if SRL_ISA_LEVEL > 0
MF_SPECS(MF_INSTANCE)
#else
MF_GENERIC(MF_INSTANCE)
#endif
#undef MF_INSTANCE
