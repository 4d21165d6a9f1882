/* src/round/lanes.h: the vector types of the lane kernels (private).
 *
 * GCC generic vectors of 512 bits (two AVX2 registers, one AVX-512 register), shared by the
 * vector templates of bulk rounding, the kernels and the fused optimizer step, and by their
 * helpers in src/round/lanes_isa.h (lane draws, any(), the decision). */
#ifndef SRL_LANES_H
#define SRL_LANES_H

#include <stdint.h>

#define SRL_INLINE static inline __attribute__((always_inline))

typedef uint64_t srl__u64x8 __attribute__((vector_size(64)));
typedef uint64_t srl__u64x4 __attribute__((vector_size(32))); /* halves, for AVX2 */
typedef uint32_t srl__u32x8 __attribute__((vector_size(32)));
typedef uint32_t srl__u32x16 __attribute__((vector_size(64)));
typedef double srl__f64x8 __attribute__((vector_size(64)));
typedef double srl__f64x4 __attribute__((vector_size(32)));
typedef float srl__f32x8 __attribute__((vector_size(32)));
typedef float srl__f32x16 __attribute__((vector_size(64)));

#endif
