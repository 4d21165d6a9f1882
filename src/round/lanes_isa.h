/* src/round/lanes_isa.h: the helpers every vector template shares, as a template (private).
 *
 * Included at the top of a template that src/core/isa_instantiate.h compiles once per
 * instruction set (src/round/round_bulk_isa.h, src/linalg/kernels_isa.h,
 * src/train/optim_fast_isa.h), so that, like the template, these are defined inside the
 * instruction set's region (GCC lowers generic vector code for the instruction set in force where
 * it is defined). No include guard; a translation unit instantiates one such template.
 *   lane_pcg32_operands, lane_rotr32   pcg32's output function (XSH-RR 64/32) on eight
 *                     states: THE lane draw, and lane_pcg32_out / lane_pcg32_out16 / lane_draw,
 *                     the layouts the templates take it in (8 outputs in 64-bit lanes, 16 in
 *                     32-bit lanes, 8 full 64-bit draws);
 *   lane_any          is any lane nonzero?
 *   lane_lt64/eq64, lane_lt32/eq32, lane_flt64/feq64   lane comparisons as masks (all ones or
 *                     0): below AVX-512 on 256-bit halves (see there);
 *   lane_decide64/32  the rounding decision of src/round/decide.h on 8 x 64-bit and
 *                     16 x 32-bit lanes, and lane_round64/32 the rounding of bit patterns;
 *   out16             sixteen binary32 lanes at a time to an array, streamed when asked
 *                     (x86-64-v4: the block formats' kernels). */
#include "core/pcg_impl.h"
#include "round/lanes.h"
#include "srlab/mode.h"

#if defined(__x86_64__)
#include <immintrin.h>
#endif
#include <string.h>

/* pcg32's output function (XSH-RR 64/32) on eight states, THE lane draw: x = ((st >> 18) ^ st)
 * >> 27 rotated right by st >> 59 in 32 bits. Here the two operands, each state's in the low
 * half of a 64-bit word seen as a pair of 32-bit lanes (nothing is narrowed); lane_rotr32 then
 * rotates. */
SRL_INLINE void ISA(lane_pcg32_operands)(srl__u64x8 st, srl__u32x16 *x, srl__u32x16 *rot)
{
    const srl__u64x8 x64 = ((st >> 18) ^ st) >> 27, r64 = st >> 59;
    memcpy(x, &x64, sizeof *x);
    memcpy(rot, &r64, sizeof *rot);
}

SRL_INLINE srl__u32x16 ISA(lane_rotr32)(srl__u32x16 x, srl__u32x16 rot)
{
#if SRL_ISA_LEVEL >= 2 /* one instruction (GCC 12 does not find it in the shifts) */
    return (srl__u32x16)_mm512_rorv_epi32((__m512i)x, (__m512i)rot);
#else
    return (x >> rot) | (x << ((-rot) & 31u));
#endif
}

#if SRL_ISA_LEVEL == 1
/* Under AVX2 GCC 12 keeps a 512-bit vector that is seen as another element type (the 64-bit
 * states as pairs of 32-bit lanes) on the stack, in 128-bit pieces reloaded whole: the output
 * function then costs several times the rest of the loop. Here it works on the states' 256-bit
 * halves, which AVX2 holds in registers; same bits. */
/* Four outputs of four states, each in the low half of its 64-bit lane. */
SRL_INLINE srl__u64x4 ISA(lane_pcg32_out4)(srl__u64x4 st)
{
    const srl__u32x8 x = (srl__u32x8)(((st >> 18) ^ st) >> 27), rot = (srl__u32x8)(st >> 59);
    return (srl__u64x4)((x >> rot) | (x << ((-rot) & 31u))) & ((st - st) + 0xffffffffu);
}

/* Four draws (as lane_draw below) from four states of first and of second outputs. */
SRL_INLINE srl__u64x4 ISA(lane_draw4)(srl__u64x4 ev, srl__u64x4 od)
{
    return (ISA(lane_pcg32_out4)(ev) << 32) | ISA(lane_pcg32_out4)(od);
}

SRL_INLINE srl__u64x8 ISA(lane_pcg32_out)(srl__u64x8 st)
{
    srl__u64x4 h[2];
    memcpy(h, &st, sizeof h);
    h[0] = ISA(lane_pcg32_out4)(h[0]);
    h[1] = ISA(lane_pcg32_out4)(h[1]);
    memcpy(&st, h, sizeof h);
    return st;
}

SRL_INLINE srl__u32x16 ISA(lane_pcg32_out16)(srl__u64x8 s0, srl__u64x8 s1)
{
    srl__u64x4 h[4];
    memcpy(h, &s0, sizeof s0);
    memcpy(h + 2, &s1, sizeof s1);
    srl__u32x8 o[2];
    for (int q = 0; q < 2; q++) {
        const srl__u32x8 a = (srl__u32x8)ISA(lane_pcg32_out4)(h[2 * q]),
                         b = (srl__u32x8)ISA(lane_pcg32_out4)(h[2 * q + 1]);
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_BIG_ENDIAN__
        o[q] = __builtin_shufflevector(a, b, 1, 3, 5, 7, 9, 11, 13, 15);
#else
        o[q] = __builtin_shufflevector(a, b, 0, 2, 4, 6, 8, 10, 12, 14);
#endif
    }
    srl__u32x16 out;
    memcpy(&out, o, sizeof out);
    return out;
}
#else
/* Eight outputs, each in the low half of its 64-bit lane (the high halves, rotated by 0, are
 * cleared). */
SRL_INLINE srl__u64x8 ISA(lane_pcg32_out)(srl__u64x8 st)
{
    srl__u32x16 x, rot;
    ISA(lane_pcg32_operands)(st, &x, &rot);
    const srl__u32x16 o = ISA(lane_rotr32)(x, rot);
    srl__u64x8 out;
    memcpy(&out, &o, sizeof out);
    return out & ((st - st) + 0xffffffffu);
}

/* Sixteen outputs in 32-bit lanes (lanes 0-7 from the states s0, 8-15 from s1), from the
 * states' 32-bit halves gathered first (lo, hi): ((st >> 18) ^ st) >> 27 cut to 32 bits is
 * (st >> 27) ^ (st >> 45), that is (lo >> 27 | hi << 5) ^ (hi >> 13), and st >> 59 is
 * hi >> 27. Eight instructions for sixteen outputs, where the operands on 64-bit lanes took
 * eleven (the draws are a third of the block kernels' sr loop, src/round/round_bulk_isa.h). */
SRL_INLINE srl__u32x16 ISA(lane_pcg32_out16)(srl__u64x8 s0, srl__u64x8 s1)
{
    srl__u32x16 w0, w1;
    memcpy(&w0, &s0, sizeof w0);
    memcpy(&w1, &s1, sizeof w1);
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_BIG_ENDIAN__
    const srl__u32x16 lo = __builtin_shufflevector(w0, w1, 1, 3, 5, 7, 9, 11, 13, 15, 17, 19, 21,
                                                   23, 25, 27, 29, 31),
                      hi = __builtin_shufflevector(w0, w1, 0, 2, 4, 6, 8, 10, 12, 14, 16, 18, 20,
                                                   22, 24, 26, 28, 30);
#else
    const srl__u32x16 lo = __builtin_shufflevector(w0, w1, 0, 2, 4, 6, 8, 10, 12, 14, 16, 18, 20,
                                                   22, 24, 26, 28, 30),
                      hi = __builtin_shufflevector(w0, w1, 1, 3, 5, 7, 9, 11, 13, 15, 17, 19, 21,
                                                   23, 25, 27, 29, 31);
#endif
    const srl__u32x16 x = ((lo >> 27) | (hi << 5)) ^ (hi >> 13);
    return ISA(lane_rotr32)(x, hi >> 27);
}

#endif

/* Eight draws: a pcg32 draw is two outputs, the first its high half; ev / od hold the states
 * that make each draw's first / second output. */
SRL_INLINE srl__u64x8 ISA(lane_draw)(srl__u64x8 ev, srl__u64x8 od)
{
    return (ISA(lane_pcg32_out)(ev) << 32) | ISA(lane_pcg32_out)(od);
}

/* Is any lane nonzero? */
SRL_INLINE int ISA(lane_any)(srl__u64x8 v)
{
#if SRL_ISA_LEVEL >= 2
    __m512i w;
    memcpy(&w, &v, sizeof w);
    return _mm512_test_epi64_mask(w, w) != 0;
#elif SRL_ISA_LEVEL == 1
    __m256i lo, hi;
    memcpy(&lo, &v, sizeof lo);
    memcpy(&hi, (const char *)&v + sizeof lo, sizeof hi);
    return !_mm256_testz_si256(lo, lo) || !_mm256_testz_si256(hi, hi);
#else
    return (v[0] | v[1] | v[2] | v[3] | v[4] | v[5] | v[6] | v[7]) != 0;
#endif
}

/* Lane comparisons, a mask per lane (all ones where it holds). GCC 12 scalarises a comparison of
 * generic vectors wider than the instruction set's registers: under AVX2 a 512-bit `a < b`
 * becomes a compare, a set and a store per lane, then a reload (about ten times slower than
 * the rest of a bulk-rounding loop). So under AVX2 each comparison is made on the two
 * 256-bit halves, which AVX2 compares in one instruction each (unsigned through a sign flip
 * GCC adds), and the masks are joined. The baseline keeps the plain comparison: SSE2 has no
 * 64-bit compare, and the split measured slower there. Same bits on every level. */
#if SRL_ISA_LEVEL != 1
#define SRL__LANE_CMP(NAME, V, M, H, HM, OP)                                                      \
    SRL_INLINE M ISA(NAME)(V a, V b)                                                              \
    {                                                                                             \
        return (M)(a OP b);                                                                       \
    }
#else
#define SRL__LANE_CMP(NAME, V, M, H, HM, OP)                                                      \
    SRL_INLINE M ISA(NAME)(V a, V b)                                                              \
    {                                                                                             \
        H a0, a1, b0, b1;                                                                         \
        memcpy(&a0, &a, sizeof a0);                                                               \
        memcpy(&a1, (const char *)&a + sizeof a0, sizeof a1);                                     \
        memcpy(&b0, &b, sizeof b0);                                                               \
        memcpy(&b1, (const char *)&b + sizeof b0, sizeof b1);                                     \
        const HM m0 = (HM)(a0 OP b0), m1 = (HM)(a1 OP b1);                                        \
        M m;                                                                                      \
        memcpy(&m, &m0, sizeof m0);                                                               \
        memcpy((char *)&m + sizeof m0, &m1, sizeof m1);                                           \
        return m;                                                                                 \
    }
#endif
SRL__LANE_CMP(lane_lt64, srl__u64x8, srl__u64x8, srl__u64x4, srl__u64x4, <)
SRL__LANE_CMP(lane_eq64, srl__u64x8, srl__u64x8, srl__u64x4, srl__u64x4, ==)
SRL__LANE_CMP(lane_lt32, srl__u32x16, srl__u32x16, srl__u32x8, srl__u32x8, <)
SRL__LANE_CMP(lane_eq32, srl__u32x16, srl__u32x16, srl__u32x8, srl__u32x8, ==)
SRL__LANE_CMP(lane_flt64, srl__f64x8, srl__u64x8, srl__f64x4, srl__u64x4, <)
SRL__LANE_CMP(lane_feq64, srl__f64x8, srl__u64x8, srl__f64x4, srl__u64x4, ==)
#undef SRL__LANE_CMP

#if SRL_ISA_LEVEL >= 2 && defined(__x86_64__)
/* out16: an output of sixteen binary32 lanes at a time, vector b to y[16 b, 16 b + 16) in order
 * (b = 0, 1, ...): plain stores, or streaming ones (nt; the caller fences before anything else
 * writes y). A y off a 64-byte boundary by a lanes short of it streams the lines that pair
 * vector b's last 16 - a lanes with vector b + 1's first a, so each vector is stored one step
 * late, and stores the two partial lines at the ends with masks (out16_end: the last one). The
 * last line is fetched into the cache first (out16_init, nb vectors to come): a plain store that
 * misses holds up every store behind it (they leave the core in order) until its line comes
 * in, and a caller that streams an array in pieces (tiles, chunks) meets one such line per piece.
 * The block formats' kernels (round_bulk_isa.h's mx_tile, src/ops/mx_nv_isa.h). */
typedef struct ISA(out16) {
    int how; /* 0: plain, 1: streamed, 2: streamed off a line */
    unsigned a;
    __m512i idx, prev;
} ISA(out16);

SRL_INLINE void ISA(out16_init)(ISA(out16) *w, const float *y, int nt, size_t nb)
{
    w->a = (unsigned)((64 - ((uintptr_t)y & 63)) & 63) / 4;
    w->how = !nt || (uintptr_t)y % 4 != 0 ? 0 : w->a == 0 ? 1 : 2;
    if (w->how == 2 && nb) /* (see above) */
        __builtin_prefetch(y + 16 * nb - 1, 1, 3);
    w->idx = _mm512_add_epi32(_mm512_set1_epi32((int)w->a),
                              _mm512_set_epi32(15, 14, 13, 12, 11, 10, 9, 8, 7, 6, 5, 4, 3, 2, 1, 0));
    w->prev = _mm512_setzero_si512();
}

SRL_INLINE void ISA(out16_put)(ISA(out16) *w, float *y, size_t b, __m512i o)
{
    if (w->how == 0) {
        _mm512_storeu_si512((void *)(y + 16 * b), o);
    } else if (w->how == 1) {
        _mm512_stream_si512((void *)(y + 16 * b), o);
    } else {
        if (b == 0)
            _mm512_mask_storeu_epi32((void *)y, (__mmask16)((1u << w->a) - 1), o);
        else
            _mm512_stream_si512((void *)(y + 16 * (b - 1) + w->a),
                                _mm512_permutex2var_epi32(w->prev, w->idx, o));
        w->prev = o;
    }
}

/* After the last vector (nb of them): its lanes still held back. */
SRL_INLINE void ISA(out16_end)(ISA(out16) *w, float *y, size_t nb)
{
    if (w->how == 2 && nb)
        _mm512_mask_storeu_epi32((void *)(y + 16 * (nb - 1) + w->a), (__mmask16)(0xffffu >> w->a),
                                 _mm512_permutex2var_epi32(w->prev, w->idx, w->prev));
}
#endif

#define SRL_DECIDE_FN ISA(lane_decide64)
#define SRL_DECIDE_ROUND_FN ISA(lane_round64)
#define SRL_DECIDE_V srl__u64x8
#define SRL_DECIDE_W 64
#define SRL_DECIDE_LT ISA(lane_lt64)
#define SRL_DECIDE_EQ ISA(lane_eq64)
#include "round/decide.h"

#define SRL_DECIDE_FN ISA(lane_decide32)
#define SRL_DECIDE_ROUND_FN ISA(lane_round32)
#define SRL_DECIDE_V srl__u32x16
#define SRL_DECIDE_W 32
#define SRL_DECIDE_LT ISA(lane_lt32)
#define SRL_DECIDE_EQ ISA(lane_eq32)
#include "round/decide.h"
