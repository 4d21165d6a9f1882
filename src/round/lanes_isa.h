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
 *   lane_decide64/32  the rounding decision of src/round/decide.h on 8 x 64-bit and
 *                     16 x 32-bit lanes, and lane_round64/32 the rounding of bit patterns. */
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
    return (x >> rot) | (x << ((-rot) & 31u));
}

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

/* Sixteen outputs in 32-bit lanes (lanes 0-7 from the states s0, 8-15 from s1): the operands'
 * low halves gathered first, so that one rotation serves all sixteen. */
SRL_INLINE srl__u32x16 ISA(lane_pcg32_out16)(srl__u64x8 s0, srl__u64x8 s1)
{
    srl__u32x16 x0, r0, x1, r1;
    ISA(lane_pcg32_operands)(s0, &x0, &r0);
    ISA(lane_pcg32_operands)(s1, &x1, &r1);
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_BIG_ENDIAN__
#define SRL__LOW_HALVES 1, 3, 5, 7, 9, 11, 13, 15, 17, 19, 21, 23, 25, 27, 29, 31
#else
#define SRL__LOW_HALVES 0, 2, 4, 6, 8, 10, 12, 14, 16, 18, 20, 22, 24, 26, 28, 30
#endif
    const srl__u32x16 x = __builtin_shufflevector(x0, x1, SRL__LOW_HALVES);
    const srl__u32x16 rot = __builtin_shufflevector(r0, r1, SRL__LOW_HALVES);
#undef SRL__LOW_HALVES
    return ISA(lane_rotr32)(x, rot);
}

/* Eight draws: a pcg32 draw is two outputs, the first its high half; ev / od hold the states
 * that make each draw's first / second output. */
SRL_INLINE srl__u64x8 ISA(lane_draw)(srl__u64x8 ev, srl__u64x8 od)
{
    return (ISA(lane_pcg32_out)(ev) << 32) | ISA(lane_pcg32_out)(od);
}

/* Is any lane nonzero? */
SRL_INLINE int ISA(lane_any)(srl__u64x8 v)
{
#if defined(__AVX512F__)
    __m512i w;
    memcpy(&w, &v, sizeof w);
    return _mm512_test_epi64_mask(w, w) != 0;
#elif defined(__AVX2__)
    __m256i lo, hi;
    memcpy(&lo, &v, sizeof lo);
    memcpy(&hi, (const char *)&v + sizeof lo, sizeof hi);
    return !_mm256_testz_si256(lo, lo) || !_mm256_testz_si256(hi, hi);
#else
    return (v[0] | v[1] | v[2] | v[3] | v[4] | v[5] | v[6] | v[7]) != 0;
#endif
}

#define SRL_DECIDE_FN ISA(lane_decide64)
#define SRL_DECIDE_ROUND_FN ISA(lane_round64)
#define SRL_DECIDE_V srl__u64x8
#define SRL_DECIDE_W 64
#include "round/decide.h"

#define SRL_DECIDE_FN ISA(lane_decide32)
#define SRL_DECIDE_ROUND_FN ISA(lane_round32)
#define SRL_DECIDE_V srl__u32x16
#define SRL_DECIDE_W 32
#include "round/decide.h"
