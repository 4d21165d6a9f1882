/* src/round/round_bulk.c: bulk rounding of arrays (docs/design.md §5: the hot path of training).
 *
 * Structure. The array is cut into one contiguous block per thread; each block positions its own
 * copy of the stream at counter + (its first index), so element i always uses draw counter + i
 * and the output cannot depend on the thread count. Inside a block, elements go in tiles of
 * SRL_TILE (the pattern path of binary32, which flags nothing, takes the block's whole groups
 * of sixteen in one call first). Elements whose magnitude lies in the format's normal range take
 * the fast path of src/round/round_bulk_isa.h: there the grid spacing is a fixed number
 * s = 53 - p (24 - p for binary32 input) of input ulps, so rounding is integer arithmetic on the
 * bit pattern,
 *     T = a >> s,  R = a & (2^s - 1),  f1 = R << (64 - s),  result = (a - R) + (away << s),
 * with `away` the decision of src/round/decide.h for a fraction that fits in one word; the carry of
 * (a - R) + 2^s into the exponent field is exactly the step into the next binade. The format's
 * subnormal range is rounded on the lanes too (a uniform grid, round_bulk_isa.h). Everything
 * else (zeros, values far below the grid, overflow, NaN, infinities) is flagged and goes through
 * srl__round_one(), the reference path, with the same draw. Every path (binary64 -> binary64,
 * binary32 -> binary32, binary64 -> binary32) makes its draws in vector registers, pcg32 or pcg64
 * lanes, fused with the rounding. tests/core/test_round_bulk.c and tests/round/test_round_isa.c
 * (every instruction-set level) check every path against srl_round bit for bit. */
#include "round/round_bulk.h"

/* The vector helpers are static and inlined: the ABI note about vector returns does not apply. */
#pragma GCC diagnostic ignored "-Wpsabi"

#include <math.h>
#include <stdlib.h>
#include <string.h>
#if defined(__x86_64__)
#include <immintrin.h>
#endif

#include "core/mutant.h"
#include "core/pcg_impl.h"
#include "core/threads.h"
#include "round/lanes.h"
#include "round/mx_scale.h"
#include "round/round_core.h"
#include "srl_config.h"

#if SRL_HAVE_OPENMP
#include <omp.h>
#endif

#define SRL_TILE 512 /* elements per tile, a multiple of 8 */
/* A block's workspace (a tile's draws, flags and the kernels' flag words: 8.5 KiB) is on the
 * heap, never the stack: blocks run on OpenMP workers, whose stacks OMP_STACKSIZE may make as
 * small as 16 KiB. A block of at most SRL_TILE_SMALL elements (whose tiles are as small) keeps
 * a small one on the stack instead, sparing the allocation where the work is short. */
#define SRL_TILE_SMALL 64
/* Block quantization's one-pass tiles (block_mx_f2f, mx_tile) are four times as long where the
 * output stays in the caches: their per-tile steps (the draws' setup, the scales' pass, the
 * workspace's flags) cost as much as a sixth of a 512-element tile's loop there. 8 KiB of
 * binary32 inputs, in L1 still. A streamed output copied out of the workspace (below x86-64-v4)
 * keeps 512: the copy, four times as long a burst of streaming stores, cost more than that at
 * 10^7 (one thread, Zen 4). From x86-64-v4 the tile streams its own output, and is long again:
 * at 10^7 values 16 bytes off a 64-byte line (one thread, an Intel Xeon with AVX-512), mxfp8 rn
 * ran at 0.64 of bf16's speed in 512-element tiles, 0.80 in 2048-element ones. */
#define SRL_MX_TILE (4 * SRL_TILE)
#ifndef SRL_PREFETCH_BYTES
#define SRL_PREFETCH_BYTES 16384
#endif
/* mx_tile's group loop asks for the input two streamed tiles ahead, once per group (a line per
 * sixteen elements). Its scales' pass reads a tile in one burst and the rounding then works
 * from L1, so the hardware's prefetchers, which follow the demand stream, leave the memory idle
 * while the tile is rounded. 10^7 values, one thread, paired against bf16 in the same mode: the
 * block formats' ratios +0.03 to +0.1 (4 KiB and 8 KiB ahead alike; 1 KiB is too late). The
 * same in NVFP4's loops (src/ops/mx_nv_isa.h) gained nothing on arrays on a 64-byte line and
 * lost 0.03-0.06 on arrays off one (094da79, backed out). */
#ifndef SRL_MX_PREFETCH_BYTES
#define SRL_MX_PREFETCH_BYTES 4096
#endif

/* Interleaved copies of a stream, set up once per block; successive calls produce successive
 * draws. pcg32: lane l of ev / od holds the state of output 2(d+l) / 2(d+l)+1 for the next draw
 * d, both stepping by the 16-output map (a16, c16). pcg64: lane l of (sh, sl) (the high and low
 * words) holds the state that outputs draw d+l (pcg64 outputs the state after its step), lane l
 * of (sh2, sl2) draw d+8+l, both stepping by the 16-step map (ah, al, ch, cl): two independent
 * chains hide the multiply latency. A call whose count is not a multiple of 16 (8 for pcg32)
 * must be a stream's last. */
typedef struct srl__lanes {
    srl_rng_kind kind;
    srl__u64x8 ev, od;
    uint64_t a16, c16;
    uint64_t a32, c32, inc; /* pcg32: the 32-output map, the increment */
    srl__u64x8 sh, sl, sh2, sl2; /* pcg64 */
    uint64_t ah, al, ch, cl;
    void *nok; /* the vector kernels' flags of a tile: SRL_TILE words of the block's workspace */
} srl__lanes;

/* What the vector kernels need of a format (see round_bulk_isa.h). */
typedef struct srl__vparams {
    int s;            /* the grid spacing in the normal range is 2^s input units */
    uint64_t lo, hi;  /* magnitudes (bits) of the normal range */
    int sub;          /* 1: the subnormal range below lo on the lanes too */
    uint64_t sub_c;   /* eq + bias + m (eq = emin - p + 1; bias, m: the input format's) */
    uint64_t qbits;   /* the bits of q = 2^eq when it is a normal input number, else 0 */
    int pat;          /* 1: the format has the input's exponent range, subnormals, infinities
                         and no saturation (bf16, tf32 of binary32): see SRL_DEFINE_GROUP */
    uint64_t inf;     /* the input format's infinity (bits) */
    uint64_t qnan;    /* its canonical quiet NaN, positive (the reference path's NaN) */
    int zero_ref;     /* 1: zeros go to the reference path (the block-scaled path: a zero
                         there may be a scaled value that underflowed; ISA(hw32)) */
} srl__vparams;

static void lanes_init(srl__lanes *ln, const srl_rng *g)
{
    memset(ln, 0, sizeof *ln);
    ln->kind = g->kind;
    if (g->kind == SRL_RNG_PCG32) {
        srl__lcg64_jump(&ln->a16, &ln->c16, SRL_PCG32_MULT, g->g.p32.inc, 16);
        srl__lcg64_jump(&ln->a32, &ln->c32, SRL_PCG32_MULT, g->g.p32.inc, 32);
        ln->inc = g->g.p32.inc;
        uint64_t s0 = g->g.p32.state;
        for (int l = 0; l < 8; l++) {
            ln->ev[l] = s0;
            s0 = s0 * SRL_PCG32_MULT + g->g.p32.inc;
            ln->od[l] = s0;
            s0 = s0 * SRL_PCG32_MULT + g->g.p32.inc;
        }
    } else {
        srl_u128 a16, c16;
        srl__lcg128_jump(&a16, &c16, SRL_PCG64_MULT, g->g.p64.inc, 16);
        ln->ah = (uint64_t)(a16 >> 64), ln->al = (uint64_t)a16;
        ln->ch = (uint64_t)(c16 >> 64), ln->cl = (uint64_t)c16;
        srl_u128 s0 = g->g.p64.state;
        for (int l = 0; l < 16; l++) {
            s0 = s0 * SRL_PCG64_MULT + g->g.p64.inc;
            srl__u64x8 *h = l < 8 ? &ln->sh : &ln->sh2, *lw = l < 8 ? &ln->sl : &ln->sl2;
            (*h)[l % 8] = (uint64_t)(s0 >> 64);
            (*lw)[l % 8] = (uint64_t)s0;
        }
    }
}

/* ---- the kernels, once per instruction set (src/core/isa.h), with a fourth copy for CPUs with
 * AVX-512 IFMA (its pcg64 lanes step with 52-bit multiply-adds) ---- */
#define SRL_ISA_TEMPLATE "round/round_bulk_isa.h"
#define SRL_ISA_IFMA 1
#include "core/isa_instantiate.h"

static int forced_level = -1; /* srl__round_bulk_isa */

/* The CPU's level (src/core/isa.h), at most the forced one. */
static int isa_level(void)
{
    const int cpu = srl__isa_level_ifma();
    return forced_level >= 0 && forced_level < cpu ? forced_level : cpu;
}

int srl__round_bulk_isa(int force)
{
    forced_level = force;
    return isa_level();
}

int srl__bulk_isa_level(void)
{
    return isa_level();
}

#define DISPATCH(name, args) SRL_ISA_CALL4(lvl, name, args)

static void lanes_fill(uint64_t *u, size_t k, srl__lanes *ln, int lvl)
{
    if (ln->kind == SRL_RNG_PCG32)
        DISPATCH(fill_pcg32, (u, k, ln));
    else
        DISPATCH(fill_pcg64, (u, k, ln));
}

void srl__draws(uint64_t *u, size_t k, srl_rng *g)
{
    srl__lanes ln;
    lanes_init(&ln, g);
    const int lvl = isa_level();
    for (size_t t0 = 0; t0 < k; t0 += SRL_TILE)
        lanes_fill(u + t0, k - t0 < SRL_TILE ? k - t0 : SRL_TILE, &ln, lvl);
    if (SRL__MUT(DRAW_HALF)) /* defect draw-half */
        for (size_t i = 1; i < k; i += 2)
            u[i] = u[i - 1];
    srl_rng_seek(g, g->counter + k);
}

/* srl__vparams.pat: f has the input format's exponent range (bias: the input's), subnormals,
 * infinities and no saturation. */
static bool pattern_format(const srl_format *f, int bias)
{
    return f->emax == bias && f->emin == 1 - bias && f->subnormals && f->inf && !f->saturate;
}

/* The vector kernels' view of f for an input format with mbits fraction bits, exponent bias
 * `bias` and smallest normal normal_min; lo_bits / hi_bits: the bits of the normal range's ends.
 * The subnormal range goes on the lanes when the format has one above the input's normal
 * range with q = 2^eq a normal input number, or starts exactly where the input's subnormals
 * end (bf16 of binary32); otherwise (a format whose subnormal grid straddles the input's
 * smallest normal) its values take the reference path. */
static void vparams_init(srl__vparams *vp, const srl_format *f, int mbits, int bias,
                         double normal_min, uint64_t lo_bits, uint64_t hi_bits)
{
    const int eq = f->emin - f->p + 1 + SRL__MUT(SUBNORMAL); /* defect subnormal */
    const bool via_exp = ldexp(1.0, eq) >= normal_min, via_shift = f->xmin == normal_min;
    vp->s = mbits + 1 - f->p;
    vp->lo = lo_bits;
    vp->hi = hi_bits;
    vp->sub = f->subnormals && f->xmin >= normal_min && vp->s > 0 && (via_exp || via_shift);
    vp->sub_c = (uint64_t)(eq + bias + mbits);
    vp->qbits = via_exp ? (uint64_t)(eq + bias) << mbits : 0;
    vp->pat = pattern_format(f, bias);
    vp->inf = (uint64_t)(2 * bias + 1) << mbits;
    vp->qnan = vp->inf | UINT64_C(1) << (mbits - 1);
    vp->zero_ref = 0;
}

/* Draws for a block: the pcg32 lanes (src 1) or the pcg64 lanes (src 2), from which the vector
 * kernels draw in registers; 0 for deterministic modes. */
static int block_lanes(srl__lanes *ln, const srl_rng *rng, uint64_t first, bool sto)
{
    memset(ln, 0, sizeof *ln);
    if (!sto)
        return 0;
    srl_rng g = *rng;
    srl_rng_seek(&g, first);
    lanes_init(ln, &g);
    return ln->kind == SRL_RNG_PCG32 ? 1 : 2;
}

/* Streaming stores pay off only when the output is far larger than the caches. */
#define SRL_NT_MIN_BYTES ((size_t)16 << 20)

static void store_fence(void)
{
#if SRL_MULTI_ISA
    _mm_sfence();
#endif
}

/* A block [first, first + n) on the vector path (round_bulk_isa.h): binary64 -> binary64,
 * binary32 -> binary32 and binary64 -> binary32. Per tile, the vector kernel, then the reference path for the flagged
 * elements (which the kernel wrote back unchanged, so x[i] still holds the input when y == x).
 * With streaming stores (large outputs: binary64 -> binary32 too, whose binary32 y is half the
 * traffic of the copy it would otherwise read in first), y must be 64-byte aligned: the first
 * h elements go through the reference path (with their own draws), the vector path starts at
 * first + h. (Streaming changes nothing a later read of this thread sees, so an aliased y and x
 * read the same as with ordinary stores; the fences order the stores for other threads.)
 * The kernels make their draws themselves (and put them in u where the reference path needs
 * them). */
#define DEFINE_VBLOCK(NAME, TILE, IN_T, OUT_T, MBITS, BIAS, NORMAL_MIN, BITS_T)                    \
    static void NAME(OUT_T *y, const IN_T *x, size_t n, const srl_format *f, srl_rounding m,      \
                     const srl_rng *rng, uint64_t first)                                          \
    {                                                                                             \
        const bool sto = srl_rounding_is_stochastic(m);                                           \
        const int lvl = isa_level();                                                              \
        const int nt = SRL_MULTI_ISA && (MBITS) + 1 > f->p && n * sizeof *y >= SRL_NT_MIN_BYTES && \
                       ((uintptr_t)y % sizeof *y) == 0;                                           \
        const size_t h = nt ? ((64 - ((uintptr_t)y & 63)) & 63) / sizeof *y : 0;                  \
        for (size_t i = 0; i < h; i++)                                                            \
            y[i] = (OUT_T)srl__round_one((double)x[i], f, m,                                      \
                                     sto ? srl_rng_draw_at(rng, first + i) : 0, rng, first + i);  \
        y += h, x += h, n -= h, first += h;                                                       \
        const IN_T lo_t = (IN_T)f->xmin > (NORMAL_MIN) ? (IN_T)f->xmin : (NORMAL_MIN);            \
        const IN_T hi_t = (IN_T)f->xmax;                                                          \
        BITS_T lo, hi;                                                                            \
        memcpy(&lo, &lo_t, sizeof lo);                                                            \
        memcpy(&hi, &hi_t, sizeof hi);                                                            \
        srl__vparams vp;                                                                          \
        vparams_init(&vp, f, MBITS, BIAS, NORMAL_MIN, lo, hi);                                    \
        srl__lanes ln;                                                                            \
        uint64_t small[2 * SRL_TILE_SMALL + SRL_TILE_SMALL / 8];                                  \
        const size_t cap = n <= SRL_TILE_SMALL ? SRL_TILE_SMALL : SRL_TILE;                       \
        uint64_t *u = cap == SRL_TILE ? malloc((2 * SRL_TILE + SRL_TILE / 8) * sizeof *u) : small;  \
        if (!u) { /* out of memory: the reference path, element by element, the same draws */    \
            for (size_t i = 0; i < n; i++)                                                        \
                y[i] = (OUT_T)srl__round_one((double)x[i], f, m,                                  \
                                             sto ? srl_rng_draw_at(rng, first + i) : 0, rng,      \
                                             first + i);                                          \
            return;                                                                               \
        }                                                                                         \
        unsigned char *flag = (unsigned char *)(u + 2 * cap);                                     \
        memset(u, 0, cap * sizeof *u);                                                            \
        const int src = block_lanes(&ln, rng, first, sto);                                        \
        ln.nok = u + cap;                                                                         \
        /* The pattern path of binary32 (bf16, tf32) flags no lane, and on whole groups of        \
         * sixteen writes neither u nor flag: one call takes them all, sparing the per-tile setup \
         * that cost as much as a 512-element tile's loop (BENCHMARKS.md). Same groups, same     \
         * draws; the rest (under sixteen) goes through a tile as before. */                      \
        size_t start = 0;                                                                         \
        if (vp.pat && vp.s > 0 && sizeof(IN_T) == 4 && sizeof(OUT_T) == 4 && n >= 16) {           \
            start = n / 16 * 16;                                                                  \
            (void)DISPATCH(TILE, (y, x, start, m, &vp, &ln, src, u, flag, nt));                   \
        }                                                                                         \
        for (size_t t0 = start; t0 < n; t0 += SRL_TILE) {                                         \
            const size_t k = n - t0 < SRL_TILE ? n - t0 : SRL_TILE;                               \
            if (vp.s <= 0) { /* the input's precision: only range and specials can change x */    \
                if (src != 0)                                                                     \
                    lanes_fill(u, k, &ln, lvl);                                                   \
                memset(flag, 1, k);                                                               \
            } else if (!DISPATCH(TILE, (y + t0, x + t0, k, m, &vp, &ln, src, u, flag, nt))) {     \
                continue;                                                                         \
            }                                                                                     \
            if (nt)                                                                               \
                store_fence(); /* order the streaming stores before the fix-ups below */          \
            for (size_t i = 0; i < k; i++)                                                        \
                if (flag[i])                                                                      \
                    y[t0 + i] = (OUT_T)srl__round_one((double)x[t0 + i], f, m, u[i], rng,         \
                                                  first + t0 + i);                                \
        }                                                                                         \
        if (nt)                                                                                   \
            store_fence();                                                                        \
        if (u != small)                                                                           \
            free(u);                                                                              \
    }

DEFINE_VBLOCK(block_d2d, tile_vec_d2d, double, double, 52, 1023, 0x1p-1022, uint64_t)
DEFINE_VBLOCK(block_f2f, tile_vec_f2f, float, float, 23, 127, 0x1p-126f, uint32_t)
DEFINE_VBLOCK(block_d2f, tile_vec_d2f, double, float, 52, 1023, 0x1p-1022, uint64_t)

/* ---- block-scaled binary32 (srlab/mx.h, src/round/mx_scale.h) ----
 * A tile of whole blocks: each block's scale exponent k from its largest magnitude, its values
 * times 2^-k (times 3/4 first with that rule) into a scratch tile, which the tile kernel rounds
 * into the unshifted element format E with the tile's draws; then each result times 2^k. The
 * kernel rounds a lane only when its scaled value lies in E's range (at least E's smallest
 * subnormal, 2^-9 or more for every MX element), where binary32's x 2^-k is exact (a product
 * that lost bits lies below 2^-126, and so is flagged); with the 3/4 rule the scratch is
 * binary64, where (3/4) x 2^-k is exact. So a lane's result is 2^k round_E(x 2^-k) =
 * round_{E_k}(x), the reference's, and the product by 2^k is exact (E_k's values are binary32
 * numbers up to its range). A flagged lane goes through the reference path with E_k, the input
 * itself and its own draw; a block with a NaN or an infinity gives NaN. A last tile that is not
 * whole groups of sixteen lanes takes the reference path. */
typedef struct srl__mx_args {
    const srl_format *elem;
    size_t bs;
    int rule;
} srl__mx_args;

/* One thread's workspace for a tile (SRL_MX_TILE elements in one pass, SRL_TILE in the other
 * path; no tile array on the stack). */
typedef struct mx_ws {
    uint64_t u[SRL_MX_TILE], nok[SRL_TILE];
    double td[SRL_TILE];
    float tf[SRL_MX_TILE];
    float xin[SRL_MX_TILE]; /* the tile's inputs, for the reference path (y may alias x) */
    int kb[SRL_MX_TILE];
    unsigned char flag[SRL_MX_TILE];
    unsigned char special[SRL_MX_TILE]; /* per block: a NaN or an infinity */
} mx_ws;

/* The flagged lanes of a tile (flag[i], its block not special) through the reference path:
 * element t0 + i rounded into E shifted by its block's k, from its input xi[i] (a copy when y
 * aliases x), with its draw u[i]. */
static void mx_fixups(float *y, const float *xi, size_t k, size_t t0,
                      uint64_t first, size_t bs, const int *kb, const unsigned char *special,
                      const unsigned char *flag, int flagged, int q34, const srl_format *elem,
                      srl_rounding m, const srl_rng *rng, const uint64_t *u, bool sto)
{
    int kf = 0, have_fs = 0; /* fs: E shifted by kf, made for the first lane that needs it */
    srl_format fs;
    for (size_t i = 0; flagged && i < k; i++) {
        uint64_t w8;
        if (i % 8 == 0 && i + 8 <= k && (memcpy(&w8, flag + i, 8), w8 == 0)) {
            i += 7; /* (eight lanes at a time: a tile often has one flagged lane) */
            continue;
        }
        const size_t b = i / bs;
        if (!flag[i] || special[b])
            continue;
        if (!have_fs || kf != kb[b]) {
            srl__format_shift(&fs, elem, kb[b]);
            kf = kb[b], have_fs = 1;
        }
        const double xv = q34 ? 0.75 * (double)xi[i] : (double)xi[i];
        y[i] = (float)srl__round_one(xv, &fs, m, sto ? u[i] : 0, rng, first + t0 + i);
    }
}

static void block_mx_f2f(float *y, uint8_t *scales, const float *x, size_t n,
                         const srl__mx_args *a, srl_rounding m, const srl_rng *rng,
                         uint64_t first, mx_ws *w)
{
    const size_t bs = a->bs;
    const bool sto = srl_rounding_is_stochastic(m), q34 = a->rule == SRL__MX_RULE_34;
    const int lvl = isa_level(), form = srl__mx_form(a->elem, a->rule, m.mode);
    srl__vparams vp;
    {
        const float lo_t = (float)a->elem->xmin > 0x1p-126f ? (float)a->elem->xmin : 0x1p-126f;
        const double lo_d = a->elem->xmin > 0x1p-1022 ? a->elem->xmin : 0x1p-1022;
        const float hi_t = (float)a->elem->xmax;
        const double hi_d = a->elem->xmax;
        uint64_t lo, hi;
        uint32_t lo32, hi32;
        memcpy(&lo32, &lo_t, 4), memcpy(&hi32, &hi_t, 4);
        memcpy(&lo, &lo_d, 8), memcpy(&hi, &hi_d, 8);
        if (q34)
            vparams_init(&vp, a->elem, 52, 1023, 0x1p-1022, lo, hi);
        else
            vparams_init(&vp, a->elem, 23, 127, 0x1p-126, lo32, hi32);
        vp.zero_ref = 1;
    }
    srl__lanes ln;
    const int src = block_lanes(&ln, rng, first, sto);
    uint64_t *const u = w->u;
    unsigned char *const flag = w->flag, *const special = w->special;
    float *const tf = w->tf, *const xin = w->xin;
    double *const td = w->td;
    int *const kb = w->kb;
    ln.nok = w->nok;
    memset(u, 0, sizeof w->u);
    const int alias = y < x + n && x < y + n; /* the reference path then needs a copy of x */
    const int nt = SRL_MULTI_ISA && n * sizeof *y >= SRL_NT_MIN_BYTES;
    const int onepass = (!q34 || form == 2) && bs % 16 == 0;
    const int direct = nt && lvl >= 2; /* (mx_tile streams y itself) */
    /* a tile copied out of the workspace keeps 512 elements (SRL_MX_TILE); one that streams
     * itself is long: off a 64-byte line each tile ends in a line stored plainly (out16) */
    const size_t mxt = nt && !direct ? SRL_TILE : SRL_MX_TILE;
    for (size_t t0 = 0, k; t0 < n; t0 += k) {
        /* one-pass tiles: mxt elements, or the whole blocks left; the rest (a last block cut
         * short) in the other path's tiles */
        k = n - t0 < SRL_TILE ? n - t0 : SRL_TILE;
        if (onepass) {
            const size_t kw = n - t0 < mxt ? n - t0 : mxt;
            k = kw >= bs ? kw - kw % bs : k;
        }
        if (alias)
            memcpy(xin, x + t0, k * sizeof *xin);
        int flagged;
        if (onepass && k % bs == 0) { /* the tile in one pass */
            memset(special, 0, k / bs);
            /* a large array: from x86-64-v4 the tile streams its output itself (mx_tile's nt);
             * below that, the tile goes into the workspace and is streamed out after its
             * fix-ups */
            float *yt = nt && !direct ? tf : y + t0;
            flagged = DISPATCH(mx_tile, (yt, scales ? scales + t0 / bs : NULL, kb, x + t0, k, bs,
                                         a->elem, a->rule, m, &ln, src, u, flag, direct));
            if (direct && flagged)
                store_fence(); /* order the streaming stores before the fix-ups below */
            if (flagged < 0) { /* (a mode the tile does not know: the reference path) */
                if (src != 0)
                    lanes_fill(u, k, &ln, lvl);
                memset(flag, 1, k);
                flagged = 1;
            }
            mx_fixups(yt, alias ? xin : x + t0, k, t0, first, bs, kb, special, flag,
                      flagged, q34, a->elem, m, rng, u, sto);
            if (nt && !direct)
                DISPATCH(stream_copy32, (y + t0, tf, k));
            continue;
        }
        /* the scales, and the scaled tile */
        DISPATCH(mx_prep, (tf, td, kb, special, scales ? scales + t0 / bs : NULL, x + t0, k, bs,
                           a->elem, a->rule));
        if (k % 16 == 0)
            flagged = q34 ? DISPATCH(tile_vec_d2f, (y + t0, td, k, m, &vp, &ln, src, u, flag, 0))
                          : DISPATCH(tile_vec_f2f, (y + t0, tf, k, m, &vp, &ln, src, u, flag, 0));
        else { /* the reference path for the whole tile, with the tile's draws */
            if (src != 0)
                lanes_fill(u, k, &ln, lvl);
            memset(flag, 1, k);
            flagged = 1;
        }
        DISPATCH(mx_back, (y + t0, k, bs, kb, special)); /* scale back */
        mx_fixups(y + t0, alias ? xin : x + t0, k, t0, first, bs, kb, special, flag,
                  flagged, q34, a->elem, m, rng, u, sto);
    }
    if (nt)
        store_fence();
}

int srl__bulk_mx_f2f(float *y, uint8_t *scales, const float *x, size_t n,
                     const srl_format *elem, size_t bs, int rule, srl_rounding m,
                     const srl_rng *rng)
{
    if (bs == 0 || bs > SRL_TILE || SRL_TILE % bs != 0 || !srl_format_fits_float(elem))
        return 0;
    const srl__mx_args a = {elem, bs, rule};
    const uint64_t c0 = rng && srl_rounding_is_stochastic(m) ? rng->counter : 0;
    const size_t nb = (n + bs - 1) / bs;
#if SRL_HAVE_OPENMP
    if (n >= SRL_BULK_OMP_MIN && srl__may_fork()) {
        /* one workspace per thread, taken before the region (none: the caller's other path) */
        mx_ws *ws = malloc((size_t)omp_get_max_threads() * sizeof *ws);
        if (!ws)
            return 0;
        _Pragma("omp parallel")
        {
            size_t lo, len;
            srl__share(nb, (size_t)omp_get_num_threads(), (size_t)omp_get_thread_num(), &lo,
                       &len);
            const size_t i0 = lo * bs, i1 = (lo + len) * bs < n ? (lo + len) * bs : n;
            if (len)
                block_mx_f2f(y + i0, scales ? scales + lo : NULL, x + i0, i1 - i0, &a, m, rng,
                             c0 + i0, &ws[omp_get_thread_num()]);
        }
        free(ws);
        return 1;
    }
#endif
    (void)nb;
    mx_ws *ws = malloc(sizeof *ws);
    if (!ws)
        return 0;
    block_mx_f2f(y, scales, x, n, &a, m, rng, c0, ws);
    free(ws);
    return 1;
}

/* Split [0, n) into one block per thread (sizes differ by at most one element). */
#if SRL_HAVE_OPENMP
/* Small arrays stay on the calling thread without entering a parallel region at all: even a
 * region whose `if` clause is false makes libgomp set up a one-thread team. So do calls from
 * inside another region, and with one thread (src/core/threads.h). */
#define RUN_BLOCKS(BLOCK, MIN)                                                                    \
    do {                                                                                          \
        const uint64_t c0 = rng ? rng->counter : 0;                                               \
        if (n < (MIN) || !srl__may_fork()) {                                                      \
            BLOCK(y, x, n, f, m, rng, c0);                                                        \
            break;                                                                                \
        }                                                                                         \
        _Pragma("omp parallel")                                                                   \
        {                                                                                         \
            const size_t nt = (size_t)omp_get_num_threads(), t = (size_t)omp_get_thread_num();    \
            size_t lo, len;                                                                       \
            srl__share(n, nt, t, &lo, &len);                                                      \
            BLOCK(y + lo, x + lo, len, f, m, rng, c0 + lo);                                       \
        }                                                                                         \
    } while (0)
#else
#define RUN_BLOCKS(BLOCK, MIN) BLOCK(y, x, n, f, m, rng, rng ? rng->counter : 0)
#endif

void srl__bulk_d2d(double *y, const double *x, size_t n, const srl_format *f, srl_rounding m,
                   const srl_rng *rng)
{
    RUN_BLOCKS(block_d2d, SRL_BULK_OMP_MIN);
}

void srl__bulk_f2f(float *y, const float *x, size_t n, const srl_format *f, srl_rounding m,
                   const srl_rng *rng, size_t fork_min)
{
    /* the pattern path's loop is a dozen instructions: it pays for a second thread later */
    const size_t min = fork_min                                 ? fork_min
                       : !pattern_format(f, 127) || f->p > 23 ? SRL_BULK_OMP_MIN
                       : srl_rounding_is_stochastic(m)        ? SRL_BULK_OMP_MIN_PAT_SR
                                                              : SRL_BULK_OMP_MAX;
    (void)min; /* (without OpenMP) */
    RUN_BLOCKS(block_f2f, min);
}

void srl__bulk_d2f(float *y, const double *x, size_t n, const srl_format *f, srl_rounding m,
                   const srl_rng *rng)
{
    RUN_BLOCKS(block_d2f, SRL_BULK_OMP_MIN);
}
