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

SRL_DEFINE_FAST(fast_f2f, float, float, uint32_t)
SRL_DEFINE_FAST(fast_d2f, double, float, uint64_t)
#undef SRL_DEFINE_FAST

/* ---- the vector path for binary64 input (all modes) ----
 * Eight elements per step. Draws come from the pcg32 lanes (generated in registers, `src` 1),
 * from the buffer u (`src` 2, pcg64) or not at all (`src` 0, deterministic modes). With `nt`
 * the results are written with streaming stores (y must then be 64-byte aligned): for arrays
 * far larger than the caches this avoids reading y's lines before overwriting them. Every
 * scalar is broadcast first, and only ==, < are used: GCC 12 scalarises vector-with-scalar
 * comparisons and vector <=. */

/* Store eight results; streaming when nt (p 64-byte aligned). */
SRL_INLINE void ISA(store8)(double *p, srl__u64x8 v, int nt)
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
        _mm256_stream_si256((__m256i *)(void *)(p + 4), w1);
#else
        for (int q = 0; q < 4; q++) {
            __m128i w;
            memcpy(&w, (const char *)&v + 16 * q, sizeof w);
            _mm_stream_si128((__m128i *)(void *)(p + 2 * q), w);
        }
#endif
        return;
    }
#else
    (void)nt;
#endif
    memcpy(p, &v, sizeof v);
}

SRL_INLINE int ISA(vec_d2d)(double *y, const double *x, size_t k, srl_mode mode, int r, int s,
                            uint64_t lo, uint64_t hi, srl__lanes *ln, int src, uint64_t *u,
                            unsigned char *flag, int nt)
{
    const srl__u64x8 zero = ln->ev & 0, one = zero + 1; /* (one: the `bad` flag) */
    const srl__u64x8 sign_b = zero + SRL__HALF;
    const srl__u64x8 lo_v = zero + lo, span = zero + (hi - lo), hi_v = zero + hi;
    srl__u64x8 ev = ln->ev, od = ln->od, badv = zero;
    const uint64_t a16 = ln->a16, c16 = ln->c16;
    uint64_t nok_buf[SRL_TILE];
    size_t i = 0;
    for (; i + 8 <= k; i += 8) {
        srl__u64x8 ud = zero;
        if (src == 1) {
            ud = ISA(lane_draw)(ev, od);
            ev = ev * a16 + c16;
            od = od * a16 + c16;
        } else if (src == 2) {
            memcpy(&ud, u + i, sizeof ud);
        }
        /* The loop body is long for a memory-bound loop: fetch well ahead so enough lines are
         * in flight (prefetching past the end of x is harmless). */
        __builtin_prefetch((const char *)(x + i) + SRL_PREFETCH_BYTES);
        srl__u64x8 b;
        memcpy(&b, x + i, sizeof b);
        const srl__u64x8 a = b & ~sign_b;
        srl__u64x8 undecided = zero; /* (never: the fraction is a's low bits, ud the whole draw) */
        const srl__u64x8 res = ISA(lane_round64)(a, s, mode, r, b >> 63, ud, 64, &undecided);
        const srl__u64x8 nok = (srl__u64x8)((span < (a - lo_v)) | (hi_v < res));
        const srl__u64x8 yb = ((res | (b & sign_b)) & ~nok) | (b & nok);
        ISA(store8)(y + i, yb, nt);
        if (__builtin_expect(ISA(lane_any)(nok), 0)) { /* rare: what the reference path needs */
            if (src == 1)
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
        }
        for (size_t l = 0; i + l < k; l++) {
            y[i + l] = x[i + l];
            nok_buf[i + l] = 1;
        }
        bad = 1;
    }
    if (bad)
        for (size_t j = 0; j < k; j++)
            flag[j] = (unsigned char)(nok_buf[j] & 1u);
    ln->ev = ev;
    ln->od = od;
    return bad;
}

static int ISA(tile_vec_d2d)(double *y, const double *x, size_t k, srl_rounding m, int s,
                             uint64_t lo, uint64_t hi, srl__lanes *ln, int src, uint64_t *u,
                             unsigned char *flag, int nt)
{
    /* Every (mode, draw source) pair gets its own loop: constants fold, branches vanish. */
#define SRL_VEC(MODE, R, SRC) ISA(vec_d2d)(y, x, k, MODE, R, s, lo, hi, ln, SRC, u, flag, nt)
#define SRL_VEC_STO(MODE, R) (src == 1 ? SRL_VEC(MODE, R, 1) : SRL_VEC(MODE, R, 2))
    switch (m.mode) {
    case SRL_RN: return SRL_VEC(SRL_RN, 0, 0);
    case SRL_RNA: return SRL_VEC(SRL_RNA, 0, 0);
    case SRL_RZ: return SRL_VEC(SRL_RZ, 0, 0);
    case SRL_RU: return SRL_VEC(SRL_RU, 0, 0);
    case SRL_RD: return SRL_VEC(SRL_RD, 0, 0);
    case SRL_RO: return SRL_VEC(SRL_RO, 0, 0);
    case SRL_SR: return SRL_VEC_STO(SRL_SR, 0);
    case SRL_SR_EQ: return SRL_VEC_STO(SRL_SR_EQ, 0);
    case SRL_SR_BITS: return SRL_VEC_STO(SRL_SR_BITS, m.r);
    default: /* a mode without a loop of its own: every element to the reference path */
        if (src == 1)
            ISA(fill_pcg32)(u, k, ln);
        memset(flag, 1, k);
        return 1;
    }
#undef SRL_VEC_STO
#undef SRL_VEC
}
