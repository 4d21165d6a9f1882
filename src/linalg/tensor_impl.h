/* src/linalg/tensor_impl.h: inline bf16 packing for hot loops (private; the public, tested versions are
 * srl_bf16_rn, srl_bf16_sr16 and srl_bf16_to_float in include/srlab/tensor.h, which call these).
 *
 * bf16 is the top half of binary32, subnormals included, so rounding a binary32 value into bf16
 * is integer arithmetic on its pattern b: the low 16 bits are the exact fraction F/2^16 of the
 * bf16 grid spacing (in the normal and the subnormal range alike), and a carry out of them steps
 * to the next bf16 value, into the next binade or to infinity. */
#ifndef SRL_TENSOR_IMPL_H
#define SRL_TENSOR_IMPL_H

#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "core/mutant.h"
#include "srlab/rounding.h"
#include "srlab/tensor.h"

/* Elements per tile of the writers below. */
#define SRL__TILE 1024

/* srl_tensor_put_f / _d on one tile (k <= SRL__TILE), on the calling thread, without checks:
 * for kernels that already run in parallel over tiles. ws: the caller's scratch of k words (a
 * tile's draws or converted values: on the heap, so that no tile array sits on a worker's stack,
 * which OMP_STACKSIZE may make small); NULL: the function allocates it when it needs it
 * (SRL_ENOMEM when it cannot). */
int srl__tensor_put_tile_f(srl_tensor *t, size_t off, const float *x, size_t k, srl_rounding m,
                           uint64_t step, uint64_t *ws);
int srl__tensor_put_tile_d(srl_tensor *t, size_t off, const double *x, size_t k, srl_rounding m,
                           uint64_t step, uint64_t *ws);

static inline uint32_t srl__f32_bits(float x)
{
    uint32_t b;
    memcpy(&b, &x, sizeof b);
    return b;
}

static inline float srl__f32_from_bits(uint32_t b)
{
    float x;
    memcpy(&x, &b, sizeof x);
    return x;
}

/* NaN stays NaN with its sign and top payload bits, quieted (bf16 quiet bit 0x0040). */
static inline uint16_t srl__bf16_nan(uint32_t b)
{
    return (uint16_t)((b >> 16) | 0x0040u);
}

static inline int srl__f32_isnan_bits(uint32_t b)
{
    return (b & 0x7fffffffu) > 0x7f800000u;
}

#if defined(SRL_MUTANTS)
/* The bf16 writes below under the active defect (src/core/mutant.h): the write of pattern b (not
 * a NaN) whose right result is r, rn when z < 0, else sr:r=16 with Z = z. */
static inline uint16_t srl__bf16_defect(uint32_t b, uint16_t r, int32_t z)
{
    const uint32_t F = b & 0xffffu, e = (b >> 23) & 0xffu;
    const int top = ((b >> 16) & 0x7fu) == 0x7fu && F && e; /* the last spacing below 2^k */
    if (z >= 0) {
        uint32_t Z = (uint32_t)z;
        if (SRL__MUT(SR12)) /* Z's low 4 bits lost */
            Z &= 0xfff0u;
        if (SRL__MUT(SR_R1)) /* Z's lowest bit lost */
            Z &= 0xfffeu;
        r = (uint16_t)((b + Z + (SRL__MUT(SR_LE) ? 1u : 0u)) >> 16); /* sr-le: F + Z + 1 */
        if (SRL__MUT(SR_SIGNED) && (b >> 31) && F) /* a negative value away iff F + Z < 2^16 */
            r = (uint16_t)((b >> 16) + (((F + Z) >> 16) ^ 1u));
        if (SRL__MUT(POW2_ULP) && top) /* the grid of two bf16 spacings */
            r = (uint16_t)(((b + (Z << 1)) >> 17) << 1);
    } else {
        if (SRL__MUT(TIES_AWAY))
            r = (uint16_t)((b + 0x8000u) >> 16);
        if (SRL__MUT(POW2_ULP) && top)
            r = (uint16_t)(((b + 0xffffu + ((b >> 17) & 1u)) >> 17) << 1);
    }
    if (SRL__MUT(BF16_FTZ) && !(r & 0x7f80u)) /* a subnormal result flushed to a signed zero */
        r &= 0x8000u;
    return r;
}
#define SRL__BF16_DEFECT(b, r, z)                                                                 \
    do {                                                                                          \
        if (srl__mutant && !srl__f32_isnan_bits(b))                                               \
            return srl__bf16_defect(b, r, z);                                                     \
    } while (0)
#else
#define SRL__BF16_DEFECT(b, r, z) ((void)0)
#endif

/* Round to nearest, ties to even: add 0x7fff plus the lowest kept bit, then cut. A carry into the
 * exponent is the step to the next binade; from the largest finite it gives infinity exactly
 * when x >= xmax + ulp/2 (the tie goes to the even pattern 0x7f80, +inf), as IEEE 754 rn does. */
static inline uint16_t srl__bf16_rn(float x)
{
    const uint32_t b = srl__f32_bits(x);
    const uint16_t r = (uint16_t)((b + 0x7fffu + ((b >> 16) & 1u)) >> 16);
    SRL__BF16_DEFECT(b, r, -1); /* defects (src/core/mutant.h) */
    return srl__f32_isnan_bits(b) ? srl__bf16_nan(b) : r;
}

/* sr:r=16 with draw u (Z = the top 16 bits of u): up (away from zero) iff F + Z >= 2^16, i.e.
 * the integer sum carries out of the low half. |b| + Z never reaches the sign bit. */
static inline uint16_t srl__bf16_sr16(float x, uint64_t u)
{
    const uint32_t b = srl__f32_bits(x);
    const uint16_t r = (uint16_t)((b + (uint32_t)(u >> 48)) >> 16);
    SRL__BF16_DEFECT(b, r, (int32_t)(u >> 48)); /* defects (src/core/mutant.h) */
    return srl__f32_isnan_bits(b) ? srl__bf16_nan(b) : r;
}

/* The same with Z given directly (Z < 2^16). */
static inline uint16_t srl__bf16_sr16_z(float x, uint32_t z)
{
    const uint32_t b = srl__f32_bits(x);
    const uint16_t r = (uint16_t)((b + z) >> 16);
    SRL__BF16_DEFECT(b, r, (int32_t)z); /* defects (src/core/mutant.h) */
    return srl__f32_isnan_bits(b) ? srl__bf16_nan(b) : r;
}

static inline float srl__bf16_to_f32(uint16_t h)
{
    return srl__f32_from_bits((uint32_t)h << 16);
}

#endif
