/* src/linalg/gemm32.c: the binary32 matrix product by packed panels -- the engine of
 * srl_gemm_f, srl_gemm_nt_f and srl_gemm_tn_f when products and accumulation are binary32 with
 * rn, and (x86-64-v4) for the emulated configurations whose products are exact in binary32
 * (src/linalg/kernels.c decides; include/srlab/kernels.h defines what is computed).
 *
 * Every output C[i, j] is its own sum in the order l = 0, 1, ..., k-1: s = start(0), then
 * s = s + RN(A[i, l] B[l, j]) (or one fma), each a binary32 hardware operation, which IS the
 * definition's operation here (src/linalg/kernels_impl.h, "native"); blocked:K restarts the sum
 * every K terms and joins the block sums in order. Nothing below changes that sequence; it
 * only decides which outputs share a register tile and where the operands are copied to:
 *   - the micro-kernels (src/linalg/gemm32_isa.h, one copy per instruction set) hold a tile of
 *     G32_MR rows by up to G32_NV vectors of C in registers, so that one load of B feeds G32_MR
 *     rows and one value of A a whole row of the tile;
 *   - the operands are copied ("packed") into the order the micro-kernel reads them: A by panels
 *     of G32_MR rows (l-major), B by panels of the tile's width; rows and columns past the
 *     matrix are zeros whose outputs are never stored. At x86-64-v4 the unfused kernels read A
 *     with every value packed as a vector of its 16 copies (gemm32_isa.h, G32_AW, says why),
 *     a panel at a time, which then passes over all of B's block;
 *   - k is cut into chunks of at most KC terms, so that a panel of B stays in the caches while
 *     MC rows of A pass over it (the goto/BLIS loop nest: columns by NC, terms by KC, rows by
 *     MC, then panels). Between two chunks a sum waits in C, a binary32 value read back
 *     unchanged (G32_LOAD), so the chunks are one sum; with blocked:K a chunk is a whole number
 *     of blocks, each started fresh and joined into C (G32_JOIN).
 * Emulated (srl__gemm32_emulate; gemm32_isa.h says why each step is exact): each product
 * rounded to nearest into bf16 or another format of binary32's exponent range, and each sum
 * rounded toward zero, to nearest or stochastically into the accumulator's format, through
 * AVX-512's rounding per instruction; the same loop nest, on tiles of 6 x 32 (SR: two rows at
 * a time, each output with its pcg32 state, positioned at its draw for the chunk's first term:
 * sr_states). A lane the vector code cannot decide (outside the accumulator's normal range, or
 * an SR tie of an inexact sum) is recomputed by the definition with its draw (g32_fix).
 * Threads: the rows of C are cut into units of a few panels, a band of them per thread, each
 * thread packing its own copy of B and taking its band's units first, then those left in the
 * others' bands (srl__bands, src/core/threads.h: the two vCPUs of the VMs we measure on run at
 * speeds up to 20% apart, and a woken worker starts 0.1 ms late); with too few rows, rectangles
 * (bands of rows or of columns, whichever split more evenly), one per thread. Each thread works
 * in its own workspace (srl__kern_ws: the thread's own, kept between calls); an output's sum is
 * the same whoever computes it. A caller's epilogue (gemm_ep.h) runs on each unit's rows as
 * they are finished. Without a workspace the caller falls back to another engine (kernels.c). */
#include "srlab/kernels.h"

#pragma GCC diagnostic ignored "-Wpsabi" /* the vectors never cross a call by value */

#include <math.h>
#include <stdatomic.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#include <threads.h>
#if defined(__x86_64__)
#include <immintrin.h>
#endif

#include "core/isa.h"
#include "core/pcg_impl.h"
#include "core/threads.h"
#include "linalg/kernels_impl.h"
#include "round/lanes.h" /* SRL_INLINE */
#include "round/round_core.h" /* srl__mode_stochastic */

#define G32_MR 6 /* rows of a tile */
enum { G32_FRESH = 0, G32_LOAD, G32_JOIN };

/* Blocking: terms per chunk, rows per packed block of A, columns per packed block of B. For the
 * largest tile (6 x 64), a chunk of A's panel is 6 KiB (the first-level cache; 96 KiB broadcast),
 * the packed block of A 96 KiB and the block of B 1 MiB (the second level). Larger blocks
 * (blocked:K with K > KC) keep the same footprint by taking fewer rows and columns. */
#define KC 256
#define MC 96
#define NC 1024

typedef void (*g32_fn)(size_t kc, const float *Ap, const float *Bp, float *C, size_t ldc,
                       int how);

/* ---- emulation (src/linalg/gemm32_isa.h, "emulated products and sums") ---- */
enum { G32_P_EXACT = SRL__G32_P_EXACT, G32_P_RN = SRL__G32_P_RN, G32_P_BF16 };
enum { G32_A_NAT = SRL__G32_A_NAT, G32_A_RZ = SRL__G32_A_RZ, G32_A_RN = SRL__G32_A_RN,
       G32_A_SR = SRL__G32_A_SR };
/* The emulated micro-kernels: name, product kind, accumulation kind. */
#define G32_EMU_KINDS(X)                                                                          \
    X(rn_nat, G32_P_RN, G32_A_NAT)                                                                \
    X(ex_rz, G32_P_EXACT, G32_A_RZ)                                                               \
    X(rn_rz, G32_P_RN, G32_A_RZ)                                                                  \
    X(ex_rn, G32_P_EXACT, G32_A_RN)                                                               \
    X(rn_rn, G32_P_RN, G32_A_RN)                                                                  \
    X(ex_sr, G32_P_EXACT, G32_A_SR)                                                               \
    X(rn_sr, G32_P_RN, G32_A_SR)
/* and with AVX-512 BF16, products rounded to bfloat16 by the hardware's conversion */
#define G32_EMU_KINDS_BF16(X)                                                                     \
    X(bf_nat, G32_P_BF16, G32_A_NAT)                                                              \
    X(bf_rz, G32_P_BF16, G32_A_RZ)                                                                \
    X(bf_rn, G32_P_BF16, G32_A_RN)                                                                \
    X(bf_sr, G32_P_BF16, G32_A_SR)

/* What an emulated micro-kernel reads: the call's roundings, the tile's place and valid lanes,
 * and for SR the pcg32 states of its outputs, [row][vector][half][8 lanes]. */
typedef struct g32_ectx {
    const srl__g32 *g;
    int ps, as, jk;         /* srl__g32's */
    uint32_t alo1, ahi;     /* the accumulator's normal magnitudes: [alo1 + 1, ahi] */
    uint64_t m2, c2;        /* pcg32: the states' step per draw */
    size_t i0, j0, l0;      /* output (i0, j0) is the tile's first; its first term is l0 */
    uint16_t valid[2];      /* the vectors' lanes that are outputs (columns before n) */
    uint16_t rows[G32_MR];  /* all ones for a row before m, else 0 */
    uint64_t st[G32_MR * 2 * 2 * 8];
} g32_ectx;
typedef void (*g32e_fn)(size_t kc, const float *Ap, const float *Bp, size_t bstride, float *C,
                        size_t ldc, int how, const g32_ectx *e);

/* Recompute the lanes `bad` of vector v (sixteen outputs from column j0 + 16 v) of row r, at
 * term l of the segment (join: the segment's join), by the definition: round_acc(s + t), with
 * the lane's draw for SR (st: the states before it). */
static void g32_fix(const g32_ectx *e, int r, int v, size_t l, int join, const float *s,
                    const float *t, float *out, unsigned bad, const uint64_t *st)
{
    const srl__g32 *g = e->g;
    const size_t i = e->i0 + (size_t)r;
    for (int q = 0; q < 16; q++) {
        if (!((bad >> q) & 1u))
            continue;
        const size_t j = e->j0 + 16 * (size_t)v + (size_t)q;
        uint64_t u = 0, idx = 0;
        if (!join && g->ak == G32_A_SR) {
            idx = g->c0 + (uint64_t)(i * g->n + j) * g->D + e->l0 + l;
            u = kern_draw(st[q], g->rng->g.p32.inc);
        }
        out[q] = (float)(join ? k_join(g->kc, (double)s[q], (double)t[q], 0, g->rng, 0)
                              : k_add(g->kc, (double)s[q], (double)t[q], u, g->rng, idx));
    }
}

typedef struct g32_level {
    int lanes, nv;      /* a tile is G32_MR rows by up to nv vectors of `lanes` columns */
    int aw;             /* floats per value of A in the products' (not fused) panels */
    void (*pack_wide)(float *pan, const float *const *src, size_t rows, size_t step, size_t kc);
    g32_fn kern[2][4];  /* [fused][vectors - 1] */
    g32e_fn emu[3][4];  /* [product kind][accumulation kind], x86-64-v4 */
} g32_level;

#define SRL_ISA_TEMPLATE "linalg/gemm32_isa.h"
#define SRL_ISA_BF16
#include "core/isa_instantiate.h"

static void level_get(g32_level *lv, int lvl)
{
#if SRL_MULTI_ISA
    if (lvl >= 3)
        return g32_level_v4b(lv);
    if (lvl == 2)
        return g32_level_v4(lv);
    if (lvl == 1)
        return g32_level_v3(lv);
#endif
    (void)lvl;
    g32_level_base(lv);
}

static size_t round_up(size_t x, size_t q)
{
    return (x + q - 1) / q * q;
}

bool srl__gemm32_takes(const srl__g32 *g, int lvl)
{
    const bool emu = g->pk != G32_P_EXACT || g->ak != G32_A_NAT;
    return (g->K >= g->k || g->K <= SRL__G32_KMAX) && (!g->fused || lvl >= 1) &&
           (!emu || lvl >= 2) && (g->ak != G32_A_SR || g->K >= g->k || g->jk == G32_A_NAT);
}

static bool f32_range(const srl_format *f)
{
    return f->emin == -126 && f->emax == 127 && f->subnormals && f->inf && !f->saturate;
}

static uint32_t f32_bits(float x)
{
    uint32_t b;
    memcpy(&b, &x, sizeof b);
    return b;
}

bool srl__gemm32_emulate(srl__g32 *a, const kcfg *k, int pbits)
{
    const srl_format *pf = k->pf, *af = k->af;
    const srl_mode pm = k->pm.mode, am = k->am.mode;
    /* the term: the product itself (fma; a product format that holds every product of the
     * call: binary32, or p >= pbits and binary32's range at least), or its RN */
    if (k->fma || (!srl__mode_stochastic(pm) && pf->p >= pbits && pf->emin <= -126 &&
                   pf->emax >= 127 && pf->subnormals && pf->inf && !pf->saturate)) {
        a->pk = G32_P_EXACT;
    } else if (pm == SRL_RN && f32_range(pf)) {
        a->pk = G32_P_RN;
        a->ps = 24 - pf->p;
    } else {
        return false;
    }
    if (af->p == 24 && f32_range(af) && am == SRL_RN) {
        a->ak = G32_A_NAT;
    } else if (af->p <= 22 && srl_format_fits_float(af) &&
               (am == SRL_RZ || am == SRL_RN || am == SRL_SR)) {
        a->ak = am == SRL_RZ ? G32_A_RZ : am == SRL_RN ? G32_A_RN : G32_A_SR;
        a->as = 24 - af->p;
        a->alo = f32_bits((float)af->xmin); /* exact: af is inside binary32 */
        a->ahi = f32_bits((float)af->xmax);
    } else {
        return false;
    }
    if (!k->join || (srl_format_equal(k->jf, af) && k->jm.mode == am && k->jm.r == k->am.r))
        a->jk = a->ak;
    else if (k->jf->p == 24 && f32_range(k->jf) && k->jm.mode == SRL_RN)
        a->jk = G32_A_NAT; /* promoted: the joins are binary32 sums */
    else
        return false;
    if (a->pk == G32_P_EXACT && a->ak == G32_A_NAT && a->jk != G32_A_NAT)
        return false;
    a->kc = k;
    return true;
}

/* The cuts of one call. */
typedef struct g32_plan {
    const srl__g32 *g;
    g32_level lv;
    size_t nr;           /* columns of a full tile */
    size_t aw;           /* floats per value of A in its packed panels (gemm32_isa.h, G32_AW) */
    size_t chunk;        /* terms per chunk */
    size_t mc, nc;       /* rows per block of A, columns per block of B */
    size_t parts;        /* rectangles of C */
    bool by_rows;        /* the rectangles are bands of rows (else of columns) */
    size_t ap_len, bp_len; /* floats of one part's packed A and B */
    bool emu;              /* emulated products or sums (tile_emu) */
    int pk;                /* srl__g32's, or G32_P_BF16 for bfloat16 products with AVX-512 BF16 */
    size_t group;          /* a panel's width is a multiple of `group` columns */
    g32_ectx ectx;         /* the emulated tiles' common part */
    _Atomic int nomem;     /* a part found no workspace */
} g32_plan;

/* A[i0 .. i0+mc) x [p0, p0+kc) into panels of G32_MR rows: Ap[(ip + r) kc ... ] (panel at ip*kc,
 * entry l*MR + r); rows past mc are zeros. */
static void pack_a(float *Ap, const srl__g32 *g, size_t i0, size_t mc, size_t p0, size_t kc)
{
    for (size_t ip = 0; ip < mc; ip += G32_MR) {
        float *pan = Ap + ip * kc;
        const size_t rows = mc - ip < G32_MR ? mc - ip : G32_MR;
        const float *src[G32_MR]; /* the panel's rows (a short panel repeats its first) */
        for (size_t r = 0; r < G32_MR; r++)
            src[r] = g->A + (i0 + ip + (r < rows ? r : 0)) * g->a_row + p0 * g->a_step;
        if (g->a_step == 1) { /* rows of A contiguous in l: six streams, stored l-major */
            size_t l = 0;
#if defined(__SSE2__) && G32_MR == 6 /* four terms at a time: a 4 x 4 transpose and a 2 x 4 */
            for (; l + 4 <= kc; l += 4) {
                __m128 c0 = _mm_loadu_ps(src[0] + l), c1 = _mm_loadu_ps(src[1] + l);
                __m128 c2 = _mm_loadu_ps(src[2] + l), c3 = _mm_loadu_ps(src[3] + l);
                const __m128 r4 = _mm_loadu_ps(src[4] + l), r5 = _mm_loadu_ps(src[5] + l);
                _MM_TRANSPOSE4_PS(c0, c1, c2, c3);
                const __m128 lo = _mm_unpacklo_ps(r4, r5), hi = _mm_unpackhi_ps(r4, r5);
                float *d = pan + l * G32_MR;
                _mm_storeu_ps(d, c0);
                _mm_storel_pi((__m64 *)(void *)(d + 4), lo);
                _mm_storeu_ps(d + 6, c1);
                _mm_storeh_pi((__m64 *)(void *)(d + 10), lo);
                _mm_storeu_ps(d + 12, c2);
                _mm_storel_pi((__m64 *)(void *)(d + 16), hi);
                _mm_storeu_ps(d + 18, c3);
                _mm_storeh_pi((__m64 *)(void *)(d + 22), hi);
            }
#endif
            for (; l < kc; l++)
                for (size_t r = 0; r < G32_MR; r++)
                    pan[l * G32_MR + r] = src[r][l];
        } else {
            for (size_t l = 0; l < kc; l++)
                for (size_t r = 0; r < G32_MR; r++)
                    pan[l * G32_MR + r] = src[r][l * g->a_step];
        }
        for (size_t r = rows; r < G32_MR; r++)
            for (size_t l = 0; l < kc; l++)
                pan[l * G32_MR + r] = 0.0f;
    }
}

/* A group of 32 columns of B's row for G32_P_BF16 (gemm32_isa.h, g32_terms): the first vector
 * holds columns 0, 16, 1, 17, ..., 7, 23 and the second 8, 24, ..., 15, 31, so that the
 * conversion's even halves are columns 0-15 and its odd halves 16-31 (column c goes to
 * (q / 8) 16 + (q % 8) 2 + hi for c = 16 hi + q: vector q / 8, pair q % 8, odd for hi). */
static void perm_group(float *restrict dst, const float *restrict src)
{
    for (size_t q = 0; q < 8; q++) {
        dst[2 * q] = src[q];
        dst[2 * q + 1] = src[16 + q];
        dst[16 + 2 * q] = src[8 + q];
        dst[16 + 2 * q + 1] = src[24 + q];
    }
}

/* B[p0, p0+kc) x [j0 .. j0+nc) into panels of nr columns (the last one of w columns rounded up
 * to a whole group, wp): panel at jp*kc, entry l*wp + c (c permuted within groups of 32 by
 * perm_group when `perm`); columns past nc are zeros. */
static void pack_b(float *Bp, const srl__g32 *g, size_t j0, size_t nc, size_t p0, size_t kc,
                   size_t nr, size_t group, bool perm)
{
    for (size_t jp = 0; jp < nc; jp += nr) {
        const size_t w = nc - jp < nr ? nc - jp : nr, wp = round_up(w, group);
        float *pan = Bp + jp * kc;
        if (perm) { /* a row at a time (into `row` unless whole and contiguous), interleaved */
            float row[64];
            for (size_t l = 0; l < kc; l++) {
                const float *src = g->B + (p0 + l) * g->b_row + (j0 + jp) * g->b_step;
                if (w < wp || g->b_step != 1) {
                    for (size_t c = 0; c < wp; c++)
                        row[c] = c < w ? src[c * g->b_step] : 0.0f;
                    src = row;
                }
                for (size_t c = 0; c < wp; c += 32)
                    perm_group(pan + l * wp + c, src + c);
            }
        } else if (g->b_step == 1) { /* rows of B contiguous in j */
            for (size_t l = 0; l < kc; l++) {
                memcpy(pan + l * wp, g->B + (p0 + l) * g->b_row + j0 + jp, w * sizeof(float));
                for (size_t c = w; c < wp; c++)
                    pan[l * wp + c] = 0.0f;
            }
        } else { /* B^T: a column of B contiguous in l */
            for (size_t c = 0; c < w; c++) {
                const float *src = g->B + (j0 + jp + c) * g->b_step + p0 * g->b_row;
                for (size_t l = 0; l < kc; l++)
                    pan[l * wp + c] = src[l * g->b_row];
            }
            for (size_t l = 0; l < kc; l++)
                for (size_t c = w; c < wp; c++)
                    pan[l * wp + c] = 0.0f;
        }
    }
}

/* The pcg32 states of the SR outputs of rows [i, i + 6) and columns [j, j + 32) at their term
 * l (draw c0 + (i n + j) D + l of output (i, j)), in g32_ectx's layout. */
static void sr_states(g32_ectx *e, const srl__g32 *g, size_t i, size_t j, size_t l)
{
    srl_rng r = *g->rng;
    srl_rng_seek(&r, g->c0 + (uint64_t)(i * g->n + j) * g->D + l);
    const uint64_t inc = r.g.p32.inc;
    uint64_t mD, cD, mN, cN;
    srl__lcg64_jump(&mD, &cD, SRL_PCG32_MULT, inc, 2 * g->D);            /* next column */
    srl__lcg64_jump(&mN, &cN, SRL_PCG32_MULT, inc, 2 * g->D * (uint64_t)g->n); /* next row */
    uint64_t row = r.g.p32.state;
    for (int q = 0; q < G32_MR; q++, row = row * mN + cN) {
        uint64_t st = row;
        for (int c = 0; c < 32; c++, st = st * mD + cD)
            e->st[(q * 2 + c / 16) * 16 + c % 16] = st;
    }
}

/* An emulated tile: rows [i, i + rows), columns [j, j + w) (w <= 64, B's panel wp wide, in halves
 * of 32 columns), one segment of kc terms from term p0 (one whole chunk: the recursive order). */
static void tile_emu(const g32_plan *pl, const float *Ap, const float *Bp, size_t kc, size_t p0,
                     size_t i, size_t rows, size_t j, size_t w, size_t wp)
{
    const srl__g32 *g = pl->g;
    g32_ectx e; /* the common part (sr_states writes st: 1.5 KiB not copied per tile) */
    memcpy(&e, &pl->ectx, offsetof(g32_ectx, st));
    e.i0 = i;
    for (int r = 0; r < G32_MR; r++)
        e.rows[r] = (size_t)r < rows ? 0xffffu : 0;
    const bool blocked = g->K < g->k;
    const size_t seg = blocked ? g->K : kc;
    const g32e_fn fn = pl->lv.emu[pl->pk][g->ak];
    for (size_t h = 0; h * 32 < w; h++) {
        const size_t jh = j + 32 * h, wh = w - 32 * h < 32 ? w - 32 * h : 32;
        e.j0 = jh;
        e.valid[0] = (uint16_t)(wh >= 16 ? 0xffffu : (1u << wh) - 1);
        e.valid[1] = (uint16_t)(wh <= 16 ? 0 : wh >= 32 ? 0xffffu : (1u << (wh - 16)) - 1);
        const bool full = rows == G32_MR && wh == 32;
        float tmp[G32_MR * 32];
        float *c = full ? g->C + i * g->n + jh : tmp;
        const size_t ldc = full ? g->n : 32;
        for (size_t s0 = 0; s0 < kc; s0 += seg) {
            const size_t len = kc - s0 < seg ? kc - s0 : seg;
            const int how = blocked ? (p0 + s0 == 0 ? G32_FRESH : G32_JOIN)
                                    : (p0 == 0 ? G32_FRESH : G32_LOAD);
            e.l0 = p0 + s0;
            if (g->ak == G32_A_SR)
                sr_states(&e, g, i, jh, e.l0);
            if (!full && how != G32_FRESH)
                for (size_t r = 0; r < rows; r++)
                    memcpy(tmp + r * 32, g->C + (i + r) * g->n + jh, wh * sizeof(float));
            fn(len, Ap + s0 * G32_MR, Bp + s0 * wp + 32 * h, wp, c, ldc, how, &e);
            if (!full)
                for (size_t r = 0; r < rows; r++)
                    memcpy(g->C + (i + r) * g->n + jh, tmp + r * 32, wh * sizeof(float));
        }
    }
}

/* One tile, rows [i, i + rows) and columns [j, j + w) of C, from the packed panels; a tile
 * that is not full runs on a copy. Segments: the whole chunk for the recursive order, else
 * each block of K terms inside it. */
static void tile(const g32_plan *pl, const float *Ap, const float *Bp, size_t kc, size_t p0,
                 size_t i, size_t rows, size_t j, size_t w)
{
    const srl__g32 *g = pl->g;
    const size_t lanes = (size_t)pl->lv.lanes, nv = (w + lanes - 1) / lanes, wp = nv * lanes;
    if (pl->emu)
        return tile_emu(pl, Ap, Bp, kc, p0, i, rows, j, w, round_up(w, pl->group));
    const g32_fn fn = pl->lv.kern[g->fused][nv - 1];
    const bool full = rows == G32_MR && w == wp;
    float tmp[G32_MR * 64];
    float *c = full ? g->C + i * g->n + j : tmp;
    const size_t ldc = full ? g->n : wp;
    const bool blocked = g->K < g->k;
    const size_t seg = blocked ? g->K : kc;
    for (size_t s0 = 0; s0 < kc; s0 += seg) {
        const size_t len = kc - s0 < seg ? kc - s0 : seg;
        const int how = blocked ? (p0 + s0 == 0 ? G32_FRESH : G32_JOIN)
                                : (p0 == 0 ? G32_FRESH : G32_LOAD);
        if (!full && how != G32_FRESH)
            for (size_t r = 0; r < rows; r++)
                memcpy(tmp + r * wp, g->C + (i + r) * g->n + j, w * sizeof(float));
        fn(len, Ap + s0 * G32_MR * pl->aw, Bp + s0 * wp, c, ldc, how);
        if (!full)
            for (size_t r = 0; r < rows; r++)
                memcpy(g->C + (i + r) * g->n + j, tmp + r * wp, w * sizeof(float));
    }
}

/* Rows [ic, ic + mc) by columns [jc, jc + nc) of C, terms [p0, p0 + kc): A's block packed into
 * Ap, then the tiles over B's packed panels Bp. */
static void block(const g32_plan *pl, float *Ap, const float *Bp, size_t ic, size_t mc, size_t jc,
                  size_t nc, size_t p0, size_t kc)
{
    const srl__g32 *g = pl->g;
    if (pl->aw > 1) { /* A broadcast, 16 times its size: a panel at a time, over all of B */
        for (size_t ip = 0; ip < mc; ip += G32_MR) {
            const size_t rows = mc - ip < G32_MR ? mc - ip : G32_MR;
            const float *src[G32_MR];
            for (size_t r = 0; r < G32_MR; r++)
                src[r] = g->A + (ic + ip + (r < rows ? r : 0)) * g->a_row + p0 * g->a_step;
            pl->lv.pack_wide(Ap, src, rows, g->a_step, kc);
            for (size_t jp = 0; jp < nc; jp += pl->nr)
                tile(pl, Ap, Bp + jp * kc, kc, p0, ic + ip, rows, jc + jp,
                     nc - jp < pl->nr ? nc - jp : pl->nr);
        }
        return;
    }
    pack_a(Ap, g, ic, mc, p0, kc);
    for (size_t jp = 0; jp < nc; jp += pl->nr) {
        const size_t w = nc - jp < pl->nr ? nc - jp : pl->nr;
        for (size_t ip = 0; ip < mc; ip += G32_MR)
            tile(pl, Ap + ip * kc, Bp + jp * kc, kc, p0, ic + ip,
                 mc - ip < G32_MR ? mc - ip : G32_MR, jc + jp, w);
    }
}

/* Rows [i0, i1) by columns [j0, j1) of C: the loop nest, in the thread's workspace. */
static void rect(g32_plan *pl, size_t i0, size_t i1, size_t j0, size_t j1)
{
    const srl__g32 *g = pl->g;
    float *Ap = srl__kern_ws(0, (pl->ap_len + pl->bp_len) * sizeof(float)), *Bp;
    if (!Ap) {
        pl->nomem = 1;
        return;
    }
    Bp = Ap + pl->ap_len;
    for (size_t jc = j0; jc < j1; jc += pl->nc) {
        const size_t nc = j1 - jc < pl->nc ? j1 - jc : pl->nc;
        for (size_t p0 = 0; p0 < g->k; p0 += pl->chunk) {
            const size_t kc = g->k - p0 < pl->chunk ? g->k - p0 : pl->chunk;
            pack_b(Bp, g, jc, nc, p0, kc, pl->nr, pl->group, pl->pk == G32_P_BF16);
            for (size_t ic = i0; ic < i1; ic += pl->mc) {
                const size_t mc = i1 - ic < pl->mc ? i1 - ic : pl->mc;
                block(pl, Ap, Bp, ic, mc, jc, nc, p0, kc);
            }
        }
    }
}

/* How evenly `units` split over `parts` threads: the mean share over the largest (1: evenly). */
static double split_balance(size_t units, size_t parts)
{
    const size_t used = units < parts ? units : parts;
    return (double)units / (double)(((units + used - 1) / used) * parts);
}

static void part(void *vpl, size_t t)
{
    g32_plan *pl = vpl;
    const srl__g32 *g = pl->g;
    size_t lo, len;
    if (pl->by_rows) {
        srl__share((g->m + G32_MR - 1) / G32_MR, pl->parts, t, &lo, &len);
        const size_t i1 = (lo + len) * G32_MR;
        rect(pl, lo * G32_MR, i1 < g->m ? i1 : g->m, 0, g->n);
    } else {
        srl__share((g->n + pl->nr - 1) / pl->nr, pl->parts, t, &lo, &len);
        const size_t j1 = (lo + len) * pl->nr;
        rect(pl, 0, g->m, lo * pl->nr, j1 < g->n ? j1 : g->n);
    }
}

/* ---- bands of rows with stealing (src/core/threads.h, srl__bands) ----
 * The rows of C are cut into units of a few panels; for every chunk s = (block of columns jc,
 * chunk of terms p0), in the loop nest's order, a thread packs B's chunk into its own workspace
 * (and reads its own copy while it computes: on the VM we measure on, tiles reading panels of B
 * that another core had packed were slower than packing twice), then takes the chunk's units,
 * its own band's first. A unit waits for its own previous chunk (its sums continue from C);
 * nothing else waits. Which thread computes a unit never changes a sum: same bits. */
typedef struct g32_steal {
    g32_plan *pl;
    size_t tu, units, nseq, nch;
    srl__bands *bands;    /* per chunk s */
    _Atomic size_t *done; /* per unit: chunks it has finished */
    _Atomic int *ep_status; /* an epilogue's failure (the last one); through a pointer, as
                              done: st is const in the threads, and C11 atomics are not */
} g32_steal;

static void steal_unit(const g32_steal *st, float *Ap, const float *Bp, size_t s, size_t u)
{
    g32_plan *pl = st->pl;
    const srl__g32 *g = pl->g;
    const size_t jc = s / st->nch * pl->nc, p0 = s % st->nch * pl->chunk;
    const size_t nc = g->n - jc < pl->nc ? g->n - jc : pl->nc;
    const size_t kc = g->k - p0 < pl->chunk ? g->k - p0 : pl->chunk;
    const size_t ic = u * st->tu * G32_MR;
    const size_t mc = g->m - ic < st->tu * G32_MR ? g->m - ic : st->tu * G32_MR;
    /* spin a while, then yield: the thread computing its previous chunk may wait for this CPU
     * (under SCHED_FIFO a spinning thread never gives it up) */
    for (unsigned spins = 0; atomic_load_explicit(&st->done[u], memory_order_acquire) < s;) {
        if (++spins < 4096) {
#if defined(__SSE2__)
            _mm_pause();
#endif
        } else {
            thrd_yield();
        }
    }
    block(pl, Ap, Bp, ic, mc, jc, nc, p0, kc);
    if (g->ep && p0 + kc == g->k) { /* these outputs are final: the epilogue, here */
        int e = SRL_OK;
        if (nc == g->n) {
            e = g->ep->fn(g->ep->ctx, ic * g->n, mc * g->n);
        } else {
            for (size_t r = ic; r < ic + mc; r++) {
                const int er = g->ep->fn(g->ep->ctx, r * g->n + jc, nc);
                e = er < e ? er : e;
            }
        }
        if (e != SRL_OK)
            atomic_store(st->ep_status, e);
    }
    atomic_store_explicit(&st->done[u], s + 1, memory_order_release);
}

static void steal_run(const g32_steal *st, size_t me)
{
    g32_plan *pl = st->pl;
    const srl__g32 *g = pl->g;
    float *Ap = srl__kern_ws(0, (pl->ap_len + pl->bp_len) * sizeof(float));
    if (!Ap)
        return; /* the others take this thread's units */
    float *Bp = Ap + pl->ap_len;
    for (size_t s = 0; s < st->nseq; s++) {
        if (!srl__bands_left(&st->bands[s])) /* a late thread packs nothing */
            continue;
        const size_t jc = s / st->nch * pl->nc, p0 = s % st->nch * pl->chunk;
        const size_t nc = g->n - jc < pl->nc ? g->n - jc : pl->nc;
        const size_t kc = g->k - p0 < pl->chunk ? g->k - p0 : pl->chunk;
        pack_b(Bp, g, jc, nc, p0, kc, pl->nr, pl->group, pl->pk == G32_P_BF16);
        for (size_t u; srl__bands_next(&st->bands[s], me, &u);)
            steal_unit(st, Ap, Bp, s, u);
    }
}

/* The bands on pl->parts threads; false (nothing computed) without memory for the counters. */
static bool steal(g32_plan *pl)
{
    const srl__g32 *g = pl->g;
    g32_steal st;
    st.pl = pl;
    const size_t urows = (g->m + G32_MR - 1) / G32_MR;
    /* about 8 units per thread, at most a block of A */
    size_t tu = (urows + 8 * pl->parts - 1) / (8 * pl->parts);
    tu = tu < 1 ? 1 : tu > pl->mc / G32_MR ? pl->mc / G32_MR : tu;
    st.tu = tu;
    st.units = (urows + tu - 1) / tu;
    st.nch = (g->k + pl->chunk - 1) / pl->chunk;
    st.nseq = (g->n + pl->nc - 1) / pl->nc * st.nch;
    const size_t kc = pl->chunk < g->k ? pl->chunk : g->k;
    pl->ap_len = round_up((pl->aw > 1 ? pl->aw : tu) * G32_MR * kc, 16); /* a block, or a panel */
    pl->bp_len = round_up(g->n < pl->nc ? g->n : pl->nc, pl->nr) * kc;
    st.bands = st.units < ((size_t)1 << 32) ? malloc(st.nseq * sizeof *st.bands) : NULL;
    st.done = malloc(st.units * sizeof *st.done);
    if (!st.bands || !st.done) {
        free(st.bands);
        free((void *)st.done);
        return false;
    }
    for (size_t s = 0; s < st.nseq; s++)
        srl__bands_init(&st.bands[s], st.units, pl->parts);
    for (size_t u = 0; u < st.units; u++)
        atomic_init(&st.done[u], 0);
    _Atomic int ep_status;
    atomic_init(&ep_status, SRL_OK);
    st.ep_status = &ep_status;
#if SRL_HAVE_OPENMP
#pragma omp parallel num_threads((int)pl->parts)
#endif
    steal_run(&st, srl__thread_num());
    for (size_t u = 0; u < st.units; u++) /* every unit, unless no thread found a workspace */
        if (atomic_load_explicit(&st.done[u], memory_order_relaxed) != st.nseq)
            pl->nomem = 1;
    if (g->ep && !pl->nomem) {
        g->ep->done = true;
        g->ep->status = atomic_load(&ep_status);
    }
    free(st.bands);
    free((void *)st.done);
    return true;
}

int srl__gemm32(const srl__g32 *g, int lvl, bool par)
{
    g32_plan pl;
    memset(&pl, 0, sizeof pl);
    atomic_init(&pl.nomem, 0);
    pl.g = g;
    level_get(&pl.lv, lvl);
    pl.nr = (size_t)(pl.lv.lanes * pl.lv.nv);
    pl.emu = g->pk != G32_P_EXACT || g->ak != G32_A_NAT;
    pl.group = pl.emu ? 32 : (size_t)pl.lv.lanes; /* the emulated tiles take 32 columns */
    pl.pk = g->pk == G32_P_RN && g->ps == 16 && lvl >= 3 ? G32_P_BF16 : g->pk;
    pl.aw = !pl.emu && !g->fused ? (size_t)pl.lv.aw : 1;
    if (pl.emu) {
        g32_ectx *e = &pl.ectx;
        e->g = g;
        e->ps = g->ps;
        e->as = g->as;
        e->jk = g->jk;
        e->alo1 = g->alo - 1;
        e->ahi = g->ahi;
        if (g->ak == G32_A_SR)
            srl__lcg64_jump(&e->m2, &e->c2, SRL_PCG32_MULT, g->rng->g.p32.inc, 2);
    }
    /* chunks: of about equal length up to KC (recursive), or whole blocks */
    if (g->K >= g->k) {
        const size_t nch = (g->k + KC - 1) / KC;
        pl.chunk = (g->k + nch - 1) / nch;
    } else {
        pl.chunk = g->K <= KC ? g->K * (KC / g->K) : g->K;
    }
    const size_t scale = pl.chunk > KC ? pl.chunk / KC : 1;
    pl.mc = MC / scale > G32_MR ? MC / scale / G32_MR * G32_MR : G32_MR;
    pl.nc = NC / scale > pl.nr ? NC / scale / pl.nr * pl.nr : pl.nr;
    pl.parts = 1;
#if SRL_HAVE_OPENMP
    if (par && srl__may_fork())
        pl.parts = (size_t)omp_get_max_threads();
#else
    (void)par;
#endif
    /* bands of rows when C is taller than wide (each part then packs all of B), else of columns,
     * unless the other way splits more evenly: C of 96 x 288 (a GPT's Wgrad of qkvw at width 96)
     * is 5 bands of 64 columns, 3 and 2 on two threads, but 16 bands of 6 rows, 8 and 8 */
    const size_t urows = (g->m + G32_MR - 1) / G32_MR, ucols = (g->n + pl.nr - 1) / pl.nr;
    pl.by_rows = g->m >= g->n;
    if (pl.parts > 1 && split_balance(urows, pl.parts) != split_balance(ucols, pl.parts))
        pl.by_rows = split_balance(urows, pl.parts) > split_balance(ucols, pl.parts);
    if (pl.parts > 1 && pl.by_rows && urows >= 2 * pl.parts && steal(&pl))
        return pl.nomem ? SRL_ENOMEM : SRL_OK;
    const size_t units = pl.by_rows ? urows : ucols;
    if (pl.parts > units)
        pl.parts = units;
    /* one part's workspace, for its largest rectangle */
    const size_t kc = pl.chunk < g->k ? pl.chunk : g->k;
    const size_t rows = pl.by_rows ? (units + pl.parts - 1) / pl.parts * G32_MR : g->m;
    const size_t cols = pl.by_rows ? g->n : (units + pl.parts - 1) / pl.parts * pl.nr;
    pl.ap_len = pl.aw > 1 ? pl.aw * G32_MR * kc /* a panel at a time (block) */
                          : round_up(rows < pl.mc ? rows : pl.mc, G32_MR) * kc;
    pl.bp_len = round_up(cols < pl.nc ? cols : pl.nc, pl.nr) * kc;
    pl.ap_len = round_up(pl.ap_len, 16); /* B's panels on 64-byte lines */
    srl__kern_for(pl.parts, pl.parts > 1, part, &pl);
    return pl.nomem ? SRL_ENOMEM : SRL_OK;
}
