/* srlab/rng.h: PCG generators and counter-addressed random streams (docs/design.md §4).
 *
 * Two layers.
 *
 * 1. The reference generators, bit for bit those of O'Neill's PCG library (Debian's
 *    libpcg-cpp-dev): srl_pcg32 is pcg32 (64-bit LCG state, XSH-RR output, 32-bit results,
 *    the output computed from the state *before* the step) and srl_pcg64 is pcg64 (128-bit LCG
 *    state, XSL-RR output, 64-bit results, the output computed from the state *after* the step).
 *    Seeding follows pcg's (initstate, initseq) constructor: inc = 2*initseq + 1, and the state
 *    starts at (initstate + inc) * mult + inc. advance(delta) jumps delta outputs in O(log delta)
 *    (Brown, "Random number generation with arbitrary strides", 1994).
 *
 * 2. srl_rng: a random *stream* whose every draw is a pure function of (kind, seed, stream,
 *    index). A draw is one 64-bit word: for SRL_RNG_PCG64 the index-th pcg64 output; for
 *    SRL_RNG_PCG32 the pcg32 outputs 2*index and 2*index+1 as the high and low halves.
 *    The struct caches the generator positioned at `counter`, the index of the next draw.
 *    Bulk calls on n elements use draws counter .. counter+n-1 (element i gets counter+i) and
 *    then add n to counter, whatever the data; threads jump to their own first index, so the
 *    result cannot depend on the thread count or the chunking.
 *    Independent purposes (per run, per seed index, per tensor, per replica) get independent
 *    streams through srl_rng_derive(), which hashes the parent stream with a key; generators are
 *    never shared between purposes.
 *    Exact stochastic rounding occasionally needs more than 64 random bits for one element (when
 *    the first 64 tie with the exact fraction). Those words come from srl_rng_extra(), a stream
 *    derived from the element's own draw index, so the main stream still advances by exactly n.
 *
 * Nothing here allocates, prints or reads the clock. */
#ifndef SRLAB_RNG_H
#define SRLAB_RNG_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

__extension__ typedef unsigned __int128 srl_u128;

/* ---- reference generators ---- */
typedef struct srl_pcg32 {
    uint64_t state, inc;
} srl_pcg32;

void srl_pcg32_seed(srl_pcg32 *g, uint64_t initstate, uint64_t initseq);
uint32_t srl_pcg32_next(srl_pcg32 *g);
void srl_pcg32_advance(srl_pcg32 *g, uint64_t delta);

typedef struct srl_pcg64 {
    srl_u128 state, inc;
} srl_pcg64;

void srl_pcg64_seed(srl_pcg64 *g, srl_u128 initstate, srl_u128 initseq);
uint64_t srl_pcg64_next(srl_pcg64 *g);
void srl_pcg64_advance(srl_pcg64 *g, srl_u128 delta);

/* ---- counter-addressed streams ---- */
typedef enum srl_rng_kind { SRL_RNG_PCG64 = 0, SRL_RNG_PCG32 = 1 } srl_rng_kind;

/* The kind srlab's experiments use: pcg32 vectorises (eight 64-bit LCG lanes), so bulk
 * stochastic rounding runs near memory speed; pcg64 is available for comparison. */
#define SRL_RNG_DEFAULT SRL_RNG_PCG32

typedef struct srl_rng {
    srl_rng_kind kind;
    uint64_t seed;    /* the user's seed (pcg initstate) */
    uint64_t stream;  /* the stream id (pcg initseq) */
    uint64_t counter; /* index of the next draw */
    union {
        srl_pcg32 p32;
        srl_pcg64 p64;
    } g;              /* generator positioned at draw `counter` (a cache of the three above) */
} srl_rng;

/* Stream `stream` of `seed`, positioned at draw 0. */
void srl_rng_init(srl_rng *r, srl_rng_kind kind, uint64_t seed, uint64_t stream);

/* Draw number r->counter, then r->counter += 1. */
uint64_t srl_rng_next(srl_rng *r);

/* Position the stream at draw `index` in O(log index). */
void srl_rng_seek(srl_rng *r, uint64_t index);

/* Draw number `index` of r's stream, without moving r: O(log index). */
uint64_t srl_rng_draw_at(const srl_rng *r, uint64_t index);

/* A child stream for an independent purpose: same kind and seed, stream id
 * srl_hash64(parent->stream, key), positioned at draw 0. The parent's position is irrelevant, so
 * deriving is a pure function of (parent stream, key). child may alias parent. */
void srl_rng_derive(srl_rng *child, const srl_rng *parent, uint64_t key);

/* Word k (k = 0, 1, ...) of the extra random bits belonging to draw `index` of r's stream: the
 * k-th draw of a stream derived from (r's stream, index) in a domain of its own. Pure. */
uint64_t srl_rng_extra(const srl_rng *r, uint64_t index, uint64_t k);

/* A uniform double in [0, 1) with 53 random bits, from one draw. */
double srl_rng_uniform(srl_rng *r);

/* A standard normal from exactly two draws (Box-Muller, one of the pair kept). */
double srl_rng_normal(srl_rng *r);

/* An integer uniform in [0, n) from one draw (Lemire's multiply-shift; n > 0). The bias is below
 * n / 2^64, negligible for every n srlab uses, and keeping one draw per call keeps counters exact. */
uint64_t srl_rng_below(srl_rng *r, uint64_t n);

/* A 64-bit mixing hash of two words (a bijective finaliser applied to a keyed combination):
 * used to derive stream ids from keys. Stable across releases: changing it changes every result. */
uint64_t srl_hash64(uint64_t a, uint64_t b);

/* Hash of a string (for keys such as tensor names), stable across releases. */
uint64_t srl_hash_str(const char *s);

/* ---- FNV-1a checksums ---- */

/* FNV-1a, 64 bits (Fowler, Noll, Vo): for each byte, h ^= byte, then h *= 0x100000001b3. Start
 * from SRL_FNV1A64_BASIS and chain calls to hash pieces as one text:
 *     uint64_t h = srl_fnv1a64(a, na, SRL_FNV1A64_BASIS);
 *     h = srl_fnv1a64(b, nb, h);                 (the hash of a followed by b)
 * A checksum and digest (journal records, the determinism tests' digests of results), not a
 * mixing function: stream ids come from srl_hash64. Stable across releases. */
#define SRL_FNV1A64_BASIS UINT64_C(0xcbf29ce484222325)
uint64_t srl_fnv1a64(const void *data, size_t n, uint64_t h);

#ifdef __cplusplus
}
#endif
#endif
