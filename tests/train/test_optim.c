/* tests/train/test_optim.c: strategies, schedules and the optimizer step (include/srlab/
 * strategy.h, optim.h), suite `unit`.
 *
 *  1. Presets are exactly docs/design.md §7; keys override pieces; bad strategies are refused.
 *  2. Schedules and hyper-parameter checks.
 *  3. In binary64 (every slot fp64, update fp64) each optimizer equals a binary64 reference
 *     written here from the operation list of include/srlab/optim.h, bit for bit: the formulas
 *     (bias correction, eps outside the square root, coupled vs decoupled decay) are right.
 *  4. AdamW in fp32 against a binary64 reference from the same stored state, step after step:
 *     the difference must stay within a running error bound derived from u = 2^-24 (the standard
 *     model fl(a op b) = (a op b)(1 + d), |d| <= u, propagated operation by operation).
 *  5. The fused bf16 kernel equals the generic tiles bit for bit (Adam/AdamW, rn/sr:r=16, with
 *     and without decay, sizes that split into several chunks and threads).
 *  6. bf16-sr-exact, bf16-kahan and mp do exactly the operations their contracts state.
 *  7. lost-update counting. */
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "train/optim_impl.h"
#include "srlab/optim.h"
#include "srlab/run.h"
#include "srlab/strategy.h"
#include "srlab/tensor.h"
#include "../testutil.h"

#define SEED UINT64_C(0x0b71)

static bool slot_is(const srl_slot *s, const char *fmt, const char *mode)
{
    srl_rounding m;
    if (srl_rounding_parse(&m, mode, NULL))
        return false;
    return srl_format_equal(&s->fmt, srl_format_find(fmt)) && s->mode.mode == m.mode &&
           s->mode.r == m.r;
}

/* ---- 1. strategies ---- */

static srl_config *cfg_of(const char *const *kv)
{
    srl_config *c = srl_config_new();
    for (; kv && kv[0]; kv += 2)
        if (srl_config_set(c, kv[0], kv[1]))
            abort();
    return c;
}

static int strat_from(srl_strategy *s, const char *const *kv, srl_err *e)
{
    srl_config *c = cfg_of(kv);
    e->msg[0] = 0;
    int st = srl_strategy_from_config(s, c, e);
    srl_config_free(c);
    return st;
}

static void test_strategies(void)
{
    const long before = srl_test_failures;
    srl_strategy s;
    srl_err e;
    CHECK(srl_strategy_preset(&s, "fp32", &e) == SRL_OK, "fp32");
    CHECK(slot_is(&s.param, "fp32", "rn") && slot_is(&s.grad, "fp32", "rn") &&
              slot_is(&s.m, "fp32", "rn") && slot_is(&s.v, "fp32", "rn") && !s.has_master &&
              !s.kahan && s.arith == SRL_ARITH_FP32,
          "fp32 preset");
    CHECK(srl_strategy_preset(&s, "mp", &e) == SRL_OK, "mp");
    CHECK(s.has_master && slot_is(&s.master, "fp32", "rn") && slot_is(&s.param, "bf16", "rn") &&
              slot_is(&s.grad, "bf16", "rn") && slot_is(&s.m, "fp32", "rn") &&
              slot_is(&s.v, "fp32", "rn") && s.arith == SRL_ARITH_FP32 &&
              slot_is(&s.act, "bf16", "rn"),
          "mp preset");
    CHECK(srl_strategy_preset(&s, "bf16-rn", &e) == SRL_OK, "bf16-rn");
    CHECK(slot_is(&s.param, "bf16", "rn") && slot_is(&s.grad, "bf16", "rn") &&
              slot_is(&s.m, "bf16", "rn") && slot_is(&s.v, "bf16", "rn") && !s.has_master &&
              s.arith == SRL_ARITH_FP32,
          "bf16-rn preset");
    CHECK(srl_strategy_preset(&s, "bf16-sr", &e) == SRL_OK, "bf16-sr");
    CHECK(slot_is(&s.param, "bf16", "sr:r=16") && slot_is(&s.grad, "bf16", "rn") &&
              slot_is(&s.m, "bf16", "rn") && slot_is(&s.v, "bf16", "rn") &&
              s.arith == SRL_ARITH_FP32,
          "bf16-sr preset");
    CHECK(srl_strategy_preset(&s, "bf16-sr-exact", &e) == SRL_OK, "bf16-sr-exact");
    CHECK(slot_is(&s.param, "bf16", "sr") && s.arith == SRL_ARITH_FP64 &&
              slot_is(&s.m, "bf16", "rn"),
          "bf16-sr-exact preset");
    CHECK(srl_strategy_preset(&s, "bf16-kahan", &e) == SRL_OK, "bf16-kahan");
    CHECK(s.kahan && slot_is(&s.comp, "bf16", "rn") && slot_is(&s.param, "bf16", "rn"),
          "bf16-kahan preset");
    CHECK(srl_strategy_preset(&s, "bf16-fast", &e) == SRL_EPARSE && strstr(e.msg, "bf16-fast"),
          "unknown preset: %s", e.msg);

    /* overrides */
    const char *kv1[] = {"strategy", "bf16-rn", "state-rounding", "sr", "v-rounding", "rn",
                         "format", "fp16", "rounding", "sr:r=8", NULL};
    CHECK(strat_from(&s, kv1, &e) == SRL_OK, "%s", e.msg);
    CHECK(slot_is(&s.m, "bf16", "sr") && slot_is(&s.v, "bf16", "rn") &&
              slot_is(&s.param, "fp16", "sr:r=8") && !strcmp(s.name, "bf16-rn"),
          "overrides");
    const char *kv2[] = {"format", "bf16", "rounding", "sr", NULL};
    CHECK(strat_from(&s, kv2, &e) == SRL_OK && slot_is(&s.param, "bf16", "sr") &&
              slot_is(&s.grad, "fp32", "rn") && !strcmp(s.name, "custom"),
          "--format --rounding alone: the weight only, on fp32, named custom (not fp32)");
    const char *kv2b[] = {"strategy", "fp32", "rounding", "rn", "format", "fp32", NULL};
    CHECK(strat_from(&s, kv2b, &e) == SRL_OK && !strcmp(s.name, "fp32"),
          "fp32 with its own pieces given is fp32: %s", s.name);
    const char *kv3[] = {"strategy", "mp", "master-format", "none", NULL};
    CHECK(strat_from(&s, kv3, &e) == SRL_OK && !s.has_master, "master-format none");
    const char *kv4[] = {"format", "bf16", "param-format", "fp16", NULL};
    CHECK(strat_from(&s, kv4, &e) == SRL_EINVAL && strstr(e.msg, "param-format"),
          "conflicting shorthand: %s", e.msg);
    const char *kv4b[] = {"format", "bf16", "param-format", "bf16", NULL};
    CHECK(strat_from(&s, kv4b, &e) == SRL_OK, "the same value twice is fine");
    const char *kv5[] = {"strategy", "bf16-rn", "param-format", "fp64", NULL};
    CHECK(strat_from(&s, kv5, &e) == SRL_EINVAL && strstr(e.msg, "cannot hold") &&
              !strncmp(e.msg, "param-format", 12),
          "fp32 update cannot hold fp64 weights: %s", e.msg);
    const char *kv5b[] = {"strategy", "bf16-rn", "param-format", "fp64", "update-arith", "fp64",
                          NULL};
    CHECK(strat_from(&s, kv5b, &e) == SRL_OK, "fp64 weights with fp64 update: %s", e.msg);
    const char *kv6[] = {"strategy", "mp", "kahan", "on", NULL};
    CHECK(strat_from(&s, kv6, &e) == SRL_EINVAL && strstr(e.msg, "kahan"), "kahan + master");
    const char *kv7[] = {"strategy", "nope", NULL};
    CHECK(strat_from(&s, kv7, &e) == SRL_EPARSE && !strncmp(e.msg, "strategy:", 9),
          "unknown strategy named: %s", e.msg);
    const char *kv8[] = {"grad-format", "bf17", NULL};
    CHECK(strat_from(&s, kv8, &e) == SRL_EPARSE && !strncmp(e.msg, "grad-format:", 12),
          "bad format named: %s", e.msg);
    const char *kv9[] = {"update-arith", "fp16", NULL};
    CHECK(strat_from(&s, kv9, &e) != SRL_OK && !strncmp(e.msg, "update-arith:", 13),
          "bad arith: %s", e.msg);

    /* bytes per parameter, the seed paper's table for Adam */
    const char *names[] = {"fp32", "mp", "bf16-rn", "bf16-sr", "bf16-kahan"};
    const size_t adam[] = {16, 16, 8, 8, 10}, sgd[] = {8, 8, 4, 4, 6};
    for (int i = 0; i < 5; i++) {
        CHECK(srl_strategy_preset(&s, names[i], NULL) == SRL_OK, "preset");
        CHECK(srl_strategy_bytes(&s, true, true).total == adam[i], "%s adam: %zu", names[i],
              srl_strategy_bytes(&s, true, true).total);
        CHECK(srl_strategy_bytes(&s, false, false).total == sgd[i], "%s sgd", names[i]);
    }
    GROUP("strategy presets (docs/design.md §7), overrides, refusals, bytes", before);
}

/* ---- 2. schedules ---- */

static void test_schedules(void)
{
    const long before = srl_test_failures;
    srl_optim_config c = {SRL_OPTIM_SGD, 0.1, 0.9, 0.9, 0.999, 1e-8, 0, SRL_SCHED_CONSTANT, 0, 0, 100};
    srl_err e;
    CHECK(srl_optim_config_check(&c, &e) == SRL_OK, "%s", e.msg);
    CHECK(srl_optim_lr(&c, 1) == 0.1 && srl_optim_lr(&c, 100) == 0.1, "constant");
    c.warmup = 10;
    CHECK(srl_optim_lr(&c, 1) == 0.1 * 1 / 10 && srl_optim_lr(&c, 10) == 0.1 &&
              srl_optim_lr(&c, 11) == 0.1,
          "warm-up");
    c.schedule = SRL_SCHED_COSINE;
    c.lr_min = 0.01;
    CHECK(srl_optim_lr(&c, 100) == 0.01, "cosine ends at lr_min: %g", srl_optim_lr(&c, 100));
    CHECK(fabs(srl_optim_lr(&c, 55) - 0.055) < 1e-15, "cosine midpoint: %.17g",
          srl_optim_lr(&c, 55));
    CHECK(srl_optim_lr(&c, 10) == 0.1, "warm-up ends at the peak");
    CHECK(srl_optim_lr(&c, 11) < 0.1 && srl_optim_lr(&c, 11) > 0.0999, "cosine starts there");
    const double bad_lr[] = {0, -1, NAN, INFINITY};
    for (int i = 0; i < 4; i++) {
        srl_optim_config d = c;
        d.lr = bad_lr[i];
        CHECK(srl_optim_config_check(&d, &e) == SRL_EINVAL && !strncmp(e.msg, "lr:", 3),
              "lr %g refused: %s", bad_lr[i], e.msg);
    }
    srl_optim_config d = c;
    d.beta2 = 1;
    CHECK(srl_optim_config_check(&d, &e) == SRL_EINVAL && !strncmp(e.msg, "beta2:", 6), "beta2");
    d = c;
    d.warmup = 101;
    CHECK(srl_optim_config_check(&d, &e) == SRL_EINVAL && !strncmp(e.msg, "warmup:", 7), "warmup");
    d = c;
    d.lr_min = 0.2;
    CHECK(srl_optim_config_check(&d, &e) == SRL_EINVAL, "lr_min > lr");
    GROUP("schedules and hyper-parameter checks", before);
}

/* ---- helpers: a weight vector with its state ---- */

typedef struct bench {
    srl_weights W;
    srl_optim_config c;
} bench;

static void make(bench *b, const srl_strategy *s, srl_optim_kind k, size_t n, uint64_t seed,
                 const double *x0)
{
    srl_rng root;
    srl_rng_init(&root, SRL_RNG_PCG32, seed, 0);
    srl_weight_spec sp = {"w", 1, {n}};
    srl_err e;
    if (srl_weights_alloc(&b->W, &sp, 1, s, k, &root, &e) || srl_weights_init(&b->W, 0, x0, &e)) {
        fprintf(stderr, "setup: %s\n", e.msg);
        abort();
    }
    b->c = (srl_optim_config){k, 0.01, 0.9, 0.9, 0.999, 1e-8, 0.1, SRL_SCHED_CONSTANT, 0, 0, 1000};
}

static srl_strategy custom_fp64(void)
{
    srl_strategy s;
    const char *kv[] = {"strategy", "custom", "param-format", "fp64", "grad-format", "fp64",
                        "state-format", "fp64", "update-arith", "fp64", NULL};
    srl_err e;
    if (strat_from(&s, kv, &e))
        abort();
    return s;
}

/* Gradients with a wide spread of magnitudes (so eps matters for some elements). */
static void grads(double *g, size_t n, srl_rng *r)
{
    for (size_t i = 0; i < n; i++)
        g[i] = srl_rng_normal(r) * ldexp(1.0, -(int)srl_rng_below(r, 24));
}

/* ---- 3. binary64: exact equality with the operation list ---- */

static void ref64_step(double *x, double *m, double *v, const double *g, size_t n,
                       const srl_optim_config *c, uint64_t t, double lr)
{
    const double bc1 = 1.0 - pow(c->beta1, (double)t), bc2 = 1.0 - pow(c->beta2, (double)t);
    const double c1 = 1.0 - c->beta1, c2 = 1.0 - c->beta2;
    for (size_t i = 0; i < n; i++) {
        double d = g[i], s;
        if (c->kind != SRL_OPTIM_ADAMW && c->wd != 0)
            d = d + c->wd * x[i];
        switch (c->kind) {
        case SRL_OPTIM_SGD: s = lr * d; break;
        case SRL_OPTIM_MOMENTUM:
            m[i] = c->momentum * m[i] + d;
            s = lr * m[i];
            break;
        default:
            m[i] = c->beta1 * m[i] + c1 * d;
            v[i] = c->beta2 * v[i] + (c2 * d) * d;
            if (c->kind == SRL_OPTIM_ADAMW && c->wd != 0)
                s = lr * ((m[i] / bc1) / (sqrt(v[i] / bc2) + c->eps) + c->wd * x[i]);
            else
                s = lr * ((m[i] / bc1) / (sqrt(v[i] / bc2) + c->eps));
        }
        x[i] = x[i] - s;
    }
}

static void test_binary64_exact(void)
{
    const long before = srl_test_failures;
    const size_t n = 1500;
    srl_strategy s = custom_fp64();
    srl_rng r;
    srl_rng_init(&r, SRL_RNG_PCG64, SEED, 3);
    double *x = malloc(n * 8), *m = calloc(n, 8), *v = calloc(n, 8), *g = malloc(n * 8),
           *got = malloc(n * 8);
    for (int k = 0; k < SRL_OPTIM_COUNT; k++) {
        for (int decay = 0; decay < 2; decay++) {
            for (size_t i = 0; i < n; i++)
                x[i] = srl_rng_normal(&r);
            memset(m, 0, n * 8);
            memset(v, 0, n * 8);
            bench b;
            make(&b, &s, (srl_optim_kind)k, n, SEED, x);
            b.c.wd = decay ? 0.05 : 0;
            for (uint64_t t = 1; t <= 6; t++) {
                grads(g, n, &r);
                const double lr = 0.003 * (double)t;
                CHECK(srl_weights_set_grad_d(&b.W, 0, g, t) == SRL_OK, "grad");
                CHECK(srl_optim_step(NULL, &b.W, &b.c, t, lr) == SRL_OK, "step");
                ref64_step(x, m, v, g, n, &b.c, t, lr);
                srl_weights_values(got, &b.W, 0);
                size_t bad = 0;
                for (size_t i = 0; i < n; i++)
                    bad += !srl_test_same(got[i], x[i]);
                CHECK(bad == 0, "%s wd=%g step %llu: %zu of %zu weights differ from the "
                      "binary64 reference (first: %a vs %a)", srl_optim_names[k], b.c.wd,
                      (unsigned long long)t, bad, n, got[0], x[0]);
                if (b.W.p[0].m) {
                    srl_tensor_get_d(got, b.W.p[0].m, 0, n);
                    CHECK(!memcmp(got, m, n * 8), "%s: m differs", srl_optim_names[k]);
                }
                if (b.W.p[0].v) {
                    srl_tensor_get_d(got, b.W.p[0].v, 0, n);
                    CHECK(!memcmp(got, v, n * 8), "%s: v differs", srl_optim_names[k]);
                }
            }
            srl_weights_free(&b.W);
        }
    }
    free(x);
    free(m);
    free(v);
    free(g);
    free(got);
    GROUP("binary64: sgd, momentum, adam, adamw equal the written-out operations bit for bit",
          before);
}

/* ---- 4. AdamW fp32 against binary64 within a bound derived from u ---- */

/* A value and a bound on its absolute error against the exact real value. */
typedef struct ev {
    double v, e;
} ev;

static const double U = 0x1p-24;
/* Rounding of the binary64 reference itself (every bound below is computed in binary64 and
 * enlarged by this relative margin, which dominates the rounding of the bound arithmetic). */
static const double M64 = 1 + 0x1p-40;

static ev ev_exact(double v) { return (ev){v, 0}; }
/* A hyper-parameter rounded to binary32: relative error u. */
static ev ev_param(double v) { return (ev){v, U * fabs(v)}; }
static ev ev_add(ev a, ev b) { double s = a.v + b.v; return (ev){s, M64 * (a.e + b.e + U * (fabs(s) + a.e + b.e))}; }
static ev ev_sub(ev a, ev b) { return ev_add(a, (ev){-b.v, b.e}); }
static ev ev_mul(ev a, ev b)
{
    const double p = a.v * b.v;
    const double e = fabs(a.v) * b.e + fabs(b.v) * a.e + a.e * b.e;
    return (ev){p, M64 * (e + U * (fabs(p) + e))};
}
static ev ev_div(ev a, ev b) /* b.v - b.e > 0 */
{
    const double q = a.v / b.v;
    const double e = (a.e + fabs(q) * b.e) / (b.v - b.e);
    return (ev){q, M64 * (e + U * (fabs(q) + e))};
}
static ev ev_sqrt(ev a) /* a.v >= 0 */
{
    const double r = sqrt(a.v), lo = a.v - a.e > 0 ? sqrt(a.v - a.e) : 0;
    const double e = a.e / (r + lo > 0 ? r + lo : 1) > sqrt(a.e) ? sqrt(a.e) : a.e / (r + lo);
    return (ev){r, M64 * (e + U * (r + e))};
}

static void test_adamw_fp32(void)
{
    const long before = srl_test_failures;
    const size_t n = 4000;
    srl_strategy s;
    CHECK(srl_strategy_preset(&s, "fp32", NULL) == SRL_OK, "fp32");
    srl_rng r;
    srl_rng_init(&r, SRL_RNG_PCG64, SEED, 4);
    double *x0 = malloc(n * 8), *g = malloc(n * 8), *x = malloc(n * 8), *m = malloc(n * 8),
           *v = malloc(n * 8), *xn = malloc(n * 8), *mn = malloc(n * 8), *vn = malloc(n * 8);
    for (size_t i = 0; i < n; i++)
        x0[i] = (double)(float)srl_rng_normal(&r);
    bench b;
    make(&b, &s, SRL_OPTIM_ADAMW, n, SEED, x0);
    b.c.wd = 0.01;
    double worst = 0;
    for (uint64_t t = 1; t <= 40; t++) {
        grads(g, n, &r);
        for (size_t i = 0; i < n; i++)
            g[i] = (double)(float)g[i]; /* the stored gradient, exact in both */
        srl_weights_values(x, &b.W, 0);
        srl_tensor_get_d(m, b.W.p[0].m, 0, n);
        srl_tensor_get_d(v, b.W.p[0].v, 0, n);
        const double lr = 0.001;
        CHECK(srl_weights_set_grad_d(&b.W, 0, g, t) == SRL_OK, "grad");
        CHECK(srl_optim_step(NULL, &b.W, &b.c, t, lr) == SRL_OK, "step");
        srl_weights_values(xn, &b.W, 0);
        srl_tensor_get_d(mn, b.W.p[0].m, 0, n);
        srl_tensor_get_d(vn, b.W.p[0].v, 0, n);
        /* the exact step from the same stored state, with the error bound of the fp32 one */
        const double b1 = b.c.beta1, b2 = b.c.beta2;
        const ev B1 = ev_param(b1), C1 = ev_param(1 - b1), B2 = ev_param(b2), C2 = ev_param(1 - b2);
        const ev BC1 = ev_param(1 - pow(b1, (double)t)), BC2 = ev_param(1 - pow(b2, (double)t));
        const ev LR = ev_param(lr), WD = ev_param(b.c.wd), EPS = ev_param(b.c.eps);
        for (size_t i = 0; i < n; i++) {
            const ev X = ev_exact(x[i]), G = ev_exact(g[i]);
            const ev Mn = ev_add(ev_mul(B1, ev_exact(m[i])), ev_mul(C1, G));
            const ev Vn = ev_add(ev_mul(B2, ev_exact(v[i])), ev_mul(ev_mul(C2, G), G));
            const ev D = ev_div(ev_div(Mn, BC1), ev_add(ev_sqrt(ev_div(Vn, BC2)), EPS));
            const ev S = ev_mul(LR, ev_add(D, ev_mul(WD, X)));
            const ev XE = ev_sub(X, S);
            CHECK(fabs(mn[i] - Mn.v) <= Mn.e, "m: t=%llu i=%zu: %a vs %a, bound %g",
                  (unsigned long long)t, i, mn[i], Mn.v, Mn.e);
            CHECK(fabs(vn[i] - Vn.v) <= Vn.e, "v: t=%llu i=%zu", (unsigned long long)t, i);
            CHECK(fabs(xn[i] - XE.v) <= XE.e, "x: t=%llu i=%zu: fp32 %a, exact %a, |diff| %g > "
                  "bound %g", (unsigned long long)t, i, xn[i], XE.v, fabs(xn[i] - XE.v), XE.e);
            if (XE.e > 0 && fabs(xn[i] - XE.v) / XE.e > worst)
                worst = fabs(xn[i] - XE.v) / XE.e;
        }
    }
    printf("  adamw fp32: worst |fp32 - exact| / bound = %.3f\n", worst);
    srl_weights_free(&b.W);
    free(x0);
    free(g);
    free(x);
    free(m);
    free(v);
    free(xn);
    free(mn);
    free(vn);
    GROUP("adamw fp32 within the running error bound derived from u of a binary64 reference",
          before);
}

/* ---- 5. fused bf16 kernel == generic tiles ---- */

static void test_fast_path(void)
{
    const long before = srl_test_failures;
    const char *strat[] = {"bf16-rn", "bf16-sr"};
    const srl_optim_kind kinds[] = {SRL_OPTIM_ADAM, SRL_OPTIM_ADAMW};
    const size_t sizes[] = {1, 37, 8193, 70001};
    srl_rng r;
    srl_rng_init(&r, SRL_RNG_PCG64, SEED, 5);
    for (int si = 0; si < 2; si++)
        for (int ki = 0; ki < 2; ki++)
            for (int decay = 0; decay < 2; decay++)
                for (int zi = 0; zi < 4; zi++) {
                    const size_t n = sizes[zi];
                    srl_strategy s;
                    CHECK(srl_strategy_preset(&s, strat[si], NULL) == SRL_OK, "preset");
                    double *x0 = malloc(n * 8), *g = malloc(n * 8);
                    for (size_t i = 0; i < n; i++)
                        x0[i] = srl_rng_normal(&r);
                    bench a, b;
                    make(&a, &s, kinds[ki], n, SEED + n, x0);
                    make(&b, &s, kinds[ki], n, SEED + n, x0);
                    a.c.wd = b.c.wd = decay ? 0.05 : 0;
                    CHECK(srl__optim_fast_applies(&a.W), "fast path applies to %s", strat[si]);
                    for (uint64_t t = 1; t <= 4; t++) {
                        grads(g, n, &r);
                        if (t == 3 && n > 10)
                            g[5] = INFINITY, g[6] = NAN; /* non-finite values: counted alike */
                        CHECK(srl_weights_set_grad_d(&a.W, 0, g, t) == SRL_OK, "grad");
                        CHECK(srl_weights_set_grad_d(&b.W, 0, g, t) == SRL_OK, "grad");
                        srl_step_stats sa, sb;
                        CHECK(srl__optim_step_path(&sa, &a.W, &a.c, t, 0.01, SRL__PATH_AUTO) == 0,
                              "fast");
                        CHECK(srl__optim_step_path(&sb, &b.W, &b.c, t, 0.01,
                                                   SRL__PATH_GENERIC) == 0,
                              "generic");
                        CHECK(!memcmp(a.W.set.mem, b.W.set.mem, a.W.set.alloc),
                              "%s %s wd=%g n=%zu step %llu: tensors differ", strat[si],
                              srl_optim_names[kinds[ki]], a.c.wd, n, (unsigned long long)t);
                        CHECK(sa.lost == sb.lost && sa.nonfinite == sb.nonfinite &&
                                  sa.nonfinite_grad == sb.nonfinite_grad,
                              "stats differ: lost %llu/%llu nf %llu/%llu nfg %llu/%llu",
                              (unsigned long long)sa.lost, (unsigned long long)sb.lost,
                              (unsigned long long)sa.nonfinite, (unsigned long long)sb.nonfinite,
                              (unsigned long long)sa.nonfinite_grad,
                              (unsigned long long)sb.nonfinite_grad);
                    }
                    srl_weights_free(&a.W);
                    srl_weights_free(&b.W);
                    free(x0);
                    free(g);
                }
    GROUP("fused bf16 Adam/AdamW kernel == generic tiles, bit for bit", before);
}

/* ---- 6. the contracts of bf16-sr-exact, bf16-kahan, mp ---- */

static void test_contracts(void)
{
    const long before = srl_test_failures;
    const size_t n = 3001;
    const srl_format *bf16 = srl_format_find("bf16");
    srl_rng r;
    srl_rng_init(&r, SRL_RNG_PCG64, SEED, 6);
    double *x0 = malloc(n * 8), *g = malloc(n * 8), *x = malloc(n * 8), *gq = malloc(n * 8),
           *m = malloc(n * 8), *v = malloc(n * 8), *got = malloc(n * 8), *c = malloc(n * 8);
    for (size_t i = 0; i < n; i++)
        x0[i] = srl_rng_normal(&r);

    /* bf16-sr-exact, AdamW: binary64 arithmetic on the bf16 state, exact sr of the weight with
     * draw (t-1)*n + i of the weight's stream; moments rn */
    srl_strategy s;
    CHECK(srl_strategy_preset(&s, "bf16-sr-exact", NULL) == SRL_OK, "preset");
    bench b;
    make(&b, &s, SRL_OPTIM_ADAMW, n, SEED, x0);
    for (uint64_t t = 1; t <= 3; t++) {
        grads(g, n, &r);
        srl_weights_values(x, &b.W, 0);
        srl_tensor_get_d(m, b.W.p[0].m, 0, n);
        srl_tensor_get_d(v, b.W.p[0].v, 0, n);
        CHECK(srl_weights_set_grad_d(&b.W, 0, g, t) == SRL_OK, "grad");
        srl_tensor_get_d(gq, b.W.p[0].g, 0, n);
        for (size_t i = 0; i < n; i++)
            CHECK(gq[i] == srl_round(g[i], bf16, SRL_ROUND_RN, NULL), "grad rn bf16");
        CHECK(srl_optim_step(NULL, &b.W, &b.c, t, 0.01) == SRL_OK, "step");
        double *xr = malloc(n * 8);
        memcpy(xr, x, n * 8);
        ref64_step(xr, m, v, gq, n, &b.c, t, 0.01);
        srl_tensor_get_d(got, b.W.p[0].w, 0, n);
        for (size_t i = 0; i < n; i++) {
            srl_rng wr = b.W.p[0].w->rng;
            srl_rng_seek(&wr, (t - 1) * n + i);
            const double want = srl_round(xr[i], bf16, SRL_ROUND_SR, &wr);
            CHECK(srl_test_same(got[i], want), "sr-exact t=%llu i=%zu: %a vs %a",
                  (unsigned long long)t, i, got[i], want);
        }
        srl_tensor_get_d(got, b.W.p[0].m, 0, n);
        for (size_t i = 0; i < n; i++)
            CHECK(got[i] == srl_round(m[i], bf16, SRL_ROUND_RN, NULL), "m rn of binary64");
        free(xr);
    }
    srl_weights_free(&b.W);

    /* bf16-kahan, SGD: y = c - s; w <- RN(x + y); t = w - x; c <- RN(y - t), all binary32 */
    CHECK(srl_strategy_preset(&s, "bf16-kahan", NULL) == SRL_OK, "preset");
    make(&b, &s, SRL_OPTIM_SGD, n, SEED, x0);
    b.c.wd = 0;
    for (uint64_t t = 1; t <= 20; t++) {
        for (size_t i = 0; i < n; i++)
            g[i] = 1e-3 * srl_rng_normal(&r);
        srl_weights_values(x, &b.W, 0);
        srl_tensor_get_d(c, b.W.p[0].comp, 0, n);
        CHECK(srl_weights_set_grad_d(&b.W, 0, g, t) == SRL_OK, "grad");
        srl_tensor_get_d(gq, b.W.p[0].g, 0, n);
        CHECK(srl_optim_step(NULL, &b.W, &b.c, t, 0.01) == SRL_OK, "step");
        srl_tensor_get_d(got, b.W.p[0].w, 0, n);
        srl_tensor_get_d(m, b.W.p[0].comp, 0, n);
        for (size_t i = 0; i < n; i++) {
            const float sf = 0.01f * (float)gq[i];
            const float y = (float)c[i] - sf;
            const float wn = (float)srl_round((double)((float)x[i] + y), bf16, SRL_ROUND_RN, NULL);
            const float cn = (float)srl_round((double)(y - (wn - (float)x[i])), bf16,
                                              SRL_ROUND_RN, NULL);
            CHECK(got[i] == (double)wn && m[i] == (double)cn,
                  "kahan t=%llu i=%zu: w %a/%a c %a/%a", (unsigned long long)t, i, got[i],
                  (double)wn, m[i], (double)cn);
        }
    }
    srl_weights_free(&b.W);

    /* mp, AdamW: the master follows the fp32 strategy fed the same bf16 gradients, and the
     * weight is the master rounded to nearest bf16 after every step */
    srl_strategy s32;
    CHECK(srl_strategy_preset(&s, "mp", NULL) == SRL_OK, "mp");
    CHECK(srl_strategy_preset(&s32, "fp32", NULL) == SRL_OK, "fp32");
    bench b32;
    make(&b, &s, SRL_OPTIM_ADAMW, n, SEED, x0);
    make(&b32, &s32, SRL_OPTIM_ADAMW, n, SEED, x0);
    for (uint64_t t = 1; t <= 5; t++) {
        grads(g, n, &r);
        CHECK(srl_weights_set_grad_d(&b.W, 0, g, t) == SRL_OK, "grad");
        srl_tensor_get_d(gq, b.W.p[0].g, 0, n);
        CHECK(srl_weights_set_grad_d(&b32.W, 0, gq, t) == SRL_OK, "grad");
        CHECK(srl_optim_step(NULL, &b.W, &b.c, t, 0.01) == SRL_OK, "step");
        CHECK(srl_optim_step(NULL, &b32.W, &b32.c, t, 0.01) == SRL_OK, "step");
        srl_weights_values(x, &b.W, 0);
        srl_weights_values(got, &b32.W, 0);
        CHECK(!memcmp(x, got, n * 8), "mp master == fp32 run on the bf16 gradient");
        srl_tensor_get_d(got, b.W.p[0].w, 0, n);
        for (size_t i = 0; i < n; i++)
            CHECK(got[i] == srl_round(x[i], bf16, SRL_ROUND_RN, NULL), "mp weight = rn(master)");
    }
    CHECK(srl_weights_bytes_per_param(&b.W) == 16 && srl_weights_bytes_per_param(&b32.W) == 16,
          "16 bytes per parameter each");
    srl_weights_free(&b.W);
    srl_weights_free(&b32.W);
    free(x0);
    free(g);
    free(x);
    free(gq);
    free(m);
    free(v);
    free(got);
    free(c);
    GROUP("bf16-sr-exact, bf16-kahan and mp do the operations of their contracts", before);
}

/* ---- 7. lost updates ---- */

static void test_lost(void)
{
    const long before = srl_test_failures;
    /* bf16 rn weights 1.5 (spacing 2^-7), SGD lr 1: steps of 2^-9 are lost (< half a spacing),
     * of 2^-7 are not, of 0 do not count */
    const size_t n = 300;
    double *x0 = malloc(n * 8), *g = malloc(n * 8);
    for (size_t i = 0; i < n; i++) {
        x0[i] = 1.5;
        g[i] = i < 100 ? 0x1p-9 : i < 250 ? 0x1p-7 : 0;
    }
    srl_strategy s;
    const char *kv[] = {"format", "bf16", "rounding", "rn", NULL};
    srl_err e;
    CHECK(strat_from(&s, kv, &e) == SRL_OK, "strategy");
    bench b;
    make(&b, &s, SRL_OPTIM_SGD, n, SEED, x0);
    b.c.wd = 0;
    srl_step_stats st;
    CHECK(srl_weights_set_grad_d(&b.W, 0, g, 1) == SRL_OK, "grad");
    CHECK(srl_optim_step(&st, &b.W, &b.c, 1, 1.0) == SRL_OK, "step");
    CHECK(st.lost == 100 && st.nonfinite == 0, "lost %llu (want 100)", (unsigned long long)st.lost);
    srl_weights_free(&b.W);
    /* fp32 weights: a step of 2^-30 vanishes in the arithmetic itself: also lost */
    CHECK(srl_strategy_preset(&s, "fp32", NULL) == SRL_OK, "fp32");
    for (size_t i = 0; i < n; i++)
        g[i] = i < 10 ? 0x1p-30 : 0;
    make(&b, &s, SRL_OPTIM_SGD, n, SEED, x0);
    b.c.wd = 0;
    CHECK(srl_weights_set_grad_d(&b.W, 0, g, 1) == SRL_OK, "grad");
    CHECK(srl_optim_step(&st, &b.W, &b.c, 1, 1.0) == SRL_OK, "step");
    CHECK(st.lost == 10, "fp32: lost %llu (want 10)", (unsigned long long)st.lost);
    /* an overflowing step: counted as non-finite */
    g[0] = 3e38;
    CHECK(srl_weights_set_grad_d(&b.W, 0, g, 2) == SRL_OK, "grad");
    CHECK(srl_optim_step(&st, &b.W, &b.c, 2, 100.0) == SRL_OK, "step");
    CHECK(st.nonfinite == 1, "non-finite %llu", (unsigned long long)st.nonfinite);
    srl_weights_free(&b.W);
    free(x0);
    free(g);
    GROUP("lost updates and non-finite weights are counted", before);
}

int main(void)
{
    test_strategies();
    test_schedules();
    test_binary64_exact();
    test_adamw_fp32();
    test_fast_path();
    test_contracts();
    test_lost();
    TEST_END();
}
