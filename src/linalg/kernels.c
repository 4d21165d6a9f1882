/* src/linalg/kernels.c: sum, dot, axpy, gemv, gemm in emulated precision (include/srlab/kernels.h,
 * docs/design.md §6).
 *
 * The header DEFINES every kernel as a sequence of exact operations (srl_op_apply_draw) with
 * fixed draw indices. This file computes that sequence, faster where it can prove the faster
 * computation gives the same bits; tests/kernels/ compares every configuration, kernel, layout
 * and instruction set with the explicit loop of srl_op_apply_draw calls, bit for bit.
 * Legend: a sum has n terms; C (m x n) = A (m x k) B (k x n); D = srl_dot_draws(k) per output.
 *
 * One operation is computed in one of three ways, each equal to the definition:
 *   native  binary32 (binary64) hardware arithmetic where that IS the operation: for binary32
 *           numbers a, b the hardware's a*b and a + b are the exact product and sum rounded to
 *           nearest binary32, with IEEE subnormals, overflow to inf and signed zeros: exactly
 *           srl_op_apply_draw into the fp32 format with rn. The same for binary64 and fp64, and
 *           for fmaf / fma (one rounding of a*b + c). -ffp-contract=off keeps s + a*b two
 *           roundings.
 *   exact   the operation's exact result is a binary64 (or binary32) number d, which is then
 *           rounded by srl_round's rule: srl__round_one (src/round/round_core.h), or the same
 *           decision (src/round/decide.h) on lanes (src/linalg/kernels_isa.h, as
 *           src/round/round_bulk.c does). srl_op_apply_draw
 *           rounds the exact result once with that rule too, so the same draw gives the same
 *           bits. d is known exact when
 *             - products: a and b are binary32 numbers (24 + 24 <= 53 bits, exponents within
 *               binary64's range); binary64 numbers whose error fma(a, b, -p) is 0 with
 *               |p| >= 2^-968 (so that the error is itself exact); a zero factor;
 *             - sums: Knuth's TwoSum error is 0 (it is computed exactly for any a, b without
 *               overflow, in binary64 or binary32). A zero sum keeps the hardware's sign (+0
 *               unless both are -0), the exact operation's sign in every mode but rd, where a
 *               zero sum takes the slow path.
 *   slow    srl_op_apply_draw itself (same draw, same index), for everything else.
 *
 * Engines of the matrix product (srl__kernels_engine in src/linalg/kernels_priv.h names them):
 *   native binary32 / binary64   prod and acc both binary32 (binary64) with rn, with or without
 *                fma: hardware loops (src/linalg/kernels_isa.h), sixteen (eight) output columns a
 *                vector;
 *   binary32 lanes   binary32 inputs whose products the scan (f32_products_exact) has shown to
 *                be binary32 numbers -- the significant bits of A and of B sum to at most 24 and
 *                exponents keep products normal (bf16 inputs, say): the binary32 product is then
 *                exact, rounding runs on binary32 bits, and every stochastic decision needs only
 *                the high half of the draw. With acc binary32 rn the accumulation is the
 *                hardware sum of two binary32 numbers (fma or not: a*b + s = p + s);
 *   binary64 lanes   everything else with the recursive or blocked order and pcg32 streams (or
 *                deterministic modes): products and sums in binary64 with the checks above;
 *   scalar       one output at a time, one operation at a time (pairwise, Kahan, sr with pcg64
 *                streams, and srl_sum, srl_dot, srl_gemv, srl_axpy).
 * The vector engines flag a lane whose operation is not provably exact or whose magnitude is
 * outside the format's normal range, and recompute it with the scalar code before the next step.
 *
 * Order: every output keeps its own sequence: the matrix engines run l outermost and the output
 * columns j in vector lanes (i-l-j), which keeps each C[i][j]'s sequence l = 0, 1, ...
 * Threads: `omp parallel for schedule(static)` over outputs (tiles of one row and up to MK_W
 * columns) only; every output's draws are at fixed indices and each tile positions its own
 * copies of the stream, so the thread count cannot change a bit. No reduction clauses. */
#include "srlab/kernels.h"

/* The vector helpers are static and inlined (or take arrays): the ABI note does not apply. */
#pragma GCC diagnostic ignored "-Wpsabi"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#if defined(__x86_64__)
#include <immintrin.h>
#endif

#include "core/pcg_impl.h"
#include "round/lanes.h"
#include "round/round_bulk.h"
#include "round/round_core.h"
#include "core/isa.h"
#include "linalg/kernels_priv.h"
#include "srl_config.h"
#include "srlab/ops.h"

/* Outputs (multiply-adds) below which a call stays on the calling thread. */
#define KERN_OMP_MIN ((size_t)1 << 15)

/* body(ctx, i) for i in [0, n): over the threads with a static schedule when `par`, else on the
 * calling thread without entering a parallel region at all (a region whose `if` clause is false
 * still makes libgomp set up a one-thread team: a measurable cost per call in tight training
 * loops). Iterations are independent outputs, so the split cannot change a result. */
static void kern_for(size_t n, bool par, void (*body)(void *ctx, size_t i), void *ctx)
{
    if (par && n > 1) {
#pragma omp parallel for schedule(static)
        for (size_t i = 0; i < n; i++)
            body(ctx, i);
    } else {
        for (size_t i = 0; i < n; i++)
            body(ctx, i);
    }
}

/* ================================================================================================
 * Configs: default, parse, name, validity, draw counts
 * ============================================================================================== */

static const srl_format *preset(const char *name)
{
    return srl_format_find(name);
}

srl_accum srl_accum_binary64(void)
{
    srl_accum c;
    memset(&c, 0, sizeof c);
    c.prod_fmt = *preset("fp64");
    c.acc_fmt = *preset("fp64");
    c.prod_mode = SRL_ROUND_RN;
    c.acc_mode = SRL_ROUND_RN;
    c.fma = false;
    c.order = SRL_ORDER_RECURSIVE;
    c.block = 0;
    c.kahan = false;
    return c;
}

#define SPEC_MAX 1024

/* "FMT[:MODE]" or "(SPEC)[:MODE]" into f and (when given) m. */
static int parse_fmt_mode(srl_format *f, srl_rounding *m, const char *key, char *val,
                          const char *spec, srl_err *err)
{
    char *fmt = val, *mode = NULL;
    if (val[0] == '(') {
        int depth = 0;
        char *p = val;
        for (; *p; p++) {
            if (*p == '(')
                depth++;
            else if (*p == ')' && --depth == 0)
                break;
        }
        if (!*p)
            return srl_err_set(err, SRL_EPARSE,
                               "accumulation config '%s': %s=%s: unbalanced parentheses", spec,
                               key, val);
        *p = '\0';
        fmt = val + 1;
        if (p[1] == ':')
            mode = p + 2;
        else if (p[1])
            return srl_err_set(err, SRL_EPARSE,
                               "accumulation config '%s': %s: expected ':MODE' after the format "
                               "in parentheses, found '%s'", spec, key, p + 1);
    } else {
        char *colon = strchr(val, ':');
        if (colon) {
            *colon = '\0';
            mode = colon + 1;
        }
    }
    srl_err sub;
    int st = srl_format_parse(f, fmt, &sub);
    if (st != SRL_OK) {
        const char *hint = strchr(fmt, '=') && !strchr(spec, '(')
                               ? " (put a custom format in parentheses: prod=(p=8,emax=127):rn)"
                               : "";
        return srl_err_set(err, st, "accumulation config '%s': %s: %s%s", spec, key, sub.msg,
                           hint);
    }
    if (mode) {
        st = srl_rounding_parse(m, mode, &sub);
        if (st != SRL_OK)
            return srl_err_set(err, st, "accumulation config '%s': %s: %s", spec, key, sub.msg);
    }
    return SRL_OK;
}

static int parse_onoff(bool *b, const char *key, const char *val, const char *spec, srl_err *err)
{
    if (!strcmp(val, "on"))
        *b = true;
    else if (!strcmp(val, "off"))
        *b = false;
    else
        return srl_err_set(err, SRL_EPARSE, "accumulation config '%s': %s=%s: expected on or off",
                           spec, key, val);
    return SRL_OK;
}

static int parse_order(srl_accum *c, const char *val, const char *spec, srl_err *err)
{
    if (!strcmp(val, "recursive")) {
        c->order = SRL_ORDER_RECURSIVE;
    } else if (!strcmp(val, "pairwise")) {
        c->order = SRL_ORDER_PAIRWISE;
    } else if (!strncmp(val, "blocked:", 8)) {
        const char *d = val + 8;
        size_t K = 0;
        if (!*d)
            return srl_err_set(err, SRL_EPARSE,
                               "accumulation config '%s': order=blocked:K needs a block size K",
                               spec);
        for (; *d; d++) {
            if (*d < '0' || *d > '9' || K > (SIZE_MAX - 9) / 10)
                return srl_err_set(err, SRL_EPARSE,
                                   "accumulation config '%s': order=%s: the block size must be "
                                   "a positive integer", spec, val);
            K = K * 10 + (size_t)(*d - '0');
        }
        c->order = SRL_ORDER_BLOCKED;
        c->block = K;
    } else {
        return srl_err_set(err, SRL_EPARSE,
                           "accumulation config '%s': unknown order '%s' (known: recursive, "
                           "pairwise, blocked:K)", spec, val);
    }
    return SRL_OK;
}

/* Contradictions a config can hold: the same test for the parser and the kernels. */
static int config_error(const srl_accum *c, const char **why)
{
    if ((unsigned)c->order > SRL_ORDER_BLOCKED)
        return *why = "unknown order", SRL_EINVAL;
    if (c->order == SRL_ORDER_BLOCKED && c->block == 0)
        return *why = "order=blocked:K needs K >= 1", SRL_EINVAL;
    if (c->kahan && c->order != SRL_ORDER_RECURSIVE)
        return *why = "kahan=on needs order=recursive", SRL_EINVAL;
    if (!srl_rounding_valid(c->acc_mode) || !srl_rounding_valid(c->prod_mode))
        return *why = "invalid rounding mode", SRL_EINVAL;
    if (c->acc_fmt.p < 2 || c->acc_fmt.p > 53 || c->prod_fmt.p < 2 || c->prod_fmt.p > 53)
        return *why = "invalid format", SRL_EINVAL;
    return SRL_OK;
}

int srl_accum_parse(srl_accum *c, const char *spec, srl_err *err)
{
    if (!c || !spec)
        return srl_err_set(err, SRL_EINVAL, "accumulation config: NULL argument");
    const size_t len = strlen(spec);
    if (len >= SPEC_MAX)
        return srl_err_set(err, SRL_EPARSE, "accumulation config is too long (%zu characters)",
                           len);
    char buf[SPEC_MAX];
    memcpy(buf, spec, len + 1);
    srl_accum t = *c;
    char *item = buf;
    while (*item) {
        /* the item ends at the next comma outside parentheses */
        char *end = item;
        int depth = 0;
        for (; *end && (*end != ',' || depth > 0); end++)
            depth += (*end == '(') - (*end == ')');
        const bool more = *end == ',';
        *end = '\0';
        char *eq = strchr(item, '=');
        if (!eq || eq == item)
            return srl_err_set(err, SRL_EPARSE,
                               "accumulation config '%s': '%s' is not KEY=VALUE (keys: prod, "
                               "acc, fma, order, kahan)", spec, item);
        *eq = '\0';
        char *val = eq + 1;
        int st;
        if (!strcmp(item, "prod"))
            st = parse_fmt_mode(&t.prod_fmt, &t.prod_mode, "prod", val, spec, err);
        else if (!strcmp(item, "acc"))
            st = parse_fmt_mode(&t.acc_fmt, &t.acc_mode, "acc", val, spec, err);
        else if (!strcmp(item, "fma"))
            st = parse_onoff(&t.fma, "fma", val, spec, err);
        else if (!strcmp(item, "kahan"))
            st = parse_onoff(&t.kahan, "kahan", val, spec, err);
        else if (!strcmp(item, "order"))
            st = parse_order(&t, val, spec, err);
        else
            st = srl_err_set(err, SRL_EPARSE,
                             "accumulation config '%s': unknown key '%s' (known: prod, acc, fma, "
                             "order, kahan)", spec, item);
        if (st != SRL_OK)
            return st;
        if (more && !end[1])
            return srl_err_set(err, SRL_EPARSE, "accumulation config '%s': trailing comma",
                               spec);
        item = more ? end + 1 : end;
    }
    const char *why = NULL;
    int st = config_error(&t, &why);
    if (st != SRL_OK)
        return srl_err_set(err, st, "accumulation config '%s': %s", spec, why);
    *c = t;
    return SRL_OK;
}

/* A preset's name, or the canonical custom spec in parentheses. */
static void format_text(char *b, size_t len, const srl_format *f)
{
    for (size_t i = 0; i < srl_format_preset_count(); i++) {
        if (srl_format_equal(srl_format_preset(i), f)) {
            snprintf(b, len, "%s", srl_format_preset(i)->name);
            return;
        }
    }
    srl_format t;
    if (srl_format_make(&t, f->p, f->emax, f->emin, f->subnormals, f->inf, f->saturate, NULL) ==
        SRL_OK)
        snprintf(b, len, "(%s)", t.name);
    else
        snprintf(b, len, "(invalid)");
}

const char *srl_accum_name(char *buf, size_t len, const srl_accum *c)
{
    if (!buf || len == 0)
        return buf;
    if (!c) {
        snprintf(buf, len, "invalid");
        return buf;
    }
    char pf[SRL_FORMAT_NAME_LEN + 2], af[SRL_FORMAT_NAME_LEN + 2], pm[16], am[16], ord[40];
    format_text(pf, sizeof pf, &c->prod_fmt);
    format_text(af, sizeof af, &c->acc_fmt);
    srl_rounding_name(pm, sizeof pm, c->prod_mode);
    srl_rounding_name(am, sizeof am, c->acc_mode);
    if (c->order == SRL_ORDER_BLOCKED)
        snprintf(ord, sizeof ord, "blocked:%zu", c->block);
    else
        snprintf(ord, sizeof ord, "%s", c->order == SRL_ORDER_PAIRWISE ? "pairwise" : "recursive");
    snprintf(buf, len, "prod=%s:%s,acc=%s:%s,fma=%s,order=%s,kahan=%s", pf, pm, af, am,
             c->fma ? "on" : "off", ord, c->kahan ? "on" : "off");
    return buf;
}

/* Accumulation roundings of one n-term sum (kernels.h, "Draws"). */
static uint64_t acc_rounds(size_t n, const srl_accum *c)
{
    if (n == 0)
        return 0;
    const uint64_t N = n;
    if (c->kahan)
        return 4 * N - 3;
    if (c->order == SRL_ORDER_PAIRWISE)
        return 2 * N - 1;
    if (c->order == SRL_ORDER_BLOCKED)
        return N + (N + c->block - 1) / c->block - 1;
    return N;
}

uint64_t srl_sum_draws(size_t n, const srl_accum *c)
{
    const char *why;
    if (!c || config_error(c, &why) != SRL_OK || !srl_rounding_is_stochastic(c->acc_mode))
        return 0;
    return acc_rounds(n, c);
}

/* Product draws of one n-term dot product. */
static uint64_t prod_draws(size_t n, const srl_accum *c)
{
    return (!c->fma && srl_rounding_is_stochastic(c->prod_mode)) ? (uint64_t)n : 0;
}

uint64_t srl_dot_draws(size_t n, const srl_accum *c)
{
    const char *why;
    if (!c || config_error(c, &why) != SRL_OK)
        return 0;
    return prod_draws(n, c) + srl_sum_draws(n, c);
}

uint64_t srl_axpy_draws(size_t n, const srl_accum *c)
{
    const char *why;
    if (!c || config_error(c, &why) != SRL_OK)
        return 0;
    const bool sto = srl_rounding_is_stochastic(c->acc_mode) || prod_draws(1, c) != 0;
    return sto ? 2 * (uint64_t)n : 0;
}

static uint64_t mul_sat(uint64_t a, uint64_t b)
{
    uint64_t r;
    return __builtin_mul_overflow(a, b, &r) ? UINT64_MAX : r;
}

uint64_t srl_gemv_draws(size_t m, size_t n, const srl_accum *c)
{
    return mul_sat(m, srl_dot_draws(n, c));
}

uint64_t srl_gemm_draws(size_t m, size_t n, size_t k, const srl_accum *c)
{
    return mul_sat(mul_sat(m, n), srl_dot_draws(k, c));
}

/* ================================================================================================
 * The scalar engine: one operation at a time (native / exact / slow, see the top)
 * ============================================================================================== */

typedef struct kcfg {
    const srl_format *pf, *af;
    srl_rounding pm, am;
    bool fma;         /* products enter the accumulation exactly */
    bool psto, asto;  /* product draws exist; accumulation draws exist */
    bool isf;         /* binary32 inputs: every product is exact in binary64 */
    srl_order order;
    size_t K;         /* block size (blocked) */
    bool kahan;
} kcfg;

static void kcfg_init(kcfg *k, const srl_accum *c, bool products, bool isf)
{
    k->pf = &c->prod_fmt;
    k->af = &c->acc_fmt;
    k->pm = c->prod_mode;
    k->am = c->acc_mode;
    k->fma = products && c->fma;
    k->psto = products && !c->fma && srl_rounding_is_stochastic(c->prod_mode);
    k->asto = srl_rounding_is_stochastic(c->acc_mode);
    k->isf = isf;
    k->order = c->order;
    k->K = c->block;
    k->kahan = c->kahan;
}

static bool format_is(const srl_format *f, int p, int emin, int emax)
{
    return f->p == p && f->emin == emin && f->emax == emax && f->subnormals && f->inf &&
           !f->saturate;
}

static bool is_binary32(const srl_format *f)
{
    return format_is(f, 24, -126, 127);
}

static bool is_binary64(const srl_format *f)
{
    return format_is(f, 53, -1022, 1023);
}

/* Is p = RN64(x*y) the exact product? (See the top of the file.) */
static inline bool prod_exact(const kcfg *k, double x, double y, double p)
{
    if (k->isf)
        return true;
    if (p == 0)
        return x == 0 || y == 0;
    if (!(fabs(p) >= 0x1p-968))
        return false;
    return fma(x, y, -p) == 0;
}

/* Is d = RN64(a + b) the exact sum? Knuth's TwoSum error is exact, so it is 0 iff d is. */
static inline bool sum_exact(double a, double b, double d)
{
    const double bp = d - a, ap = d - bp;
    return (a - ap) + (b - bp) == 0;
}

/* round(x*y) into f with m, with draw u of index idx: srl_op_apply_draw(SRL_MUL, ...). */
static double k_mul(const kcfg *k, double x, double y, const srl_format *f, srl_rounding m,
                    uint64_t u, const srl_rng *rng, uint64_t idx)
{
    const double p = x * y;
    if (prod_exact(k, x, y, p))
        return srl__round_one(p, f, m, u, rng, idx);
    return srl_op_apply_draw(SRL_MUL, x, y, 0.0, f, m, u, rng, idx);
}

/* round_acc(a + b): srl_op_apply_draw(SRL_ADD, a, b, ...). */
static double k_add(const kcfg *k, double a, double b, uint64_t u, const srl_rng *rng,
                    uint64_t idx)
{
    const double d = a + b;
    if (sum_exact(a, b, d) && (d != 0 || k->am.mode != SRL_RD))
        return srl__round_one(d, k->af, k->am, u, rng, idx);
    return srl_op_apply_draw(SRL_ADD, a, b, 0.0, k->af, k->am, u, rng, idx);
}

/* round_acc(a - b): srl_op_apply_draw(SRL_SUB, a, b, ...). */
static double k_sub(const kcfg *k, double a, double b, uint64_t u, const srl_rng *rng,
                    uint64_t idx)
{
    const double d = a - b;
    if (sum_exact(a, -b, d) && (d != 0 || k->am.mode != SRL_RD))
        return srl__round_one(d, k->af, k->am, u, rng, idx);
    return srl_op_apply_draw(SRL_SUB, a, b, 0.0, k->af, k->am, u, rng, idx);
}

/* round_acc(x*y + s): srl_op_apply_draw(SRL_FMA, x, y, s, ...). */
static double k_fma(const kcfg *k, double x, double y, double s, uint64_t u, const srl_rng *rng,
                    uint64_t idx)
{
    const double p = x * y;
    if (prod_exact(k, x, y, p)) {
        const double d = p + s;
        if (sum_exact(p, s, d) && (d != 0 || k->am.mode != SRL_RD))
            return srl__round_one(d, k->af, k->am, u, rng, idx);
    }
    return srl_op_apply_draw(SRL_FMA, x, y, s, k->af, k->am, u, rng, idx);
}

/* The terms of one sum: t_i = x_i (y == NULL) or the products x_i * y_i. */
typedef struct kterms {
    const void *x, *y;
    size_t sx, sy; /* strides, in elements */
} kterms;

static inline double term_at(const void *p, size_t i, bool isf)
{
    return isf ? (double)((const float *)p)[i] : ((const double *)p)[i];
}

/* One sum in progress: the definition, draw cursors positioned at the next index. */
typedef struct kseq {
    const kcfg *k;
    const kterms *tm;
    const srl_rng *rng;
    srl_rng gp, ga;  /* product draws, term-accumulation draws (used in index order) */
    uint64_t join0;  /* index of join slot 0 (the first accumulation index + n) */
} kseq;

static inline uint64_t cursor_next(srl_rng *g, bool on, uint64_t *idx)
{
    if (!on) {
        *idx = 0;
        return 0;
    }
    *idx = g->counter;
    return srl_rng_next(g);
}

/* t_i without fma: x_i (sum) or round_prod(x_i y_i) with the next product draw. */
static double seq_term(kseq *q, size_t i)
{
    const kcfg *k = q->k;
    const double x = term_at(q->tm->x, i * q->tm->sx, k->isf);
    if (!q->tm->y)
        return x;
    const double y = term_at(q->tm->y, i * q->tm->sy, k->isf);
    uint64_t idx;
    const uint64_t u = cursor_next(&q->gp, k->psto, &idx);
    return k_mul(k, x, y, k->pf, k->pm, u, q->rng, idx);
}

static double seq_start(kseq *q, size_t i)
{
    const kcfg *k = q->k;
    uint64_t idx, u;
    if (k->fma && q->tm->y) {
        const double x = term_at(q->tm->x, i * q->tm->sx, k->isf);
        const double y = term_at(q->tm->y, i * q->tm->sy, k->isf);
        u = cursor_next(&q->ga, k->asto, &idx);
        return k_mul(k, x, y, k->af, k->am, u, q->rng, idx);
    }
    const double t = seq_term(q, i);
    u = cursor_next(&q->ga, k->asto, &idx);
    return srl__round_one(t, k->af, k->am, u, q->rng, idx);
}

static double seq_add(kseq *q, double s, size_t i)
{
    const kcfg *k = q->k;
    uint64_t idx, u;
    if (k->fma && q->tm->y) {
        const double x = term_at(q->tm->x, i * q->tm->sx, k->isf);
        const double y = term_at(q->tm->y, i * q->tm->sy, k->isf);
        u = cursor_next(&q->ga, k->asto, &idx);
        return k_fma(k, x, y, s, u, q->rng, idx);
    }
    const double t = seq_term(q, i);
    u = cursor_next(&q->ga, k->asto, &idx);
    return k_add(k, s, t, u, q->rng, idx);
}

/* join(a, b) at absolute index idx (random access: pairwise joins are not in index order). */
static double seq_join_at(kseq *q, double a, double b, uint64_t idx)
{
    const uint64_t u = q->k->asto ? srl_rng_draw_at(q->rng, idx) : 0;
    return k_add(q->k, a, b, u, q->rng, idx);
}

static double seq_pairwise(kseq *q, size_t a, size_t b)
{
    if (b - a == 1)
        return seq_start(q, a);
    size_t h = 1;
    while (2 * h < b - a)
        h *= 2; /* the largest power of two below b - a */
    const double L = seq_pairwise(q, a, a + h); /* leaves in order: the cursors stay in order */
    const double R = seq_pairwise(q, a + h, b);
    return seq_join_at(q, L, R, q->join0 + (a + h) - 1);
}

static double seq_kahan(kseq *q, size_t n)
{
    const kcfg *k = q->k;
    double s = seq_start(q, 0), c = 0.0;
    for (size_t i = 1; i < n; i++) {
        uint64_t idx, u;
        double y;
        if (k->fma && q->tm->y) {
            const double xv = term_at(q->tm->x, i * q->tm->sx, k->isf);
            const double yv = term_at(q->tm->y, i * q->tm->sy, k->isf);
            u = cursor_next(&q->ga, k->asto, &idx);
            y = k_fma(k, xv, yv, -c, u, q->rng, idx);
        } else {
            const double t = seq_term(q, i);
            u = cursor_next(&q->ga, k->asto, &idx);
            y = k_sub(k, t, c, u, q->rng, idx);
        }
        u = cursor_next(&q->ga, k->asto, &idx);
        const double t = k_add(k, s, y, u, q->rng, idx);
        u = cursor_next(&q->ga, k->asto, &idx);
        const double z = k_sub(k, t, s, u, q->rng, idx);
        u = cursor_next(&q->ga, k->asto, &idx);
        c = k_sub(k, z, y, u, q->rng, idx);
        s = t;
    }
    return s;
}

/* Is the whole sum a plain binary64 loop? (binary64 inputs, binary64 rn products and sums.) */
static bool native64(const kcfg *k, bool products)
{
    return !k->isf && is_binary64(k->af) && k->am.mode == SRL_RN && !k->kahan &&
           k->order == SRL_ORDER_RECURSIVE &&
           (!products || k->fma || (is_binary64(k->pf) && k->pm.mode == SRL_RN));
}

/* One sum of n terms whose draws start at `base` (products first when they have draws). */
static double seq_eval(const kcfg *k, const kterms *tm, size_t n, const srl_rng *rng,
                       uint64_t base)
{
    if (n == 0)
        return 0.0;
    if (native64(k, tm->y != NULL)) {
        const double *x = (const double *)tm->x, *y = (const double *)tm->y;
        double s;
        if (!y) {
            s = x[0];
            for (size_t i = 1; i < n; i++)
                s = s + x[i * tm->sx];
        } else if (k->fma) {
            s = x[0] * y[0];
            for (size_t i = 1; i < n; i++)
                s = fma(x[i * tm->sx], y[i * tm->sy], s);
        } else {
            s = x[0] * y[0];
            for (size_t i = 1; i < n; i++)
                s = s + x[i * tm->sx] * y[i * tm->sy];
        }
        return s;
    }
    kseq q;
    memset(&q, 0, sizeof q);
    q.k = k;
    q.tm = tm;
    q.rng = rng;
    const uint64_t P = (k->psto && tm->y) ? (uint64_t)n : 0;
    if (k->psto && tm->y) {
        q.gp = *rng;
        srl_rng_seek(&q.gp, base);
    }
    if (k->asto) {
        q.ga = *rng;
        srl_rng_seek(&q.ga, base + P);
    }
    q.join0 = base + P + n;
    if (k->kahan)
        return seq_kahan(&q, n);
    if (k->order == SRL_ORDER_PAIRWISE)
        return seq_pairwise(&q, 0, n);
    /* recursive, or blocked: S_b summed recursively, then joined in block order */
    const size_t K = k->order == SRL_ORDER_BLOCKED ? k->K : n;
    srl_rng gj;
    memset(&gj, 0, sizeof gj);
    if (k->asto && K < n) {
        gj = *rng;
        srl_rng_seek(&gj, q.join0);
    }
    double tot = 0.0, blk = 0.0;
    for (size_t i = 0; i < n; i++) {
        blk = (i % K == 0) ? seq_start(&q, i) : seq_add(&q, blk, i);
        if ((i + 1) % K == 0 || i + 1 == n) {
            if (i < K) {
                tot = blk;
            } else {
                uint64_t idx;
                const uint64_t u = cursor_next(&gj, k->asto, &idx);
                tot = k_add(k, tot, blk, u, rng, idx);
            }
        }
    }
    return tot;
}

/* ================================================================================================
 * The vector engines (src/linalg/kernels_isa.h) and their fix-ups
 * ============================================================================================== */

#define MK_W 64            /* output columns (lanes) per tile */
#define MK_NV (MK_W / 8)   /* vectors of eight lanes per tile */

/* Product kinds: the binary32 product (prod binary32 rn, binary32 inputs); the binary64 product
 * (prod binary64 rn, binary64 inputs); the exact product unrounded (fma, or a product format
 * holding every product of binary32 numbers, with a deterministic mode); bit-logic rounding. */
enum { MK_PK_F32MUL = 0, MK_PK_F64MUL, MK_PK_EXACT, MK_PK_ROUND };
/* Accumulation kinds: binary32 hardware sum (acc binary32 rn, terms binary32 numbers); binary64
 * hardware sum (acc binary64 rn); exact sum then conversion to binary32 (acc binary32 rn, other
 * terms); exact sum then bit-logic rounding. */
enum { MK_AK_F32ADD = 0, MK_AK_F64ADD, MK_AK_CONV32, MK_AK_BITS };

/* Bit-logic rounding into one format: magnitudes (as binary64 bits) in [lo, hi] are its normal
 * range (within binary64's), where the grid spacing is 2^s ulps, s = 53 - p. */
typedef struct mk_round {
    int s;
    uint64_t lo, span, hi;
    srl_mode mode;
    int r;
} mk_round;

static void mk_round_init(mk_round *r, const srl_format *f, srl_rounding m)
{
    const double lo = f->xmin > 0x1p-1022 ? f->xmin : 0x1p-1022;
    r->s = 53 - f->p;
    r->lo = srl__bits(lo);
    r->hi = srl__bits(f->xmax);
    r->span = r->hi - r->lo;
    r->mode = m.mode;
    r->r = m.r;
}

/* The same on binary32 bits (the binary32-lane engine): s = 24 - p, [lo, hi] the format's normal
 * range within binary32's, as binary32 bits. */
typedef struct mk_round32 {
    int s;
    uint32_t lo, span, hi;
    srl_mode mode;
    int r;
} mk_round32;

static uint32_t bits32(float x)
{
    uint32_t b;
    memcpy(&b, &x, sizeof b);
    return b;
}

static void mk_round32_init(mk_round32 *r, const srl_format *f, srl_rounding m)
{
    const double lo = f->xmin > 0x1p-126 ? f->xmin : 0x1p-126;
    r->s = 24 - f->p;
    r->lo = bits32((float)lo);
    r->hi = bits32((float)f->xmax); /* exact: f is a subset of binary32 */
    r->span = r->hi - r->lo;
    r->mode = m.mode;
    r->r = m.r < 32 ? m.r : 32; /* sr:r=R, R > 32, decides at bit 32 here (kernels_isa.h) */
}

/* One tile: row i, columns j0 .. j0+w of C (see src/linalg/kernels_isa.h for the shapes). */
typedef struct mk_job {
    const void *a;
    size_t a_step;
    const void *b;
    size_t ldb;
    size_t k, K;
    int w;
    void *out;
    const kcfg *kc;
    const srl_rng *rng;
    mk_round pr, ar;
    mk_round32 pr32, ar32;
    int pk, ak;
    bool psto, asto;
    /* lane q's draws: first index idx0 + q*D; products idx + l, accumulation idx + P + l,
     * joins idx + P + k + b - 1; pcg32 states positioned at the first of each */
    uint64_t idx0, D, P;
    uint64_t m2, c2, inc; /* the pcg32 map of one draw (two outputs); the increment */
    uint64_t stp[MK_W], sta[MK_W], stj[MK_W];
} mk_job;

/* The full draw of the lane whose state (before the draw's first output) is st. */
static uint64_t scalar_draw(uint64_t st, uint64_t inc)
{
    return ((uint64_t)srl__pcg32_out(st) << 32) | srl__pcg32_out(st * SRL_PCG32_MULT + inc);
}

/* Recompute the flagged lanes of step l by the scalar definition: product (with its draw),
 * then start or add (with its draw). b: the lanes' B values, s: their sums before the step. */
static void mk_fix_term(const mk_job *jb, size_t l, int v, int first, double av, const double *b,
                        const double *s, double *r, const uint64_t *bad, const uint64_t *gp,
                        const uint64_t *ga)
{
    const kcfg *k = jb->kc;
    for (int q = 0; q < 8; q++) {
        if (!bad[q])
            continue;
        const uint64_t lane = 8 * (uint64_t)v + (uint64_t)q;
        const uint64_t base = jb->idx0 + lane * jb->D, ia = base + jb->P + l;
        const uint64_t ua = jb->asto ? scalar_draw(ga[q], jb->inc) : 0;
        if (k->fma) {
            r[q] = first ? k_mul(k, av, b[q], k->af, k->am, ua, jb->rng, ia)
                         : k_fma(k, av, b[q], s[q], ua, jb->rng, ia);
        } else {
            const uint64_t up = jb->psto ? scalar_draw(gp[q], jb->inc) : 0;
            const double t = k_mul(k, av, b[q], k->pf, k->pm, up, jb->rng, base + l);
            r[q] = first ? srl__round_one(t, k->af, k->am, ua, jb->rng, ia)
                         : k_add(k, s[q], t, ua, jb->rng, ia);
        }
    }
}

/* Recompute the flagged lanes of the join of block blk >= 1: round_acc(t + s). */
static void mk_fix_join(const mk_job *jb, size_t blk, int v, const double *t, const double *s,
                        double *r, const uint64_t *bad, const uint64_t *gj)
{
    const kcfg *k = jb->kc;
    for (int q = 0; q < 8; q++) {
        if (!bad[q])
            continue;
        const uint64_t lane = 8 * (uint64_t)v + (uint64_t)q;
        const uint64_t idx = jb->idx0 + lane * jb->D + jb->P + jb->k + blk - 1;
        const uint64_t u = jb->asto ? scalar_draw(gj[q], jb->inc) : 0;
        r[q] = k_add(k, t[q], s[q], u, jb->rng, idx);
    }
}

/* The specialised instances of the emulated engine: name, binary64 inputs, product kind,
 * accumulation kind, product mode, accumulation mode (the gen ones read them from the job). */
#define MK_GENERIC(X)                                                                             \
    X(f_gen, 0, jb->pk, jb->ak, jb->pr.mode, jb->ar.mode)                                         \
    X(d_gen, 1, jb->pk, jb->ak, jb->pr.mode, jb->ar.mode)
#define MK_SPECS(X)                                                                               \
    MK_GENERIC(X)                                                                                 \
    X(f_mul_sr, 0, MK_PK_F32MUL, MK_AK_BITS, SRL_RN, SRL_SR)                                      \
    X(f_ex_sr, 0, MK_PK_EXACT, MK_AK_BITS, SRL_RN, SRL_SR)                                        \
    X(f_rn_a32, 0, MK_PK_ROUND, MK_AK_F32ADD, SRL_RN, SRL_RN)                                     \
    X(f_rn_sr, 0, MK_PK_ROUND, MK_AK_BITS, SRL_RN, SRL_SR)

/* The binary32-lane engine's instances: name, product kind (MF_PK_P: the product itself;
 * MF_PK_ROUND), accumulation kind (MK_AK_F32ADD or MK_AK_BITS), modes. */
enum { MF_PK_P = 0, MF_PK_ROUND };
#define MF_GENERIC(X) X(gen, jb->pk, jb->ak, jb->pr32.mode, jb->ar32.mode)
#define MF_SPECS(X)                                                                               \
    MF_GENERIC(X)                                                                                 \
    X(p_sr, MF_PK_P, MK_AK_BITS, SRL_RN, SRL_SR)                                                  \
    X(r_a32, MF_PK_ROUND, MK_AK_F32ADD, SRL_RN, SRL_RN)                                           \
    X(r_sr, MF_PK_ROUND, MK_AK_BITS, SRL_RN, SRL_SR)                                              \
    X(r_rn, MF_PK_ROUND, MK_AK_BITS, SRL_RN, SRL_RN)

#define ISA(name) SRL_CAT(name, _base)
#define KERN_SPECIALISE 0
#include "linalg/kernels_isa.h"
#undef KERN_SPECIALISE
#undef ISA
#define KERN_SPECIALISE 1

#if defined(__GNUC__) && !defined(__clang__) && defined(__x86_64__)
#define KERN_MULTI_ISA 1
#pragma GCC push_options
#pragma GCC target("arch=x86-64-v3")
#define ISA(name) SRL_CAT(name, _v3)
#include "linalg/kernels_isa.h"
#undef ISA
#pragma GCC pop_options
#pragma GCC push_options
#pragma GCC target("arch=x86-64-v4")
#define ISA(name) SRL_CAT(name, _v4)
#include "linalg/kernels_isa.h"
#undef ISA
#pragma GCC pop_options
#else
#define KERN_MULTI_ISA 0
#endif

typedef void (*mk_fn)(mk_job *);

#define MK_ENUM(name, ...) MK_S_##name,
#define MF_ENUM(name, ...) MF_S_##name,
enum {
    MK_SPECS(MK_ENUM) MF_SPECS(MF_ENUM) MK_S_NAT_F32,
    MK_S_NAT_F32_FMA,
    MK_S_NAT_F64,
    MK_S_NAT_F64_FMA,
    MK_NS
};
#undef MK_ENUM
#undef MF_ENUM

/* baseline: every float instance is the generic one (see KERN_SPECIALISE) */
#define MK_ADDR_base(name, dbl, ...) ((dbl) ? mk_d_gen_base : mk_f_gen_base),
#define MK_ADDR_v3(name, ...) mk_##name##_v3,
#define MK_ADDR_v4(name, ...) mk_##name##_v4,
#define MF_ADDR_base(name, ...) mf_gen_base,
#define MF_ADDR_v3(name, ...) mf_##name##_v3,
#define MF_ADDR_v4(name, ...) mf_##name##_v4,

/* 0: baseline x86-64 (or another architecture), 1: x86-64-v3 (AVX2, FMA), 2: x86-64-v4. */
static int cpu_level(void)
{
    return srl__isa_level();
}

static int forced_level = -1; /* srl__kernels_isa */

static int isa_level(void)
{
    const int cpu = cpu_level();
    return forced_level >= 0 && forced_level < cpu ? forced_level : cpu;
}

int srl__kernels_isa(int force)
{
    forced_level = force;
    return isa_level();
}

static mk_fn mk_lookup(int spec, int lvl)
{
    static const mk_fn base[MK_NS] = {MK_SPECS(MK_ADDR_base) MF_SPECS(MF_ADDR_base) nat_f32_base,
                                      nat_f32_fma_base, nat_f64_base, nat_f64_fma_base};
#if KERN_MULTI_ISA
    static const mk_fn v3[MK_NS] = {MK_SPECS(MK_ADDR_v3) MF_SPECS(MF_ADDR_v3) nat_f32_v3,
                                    nat_f32_fma_v3, nat_f64_v3, nat_f64_fma_v3};
    static const mk_fn v4[MK_NS] = {MK_SPECS(MK_ADDR_v4) MF_SPECS(MF_ADDR_v4) nat_f32_v4,
                                    nat_f32_fma_v4, nat_f64_v4, nat_f64_fma_v4};
    if (lvl == 2)
        return v4[spec];
    if (lvl == 1)
        return v3[spec];
#endif
    (void)lvl;
    return base[spec];
}

/* Does the format hold every product of two binary32 numbers exactly? (At most 48 significant
 * bits, magnitudes in [2^-298, 2^256), and infinities for infinite inputs.) */
static bool holds_float_products(const srl_format *f)
{
    return f->p >= 48 && f->emin <= -298 && f->emax >= 256 && f->inf && !f->saturate;
}

/* The scan behind the binary32-lane engine: is every product a*b, a in A and b in B, a binary32
 * number? True when all are finite, none is subnormal, the significant bits of the two arrays
 * (24 - the fewest trailing zeros of a significand) sum to at most 24, and the exponents keep
 * every nonzero product within [2^-126, 2^128): then the significand product has at most 24 bits
 * and its exponent is in the normal range, so a*b is exact in binary32. Integer reductions
 * (or, min, max): the same answer in any order. */
typedef struct f32_stats {
    uint32_t ormant; /* OR of the significand fields */
    uint32_t emin, emax; /* min (over nonzero values) and max of the exponent fields */
    uint32_t sub;    /* a subnormal was seen */
} f32_stats;

static void f32_scan(f32_stats *st, const float *x, size_t n)
{
    uint32_t orm = 0, mn = 255, mx = 0, sub = 0;
    for (size_t i = 0; i < n; i++) {
        uint32_t b;
        memcpy(&b, &x[i], sizeof b);
        const uint32_t a = b & 0x7fffffffu, e = a >> 23;
        orm |= a & 0x7fffffu;
        mn = (a != 0 && e < mn) ? e : mn;
        mx = e > mx ? e : mx;
        sub |= (e == 0) & (a != 0);
    }
    st->ormant = orm;
    st->emin = mn;
    st->emax = mx;
    st->sub = sub;
}

static bool f32_products_exact(const float *A, size_t na, const float *B, size_t nb, int *bits)
{
    f32_stats a, b;
    f32_scan(&a, A, na);
    f32_scan(&b, B, nb);
    if (a.sub || b.sub || a.emax == 255 || b.emax == 255)
        return false;
    *bits = 0;
    if (a.emin == 255 || b.emin == 255)
        return true; /* an all-zero operand: every product is an exact zero */
    const int bits_a = 24 - __builtin_ctz(a.ormant | 0x800000u);
    const int bits_b = 24 - __builtin_ctz(b.ormant | 0x800000u);
    const int emin = (int)a.emin + (int)b.emin - 254, emax = (int)a.emax + (int)b.emax - 254;
    *bits = bits_a + bits_b;
    return bits_a + bits_b <= 24 && emin >= -126 && emax <= 126;
}

/* Choose the kinds and the instance of the binary32-lane engine (products known exact in
 * binary32, of at most pbits significant bits), or return -1 when it does not apply: a product
 * format wider than binary32, or an emulated accumulation whose terms are so wide that binary32
 * sums would often be inexact. (A binary32 sum s + t of an accumulator s of at most 24 bits and
 * a term t of b bits is exact whenever |t| >= 2^(b-24) |s|, roughly; with terms of at most 10 bits
 * the exceptions are rare enough for the slow fix-ups; wider terms go to the binary64 lanes.) */
static int mf_plan(mk_job *jb, const kcfg *k, int pbits)
{
    const srl_mode pm = k->pm.mode, am = k->am.mode;
    int pk;
    if (k->fma || (is_binary32(k->pf) && pm == SRL_RN) ||
        (holds_float_products(k->pf) && !srl__mode_stochastic(pm)))
        pk = MF_PK_P; /* the term is the (exact) product */
    else if (srl_format_fits_float(k->pf))
        pk = MF_PK_ROUND;
    else
        return -1;
    /* acc binary32 rn: RN32(s + t) of two binary32 numbers is the hardware sum (with fma too:
     * RN32(a*b + s) = RN32(p + s) for the exact product p) */
    const int ak = (is_binary32(k->af) && am == SRL_RN) ? MK_AK_F32ADD : MK_AK_BITS;
    const int tbits = pk == MF_PK_ROUND && k->pf->p < pbits ? k->pf->p : pbits;
    if (ak == MK_AK_BITS && tbits > 10)
        return -1;
    jb->pk = pk;
    jb->ak = ak;
    jb->psto = pk == MF_PK_ROUND && srl__mode_stochastic(pm);
    jb->asto = ak == MK_AK_BITS && srl__mode_stochastic(am);
    if (pk == MF_PK_ROUND)
        mk_round32_init(&jb->pr32, k->pf, k->pm);
    mk_round32_init(&jb->ar32, k->af, k->am);
    int spec = MF_S_gen;
    if (pk == MF_PK_P && ak == MK_AK_F32ADD)
        spec = MK_S_NAT_F32; /* unfused is exact here, fma or not */
    else if (pk == MF_PK_P && am == SRL_SR)
        spec = MF_S_p_sr;
    else if (pm == SRL_RN && ak == MK_AK_F32ADD)
        spec = MF_S_r_a32;
    else if (pm == SRL_RN && am == SRL_SR)
        spec = MF_S_r_sr;
    else if (pm == SRL_RN && am == SRL_RN)
        spec = MF_S_r_rn;
    return spec;
}

/* Choose the kinds and the instance for a config (see the MK_PK_* and MK_AK_* comments).
 * f32exact: the scan has shown every product to be a binary32 number, so RN32 of it is itself. */
static int mk_plan(mk_job *jb, const kcfg *k, bool isf, bool f32exact)
{
    const srl_mode pm = k->pm.mode, am = k->am.mode;
    int pk;
    if (k->fma)
        pk = MK_PK_EXACT;
    else if (isf && is_binary32(k->pf) && pm == SRL_RN)
        pk = f32exact ? MK_PK_EXACT : MK_PK_F32MUL;
    else if (!isf && is_binary64(k->pf) && pm == SRL_RN)
        pk = MK_PK_F64MUL;
    else if (isf && holds_float_products(k->pf) && !srl__mode_stochastic(pm))
        pk = MK_PK_EXACT;
    else
        pk = MK_PK_ROUND;
    const bool t_f32 = pk == MK_PK_F32MUL || (pk == MK_PK_ROUND && srl_format_fits_float(k->pf));
    int ak;
    if (is_binary32(k->af) && am == SRL_RN)
        ak = t_f32 ? MK_AK_F32ADD : MK_AK_CONV32;
    else if (is_binary64(k->af) && am == SRL_RN)
        ak = MK_AK_F64ADD;
    else
        ak = MK_AK_BITS;
    jb->pk = pk;
    jb->ak = ak;
    jb->psto = pk == MK_PK_ROUND && srl__mode_stochastic(pm);
    jb->asto = ak == MK_AK_BITS && srl__mode_stochastic(am);
    mk_round_init(&jb->pr, k->pf, k->pm);
    mk_round_init(&jb->ar, k->af, k->am);

    const int lvl = isa_level();
    int spec = isf ? MK_S_f_gen : MK_S_d_gen;
    if (isf) {
        if (pk == MK_PK_F32MUL && ak == MK_AK_F32ADD)
            spec = MK_S_NAT_F32;
        else if (k->fma && ak == MK_AK_CONV32 && lvl >= 1)
            spec = MK_S_NAT_F32_FMA;
        else if (pk == MK_PK_F32MUL && ak == MK_AK_BITS && am == SRL_SR)
            spec = MK_S_f_mul_sr;
        else if (pk == MK_PK_EXACT && ak == MK_AK_BITS && am == SRL_SR)
            spec = MK_S_f_ex_sr;
        else if (pk == MK_PK_ROUND && pm == SRL_RN && ak == MK_AK_F32ADD)
            spec = MK_S_f_rn_a32;
        else if (pk == MK_PK_ROUND && pm == SRL_RN && ak == MK_AK_BITS && am == SRL_SR)
            spec = MK_S_f_rn_sr;
    } else {
        if (pk == MK_PK_F64MUL && ak == MK_AK_F64ADD)
            spec = MK_S_NAT_F64;
        else if (k->fma && ak == MK_AK_F64ADD && lvl >= 1)
            spec = MK_S_NAT_F64_FMA;
    }
    return spec;
}

/* pcg32 states of lanes 0 .. w-1 whose first draws are first, first + D, ... */
static void mk_states(uint64_t *st, int w, const srl_rng *rng, uint64_t first, uint64_t mD,
                      uint64_t cD)
{
    srl_rng g = *rng;
    srl_rng_seek(&g, first);
    uint64_t s = g.g.p32.state;
    for (int q = 0; q < w; q++) {
        st[q] = s;
        s = s * mD + cD;
    }
    for (int q = w; q < MK_W; q++)
        st[q] = 0;
}

/* ================================================================================================
 * Drivers
 * ============================================================================================== */

/* A matrix product C = A B in one of the layouts: A_i[l] = A[i*a_row + l*a_step],
 * B[l, j] = B[l*n + j], C[i, j] = C[i*n + j]; binary32 or binary64 arrays. */
typedef struct gemm_args {
    void *C;
    const void *A, *B;
    size_t m, n, k;
    size_t a_row, a_step;
    bool isf;
} gemm_args;

/* The checks every kernel makes on its config and stream (kernels.h, "Errors"). */
static int check(const srl_accum *c, bool products, const srl_rng *rng, bool isf)
{
    const char *why;
    if (!c || config_error(c, &why) != SRL_OK)
        return SRL_EINVAL;
    const bool sto = srl_rounding_is_stochastic(c->acc_mode) ||
                     (products && !c->fma && srl_rounding_is_stochastic(c->prod_mode));
    if (sto && !rng)
        return SRL_EINVAL;
    if (isf && !srl_format_fits_float(&c->acc_fmt))
        return SRL_EINVAL;
    return SRL_OK;
}

static void advance(srl_rng *rng, uint64_t draws)
{
    if (rng && draws)
        srl_rng_seek(rng, rng->counter + draws);
}

static void store(void *C, size_t o, double v, bool isf)
{
    if (isf)
        ((float *)C)[o] = (float)v;
    else
        ((double *)C)[o] = v;
}

/* The engine for a valid call with m, n, k > 0: -1 for the scalar engine, else the instance
 * (jt filled). */
static int gemm_plan(const gemm_args *g, const srl_accum *c, const kcfg *kc, const srl_rng *rng,
                     mk_job *jt)
{
    const bool sto = kc->psto || kc->asto;
    if (c->order == SRL_ORDER_PAIRWISE || c->kahan || (sto && rng->kind != SRL_RNG_PCG32))
        return -1;
    memset(jt, 0, sizeof *jt);
    int spec = mk_plan(jt, kc, g->isf, false), pbits = 0;
    if (g->isf && spec != MK_S_NAT_F32 &&
        f32_products_exact(g->A, g->m * g->k, g->B, g->k * g->n, &pbits)) {
        const int s32 = mf_plan(jt, kc, pbits);
        spec = s32 >= 0 ? s32 : mk_plan(jt, kc, true, true);
    }
    return spec;
}

int srl__kernels_engine(const srl_accum *c, const void *A, const void *B, size_t m, size_t n,
                        size_t k, int isf, const srl_rng *rng)
{
    const gemm_args g = {NULL, A, B, m, n, k, k, 1, isf != 0};
    if (!c || check(c, true, rng, g.isf) != SRL_OK || !m || !n || !k)
        return -2;
    kcfg kc;
    kcfg_init(&kc, c, true, g.isf);
    mk_job jt;
    const int spec = gemm_plan(&g, c, &kc, rng, &jt);
    if (spec < 0)
        return SRL__ENGINE_SCALAR;
    switch (spec) {
    case MK_S_NAT_F32: return SRL__ENGINE_NATIVE32;
    case MK_S_NAT_F32_FMA: return SRL__ENGINE_NATIVE32_FMA;
    case MK_S_NAT_F64: return SRL__ENGINE_NATIVE64;
    case MK_S_NAT_F64_FMA: return SRL__ENGINE_NATIVE64_FMA;
    default: return spec >= MF_S_gen ? SRL__ENGINE_LANES32 : SRL__ENGINE_LANES64;
    }
}

/* One tile of output (i, j0..j0+w) on a lane engine. */
typedef struct gemm_tile_ctx {
    const gemm_args *g;
    const mk_job *jt;
    mk_fn fn;
    const srl_rng *rng;
    uint64_t c0, D;
    size_t es;
    uint64_t mD, cD;
} gemm_tile_ctx;

static void gemm_tile(void *vctx, size_t t)
{
    const gemm_tile_ctx *c = vctx;
    const gemm_args *g = c->g;
    const size_t m = g->m, n = g->n, k = g->k;
    const size_t jc = t / m, i = t % m, j0 = jc * MK_W;
    mk_job jb = *c->jt;
    jb.a = (const char *)g->A + i * g->a_row * c->es;
    jb.b = (const char *)g->B + j0 * c->es;
    jb.w = (int)(n - j0 < MK_W ? n - j0 : MK_W);
    jb.out = (char *)g->C + (i * n + j0) * c->es;
    jb.idx0 = c->c0 + (uint64_t)(i * n + j0) * c->D;
    if (jb.psto)
        mk_states(jb.stp, jb.w, c->rng, jb.idx0, c->mD, c->cD);
    if (jb.asto) {
        mk_states(jb.sta, jb.w, c->rng, jb.idx0 + jb.P, c->mD, c->cD);
        mk_states(jb.stj, jb.w, c->rng, jb.idx0 + jb.P + k, c->mD, c->cD);
    }
    c->fn(&jb);
}

/* One output C[o] on the scalar engine. */
typedef struct gemm_out_ctx {
    const gemm_args *g;
    const kcfg *kc;
    const srl_rng *rng;
    uint64_t c0, D;
    size_t es;
} gemm_out_ctx;

static void gemm_out(void *vctx, size_t o)
{
    const gemm_out_ctx *c = vctx;
    const gemm_args *g = c->g;
    const size_t n = g->n, i = o / n, j = o % n;
    kterms tm;
    tm.x = (const char *)g->A + i * g->a_row * c->es;
    tm.sx = g->a_step;
    tm.y = (const char *)g->B + j * c->es;
    tm.sy = n;
    store(g->C, o, seq_eval(c->kc, &tm, g->k, c->rng, c->c0 + (uint64_t)o * c->D), g->isf);
}

static int gemm_run(const gemm_args *g, const srl_accum *c, srl_rng *rng)
{
    if (!g->C || (!g->A && g->m && g->k) || (!g->B && g->n && g->k))
        return SRL_EINVAL;
    int st = check(c, true, rng, g->isf);
    if (st != SRL_OK)
        return st;
    const uint64_t D = srl_dot_draws(g->k, c);
    const uint64_t total = srl_gemm_draws(g->m, g->n, g->k, c);
    if (total == UINT64_MAX && D != 0)
        return SRL_ERANGE;
    const size_t m = g->m, n = g->n, k = g->k;
    if (m == 0 || n == 0)
        return SRL_OK;
    if (k == 0) { /* empty sums: +0 */
        for (size_t o = 0; o < m * n; o++)
            store(g->C, o, 0.0, g->isf);
        return SRL_OK;
    }
    kcfg kc;
    kcfg_init(&kc, c, true, g->isf);
    const uint64_t c0 = rng ? rng->counter : 0;
    const size_t es = g->isf ? sizeof(float) : sizeof(double);
    const bool sto = kc.psto || kc.asto;
    const bool par = (double)m * (double)n * (double)k >= (double)KERN_OMP_MIN;
    mk_job jt;
    const int spec = gemm_plan(g, c, &kc, rng, &jt);
    if (spec >= 0) {
        const mk_fn fn = mk_lookup(spec, isa_level());
        jt.a_step = g->a_step;
        jt.ldb = n;
        jt.k = k;
        jt.K = c->order == SRL_ORDER_BLOCKED ? c->block : k;
        jt.kc = &kc;
        jt.rng = rng;
        jt.D = D;
        jt.P = kc.psto ? k : 0;
        uint64_t mD = 1, cD = 0;
        if (sto) {
            jt.inc = rng->g.p32.inc;
            srl__lcg64_jump(&jt.m2, &jt.c2, SRL_PCG32_MULT, jt.inc, 2);
            srl__lcg64_jump(&mD, &cD, SRL_PCG32_MULT, jt.inc, 2 * D);
        }
        const size_t nch = (n + MK_W - 1) / MK_W, tiles = m * nch;
        gemm_tile_ctx tc = {g, &jt, fn, rng, c0, D, es, mD, cD};
        kern_for(tiles, par, gemm_tile, &tc);
    } else {
        gemm_out_ctx oc = {g, &kc, rng, c0, D, es};
        kern_for(m * n, par, gemm_out, &oc);
    }
    advance(rng, total);
    return SRL_OK;
}

int srl_gemm(double *C, const double *A, const double *B, size_t m, size_t n, size_t k,
             const srl_accum *c, srl_rng *rng)
{
    const gemm_args g = {C, A, B, m, n, k, k, 1, false};
    return gemm_run(&g, c, rng);
}

int srl_gemm_f(float *C, const float *A, const float *B, size_t m, size_t n, size_t k,
               const srl_accum *c, srl_rng *rng)
{
    const gemm_args g = {C, A, B, m, n, k, k, 1, true};
    return gemm_run(&g, c, rng);
}

int srl_gemm_tn_f(float *C, const float *A, const float *B, size_t m, size_t n, size_t k,
                  const srl_accum *c, srl_rng *rng)
{
    const gemm_args g = {C, A, B, m, n, k, 1, m, true}; /* A^T[i, l] = A[l*m + i] */
    return gemm_run(&g, c, rng);
}

/* Row l of B^T (n values) from B (n-by-k). */
typedef struct transpose_ctx {
    float *Bt;
    const float *B;
    size_t n, k;
} transpose_ctx;

static void transpose_row(void *vctx, size_t l)
{
    const transpose_ctx *c = vctx;
    for (size_t j = 0; j < c->n; j++)
        c->Bt[l * c->n + j] = c->B[j * c->k + l];
}

int srl_gemm_nt_f(float *C, const float *A, const float *B, size_t m, size_t n, size_t k,
                  const srl_accum *c, srl_rng *rng)
{
    /* B^T (k x n) once, so that the engines read rows of it: O(nk) copying for O(mnk) work. */
    if (!C || (!A && m && k) || (!B && n && k))
        return SRL_EINVAL;
    int st = check(c, true, rng, true);
    if (st != SRL_OK)
        return st;
    if (m == 0 || n == 0 || k == 0) {
        const gemm_args g = {C, A, B, m, n, k, k, 1, true};
        return gemm_run(&g, c, rng);
    }
    float *Bt = malloc(n * k * sizeof *Bt);
    if (!Bt)
        return SRL_ENOMEM;
    transpose_ctx tc = {Bt, B, n, k};
    kern_for(k, n * k >= KERN_OMP_MIN, transpose_row, &tc);
    const gemm_args g = {C, A, Bt, m, n, k, k, 1, true};
    st = gemm_run(&g, c, rng);
    free(Bt);
    return st;
}

/* Row i of y = A x. */
typedef struct gemv_ctx {
    double *y;
    const double *A, *x;
    size_t n;
    const kcfg *kc;
    const srl_rng *rng;
    uint64_t c0, D;
} gemv_ctx;

static void gemv_row(void *vctx, size_t i)
{
    const gemv_ctx *c = vctx;
    kterms tm;
    tm.x = c->A + i * c->n;
    tm.sx = 1;
    tm.y = c->x;
    tm.sy = 1;
    c->y[i] = seq_eval(c->kc, &tm, c->n, c->rng, c->c0 + (uint64_t)i * c->D);
}

int srl_gemv(double *y, const double *A, const double *x, size_t m, size_t n,
             const srl_accum *c, srl_rng *rng)
{
    if (!y || (!A && m && n) || (!x && n))
        return SRL_EINVAL;
    int st = check(c, true, rng, false);
    if (st != SRL_OK)
        return st;
    const uint64_t D = srl_dot_draws(n, c), total = srl_gemv_draws(m, n, c);
    if (total == UINT64_MAX && D != 0)
        return SRL_ERANGE;
    kcfg kc;
    kcfg_init(&kc, c, true, false);
    const uint64_t c0 = rng ? rng->counter : 0;
    gemv_ctx gc = {y, A, x, n, &kc, rng, c0, D};
    kern_for(m, (double)m * (double)n >= (double)KERN_OMP_MIN, gemv_row, &gc);
    advance(rng, total);
    return SRL_OK;
}

int srl_sum(double *s, const double *x, size_t n, const srl_accum *c, srl_rng *rng)
{
    if (!s || (!x && n))
        return SRL_EINVAL;
    int st = check(c, false, rng, false);
    if (st != SRL_OK)
        return st;
    kcfg kc;
    kcfg_init(&kc, c, false, false);
    const kterms tm = {x, NULL, 1, 0};
    *s = seq_eval(&kc, &tm, n, rng, rng ? rng->counter : 0);
    advance(rng, srl_sum_draws(n, c));
    return SRL_OK;
}

int srl_dot(double *s, const double *x, const double *y, size_t n, const srl_accum *c,
            srl_rng *rng)
{
    if (!s || ((!x || !y) && n))
        return SRL_EINVAL;
    int st = check(c, true, rng, false);
    if (st != SRL_OK)
        return st;
    kcfg kc;
    kcfg_init(&kc, c, true, false);
    const kterms tm = {x, y, 1, 1};
    *s = seq_eval(&kc, &tm, n, rng, rng ? rng->counter : 0);
    advance(rng, srl_dot_draws(n, c));
    return SRL_OK;
}

/* Elements per block of srl_axpy: each block positions its own copy of the stream. */
#define AXPY_BLOCK ((size_t)4096)

/* One block [lo, lo + AXPY_BLOCK) of srl_axpy, with its own copy of the stream. */
typedef struct axpy_ctx {
    double *y;
    const double *x;
    double alpha;
    size_t n;
    const kcfg *kc;
    const srl_rng *rng;
    uint64_t c0;
    bool sto;
} axpy_ctx;

static void axpy_block(void *vctx, size_t b)
{
    const axpy_ctx *c = vctx;
    const kcfg *kc = c->kc;
    const size_t lo = b * AXPY_BLOCK, hi = lo + AXPY_BLOCK < c->n ? lo + AXPY_BLOCK : c->n;
    srl_rng g;
    memset(&g, 0, sizeof g);
    if (c->sto) {
        g = *c->rng;
        srl_rng_seek(&g, c->c0 + 2 * (uint64_t)lo);
    }
    for (size_t i = lo; i < hi; i++) {
        uint64_t ip, ia;
        const uint64_t up = cursor_next(&g, c->sto, &ip), ua = cursor_next(&g, c->sto, &ia);
        if (kc->fma) {
            c->y[i] = k_fma(kc, c->alpha, c->x[i], c->y[i], ua, c->rng, ia);
        } else {
            const double t = k_mul(kc, c->alpha, c->x[i], kc->pf, kc->pm, up, c->rng, ip);
            c->y[i] = k_add(kc, c->y[i], t, ua, c->rng, ia);
        }
    }
}

int srl_axpy(double *y, double alpha, const double *x, size_t n, const srl_accum *c,
             srl_rng *rng)
{
    if ((!y || !x) && n)
        return SRL_EINVAL;
    int st = check(c, true, rng, false);
    if (st != SRL_OK)
        return st;
    kcfg kc;
    kcfg_init(&kc, c, true, false);
    const uint64_t total = srl_axpy_draws(n, c);
    axpy_ctx ac = {y, x, alpha, n, &kc, rng, rng ? rng->counter : 0, total != 0};
    kern_for((n + AXPY_BLOCK - 1) / AXPY_BLOCK, n >= KERN_OMP_MIN, axpy_block, &ac);
    advance(rng, total);
    return SRL_OK;
}
