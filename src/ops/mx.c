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

#include "core/threads.h"
#include "ops/mx_impl.h"
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

static const srl_format *e4m3_sat(void)
{
    return &srl_mx_preset(0)->elem; /* e4m3,saturate=on */
}

/* NVFP4's target for an element's largest magnitude: 6 (E2M1's largest), 4.5 under the 3/4
 * rule (so that s_b's rounding, at most a factor 1 + 2^-4, cannot take an element past 6). */
static double nv_target(srl_mx_rule r)
{
    return r == SRL_MX_34 ? 4.5 : 6.0;
}

double srl_mx_tensor_scale(const double *x, size_t n, const srl_mx_format *f, srl_mx_rule r)
{
    if (f->scale == SRL_MX_E8M0)
        return 1.0;
    double amax = 0;
    for (size_t i = 0; i < n; i++)
        if (isfinite(x[i]) && fabs(x[i]) > amax)
            amax = fabs(x[i]);
    if (amax == 0)
        return 1.0;
    const double st = srl_div(amax, 448.0 * nv_target(r), srl_format_find("fp32"), SRL_ROUND_RN,
                              NULL);
    return st > 0 ? st : 0x1p-149;
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
    const double t = nv_target(r);
    const srl_rounding how = {r == SRL_MX_CEIL ? SRL_RU : SRL_RN, 0};
    s->sb = srl_div(amax, t * ts, e4m3_sat(), how, NULL); /* t ts: exact (3 bits times 24) */
    s->value = s->sb * ts;                                /* exact: 4 bits times 24 */
    uint64_t code = 0;
    if (srl_format_encode(&code, e4m3_sat(), s->sb) != SRL_OK) /* (s_b is a value of E4M3) */
        code = 0x7F;
    s->code = (uint8_t)code;
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

/* Splits the blocks over the threads (whole blocks; one contiguous share each). */
static void run_all(double *y, uint8_t *scales, const double *x, size_t n, double ts,
                    const srl_mx_format *f, srl_mx_rule r, srl_rounding m, const srl_rng *rng)
{
    const bool sto = srl_rounding_is_stochastic(m);
    const size_t bs = (size_t)f->block, nb = (n + bs - 1) / bs;
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
                run_blocks(y, scales, x, n, lo, lo + len, ts, f, r, m, g, sto, false);
        }
        return;
    }
#endif
    (void)c0;
    run_blocks(y, scales, x, n, 0, nb, ts, f, r, m, g0, sto, false);
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
    /* NVFP4 and odd block sizes: through binary64 */
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
