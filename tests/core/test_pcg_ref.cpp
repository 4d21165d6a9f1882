/* tests/core/test_pcg_ref.cpp: srlab's PCG generators bit for bit against O'Neill's reference
 * (Debian's libpcg-cpp-dev, <pcg_random.hpp>), suite `pcg`.
 *
 * Contract under test (include/srlab/rng.h): srl_pcg32 is pcg32 and srl_pcg64 is pcg64, seeded
 * as pcg's (initstate, initseq) constructor, advance(delta) jumping delta outputs; an srl_rng of
 * kind SRL_RNG_PCG64 has draw j = the j-th pcg64(seed, stream) output, of kind SRL_RNG_PCG32
 * draw j = (out(2j) << 32) | out(2j+1) of pcg32(seed, stream).
 *
 * Besides the outputs, the full generator state (multiplier, increment, state) is compared: the
 * reference's is read through a derived class, srl_pcg32 / srl_pcg64 expose theirs. Nothing here
 * is statistical; every check is an equality. */
#include <pcg_random.hpp>

#include <cstdint>
#include <cstdio>
#include <string>

#include "srlab/rng.h"
#include "../testutil.h"

typedef unsigned __int128 u128;

static const u128 U128_ONES = ~(u128)0;

static u128 mk128(uint64_t hi, uint64_t lo)
{
    return ((u128)hi << 64) | lo;
}

static std::string hex128(u128 v)
{
    char buf[40];
    std::snprintf(buf, sizeof buf, "0x%016llx%016llx", (unsigned long long)(uint64_t)(v >> 64),
                  (unsigned long long)(uint64_t)v);
    return std::string(buf);
}

/* The reference generators with their protected state made visible (derived classes may read
 * protected members): the full state (multiplier, increment, state) is compared, not only the
 * outputs. */
struct ref32 : pcg32 {
    ref32(uint64_t seed, uint64_t stream) : pcg32(seed, stream) {}
    uint64_t st() const { return state_; }
    uint64_t inc() const { return increment(); }
    uint64_t mult() const { return multiplier(); }
};
struct ref64 : pcg64 {
    ref64(u128 seed, u128 stream) : pcg64(seed, stream) {}
    u128 st() const { return state_; }
    u128 inc() const { return increment(); }
    u128 mult() const { return multiplier(); }
};

/* pcg32's multiplier, from the PCG paper and pcg_random.hpp's default_multiplier<uint64_t>. */
static const uint64_t PCG32_MULT = 6364136223846793005ULL;
/* pcg64's multiplier (default_multiplier<pcg128_t>). */
static const u128 PCG64_MULT = mk128(2549297995355413924ULL, 4865540595714422341ULL);

static bool same_state32(const srl_pcg32 &a, const ref32 &r)
{
    return r.mult() == PCG32_MULT && r.inc() == a.inc && r.st() == a.state;
}

static bool same_state64(const srl_pcg64 &a, const ref64 &r)
{
    return r.mult() == PCG64_MULT && r.inc() == a.inc && r.st() == a.state;
}

static std::string state_string(const ref32 &r)
{
    char buf[80];
    std::snprintf(buf, sizeof buf, "state %#llx inc %#llx", (unsigned long long)r.st(),
                  (unsigned long long)r.inc());
    return std::string(buf);
}

static std::string state_string(const ref64 &r)
{
    return "state " + hex128(r.st()) + " inc " + hex128(r.inc());
}

static const uint64_t seeds64[] = {
    0u, 1u, 2u, 42u, 1ULL << 63, ~0ULL, 0xcafef00dd15ea5e5ULL, 0x853c49e6748fea9bULL,
    0xda3e39cb94b95bdbULL, (1ULL << 63) - 1,
};
static const uint64_t streams64[] = {
    0u, 1u, 54u, 1ULL << 63, ~0ULL, 0xda3e39cb94b95bdbULL, (1ULL << 63) - 1,
};

static u128 seeds128[11];
static u128 streams128[9];

static void init128(void)
{
    const u128 s[] = {0u,
                      1u,
                      (u128)1 << 63,
                      (u128)~0ULL,
                      (u128)1 << 64,
                      (u128)1 << 127,
                      U128_ONES,
                      mk128(0x0123456789abcdefULL, 0xfedcba9876543210ULL),
                      mk128(0x4d595df4d0f33173ULL, 0x0000000000000001ULL),
                      42u,
                      mk128(~0ULL >> 1, ~0ULL)};
    const u128 t[] = {0u,
                      1u,
                      54u,
                      (u128)1 << 63,
                      (u128)1 << 64,
                      (u128)1 << 127,
                      U128_ONES,
                      mk128(0xb5ad4eceda1ce2a9ULL, 0x14057b7ef767814fULL),
                      mk128(0x5851f42d4c957f2dULL, 0x9e3779b97f4a7c15ULL)};
    for (size_t i = 0; i < sizeof s / sizeof s[0]; i++)
        seeds128[i] = s[i];
    for (size_t i = 0; i < sizeof t / sizeof t[0]; i++)
        streams128[i] = t[i];
}

enum { NOUT = 4096 };

/* What the outputs and advance tests use of a generator, pcg32 and pcg64 alike: srlab's state
 * and functions, the reference, and the type of its seeds, streams and deltas. */
static std::string hex(uint64_t v)
{
    char buf[24];
    std::snprintf(buf, sizeof buf, "%#llx", (unsigned long long)v);
    return std::string(buf);
}
static std::string hex(u128 v)
{
    return hex128(v);
}

template <class L, class R, class W, class Out, void (*Seed)(L *, W, W), Out (*Next)(L *),
          void (*Advance)(L *, W), bool (*Same)(const L &, const R &)>
struct gen {
    typedef L lib;
    typedef R ref;
    typedef W word;
    static void seed(lib *g, word s, word t) { Seed(g, s, t); }
    static uint64_t next(lib *g) { return Next(g); }
    static void advance(lib *g, word d) { Advance(g, d); }
    static bool same(const lib &g, const ref &r) { return Same(g, r); }
};
typedef gen<srl_pcg32, ref32, uint64_t, uint32_t, srl_pcg32_seed, srl_pcg32_next,
            srl_pcg32_advance, same_state32>
    gen32;
typedef gen<srl_pcg64, ref64, u128, uint64_t, srl_pcg64_seed, srl_pcg64_next, srl_pcg64_advance,
            same_state64>
    gen64;

/* Seeding and the first NOUT outputs of generator G for every (seed, stream) pair. */
template <class G, size_t NS, size_t NT>
static void test_outputs(const char *name, const typename G::word (&seeds)[NS],
                         const typename G::word (&streams)[NT], const char *group)
{
    const long before = srl_test_failures;
    for (typename G::word seed : seeds) {
        for (typename G::word stream : streams) {
            typename G::lib g;
            G::seed(&g, seed, stream);
            typename G::ref r(seed, stream);
            const std::string ss = hex(seed), ts = hex(stream);
            CHECK(G::same(g, r), "%s seed=%s stream=%s: state after seeding: ref %s", name,
                  ss.c_str(), ts.c_str(), state_string(r).c_str());
            int bad = 0;
            for (int j = 0; j < NOUT && bad < 3; j++) {
                const uint64_t a = G::next(&g), b = r();
                if (a != b) {
                    bad++;
                    CHECK(a == b, "%s seed=%s stream=%s output %d: srl %#llx ref %#llx", name,
                          ss.c_str(), ts.c_str(), j, (unsigned long long)a,
                          (unsigned long long)b);
                }
            }
            CHECK(bad == 0 && G::same(g, r), "%s seed=%s stream=%s: state after %d", name,
                  ss.c_str(), ts.c_str(), NOUT);
        }
    }
    GROUP(group, before);
}

/* advance(delta) of generator G against the reference's advance (odd d) and discard (even d),
 * from a position `warm` outputs past the start. */
template <class G, size_t NS, size_t NT, size_t ND>
static void test_advance(const char *name, const typename G::word (&seeds)[NS],
                         const typename G::word (&streams)[NT],
                         const typename G::word (&deltas)[ND], int warm, const char *group)
{
    const long before = srl_test_failures;
    for (typename G::word seed : seeds) {
        for (typename G::word stream : streams) {
            for (size_t d = 0; d < ND; d++) {
                const typename G::word delta = deltas[d];
                typename G::lib g;
                G::seed(&g, seed, stream);
                typename G::ref r(seed, stream);
                for (int k = 0; k < warm; k++)
                    (void)G::next(&g), (void)r();
                G::advance(&g, delta);
                if (d % 2)
                    r.advance(delta);
                else
                    r.discard(delta);
                const std::string ss = hex(seed), ts = hex(stream), ds = hex(delta);
                CHECK(G::same(g, r), "%s seed=%s stream=%s advance %s: ref %s", name,
                      ss.c_str(), ts.c_str(), ds.c_str(), state_string(r).c_str());
                for (int j = 0; j < 8; j++) {
                    const uint64_t a = G::next(&g), b = r();
                    CHECK(a == b, "%s seed=%s stream=%s advance %s output %d: %#llx vs %#llx",
                          name, ss.c_str(), ts.c_str(), ds.c_str(), j, (unsigned long long)a,
                          (unsigned long long)b);
                }
            }
        }
    }
    GROUP(group, before);
}

static void test_pcg32_outputs(void)
{
    test_outputs<gen32>("pcg32", seeds64, streams64,
                        "pcg32: seeding and first 4096 outputs, 70 (seed, stream) pairs");
}

static void test_pcg64_outputs(void)
{
    test_outputs<gen64>("pcg64", seeds128, streams128,
                        "pcg64: seeding and first 4096 outputs, 99 (seed, stream) pairs");
}

/* advance(delta) against the reference's advance/discard, small and huge deltas. */
static void test_pcg32_advance(void)
{
    const uint64_t deltas[] = {0u,           1u,           2u,           3u,
                               7u,           100u,         4095u,        4096u,
                               1ULL << 32,   1ULL << 40,   (1ULL << 40) + 12345u,
                               1ULL << 63,   ~0ULL,        ~0ULL - 1,    0x9e3779b97f4a7c15ULL};
    /* from a position that is not the start, too */
    test_advance<gen32>("pcg32", seeds64, streams64, deltas, 5,
                        "pcg32: advance by 0 .. 2^64-1 equals the reference");
}

static void test_pcg64_advance(void)
{
    const u128 deltas[] = {0u,
                           1u,
                           2u,
                           5u,
                           4095u,
                           (u128)1 << 32,
                           (u128)1 << 40,
                           (u128)~0ULL,
                           (u128)1 << 64,
                           ((u128)1 << 64) + 1,
                           (u128)1 << 100,
                           (u128)1 << 127,
                           U128_ONES,
                           U128_ONES - 1,
                           mk128(0x9e3779b97f4a7c15ULL, 0xf39cc0605cedc834ULL)};
    test_advance<gen64>("pcg64", seeds128, streams128, deltas, 3,
                        "pcg64: advance by 0 .. 2^128-1 equals the reference");
}

/* advance(k) equals k steps, for every k up to 2000; composition; the full period. */
static void test_advance_vs_stepping(void)
{
    const long before = srl_test_failures;
    const uint64_t pairs[][2] = {{42u, 54u}, {0u, 0u}, {~0ULL, 1ULL << 63}};
    for (const auto &p : pairs) {
        srl_pcg32 start, step;
        srl_pcg32_seed(&start, p[0], p[1]);
        step = start;
        srl_pcg64 start64, step64;
        srl_pcg64_seed(&start64, mk128(p[1], p[0]), mk128(p[0], p[1]));
        step64 = start64;
        for (uint64_t k = 0; k <= 2000; k++) {
            srl_pcg32 jump = start;
            srl_pcg32_advance(&jump, k);
            CHECK(jump.state == step.state && jump.inc == step.inc,
                  "pcg32 (%#llx, %#llx): advance(%llu) != %llu steps", (unsigned long long)p[0],
                  (unsigned long long)p[1], (unsigned long long)k, (unsigned long long)k);
            srl_pcg64 jump64 = start64;
            srl_pcg64_advance(&jump64, k);
            CHECK(jump64.state == step64.state && jump64.inc == step64.inc,
                  "pcg64 (%#llx, %#llx): advance(%llu) != %llu steps", (unsigned long long)p[0],
                  (unsigned long long)p[1], (unsigned long long)k, (unsigned long long)k);
            (void)srl_pcg32_next(&step);
            (void)srl_pcg64_next(&step64);
        }
        /* advance(a) then advance(b) == advance(a + b), modulo the period */
        const uint64_t a = 0xfedcba9876543210ULL, b = 0x8000000000000123ULL;
        srl_pcg32 g1 = start, g2 = start;
        srl_pcg32_advance(&g1, a);
        srl_pcg32_advance(&g1, b);
        srl_pcg32_advance(&g2, a + b);
        CHECK(g1.state == g2.state, "pcg32: advance(a)+advance(b) != advance(a+b) mod 2^64");
        /* the period is 2^64: advance(2^64 - 1) then one step returns to the start */
        srl_pcg32 g3 = start;
        srl_pcg32_advance(&g3, ~0ULL);
        (void)srl_pcg32_next(&g3);
        CHECK(g3.state == start.state, "pcg32: advance(2^64-1) + 1 step is not the identity");
        const u128 a64 = mk128(0xfedcba9876543210ULL, 3u), b64 = mk128(0x8000000000000123ULL, ~0ULL);
        srl_pcg64 h1 = start64, h2 = start64, h3 = start64;
        srl_pcg64_advance(&h1, a64);
        srl_pcg64_advance(&h1, b64);
        srl_pcg64_advance(&h2, a64 + b64);
        CHECK(h1.state == h2.state, "pcg64: advance(a)+advance(b) != advance(a+b) mod 2^128");
        srl_pcg64_advance(&h3, U128_ONES);
        (void)srl_pcg64_next(&h3);
        CHECK(h3.state == start64.state, "pcg64: advance(2^128-1) + 1 step is not the identity");
    }
    GROUP("advance(k) == k steps (k <= 2000), composition, full period", before);
}

/* The srl_rng layer: draws in terms of the reference outputs. */
static void test_rng_layer(void)
{
    const long before = srl_test_failures;
    const uint64_t rs[][2] = {{0u, 0u}, {42u, 54u}, {1ULL << 63, ~0ULL}, {~0ULL, 1u},
                              {0x853c49e6748fea9bULL, 0xda3e39cb94b95bdbULL}};
    for (const auto &p : rs) {
        const uint64_t seed = p[0], stream = p[1];
        srl_rng r64, r32;
        srl_rng_init(&r64, SRL_RNG_PCG64, seed, stream);
        srl_rng_init(&r32, SRL_RNG_PCG32, seed, stream);
        pcg64 ref64((u128)seed, (u128)stream);
        pcg32 ref32(seed, stream);
        for (uint64_t j = 0; j < 3000; j++) {
            const uint64_t a = srl_rng_next(&r64), b = ref64();
            CHECK(a == b, "rng pcg64 seed=%#llx stream=%#llx draw %llu: %#llx vs ref %#llx",
                  (unsigned long long)seed, (unsigned long long)stream, (unsigned long long)j,
                  (unsigned long long)a, (unsigned long long)b);
            const uint64_t c = srl_rng_next(&r32);
            const uint64_t hi = ref32(), lo = ref32();
            CHECK(c == ((hi << 32) | lo),
                  "rng pcg32 seed=%#llx stream=%#llx draw %llu: %#llx vs ref %#llx",
                  (unsigned long long)seed, (unsigned long long)stream, (unsigned long long)j,
                  (unsigned long long)c, (unsigned long long)((hi << 32) | lo));
        }
        /* draw_at and seek far away, against the reference's advance */
        const uint64_t idx[] = {3000u, 1ULL << 20, 1ULL << 40, (1ULL << 40) + 7, 1ULL << 62,
                                (1ULL << 63) + 5, ~0ULL - 10};
        for (uint64_t index : idx) {
            pcg64 q64((u128)seed, (u128)stream);
            q64.advance((u128)index);
            pcg32 q32(seed, stream);
            q32.advance(2u * index); /* pcg32 outputs 2*index, mod its period 2^64 */
            srl_rng s64 = r64, s32 = r32;
            srl_rng_seek(&s64, index);
            srl_rng_seek(&s32, index);
            for (uint64_t k = 0; k < 8; k++) {
                const uint64_t e64 = q64();
                const uint64_t hi = q32(), lo = q32();
                const uint64_t e32 = (hi << 32) | lo;
                const uint64_t d64 = srl_rng_draw_at(&r64, index + k);
                const uint64_t d32 = srl_rng_draw_at(&r32, index + k);
                const uint64_t n64 = srl_rng_next(&s64), n32 = srl_rng_next(&s32);
                CHECK(d64 == e64 && n64 == e64,
                      "rng pcg64 seed=%#llx stream=%#llx index %#llx: draw_at %#llx next %#llx ref %#llx",
                      (unsigned long long)seed, (unsigned long long)stream,
                      (unsigned long long)(index + k), (unsigned long long)d64,
                      (unsigned long long)n64, (unsigned long long)e64);
                CHECK(d32 == e32 && n32 == e32,
                      "rng pcg32 seed=%#llx stream=%#llx index %#llx: draw_at %#llx next %#llx ref %#llx",
                      (unsigned long long)seed, (unsigned long long)stream,
                      (unsigned long long)(index + k), (unsigned long long)d32,
                      (unsigned long long)n32, (unsigned long long)e32);
            }
        }
    }
    GROUP("srl_rng draws = pcg64 outputs / paired pcg32 outputs, near and far", before);
}

/* The reference itself: the published pcg32 demo stream (pcg32-demo, seed 42, stream 54), so a
 * broken reference install cannot make this test vacuous. */
static void test_reference_sanity(void)
{
    const long before = srl_test_failures;
    const uint32_t golden[6] = {0xa15c02b7u, 0x7b47f409u, 0xba1d3330u,
                                0x83d2f293u, 0xbfa4784bu, 0xcbed606eu};
    pcg32 r(42u, 54u);
    srl_pcg32 g;
    srl_pcg32_seed(&g, 42u, 54u);
    for (int j = 0; j < 6; j++) {
        const uint32_t a = r(), b = srl_pcg32_next(&g);
        CHECK(a == golden[j] && b == golden[j], "pcg32(42, 54) output %d: ref %#x srl %#x, published %#x",
              j, a, b, golden[j]);
    }
    GROUP("pcg32(42, 54): published demo outputs", before);
}

int main(void)
{
    init128();
    test_reference_sanity();
    test_pcg32_outputs();
    test_pcg64_outputs();
    test_pcg32_advance();
    test_pcg64_advance();
    test_advance_vs_stepping();
    test_rng_layer();
    TEST_END();
}
