/* tests/train/test_tensor.c: packed tensors and their writes (include/srlab/tensor.h), suite
 * `unit`.
 *
 *  1. bf16 rn packing of binary32 equals the library's rn rounding into bf16, bit for bit, on
 *     random patterns (normal, subnormal, ties, the overflow edge, infinities, NaN).
 *  2. The seed paper's sr:r=16 write: srl_bf16_sr16 equals (a) the paper's trick written out here
 *     independently (add the top 16 bits of the draw to the binary32 pattern as an integer, clear
 *     the low 16 bits, NaN guarded) and (b) the library's srl_round with sr:r=16 and the same
 *     draw, bit for bit, on the same inputs.
 *  3. srl_tensor_put_f / put_d store exactly what srl_round gives with draw step*n + offset + i
 *     of the tensor's stream, for every container (bf16, f32, f64), several formats and modes;
 *     and the result does not depend on how the writes are cut (one call, tiles, odd chunks).
 *  4. Storage sizes, set allocation (errors, bytes), srl_tensor_check. */
#include <math.h>
#include <stdint.h>
#include <string.h>

#include "srlab/rng.h"
#include "srlab/rounding.h"
#include "srlab/tensor.h"
#include "../testutil.h"

#define SEED UINT64_C(0x7e5501)

static float f_of(uint32_t b)
{
    float x;
    memcpy(&x, &b, 4);
    return x;
}

static uint32_t bits_of(float x)
{
    uint32_t b;
    memcpy(&b, &x, 4);
    return b;
}

/* Random binary32 patterns stressing the bf16 grid: every class of value appears. */
static uint32_t pattern(srl_rng *g)
{
    const uint64_t u = srl_rng_next(g);
    uint32_t b = (uint32_t)u;
    const uint32_t sign = (uint32_t)(u >> 63) << 31;
    switch ((u >> 40) % 10) {
    case 0: return sign | (b & 0x007fffffu);                          /* subnormal */
    case 1: return sign | 0x7f7f0000u | (b & 0xffffu);               /* top binade of bf16 */
    case 2: return sign | (b & 0x7fff0000u) | 0x8000u;               /* exact tie */
    case 3: return sign | 0x7f800000u | ((u >> 33) % 2 ? (b & 0x7fffffu) | 1u : 0u); /* inf, NaN */
    case 4: return sign | (b & 0x7fff0000u);                         /* a bf16 value */
    case 5: return sign | (b & 0x0000ffffu);                         /* tiny subnormal */
    default: return b;                                               /* anything */
    }
}

/* The paper's trick, written here from its description, independently of src/. */
static uint16_t paper_sr16(float x, uint64_t draw)
{
    uint32_t b = bits_of(x);
    if ((b & 0x7f800000u) == 0x7f800000u && (b & 0x7fffffu)) /* NaN: keep it NaN */
        return (uint16_t)((b >> 16) | 0x40u);
    const uint32_t r16 = (uint32_t)(draw >> 48); /* a uniform 16-bit integer */
    b += r16;
    b &= 0xffff0000u;
    return (uint16_t)(b >> 16);
}

static int same16(uint16_t a, uint16_t b)
{
    const int na = (a & 0x7f80u) == 0x7f80u && (a & 0x7fu);
    const int nb = (b & 0x7f80u) == 0x7f80u && (b & 0x7fu);
    return na || nb ? na && nb : a == b;
}

static void test_bf16_packing(void)
{
    const long before = srl_test_failures;
    const size_t n = (size_t)srl_test_n(1000000);
    const srl_format *bf16 = srl_format_find("bf16");
    srl_rng g, r;
    srl_rng_init(&g, SRL_RNG_PCG64, SEED, 1);
    srl_rng_init(&r, SRL_RNG_PCG32, SEED, 2);
    float *x = malloc(n * sizeof *x), *y = malloc(n * sizeof *y);
    for (size_t i = 0; i < n; i++)
        x[i] = f_of(pattern(&g));
    /* 1. rn */
    int st = srl_round_array_float(y, x, n, bf16, SRL_ROUND_RN, NULL);
    CHECK(st == SRL_OK, "srl_round_array_float failed");
    for (size_t i = 0; i < n; i++) {
        const uint16_t lib = (uint16_t)(bits_of(y[i]) >> 16);
        CHECK(same16(srl_bf16_rn(x[i]), lib), "rn: x=%a (0x%08x): pack 0x%04x, library 0x%04x",
              (double)x[i], bits_of(x[i]), srl_bf16_rn(x[i]), lib);
        CHECK((bits_of(y[i]) & 0xffffu) == 0 || isnan(y[i]), "rn: library result not bf16");
        CHECK(srl_bf16_to_float(srl_bf16_rn(x[i])) == y[i] || isnan(y[i]), "rn: decode");
    }
    GROUP("bf16 rn packing == library rn", before);

    /* 2. sr:r=16: draw i of stream r, for the pack, the paper's trick and srl_round */
    const long b2 = srl_test_failures;
    const srl_rounding sr16 = {SRL_SR_BITS, 16};
    srl_rng r2 = r;
    st = srl_round_array_float(y, x, n, bf16, sr16, &r2);
    CHECK(st == SRL_OK, "srl_round_array_float sr:r=16 failed");
    long nsub = 0, novf = 0;
    for (size_t i = 0; i < n; i++) {
        const uint64_t u = srl_rng_draw_at(&r, i);
        const uint16_t pack = srl_bf16_sr16(x[i], u), paper = paper_sr16(x[i], u);
        const uint16_t lib = (uint16_t)(bits_of(y[i]) >> 16);
        srl_rng r3 = r;
        srl_rng_seek(&r3, i);
        const double one = srl_round((double)x[i], bf16, sr16, &r3);
        CHECK(same16(pack, paper), "sr16: x=%a (0x%08x) u=%016llx: pack 0x%04x, paper 0x%04x",
              (double)x[i], bits_of(x[i]), (unsigned long long)u, pack, paper);
        CHECK(same16(pack, lib), "sr16: x=%a: pack 0x%04x, srl_round_array_float 0x%04x",
              (double)x[i], pack, lib);
        CHECK((isnan(one) && isnan(srl_bf16_to_float(pack))) ||
                  (double)srl_bf16_to_float(pack) == one,
              "sr16: x=%a: pack %a, srl_round %a", (double)x[i],
              (double)srl_bf16_to_float(pack), one);
        nsub += fabsf(x[i]) < 0x1p-126f && x[i] != 0;
        novf += isinf(srl_bf16_to_float(pack)) && !isinf(x[i]);
    }
    CHECK(nsub > 1000 && novf > 100, "coverage: %ld subnormal inputs, %ld overflows", nsub, novf);
    GROUP("bf16 sr:r=16 pack == paper's trick == srl_round (subnormals, overflow edge)", b2);
    free(x);
    free(y);
}

/* ---- writes ---- */

typedef struct wcase {
    const char *fmt, *mode;
    srl_storage storage;
} wcase;

static void test_writes(void)
{
    const long before = srl_test_failures;
    static const wcase cases[] = {
        {"bf16", "rn", SRL_STORAGE_BF16},      {"bf16", "sr:r=16", SRL_STORAGE_BF16},
        {"bf16", "sr", SRL_STORAGE_BF16},      {"bf16", "rz", SRL_STORAGE_BF16},
        {"fp16", "sr", SRL_STORAGE_F32},       {"e4m3", "rn", SRL_STORAGE_F32},
        {"e5m2", "sr:r=4", SRL_STORAGE_F32},   {"fp32", "sr", SRL_STORAGE_F32},
        {"fp64", "rn", SRL_STORAGE_F64},       {"p=30,emax=200", "sr", SRL_STORAGE_F64},
        {"bf16,saturate=on", "sr", SRL_STORAGE_F32},
    };
    const size_t n = 3000; /* not a multiple of the tile */
    srl_rng root, g;
    srl_rng_init(&root, SRL_RNG_PCG32, SEED, 0);
    srl_rng_init(&g, SRL_RNG_PCG64, SEED, 9);
    double *xd = malloc(n * sizeof *xd), *got = malloc(n * sizeof *got);
    float *xf = malloc(n * sizeof *xf);
    for (size_t i = 0; i < n; i++) {
        xd[i] = ldexp(srl_rng_normal(&g), (int)(srl_rng_below(&g, 40)) - 20);
        xf[i] = (float)xd[i];
    }
    for (size_t c = 0; c < sizeof cases / sizeof *cases; c++) {
        srl_tensor_desc d[3];
        memset(d, 0, sizeof d);
        srl_format f;
        srl_rounding m;
        CHECK(srl_format_parse(&f, cases[c].fmt, NULL) == SRL_OK, "format %s", cases[c].fmt);
        CHECK(srl_rounding_parse(&m, cases[c].mode, NULL) == SRL_OK, "mode %s", cases[c].mode);
        const char *names[3] = {"w", "w.tiles", "w.chunks"};
        for (int k = 0; k < 3; k++) {
            d[k].name = names[k];
            d[k].ndim = 2;
            d[k].shape[0] = 30;
            d[k].shape[1] = 100;
            d[k].fmt = f;
        }
        srl_tensor_set s;
        CHECK(srl_tensor_set_alloc(&s, d, 3, &root, NULL) == SRL_OK, "alloc");
        CHECK(s.t[0].storage == cases[c].storage, "%s stored as %s", cases[c].fmt,
              srl_storage_name(s.t[0].storage));
        CHECK(s.bytes == 3 * n * srl_storage_size(cases[c].storage), "bytes %zu", s.bytes);
        const bool use_f = srl_format_fits_float(&f);
        for (uint64_t step = 0; step < 3; step++) {
            /* one call; then tiles of 1024; then odd chunks, into tensors with the same stream */
            srl_tensor *t = &s.t[0];
            int st = use_f ? srl_tensor_put_f(t, 0, xf, n, m, step)
                           : srl_tensor_put_d(t, 0, xd, n, m, step);
            CHECK(st == SRL_OK, "put");
            /* reference: srl_round with draw step*n + i of t's stream */
            srl_tensor_get_d(got, t, 0, n);
            for (size_t i = 0; i < n; i++) {
                srl_rng r = t->rng;
                srl_rng_seek(&r, step * n + i);
                const double ref = srl_round(use_f ? (double)xf[i] : xd[i], &f, m, &r);
                CHECK(srl_test_same(got[i], ref), "%s %s step %llu i %zu: stored %a, srl_round %a",
                      cases[c].fmt, cases[c].mode, (unsigned long long)step, i, got[i], ref);
            }
            CHECK(srl_tensor_check(t, NULL), "%s: values of the format", cases[c].fmt);
            /* the same stream in the other tensors: copy the stream, cut the writes */
            s.t[1].rng = s.t[2].rng = t->rng;
            for (size_t i0 = 0; i0 < n; i0 += 1024) {
                size_t k = n - i0 < 1024 ? n - i0 : 1024;
                st = use_f ? srl_tensor_put_f(&s.t[1], i0, xf + i0, k, m, step)
                           : srl_tensor_put_d(&s.t[1], i0, xd + i0, k, m, step);
                CHECK(st == SRL_OK, "put tiles");
            }
            for (size_t i0 = 0; i0 < n;) {
                size_t k = 1 + (i0 * 7919) % 211;
                if (k > n - i0)
                    k = n - i0;
                st = use_f ? srl_tensor_put_f(&s.t[2], i0, xf + i0, k, m, step)
                           : srl_tensor_put_d(&s.t[2], i0, xd + i0, k, m, step);
                CHECK(st == SRL_OK, "put chunks");
                i0 += k;
            }
            const size_t es = srl_storage_size(t->storage);
            CHECK(!memcmp(s.t[0].data, s.t[1].data, n * es), "%s %s: tiles differ",
                  cases[c].fmt, cases[c].mode);
            CHECK(!memcmp(s.t[0].data, s.t[2].data, n * es), "%s %s: chunks differ",
                  cases[c].fmt, cases[c].mode);
        }
        srl_tensor_set_free(&s);
    }
    free(xd);
    free(xf);
    free(got);
    GROUP("put = srl_round with draw step*n+offset+i, any cutting, every container", before);
}

static void test_sets(void)
{
    const long before = srl_test_failures;
    srl_rng root;
    srl_rng_init(&root, SRL_RNG_PCG32, 1, 0);
    CHECK(srl_storage_for(srl_format_find("bf16")) == SRL_STORAGE_BF16, "bf16");
    CHECK(srl_storage_for(srl_format_find("fp16")) == SRL_STORAGE_F32, "fp16");
    CHECK(srl_storage_for(srl_format_find("fp64")) == SRL_STORAGE_F64, "fp64");
    srl_format sat;
    CHECK(srl_format_parse(&sat, "bf16,saturate=on", NULL) == SRL_OK, "parse");
    CHECK(srl_storage_for(&sat) == SRL_STORAGE_F32, "saturating bf16 is not the bf16 container");
    srl_tensor_desc d[2];
    memset(d, 0, sizeof d);
    d[0].name = d[1].name = "a";
    d[0].fmt = d[1].fmt = *srl_format_find("bf16");
    srl_tensor_set s;
    srl_err e;
    CHECK(srl_tensor_set_alloc(&s, d, 2, &root, &e) == SRL_EINVAL && strstr(e.msg, "twice"),
          "duplicate names refused");
    CHECK(s.count == 0 && s.mem == NULL, "nothing left on failure");
    d[1].name = "";
    CHECK(srl_tensor_set_alloc(&s, d, 2, &root, &e) == SRL_EINVAL, "empty name refused");
    d[1].name = "b";
    d[0].ndim = 1;
    d[0].shape[0] = 7;
    d[1].ndim = 0; /* a scalar */
    d[1].fmt = *srl_format_find("fp16");
    CHECK(srl_tensor_set_alloc(&s, d, 2, &root, &e) == SRL_OK, "alloc: %s", e.msg);
    CHECK(s.t[0].n == 7 && s.t[1].n == 1 && s.bytes == 7 * 2 + 4, "sizes %zu", s.bytes);
    CHECK(((uintptr_t)s.t[0].data % 64) == 0 && ((uintptr_t)s.t[1].data % 64) == 0, "aligned");
    CHECK(s.t[0].rng.stream != s.t[1].rng.stream, "one stream per tensor");
    CHECK(srl_tensor_set_find(&s, "b") == &s.t[1], "find");
    /* an f32 container holding fp16: the check sees a non-fp16 value */
    CHECK(srl_tensor_fill(&s.t[1], 0.1) == SRL_OK && srl_tensor_check(&s.t[1], NULL), "fill");
    ((float *)s.t[1].data)[0] = 0.1f;
    size_t bad = 99;
    CHECK(!srl_tensor_check(&s.t[1], &bad) && bad == 0, "0.1f is not an fp16 value");
    srl_tensor_set_free(&s);
    srl_tensor_set_free(&s); /* idempotent */
    GROUP("containers, sets, checks", before);
}

int main(void)
{
    test_bf16_packing();
    test_writes();
    test_sets();
    TEST_END();
}
