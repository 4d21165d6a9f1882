/* src/core/pcg_impl.h: the PCG step and output functions, inline, for hot loops (private).
 *
 * Constants and output permutations are those of O'Neill's PCG family (pcg32 = XSH-RR on a
 * 64-bit LCG, pcg64 = XSL-RR on a 128-bit LCG); tests/test_pcg_ref.cpp checks them bit for bit
 * against Debian's libpcg-cpp-dev. Jump-ahead composes the affine map x -> a x + c with itself
 * (square-and-multiply on (a, c)), O(log delta) multiplications. */
#ifndef SRL_PCG_IMPL_H
#define SRL_PCG_IMPL_H

#include <stdint.h>

#include "srlab/rng.h"

#define SRL_PCG32_MULT UINT64_C(6364136223846793005)
#define SRL_PCG64_MULT_HI UINT64_C(2549297995355413924)
#define SRL_PCG64_MULT_LO UINT64_C(4865540595714422341)
#define SRL_PCG64_MULT (((srl_u128)SRL_PCG64_MULT_HI << 64) | SRL_PCG64_MULT_LO)

static inline uint32_t srl__rotr32(uint32_t v, unsigned r)
{
    return (v >> (r & 31u)) | (v << ((32u - r) & 31u));
}

static inline uint64_t srl__rotr64(uint64_t v, unsigned r)
{
    return (v >> (r & 63u)) | (v << ((64u - r) & 63u));
}

/* pcg32 output of a state (XSH-RR 64/32). */
static inline uint32_t srl__pcg32_out(uint64_t s)
{
    return srl__rotr32((uint32_t)(((s >> 18u) ^ s) >> 27u), (unsigned)(s >> 59u));
}

/* pcg64 output of a state (XSL-RR 128/64). */
static inline uint64_t srl__pcg64_out(srl_u128 s)
{
    return srl__rotr64((uint64_t)(s >> 64u) ^ (uint64_t)s, (unsigned)(s >> 122u));
}

/* The affine map advanced `delta` steps: state -> am * state + ac. */
static inline void srl__lcg64_jump(uint64_t *am, uint64_t *ac, uint64_t mult, uint64_t inc,
                                   uint64_t delta)
{
    uint64_t acc_m = 1, acc_c = 0, cur_m = mult, cur_c = inc;
    while (delta) {
        if (delta & 1u) {
            acc_m *= cur_m;
            acc_c = acc_c * cur_m + cur_c;
        }
        cur_c = (cur_m + 1) * cur_c;
        cur_m *= cur_m;
        delta >>= 1;
    }
    *am = acc_m;
    *ac = acc_c;
}

static inline void srl__lcg128_jump(srl_u128 *am, srl_u128 *ac, srl_u128 mult, srl_u128 inc,
                                    srl_u128 delta)
{
    srl_u128 acc_m = 1, acc_c = 0, cur_m = mult, cur_c = inc;
    while (delta) {
        if (delta & 1u) {
            acc_m *= cur_m;
            acc_c = acc_c * cur_m + cur_c;
        }
        cur_c = (cur_m + 1) * cur_c;
        cur_m *= cur_m;
        delta >>= 1;
    }
    *am = acc_m;
    *ac = acc_c;
}

#endif
