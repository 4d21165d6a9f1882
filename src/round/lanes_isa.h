/* src/round/lanes_isa.h: the helpers every vector template shares, as a template (private).
 *
 * Included at the top of a template that src/core/isa_instantiate.h compiles once per
 * instruction set (src/round/round_bulk_isa.h, src/linalg/kernels_isa.h,
 * src/train/optim_fast_isa.h), so that, like the template, these are defined inside the
 * instruction set's region (GCC lowers generic vector code for the instruction set in force where
 * it is defined). No include guard; a translation unit instantiates one such template.
 *   lane_pcg32_out    pcg32's output function (XSH-RR 64/32) on eight states: THE lane draw;
 *   lane_draw         eight full 64-bit draws from the states of their two outputs;
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

/* pcg32 outputs of eight states st (output = rotr32(((st >> 18) ^ st) >> 27, st >> 59)). */
SRL_INLINE srl__u32x8 ISA(lane_pcg32_out)(srl__u64x8 st)
{
    const srl__u32x8 x = __builtin_convertvector(((st >> 18) ^ st) >> 27, srl__u32x8);
    const srl__u32x8 rot = __builtin_convertvector(st >> 59, srl__u32x8);
    return (x >> rot) | (x << ((-rot) & 31u));
}

/* Eight draws: a pcg32 draw is two outputs, the first its high half; ev / od hold the states
 * that make each draw's first / second output. */
SRL_INLINE srl__u64x8 ISA(lane_draw)(srl__u64x8 ev, srl__u64x8 od)
{
    return (__builtin_convertvector(ISA(lane_pcg32_out)(ev), srl__u64x8) << 32) |
           __builtin_convertvector(ISA(lane_pcg32_out)(od), srl__u64x8);
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
