/* src/core/rng.c: PCG reference generators and counter-addressed streams (docs/design.md §4).
 * The contract is in include/srlab/rng.h. */
#include "srlab/rng.h"

#include <math.h>
#include <string.h>

#include "core/pcg_impl.h"

/* ---- pcg32: 64-bit LCG, XSH-RR, output from the state before the step ---- */

void srl_pcg32_seed(srl_pcg32 *g, uint64_t initstate, uint64_t initseq)
{
    g->inc = (initseq << 1u) | 1u;
    g->state = (initstate + g->inc) * SRL_PCG32_MULT + g->inc;
}

uint32_t srl_pcg32_next(srl_pcg32 *g)
{
    uint64_t old = g->state;
    g->state = old * SRL_PCG32_MULT + g->inc;
    return srl__pcg32_out(old);
}

void srl_pcg32_advance(srl_pcg32 *g, uint64_t delta)
{
    uint64_t am, ac;
    srl__lcg64_jump(&am, &ac, SRL_PCG32_MULT, g->inc, delta);
    g->state = am * g->state + ac;
}

/* ---- pcg64: 128-bit LCG, XSL-RR, output from the state after the step ---- */

void srl_pcg64_seed(srl_pcg64 *g, srl_u128 initstate, srl_u128 initseq)
{
    g->inc = (initseq << 1u) | 1u;
    g->state = (initstate + g->inc) * SRL_PCG64_MULT + g->inc;
}

uint64_t srl_pcg64_next(srl_pcg64 *g)
{
    g->state = g->state * SRL_PCG64_MULT + g->inc;
    return srl__pcg64_out(g->state);
}

void srl_pcg64_advance(srl_pcg64 *g, srl_u128 delta)
{
    srl_u128 am, ac;
    srl__lcg128_jump(&am, &ac, SRL_PCG64_MULT, g->inc, delta);
    g->state = am * g->state + ac;
}

/* ---- streams ---- */

uint64_t srl_hash64(uint64_t a, uint64_t b)
{
    /* Combine, then a bijective 64-bit finaliser (xor-shift-multiply rounds; the constants are
     * those of the widely used SplitMix64 finaliser). Distinct (a, b) collide with probability
     * about 2^-64. */
    uint64_t z = a * UINT64_C(0x9E3779B97F4A7C15) ^ (b + UINT64_C(0xD1B54A32D192ED03));
    z ^= z >> 30u;
    z *= UINT64_C(0xBF58476D1CE4E5B9);
    z ^= z >> 27u;
    z *= UINT64_C(0x94D049BB133111EB);
    z ^= z >> 31u;
    z += b;
    z ^= z >> 29u;
    z *= UINT64_C(0xBF58476D1CE4E5B9);
    z ^= z >> 32u;
    return z;
}

uint64_t srl_hash_str(const char *s)
{
    /* FNV-1a over the bytes, then the finaliser. */
    uint64_t h = srl_fnv1a64(s, strlen(s), SRL_FNV1A64_BASIS);
    return srl_hash64(h, UINT64_C(0x53524c4142535452) /* "SRLABSTR" */);
}

uint64_t srl_fnv1a64(const void *data, size_t n, uint64_t h)
{
    const unsigned char *p = data;
    for (size_t i = 0; i < n; i++) {
        h ^= p[i];
        h *= UINT64_C(0x100000001b3);
    }
    return h;
}

static void srl__rng_position(srl_rng *r)
{
    if (r->kind == SRL_RNG_PCG32) {
        srl_pcg32_seed(&r->g.p32, r->seed, r->stream);
        srl_pcg32_advance(&r->g.p32, 2u * r->counter);
    } else {
        srl_pcg64_seed(&r->g.p64, r->seed, r->stream);
        srl_pcg64_advance(&r->g.p64, r->counter);
    }
}

void srl_rng_init(srl_rng *r, srl_rng_kind kind, uint64_t seed, uint64_t stream)
{
    r->kind = (kind == SRL_RNG_PCG32) ? SRL_RNG_PCG32 : SRL_RNG_PCG64;
    r->seed = seed;
    r->stream = stream;
    r->counter = 0;
    srl__rng_position(r);
}

uint64_t srl_rng_next(srl_rng *r)
{
    r->counter++;
    if (r->kind == SRL_RNG_PCG32) {
        uint64_t hi = srl_pcg32_next(&r->g.p32);
        return (hi << 32u) | srl_pcg32_next(&r->g.p32);
    }
    return srl_pcg64_next(&r->g.p64);
}

void srl_rng_seek(srl_rng *r, uint64_t index)
{
    r->counter = index;
    srl__rng_position(r);
}

uint64_t srl_rng_draw_at(const srl_rng *r, uint64_t index)
{
    srl_rng t = *r;
    srl_rng_seek(&t, index);
    return srl_rng_next(&t);
}

void srl_rng_derive(srl_rng *child, const srl_rng *parent, uint64_t key)
{
    srl_rng_kind kind = parent->kind;
    uint64_t seed = parent->seed;
    uint64_t stream = srl_hash64(parent->stream, key);
    srl_rng_init(child, kind, seed, stream);
}

uint64_t srl_rng_extra(const srl_rng *r, uint64_t index, uint64_t k)
{
    /* Domain-separated from srl_rng_derive by the tag mixed into the first hash. */
    srl_rng t;
    uint64_t stream = srl_hash64(srl_hash64(r->stream, UINT64_C(0x4558545241424954) /* EXTRABIT */),
                                 index);
    srl_rng_init(&t, r->kind, r->seed, stream);
    if (k)
        srl_rng_seek(&t, k);
    return srl_rng_next(&t);
}

double srl_rng_uniform(srl_rng *r)
{
    return (double)(srl_rng_next(r) >> 11u) * 0x1p-53;
}

double srl_rng_normal(srl_rng *r)
{
    /* Box-Muller with u1 in (0, 1] so the logarithm is finite. */
    double u1 = ((double)(srl_rng_next(r) >> 11u) + 1.0) * 0x1p-53;
    double u2 = (double)(srl_rng_next(r) >> 11u) * 0x1p-53;
    return sqrt(-2.0 * log(u1)) * cos(6.283185307179586476925 * u2);
}

uint64_t srl_rng_below(srl_rng *r, uint64_t n)
{
    return (uint64_t)(((srl_u128)srl_rng_next(r) * n) >> 64u);
}
