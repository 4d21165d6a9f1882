/* src/round/round_bulk_isa.h: the vector kernels of bulk rounding, as a template (private).
 *
 * src/round/round_bulk.c includes this file once per instruction set, under
 * `#pragma GCC target(...)` and with ISA(name) naming the functions (name_v4, name_v3,
 * name_base). The code is integer arithmetic on bit patterns and generic GCC vectors, so every
 * instantiation computes the same bits; only the speed differs. (A template rather than
 * target_clones or target attributes: GCC lowers generic vector code for the ISA in force where
 * it is *defined*, so the code must be defined inside the target region.)
 *
 * Semantics, shared by all kernels: for an input whose magnitude a (as bits) lies in [lo, hi]
 * (the format's normal range, also a normal input) the grid spacing is 2^s input ulps, and with
 * R = a mod 2^s, f1 = R << (64 - s) (the fraction's first word, exact: no tail) the result is
 * (a - R) + (away << s), `away` being the decision of src/round/decide.h (srl__decide in the
 * element-wise loops, ISA(lane_decide64) on vectors). If that leaves [lo, hi] or the input is
 * outside it, the element is flagged and the input is written back unchanged; the caller then
 * rounds it with the reference path and the same draw. */
#include "round/lanes_isa.h"

/* ---- pcg32 draws, eight per step (see srl__lanes in round_bulk.c) ---- */

static void ISA(fill_pcg32)(uint64_t *u, size_t k, srl__lanes *ln)
{
    srl__u64x8 ev = ln->ev, od = ln->od;
    const uint64_t a = ln->a16, c = ln->c16;
    for (size_t i = 0; i < k; i += 8) {
        const srl__u64x8 d = ISA(lane_draw)(ev, od);
        if (k - i >= 8)
            memcpy(u + i, &d, sizeof d);
        else
            for (size_t j = 0; j < k - i; j++)
                u[i + j] = d[j];
        ev = ev * a + c;
        od = od * a + c;
    }
    ln->ev = ev;
    ln->od = od;
}

/* ---- pcg64 draws, eight per step ----
 * 128-bit states as (high, low) word pairs in 64-bit lanes; there is no vector 128-bit multiply,
 * so s a + c mod 2^128 is assembled from 64-bit products: the low word s_l a_l (mod 2^64), the
 * high word mulhi(s_l, a_l) + s_l a_h + s_h a_l + c_h + carry, mulhi from four 32 x 32 -> 64
 * products. Integer arithmetic only: every instruction set gives the same bits. */
/* The products of the low 32 bits of x's and y's lanes, 64 bits each (one vpmuludq: GCC 12 makes
 * a 64-bit multiply of the masked operands). */
SRL_INLINE srl__u64x8 ISA(lane_mul32)(srl__u64x8 x, srl__u64x8 y)
{
#if defined(__AVX512F__)
    __m512i a, b;
    memcpy(&a, &x, sizeof a);
    memcpy(&b, &y, sizeof b);
    const __m512i p = _mm512_mul_epu32(a, b);
    memcpy(&x, &p, sizeof x);
    return x;
#elif defined(__AVX2__)
    __m256i a[2], b[2];
    memcpy(a, &x, sizeof a);
    memcpy(b, &y, sizeof b);
    a[0] = _mm256_mul_epu32(a[0], b[0]);
    a[1] = _mm256_mul_epu32(a[1], b[1]);
    memcpy(&x, a, sizeof x);
    return x;
#else
    const srl__u64x8 m32 = (x & 0) + 0xffffffffu;
    return (x & m32) * (y & m32);
#endif
}

/* One step of eight 128-bit states: s <- s a + c. The low word of s_l a_l and the high word
 * mulhi(s_l, a_l) from the four 32 x 32 -> 64 products. */
SRL_INLINE void ISA(lane_pcg64_step)(srl__u64x8 *sh, srl__u64x8 *sl, srl__u64x8 ah, srl__u64x8 al,
                                     srl__u64x8 ch, srl__u64x8 cl)
{
    const srl__u64x8 x = *sl, m32 = (x & 0) + 0xffffffffu;
    const srl__u64x8 x1 = x >> 32, y1 = al >> 32;
    const srl__u64x8 p00 = ISA(lane_mul32)(x, al), p01 = ISA(lane_mul32)(x, y1),
                     p10 = ISA(lane_mul32)(x1, al), p11 = ISA(lane_mul32)(x1, y1);
    const srl__u64x8 mid = (p00 >> 32) + (p01 & m32) + (p10 & m32);
    const srl__u64x8 hi = p11 + (p01 >> 32) + (p10 >> 32) + (mid >> 32);
    const srl__u64x8 pl = (p00 & m32) | (mid << 32), nl = pl + cl;
    const srl__u64x8 carry = (srl__u64x8)(nl < pl) & 1;
    *sh = hi + x * ah + *sh * al + ch + carry;
    *sl = nl;
}

/* Eight draws (XSL-RR: the words' xor rotated right by the high word's top six bits). */
SRL_INLINE srl__u64x8 ISA(lane_pcg64_out)(srl__u64x8 sh, srl__u64x8 sl)
{
    const srl__u64x8 x = sh ^ sl, rot = sh >> 58;
    return (x >> rot) | (x << ((rot - rot - rot) & 63));
}

static void ISA(fill_pcg64)(uint64_t *u, size_t k, srl__lanes *ln)
{
    srl__u64x8 sh = ln->sh, sl = ln->sl, sh2 = ln->sh2, sl2 = ln->sl2;
    const srl__u64x8 zero = sh & 0;
    const srl__u64x8 ah = zero + ln->ah, al = zero + ln->al, ch = zero + ln->ch,
                     cl = zero + ln->cl;
    for (size_t i = 0; i < k; i += 16) {
        const srl__u64x8 d[2] = {ISA(lane_pcg64_out)(sh, sl), ISA(lane_pcg64_out)(sh2, sl2)};
        if (k - i >= 16)
            memcpy(u + i, d, sizeof d);
        else
            for (size_t j = 0; j < k - i; j++)
                u[i + j] = d[j / 8][j % 8];
        ISA(lane_pcg64_step)(&sh, &sl, ah, al, ch, cl);
        ISA(lane_pcg64_step)(&sh2, &sl2, ah, al, ch, cl);
    }
    ln->sh = sh, ln->sl = sl, ln->sh2 = sh2, ln->sl2 = sl2;
}

/* ---- element-wise kernels with draws from a buffer (auto-vectorised loops) ---- */

#define SRL_DEFINE_FAST(NAME, IN_T, OUT_T, UINT)                                                  \
    SRL_INLINE int ISA(NAME)(OUT_T * y, const IN_T *x, size_t k, const uint64_t *u,               \
                             srl_mode mode, int r, int s, UINT lo, UINT hi, unsigned char *flag)  \
    {                                                                                             \
        const unsigned nb = sizeof(UINT) * 8;                                                     \
        const UINT sign_b = (UINT)1 << (nb - 1), mask = ((UINT)1 << s) - 1;                       \
        int bad = 0;                                                                              \
        for (size_t i = 0; i < k; i++) {                                                          \
            IN_T xi = x[i];                                                                       \
            UINT b;                                                                               \
            memcpy(&b, &xi, sizeof b);                                                            \
            const UINT a = b & ~sign_b, R = a & mask;                                             \
            const uint64_t f1 = (uint64_t)R << (64 - s);                                          \
            uint64_t undecided = 0; /* (never: f1 is the whole fraction) */                       \
            const uint64_t up = srl__decide(mode, r, f1, f1, 0, (uint64_t)(a >> s) & 1u,          \
                                            (uint64_t)(b >> (nb - 1)), u[i], 64, &undecided);     \
            const UINT res = (a - R) + ((UINT)up << s);                                           \
            const int ok = ((UINT)(a - lo) <= (UINT)(hi - lo)) & (res <= hi);                     \
            const UINT yb = ok ? (res | (b & sign_b)) : b;                                        \
            IN_T yv;                                                                              \
            memcpy(&yv, &yb, sizeof yv);                                                          \
            y[i] = (OUT_T)yv;                                                                     \
            flag[i] = (unsigned char)!ok;                                                         \
            bad |= !ok;                                                                           \
        }                                                                                         \
        return bad;                                                                               \
    }                                                                                             \
    static int ISA(tile_##NAME)(OUT_T * y, const IN_T *x, size_t k, const uint64_t *u,            \
                                srl_rounding m, int s, UINT lo, UINT hi, unsigned char *flag)     \
    {                                                                                             \
        switch (m.mode) {                                                                         \
        case SRL_RN: return ISA(NAME)(y, x, k, u, SRL_RN, 0, s, lo, hi, flag);                    \
        case SRL_RNA: return ISA(NAME)(y, x, k, u, SRL_RNA, 0, s, lo, hi, flag);                  \
        case SRL_RZ: return ISA(NAME)(y, x, k, u, SRL_RZ, 0, s, lo, hi, flag);                    \
        case SRL_RU: return ISA(NAME)(y, x, k, u, SRL_RU, 0, s, lo, hi, flag);                    \
        case SRL_RD: return ISA(NAME)(y, x, k, u, SRL_RD, 0, s, lo, hi, flag);                    \
        case SRL_RO: return ISA(NAME)(y, x, k, u, SRL_RO, 0, s, lo, hi, flag);                    \
        case SRL_SR: return ISA(NAME)(y, x, k, u, SRL_SR, 0, s, lo, hi, flag);                    \
        case SRL_SR_EQ: return ISA(NAME)(y, x, k, u, SRL_SR_EQ, 0, s, lo, hi, flag);              \
        case SRL_SR_BITS: return ISA(NAME)(y, x, k, u, SRL_SR_BITS, m.r, s, lo, hi, flag);        \
        default: return 1;                                                                        \
        }                                                                                         \
    }

SRL_DEFINE_FAST(fast_d2f, double, float, uint64_t)
#undef SRL_DEFINE_FAST

/* ---- the format's subnormal range on lanes ----
 * Below xmin the grid is uniform, spacing q = 2^eq (eq = emin - p + 1). An input magnitude a
 * (bits: biased exponent e, m fraction bits, significand M with its hidden bit, so that
 * a = M 2^(max(e,1) - bias - m)) has its fraction in the low sv bits of M, sv = (eq + bias + m)
 * - max(e, 1): T = M >> sv, R = M mod 2^sv, f1 = R 2^(W - sv) (exact, nothing further), and the
 * result is N q, N = T + away (the decision of decide.h), N <= 2^(p-1) (xmin when it rounds up).
 * N q is formed in floating point, exactly: N by the 2^m trick ((2^m + N) - 2^m, N < 2^m), then
 * its product with the power of two q (exact: N q is a multiple of q, which the input format
 * holds). Lanes with sv outside [1, W-1] (magnitudes below about q 2^(m + 1 - W): zero, and
 * values far below the grid) get *bad (all ones) for the reference path. The caller takes this
 * only where xmin is a normal input number and the format has subnormals. sub_c is eq + bias + m,
 * scale is q. */
#define SRL_DEFINE_SUB(NAME, V, FV, W, MBITS, BIAS, DECIDE)                                       \
    SRL_INLINE V ISA(NAME)(V a, V neg, V u, srl_mode mode, int r, int ub, V sub_c, FV scale,    \
                           V *bad)                                                               \
    {                                                                                             \
        const V zero = a & 0, one = zero + 1, implicit = one << (MBITS);                          \
        const V e = a >> (MBITS), e0 = (V)(e == zero);                                            \
        const V M = (a & (implicit - one)) | (implicit & ~e0);                                    \
        const V sv = sub_c - (e + (e0 & one));                                                    \
        *bad = (V)(((zero + ((W) - 1)) < sv) | (sv == zero));                                     \
        const V svc = sv & ((W) - 1);                                                             \
        const V T = M >> svc, R = M & ((one << svc) - one), f1 = R << (((W) - svc) & ((W) - 1));  \
        V undecided = zero; /* (never: f1 is the whole fraction) */                               \
        const V N = T + ISA(DECIDE)(mode, r, f1, f1, zero, T & one, neg, u, ub, &undecided);     \
        const V two_m = zero + ((V)(zero + (BIAS) + (MBITS)) << (MBITS)); /* bits of 2^m */       \
        const V nb = N | two_m;                                                                   \
        FV v, big;                                                                                \
        memcpy(&v, &nb, sizeof v);                                                                \
        memcpy(&big, &two_m, sizeof big);                                                         \
        v = (v - big) * scale;                                                                    \
        V out;                                                                                    \
        memcpy(&out, &v, sizeof out);                                                             \
        return out;                                                                               \
    }

SRL_DEFINE_SUB(lane_sub64, srl__u64x8, srl__f64x8, 64, 52, 1023, lane_decide64)
SRL_DEFINE_SUB(lane_sub32, srl__u32x16, srl__f32x16, 32, 23, 127, lane_decide32)
#undef SRL_DEFINE_SUB

/* ---- the vector path for binary64 input (all modes) ----
 * Eight elements per step. Draws come from the pcg32 lanes (`src` 1) or the pcg64 lanes (`src`
 * 2), generated in registers (and written to u only where the reference path needs them), or
 * not at all (`src` 0, deterministic modes). With `nt`
 * the results are written with streaming stores (y must then be 64-byte aligned): for arrays
 * far larger than the caches this avoids reading y's lines before overwriting them. Every
 * scalar is broadcast first, and only ==, < are used: GCC 12 scalarises vector-with-scalar
 * comparisons and vector <=. */

/* The body of a tile function: every (mode, draw source) pair gets its own loop, through
 * SRL_VEC(MODE, R, SRC) and SRL_VEC_STO(MODE, R) as the tile function defines them; a mode
 * without a loop of its own sends every element to the reference path, with its draws in u
 * (OWN64: the kernel makes pcg64 draws itself, so here they must be made; src, u, k, ln, flag:
 * the tile function's). */
#define SRL_TILE_SWITCH(RBITS, OWN64)                                                             \
    switch (m.mode) {                                                                             \
    case SRL_RN: return SRL_VEC(SRL_RN, 0, 0);                                                    \
    case SRL_RNA: return SRL_VEC(SRL_RNA, 0, 0);                                                  \
    case SRL_RZ: return SRL_VEC(SRL_RZ, 0, 0);                                                    \
    case SRL_RU: return SRL_VEC(SRL_RU, 0, 0);                                                    \
    case SRL_RD: return SRL_VEC(SRL_RD, 0, 0);                                                    \
    case SRL_RO: return SRL_VEC(SRL_RO, 0, 0);                                                    \
    case SRL_SR: return SRL_VEC_STO(SRL_SR, 0);                                                   \
    case SRL_SR_EQ: return SRL_VEC_STO(SRL_SR_EQ, 0);                                             \
    case SRL_SR_BITS: return SRL_VEC_STO(SRL_SR_BITS, RBITS);                                     \
    default:                                                                                      \
        if (src == 1)                                                                             \
            ISA(fill_pcg32)(u, k, ln);                                                            \
        else if (src == 2 && (OWN64))                                                             \
            ISA(fill_pcg64)(u, k, ln);                                                            \
        memset(flag, 1, k);                                                                       \
        return 1;                                                                                 \
    }

/* In a vector kernel: the elements i.. of a partial last group go to the reference path
 * (written back unchanged, flagged); the flags of a tile from the lanes' masks. */
#define SRL_TAIL_TO_REFERENCE()                                                                   \
    do {                                                                                          \
        for (size_t l = 0; i + l < k; l++) {                                                      \
            y[i + l] = x[i + l];                                                                  \
            nok_buf[i + l] = 1;                                                                   \
        }                                                                                         \
        bad = 1;                                                                                  \
    } while (0)
#define SRL_FLAGS_FROM_NOK()                                                                      \
    for (size_t j = 0; j < k; j++)                                                                \
    flag[j] = (unsigned char)(nok_buf[j] & 1u)

/* Store 64 bytes; streaming when nt (p 64-byte aligned). */
SRL_INLINE void ISA(store64)(void *p, srl__u64x8 v, int nt)
{
#if defined(__x86_64__)
    if (nt) {
#if defined(__AVX512F__)
        __m512i w;
        memcpy(&w, &v, sizeof w);
        _mm512_stream_si512((__m512i *)(void *)p, w);
#elif defined(__AVX2__)
        __m256i w0, w1;
        memcpy(&w0, &v, sizeof w0);
        memcpy(&w1, (const char *)&v + 32, sizeof w1);
        _mm256_stream_si256((__m256i *)(void *)p, w0);
        _mm256_stream_si256((__m256i *)(void *)((char *)p + 32), w1);
#else
        for (int q = 0; q < 4; q++) {
            __m128i w;
            memcpy(&w, (const char *)&v + 16 * q, sizeof w);
            _mm_stream_si128((__m128i *)(void *)((char *)p + 16 * q), w);
        }
#endif
        return;
    }
#else
    (void)nt;
#endif
    memcpy(p, &v, sizeof v);
}

SRL_INLINE int ISA(vec_d2d)(double *y, const double *x, size_t k, srl_mode mode, int r,
                            const srl__vparams *vp, srl__lanes *ln, int src, uint64_t *u,
                            unsigned char *flag, int nt)
{
    const int s = vp->s, sub = vp->sub;
    const uint64_t lo = vp->lo, hi = vp->hi;
    const srl__u64x8 zero = ln->ev & 0, one = zero + 1; /* (one: the `bad` flag) */
    const srl__u64x8 sign_b = zero + SRL__HALF;
    const srl__u64x8 lo_v = zero + lo, span = zero + (hi - lo), hi_v = zero + hi;
    const srl__u64x8 sub_c = zero + vp->sub_c;
    const srl__f64x8 scale = (srl__f64x8){0} + vp->scale;
    srl__u64x8 ev = ln->ev, od = ln->od, badv = zero;
    const uint64_t a16 = ln->a16, c16 = ln->c16;
    /* pcg64: the two chains of eight lanes take turns (sh, sl the next one's states) */
    srl__u64x8 sh = ln->sh, sl = ln->sl, sh2 = ln->sh2, sl2 = ln->sl2;
    const srl__u64x8 ah = zero + ln->ah, al = zero + ln->al, ch = zero + ln->ch,
                     cl = zero + ln->cl;
    uint64_t nok_buf[SRL_TILE];
    size_t i = 0;
    for (; i + 8 <= k; i += 8) {
        srl__u64x8 ud = zero;
        if (src == 1) {
            ud = ISA(lane_draw)(ev, od);
            ev = ev * a16 + c16;
            od = od * a16 + c16;
        } else if (src == 2) {
            ud = ISA(lane_pcg64_out)(sh, sl);
            ISA(lane_pcg64_step)(&sh, &sl, ah, al, ch, cl);
            const srl__u64x8 th = sh, tl = sl;
            sh = sh2, sl = sl2, sh2 = th, sl2 = tl;
        }
        /* The loop body is long for a memory-bound loop: fetch well ahead so enough lines are
         * in flight (prefetching past the end of x is harmless). */
        __builtin_prefetch((const char *)(x + i) + SRL_PREFETCH_BYTES);
        srl__u64x8 b;
        memcpy(&b, x + i, sizeof b);
        const srl__u64x8 a = b & ~sign_b;
        srl__u64x8 undecided = zero; /* (never: the fraction is a's low bits, ud the whole draw) */
        srl__u64x8 res = ISA(lane_round64)(a, s, mode, r, b >> 63, ud, 64, &undecided);
        srl__u64x8 nok = (srl__u64x8)((span < (a - lo_v)) | (hi_v < res));
        const srl__u64x8 below = (srl__u64x8)(a < lo_v);
        if (sub && ISA(lane_any)(below)) { /* the format's subnormal range, on the lanes too */
            srl__u64x8 sbad;
            const srl__u64x8 sres = ISA(lane_sub64)(a, b >> 63, ud, mode, r, 64, sub_c, scale, &sbad);
            res = (sres & below) | (res & ~below);
            nok = (sbad & below) | (nok & ~below);
        }
        const srl__u64x8 yb = ((res | (b & sign_b)) & ~nok) | (b & nok);
        ISA(store64)(y + i, yb, nt);
        if (__builtin_expect(ISA(lane_any)(nok), 0)) { /* rare: what the reference path needs */
            if (src != 0)
                memcpy(u + i, &ud, sizeof ud);
            badv |= one;
        }
        memcpy(nok_buf + i, &nok, sizeof nok);
    }
    int bad = badv[0] != 0;
    if (i < k) { /* the last partial group goes to the reference path */
        if (src == 1) {
            const srl__u64x8 ud = ISA(lane_draw)(ev, od);
            ev = ev * a16 + c16;
            od = od * a16 + c16;
            for (size_t l = 0; i + l < k; l++)
                u[i + l] = ud[l];
        } else if (src == 2) {
            const srl__u64x8 ud = ISA(lane_pcg64_out)(sh, sl);
            for (size_t l = 0; i + l < k; l++)
                u[i + l] = ud[l];
        }
        SRL_TAIL_TO_REFERENCE();
    }
    if (bad)
        SRL_FLAGS_FROM_NOK();
    ln->ev = ev;
    ln->od = od;
    ln->sh = sh, ln->sl = sl, ln->sh2 = sh2, ln->sl2 = sl2;
    return bad;
}

static int ISA(tile_vec_d2d)(double *y, const double *x, size_t k, srl_rounding m,
                             const srl__vparams *vp, srl__lanes *ln, int src, uint64_t *u,
                             unsigned char *flag, int nt)
{
    /* Every (mode, draw source) pair gets its own loop: constants fold, branches vanish. */
#define SRL_VEC(MODE, R, SRC) ISA(vec_d2d)(y, x, k, MODE, R, vp, ln, SRC, u, flag, nt)
#define SRL_VEC_STO(MODE, R) (src == 1 ? SRL_VEC(MODE, R, 1) : SRL_VEC(MODE, R, 2))
    SRL_TILE_SWITCH(m.r, 1);
#undef SRL_VEC_STO
#undef SRL_VEC
}

/* ---- the vector path for binary32 input and output (all modes) ----
 * Sixteen elements per step in 32-bit lanes, as vec_d2d does eight: the same rounding of bit
 * patterns (lane_round32), the same range check, the subnormal range on the lanes. A binary32
 * fraction has at most 23 bits, so the first 32 bits of a draw decide every mode exactly (sr:
 * U < f iff u32 < f1, f1 being the whole fraction; sr:r=R with R > 32: the carry out of F + Z
 * at bit R is the carry at bit 32, decide.h); the lanes take the draws' high halves. pcg32 (src
 * 1): those are the outputs of the states in ev alone, so only ev is stepped (two vectors of
 * eight draws, 32 outputs per step); a group with a flagged element gets its full draws (od =
 * the state after ev) for the reference path. pcg64 (src 2): the draws come from u. */
SRL_INLINE int ISA(vec_f2f)(float *y, const float *x, size_t k, srl_mode mode, int r,
                            const srl__vparams *vp, srl__lanes *ln, int src, uint64_t *u,
                            unsigned char *flag, int nt)
{
    typedef srl__u32x16 V;
    const int s = vp->s, sub = vp->sub;
    const V zero = (V){0}, one = zero + 1;
    const V sign_b = zero + 0x80000000u, lo_v = zero + (uint32_t)vp->lo;
    const V span = zero + (uint32_t)(vp->hi - vp->lo), hi_v = zero + (uint32_t)vp->hi;
    const V sub_c = zero + (uint32_t)vp->sub_c;
    const srl__f32x16 scale = (srl__f32x16){0} + (float)vp->scale;
    const uint64_t a32 = ln->a32, c32 = ln->c32, mult = SRL_PCG32_MULT, inc = ln->inc;
    srl__u64x8 ev0 = ln->ev, ev1 = ln->ev * ln->a16 + ln->c16;
    uint32_t nok_buf[SRL_TILE];
    V badv = zero;
    size_t i = 0;
    for (; i + 16 <= k; i += 16) {
        V ud = zero;
        const srl__u64x8 e0 = ev0, e1 = ev1;
        if (src == 1) {
            ud = ISA(lane_pcg32_out16)(ev0, ev1);
            ev0 = ev0 * a32 + c32;
            ev1 = ev1 * a32 + c32;
        } else if (src == 2) {
            V w0, w1;
            memcpy(&w0, u + i, sizeof w0);
            memcpy(&w1, u + i + 8, sizeof w1);
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_BIG_ENDIAN__
            ud = __builtin_shufflevector(w0, w1, 0, 2, 4, 6, 8, 10, 12, 14, 16, 18, 20, 22, 24, 26,
                                         28, 30);
#else
            ud = __builtin_shufflevector(w0, w1, 1, 3, 5, 7, 9, 11, 13, 15, 17, 19, 21, 23, 25, 27,
                                         29, 31);
#endif
        }
        /* Fetch ahead, as vec_d2d does: without it the loads stall the longer loop bodies (sr,
         * fp8's range checks), which then run at 0.6-0.8x memcpy (BENCHMARKS.md). */
        __builtin_prefetch((const char *)(x + i) + SRL_PREFETCH_BYTES);
        V b;
        memcpy(&b, x + i, sizeof b);
        const V a = b & ~sign_b;
        V undecided = zero; /* (never, see above) */
        V res = ISA(lane_round32)(a, s, mode, r, b >> 31, ud, 32, &undecided);
        V nok = (V)((span < (a - lo_v)) | (hi_v < res));
        const V below = (V)(a < lo_v);
        if (sub && ISA(lane_any)((srl__u64x8)below)) {
            V sbad;
            const V sres = ISA(lane_sub32)(a, b >> 31, ud, mode, r, 32, sub_c, scale, &sbad);
            res = (sres & below) | (res & ~below);
            nok = (sbad & below) | (nok & ~below);
        }
        const V yb = ((res | (b & sign_b)) & ~nok) | (b & nok);
        ISA(store64)(y + i, (srl__u64x8)yb, nt);
        memcpy(nok_buf + i, &nok, sizeof nok);
        if (__builtin_expect(ISA(lane_any)((srl__u64x8)nok), 0)) {
            if (src == 1) {
                const srl__u64x8 d0 = ISA(lane_draw)(e0, e0 * mult + inc);
                const srl__u64x8 d1 = ISA(lane_draw)(e1, e1 * mult + inc);
                memcpy(u + i, &d0, sizeof d0);
                memcpy(u + i + 8, &d1, sizeof d1);
            }
            badv |= one;
        }
    }
    int bad = badv[0] != 0;
    if (i < k) { /* the last partial group goes to the reference path */
        if (src == 1) {
            const srl__u64x8 d0 = ISA(lane_draw)(ev0, ev0 * mult + inc);
            const srl__u64x8 d1 = ISA(lane_draw)(ev1, ev1 * mult + inc);
            for (size_t l = 0; i + l < k; l++)
                u[i + l] = l < 8 ? d0[l] : d1[l - 8];
            ev0 = ev0 * a32 + c32;
            ev1 = ev1 * a32 + c32;
        }
        SRL_TAIL_TO_REFERENCE();
    }
    if (bad)
        SRL_FLAGS_FROM_NOK();
    ln->ev = ev0;
    ln->od = ev0 * mult + inc;
    return bad;
}

static int ISA(tile_vec_f2f)(float *y, const float *x, size_t k, srl_rounding m,
                             const srl__vparams *vp, srl__lanes *ln, int src, uint64_t *u,
                             unsigned char *flag, int nt)
{
    const int r32 = m.r < 32 ? m.r : 32; /* see above */
#define SRL_VEC(MODE, R, SRC) ISA(vec_f2f)(y, x, k, MODE, R, vp, ln, SRC, u, flag, nt)
#define SRL_VEC_STO(MODE, R) (src == 1 ? SRL_VEC(MODE, R, 1) : SRL_VEC(MODE, R, 2))
    SRL_TILE_SWITCH(r32, 0);
#undef SRL_VEC_STO
#undef SRL_VEC
}
#undef SRL_TILE_SWITCH
