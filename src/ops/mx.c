/* src/ops/mx.c: block-scaled formats (OCP Microscaling v1.0, NVFP4): presets, scale rules and
 * exact quantization (include/srlab/mx.h; docs/mx.md).
 *
 * An MX block is rounded into its element format shifted by the block's scale exponent
 * (src/round/mx_scale.h): the one rounding of src/round, element by element, with the array's
 * draws. NVFP4's scale is not a power of two, so its elements are the exact quotients
 * x / (s_b s_t) rounded once (srl_op_apply_draw, src/ops/ops.c). The binary32 path of the MX
 * formats runs on the bulk kernels (srl__bulk_mx_f2f, src/round/round_bulk.c), which take the
 * same decisions with the same draws; tests/ops/test_mx_oracle.c checks both against MPFR.
 *
 * Threads: blocks are split over the threads (srl__share over whole blocks); each thread's copy
 * of the stream starts at the draw of its first element, so the result is the same for any
 * thread count. Not here: the GEMM on block-scaled operands (src/linalg/mx_gemm.c). */
#include "srlab/mx.h"

#include <float.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <threads.h>
#if defined(__x86_64__)
#include <immintrin.h> /* (mx_nv_isa.h's AVX-512 comparisons and streaming stores) */
#endif

#include "core/mutant.h"
#include "core/pcg_impl.h"
#include "core/threads.h"
#include "ops/mx_impl.h"
#include "round/lanes.h"
#include "round/mx_scale.h"
#include "round/round_bulk.h"
#include "round/round_core.h"
#include "srlab/ops.h"
#include "srlab/rounding.h"

_Static_assert(SRL_MX_OCP == SRL__MX_RULE_OCP && SRL_MX_34 == SRL__MX_RULE_34 &&
                   SRL_MX_CEIL == SRL__MX_RULE_CEIL,
               "the rule codes of src/round/mx_scale.h");

/* ---- presets: one table ---- */

typedef struct mx_row {
    const char *name, *alias, *elem; /* elem: a format spec */
    int block;
    srl_mx_scale_kind scale;
} mx_row;

static const mx_row rows[] = {
    {"mxfp8-e4m3", "mxfp8", "e4m3,saturate=on", 32, SRL_MX_E8M0},
    {"mxfp8-e5m2", NULL, "e5m2,saturate=on", 32, SRL_MX_E8M0},
    {"mxfp6-e3m2", "mxfp6", "e3m2", 32, SRL_MX_E8M0},
    {"mxfp6-e2m3", NULL, "e2m3", 32, SRL_MX_E8M0},
    {"mxfp4", NULL, "e2m1", 32, SRL_MX_E8M0},
    {"mxint8", NULL, "int8", 32, SRL_MX_E8M0},
    {"nvfp4", NULL, "e2m1", 16, SRL_MX_E4M3_T32},
};
#define NROWS (sizeof rows / sizeof rows[0])

static srl_mx_format presets[NROWS];
static once_flag presets_once = ONCE_FLAG_INIT; /* built once, whichever thread asks first */

static void build_presets(void)
{
    for (size_t i = 0; i < NROWS; i++) {
        srl_mx_format *f = &presets[i];
        memset(f, 0, sizeof *f);
        snprintf(f->name, sizeof f->name, "%s", rows[i].name);
        snprintf(f->elem_name, sizeof f->elem_name, "%s", rows[i].elem);
        if (srl_format_parse(&f->elem, rows[i].elem, NULL) != SRL_OK)
            continue; /* (a row of this table is wrong: block 0, which test_mx_oracle catches) */
        f->block = rows[i].block;
        f->scale = rows[i].scale;
    }
}

size_t srl_mx_preset_count(void)
{
    return NROWS;
}

const srl_mx_format *srl_mx_preset(size_t i)
{
    call_once(&presets_once, build_presets);
    return i < NROWS ? &presets[i] : NULL;
}

/* Whether s[0..len) is name in any case (MXFP4, NVFP4: how the papers write them). */
static bool same_name(const char *name, const char *s, size_t len)
{
    if (!name || strlen(name) != len)
        return false;
    for (size_t i = 0; i < len; i++)
        if ((s[i] >= 'A' && s[i] <= 'Z' ? s[i] - 'A' + 'a' : s[i]) != name[i])
            return false;
    return true;
}

static const mx_row *find_row(const char *s, size_t len)
{
    for (size_t i = 0; i < NROWS; i++)
        if (same_name(rows[i].name, s, len) || same_name(rows[i].alias, s, len))
            return &rows[i];
    return NULL;
}

bool srl_mx_is_name(const char *spec)
{
    if (!spec)
        return false;
    const char *c = strchr(spec, ',');
    return find_row(spec, c ? (size_t)(c - spec) : strlen(spec)) != NULL;
}

static const char known[] = "mxfp8 (mxfp8-e4m3), mxfp8-e5m2, mxfp6 (mxfp6-e3m2), mxfp6-e2m3, "
                            "mxfp4, mxint8, nvfp4, optionally with ,block=B";

int srl_mx_parse(srl_mx_format *f, const char *spec, srl_err *err)
{
    if (!spec || !*spec)
        return srl_err_set(err, SRL_EPARSE, "empty block format name; known: %s", known);
    const char *c = strchr(spec, ',');
    const size_t len = c ? (size_t)(c - spec) : strlen(spec);
    const mx_row *row = find_row(spec, len);
    if (!row)
        return srl_err_set(err, SRL_EPARSE, "unknown block format '%.*s'; known: %s",
                           (int)(len > 40 ? 40 : len), spec, known);
    *f = *srl_mx_preset((size_t)(row - rows));
    if (!c)
        return SRL_OK;
    const char *v = c + 1;
    if (strncmp(v, "block=", 6) != 0)
        return srl_err_set(err, SRL_EPARSE, "block format '%s': unknown key '%s' (only block=B)",
                           spec, v);
    char *end;
    const long b = strtol(v + 6, &end, 10);
    if (end == v + 6 || *end || b < 1 || b > 4096)
        return srl_err_set(err, SRL_EPARSE,
                           "block format '%s': block must be an integer from 1 to 4096", spec);
    f->block = (int)b;
    snprintf(f->name, sizeof f->name, "%s,block=%ld", row->name, b);
    return SRL_OK;
}

int srl_mx_rule_parse(srl_mx_rule *r, const char *s, srl_err *err)
{
    static const char *const names[] = {"ocp", "3/4", "ceil"};
    for (int i = 0; i < SRL_MX_RULE_COUNT; i++)
        if (s && !strcmp(s, names[i])) {
            *r = (srl_mx_rule)i;
            return SRL_OK;
        }
    return srl_err_set(err, SRL_EPARSE, "unknown scale rule '%s' (ocp, 3/4, ceil)", s ? s : "");
}

const char *srl_mx_rule_name(srl_mx_rule r)
{
    return r == SRL_MX_OCP ? "ocp" : r == SRL_MX_34 ? "3/4" : r == SRL_MX_CEIL ? "ceil" : "?";
}

double srl_mx_gain(const srl_mx_format *f, srl_mx_rule r)
{
    return f->scale == SRL_MX_E8M0 && r == SRL_MX_34 ? 0.75 : 1.0;
}

/* ---- scales ---- */

/* NVFP4's target for an element's largest magnitude: 6 (E2M1's largest), 4.5 under the 3/4
 * rule (so that s_b's rounding, at most a factor 1 + 2^-4, cannot take an element past 6). */
static double nv_target(srl_mx_rule r)
{
    return r == SRL_MX_34 ? 4.5 : 6.0;
}

/* NVFP4's tensor scale for a tensor whose largest finite magnitude is amax. */
static double tensor_scale_of(double amax, srl_mx_rule r)
{
    if (amax == 0)
        return 1.0;
    const double st = srl_div(amax, 448.0 * nv_target(r), srl_format_find("fp32"), SRL_ROUND_RN,
                              NULL);
    return st > 0 ? st : 0x1p-149;
}

double srl_mx_tensor_scale(const double *x, size_t n, const srl_mx_format *f, srl_mx_rule r)
{
    if (f->scale == SRL_MX_E8M0)
        return 1.0;
    double amax = 0;
    for (size_t i = 0; i < n; i++)
        if (isfinite(x[i]) && fabs(x[i]) > amax)
            amax = fabs(x[i]);
    return tensor_scale_of(amax, r);
}

/* The largest magnitude of a block; -1 when it holds a NaN or an infinity. */
static double block_amax(const double *x, size_t n)
{
    double amax = 0;
    bool bad = false;
    for (size_t i = 0; i < n; i++) {
        const double a = fabs(x[i]);
        bad |= !(a <= DBL_MAX);
        amax = a > amax ? a : amax;
    }
    return bad ? -1 : amax;
}

/* amax / d (d > 0 with at most 28 significant bits, amax >= 0 a binary32 number) rounded once
 * into E4M3 (saturating at 448), to nearest even or up, without srl_div: qa, the quotient q
 * rounded to binary64, picks E4M3's neighbours lo <= qa < hi = lo + 2^e. q < hi (rounding is
 * monotone and hi is a binary64 number), and q < lo only within rounding error of lo, where both
 * rules give lo; amax against the exact products lo d and (lo + 2^(e-1)) d (at most 33 bits)
 * decides each rule. */
static double nv_sb(double amax, double d, bool up)
{
    const double qa = amax / d; /* (one division per block) */
    if (qa >= 448)
        return 448; /* (q >= 464 overflows to 448 in E4M3's saturation, 448 <= q < 464 is 448) */
    int e = -9; /* the spacing 2^e of E4M3 at qa: subnormal 2^-9, else 2^(ilogb(qa) - 3) */
    uint64_t b;
    memcpy(&b, &qa, sizeof b);
    if (qa >= 0x1p-6)
        e = (int)(b >> 52) - 1023 - 3;
    const uint64_t bs = (uint64_t)(1023 + e) << 52, bi = (uint64_t)(1023 - e) << 52;
    double sp, isp;
    memcpy(&sp, &bs, sizeof sp);
    memcpy(&isp, &bi, sizeof isp);
    const uint64_t L = (uint64_t)(qa * isp); /* lo = L 2^e (L < 16) */
    const double lo = (double)L * sp, hi = lo + sp;
    if (up)
        return amax > lo * d ? hi : lo;
    const double mid = (lo + sp * 0.5) * d;
    return amax > mid ? hi : amax < mid ? lo : L % 2 == 0 ? lo : hi;
}

/* E4M3's code of a value of E4M3 in [0, 448]. */
static uint8_t nv_code(double sb)
{
    if (sb < 0x1p-6)
        return (uint8_t)(sb * 0x1p9); /* subnormal: exponent field 0 */
    uint64_t b;
    memcpy(&b, &sb, sizeof b);
    const int e = (int)(b >> 52) - 1023;                          /* sb = 1.fff 2^e */
    return (uint8_t)((e + 7) << 3 | (int)((b >> 49) & 7)); /* the top 3 fraction bits */
}

static void scale_of(srl_mx_scale *s, double amax, const srl_mx_format *f, srl_mx_rule r,
                     double ts)
{
    memset(s, 0, sizeof *s);
    if (amax < 0) {
        s->nan = true;
        s->value = s->sb = NAN;
        s->code = f->scale == SRL_MX_E8M0 ? 0xFF : 0x7F;
        return;
    }
    if (f->scale == SRL_MX_E8M0) {
        s->k = srl__mx_k(amax, &f->elem, (int)r);
        s->value = s->sb = ldexp(1.0, s->k);
        s->code = (uint8_t)(s->k + 127);
        return;
    }
    /* NVFP4: s_b = round(amax / (t s_t)) into E4M3, the exact quotient rounded once */
    s->sb = nv_sb(amax, nv_target(r) * ts, r == SRL_MX_CEIL); /* t ts: exact (4 bits times 24) */
    s->value = s->sb * ts;                                       /* exact: 4 bits times 24 */
    s->code = nv_code(s->sb);
}

int srl_mx_block_scale(srl_mx_scale *s, const double *x, size_t n, const srl_mx_format *f,
                       srl_mx_rule r, double ts)
{
    if (!s || !f || (n && !x) || (unsigned)r >= SRL_MX_RULE_COUNT || n > (size_t)f->block)
        return SRL_EINVAL;
    scale_of(s, block_amax(x, n), f, r, ts);
    return SRL_OK;
}

/* ---- one element ---- */

/* Element x of a block with scale s (fs: the element format shifted by s->k), with draw u of
 * index `index`; NVFP4 gives e s_b s_t, or e s_b when `unscaled`. */
static double quantize_one(double x, const srl_mx_scale *s, const srl_format *fs,
                           const srl_mx_format *f, srl_mx_rule r, srl_rounding m, uint64_t u,
                           const srl_rng *rng, uint64_t index, bool unscaled)
{
    if (s->nan)
        return NAN;
    if (f->scale == SRL_MX_E8M0)
        return r == SRL_MX_34 ? srl_op_apply_draw(SRL_MUL, x, 0.75, 0, fs, m, u, rng, index)
                              : srl__round_one(x, fs, m, u, rng, index);
    if (s->sb == 0)
        return 0.0 * x; /* (signed zero) */
    return srl_op_apply_draw(SRL_DIV, x, s->value, 0, &f->elem, m, u, rng, index) *
           (unscaled ? s->sb : s->value);
}

/* ---- arrays ---- */

/* Blocks [b0, b1) of x (n elements in all), on the calling thread; g positioned at the draw of
 * element b0 * block. */
static void run_blocks(double *y, uint8_t *scales, const double *x, size_t n, size_t b0,
                       size_t b1, double ts, const srl_mx_format *f, srl_mx_rule r,
                       srl_rounding m, srl_rng g, bool sto, bool unscaled)
{
    const size_t bs = (size_t)f->block;
    for (size_t b = b0; b < b1; b++) {
        const size_t i0 = b * bs, len = n - i0 < bs ? n - i0 : bs;
        srl_mx_scale s;
        scale_of(&s, block_amax(x + i0, len), f, r, ts);
        if (scales)
            scales[b] = s.code;
        srl_format fs;
        srl__format_shift(&fs, &f->elem, f->scale == SRL_MX_E8M0 ? s.k : 0);
        for (size_t j = 0; j < len; j++) {
            const uint64_t index = g.counter;
            const uint64_t u = sto ? srl_rng_next(&g) : 0;
            y[i0 + j] = quantize_one(x[i0 + j], &s, &fs, f, r, m, u, &g, index, unscaled);
        }
    }
}

static int check(const srl_mx_format *f, srl_mx_rule r, srl_rounding m, const srl_rng *rng)
{
    if (!f || f->block < 1 || (unsigned)r >= SRL_MX_RULE_COUNT || !srl_rounding_valid(m))
        return SRL_EINVAL;
    if (srl_rounding_is_stochastic(m) && !rng)
        return SRL_EINVAL;
    return SRL_OK;
}

/* One thread's blocks [b0, b1) of a job, g positioned at the draw of element b0 * block. */
typedef void (*blocks_fn)(const void *job, size_t b0, size_t b1, srl_rng g);

/* Splits the nb blocks of bs elements (n in all) over the threads (whole blocks; one contiguous
 * share each). */
static void split_blocks(const void *job, blocks_fn fn, size_t n, size_t bs, srl_rounding m,
                         const srl_rng *rng)
{
    const bool sto = srl_rounding_is_stochastic(m);
    const size_t nb = (n + bs - 1) / bs;
    srl_rng g0;
    if (sto)
        g0 = *rng;
    else
        memset(&g0, 0, sizeof g0);
    const uint64_t c0 = g0.counter;
#if SRL_HAVE_OPENMP
    if (n >= SRL_BULK_OMP_MIN / 8 && srl__may_fork()) {
#pragma omp parallel
        {
            size_t lo, len;
            srl__share(nb, (size_t)omp_get_num_threads(), (size_t)omp_get_thread_num(), &lo,
                       &len);
            srl_rng g = g0;
            if (sto && len)
                srl_rng_seek(&g, c0 + lo * bs);
            if (len)
                fn(job, lo, lo + len, g);
        }
        return;
    }
#endif
    (void)c0;
    fn(job, 0, nb, g0);
}

typedef struct nv_tab nv_tab;

/* A quantization split over the threads: y and x binary64 (run_all) or binary32 (nv_float). */
typedef struct mx_job {
    void *y;
    uint8_t *scales;
    const void *x;
    size_t n;
    double ts;
    const srl_mx_format *f;
    srl_mx_rule r;
    srl_rounding m;
    const srl_rng *rng; /* (nv_float: the caller's, for the reference's extra words) */
    int lvl, alias;     /* (nv_float: the instruction-set level; y overlaps x) */
    const nv_tab *rows; /* (nv_float in rn, rna, rz with blocks of 16: nv_rows'; sr: rz's) */
    int srm;            /* (nv_float: sr of blocks of 16 by nv_sr16, with nv_rows_sr's) */
} mx_job;

static void mx_job_blocks(const void *job, size_t b0, size_t b1, srl_rng g)
{
    const mx_job *j = job;
    run_blocks(j->y, j->scales, j->x, j->n, b0, b1, j->ts, j->f, j->r, j->m, g,
               srl_rounding_is_stochastic(j->m), false);
}

static void run_all(double *y, uint8_t *scales, const double *x, size_t n, double ts,
                    const srl_mx_format *f, srl_mx_rule r, srl_rounding m, const srl_rng *rng)
{
    const mx_job j = {y, scales, x, n, ts, f, r, m, rng, 0, 0, NULL, 0};
    split_blocks(&j, mx_job_blocks, n, (size_t)f->block, m, rng);
}

int srl__mx_quantize_row(double *y, const double *x, size_t n, double ts, const srl_mx_format *f,
                         srl_mx_rule r, srl_rounding m, srl_rng *rng)
{
    int st = check(f, r, m, rng);
    if (st)
        return st;
    const bool sto = srl_rounding_is_stochastic(m);
    srl_rng g;
    if (sto)
        g = *rng;
    else
        memset(&g, 0, sizeof g);
    const size_t bs = (size_t)f->block;
    run_blocks(y, NULL, x, n, 0, (n + bs - 1) / bs, ts, f, r, m, g, sto, true);
    if (sto)
        srl_rng_seek(rng, rng->counter + n);
    return SRL_OK;
}

int srl_mx_quantize(double *y, uint8_t *scales, double *ts, const double *x, size_t n,
                    const srl_mx_format *f, srl_mx_rule r, srl_rounding m, srl_rng *rng)
{
    int st = check(f, r, m, rng);
    if (st)
        return st;
    const double t = srl_mx_tensor_scale(x, n, f, r);
    if (ts)
        *ts = t;
    run_all(y, scales, x, n, t, f, r, m, rng);
    if (srl_rounding_is_stochastic(m))
        srl_rng_seek(rng, rng->counter + n);
    return SRL_OK;
}

/* ---- NVFP4 of binary32 arrays: the elements without a division (src/ops/mx_nv_isa.h) ----
 * Each thread takes its blocks a chunk at a time: the chunk's scales (nv_scales16 eight blocks
 * of 16 at a time, else scale_of, the reference's), its draws (srl__draws), the vector kernel on
 * its whole groups of eight, then the reference (quantize_one's arithmetic) for the lanes the
 * kernel flags and the last partial group. Blocks of 16 in rn, rna and rz take nv_cmp16 instead
 * (comparisons with constants made once per call for each E4M3 code: nv_rows; from x86-64-v4 an
 * estimate and one comparison), and in sr from x86-64-v4 nv_sr16 (the same with rz's
 * comparisons, then the draw in binary32 lanes; with pcg32 its own draws in registers); both
 * take their scales' codes from nv_codes16 (nv_rows_sb). Not in a build with the defects (src/core/mutant.h): they live in the reference's
 * decision. */
#define NV_CHUNK 1024 /* elements per step: whole blocks, their draws in the caches */
#define NV_STREAM_MIN (1u << 20) /* arrays from 4 MiB: the output streamed past the caches */

/* rn, rna and rz of blocks of 16 (mx_nv_isa.h's nv_cmp16): a block's constants by its scale's
 * E4M3 code, one row per code (nv_rows). */
typedef struct nv_row {
    float th[8];     /* the thresholds th_0 .. th_6, then +inf (which nothing passes) */
    uint32_t res[8]; /* the results' bits for c thresholds passed (c = 0 .. 7) */
} nv_row;

/* The rest of a row: rv = 4 / v rounded to binary32 (0 for the zero and the NaN scale), for the
 * estimate of c; sm, the sign's mask. */
typedef struct nv_rowx {
    float rv;
    uint32_t sm;
} nv_rowx;

/* sr of blocks of 16 (mx_nv_isa.h's nv_sr16): by the code of s_b, for E2M1's grid points g_k:
 * lo[k] = g_k v - RN32(g_k v) (exact in binary32) and r[k] = 2^32 / (w_k v) rounded to binary32,
 * w_k = g_(k+1) - g_k; for k = 7 and every k of the zero and the NaN scale lo = -inf, r = -1,
 * which make the fraction -inf: neither away nor flagged. */
typedef struct nv_srrow {
    float lo[8], r[8];
} nv_srrow;

/* The rows of a call, one per E4M3 code (0x7F: NaN), each followed by 32 bytes that a row's
 * second half may be read with (row[128], sr[128]: padding); t32[k], k = floor(4 |x| rv)
 * (clamped to 31): 16 plus the number of thresholds below k (in units of v / 4) of the call's
 * mode; est: whether ts lets these decide (nv_rows). */
struct nv_tab {
    _Alignas(64) nv_row row[129];
    nv_srrow sr[129];
    nv_rowx rx[128];
    uint32_t t32[32];
    int est;
    float tb[128]; /* nv_rows_sb's thresholds of s_b's codes */
    float rd;      /* 1 / d rounded to binary32 */
    int sbest, up; /* (sbest: whether rd and tb decide; up: the ceil rule) */
    double d, ts;  /* d = t ts */
};

/* nv_sr16's own pcg32 draws: s[0] lane l the state whose output is the first half of the draw of
 * the next group's element l, s[1] of element 8 + l; (a, c) the map 32 steps on. */
typedef struct nv_lanes {
    srl__u64x8 s[2];
    uint64_t a, c;
} nv_lanes;

#pragma GCC diagnostic ignored "-Wpsabi" /* (lanes_isa.h's vectors never cross a call by value) */
#define SRL_ISA_TEMPLATE "ops/mx_nv_isa.h"
#include "core/isa_instantiate.h"
#undef SRL_ISA_TEMPLATE

/* The E4M3 value of code (0 .. 0x7E; subnormal below exponent field 1). */
static double nv_code_value(int code)
{
    const int e = code >> 3, mt = code & 7;
    return e ? ldexp(8 + mt, e - 10) : ldexp(mt, -9);
}

/* v = s_b s_t of a block whose scale has E4M3 code `code` (0x7F: NaN), as nv_blocks's vb. */
static double nv_v(uint8_t code, double ts)
{
    return code == 0x7F ? NAN : nv_code_value(code) * ts;
}

/* block_amax of binary32 values. */
static double block_amax_f(const float *x, size_t n)
{
    uint32_t amax = 0;
    for (size_t i = 0; i < n; i++) {
        uint32_t b;
        memcpy(&b, x + i, 4);
        b &= 0x7fffffffu;
        amax = b > amax ? b : amax;
    }
    float a;
    memcpy(&a, &amax, 4);
    return amax >= 0x7f800000u ? -1 : (double)a;
}

static void nv_blocks(const void *job, size_t b0, size_t b1, srl_rng g)
{
    const mx_job *j = job;
    const size_t bs = (size_t)j->f->block, cb = NV_CHUNK / bs;
    const bool sto = srl_rounding_is_stochastic(j->m);
    const uint64_t c0 = sto ? j->rng->counter : 0;
    const int lvl = j->lvl;
    uint64_t u[NV_CHUNK];
    float xin[NV_CHUNK];
    double vb[NV_CHUNK / 8], rb[NV_CHUNK / 8];
    unsigned char flag[NV_CHUNK];
    if (!sto)
        memset(u, 0, sizeof u);
    /* rn, rna, rz with blocks of 16: by comparisons (nv_cmp16), streaming the output of a large
     * array (it is not read before it is overwritten) */
    const int cmp = j->rows != NULL, srm = j->srm; /* (srm: sr by nv_sr16) */
    const int nt = cmp && lvl >= 2 && j->n >= NV_STREAM_MIN;
    uint8_t code[NV_CHUNK / 16]; /* (cmp: the chunk's scales' codes) */
    /* sr with pcg32: nv_sr16 makes the whole blocks' draws (their first 32 bits) itself; the
     * others (a last partial block) and a flagged lane's whole draw come from g's stream */
    const int reg = srm && g.kind == SRL_RNG_PCG32;
    nv_lanes ln;
    if (reg) {
        uint64_t st = g.g.p32.state;
        const uint64_t inc = g.g.p32.inc;
        for (int l = 0; l < 16; l++) {
            ln.s[l / 8][l % 8] = st;
            st = (st * SRL_PCG32_MULT + inc) * SRL_PCG32_MULT + inc;
        }
        srl__lcg64_jump(&ln.a, &ln.c, SRL_PCG32_MULT, inc, 32);
    }
    for (size_t c = b0; c < b1; c += cb) {
        const size_t ce = c + cb < b1 ? c + cb : b1, i0 = c * bs;
        const size_t k = (ce * bs < j->n ? ce * bs : j->n) - i0;
        const float *xc = (const float *)j->x + i0;
        float *yc = (float *)j->y + i0;
        size_t bv = c; /* blocks of 16 eight at a time, in vectors, as scale_of makes them */
        if (bs == 16) {
            bv = c + (k / 16 & ~(size_t)7);
            if (cmp)
                SRL_ISA_CALL(lvl, nv_codes16, (code, xc, bv - c, j->rows));
            else
                SRL_ISA_CALL(lvl, nv_scales16,
                             (vb, rb, j->scales ? j->scales + c : NULL, xc, bv - c,
                              nv_target(j->r) * j->ts, j->ts, j->r == SRL_MX_CEIL));
        }
        for (size_t b = bv; b < ce; b++) {
            const size_t lo = (b - c) * bs, len = k - lo < bs ? k - lo : bs;
            srl_mx_scale s;
            scale_of(&s, block_amax_f(xc + lo, len), j->f, j->r, j->ts);
            if (cmp)
                code[b - c] = s.code;
            else if (j->scales)
                j->scales[b] = s.code;
            vb[b - c] = s.nan ? NAN : s.sb == 0 ? 0 : s.value;
            rb[b - c] = 1.0 / vb[b - c]; /* (a division per block) */
        }
        if (j->alias)
            memcpy(xin, xc, k * sizeof *xin);
        const float *xr = j->alias ? xin : xc;
        if (sto && !reg)
            srl__draws(u, k, &g);
        if (reg && k % 16) { /* (the array's last chunk) */
            srl_rng gt = g;
            srl_rng_seek(&gt, c0 + i0 + k / 16 * 16);
            srl__draws(u + k / 16 * 16, k % 16, &gt);
        }
        const size_t kk = k & ~(size_t)7;
        size_t done = 0; /* (elements by comparisons: the chunk's whole blocks of 16) */
        if (cmp && j->scales)
            memcpy(j->scales + c, code, ce - c);
        int fl0 = 0; /* (a lane of [0, done) flagged) */
        if (cmp && k >= 16) {
            const size_t nw = k / 16;
            if (srm)
                fl0 = SRL_ISA_CALL(lvl, nv_sr16,
                                   (yc, xc, nw, code, j->rows, reg ? NULL : u, &ln, flag, nt));
            else
                SRL_ISA_CALL(lvl, nv_cmp16, (yc, xc, nw, code, j->rows, nt));
            done = nw * 16;
        }
        int flagged =
            SRL_ISA_CALL(lvl, nv_elems, (yc + done, xc + done, kk - done, bs, vb + done / bs,
                                         rb + done / bs, j->m.mode, j->m.r, u + done, flag + done));
        if (fl0 && !flagged)
            memset(flag + done, 0, kk - done);
        flagged |= fl0;
#if defined(__x86_64__)
        if (nt && fl0)
            _mm_sfence(); /* (the streamed lines before the fix-ups store over some of them) */
#endif
        for (size_t i = flagged ? (fl0 ? 0 : done) : kk; i < k; i++) {
            if (i < kk && !flag[i])
                continue;
            const double v = i < done ? nv_v(code[i / 16], j->ts) : vb[i / bs], xv = xr[i];
            const uint64_t ui = reg && i < done ? srl_rng_draw_at(&g, c0 + i0 + i) : u[i];
            yc[i] = (float)(v != v   ? NAN
                            : v == 0 ? 0.0 * xv
                                     : srl_op_apply_draw(SRL_DIV, xv, v, 0, &j->f->elem, j->m, ui,
                                                         j->rng, c0 + i0 + i) * v);
        }
    }
#if defined(__x86_64__)
    if (nt)
        _mm_sfence(); /* (the streamed lines out before the threads join) */
#endif
}

/* The constants of rn, rna and rz by comparisons (mx_nv_isa.h's nv_cmp16) for tensor scale ts,
 * one row per E4M3 code of s_b (0x7F: NaN). With v = s_b s_t, each of these modes takes the E2M1
 * grid point g_c (c = 0..7 for 0, 1/2, 1, 3/2, 2, 3, 4, 6) with c the number of thresholds
 * t_i v (i = 0..6) that |x| passes: rn and rna the midpoints (1/4, 3/4, 5/4, 7/4, 5/2, 7/2, 5),
 * rz the grid points above 0 (1/2 ... 6; |q| >= 6 gives 6, as E2M1 saturates). |x| passes t v
 * strictly (rn at a midpoint whose lower neighbour's code is even: the tie stays there, as
 * nv_elems's 2r == w with T even) or at or above it (rn's other midpoints, rna, rz). t v has at
 * most 31 bits, exact in binary64; a binary32 |x| is above t v iff it is above RD32(t v), and at
 * or above t v iff it is above the largest binary32 number below t v: so each test is one
 * binary32 comparison |x| > th_i, th_i the exact product rounded to nearest and stepped down one
 * unit where it is above t v (or equal to it, for "at or above"). The th_i are nondecreasing (each
 * is at most t_i v < t_(i+1) v, so at most the next), so the comparisons that hold are the first
 * c, and the result is res[c], the bits of RN32(g_c v), the reference's (float)(e v); then |x|'s
 * sign (sm). A zero scale has th_i = +inf (c = 0: +-0); the NaN one th_i = +inf too, every res
 * NaN's bits and no sign.
 *
 * From x86-64-v4 c is not counted but estimated and then corrected by one comparison: with
 * k = floor(RN32(|x| rv)) (rv = RN32(4 / v), so |x| rv within 2^-22.9 of 4 |x| / v) clamped to
 * 31, and the thresholds in units of v / 4 the integers m_i (1, 3, 5, 7, 10, 14, 20, or rz's 2,
 * 4, 6, 8, 12, 16, 24), c0 = #{m_i < k} (t32). Each such m_i <= k - 1 < 4 |x| / v (k <= 31, so
 * k - 1 < k (1 - 2^-22.9)): |x| > m_i v / 4, which passes either kind of test. A threshold
 * passed has m_i <= 4 |x| / v < k + 1 + 2^-18 (k not clamped): beyond the c0 below k only m_i =
 * k or k + 1, at most one of them (the m_i are at least 2 apart). So c = c0 + (|x| > th_c0), with
 * th_7 = +inf. This needs rv (and sr's constants, nv_rows_sr) to be normal binary32 numbers and
 * 6 v finite: est, for ts in [2^-80, 2^100] (v = s_b ts in [2^-89, 2^109]); other tensor scales
 * take the comparisons one by one. The zero and the NaN scale have rv = 0: c0 = 0, or 7 for a
 * NaN (0 times an infinity), and no threshold is passed. */
static void nv_rows(nv_tab *t, double ts, srl_mode md)
{
    static const double mid[7] = {0.25, 0.75, 1.25, 1.75, 2.5, 3.5, 5};
    static const double grid[8] = {0, 0.5, 1, 1.5, 2, 3, 4, 6};
    memset(t, 0, sizeof *t);
    t->est = ts >= 0x1p-80 && ts <= 0x1p100;
    for (int k = 0; k < 32; k++) {
        int c = 0;
        for (int i = 0; i < 7; i++)
            c += 4 * (md == SRL_RZ ? grid[i + 1] : mid[i]) < k;
        t->t32[k] = (uint32_t)(16 + c);
    }
    for (int code = 0; code < 128; code++) {
        nv_row *w = &t->row[code];
        w->th[7] = INFINITY;
        if (code == 0x7F) { /* NaN */
            for (int i = 0; i < 8; i++) {
                w->th[i] = INFINITY;
                w->res[i] = 0x7fc00000u; /* (NAN's bits) */
            }
            continue;
        }
        const double v = nv_code_value(code) * ts;
        t->rx[code].sm = 0x80000000u;
        if (v == 0) {
            for (int i = 0; i < 7; i++)
                w->th[i] = INFINITY;
            continue;
        }
        t->rx[code].rv = t->est ? (float)(4 / v) : 0;
        for (int i = 0; i < 8; i++) {
            const float g = (float)(grid[i] * v); /* (at most 6 * 448 s_t: finite) */
            memcpy(&w->res[i], &g, 4);
        }
        for (int i = 0; i < 7; i++) {
            const double th = v * (md == SRL_RZ ? grid[i + 1] : mid[i]);
            const bool ge = md != SRL_RN || (i & 1);
            float c = th > FLT_MAX ? INFINITY : (float)th;
            if ((double)c > th || (ge && (double)c == th)) {
                uint32_t cb;
                memcpy(&cb, &c, 4);
                cb--; /* (c > 0: one unit down) */
                memcpy(&c, &cb, 4);
            }
            w->th[i] = c;
        }
    }
}

/* nv_sr16's constants for tensor scale ts (est), one row per E4M3 code of s_b (nv_srrow): v, g_k
 * v (at most 30 bits: 2 of g_k, 4 of s_b, 24 of s_t) and its part below RN32(g_k v) (at most 7
 * bits, at least 2^-120) are exact in binary64 and the last in binary32. */
static void nv_rows_sr(nv_tab *t, double ts)
{
    static const double grid[8] = {0, 0.5, 1, 1.5, 2, 3, 4, 6};
    for (int code = 0; code < 128; code++) {
        nv_srrow *w = &t->sr[code];
        const double v = code == 0x7F ? 0 : nv_code_value(code) * ts;
        for (int k = 0; k < 8; k++) {
            const double g = grid[k] * v;
            w->lo[k] = k < 7 && v > 0 ? (float)(g - (double)(float)g) : -INFINITY;
            w->r[k] = k < 7 && v > 0 ? (float)(0x1p32 / ((grid[k + 1] - grid[k]) * v)) : -1.0f;
        }
    }
}

/* The thresholds of s_b's codes for d = t ts (mx_nv_isa.h's nv_codes16): s_b's code is the
 * number of thresholds that amax passes, each boundary B_j between E4M3 values m_j < m_(j+1)
 * (codes j and j + 1, j = 0..125): to nearest their midpoint times d, passed strictly for j even
 * (the tie stays at the even code, as nv_sb's) and at or above it for j odd; the ceil rule m_j d,
 * passed strictly. B_j has at most 33 bits (5 of the midpoint, 4 of t, 24 of ts), exact in
 * binary64, and is one binary32 comparison as nv_rows's thresholds are; tb[126] = +inf (448
 * saturates). The estimate: on the finer grid G_i of E4M3's values and midpoints (m_j = G_2j, the
 * midpoints G_(2j+1); index i = 2 code), amax d^-1 rounded twice (within 2^-22.9, where G's
 * relative spacing is at least 2^-5) lies within G_i .. G_(i+1) of index kf = floor of its own
 * index (binary32's bits shifted from 2^-6 on, 2^10 times it below), so every threshold of
 * index below kf is passed and none above kf + 1; of kf and kf + 1 one is a threshold's: with
 * c0 = (kf + up) / 2 thresholds below, the code is c0 + (amax > tb[c0]). This needs rd and the
 * tb to be normal: sbest, ts in [2^-80, 2^100]. */
static void nv_rows_sb(nv_tab *t, double ts, srl_mx_rule r)
{
    const double d = nv_target(r) * ts;
    t->d = d, t->ts = ts, t->up = r == SRL_MX_CEIL;
    t->sbest = ts >= 0x1p-80 && ts <= 0x1p100;
    t->rd = t->sbest ? (float)(1 / d) : 0;
    for (int j = 0; j < 127; j++) {
        if (j == 126 || !t->sbest) {
            t->tb[j] = INFINITY;
            continue;
        }
        const double lo = nv_code_value(j), b = (t->up ? lo : (lo + nv_code_value(j + 1)) / 2) * d;
        float c = (float)b;
        if ((double)c > b || (!t->up && (j & 1) && (double)c == b)) {
            uint32_t cb;
            memcpy(&cb, &c, 4);
            cb--; /* (c > 0: one unit down) */
            memcpy(&c, &cb, 4);
        }
        t->tb[j] = c;
    }
    t->tb[127] = INFINITY;
}

/* NVFP4 of a binary32 array whose block is a multiple of 8 of at most NV_CHUNK elements. */
static void nv_float(float *y, uint8_t *scales, double *ts, const float *x, size_t n,
                     const srl_mx_format *f, srl_mx_rule r, srl_rounding m, const srl_rng *rng)
{
    const int lvl = srl__bulk_isa_level() < 2 ? srl__bulk_isa_level() : 2; /* (no IFMA copy) */
    uint32_t amax = 0; /* the largest finite magnitude's bits */
#if SRL_HAVE_OPENMP
    if (n >= SRL_BULK_OMP_MIN && srl__may_fork()) {
#pragma omp parallel reduction(max : amax)
        {
            size_t lo, len;
            srl__share(n, (size_t)omp_get_num_threads(), (size_t)omp_get_thread_num(), &lo, &len);
            amax = SRL_ISA_CALL(lvl, nv_amax, (x + lo, len));
        }
    } else
#endif
        amax = SRL_ISA_CALL(lvl, nv_amax, (x, n));
    float a;
    memcpy(&a, &amax, 4);
    const double t = tensor_scale_of(a, r);
    if (ts)
        *ts = t;
    nv_tab tab;
    const srl_mode md = m.mode;
    const bool cmp = f->block == 16 && (md == SRL_RN || md == SRL_RNA || md == SRL_RZ);
    /* (nv_sr16: AVX-512, and a tensor scale for its binary32 constants) */
    const bool srm = f->block == 16 && md == SRL_SR && lvl >= 2 && t >= 0x1p-80 && t <= 0x1p100;
    if (cmp || srm)
        nv_rows(&tab, t, srm ? SRL_RZ : md);
    if (srm)
        nv_rows_sr(&tab, t);
    if (cmp || srm)
        nv_rows_sb(&tab, t, r);
    const mx_job j = {y,   scales, x, n, t, f, r, m, rng, lvl, y < x + n && x < y + n,
                      cmp || srm ? &tab : NULL, srm};
    split_blocks(&j, nv_blocks, n, (size_t)f->block, m, rng);
}

int srl_mx_quantize_float(float *y, uint8_t *scales, double *ts, const float *x, size_t n,
                          const srl_mx_format *f, srl_mx_rule r, srl_rounding m, srl_rng *rng)
{
    int st = check(f, r, m, rng);
    if (st)
        return st;
    if (f->scale == SRL_MX_E8M0 &&
        srl__bulk_mx_f2f(y, scales, x, n, &f->elem, (size_t)f->block, (int)r, m, rng)) {
        if (ts)
            *ts = 1.0;
        if (srl_rounding_is_stochastic(m))
            srl_rng_seek(rng, rng->counter + n);
        return SRL_OK;
    }
    if (f->scale == SRL_MX_E4M3_T32 && !SRL__HAVE_MUTANTS && f->block % 8 == 0 &&
        f->block <= NV_CHUNK) {
        nv_float(y, scales, ts, x, n, f, r, m, rng);
        if (srl_rounding_is_stochastic(m))
            srl_rng_seek(rng, rng->counter + n);
        return SRL_OK;
    }
    /* odd block sizes: through binary64 */
    double *xd = malloc((n ? n : 1) * sizeof *xd);
    if (!xd)
        return SRL_ENOMEM;
    for (size_t i = 0; i < n; i++)
        xd[i] = x[i];
    st = srl_mx_quantize(xd, scales, ts, xd, n, f, r, m, rng);
    for (size_t i = 0; i < n; i++)
        y[i] = (float)xd[i];
    free(xd);
    return st;
}

/* ---- teaching ---- */

int srl_mx_explain(srl_mx_scale *s, srl_round_info *info, const double *x, size_t n, double ts,
                   const srl_mx_format *f, srl_mx_rule r, srl_rounding m, srl_rng *rng)
{
    int st = check(f, r, m, rng);
    if (st || !s || !info || n > (size_t)f->block)
        return st ? st : SRL_EINVAL;
    scale_of(s, block_amax(x, n), f, r, ts);
    srl_format fs;
    srl__format_shift(&fs, &f->elem, f->scale == SRL_MX_E8M0 ? s->k : 0);
    for (size_t i = 0; i < n; i++) {
        srl_round_info *in = &info[i];
        if (s->nan) { /* the NaN scale: nothing is rounded, the draw is still taken */
            if (srl_rounding_is_stochastic(m))
                (void)srl_rng_next(rng);
            srl__info_special(in, x[i], NAN);
            in->exact = isnan(x[i]);
            continue;
        }
        if (f->scale == SRL_MX_E8M0 && r != SRL_MX_34) {
            st = srl_round_explain(in, x[i], &fs, m, rng);
        } else if (f->scale == SRL_MX_E8M0) {
            st = srl_op_explain(in, SRL_MUL, x[i], 0.75, 0, &fs, m, rng);
        } else if (s->sb == 0) {
            if (srl_rounding_is_stochastic(m))
                (void)srl_rng_next(rng);
            srl__info_special(in, x[i], 0.0 * x[i]);
            in->exact = x[i] == 0;
        } else {
            st = srl_op_explain(in, SRL_DIV, x[i], s->value, 0, &f->elem, m, rng);
            in->rd *= s->value, in->ru *= s->value, in->result *= s->value;
        }
        if (st)
            return st;
        in->x = x[i]; /* (the ternary stays the exact one: of (3/4) x, of x / (s_b s_t)) */
    }
    return SRL_OK;
}

int srl_mx_element_code(uint8_t *code, const srl_mx_format *f, double e)
{
    if (!srl_format_contains(&f->elem, e) || isnan(e))
        return SRL_EINVAL;
    if (!strcmp(f->elem.name, "int8")) {
        *code = (uint8_t)(int8_t)lrint(e * 64);
        return SRL_OK;
    }
    uint64_t b;
    int st = srl_format_encode(&b, &f->elem, e);
    if (st == SRL_OK)
        *code = (uint8_t)b;
    return st;
}
