/* src/linalg/gemm32.c: the native binary32 matrix product by packed panels -- the engine of
 * srl_gemm_f, srl_gemm_nt_f and srl_gemm_tn_f when products and accumulation are binary32 with
 * rn (src/linalg/kernels.c decides; include/srlab/kernels.h defines what is computed).
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
 *     matrix are zeros whose outputs are never stored;
 *   - k is cut into chunks of at most KC terms, so that a panel of B stays in the caches while
 *     MC rows of A pass over it (the goto/BLIS loop nest: columns by NC, terms by KC, rows by
 *     MC, then panels). Between two chunks a sum waits in C, a binary32 value read back
 *     unchanged (G32_LOAD), so the chunks are one sum; with blocked:K a chunk is a whole number
 *     of blocks, each started fresh and joined into C (G32_JOIN).
 * Threads: the outputs are cut into as many rectangles as there are threads (bands of rows, or
 * of columns when C is wider than tall), each packed and computed by its own thread in its own
 * workspace; an output's sum is the same whoever computes it. Workspace: one allocation per
 * call; without it the caller falls back to another engine (kernels.c). */
#include "srlab/kernels.h"

#pragma GCC diagnostic ignored "-Wpsabi" /* the vectors never cross a call by value */

#include <math.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#if defined(__x86_64__)
#include <immintrin.h>
#endif

#include "core/isa.h"
#include "core/threads.h"
#include "linalg/kernels_impl.h"
#include "round/lanes.h" /* SRL_INLINE */

#define G32_MR 6 /* rows of a tile */
enum { G32_FRESH = 0, G32_LOAD, G32_JOIN };

/* Blocking: terms per chunk, rows per packed block of A, columns per packed block of B. For the
 * largest tile (6 x 64), a chunk of A's panel is 6 KiB (the first-level cache), the packed block
 * of A 96 KiB and the block of B 1 MiB (the second level). Larger blocks (blocked:K with K > KC)
 * keep the same footprint by taking fewer rows and columns. */
#define KC 256
#define MC 96
#define NC 1024

typedef void (*g32_fn)(size_t kc, const float *Ap, const float *Bp, float *C, size_t ldc,
                       int how);
typedef struct g32_level {
    int lanes, nv;      /* a tile is G32_MR rows by up to nv vectors of `lanes` columns */
    g32_fn kern[2][4];  /* [fused][vectors - 1] */
} g32_level;

#define SRL_ISA_TEMPLATE "linalg/gemm32_isa.h"
#include "core/isa_instantiate.h"

static void level_get(g32_level *lv, int lvl)
{
#if SRL_MULTI_ISA
    if (lvl >= 2)
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
    return (g->K >= g->k || g->K <= SRL__G32_KMAX) && (!g->fused || lvl >= 1);
}

/* The cuts of one call. */
typedef struct g32_plan {
    const srl__g32 *g;
    g32_level lv;
    size_t nr;           /* columns of a full tile */
    size_t chunk;        /* terms per chunk */
    size_t mc, nc;       /* rows per block of A, columns per block of B */
    size_t parts;        /* rectangles of C */
    bool by_rows;        /* the rectangles are bands of rows (else of columns) */
    size_t ap_len, bp_len; /* floats of one part's packed A and B */
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
            for (size_t l = 0; l < kc; l++)
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

/* B[p0, p0+kc) x [j0 .. j0+nc) into panels of nr columns (the last one of w columns rounded up
 * to whole vectors, wp): panel at jp*kc, entry l*wp + c; columns past nc are zeros. */
static void pack_b(float *Bp, const srl__g32 *g, size_t j0, size_t nc, size_t p0, size_t kc,
                   size_t nr, size_t lanes)
{
    for (size_t jp = 0; jp < nc; jp += nr) {
        const size_t w = nc - jp < nr ? nc - jp : nr, wp = round_up(w, lanes);
        float *pan = Bp + jp * kc;
        if (g->b_step == 1) { /* rows of B contiguous in j */
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

/* One tile, rows [i, i + rows) and columns [j, j + w) of C, from the packed panels; a tile
 * that is not full runs on a copy. Segments: the whole chunk for the recursive order, else
 * each block of K terms inside it. */
static void tile(const g32_plan *pl, const float *Ap, const float *Bp, size_t kc, size_t p0,
                 size_t i, size_t rows, size_t j, size_t w)
{
    const srl__g32 *g = pl->g;
    const size_t lanes = (size_t)pl->lv.lanes, nv = (w + lanes - 1) / lanes, wp = nv * lanes;
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
        fn(len, Ap + s0 * G32_MR, Bp + s0 * wp, c, ldc, how);
        if (!full)
            for (size_t r = 0; r < rows; r++)
                memcpy(g->C + (i + r) * g->n + j, tmp + r * wp, w * sizeof(float));
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
            pack_b(Bp, g, jc, nc, p0, kc, pl->nr, (size_t)pl->lv.lanes);
            for (size_t ic = i0; ic < i1; ic += pl->mc) {
                const size_t mc = i1 - ic < pl->mc ? i1 - ic : pl->mc;
                pack_a(Ap, g, ic, mc, p0, kc);
                for (size_t jp = 0; jp < nc; jp += pl->nr) {
                    const size_t w = nc - jp < pl->nr ? nc - jp : pl->nr;
                    for (size_t ip = 0; ip < mc; ip += G32_MR)
                        tile(pl, Ap + ip * kc, Bp + jp * kc, kc, p0, ic + ip,
                             mc - ip < G32_MR ? mc - ip : G32_MR, jc + jp, w);
                }
            }
        }
    }
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

int srl__gemm32(const srl__g32 *g, int lvl, bool par)
{
    g32_plan pl;
    memset(&pl, 0, sizeof pl);
    atomic_init(&pl.nomem, 0);
    pl.g = g;
    level_get(&pl.lv, lvl);
    pl.nr = (size_t)(pl.lv.lanes * pl.lv.nv);
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
    pl.by_rows = g->m >= g->n;
    const size_t units = pl.by_rows ? (g->m + G32_MR - 1) / G32_MR : (g->n + pl.nr - 1) / pl.nr;
    if (pl.parts > units)
        pl.parts = units;
    /* one part's workspace, for its largest rectangle */
    const size_t kc = pl.chunk < g->k ? pl.chunk : g->k;
    const size_t rows = pl.by_rows ? (units + pl.parts - 1) / pl.parts * G32_MR : g->m;
    const size_t cols = pl.by_rows ? g->n : (units + pl.parts - 1) / pl.parts * pl.nr;
    pl.ap_len = round_up(rows < pl.mc ? rows : pl.mc, G32_MR) * kc;
    pl.bp_len = round_up(cols < pl.nc ? cols : pl.nc, pl.nr) * kc;
    pl.ap_len = round_up(pl.ap_len, 16); /* B's panels on 64-byte lines */
    srl__kern_for(pl.parts, pl.parts > 1, part, &pl);
    return pl.nomem ? SRL_ENOMEM : SRL_OK;
}
