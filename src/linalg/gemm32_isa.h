/* src/linalg/gemm32_isa.h: the micro-kernels of the packed binary32 matrix product, as a template
 * (private).
 *
 * src/linalg/gemm32.c compiles this file once per instruction set through
 * src/core/isa_instantiate.h (ISA(name) names the copies). A micro-kernel computes a tile of
 * G32_MR rows by nv vectors of G32_L columns from packed operands (src/linalg/gemm32.c lays them
 * out):
 *     Ap[l * G32_MR + r] = A[i0 + r, l0 + l],   Bp[l * nv G32_L + c] = B[l0 + l, j0 + c]
 * for l = 0 .. kc-1, and runs, for every output of the tile, its own sum in the order l = 0, 1,
 * ...: s = s + Ap[l, r] * Bp[l, c], the product rounded and then the sum (two binary32 roundings,
 * -ffp-contract=off), or one fused operation with fma. The tile's G32_MR x nv sums are the
 * registers; each vector of B feeds G32_MR rows and each broadcast value of A nv vectors.
 * Lanes are independent outputs, so the width of a vector, the tile's shape and the instruction
 * set change nothing but the speed.
 * How the tile starts and ends (`how`, gemm32.c says which segment of which sum this is):
 *     G32_FRESH  s = -0 before the first term, C = s after the last. -0 + x is x for every x
 *                (both zeros included), so the first addition is the definition's start(0),
 *                the product itself (or, fused, RN(a*b)).
 *     G32_LOAD   s = C before (the same sum continued: a binary32 value read back unchanged).
 *     G32_JOIN   s = -0 before, C = C + s after: the join of a finished block of the blocked
 *                order into the sum of the blocks before it, which C holds. */

#if SRL_ISA_LEVEL >= 2
#include "round/lanes_isa.h" /* lane_pcg32_out16: SR's draws */
#define G32_L 16
#define G32_NV 4
/* The products' kernels (not fused) read A already broadcast: every value of the panel packed as
 * a whole vector of 16 copies (g32_pack_wide), so that the loop loads it. A broadcast in the loop
 * costs a cycle of the vector pipes on AMD's Zen 4, which vmulps and vaddps keep busy: six per
 * step of 24 products and 24 sums took a fifth of the time; fma leaves them free, and takes A
 * as packed. */
#define G32_AW 16
#elif SRL_ISA_LEVEL == 1
#define G32_L 8
#define G32_NV 2
#else
#define G32_L 4
#define G32_NV 2
#endif
#ifndef G32_AW
#define G32_AW 1
#endif
typedef float ISA(g32v) __attribute__((vector_size(4 * G32_L)));

SRL_INLINE ISA(g32v) ISA(g32_fma)(ISA(g32v) a, ISA(g32v) b, ISA(g32v) c)
{
#if SRL_ISA_LEVEL >= 2
    return (ISA(g32v))_mm512_fmadd_ps((__m512)a, (__m512)b, (__m512)c);
#elif SRL_ISA_LEVEL == 1
    return (ISA(g32v))_mm256_fmadd_ps((__m256)a, (__m256)b, (__m256)c);
#else
    for (int q = 0; q < G32_L; q++) /* not selected (src/linalg/gemm32.c): fmaf is exact anyway */
        c[q] = fmaf(a[q], b[q], c[q]);
    return c;
#endif
}

SRL_INLINE ISA(g32v) ISA(g32_splat)(float a)
{
#if SRL_ISA_LEVEL >= 2
    return (ISA(g32v))_mm512_set1_ps(a);
#elif SRL_ISA_LEVEL == 1
    return (ISA(g32v))_mm256_set1_ps(a);
#else
    ISA(g32v) v;
    for (int q = 0; q < G32_L; q++)
        v[q] = a;
    return v;
#endif
}

SRL_INLINE void ISA(g32_core)(size_t kc, const float *restrict Ap, const float *restrict Bp,
                              float *restrict C, size_t ldc, int how, const int nv,
                              const int fused)
{
    typedef ISA(g32v) V;
    enum { MR = G32_MR, L = G32_L };
    const int aw = fused ? 1 : G32_AW; /* floats per value of A */
    V s[MR][G32_NV];
    const V mz = ISA(g32_splat)(-0.0f);

#pragma GCC unroll 8
    for (int r = 0; r < MR; r++)
#pragma GCC unroll 4
        for (int v = 0; v < nv; v++) {
            if (how == G32_LOAD)
                memcpy(&s[r][v], C + r * ldc + v * L, sizeof(V));
            else
                s[r][v] = mz;
        }
    for (size_t l = 0; l < kc; l++) {
        V b[G32_NV];
#pragma GCC unroll 4
        for (int v = 0; v < nv; v++)
            memcpy(&b[v], Bp + l * (size_t)(nv * L) + v * L, sizeof(V));
#pragma GCC unroll 8
        for (int r = 0; r < MR; r++) {
            V a;
            if (aw == 1)
                a = ISA(g32_splat)(Ap[l * MR + r]);
            else
                memcpy(&a, Ap + (l * MR + r) * L, sizeof a);
#pragma GCC unroll 4
            for (int v = 0; v < nv; v++)
                s[r][v] = fused ? ISA(g32_fma)(a, b[v], s[r][v])
                                : s[r][v] + a * b[v]; /* two roundings: no contraction */
        }
    }
#pragma GCC unroll 8
    for (int r = 0; r < MR; r++)
#pragma GCC unroll 4
        for (int v = 0; v < nv; v++) {
            if (how == G32_JOIN) {
                V c;
                memcpy(&c, C + r * ldc + v * L, sizeof c);
                s[r][v] = c + s[r][v];
            }
            memcpy(C + r * ldc + v * L, &s[r][v], sizeof(V));
        }
}

#if G32_AW > 1
/* A panel of G32_MR rows as the products' kernels read it: value (r, l) of the panel, the row's
 * term l (src[r][l step]; rows from `rows` on are zeros), as the vector at (l G32_MR + r) G32_L. */
static void ISA(g32_pack_wide)(float *restrict pan, const float *const *src, size_t rows,
                               size_t step, size_t kc)
{
    for (size_t l = 0; l < kc; l++)
#pragma GCC unroll 8
        for (size_t r = 0; r < G32_MR; r++) {
            const ISA(g32v) a = ISA(g32_splat)(r < rows ? src[r][l * step] : 0.0f);
            memcpy(pan + (l * G32_MR + r) * G32_L, &a, sizeof a);
        }
}
#endif

#define G32_INSTANCE(nv, fused)                                                                   \
    static void ISA(g32_k##nv##_##fused)(size_t kc, const float *Ap, const float *Bp, float *C,   \
                                          size_t ldc, int how)                                    \
    {                                                                                             \
        ISA(g32_core)(kc, Ap, Bp, C, ldc, how, nv, fused);                                        \
    }
G32_INSTANCE(1, 0)
G32_INSTANCE(2, 0)
#if G32_NV == 4
G32_INSTANCE(3, 0)
G32_INSTANCE(4, 0)
#endif
#if SRL_ISA_LEVEL >= 1 /* the fused product takes the hardware's fma (gemm32.c) */
G32_INSTANCE(1, 1)
G32_INSTANCE(2, 1)
#if G32_NV == 4
G32_INSTANCE(3, 1)
G32_INSTANCE(4, 1)
#endif
#endif
#undef G32_INSTANCE

/* ---- emulated products and sums (x86-64-v4 only: AVX-512's rounding per instruction) ----
 * Products exact in binary32 (the scan of src/linalg/kernels.c: every product of the call is a
 * binary32 normal number or zero), then, per term of each output's sum:
 *   t = the product (G32_P_EXACT), or RN of it into p bits of binary32's exponent range
 *       (G32_P_RN: bf16, tf32): on its bits, (b + 2^(ps-1) - 1 + bit ps) with the low ps bits
 *       cleared, the carry form of src/round/decide.h, exact for every normal b (a carry into the
 *       exponent is the step to the next binade, and to inf past the largest number, as RN
 *       overflows);
 *   s = round_acc(s + t), from d = s + t computed by the hardware toward zero (RZ, an AVX-512
 *       rounding override: {rz-sae}), d = RZ24(x) for the exact x = s + t. The accumulator's
 *       format has p <= 22 bits and binary32's exponent range or a narrower one; in its normal
 *       range the grid is every 2^as-th binary32 number (as = 24 - p), and
 *         RZ   RZp(x) = RZp(RZ24(x)): d with its low as bits cleared (truncations compose);
 *         RN   RNp(x) = RNp(RO24(x)) (rounding to odd at 24 >= p + 2 bits, then to nearest:
 *              Boldo and Melquiond's double rounding), RO24(x) = d with its last bit set when x
 *              is inexact, which is when RU24(x) != RD24(x) (two more additions);
 *         SR   with Z the draw's top as bits and R = d's low as bits: x = (|d| + delta) ulp24 in
 *              magnitude, 0 <= delta < 1, and away iff U < (R + delta) / 2^as: Z < R decides
 *              away and Z > R stays, as srl__round_bits' carry form computes; Z == R with
 *              delta > 0 (x inexact) needs the draw's further bits and is flagged;
 *       a lane whose d (nonzero) or result lies outside the format's normal range, or an SR
 *       lane so flagged, is recomputed by the definition before the next term (gemm32.c,
 *       g32_fix), with its draw. A zero sum is +0 in RZ, -0 + -0 is -0: the exact sum's sign.
 * Rows: G32_MR; columns: two vectors (a panel of four takes two calls); SR outputs each hold a
 * pcg32 state (two rows at a time). */
#if SRL_ISA_LEVEL >= 2
typedef uint32_t ISA(g32u) __attribute__((vector_size(64)));
typedef uint64_t ISA(g32q) __attribute__((vector_size(64)));

SRL_INLINE ISA(g32v) ISA(g32_as_f)(ISA(g32u) u)
{
    ISA(g32v) f;
    memcpy(&f, &u, sizeof f);
    return f;
}

SRL_INLINE ISA(g32u) ISA(g32_as_u)(ISA(g32v) f)
{
    ISA(g32u) u;
    memcpy(&u, &f, sizeof u);
    return u;
}

/* A call's constants, as vectors (built once per micro-kernel call, kept in registers). */
typedef struct ISA(g32k) {
    ISA(g32u) one, sign, pmask, amask, ahalf, alo1, ahi;
    int ps, as;
} ISA(g32k);

SRL_INLINE void ISA(g32k_init)(ISA(g32k) *k, const g32_ectx *e)
{
    const ISA(g32u) zero = {0};
    k->one = zero + 1u;
    k->sign = zero + 0x80000000u;
    k->ps = e->ps;
    k->as = e->as;
    k->pmask = (k->one << e->ps) - k->one;
    k->amask = (k->one << e->as) - k->one;
    k->ahalf = k->amask >> 1;
    k->alo1 = zero + e->alo1;
    k->ahi = zero + e->ahi;
}

/* t: the product p as the term (pk) */
SRL_INLINE ISA(g32v) ISA(g32_term)(ISA(g32v) p, const int pk, const ISA(g32k) *k)
{
    if (pk == G32_P_EXACT)
        return p;
    const ISA(g32u) b = ISA(g32_as_u)(p);
    return ISA(g32_as_f)((b + (k->pmask >> 1) + ((b >> k->ps) & k->one)) & ~k->pmask);
}

/* The terms of a row's two vectors: t[v] from a * b[v]. G32_P_BF16 (AVX-512 BF16): both products
 * rounded to bfloat16 by one conversion, which rounds to nearest even (exact here: the products
 * are normal), and packs b[0]'s products into the even 16-bit halves of its 32-bit lanes and
 * b[1]'s into the odd ones: lane q of the result holds products q and ... of the two vectors
 * in an order that gemm32.c's packing of B (perm_group) undoes, so that t[0] is columns 0-15 and
 * t[1] columns 16-31 again. */
SRL_INLINE void ISA(g32_terms)(ISA(g32v) *t, float a, const ISA(g32v) *b, const int pk,
                               const ISA(g32k) *k)
{
#if SRL_ISA_LEVEL >= 3
    if (pk == G32_P_BF16) {
        const __m512bh h = _mm512_cvtne2ps_pbh((__m512)(a * b[1]), (__m512)(a * b[0]));
        ISA(g32u) w;
        memcpy(&w, &h, sizeof w);
        t[0] = ISA(g32_as_f)(w << 16);
        t[1] = ISA(g32_as_f)(w & 0xffff0000u);
        return;
    }
#endif
    t[0] = ISA(g32_term)(a * b[0], pk, k);
    t[1] = ISA(g32_term)(a * b[1], pk, k);
}

/* round_acc(s + t) for the lanes (ak); *bad: the lanes to recompute. hi: SR's draws. */
SRL_INLINE ISA(g32v) ISA(g32_acc)(ISA(g32v) s, ISA(g32v) t, const int ak, const ISA(g32k) *k,
                                  ISA(g32u) hi, __mmask16 *bad)
{
    typedef ISA(g32u) U;
    if (ak == G32_A_NAT)
        return s + t;
    const __m512 ds = _mm512_add_round_ps((__m512)s, (__m512)t,
                                          _MM_FROUND_TO_ZERO | _MM_FROUND_NO_EXC);
    U d = ISA(g32_as_u)((ISA(g32v))ds);
    if (ak == G32_A_RN) {
        const __m512 up = _mm512_add_round_ps((__m512)s, (__m512)t,
                                              _MM_FROUND_TO_POS_INF | _MM_FROUND_NO_EXC);
        const __m512 dn = _mm512_add_round_ps((__m512)s, (__m512)t,
                                              _MM_FROUND_TO_NEG_INF | _MM_FROUND_NO_EXC);
        const __mmask16 inexact = _mm512_cmp_ps_mask(up, dn, _CMP_NEQ_UQ);
        d = (U)_mm512_mask_or_epi32((__m512i)d, inexact, (__m512i)d, (__m512i)k->one);
    }
    const U a = d & ~k->sign;
    U r;
    if (ak == G32_A_RZ) {
        r = a & ~k->amask;
    } else if (ak == G32_A_RN) {
        r = (a + k->ahalf + ((a >> k->as) & k->one)) & ~k->amask;
    } else { /* SR */
        const U z = hi >> (32 - k->as);
        r = (a + (z ^ k->amask)) & ~k->amask;
        const __mmask16 amb = _mm512_cmpeq_epi32_mask((__m512i)z, (__m512i)(a & k->amask));
        if (__builtin_expect(amb != 0, 0)) { /* only an inexact sum leaves it undecided */
            const __m512 up = _mm512_add_round_ps((__m512)s, (__m512)t,
                                                  _MM_FROUND_TO_POS_INF | _MM_FROUND_NO_EXC);
            const __m512 dn = _mm512_add_round_ps((__m512)s, (__m512)t,
                                                  _MM_FROUND_TO_NEG_INF | _MM_FROUND_NO_EXC);
            *bad |= amb & _mm512_cmp_ps_mask(up, dn, _CMP_NEQ_UQ);
        }
    }
    /* d nonzero below the normal range, or a result above it */
    *bad |= _mm512_cmplt_epu32_mask((__m512i)(a - k->one), (__m512i)k->alo1) |
            _mm512_cmpgt_epu32_mask((__m512i)r, (__m512i)k->ahi);
    return ISA(g32_as_f)(r | (d & k->sign));
}

/* Flagged lanes of a vector, recomputed by the definition (gemm32.c); vectors cross as arrays. */
static __attribute__((noinline, cold)) ISA(g32v) ISA(g32_fixv)(const g32_ectx *e, int r, int v,
                                                               size_t l, int join, ISA(g32v) s,
                                                               ISA(g32v) t, ISA(g32v) out,
                                                               __mmask16 bad, const uint64_t *st)
{
    float sa[16], ta[16], oa[16];
    memcpy(sa, &s, sizeof sa);
    memcpy(ta, &t, sizeof ta);
    memcpy(oa, &out, sizeof oa);
    g32_fix(e, r, v, l, join, sa, ta, oa, (unsigned)bad, st);
    memcpy(&out, oa, sizeof out);
    return out;
}

/* The tile's rows [r0, r0 + R) by two vectors, kc terms; SR draws from the states e->st[row]
 * [vector] (eight outputs each, positioned at the chunk's first term), advanced here. */
SRL_INLINE void ISA(g32e_core)(size_t kc, const float *restrict Ap, const float *restrict Bp,
                               size_t bstride, float *restrict C, size_t ldc, int how,
                               const g32_ectx *e, const int r0, const int R, const int pk,
                               const int ak)
{
    typedef ISA(g32v) V;
    typedef ISA(g32q) Q;
    enum { NV = 2 };
    const V mz = ISA(g32_splat)(-0.0f);
    __mmask16 valid[NV] = {e->valid[0], e->valid[1]}, rows[G32_MR];
    for (int r = 0; r < G32_MR; r++)
        rows[r] = e->rows[r];
    V s[G32_MR][NV];
    Q g[G32_MR][NV][2];
    const Q m2 = (Q){0} + e->m2, c2 = (Q){0} + e->c2;
    ISA(g32k) k;
    ISA(g32k_init)(&k, e);
    const int jk = e->jk;
#pragma GCC unroll 8
    for (int r = r0; r < r0 + R; r++)
#pragma GCC unroll 2
        for (int v = 0; v < NV; v++) {
            if (how == G32_LOAD)
                memcpy(&s[r][v], C + r * ldc + v * 16, sizeof(V));
            else
                s[r][v] = mz;
            if (ak == G32_A_SR) {
                memcpy(&g[r][v][0], e->st + (2 * (r * NV + v)) * 8, sizeof(Q));
                memcpy(&g[r][v][1], e->st + (2 * (r * NV + v) + 1) * 8, sizeof(Q));
            }
        }
    for (size_t l = 0; l < kc; l++) {
        V b[NV];
        memcpy(&b[0], Bp + l * bstride, sizeof(V));
        memcpy(&b[1], Bp + l * bstride + 16, sizeof(V));
#pragma GCC unroll 8
        for (int r = r0; r < r0 + R; r++) {
            const float a = Ap[l * G32_MR + r];
            V tt[NV];
            ISA(g32_terms)(tt, a, b, pk, &k);
#pragma GCC unroll 2
            for (int v = 0; v < NV; v++) {
                const V t = tt[v];
                ISA(g32u) hi = {0};
                if (ak == G32_A_SR)
                    hi = ISA(lane_pcg32_out16)(g[r][v][0], g[r][v][1]);
                __mmask16 bad = 0;
                V n = ISA(g32_acc)(s[r][v], t, ak, &k, hi, &bad);
                bad &= valid[v] & rows[r];
                if (__builtin_expect(bad != 0, 0)) {
                    uint64_t st[16];
                    if (ak == G32_A_SR) {
                        memcpy(st, &g[r][v][0], sizeof(Q));
                        memcpy(st + 8, &g[r][v][1], sizeof(Q));
                    }
                    n = ISA(g32_fixv)(e, r, v, l, 0, s[r][v], t, n, bad,
                                      ak == G32_A_SR ? st : NULL);
                }
                s[r][v] = n;
                if (ak == G32_A_SR) {
                    g[r][v][0] = g[r][v][0] * m2 + c2;
                    g[r][v][1] = g[r][v][1] * m2 + c2;
                }
            }
        }
    }
#pragma GCC unroll 8
    for (int r = r0; r < r0 + R; r++)
#pragma GCC unroll 2
        for (int v = 0; v < NV; v++) {
            V o = s[r][v];
            if (how == G32_JOIN) {
                V c;
                memcpy(&c, C + r * ldc + v * 16, sizeof c);
                __mmask16 bad = 0;
                /* (no SR joins: gemm32.c takes SR in the recursive order only) */
                o = jk == G32_A_NAT ? c + s[r][v]
                                    : ISA(g32_acc)(c, s[r][v], ak == G32_A_SR ? G32_A_RZ : ak, &k,
                                                   (ISA(g32u)){0}, &bad);
                bad &= valid[v] & rows[r];
                if (__builtin_expect(bad != 0, 0))
                    o = ISA(g32_fixv)(e, r, v, kc, 1, c, s[r][v], o, bad, NULL);
            }
            memcpy(C + r * ldc + v * 16, &o, sizeof(V));
        }
}

#define G32E_INSTANCE(name, pk, ak)                                                               \
    static void ISA(g32e_##name)(size_t kc, const float *Ap, const float *Bp, size_t bstride,     \
                                 float *C, size_t ldc, int how, const g32_ectx *e)                \
    {                                                                                             \
        if (ak == G32_A_SR) { /* three pairs of rows, each r0 a constant (registers) */           \
            ISA(g32e_core)(kc, Ap, Bp, bstride, C, ldc, how, e, 0, 2, pk, ak);                    \
            ISA(g32e_core)(kc, Ap, Bp, bstride, C, ldc, how, e, 2, 2, pk, ak);                    \
            ISA(g32e_core)(kc, Ap, Bp, bstride, C, ldc, how, e, 4, 2, pk, ak);                    \
        } else                                                                                    \
            ISA(g32e_core)(kc, Ap, Bp, bstride, C, ldc, how, e, 0, G32_MR, pk, ak);               \
    }
G32_EMU_KINDS(G32E_INSTANCE)
#if SRL_ISA_LEVEL >= 3
G32_EMU_KINDS_BF16(G32E_INSTANCE)
#endif
#undef G32E_INSTANCE
#endif

/* This level's shape and micro-kernels (kern[fused][nv - 1]). */
static void ISA(g32_level)(g32_level *lv)
{
    memset(lv, 0, sizeof *lv);
    lv->lanes = G32_L;
    lv->nv = G32_NV;
    lv->aw = G32_AW;
#if G32_AW > 1
    lv->pack_wide = ISA(g32_pack_wide);
#endif
    lv->kern[0][0] = ISA(g32_k1_0);
    lv->kern[0][1] = ISA(g32_k2_0);
#if G32_NV == 4
    lv->kern[0][2] = ISA(g32_k3_0);
    lv->kern[0][3] = ISA(g32_k4_0);
#endif
#if SRL_ISA_LEVEL >= 1
    lv->kern[1][0] = ISA(g32_k1_1);
    lv->kern[1][1] = ISA(g32_k2_1);
#if G32_NV == 4
    lv->kern[1][2] = ISA(g32_k3_1);
    lv->kern[1][3] = ISA(g32_k4_1);
#endif
#endif
#if SRL_ISA_LEVEL >= 2
#define G32E_ADDR(name, pk, ak) lv->emu[pk][ak] = ISA(g32e_##name);
    G32_EMU_KINDS(G32E_ADDR)
#if SRL_ISA_LEVEL >= 3
    G32_EMU_KINDS_BF16(G32E_ADDR)
#endif
#undef G32E_ADDR
#endif
}

#undef G32_L
#undef G32_NV
#undef G32_AW
