/* tests/problems/test_tanh32.c: srl__tanh32 (src/problems/tanh32.h), the binary32 tanh of the
 * models' GELU and tanh activations, against MPFR.
 *
 * Inputs: the specials (+-0, +-inf, NaNs of either sign, signalling and quiet, with payloads),
 * the ends of every range the function treats alike (subnormals, FLT_MIN, FLT_MAX, 10 where
 * |x| is clamped, 9.01 where tanh starts to round to 1), 2^12 random significands in every
 * binade from 2^-149 to 2^127, and 2^20 random values in [2^-4, 4), where GELU's arguments lie.
 * For each x, v = tanh(x) to 128 bits (MPFR, rounded to nearest), then:
 *   - faithful: the result is v rounded down or up to binary32 (mpfr_get_flt), bit for bit;
 *   - odd: tanh32(-x) is -tanh32(x), bit for bit; NaN gives NaN, quiet, with x's payload;
 *   - the binary64 core (srl__tanh32_abs, for |x| <= 10) within 5.5 2^-53 relative of v, the
 *     bound of tanh32.h's error analysis (no sum there cancels);
 *   - correctly rounded on all but a few: the binary32 result differs from v rounded to nearest
 *     only where v lies within 5.5 2^-53 v of a rounding boundary, a chance of at most
 *     2 * 5.5 * 2^-53 / 2^-24 < 2^-25 per input for significands spread evenly; the test allows
 *     N 2^-20 of its N inputs (2^5 times that expectation);
 *   - the vectorised loop: the same function in a loop the compiler vectorises (cloned for
 *     x86-64-v3 and v4, as src/problems/gpt_tpl.h's gelu_run is) gives the scalar call's bits.
 * SRL_TEST_SCALE shrinks the random parts (sanitizer runs); the bound follows the N used. */
#include <float.h>
#include <inttypes.h>
#include <math.h>
#include <mpfr.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/isa.h" /* SRL__PLAIN_CLONES */
#include "problems/tanh32.h"
#include "../testutil.h"

static uint64_t rng_state = 0x9e3779b97f4a7c15u;
static uint32_t rnd32(void) /* splitmix64, high half */
{
    uint64_t z = (rng_state += 0x9e3779b97f4a7c15u);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9u;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebu;
    return (uint32_t)((z ^ (z >> 31)) >> 32);
}

static float from_bits(uint32_t b)
{
    float f;
    memcpy(&f, &b, sizeof f);
    return f;
}

static uint32_t to_bits(float f)
{
    uint32_t b;
    memcpy(&b, &f, sizeof b);
    return b;
}

/* The scalar call, through a pointer the compiler cannot see through. */
static float (*volatile scalar_tanh)(float) = srl__tanh32;

SRL__PLAIN_CLONES static void tanh_loop(float *restrict y, const float *restrict x, size_t n)
{
    for (size_t i = 0; i < n; i++)
        y[i] = srl__tanh32(x[i]);
}

typedef struct stats {
    long n, not_rn;
    double max_rel; /* of the binary64 core, in units of 2^-53 */
} stats;

static void check_one(float x, mpfr_t v, mpfr_t d, stats *st)
{
    const float got = scalar_tanh(x);
    const float neg = scalar_tanh(-x);
    st->n++;
    if (x != x) {
        CHECK(got != got && (to_bits(got) | 0x00400000u) == to_bits(got) &&
                  (to_bits(got) & 0xffbfffffu) == (to_bits(x) & 0xffbfffffu),
              "tanh32(NaN %08" PRIx32 ") = %08" PRIx32 ": not the NaN itself, quiet", to_bits(x),
              to_bits(got));
        return;
    }
    CHECK(to_bits(neg) == (to_bits(got) ^ 0x80000000u), "tanh32 not odd at x = %a: %a, %a",
          (double)x, (double)got, (double)neg);
    mpfr_set_flt(d, x, MPFR_RNDN); /* exact */
    mpfr_tanh(v, d, MPFR_RNDN);
    const float dn = mpfr_get_flt(v, MPFR_RNDD), up = mpfr_get_flt(v, MPFR_RNDU);
    const float rn = mpfr_get_flt(v, MPFR_RNDN);
    CHECK(to_bits(got) == to_bits(dn) || to_bits(got) == to_bits(up),
          "tanh32(%a) = %a, not faithful: tanh is between %a and %a", (double)x, (double)got,
          (double)dn, (double)up);
    st->not_rn += to_bits(got) != to_bits(rn);
    const double ax = fabs((double)x);
    if (ax > 0 && ax <= 10) {
        const double core = srl__tanh32_abs(ax);
        mpfr_set_d(d, ax, MPFR_RNDN);
        mpfr_tanh(v, d, MPFR_RNDN);
        mpfr_sub_d(d, v, core, MPFR_RNDN);
        mpfr_div(d, d, v, MPFR_RNDN);
        const double rel = fabs(mpfr_get_d(d, MPFR_RNDN)) * 0x1p53;
        if (rel > st->max_rel)
            st->max_rel = rel;
        CHECK(rel <= 5.5, "srl__tanh32_abs(%a) off by %.2f 2^-53 relative (bound 5.5)", ax, rel);
    }
}

int main(void)
{
    mpfr_t v, d;
    mpfr_init2(v, 128);
    mpfr_init2(d, 128);
    stats st = {0, 0, 0};

    /* specials and the ends of the ranges */
    static const uint32_t special[] = {
        0x00000000u, 0x80000000u, 0x7f800000u, 0xff800000u, /* zeros, infinities */
        0x7fc00000u, 0xffc00000u, 0x7f800001u, 0xff800001u, /* NaNs */
        0x7fbfffffu, 0x7fc12345u, 0xffffffffu, 0x00000001u, /* subnormals */
        0x007fffffu, 0x00800000u, 0x7f7fffffu, 0x3f800000u, /* FLT_MIN, FLT_MAX, 1 */
        0x411fffffu, 0x41200000u, 0x41200001u,              /* around 10 (the clamp) */
        0x39800000u, 0x397fffffu, 0x3e800000u,              /* 2^-12, 0.25 */
    };
    long before = srl_test_failures;
    for (size_t i = 0; i < sizeof special / sizeof *special; i++)
        check_one(from_bits(special[i]), v, d, &st);
    for (uint32_t b = 0x4110f000u; b < 0x41112000u; b++) /* 9.01..: where tanh rounds to 1 */
        check_one(from_bits(b), v, d, &st);
    GROUP("specials, range ends, the approach to 1", before);

    before = srl_test_failures;
    const long per = srl_test_n(1L << 12);
    for (int e = 0; e < 255; e++) /* every binade (e = 0: the subnormals) */
        for (long j = 0; j < per; j++)
            check_one(from_bits(((uint32_t)e << 23) | (rnd32() >> 9) | (rnd32() & 0x80000000u)),
                      v, d, &st);
    GROUP("every binade, random significands", before);

    before = srl_test_failures;
    const long dense = srl_test_n(1L << 20);
    for (long j = 0; j < dense; j++) {
        const float x = ldexpf(1.0f + (float)(rnd32() >> 8) * 0x1p-24f, (int)(rnd32() % 6) - 4);
        check_one(rnd32() & 1 ? -x : x, v, d, &st);
    }
    GROUP("[2^-4, 4), dense", before);

    before = srl_test_failures;
    CHECK((double)st.not_rn <= (double)st.n * 0x1p-20,
          "%ld of %ld results not correctly rounded (at most n 2^-20 = %.1f allowed)", st.not_rn,
          st.n, (double)st.n * 0x1p-20);
    printf("# %ld inputs, %ld not correctly rounded, largest error of the binary64 core %.2f "
           "2^-53\n",
           st.n, st.not_rn, st.max_rel);
    GROUP("correctly rounded but for inputs next to a rounding boundary", before);

    /* the vectorised loop against the scalar call */
    before = srl_test_failures;
    const size_t n = 1 << 16;
    float *x = malloc(n * sizeof *x), *y = malloc(n * sizeof *y);
    CHECK(x && y, "out of memory");
    if (x && y) {
        for (size_t i = 0; i < n; i++)
            x[i] = i < sizeof special / sizeof *special ? from_bits(special[i])
                   : i % 2 ? from_bits(rnd32())
                           : ldexpf((float)(rnd32() >> 8) * 0x1p-24f, (int)(rnd32() % 8) - 4);
        for (size_t off = 0; off < 3; off++) { /* lengths that leave a tail */
            tanh_loop(y, x + off, n - off);
            for (size_t i = 0; i + off < n; i++) {
                const float s = scalar_tanh(x[i + off]);
                CHECK(to_bits(y[i]) == to_bits(s),
                      "vectorised %a, scalar %a at x = %a", (double)y[i], (double)s,
                      (double)x[i + off]);
            }
        }
    }
    free(x), free(y);
    GROUP("the vectorised loop gives the scalar call's bits", before);

    mpfr_clear(v);
    mpfr_clear(d);
    mpfr_free_cache();
    TEST_END();
}
