/* src/round_bulk.c: bulk rounding of arrays (DESIGN §5: the hot path of training).
 *
 * Structure. The array is cut into one contiguous block per thread; inside a block, elements are
 * processed in tiles of SRL_TILE: the tile's draws are generated first (draw counter + i for
 * element i), then each element is rounded. Elements whose magnitude lies in the format's normal
 * range [xmin, xmax] take the fast path: there the grid spacing is a fixed number of binary64
 * bits, s = 53 - p (24 - p for binary32 inputs), so rounding is integer arithmetic on the bit
 * pattern:  T = a >> s,  R = a & (2^s - 1),  f1 = R << (64 - s),  result = (a - R) + (away << s),
 * where `away` is the decision of src/round_core.h specialised to a fraction that fits in one
 * word (no tail). The carry of (a - R) + 2^s into the exponent field is exactly the step to the
 * next binade. Everything else (zeros, subnormal range, overflow, NaN, infinities) goes through
 * srl__round_one(), the reference scalar path, with the same draw. tests/test_round_bulk.c
 * checks fast against scalar bit for bit. */
#include "round_bulk.h"

#include <string.h>

#include "pcg_impl.h"
#include "round_core.h"
#include "srl_config.h"

#if SRL_HAVE_OPENMP
#include <omp.h>
#endif

#define SRL_TILE 512 /* draws per tile; a multiple of the generator lane counts */

#if defined(__GNUC__) && !defined(__clang__) && defined(__x86_64__) && !defined(__SANITIZE_ADDRESS__)
/* Integer-only loops: the clones give identical bits, only faster on wider vector units. */
#define SRL_CLONES __attribute__((target_clones("arch=x86-64-v4", "arch=x86-64-v3", "default")))
#else
#define SRL_CLONES
#endif

/* Draw generators for tiles. A `srl__lanes` holds several interleaved copies of the stream,
 * each stepping by a multi-step map, so that consecutive draws come from independent
 * recurrences (vector lanes for pcg32, multiply-latency hiding for pcg64). It is set up once per
 * block, then srl__lanes_fill() produces the next k draws in order. */
typedef uint64_t srl__v8q __attribute__((vector_size(64)));
typedef uint32_t srl__v8d __attribute__((vector_size(32)));

typedef struct srl__lanes {
    srl_rng_kind kind;
    /* pcg32: lane l of ev/od holds the state of output 2(d+l) / 2(d+l)+1 for the next draw d */
    srl__v8q ev, od;
    uint64_t a16, c16;
    /* pcg64: lane l holds the state after the step that outputs draw d+l */
    srl_u128 st[4], a4, c4;
} srl__lanes;

static void lanes_init(srl__lanes *ln, const srl_rng *g)
{
    ln->kind = g->kind;
    if (g->kind == SRL_RNG_PCG32) {
        srl__lcg64_jump(&ln->a16, &ln->c16, SRL_PCG32_MULT, g->g.p32.inc, 16);
        uint64_t s0 = g->g.p32.state;
        for (int l = 0; l < 8; l++) {
            ln->ev[l] = s0;
            s0 = s0 * SRL_PCG32_MULT + g->g.p32.inc;
            ln->od[l] = s0;
            s0 = s0 * SRL_PCG32_MULT + g->g.p32.inc;
        }
    } else {
        srl__lcg128_jump(&ln->a4, &ln->c4, SRL_PCG64_MULT, g->g.p64.inc, 4);
        srl_u128 s0 = g->g.p64.state;
        for (int l = 0; l < 4; l++) {
            s0 = s0 * SRL_PCG64_MULT + g->g.p64.inc; /* pcg64 outputs the state after the step */
            ln->st[l] = s0;
        }
    }
}

static inline __attribute__((always_inline)) srl__v8d pcg32_out_v(srl__v8q st)
{
    const srl__v8d x = __builtin_convertvector(((st >> 18) ^ st) >> 27, srl__v8d);
    const srl__v8d rot = __builtin_convertvector(st >> 59, srl__v8d);
    return (x >> rot) | (x << ((-rot) & 31u));
}

/* k draws, k a multiple of 8 except possibly for the last call on these lanes. */
SRL_CLONES static void fill_pcg32(uint64_t *u, size_t k, srl__lanes *ln)
{
    srl__v8q ev = ln->ev, od = ln->od;
    const uint64_t a = ln->a16, c = ln->c16;
    for (size_t i = 0; i < k; i += 8) {
        const srl__v8q hi = __builtin_convertvector(pcg32_out_v(ev), srl__v8q);
        const srl__v8q lo = __builtin_convertvector(pcg32_out_v(od), srl__v8q);
        const srl__v8q d = (hi << 32) | lo;
        if (k - i >= 8)
            memcpy(u + i, &d, sizeof d);
        else
            for (size_t j = 0; j < k - i; j++)
                u[i + j] = d[j];
        ev = ev * a + c;
        od = od * a + c;
    }
    ln->ev = ev;
    ln->od = od;
}

static void fill_pcg64(uint64_t *u, size_t k, srl__lanes *ln)
{
    srl_u128 s0 = ln->st[0], s1 = ln->st[1], s2 = ln->st[2], s3 = ln->st[3];
    const srl_u128 a = ln->a4, c = ln->c4;
    for (size_t i = 0; i < k; i += 4) {
        const uint64_t d[4] = {srl__pcg64_out(s0), srl__pcg64_out(s1), srl__pcg64_out(s2),
                               srl__pcg64_out(s3)};
        for (size_t j = 0; j < 4 && i + j < k; j++)
            u[i + j] = d[j];
        s0 = s0 * a + c;
        s1 = s1 * a + c;
        s2 = s2 * a + c;
        s3 = s3 * a + c;
    }
    ln->st[0] = s0, ln->st[1] = s1, ln->st[2] = s2, ln->st[3] = s3;
}

static inline void lanes_fill(uint64_t *u, size_t k, srl__lanes *ln)
{
    if (ln->kind == SRL_RNG_PCG32)
        fill_pcg32(u, k, ln);
    else
        fill_pcg64(u, k, ln);
}

void srl__draws(uint64_t *u, size_t k, srl_rng *g)
{
    srl__lanes ln;
    lanes_init(&ln, g);
    lanes_fill(u, k, &ln);
    srl_rng_seek(g, g->counter + k);
}

/* The decision for a one-word fraction f1 (no tail), branch-free, for a mode known at compile
 * time after inlining: the same rule as srl__away() in src/round_core.h. */
static inline __attribute__((always_inline)) uint64_t away1(srl_mode mode, int r, uint64_t T,
                                                             uint64_t f1, uint64_t neg,
                                                             uint64_t u)
{
    switch (mode) {
    case SRL_RN: return (f1 > SRL__HALF) | ((f1 == SRL__HALF) & T);
    case SRL_RNA: return f1 >= SRL__HALF;
    case SRL_RZ: return 0;
    case SRL_RU: return (f1 != 0) & (neg ^ 1u);
    case SRL_RD: return (f1 != 0) & neg;
    case SRL_RO: return (f1 != 0) & (T ^ 1u);
    case SRL_SR: return u < f1;
    case SRL_SR_EQ: return (f1 != 0) & (u >> 63);
    case SRL_SR_BITS: {
        const unsigned sh = 64u - (unsigned)r;
        const uint64_t F = f1 >> sh, Z = u >> sh;
        return r == 64 ? (F != 0) & (Z >= (uint64_t)0 - F) : ((F + Z) >> r) != 0;
    }
    default: return 0;
    }
}

/* Fast pass over one tile for inputs with bit layout UINT (fraction width W). Writes the result
 * of every element in the normal range whose rounding stays within [xmin, xmax]; for the others
 * it writes the input itself back (so an aliased x keeps its value) and sets flag[i].
 * Returns whether any flag was set. */
#define DEFINE_FAST(NAME, IN_T, OUT_T, UINT)                                                      \
    static inline __attribute__((always_inline)) int NAME(                                        \
        OUT_T *y, const IN_T *x, size_t k, const uint64_t *u, srl_mode mode, int r, int s,        \
        UINT lo, UINT hi, unsigned char *flag)                                                    \
    {                                                                                             \
        const unsigned nb = sizeof(UINT) * 8;                                                     \
        const UINT sign_b = (UINT)1 << (nb - 1), mask = ((UINT)1 << s) - 1;                       \
        int bad = 0;                                                                              \
        for (size_t i = 0; i < k; i++) {                                                          \
            IN_T xi = x[i];                                                                       \
            UINT b;                                                                               \
            memcpy(&b, &xi, sizeof b);                                                            \
            const UINT a = b & ~sign_b, R = a & mask;                                             \
            const uint64_t f1 = (uint64_t)R << (64 - s);                                          \
            const uint64_t up = away1(mode, r, (uint64_t)(a >> s) & 1u, f1,                       \
                                      (uint64_t)(b >> (nb - 1)), u[i]);                           \
            const UINT res = (a - R) + ((UINT)up << s);                                           \
            const int ok = ((UINT)(a - lo) <= (UINT)(hi - lo)) & (res <= hi);                     \
            const UINT yb = ok ? (res | (b & sign_b)) : b;                                        \
            IN_T yv;                                                                              \
            memcpy(&yv, &yb, sizeof yv);                                                          \
            y[i] = (OUT_T)yv;                                                                     \
            flag[i] = (unsigned char)!ok;                                                         \
            bad |= !ok;                                                                           \
        }                                                                                         \
        return bad;                                                                               \
    }

DEFINE_FAST(fast_d, double, double, uint64_t)
DEFINE_FAST(fast_f, float, float, uint32_t)
DEFINE_FAST(fast_d2f, double, float, uint64_t)

/* One tile of a kernel, dispatched on the mode so each loop is specialised. */
#define DEFINE_TILE(NAME, FAST, IN_T, OUT_T, UINT, W)                                             \
    SRL_CLONES static int NAME(OUT_T *y, const IN_T *x, size_t k, const uint64_t *u,             \
                               srl_rounding m, int s, UINT lo, UINT hi, unsigned char *flag)      \
    {                                                                                             \
        switch (m.mode) {                                                                         \
        case SRL_RN: return FAST(y, x, k, u, SRL_RN, 0, s, lo, hi, flag);                         \
        case SRL_RNA: return FAST(y, x, k, u, SRL_RNA, 0, s, lo, hi, flag);                       \
        case SRL_RZ: return FAST(y, x, k, u, SRL_RZ, 0, s, lo, hi, flag);                         \
        case SRL_RU: return FAST(y, x, k, u, SRL_RU, 0, s, lo, hi, flag);                         \
        case SRL_RD: return FAST(y, x, k, u, SRL_RD, 0, s, lo, hi, flag);                         \
        case SRL_RO: return FAST(y, x, k, u, SRL_RO, 0, s, lo, hi, flag);                         \
        case SRL_SR: return FAST(y, x, k, u, SRL_SR, 0, s, lo, hi, flag);                         \
        case SRL_SR_EQ: return FAST(y, x, k, u, SRL_SR_EQ, 0, s, lo, hi, flag);                   \
        case SRL_SR_BITS: return FAST(y, x, k, u, SRL_SR_BITS, m.r, s, lo, hi, flag);             \
        default: return 0;                                                                        \
        }                                                                                         \
    }

DEFINE_TILE(tile_fast_d2d, fast_d, double, double, uint64_t, 52)
DEFINE_TILE(tile_fast_f2f, fast_f, float, float, uint32_t, 23)
DEFINE_TILE(tile_fast_d2f, fast_d2f, double, float, uint64_t, 52)

/* A block [first, first + n) of an array: tiles of draws, the fast pass, then the reference
 * path for the flagged elements (reading x[i], which is the original value even when y == x). */
#define DEFINE_BLOCK(NAME, TILE, IN_T, OUT_T, UINT, W, FLT_MIN_V)                                 \
    static void NAME(OUT_T *y, const IN_T *x, size_t n, const srl_format *f, srl_rounding m,      \
                     const srl_rng *rng, uint64_t first)                                          \
    {                                                                                             \
        const int s = (W) + 1 - f->p;                                                             \
        const bool sto = srl_rounding_is_stochastic(m);                                           \
        const IN_T lo_v = (IN_T)f->xmin > (FLT_MIN_V) ? (IN_T)f->xmin : (FLT_MIN_V);              \
        const IN_T hi_v = (IN_T)f->xmax;                                                          \
        UINT lo, hi;                                                                              \
        memcpy(&lo, &lo_v, sizeof lo);                                                            \
        memcpy(&hi, &hi_v, sizeof hi);                                                            \
        srl__lanes ln;                                                                            \
        uint64_t u[SRL_TILE];                                                                     \
        unsigned char flag[SRL_TILE];                                                             \
        memset(u, 0, sizeof u);                                                                   \
        if (sto) {                                                                                \
            srl_rng g = *rng;                                                                     \
            srl_rng_seek(&g, first);                                                              \
            lanes_init(&ln, &g);                                                                  \
        }                                                                                         \
        for (size_t t0 = 0; t0 < n; t0 += SRL_TILE) {                                             \
            const size_t k = n - t0 < SRL_TILE ? n - t0 : SRL_TILE;                               \
            if (sto)                                                                              \
                lanes_fill(u, k, &ln);                                                            \
            int bad = 1;                                                                          \
            if (s > 0)                                                                            \
                bad = TILE(y + t0, x + t0, k, u, m, s, lo, hi, flag);                             \
            else                                                                                  \
                memset(flag, 1, k);                                                               \
            if (!bad)                                                                             \
                continue;                                                                         \
            for (size_t i = 0; i < k; i++)                                                        \
                if (flag[i])                                                                      \
                    y[t0 + i] = (OUT_T)srl__round_one((double)x[t0 + i], f, m, u[i], rng,         \
                                                      first + t0 + i);                            \
        }                                                                                         \
    }

DEFINE_BLOCK(block_d2d, tile_fast_d2d, double, double, uint64_t, 52, 0x1p-1022)
DEFINE_BLOCK(block_f2f, tile_fast_f2f, float, float, uint32_t, 23, 0x1p-126f)
DEFINE_BLOCK(block_d2f, tile_fast_d2f, double, float, uint64_t, 52, 0x1p-1022)

/* Split [0, n) into one block per thread; block b starts at n*b/nt. */
#if SRL_HAVE_OPENMP
#define RUN_BLOCKS(BLOCK)                                                                          \
    do {                                                                                          \
        const uint64_t c0 = rng ? rng->counter : 0;                                               \
        _Pragma("omp parallel if (n >= SRL_BULK_OMP_MIN)")                                        \
        {                                                                                         \
            const size_t nt = (size_t)omp_get_num_threads(), t = (size_t)omp_get_thread_num();    \
            const size_t lo = n / nt * t + (t < n % nt ? t : n % nt);                             \
            const size_t len = n / nt + (t < n % nt);                                             \
            BLOCK(y + lo, x + lo, len, f, m, rng, c0 + lo);                                        \
        }                                                                                         \
    } while (0)
#else
#define RUN_BLOCKS(BLOCK) BLOCK(y, x, n, f, m, rng, rng ? rng->counter : 0)
#endif

void srl__bulk_d2d(double *y, const double *x, size_t n, const srl_format *f, srl_rounding m,
                   const srl_rng *rng)
{
    RUN_BLOCKS(block_d2d);
}

void srl__bulk_f2f(float *y, const float *x, size_t n, const srl_format *f, srl_rounding m,
                   const srl_rng *rng)
{
    RUN_BLOCKS(block_f2f);
}

void srl__bulk_d2f(float *y, const double *x, size_t n, const srl_format *f, srl_rounding m,
                   const srl_rng *rng)
{
    RUN_BLOCKS(block_d2f);
}
