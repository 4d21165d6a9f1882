/* tests/problems/test_gpt.c: the GPT of src/problems/gpt.c.
 *
 *   grad     every analytic gradient of the binary64 pass (every element of every parameter
 *            tensor of a small model) against central differences D(h) = (f(x+h) - f(x-h)) / 2h,
 *            h = 2^-16, in binary64. Tolerance for element i:
 *                2 |D(2h) - D(h)| / 3  +  2 delta / h
 *            The first term bounds the truncation error h^2 f'''/6 of D(h): D(2h) - D(h) =
 *            3 h^2 f'''/6 + O(h^4), doubled to cover the O(h^4) rest and the rounding in that
 *            estimate. The second bounds the rounding: each computed f is within delta of the
 *            exact one, delta = N u64 (|f| + 1) with N the number of floating-point operations of
 *            the pass (an upper bound on the length of any chain of roundings) and u64 = 2^-53.
 *   plain    the _emu pass under the fp32 strategy (binary32 rn products and recursive binary32
 *            accumulation through the kernels, fp32 act and grad slots) equals the _plain pass
 *            (ordinary float loops) bit for bit: loss, every activation and every gradient, at
 *            vocabularies 13 and 1500 (the plain head in panels of columns); and
 *            20 AdamW steps of `srlab train --problem gpt --strategy fp32` end on exactly the
 *            weights of a plain float loop (the _plain pass and an AdamW step written out in
 *            float as include/srlab/optim.h defines it). Any extra or missing rounding, or a
 *            different order of operations, breaks the equality.
 *   formats  with act fp16 sr, grad bf16 sr and a stochastic fp16 accumulation every stored
 *            activation of the _emu pass is a value of the act format and every stored gradient a
 *            value of the grad format; a training run with those keys keeps every weight, gradient
 *            and moment tensor in its format (srl_tensor_check after every step).
 *   fp32     the fp32 strategy's logits against the binary64 pass's, within 6 standard
 *            deviations of the probabilistic first-order error model (see logits_var).
 *   replicas shared SR streams keep K = 3 replicas bit-identical for 1000 steps (every tensor,
 *            every byte); independent streams make them differ.
 *   stat     independent streams: the squared replica distance after the run against theory/T12's
 *            random-walk prediction, within 5 standard errors estimated from the coordinates.
 * Seeds are fixed; failures print the seed and the element. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#ifdef _OPENMP
#include <omp.h>
#endif

#include "problems/gpt_impl.h"
#include "srlab/optim.h"
#include "srlab/run.h"
#include "srlab/tensor.h"
#include "../testutil.h"

/* ---- helpers ---- */

static srl_config *cfg_of(const char *const *kv)
{
    srl_config *c = srl_config_new();
    for (size_t i = 0; kv[i]; i += 2)
        if (srl_config_set(c, kv[i], kv[i + 1]) != SRL_OK)
            return NULL;
    return c;
}

static int null_begin(void *ctx, size_t n, const char *const *names, const srl_col_kind *k)
{
    (void)ctx, (void)n, (void)names, (void)k;
    return 0;
}

static int null_row(void *ctx, const srl_value *v)
{
    (void)ctx, (void)v;
    return 0;
}

typedef struct small {
    srl__gpt_dims d;
    srl_weight_spec specs[GP_COUNT];
    size_t off[GP_COUNT], flat, numel;
    srl__gpt_layout lay;
} small;

static void small_init(small *s, size_t V, size_t T, size_t C, size_t L, size_t NH, size_t B)
{
    s->d = (srl__gpt_dims){V, T, C, L, NH, B};
    srl__gpt_specs(s->specs, &s->d);
    size_t off = 0, n = 0;
    for (int j = 0; j < GP_COUNT; j++) {
        size_t e = 1;
        for (int a = 0; a < s->specs[j].ndim; a++)
            e *= s->specs[j].shape[a];
        s->off[j] = off;
        off += (e + 15) & ~(size_t)15;
        n += e;
    }
    s->flat = off;
    s->numel = n;
    srl__gpt_layout_make(&s->lay, &s->d, 1);
}

static size_t nel(const small *s, int j)
{
    size_t e = 1;
    for (int a = 0; a < s->specs[j].ndim; a++)
        e *= s->specs[j].shape[a];
    return e;
}

/* Parameters with O(1) gradients: matrices N(0, 0.3^2), gains 1 + N(0, 0.2^2), biases
 * N(0, 0.1^2). */
static void random_params(const small *s, double *x, uint64_t seed)
{
    srl_rng r;
    srl_rng_init(&r, SRL_RNG_PCG32, seed, 0);
    memset(x, 0, s->flat * sizeof *x);
    for (int j = 0; j < GP_COUNT; j++) {
        const bool gain = j == GP_LN1W || j == GP_LN2W || j == GP_LNFW;
        const bool bias = j == GP_LN1B || j == GP_LN2B || j == GP_LNFB;
        for (size_t i = 0; i < nel(s, j); i++)
            x[s->off[j] + i] = gain   ? 1 + 0.2 * srl_rng_normal(&r)
                               : bias ? 0.1 * srl_rng_normal(&r)
                                      : 0.3 * srl_rng_normal(&r);
    }
}

static void random_tokens(int32_t *tok, size_t n, size_t V, uint64_t seed)
{
    srl_rng r;
    srl_rng_init(&r, SRL_RNG_PCG32, seed, 1);
    for (size_t i = 0; i < n; i++)
        tok[i] = (int32_t)srl_rng_below(&r, V);
}

static double loss_f64(const small *s, const double *x, const int32_t *tok, double *acts,
                       double *rowl)
{
    srl__gpt_pass ps;
    memset(&ps, 0, sizeof ps);
    ps.d = s->d;
    ps.lay = &s->lay;
    ps.off = s->off;
    ps.row_loss = rowl;
    double ls;
    if (srl__gpt_pass_f64(&ps, x, NULL, tok, acts, &ls))
        return NAN;
    return ls / (double)(s->d.B * s->d.T);
}

/* ---- grad ---- */

static void test_grad(void)
{
    long before = srl_test_failures;
    small s;
    small_init(&s, 5, 4, 8, 2, 2, 3);
    const uint64_t seed = 21;
    double *x = malloc(s.flat * sizeof *x), *g = calloc(s.flat, sizeof *g);
    double *acts = calloc(s.lay.total, sizeof *acts), *rowl = calloc(64, sizeof *rowl);
    int32_t tok[3 * 5];
    random_params(&s, x, seed);
    random_tokens(tok, 15, s.d.V, seed);
    srl__gpt_pass ps;
    memset(&ps, 0, sizeof ps);
    ps.d = s.d;
    ps.lay = &s.lay;
    ps.off = s.off;
    ps.row_loss = rowl;
    double ls;
    CHECK(srl__gpt_pass_f64(&ps, x, g, tok, acts, &ls) == SRL_OK, "pass failed");
    const double f0 = ls / (double)(s.d.B * s.d.T);
    /* operations of one pass: about 2 x (2 P BT + attention + 30 BT C L) multiply-adds */
    const double BT = (double)(s.d.B * s.d.T), C = (double)s.d.C, T = (double)s.d.T;
    const double N = 2 * (2.0 * (double)s.numel * BT + 4 * BT * T * C * (double)s.d.L +
                          40 * BT * C * (double)s.d.L + 10 * BT * (double)s.d.V);
    const double h = ldexp(1.0, -16), delta = N * ldexp(1.0, -53) * (fabs(f0) + 1);
    double worst = 0;
    for (int j = 0; j < GP_COUNT; j++) {
        size_t bad = 0;
        for (size_t i = 0; i < nel(&s, j); i++) {
            double *xi = x + s.off[j] + i;
            const double x0 = *xi;
            double f[4];
            const double st[4] = {h, -h, 2 * h, -2 * h};
            for (int q = 0; q < 4; q++) {
                *xi = x0 + st[q];
                f[q] = loss_f64(&s, x, tok, acts, rowl);
            }
            *xi = x0;
            const double D1 = (f[0] - f[1]) / (2 * h), D2 = (f[2] - f[3]) / (4 * h);
            const double tol = 2 * fabs(D2 - D1) / 3 + 2 * delta / h;
            const double an = g[s.off[j] + i], e = fabs(an - D1);
            if (e / (tol + 1e-300) > worst)
                worst = e / (tol + 1e-300);
            if (!(e <= tol) && bad++ < 3)
                CHECK(0, "seed %llu: d loss / d %s[%zu]: analytic %.12g, central difference "
                      "%.12g (2h: %.12g), error %.3g > tolerance %.3g",
                      (unsigned long long)seed, s.specs[j].name, i, an, D1, D2, e, tol);
        }
    }
    printf("gradient check: %zu parameters, largest error / tolerance %.3g\n", s.numel, worst);
    free(x);
    free(g);
    free(acts);
    free(rowl);
    GROUP("gpt: every analytic gradient against central differences (binary64)", before);
}

/* ---- plain ---- */

/* V: the vocabulary; above 1024 the plain pass takes the head's products in panels of columns
 * (src/problems/model_ops.h, mm_rows), with a last partial panel at 1500. */
static void test_plain_pass(size_t V)
{
    long before = srl_test_failures;
    small s;
    small_init(&s, V, 16, 32, 2, 4, 4);
    double *xd = malloc(s.flat * sizeof *xd);
    float *x = calloc(s.flat, sizeof *x), *g1 = calloc(s.flat, sizeof *g1);
    float *g2 = calloc(s.flat, sizeof *g2);
    float *a1 = calloc(s.lay.total, sizeof *a1), *a2 = calloc(s.lay.total, sizeof *a2);
    double r1[64 * 16], r2[64 * 16];
    int32_t tok[4 * 17];
    random_params(&s, xd, 5);
    for (size_t i = 0; i < s.flat; i++)
        x[i] = (float)xd[i];
    random_tokens(tok, 4 * 17, s.d.V, 5);
    srl_strategy st;
    srl_err e;
    CHECK(srl_strategy_preset(&st, "fp32", &e) == SRL_OK, "%s", e.msg);
    srl_rng rng;
    srl_rng_init(&rng, SRL_RNG_PCG32, 5, 9);
    srl__gpt_pass ps;
    memset(&ps, 0, sizeof ps);
    ps.d = s.d;
    ps.lay = &s.lay;
    ps.off = s.off;
    ps.accum = &st.accum_cfg;
    ps.act = st.act;
    ps.grad = st.grad;
    ps.rng = &rng;
    ps.row_loss = r1;
    double l1, l2;
    CHECK(srl__gpt_pass_emu(&ps, x, g1, tok, a1, &l1) == SRL_OK, "emu pass failed");
    ps.row_loss = r2;
    ps.rng = NULL;
    CHECK(srl__gpt_pass_plain(&ps, x, g2, tok, a2, &l2) == SRL_OK, "plain pass failed");
    CHECK(srl_test_same(l1, l2), "loss: emu %.17g, plain %.17g", l1, l2);
    size_t nbad = 0;
    for (size_t i = 0; i < s.lay.total; i++) {
        if (i >= s.lay.tsc && i < s.lay.dlogits)
            continue; /* the plain pass's transposition scratch */
        if (memcmp(&a1[i], &a2[i], sizeof(float)) && nbad++ < 5)
            CHECK(0, "activation element %zu: emu %.9g, plain %.9g", i, a1[i], a2[i]);
    }
    for (int j = 0; j < GP_COUNT; j++)
        for (size_t i = 0; i < nel(&s, j); i++)
            if (memcmp(&g1[s.off[j] + i], &g2[s.off[j] + i], sizeof(float)) && nbad++ < 10)
                CHECK(0, "gradient %s[%zu]: emu %.9g, plain %.9g", s.specs[j].name, i,
                      g1[s.off[j] + i], g2[s.off[j] + i]);
    CHECK(nbad == 0, "%zu elements differ", nbad);
    free(xd);
    free(x);
    free(g1);
    free(g2);
    free(a1);
    free(a2);
    printf("vocabulary %zu\n", V);
    GROUP("gpt: the fp32 strategy's pass equals plain float bit for bit", before);
}

/* AdamW in float as include/srlab/optim.h defines the fp32 step. */
static void plain_adamw(float *p, const float *g, float *m, float *v, size_t n, uint64_t t,
                        const srl_optim_config *c)
{
    const float lr = (float)c->lr, wd = (float)c->wd, eps = (float)c->eps;
    const float b1 = (float)c->beta1, b2 = (float)c->beta2;
    const float c1 = (float)(1 - c->beta1), c2 = (float)(1 - c->beta2);
    const float bc1 = (float)(1 - pow(c->beta1, (double)t)), bc2 = (float)(1 - pow(c->beta2, (double)t));
    for (size_t i = 0; i < n; i++) {
        const float m1 = b1 * m[i] + c1 * g[i], v1 = b2 * v[i] + (c2 * g[i]) * g[i];
        const float s = lr * ((m1 / bc1) / (sqrtf(v1 / bc2) + eps) + wd * p[i]);
        m[i] = m1;
        v[i] = v1;
        p[i] = p[i] - s;
    }
}

typedef struct capture {
    float *w; /* replica 0's weights after the last step, flat */
    const size_t *off;
    uint64_t steps;
} capture;

static int capture_hook(void *arg, const srl_weights *W, size_t K, uint64_t t, const double *pv)
{
    (void)K, (void)pv;
    capture *c = arg;
    if (t == c->steps)
        for (size_t j = 0; j < W[0].count; j++)
            srl_tensor_get_f(c->w + c->off[j], W[0].p[j].w, 0, W[0].p[j].n);
    return 0;
}

static void test_plain_training(void)
{
    long before = srl_test_failures;
    const char *kv[] = {"strategy", "fp32", "opt", "adamw", "lr", "0.003", "wd", "0.1",
                        "steps", "20", "log-every", "20", "n-layer", "2", "n-embd", "16",
                        "n-head", "2", "block-size", "8", "batch-size", "4", "vocab", "7",
                        "seed", "4", "data-tokens", "4096", "eval-windows", "2", NULL};
    srl_config *cfg = cfg_of(kv);
    srl_err e;
    srl__gpt_problem *p = NULL;
    if (srl__gpt_problem_new(&p, cfg, &e) != SRL_OK) {
        CHECK(0, "%s", e.msg);
        srl_config_free(cfg);
        return;
    }
    const srl__model *m = srl__gpt_problem_model(p);
    const srl_train_config *tc = srl__gpt_problem_train_config(p);
    const srl__gpt_dims *d = srl__gpt_problem_dims(p);
    /* the plain float loop */
    double *x0 = calloc(m->flat, sizeof *x0);
    float *w = calloc(m->flat, sizeof *w), *g = calloc(m->flat, sizeof *g);
    float *mm = calloc(m->flat, sizeof *mm), *vv = calloc(m->flat, sizeof *vv);
    srl__gpt_layout lay;
    srl__gpt_layout_make(&lay, d, 1);
    float *acts = calloc(lay.total, sizeof *acts);
    double *rowl = calloc(d->B * d->T, sizeof *rowl);
    int32_t *tok = calloc(d->B * (d->T + 1), sizeof *tok);
    CHECK(m->init(m->ctx, x0, &e) == SRL_OK, "init");
    for (size_t i = 0; i < m->flat; i++)
        w[i] = (float)x0[i];
    for (uint64_t t = 1; t <= tc->steps; t++) {
        srl__gpt_problem_batch(p, 0, t, tok);
        srl__gpt_pass ps;
        memset(&ps, 0, sizeof ps);
        ps.d = *d;
        ps.lay = &lay;
        ps.off = m->off;
        ps.row_loss = rowl;
        double ls;
        CHECK(srl__gpt_pass_plain(&ps, w, g, tok, acts, &ls) == SRL_OK, "plain pass");
        for (size_t j = 0; j < m->nweights; j++) {
            size_t n = 1;
            for (int a = 0; a < m->specs[j].ndim; a++)
                n *= m->specs[j].shape[a];
            plain_adamw(w + m->off[j], g + m->off[j], mm + m->off[j], vv + m->off[j], n, t,
                        &tc->opt);
        }
    }
    /* the emulated run */
    capture cap = {calloc(m->flat, sizeof(float)), m->off, tc->steps};
    srl_sink sink = {null_begin, null_row, NULL};
    srl_run_report rep;
    CHECK(srl__gpt_run(cfg, &sink, &rep, capture_hook, &cap, &e) == SRL_OK, "%s", e.msg);
    size_t nbad = 0;
    for (size_t j = 0; j < m->nweights; j++) {
        size_t n = 1;
        for (int a = 0; a < m->specs[j].ndim; a++)
            n *= m->specs[j].shape[a];
        for (size_t i = 0; i < n; i++)
            if (memcmp(&w[m->off[j] + i], &cap.w[m->off[j] + i], sizeof(float)) && nbad++ < 5)
                CHECK(0, "after %llu steps %s[%zu]: srlab %.9g, plain float %.9g",
                      (unsigned long long)tc->steps, m->specs[j].name, i, cap.w[m->off[j] + i],
                      w[m->off[j] + i]);
    }
    CHECK(nbad == 0, "%zu weights differ", nbad);
    free(cap.w);
    free(x0);
    free(w);
    free(g);
    free(mm);
    free(vv);
    free(acts);
    free(rowl);
    free(tok);
    srl__gpt_problem_free(p);
    srl_config_free(cfg);
    GROUP("gpt: 20 AdamW steps under fp32 equal a plain float training loop bit for bit", before);
}

/* ---- formats ---- */

static size_t count_outside(const float *x, size_t n, const srl_format *f)
{
    size_t bad = 0;
    for (size_t i = 0; i < n; i++)
        bad += !srl_format_contains(f, (double)x[i]);
    return bad;
}

static int check_tensors(void *arg, const srl_weights *W, size_t K, uint64_t t, const double *pv)
{
    (void)pv;
    long *bad = arg;
    for (size_t r = 0; r < K; r++)
        for (size_t i = 0; i < W[r].set.count; i++) {
            size_t at;
            if (!srl_tensor_check(&W[r].set.t[i], &at) && (*bad)++ < 5)
                fprintf(stderr, "step %llu replica %zu: %s[%zu] is not a value of %s\n",
                        (unsigned long long)t, r, W[r].set.t[i].name, at,
                        W[r].set.t[i].fmt.name);
        }
    return 0;
}

static void test_formats(void)
{
    long before = srl_test_failures;
    small s;
    small_init(&s, 11, 8, 16, 2, 2, 3);
    double *xd = malloc(s.flat * sizeof *xd);
    float *x = calloc(s.flat, sizeof *x), *g = calloc(s.flat, sizeof *g);
    float *a = calloc(s.lay.total, sizeof *a);
    double rl[64];
    int32_t tok[3 * 9];
    random_params(&s, xd, 8);
    for (size_t i = 0; i < s.flat; i++) /* the weights as a bf16 strategy stores them */
        x[i] = srl_bf16_to_float(srl_bf16_rn((float)xd[i]));
    random_tokens(tok, 27, s.d.V, 8);
    const char *kv[] = {"strategy", "bf16-sr", "act-format", "fp16", "act-rounding", "sr",
                        "grad-rounding", "sr", "accum", "prod=bf16:rn,acc=fp16:sr", NULL};
    srl_config *cfg = cfg_of(kv);
    srl_strategy st;
    srl_err e;
    CHECK(srl_strategy_from_config(&st, cfg, &e) == SRL_OK, "%s", e.msg);
    srl_rng rng;
    srl_rng_init(&rng, SRL_RNG_PCG32, 8, 3);
    srl__gpt_pass ps;
    memset(&ps, 0, sizeof ps);
    ps.d = s.d;
    ps.lay = &s.lay;
    ps.off = s.off;
    ps.accum = &st.accum_cfg;
    ps.act = st.act;
    ps.grad = st.grad;
    ps.rng = &rng;
    ps.row_loss = rl;
    double ls;
    CHECK(srl__gpt_pass_emu(&ps, x, g, tok, a, &ls) == SRL_OK, "pass");
    const srl__gpt_layout *y = &s.lay;
    const size_t BT = s.d.B * s.d.T, BTC = BT * s.d.C, att = s.d.B * s.d.NH * s.d.T * s.d.T;
    const struct {
        const char *name;
        size_t off, n;
        int grad;
    } bufs[] = {{"enc", y->enc, BTC, 0},         {"lnf", y->lnf, BTC, 0},
                {"logits", y->logits, BT * s.d.V, 0}, {"dlogits", y->dlogits, BT * s.d.V, 1},
                {"dres", y->dres, BTC, 1},       {"dln", y->dln, BTC, 1},
                {"dqkv", y->dqkv, 3 * BTC, 1},   {"dqh", y->dqh, BTC, 1},
                {"dkh", y->dkh, BTC, 1},         {"dvh", y->dvh, BTC, 1},
                {"datt", y->datt, att, 1},       {"dyh", y->dyh, BTC, 1},
                {"datty", y->datty, BTC, 1},     {"dfchg", y->dfchg, 4 * BTC, 1},
                {"dfch", y->dfch, 4 * BTC, 1},   {"dtmp", y->dtmp, BTC, 1}};
    for (size_t k = 0; k < sizeof bufs / sizeof *bufs; k++) {
        const srl_format *f = bufs[k].grad ? &st.grad.fmt : &st.act.fmt;
        const size_t bad = count_outside(a + bufs[k].off, bufs[k].n, f);
        CHECK(bad == 0, "%s: %zu of %zu values are not values of %s", bufs[k].name, bad,
              bufs[k].n, f->name);
    }
    const struct {
        const char *name;
        size_t off, n;
    } lbufs[] = {{"ln1", y->ln1, BTC},   {"qkv", y->qkv, 3 * BTC}, {"qh", y->qh, BTC},
                 {"kh", y->kh, BTC},     {"vh", y->vh, BTC},       {"att", y->att, att},
                 {"yh", y->yh, BTC},     {"atty", y->atty, BTC},   {"res2", y->res2, BTC},
                 {"ln2", y->ln2, BTC},   {"fch", y->fch, 4 * BTC}, {"fchg", y->fchg, 4 * BTC},
                 {"res3", y->res3, BTC}};
    for (size_t l = 0; l < s.d.L; l++)
        for (size_t k = 0; k < sizeof lbufs / sizeof *lbufs; k++) {
            const size_t bad =
                count_outside(a + y->l0 + l * y->per_layer + lbufs[k].off, lbufs[k].n, &st.act.fmt);
            CHECK(bad == 0, "layer %zu %s: %zu values are not values of %s", l, lbufs[k].name,
                  bad, st.act.fmt.name);
        }
    /* a training run: every tensor of every replica holds values of its format */
    const char *kv2[] = {"strategy", "bf16-sr", "act-format", "fp16", "act-rounding", "sr",
                         "grad-rounding", "sr", "state-format", "fp16", "accum",
                         "prod=bf16:rn,acc=fp16:sr", "opt", "adamw", "lr", "0.01", "steps",
                         "10", "n-layer", "1", "n-embd", "16", "block-size", "8",
                         "batch-size", "2", "data-tokens", "2048", "replicas", "2", "sr-seed",
                         "independent", "eval-windows", "2", NULL};
    srl_config *cfg2 = cfg_of(kv2);
    long bad = 0;
    srl_sink sink = {null_begin, null_row, NULL};
    srl_run_report rep;
    CHECK(srl__gpt_run(cfg2, &sink, &rep, check_tensors, &bad, &e) == SRL_OK, "%s", e.msg);
    CHECK(bad == 0, "%ld tensors hold values outside their format", bad);
    srl_config_free(cfg);
    srl_config_free(cfg2);
    free(xd);
    free(x);
    free(g);
    free(a);
    GROUP("gpt: stored activations, gradients, weights and moments hold values of their formats",
          before);
}


/* ---- fp32 against binary64: the probabilistic first-order error model ---- */

/* A worst-case running bound (|J| E propagated with absolute values, as tests/problems/test_mlp.c
 * does for the MLP) is sound here too but grows by orders of magnitude per block (every error
 * assumed aligned with every other); for two blocks it exceeds the measured differences by a
 * factor 10^6 and could not detect anything. So the GPT's check uses the probabilistic model of
 * rounding-error analysis (Higham and Mary, SIAM J. Sci. Comput. 41(5), 2019; Connolly, Higham
 * and Mary 2021): each rounding contributes an independent error of mean 0 and standard
 * deviation at most u |result|, and errors propagate to first order through the exact Jacobian.
 * Variances V (per element) are propagated stage by stage from one pass's own activations A in
 * unit roundoff u:
 *   z = a + b                 V_z = V_a + V_b + u^2 z^2
 *   z = A B (recursive sum)   V_z = sum_l (B_l^2 V_Al + A_l^2 V_Bl) + u^2 (sum_l p_l^2 + sum_l s_l^2)
 *                             (p_l the products, s_l the partial sums: one rounding each)
 *   layer norm, softmax       sum_c' J_cc'^2 V_c' (the exact Jacobians below) + e^2 with e the
 *                             worst-case local error of the row's own operations (ln_local,
 *                             sm_local: conservative)
 *   GELU                      gelu'(x)^2 V_x + e^2 (test_mlp.c's gelu_err)
 * and the check is |z32 - z64| <= 6 sqrt(V32 + V64) at every logit (6 standard deviations: a
 * Gaussian exceeds it with probability 2e-9 per logit). Library functions (expf, tanhf: within 2
 * ulp in glibc on x86-64) count as 4 ulp. */
static double gamma_k(double n, double u)
{
    return n * u / (1 - n * u);
}

/* V (m,n) for z = A (m,k) B with B (k,n) (bT = 0) or B^T with B (n,k) (bT = 1). */
static void mm_var(double *V, const double *A, const double *VA, const double *B,
                   const double *VB, size_t m, size_t n, size_t k, int bT, double u)
{
    for (size_t i = 0; i < m; i++)
        for (size_t j = 0; j < n; j++) {
            double v = 0, loc = 0, sum = 0;
            for (size_t l = 0; l < k; l++) {
                const double a = A[i * k + l], b = bT ? B[j * k + l] : B[l * n + j];
                const double vb = VB ? (bT ? VB[j * k + l] : VB[l * n + j]) : 0;
                v += b * b * (VA ? VA[i * k + l] : 0) + a * a * vb;
                sum += a * b;
                loc += (a * b) * (a * b) + (l ? sum * sum : 0);
            }
            V[i * n + j] = v + u * u * loc;
        }
}

/* Layer norm rows: y_c = (x_c - m) r w_c + b_c, J_cc' = w_c r (d_cc' - 1/C - xh_c xh_c' / C).
 * Local error of the row's operations with exact inputs (worst case, first order): mean within
 * gamma_{C+1} sum|x| / C = dm; d_c within dm + u |d_c|; the variance's sum within
 * 2 sum |d| (dm + u |d|) + gamma_{C+1} sum d^2; r within half that relative to var + eps plus
 * 4u; the output within |w| (|dd| r + |d| r dr) + 3u (|xh w| + |b|). */
static void ln_var(double *Vy, const double *x, const double *Vx, const double *w,
                   const double *b, size_t rows, size_t C, double u)
{
    for (size_t i = 0; i < rows; i++) {
        const double *xi = x + i * C, *vi = Vx + i * C;
        double s = 0, sa = 0;
        for (size_t c = 0; c < C; c++)
            s += xi[c], sa += fabs(xi[c]);
        const double m = s / (double)C, dm = gamma_k((double)C + 1, u) * sa / (double)C;
        double v = 0, dv = 0;
        for (size_t c = 0; c < C; c++) {
            const double d = xi[c] - m;
            v += d * d;
            dv += 2 * fabs(d) * (dm + u * fabs(d));
        }
        dv += gamma_k((double)C + 1, u) * v;
        const double var = v / (double)C, r = 1 / sqrt(var + 1e-5);
        const double dr = dv / (double)C / (2 * (var + 1e-5)) + 4 * u;
        for (size_t c = 0; c < C; c++) {
            const double d = xi[c] - m, xh = d * r;
            double pv = 0;
            for (size_t c2 = 0; c2 < C; c2++) {
                const double J = w[c] * r * ((c == c2) - 1.0 / (double)C -
                                             xh * ((xi[c2] - m) * r) / (double)C);
                pv += J * J * vi[c2];
            }
            const double loc = fabs(w[c]) * ((dm + u * fabs(d)) * r + fabs(d) * r * dr) +
                               3 * u * (fabs(xh * w[c]) + fabs(b[c]));
            Vy[i * C + c] = pv + loc * loc;
        }
    }
}

/* Causal softmax of a (T,T) score block (scale sc): J_jk = sc p_j (d_jk - p_k). Local: the
 * argument a_j = sc s_j - M within u |sc s_j| + u |a_j|, exp within 8u relative, the sum within
 * its terms' errors + gamma_T S, the quotient one rounding. */
static void softmax_var(double *Vp, const double *S, const double *Vs, size_t T, double sc,
                        double u)
{
    for (size_t i = 0; i < T; i++) {
        const double *si = S + i * T, *vi = Vs + i * T;
        double M = -INFINITY, tot = 0, re[256], p[256];
        for (size_t j = 0; j <= i; j++)
            M = fmax(M, sc * si[j]);
        for (size_t j = 0; j <= i; j++)
            tot += exp(sc * si[j] - M);
        double dS = gamma_k((double)i + 1, u) * tot;
        for (size_t j = 0; j <= i; j++) {
            const double a = sc * si[j] - M;
            re[j] = u * fabs(sc * si[j]) + u * fabs(a) + 8 * u;
            dS += exp(a) * re[j];
            p[j] = exp(a) / tot;
        }
        for (size_t j = 0; j < T; j++) {
            if (j > i) {
                Vp[i * T + j] = 0;
                continue;
            }
            double pv = 0;
            for (size_t k2 = 0; k2 <= i; k2++) {
                const double J = sc * p[j] * ((j == k2) - p[k2]);
                pv += J * J * vi[k2];
            }
            const double loc = p[j] * (re[j] + dS / tot + u);
            Vp[i * T + j] = pv + loc * loc;
        }
    }
}

static double gelu_err(double x, double u)
{
    const double s = 0.79788456080286535588, c = 0.044715;
    const double S = s * (fabs(x) + c * fabs(x) * fabs(x) * fabs(x));
    const double th = tanh(s * (x + c * x * x * x));
    const double e1 = gamma_k(5, u) * S + 8 * u * fabs(th) + u * (1 + fabs(th));
    return 0.5 * fabs(x) * e1 + u * fabs(0.5 * x * (1 + th));
}

static double gelu_d(double x)
{
    const double s = 0.79788456080286535588, c = 0.044715;
    const double th = tanh(s * (x + c * x * x * x));
    return 0.5 * (1 + th) + 0.5 * x * (1 - th * th) * s * (1 + 3 * c * x * x);
}

/* The variance of every logit of a pass (A its activations, par the weights) into Vz (BT, V). */
static void logits_var(double *Vz, const small *s, const double *par, const double *A, double u)
{
    const size_t B = s->d.B, T = s->d.T, C = s->d.C, V = s->d.V, NH = s->d.NH, hs = C / NH;
    const size_t BT = B * T, C3 = 3 * C, C4 = 4 * C;
    const srl__gpt_layout *y = &s->lay;
    double *Vres = calloc(BT * C, sizeof(double)), *Vln = calloc(BT * C, sizeof(double));
    double *Vqkv = calloc(BT * C3, sizeof(double)), *Vatty = calloc(BT * C, sizeof(double));
    double *Vt = calloc(BT * C4, sizeof(double)), *Vg = calloc(BT * C4, sizeof(double));
    double *Vs = calloc(T * T, sizeof(double)), *Vp = calloc(T * T, sizeof(double));
    double *Vy = calloc(T * hs, sizeof(double)), *q = calloc(T * hs, sizeof(double));
    double *k = calloc(T * hs, sizeof(double)), *v = calloc(T * hs, sizeof(double));
    double *Vq = calloc(T * hs, sizeof(double)), *Vk = calloc(T * hs, sizeof(double));
    double *Vv = calloc(T * hs, sizeof(double)), *Sc = calloc(T * T, sizeof(double));
    for (size_t i = 0; i < BT * C; i++) /* encoder: one addition of exact weights */
        Vres[i] = u * u * A[y->enc + i] * A[y->enc + i];
    const double *res = A + y->enc;
    for (size_t l = 0; l < s->d.L; l++) {
        const double *Ly = A + y->l0 + l * y->per_layer;
        ln_var(Vln, res, Vres, par + s->off[GP_LN1W] + l * C, par + s->off[GP_LN1B] + l * C,
               BT, C, u);
        mm_var(Vqkv, Ly + y->ln1, Vln, par + s->off[GP_QKVW] + l * C * C3, NULL, BT, C3, C, 0, u);
        for (size_t b = 0; b < B; b++)
            for (size_t h = 0; h < NH; h++) {
                const size_t bh = b * NH + h;
                for (size_t t = 0; t < T; t++)
                    for (size_t i = 0; i < hs; i++) {
                        const size_t o = (b * T + t) * C3 + h * hs + i;
                        q[t * hs + i] = Ly[y->qkv + o], Vq[t * hs + i] = Vqkv[o];
                        k[t * hs + i] = Ly[y->qkv + o + C], Vk[t * hs + i] = Vqkv[o + C];
                        v[t * hs + i] = Ly[y->qkv + o + 2 * C], Vv[t * hs + i] = Vqkv[o + 2 * C];
                    }
                /* the pass keeps the probabilities, not the scores: recompute q k^T */
                for (size_t i = 0; i < T; i++)
                    for (size_t j = 0; j < T; j++) {
                        double a = 0;
                        for (size_t c = 0; c < hs; c++)
                            a += q[i * hs + c] * k[j * hs + c];
                        Sc[i * T + j] = a;
                    }
                mm_var(Vs, q, Vq, k, Vk, T, T, hs, 1, u);
                softmax_var(Vp, Sc, Vs, T, 1.0 / sqrt((double)hs), u);
                mm_var(Vy, Ly + y->att + bh * T * T, Vp, v, Vv, T, hs, T, 0, u);
                for (size_t t = 0; t < T; t++)
                    for (size_t i = 0; i < hs; i++)
                        Vatty[(b * T + t) * C + h * hs + i] = Vy[t * hs + i];
            }
        /* res2 = res + atty projw (the product rounded, then the sum) */
        mm_var(Vln, Ly + y->atty, Vatty, par + s->off[GP_ATTPROJW] + l * C * C, NULL, BT, C, C, 0,
               u);
        for (size_t i = 0; i < BT * C; i++)
            Vres[i] = Vres[i] + Vln[i] + u * u * Ly[y->res2 + i] * Ly[y->res2 + i];
        ln_var(Vln, Ly + y->res2, Vres, par + s->off[GP_LN2W] + l * C,
               par + s->off[GP_LN2B] + l * C, BT, C, u);
        mm_var(Vt, Ly + y->ln2, Vln, par + s->off[GP_FCW] + l * C * C4, NULL, BT, C4, C, 0, u);
        for (size_t i = 0; i < BT * C4; i++) {
            const double x = Ly[y->fch + i], e = gelu_err(x, u);
            Vg[i] = gelu_d(x) * gelu_d(x) * Vt[i] + e * e;
        }
        mm_var(Vln, Ly + y->fchg, Vg, par + s->off[GP_FCPROJW] + l * C4 * C, NULL, BT, C, C4, 0,
               u);
        for (size_t i = 0; i < BT * C; i++)
            Vres[i] = Vres[i] + Vln[i] + u * u * Ly[y->res3 + i] * Ly[y->res3 + i];
        res = Ly + y->res3;
    }
    ln_var(Vln, res, Vres, par + s->off[GP_LNFW], par + s->off[GP_LNFB], BT, C, u);
    mm_var(Vz, A + y->lnf, Vln, par + s->off[GP_WTE], NULL, BT, V, C, 1, u);
    free(Vres), free(Vln), free(Vqkv), free(Vatty), free(Vt), free(Vg), free(Vs), free(Vp);
    free(Vy), free(q), free(k), free(v), free(Vq), free(Vk), free(Vv), free(Sc);
}

static void test_fp32(void)
{
    long before = srl_test_failures;
    small s;
    small_init(&s, 11, 8, 16, 2, 2, 2);
    const size_t BT = s.d.B * s.d.T, V = s.d.V;
    double *pd = malloc(s.flat * sizeof *pd), rl[64];
    float *p = calloc(s.flat, sizeof *p), *A32 = calloc(s.lay.total, sizeof *A32);
    double *A64 = calloc(s.lay.total, sizeof *A64), *A32d = calloc(s.lay.total, sizeof *A32d);
    int32_t tok[2 * 9];
    random_params(&s, pd, 17);
    /* binary32 weights (read exactly by both passes); matrices N(0, 0.2^2) */
    const double msd = 0.2;
    for (int j = 0; j < GP_COUNT; j++) {
        const bool vec = j == GP_LN1W || j == GP_LN2W || j == GP_LNFW || j == GP_LN1B ||
                         j == GP_LN2B || j == GP_LNFB;
        for (size_t i = 0; i < nel(&s, j); i++) {
            double *x = pd + s.off[j] + i;
            *x = (float)(vec ? *x : *x * (msd / 0.3));
            p[s.off[j] + i] = (float)*x;
        }
    }
    random_tokens(tok, 18, V, 17);
    srl_strategy st;
    srl_err e;
    CHECK(srl_strategy_preset(&st, "fp32", &e) == SRL_OK, "%s", e.msg);
    srl_rng rng;
    srl_rng_init(&rng, SRL_RNG_PCG32, 3, 3);
    srl__gpt_pass ps;
    memset(&ps, 0, sizeof ps);
    ps.d = s.d;
    ps.lay = &s.lay;
    ps.off = s.off;
    ps.accum = &st.accum_cfg;
    ps.act = st.act;
    ps.grad = st.grad;
    ps.rng = &rng;
    ps.row_loss = rl;
    double l32, l64;
    CHECK(srl__gpt_pass_emu(&ps, p, NULL, tok, A32, &l32) == SRL_OK, "emu pass");
    CHECK(srl__gpt_pass_f64(&ps, pd, NULL, tok, A64, &l64) == SRL_OK, "f64 pass");
    for (size_t i = 0; i < s.lay.total; i++)
        A32d[i] = A32[i];
    double *V32 = calloc(BT * V, sizeof *V32), *V64 = calloc(BT * V, sizeof *V64), worst = 0;
    logits_var(V32, &s, pd, A32d, ldexp(1.0, -24));
    logits_var(V64, &s, pd, A64, ldexp(1.0, -53));
    double zs = 0;
    for (size_t i = 0; i < BT * V; i++) {
        const double d = fabs(A32d[s.lay.logits + i] - A64[s.lay.logits + i]);
        const double sd = sqrt(V32[i] + V64[i]);
        worst = fmax(worst, d / sd);
        zs += d * d / (sd * sd);
        CHECK(d <= 6 * sd, "logit %zu: |z32 - z64| = %.3g > 6 sd = %.3g", i, d, 6 * sd);
    }
    printf("fp32 forward: largest |z32 - z64| = %.3g sd, rms %.3g sd over %zu logits (losses "
           "%.9g and %.9g)\n", worst, sqrt(zs / (double)(BT * V)), BT * V, l32 / (double)BT,
           l64 / (double)BT);
    free(pd), free(p), free(A32), free(A64), free(A32d), free(V32), free(V64);
    GROUP("gpt: the fp32 logits are within 6 standard deviations of the first-order error model of binary64", before);
}

/* ---- replicas ---- */

typedef struct same_arg {
    long diff_steps;
    uint64_t first;
} same_arg;

static int same_hook(void *arg, const srl_weights *W, size_t K, uint64_t t, const double *pv)
{
    (void)pv;
    same_arg *a = arg;
    for (size_t r = 1; r < K; r++)
        if (W[r].set.bytes != W[0].set.bytes ||
            memcmp(W[r].set.mem, W[0].set.mem, W[0].set.alloc)) {
            if (!a->diff_steps++)
                a->first = t;
            break;
        }
    return 0;
}

typedef struct drift_arg {
    uint64_t steps;
    const size_t *off;
    double d2, pred, var; /* at the last step: sum d_i^2, sum pred_i, sum (d_i^2 - pred_i)^2 */
    double frac;
} drift_arg;

static int drift_hook(void *arg, const srl_weights *W, size_t K, uint64_t t, const double *pv)
{
    drift_arg *a = arg;
    if (t != a->steps || K != 2 || !pv)
        return 0;
    double x0[1024], x1[1024];
    size_t nd = 0, n = 0;
    a->d2 = a->pred = a->var = 0;
    for (size_t j = 0; j < W[0].count; j++)
        for (size_t i0 = 0; i0 < W[0].p[j].n; i0 += 1024) {
            const size_t k = W[0].p[j].n - i0 < 1024 ? W[0].p[j].n - i0 : 1024;
            srl_tensor_get_d(x0, W[0].p[j].w, i0, k);
            srl_tensor_get_d(x1, W[1].p[j].w, i0, k);
            for (size_t i = 0; i < k; i++) {
                const double d = x1[i] - x0[i], p = pv[a->off[j] + i0 + i];
                a->d2 += d * d;
                a->pred += p;
                a->var += (d * d - p) * (d * d - p);
                nd += d != 0;
                n++;
            }
        }
    a->frac = (double)nd / (double)n;
    return 0;
}

static void test_replicas(int stat)
{
    long before = srl_test_failures;
    srl_err e;
    srl_sink sink = {null_begin, null_row, NULL};
    srl_run_report rep;
    if (!stat) {
        const char *kv[] = {"strategy", "bf16-sr", "opt", "adamw", "lr", "0.003", "wd", "0.1",
                            "steps", "1000", "log-every", "1000", "n-layer", "1", "n-embd", "8",
                            "n-head", "2", "block-size", "8", "batch-size", "2", "vocab", "6",
                            "data-tokens", "4096", "eval-windows", "1", "replicas", "3",
                            "sr-seed", "shared", "seed", "2", NULL};
        srl_config *cfg = cfg_of(kv);
        same_arg a = {0, 0};
        CHECK(srl__gpt_run(cfg, &sink, &rep, same_hook, &a, &e) == SRL_OK, "%s", e.msg);
        CHECK(a.diff_steps == 0, "shared streams: replicas differ after %ld of 1000 steps (first "
              "at step %llu)", a.diff_steps, (unsigned long long)a.first);
        CHECK(srl_config_set(cfg, "sr-seed", "independent") == SRL_OK, "set");
        CHECK(srl_config_set(cfg, "steps", "20") == SRL_OK, "set");
        a.diff_steps = 0;
        CHECK(srl__gpt_run(cfg, &sink, &rep, same_hook, &a, &e) == SRL_OK, "%s", e.msg);
        CHECK(a.diff_steps > 0, "independent streams: the replicas never differed");
        srl_config_free(cfg);
        GROUP("gpt replicas: shared SR streams keep 3 replicas bit-identical for 1000 steps; "
              "independent ones do not", before);
        return;
    }
    /* theory/T12: measured squared distance against the random-walk prediction */
    const char *kv[] = {"strategy", "bf16-sr", "opt", "adamw", "lr", "0.0003", "steps", "200",
                        "log-every", "200", "n-layer", "1", "n-embd", "32", "n-head", "2",
                        "block-size", "16", "batch-size", "4", "vocab", "8", "data-tokens",
                        "8192", "eval-windows", "1", "replicas", "2", "sr-seed", "independent",
                        "seed", "6", NULL};
    srl_config *cfg = cfg_of(kv);
    srl__gpt_problem *p;
    CHECK(srl__gpt_problem_new(&p, cfg, &e) == SRL_OK, "%s", e.msg);
    drift_arg a;
    memset(&a, 0, sizeof a);
    a.steps = 200;
    a.off = srl__gpt_problem_model(p)->off;
    CHECK(srl__gpt_run(cfg, &sink, &rep, drift_hook, &a, &e) == SRL_OK, "%s", e.msg);
    const double tol = 5 * sqrt(a.var);
    CHECK(fabs(a.d2 - a.pred) <= tol, "seed 6: ||x_1 - x_0||^2 = %.6g, T12 predicts %.6g "
          "(tolerance %.3g)", a.d2, a.pred, tol);
    printf("replica drift after 200 steps: ||x_1 - x_0||^2 = %.6g, predicted %.6g +- %.2g "
           "(5 sigma); %.1f%% of the weights differ\n", a.d2, a.pred, tol, 100 * a.frac);
    srl__gpt_problem_free(p);
    srl_config_free(cfg);
    GROUP("gpt replicas: independent-stream drift matches theory/T12's random walk", before);
}

int main(int argc, char **argv)
{
    const char *w = argc > 1 ? argv[1] : "all";
    const int all = !strcmp(w, "all");
#ifdef _OPENMP
    /* One thread: these tests are about values, and results do not depend on the thread count
     * (tests/problems/test_models_det.c); on a loaded machine many small parallel regions only
     * wait for descheduled threads. */
    omp_set_num_threads(1);
#endif
    if (all || !strcmp(w, "grad"))
        test_grad();
    if (all || !strcmp(w, "plain")) {
        test_plain_pass(13), test_plain_pass(1500);
        test_plain_training();
    }
    if (all || !strcmp(w, "formats"))
        test_formats();
    if (all || !strcmp(w, "fp32"))
        test_fp32();
    if (all || !strcmp(w, "replicas"))
        test_replicas(0);
    if (all || !strcmp(w, "stat"))
        test_replicas(1);
    TEST_END();
}
