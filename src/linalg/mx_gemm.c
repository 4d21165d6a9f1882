/* src/linalg/mx_gemm.c: the matrix product of block-scaled operands (include/srlab/mxgemm.h):
 * rotation, quantization along the reduction dimension, the product through srl_gemm_f, the
 * epilogue.
 *
 * Each operand becomes `rows` vectors of k values along the reduction dimension (A's rows, B's
 * columns), packed row after row (A as m-by-k, B as n-by-k). Without rotation an MX operand
 * goes through srl_mx_quantize_float (the bulk kernels): in one call over all rows when the
 * blocks cannot straddle a row (k a multiple of the block, or one row), since element l of row
 * r then has draw r k + l as in a flat array; else a call per row. With a rotation, or NVFP4,
 * each row is rotated in binary64 and quantized by srl__mx_quantize_row (src/ops/mx.c) with the
 * tensor scale of the whole operand. B is then transposed back to k-by-n and srl_gemm_f
 * computes the product with the accumulation config, with its draws at their place.
 *
 * Threads: rows are split over the threads (static schedule); each row's stream is positioned
 * at that row's first draw, so the thread count changes nothing. Not here: the engines
 * (src/linalg/kernels.c). */
#include "srlab/mxgemm.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/spec_items.h"
#include "core/threads.h"
#include "ops/mx_impl.h"
#include "srlab/ops.h"

#define ROT_MAX 4096
#define SPEC_MAX 512

srl_mxgemm srl_mxgemm_default(void)
{
    srl_mxgemm c;
    memset(&c, 0, sizeof c);
    c.a.fmt = *srl_mx_preset(0);
    c.a.rule = SRL_MX_OCP;
    c.a.mode = SRL_ROUND_RN;
    c.b = c.a;
    c.rot = SRL_MXGEMM_ROT_NONE;
    c.rot_block = 32;
    c.accum = srl_accum_binary64();
    c.accum.acc_fmt = *srl_format_find("fp32");
    return c;
}

/* ---- checks ---- */

static bool pow2_in(int g, int lo, int hi)
{
    return g >= lo && g <= hi && (g & (g - 1)) == 0;
}

/* The accumulation config as the kernels check it (srl_gemm_f validates it, and that its
 * accumulator fits binary32, before looking at sizes). */
static int accum_ok(const srl_accum *a)
{
    float d = 0;
    srl_rng g;
    srl_rng_init(&g, SRL_RNG_DEFAULT, 0, 0);
    return srl_gemm_f(&d, NULL, NULL, 0, 0, 0, a, &g);
}

static const char *operand_error(const srl_mxgemm_operand *o)
{
    if (o->fmt.block < 1 || o->fmt.block > 4096)
        return "block size outside 1 .. 4096";
    if ((unsigned)o->fmt.scale > SRL_MX_E4M3_T32 || o->fmt.elem.p < 2 || o->fmt.elem.p > 53)
        return "invalid block format";
    if ((unsigned)o->rule >= SRL_MX_RULE_COUNT)
        return "unknown scale rule";
    if (!srl_rounding_valid(o->mode))
        return "invalid rounding mode";
    return NULL;
}

int srl_mxgemm_check(const srl_mxgemm *c, srl_err *err)
{
    if (!c)
        return srl_err_set(err, SRL_EINVAL, "block GEMM config: NULL");
    const char *why = operand_error(&c->a);
    if (why)
        return srl_err_set(err, SRL_EINVAL, "block GEMM config: operand a: %s", why);
    if ((why = operand_error(&c->b)))
        return srl_err_set(err, SRL_EINVAL, "block GEMM config: operand b: %s", why);
    if ((unsigned)c->rot > SRL_MXGEMM_ROT_HADAMARD)
        return srl_err_set(err, SRL_EINVAL, "block GEMM config: unknown rotation");
    if (!pow2_in(c->rot_block, 2, ROT_MAX))
        return srl_err_set(err, SRL_EINVAL,
                           "block GEMM config: rot-block=%d is not a power of two in 2 .. %d",
                           c->rot_block, ROT_MAX);
    if (accum_ok(&c->accum) != SRL_OK)
        return srl_err_set(err, SRL_EINVAL,
                           "block GEMM config: invalid accumulation config, or an accumulator "
                           "format that is not a subset of binary32");
    return SRL_OK;
}

/* ---- parsing and names ---- */

static const char *const rot_names[] = {"none", "rht", "hadamard"};

/* An operand key (fmt, round, scale) for operand o. */
static int parse_operand(srl_mxgemm_operand *o, const char *key, const char *base,
                         const char *val, const char *spec, srl_err *err)
{
    if (!strcmp(base, "round"))
        return srl_rounding_parse(&o->mode, val, err);
    if (!strcmp(base, "scale"))
        return srl_mx_rule_parse(&o->rule, val, err);
    if (strchr(val, ','))
        return srl_err_set(err, SRL_EPARSE, "block GEMM config '%s': %s=%s: give the block "
                           "size with block=B", spec, key, val);
    return srl_mx_parse(&o->fmt, val, err);
}

/* One KEY=VALUE item into *t (spec: the whole text, for messages). */
static int parse_item(srl_mxgemm *t, const char *key, const char *val, const char *spec,
                      srl_err *err)
{
    static const char *const okeys[] = {"fmt", "round", "scale"};
    for (int i = 0; i < 3; i++) {
        if (!strcmp(key, okeys[i])) {
            int st = parse_operand(&t->a, key, okeys[i], val, spec, err);
            return st ? st : parse_operand(&t->b, key, okeys[i], val, spec, err);
        }
        if ((key[0] == 'a' || key[0] == 'b') && key[1] == '-' && !strcmp(key + 2, okeys[i]))
            return parse_operand(key[0] == 'a' ? &t->a : &t->b, key, okeys[i], val, spec, err);
    }
    if (!strcmp(key, "block")) {
        for (int i = 0; i < 2; i++) {
            srl_mxgemm_operand *o = i ? &t->b : &t->a;
            char s[SRL_MX_NAME_LEN + 16];
            char base_name[SRL_MX_NAME_LEN];
            snprintf(base_name, sizeof base_name, "%s", o->fmt.name);
            char *comma = strchr(base_name, ',');
            if (comma)
                *comma = '\0';
            snprintf(s, sizeof s, "%s,block=%s", base_name, val);
            srl_mx_format f;
            if (srl_mx_parse(&f, s, NULL) != SRL_OK)
                return srl_err_set(err, SRL_EPARSE, "block GEMM config '%s': block=%s: the "
                                   "block size must be an integer from 1 to 4096", spec, val);
            o->fmt = f;
        }
        return SRL_OK;
    }
    if (!strcmp(key, "rot")) {
        for (int i = 0; i < 3; i++)
            if (!strcmp(val, rot_names[i])) {
                t->rot = (srl_mxgemm_rot)i;
                return SRL_OK;
            }
        return srl_err_set(err, SRL_EPARSE,
                           "block GEMM config '%s': rot=%s: known rotations: none, rht, "
                           "hadamard", spec, val);
    }
    if (!strcmp(key, "rot-block")) {
        char *end;
        const long g = strtol(val, &end, 10);
        if (end == val || *end || g < 2 || g > ROT_MAX || !pow2_in((int)g, 2, ROT_MAX))
            return srl_err_set(err, SRL_EPARSE, "block GEMM config '%s': rot-block=%s: a power "
                               "of two from 2 to %d", spec, val, ROT_MAX);
        t->rot_block = (int)g;
        return SRL_OK;
    }
    /* everything else is the accumulation config's (prod, acc, fma, order, kahan, ...) */
    char item[SPEC_MAX];
    snprintf(item, sizeof item, "%s=%s", key, val);
    srl_err e2 = {0};
    const int st = srl_accum_parse(&t->accum, item, &e2);
    if (st != SRL_OK && strstr(e2.msg, "unknown key"))
        return srl_err_set(err, SRL_EPARSE,
                           "block GEMM config '%s': unknown key '%s' (known: fmt, a-fmt, b-fmt, "
                           "block, round, a-round, b-round, scale, a-scale, b-scale, rot, "
                           "rot-block, and the accumulation config's: prod, acc, fma, order, "
                           "kahan)", spec, key);
    return st != SRL_OK ? srl_err_set(err, st, "block GEMM config '%s': %s", spec, e2.msg) : st;
}

int srl_mxgemm_parse(srl_mxgemm *c, const char *spec, srl_err *err)
{
    if (!c || !spec)
        return srl_err_set(err, SRL_EINVAL, "block GEMM config: NULL argument");
    const size_t len = strlen(spec);
    if (len >= SPEC_MAX)
        return srl_err_set(err, SRL_EPARSE, "block GEMM config is too long (%zu characters)",
                           len);
    char buf[SPEC_MAX];
    memcpy(buf, spec, len + 1);
    srl_mxgemm t = *c;
    char *cur = buf;
    while (*cur) {
        bool trailing;
        char *item = srl__spec_item(&cur, &trailing);
        char *eq = strchr(item, '=');
        if (!eq || eq == item)
            return srl_err_set(err, SRL_EPARSE,
                               "block GEMM config '%s': '%s' is not KEY=VALUE", spec, item);
        *eq = '\0';
        int st = parse_item(&t, item, eq + 1, spec, err);
        if (st != SRL_OK)
            return st;
        if (trailing)
            return srl_err_set(err, SRL_EPARSE, "block GEMM config '%s': trailing comma", spec);
    }
    int st = srl_mxgemm_check(&t, err);
    if (st != SRL_OK)
        return st;
    *c = t;
    return SRL_OK;
}

static void operand_name(char *b, size_t len, char which, const srl_mxgemm_operand *o)
{
    char base[SRL_MX_NAME_LEN], mode[24];
    snprintf(base, sizeof base, "%s", o->fmt.name);
    char *comma = strchr(base, ',');
    if (comma)
        *comma = '\0';
    srl_rounding_name(mode, sizeof mode, o->mode);
    snprintf(b, len, "%c-fmt=%s,%c-round=%s,%c-scale=%s", which, base, which, mode, which,
             srl_mx_rule_name(o->rule));
}

const char *srl_mxgemm_name(char *buf, size_t len, const srl_mxgemm *c)
{
    if (!buf || len == 0)
        return buf;
    if (!c || srl_mxgemm_check(c, NULL) != SRL_OK) {
        snprintf(buf, len, "invalid");
        return buf;
    }
    char a[96], b[96], acc[SPEC_MAX];
    operand_name(a, sizeof a, 'a', &c->a);
    operand_name(b, sizeof b, 'b', &c->b);
    srl_accum_name(acc, sizeof acc, &c->accum);
    /* block= sets both; a different block per operand has no spelling: name a's */
    snprintf(buf, len, "%s,%s,block=%d,rot=%s,rot-block=%d,%s", a, b, c->a.fmt.block,
             rot_names[c->rot], c->rot_block, acc);
    return buf;
}

/* ---- draws ---- */

static uint64_t add_sat(uint64_t a, uint64_t b)
{
    uint64_t r;
    return __builtin_add_overflow(a, b, &r) ? UINT64_MAX : r;
}

static uint64_t mul_sat(uint64_t a, uint64_t b)
{
    uint64_t r;
    return __builtin_mul_overflow(a, b, &r) ? UINT64_MAX : r;
}

/* The pieces of a call's draws: the signs, A's and B's elements. */
static void draw_parts(uint64_t part[3], size_t m, size_t n, size_t k, const srl_mxgemm *c)
{
    part[0] = c->rot == SRL_MXGEMM_ROT_RHT ? ((uint64_t)k + 63) / 64 : 0;
    part[1] = srl_rounding_is_stochastic(c->a.mode) ? mul_sat(m, k) : 0;
    part[2] = srl_rounding_is_stochastic(c->b.mode) ? mul_sat(n, k) : 0;
}

uint64_t srl_mxgemm_draws(size_t m, size_t n, size_t k, const srl_mxgemm *c)
{
    if (!c || srl_mxgemm_check(c, NULL) != SRL_OK)
        return 0;
    uint64_t part[3];
    draw_parts(part, m, n, k, c);
    return add_sat(add_sat(add_sat(part[0], part[1]), part[2]),
                   srl_gemm_draws(m, n, k, &c->accum));
}

/* ---- one operand ---- */

/* The Sylvester Hadamard matrix of order g times x[0..g), in place: L stages of a + b, a - b,
 * each rounded to nearest binary64. */
static void fwht(double *x, size_t g)
{
    for (size_t h = 1; h < g; h <<= 1)
        for (size_t i = 0; i < g; i += 2 * h)
            for (size_t j = i; j < i + h; j++) {
                const double a = x[j], b = x[j + h];
                x[j] = a + b;
                x[j + h] = a - b;
            }
}

/* An operand: `rows` vectors of k values, element (r, l) at X[r rs + l cs]. */
typedef struct operand {
    const float *X;
    size_t rows, rs, cs;
    const srl_mxgemm_operand *q;
    uint64_t base;  /* the draw of element (0, 0) */
    int scale_exp;  /* the rotation's power of two: -h for A, -(L - h) for B */
} operand;

/* Row r of the operand, rotated (when c->rot is set), into w[0..k) in binary64. */
static void rotated_row(double *w, const operand *o, size_t r, size_t k, const srl_mxgemm *c,
                        const uint64_t *signs)
{
    for (size_t l = 0; l < k; l++)
        w[l] = o->X[r * o->rs + l * o->cs];
    if (c->rot == SRL_MXGEMM_ROT_NONE)
        return;
    const size_t g = (size_t)c->rot_block, full = k / g * g;
    if (signs)
        for (size_t l = 0; l < full; l++)
            if (signs[l / 64] >> (l % 64) & 1)
                w[l] = -w[l];
    for (size_t b = 0; b < full; b += g) {
        fwht(w + b, g);
        for (size_t l = b; l < b + g; l++)
            w[l] = ldexp(w[l], o->scale_exp);
    }
}

/* Rows [0, rows): f(r) for each, over the threads when worth it (the result never depends on
 * it). */
#define FOR_ROWS(rows, work, ...)                                                                 \
    do {                                                                                          \
        const bool par_ = (double)(rows) * (double)(work) >= 32768.0 && srl__may_fork();          \
        (void)par_;                                                                               \
        _Pragma("omp parallel for schedule(static) if (par_)")                                    \
        for (size_t r = 0; r < (rows); r++) {                                                     \
            __VA_ARGS__;                                                                          \
        }                                                                                         \
    } while (0)

/* The stream positioned at the draw of element (r, 0), or NULL when nothing is drawn. */
static srl_rng *row_rng(srl_rng *g, const srl_rng *rng, const operand *o, size_t r, size_t k)
{
    if (!srl_rounding_is_stochastic(o->q->mode))
        return NULL;
    *g = *rng;
    srl_rng_seek(g, o->base + r * k);
    return g;
}

/* Whether an operand takes the binary32 path: MX without rotation, in blocks the bulk kernels
 * take (srl__bulk_mx_f2f: a power of two up to 512), where srl_mx_quantize_float cannot fail. */
static bool fast_path(const srl_mxgemm_operand *q, const srl_mxgemm *c)
{
    const int b = q->fmt.block;
    return c->rot == SRL_MXGEMM_ROT_NONE && q->fmt.scale == SRL_MX_E8M0 && pow2_in(b, 1, 512);
}

/* Quantize the operand into out (rows-by-k, packed); *ts its tensor scale (1 for MX). w:
 * rows * k doubles of workspace, unused on the fast path. The config and the stream were
 * checked: nothing here can fail. */
static void quantize(float *out, double *ts, double *w, const operand *o, size_t k,
                     const srl_mxgemm *c, const uint64_t *signs, const srl_rng *rng)
{
    const srl_mxgemm_operand *q = o->q;
    const size_t rows = o->rows;
    *ts = 1.0;
    if (fast_path(q, c)) {
        const bool packed = o->cs == 1 && o->rs == k;
        if (!packed)
            FOR_ROWS(rows, k, for (size_t l = 0; l < k; l++) out[r * k + l] =
                                  o->X[r * o->rs + l * o->cs]);
        const float *src = packed ? o->X : out;
        if (k % (size_t)q->fmt.block == 0 || rows == 1) { /* one flat array, flat draws */
            srl_rng g, *gp = row_rng(&g, rng, o, 0, k);
            const int st = srl_mx_quantize_float(out, NULL, NULL, src, rows * k, &q->fmt, q->rule,
                                                 q->mode, gp);
            (void)st;
            return;
        }
        FOR_ROWS(rows, k, srl_rng g; srl_rng *gp = row_rng(&g, rng, o, r, k);
                 const int st = srl_mx_quantize_float(out + r * k, NULL, NULL, src + r * k, k,
                                                      &q->fmt, q->rule, q->mode, gp);
                 (void)st);
        return;
    }
    FOR_ROWS(rows, k, rotated_row(w + r * k, o, r, k, c, signs));
    *ts = srl_mx_tensor_scale(w, rows * k, &q->fmt, q->rule);
    const double t = *ts;
    FOR_ROWS(rows, k, srl_rng g; srl_rng *gp = row_rng(&g, rng, o, r, k); double *wr = w + r * k;
             const int st = srl__mx_quantize_row(wr, wr, k, t, &q->fmt, q->rule, q->mode, gp);
             (void)st;
             for (size_t l = 0; l < k; l++) out[r * k + l] = (float)wr[l]);
}

/* ---- the product ---- */

int srl_mxgemm_f(float *C, const float *A, const float *B, size_t m, size_t n, size_t k,
                 srl_mxgemm_layout lay, const srl_mxgemm *c, srl_rng *rng)
{
    if (!c || !C || (!A && m && k) || (!B && n && k) || (unsigned)lay > SRL_MXGEMM_TN ||
        srl_mxgemm_check(c, NULL) != SRL_OK)
        return SRL_EINVAL;
    uint64_t part[3];
    draw_parts(part, m, n, k, c);
    const uint64_t total = srl_mxgemm_draws(m, n, k, c);
    if (total && !rng)
        return SRL_EINVAL;
    if (total == UINT64_MAX)
        return SRL_ERANGE;
    if (m == 0 || n == 0)
        return SRL_OK;
    if (k == 0) {
        memset(C, 0, m * n * sizeof *C);
        return SRL_OK;
    }
    const bool slow_a = !fast_path(&c->a, c), slow_b = !fast_path(&c->b, c);
    const size_t wrows = (slow_a ? m : 0) > (slow_b ? n : 0) ? m : (slow_b ? n : 0);
    float *Aq = malloc(m * k * sizeof *Aq), *Bt = malloc(n * k * sizeof *Bt),
          *Bq = malloc(n * k * sizeof *Bq);
    double *w = wrows ? malloc(wrows * k * sizeof *w) : NULL;
    uint64_t *signs = part[0] ? malloc(part[0] * sizeof *signs) : NULL;
    int st = SRL_OK;
    if (!Aq || !Bt || !Bq || (wrows && !w) || (part[0] && !signs)) {
        st = SRL_ENOMEM;
        goto done;
    }
    const uint64_t c0 = rng ? rng->counter : 0;
    if (signs) {
        srl_rng g = *rng;
        for (uint64_t i = 0; i < part[0]; i++)
            signs[i] = srl_rng_next(&g);
    }
    const int L = __builtin_ctz((unsigned)c->rot_block), h = L / 2;
    const operand oa = {A, m, lay == SRL_MXGEMM_TN ? 1 : k, lay == SRL_MXGEMM_TN ? m : 1,
                        &c->a, c0 + part[0], -h};
    const operand ob = {B, n, lay == SRL_MXGEMM_NT ? k : 1, lay == SRL_MXGEMM_NT ? 1 : n,
                        &c->b, c0 + part[0] + part[1], -(L - h)};
    double ta, tb;
    quantize(Aq, &ta, w, &oa, k, c, signs, rng);
    quantize(Bt, &tb, w, &ob, k, c, signs, rng);
    FOR_ROWS(k, n, for (size_t j = 0; j < n; j++) Bq[r * n + j] = Bt[j * k + r]);
    srl_rng g;
    if (rng) {
        g = *rng;
        srl_rng_seek(&g, c0 + part[0] + part[1] + part[2]);
    }
    st = srl_gemm_f(C, Aq, Bq, m, n, k, &c->accum, rng ? &g : NULL);
    if (st)
        goto done;
    /* the epilogue: S P / G, exact, rounded once to nearest into the accumulator format */
    const double P = ta * tb, G = srl_mx_gain(&c->a.fmt, c->a.rule) *
                                  srl_mx_gain(&c->b.fmt, c->b.rule);
    if (P != 1.0 || G != 1.0) {
        const srl_format *af = &c->accum.acc_fmt;
        FOR_ROWS(m, n, for (size_t j = 0; j < n; j++) {
            const double S = C[r * n + j];
            C[r * n + j] = (float)(G == 1.0
                                       ? srl_op_apply(SRL_MUL, S, P, 0, af, SRL_ROUND_RN, NULL)
                                       : srl_op_apply(SRL_DIV, S * P, G, 0, af, SRL_ROUND_RN,
                                                      NULL));
        });
    }
    if (rng)
        srl_rng_seek(rng, c0 + total);
done:
    free(Aq);
    free(Bt);
    free(Bq);
    free(w);
    free(signs);
    return st;
}
