/* src/problems/mlp.c: `--problem mlp`, a multilayer perceptron trained in emulated precision
 * (docs/design.md §8): depth hidden layers of width units with ReLU, GELU (tanh form) or tanh, on one of
 * two synthetic tasks with a train/validation split.
 *
 *   task=teacher   regression on a random teacher of the same shape: inputs x ~ N(0, I_din),
 *                  targets t = teacher(x) + noise * N(0, I_dout), the teacher's weights
 *                  N(0, gain / fan_in) (gain 2 for ReLU and GELU, 1 for tanh) and biases
 *                  N(0, 0.1^2). Loss (1/B) sum 1/2 ||y - t||^2. fstar = dout noise^2 / 2, the
 *                  teacher's expected loss (0 without noise): the student can represent the
 *                  teacher exactly, so no model does better in expectation.
 *   task=mixture   classification of a Gaussian mixture: out-dim classes with equal priors, class
 *                  means mu_c = separation * u_c with u_c ~ N(0, I_din / din) (so ||mu_c|| is
 *                  about separation), x = mu_c + N(0, I_din). Loss: cross-entropy of
 *                  softmax(y). fstar = the Bayes risk E[-log P(c | x)] with the exact posterior
 *                  (logits mu_c . x - ||mu_c||^2 / 2), by Monte Carlo over 2^17 fresh samples of
 *                  the run's "fstar" stream (standard error about 0.003 of its standard
 *                  deviation); extra column val_acc, the validation accuracy.
 * Data (the run's "data" stream, in this order: teacher weights or class means, then the samples
 * in order, train part first): samples training rows and val-samples validation rows, rounded
 * once to binary32 (the dataset is binary32; binary64 evaluation reads the same values).
 * Batches: replica r's micro-batch of step t is batch-size training rows drawn with replacement,
 * row b with draw ((t-1) K + r) B + b of the "batches" stream. The rows enter the forward pass
 * rounded into the act slot (the first draws of the step's compute stream when stochastic).
 * Metrics: loss and val_loss are the mean losses of the whole training and validation parts in
 * binary64 (src/problems/mlp_tpl.h's _f64 pass, in chunks of 1024 rows) at replica 0's stored parameters.
 * Student initialisation (the "init" stream): weights as the teacher's, biases 0. */
#include "problems/mlp_impl.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "problems/runners.h"

#define SRL_MODEL_TEMPLATE "problems/mlp_tpl.h"
#include "problems/model_instantiate.h"

#define EVAL_CHUNK 1024
#define FSTAR_SAMPLES (1u << 17)

static size_t al16(size_t n)
{
    return (n + 15) & ~(size_t)15;
}

void srl__mlp_layout_make(mlp_layout *y, size_t B, size_t din, size_t H, size_t D, size_t dout)
{
    memset(y, 0, sizeof *y);
    size_t o = 0;
    for (size_t l = 0; l <= D; l++) {
        y->z[l] = o;
        o += al16(B * (l < D ? H : dout));
        if (l < D) {
            y->h[l + 1] = o;
            o += al16(B * H);
        }
    }
    const size_t w = H > dout ? H : dout, wd = din > H ? din : H;
    y->dz = o;
    o += al16(B * (w > din ? w : din));
    y->dh = o;
    o += al16(B * wd);
    y->ones = o;
    o += al16(B);
    y->scratch = o;
    const size_t big = (wd > dout ? wd : dout) * (H > dout ? H : dout);
    o += al16(big > din * H ? big : din * H);
    y->total = o;
}

static double layout_elems(double B, double din, double H, double D, double dout)
{
    const double w = H > dout ? H : dout, wd = din > H ? din : H;
    const double big = (wd > dout ? wd : dout) * w;
    return D * 2 * B * H + B * dout + B * (w > din ? w : din) + B * wd + B +
           (big > din * H ? big : din * H) + 16 * (2 * D + 8);
}

typedef struct mlp {
    size_t din, H, D, dout, B, N, Nval;
    int act_fn, task;
    double noise, sep;
    srl_train_config tc;
    srl__replicas rp;
    srl__model model;
    float *X;        /* (N + Nval, din) */
    float *Tg;       /* teacher: (N + Nval, dout) */
    int32_t *lab;    /* mixture: N + Nval */
    mlp_layout lay_f, lay_d;
    float *acts_f, *xb, *tb;
    int32_t *lb;
    double *acts_d, *xd, *td, *row_loss, *row_hit;
} mlp;

static void mlp_free(mlp *g)
{
    if (!g)
        return;
    free(g->X);
    free(g->Tg);
    free(g->lab);
    free(g->acts_f);
    free(g->xb);
    free(g->tb);
    free(g->lb);
    free(g->acts_d);
    free(g->xd);
    free(g->td);
    free(g->row_loss);
    free(g->row_hit);
    free(g);
}

/* Weights of a random network (the teacher, or the student's initialisation) into x (flat). */
static void random_net(const mlp *g, double *x, srl_rng *r, bool biases)
{
    const double gain = g->act_fn == MLP_TANH ? 1.0 : 2.0;
    for (size_t l = 0; l <= g->D; l++) {
        const size_t nin = l ? g->H : g->din, nout = l < g->D ? g->H : g->dout;
        double *W = x + g->model.off[2 * l], *b = x + g->model.off[2 * l + 1];
        const double sd = sqrt(gain / (double)nin);
        for (size_t i = 0; i < nin * nout; i++)
            W[i] = sd * srl_rng_normal(r);
        for (size_t j = 0; j < nout; j++)
            b[j] = biases ? 0.1 * srl_rng_normal(r) : 0.0;
    }
}

static void set_ones(double *d, float *f, const mlp_layout *yd, const mlp_layout *yf, size_t Bd,
                     size_t Bf)
{
    for (size_t i = 0; i < Bd; i++)
        d[yd->ones + i] = 1;
    for (size_t i = 0; i < Bf; i++)
        f[yf->ones + i] = 1;
}

static mlp_pass pass_of(const mlp *g, size_t B, const mlp_layout *lay)
{
    mlp_pass ps;
    memset(&ps, 0, sizeof ps);
    ps.B = B;
    ps.din = g->din;
    ps.H = g->H;
    ps.D = g->D;
    ps.dout = g->dout;
    ps.act_fn = g->act_fn;
    ps.task = g->task;
    ps.lay = lay;
    ps.off = g->model.off;
    ps.row_loss = g->row_loss;
    ps.row_hit = g->row_hit;
    return ps;
}

/* Mean loss and accuracy of rows [r0, r0 + n) at parameters x, binary64. */
static int eval_rows(mlp *g, const double *x, size_t r0, size_t n, double *loss, double *acc)
{
    double ls = 0, hits = 0;
    for (size_t c0 = 0; c0 < n; c0 += EVAL_CHUNK) {
        const size_t nb = n - c0 < EVAL_CHUNK ? n - c0 : EVAL_CHUNK;
        for (size_t i = 0; i < nb * g->din; i++)
            g->xd[i] = g->X[(r0 + c0) * g->din + i];
        if (g->task == MLP_TEACHER)
            for (size_t i = 0; i < nb * g->dout; i++)
                g->td[i] = g->Tg[(r0 + c0) * g->dout + i];
        mlp_pass ps = pass_of(g, nb, &g->lay_d);
        double l1, h1;
        int st = srl__mlp_pass_f64(&ps, x, NULL, g->xd, g->td, g->lab ? g->lab + r0 + c0 : NULL,
                                   g->acts_d, &l1, &h1);
        if (st)
            return st;
        ls += l1;
        hits += h1;
    }
    *loss = ls / (double)n;
    *acc = hits / (double)n;
    return SRL_OK;
}

static int cb_init(void *ctx, double *x0, srl_err *err)
{
    (void)err;
    mlp *g = ctx;
    srl_rng r;
    srl_train_stream(&r, &g->tc, "init");
    random_net(g, x0, &r, false);
    return SRL_OK;
}

static int cb_grad(void *ctx, size_t r, uint64_t t, const float *p, float *gr, srl_rng *compute,
                   srl_err *err)
{
    mlp *g = ctx;
    srl_rng s;
    srl_train_stream(&s, &g->tc, "batches");
    srl_rng_seek(&s, ((t - 1) * (uint64_t)g->rp.K + r) * g->B);
    for (size_t b = 0; b < g->B; b++) {
        const size_t row = (size_t)srl_rng_below(&s, g->N);
        memcpy(g->xb + b * g->din, g->X + row * g->din, g->din * sizeof(float));
        if (g->task == MLP_TEACHER)
            memcpy(g->tb + b * g->dout, g->Tg + row * g->dout, g->dout * sizeof(float));
        else
            g->lb[b] = g->lab[row];
    }
    mlp_pass ps = pass_of(g, g->B, &g->lay_f);
    ps.accum = &g->tc.strat.accum_cfg;
    for (int k = 0; k < SRL_STRATEGY_GEMMS; k++)
        ps.mx[k] = g->tc.strat.mx_on[k] ? &g->tc.strat.mx[k] : NULL;
    ps.act = g->tc.strat.act;
    ps.grad = g->tc.strat.grad;
    ps.rng = compute;
    int st = srl__round_slot(g->xb, g->B * g->din, &ps.act, compute);
    double l1, h1;
    if (!st)
        st = srl__mlp_pass_emu(&ps, p, gr, g->xb, g->tb, g->lb, g->acts_f, &l1, &h1);
    if (st)
        return srl_err_set(err, st, "the forward/backward pass failed: %s", srl_strerror(st));
    return SRL_OK;
}

static int cb_eval(void *ctx, const double *x, double *loss, double *val, double *extra,
                   srl_err *err)
{
    mlp *g = ctx;
    double acc;
    int st = eval_rows(g, x, 0, g->N, loss, &acc);
    if (!st)
        st = eval_rows(g, x, g->N, g->Nval, val, &acc);
    if (st)
        return srl_err_set(err, st, "evaluating the loss failed: %s", srl_strerror(st));
    if (g->task == MLP_MIXTURE)
        extra[0] = acc;
    return SRL_OK;
}

/* The Bayes risk of the mixture, by Monte Carlo (above). */
static double mixture_fstar(const mlp *g, const double *mu)
{
    srl_rng r;
    srl_train_stream(&r, &g->tc, "fstar");
    const size_t K = g->dout, d = g->din;
    double *x = malloc(d * sizeof *x), *z = malloc(K * sizeof *z), sum = 0;
    if (!x || !z) {
        free(x);
        free(z);
        return NAN;
    }
    for (size_t s = 0; s < FSTAR_SAMPLES; s++) {
        const size_t c = (size_t)srl_rng_below(&r, K);
        for (size_t i = 0; i < d; i++)
            x[i] = mu[c * d + i] + srl_rng_normal(&r);
        double mx = -INFINITY;
        for (size_t k = 0; k < K; k++) {
            double a = 0, nn = 0;
            for (size_t i = 0; i < d; i++) {
                a += mu[k * d + i] * x[i];
                nn += mu[k * d + i] * mu[k * d + i];
            }
            z[k] = a - nn / 2;
            mx = z[k] > mx ? z[k] : mx;
        }
        double e = 0;
        for (size_t k = 0; k < K; k++)
            e += exp(z[k] - mx);
        sum += log(e) - (z[c] - mx);
    }
    free(x);
    free(z);
    return sum / FSTAR_SAMPLES;
}

static int make_data(mlp *g, srl_err *err)
{
    srl_rng r;
    srl_train_stream(&r, &g->tc, "data");
    const size_t rows = g->N + g->Nval, din = g->din, dout = g->dout;
    g->X = malloc(rows * din * sizeof *g->X);
    if (!g->X)
        return srl_err_set(err, SRL_ENOMEM, "out of memory for the data");
    if (g->task == MLP_TEACHER) {
        double *teacher = calloc(g->model.flat, sizeof *teacher);
        g->Tg = malloc(rows * dout * sizeof *g->Tg);
        if (!teacher || !g->Tg) {
            free(teacher);
            return srl_err_set(err, SRL_ENOMEM, "out of memory for the data");
        }
        random_net(g, teacher, &r, true);
        for (size_t i = 0; i < rows * din; i++)
            g->X[i] = (float)srl_rng_normal(&r);
        /* t = teacher(x) in binary64, plus noise, rounded once to binary32 */
        int st = SRL_OK;
        for (size_t c0 = 0; c0 < rows && !st; c0 += EVAL_CHUNK) {
            const size_t nb = rows - c0 < EVAL_CHUNK ? rows - c0 : EVAL_CHUNK;
            for (size_t i = 0; i < nb * din; i++)
                g->xd[i] = g->X[c0 * din + i];
            for (size_t i = 0; i < nb * dout; i++)
                g->td[i] = 0;
            mlp_pass ps = pass_of(g, nb, &g->lay_d);
            double l1, h1;
            st = srl__mlp_pass_f64(&ps, teacher, NULL, g->xd, g->td, NULL, g->acts_d, &l1, &h1);
            const double *y = g->acts_d + g->lay_d.z[g->D];
            for (size_t i = 0; i < nb * dout && !st; i++)
                g->Tg[c0 * dout + i] = (float)(y[i] + g->noise * srl_rng_normal(&r));
        }
        free(teacher);
        if (st)
            return srl_err_set(err, st, "computing the teacher's targets failed");
        g->model.fstar = 0.5 * (double)dout * g->noise * g->noise;
    } else {
        double *mu = malloc(dout * din * sizeof *mu);
        g->lab = malloc(rows * sizeof *g->lab);
        if (!mu || !g->lab) {
            free(mu);
            return srl_err_set(err, SRL_ENOMEM, "out of memory for the data");
        }
        for (size_t i = 0; i < dout * din; i++)
            mu[i] = g->sep * srl_rng_normal(&r) / sqrt((double)din);
        for (size_t s = 0; s < rows; s++) {
            const size_t c = (size_t)srl_rng_below(&r, dout);
            g->lab[s] = (int32_t)c;
            for (size_t i = 0; i < din; i++)
                g->X[s * din + i] = (float)(mu[c * din + i] + srl_rng_normal(&r));
        }
        g->model.fstar = mixture_fstar(g, mu);
        free(mu);
    }
    return SRL_OK;
}

/* ---- keys ---- */

static const srl_param mlp_params[] = {
    {"task", "teacher",
     "teacher (regression on a random teacher of the same shape) or mixture (Gaussian-mixture "
     "classification)"},
    {"depth", "2", "hidden layers D (0 .. 15; 0 is a linear model)"},
    {"width", "64", "units per hidden layer H (>= 1)"},
    {"activation", "relu", "hidden activation: relu, gelu (tanh form), tanh"},
    {"in-dim", "16", "input dimension (>= 1)"},
    {"out-dim", "4", "outputs (teacher) or classes (mixture, >= 2)"},
    {"samples", "4096", "training rows (>= 1)"},
    {"val-samples", "1024", "validation rows (>= 1)"},
    {"batch-size", "32", "rows per micro-batch B (per replica, >= 1)"},
    {"noise", "0", "teacher: standard deviation of the label noise (fstar = out-dim noise^2 / 2)"},
    {"separation", "3", "mixture: length of the class means (larger is easier)"},
    SRL__MODEL_KEYS,
    {NULL, NULL, NULL},
};

/* This problem's defaults, and its size keys (src/problems/models_train.c). */
#define def_of(key) srl__model_param_def(mlp_params, key)
#define rd_size(cfg, key, lo, hi, out, err) \
    srl__model_read_size(cfg, mlp_params, key, lo, hi, out, err)

static const char *const wnames[] = {"w0",  "b0",  "w1",  "b1",  "w2",  "b2",  "w3",  "b3",
                                     "w4",  "b4",  "w5",  "b5",  "w6",  "b6",  "w7",  "b7",
                                     "w8",  "b8",  "w9",  "b9",  "w10", "b10", "w11", "b11",
                                     "w12", "b12", "w13", "b13", "w14", "b14", "w15", "b15"};

/* The MLP's keys into g (training config, replicas, task, shape, data sizes, noise, separation). */
static int read_mlp_keys(mlp *g, const srl_config *cfg, srl_err *err)
{
    static const char *const tasks[] = {"teacher", "mixture", NULL};
    static const char *const acts[] = {"relu", "gelu", "tanh", NULL};
    int st = srl_train_config_from(&g->tc, cfg, err);
    if (!st)
        st = srl__model_check_strategy(&g->tc.strat, err);
    if (!st)
        st = srl__model_read_replicas(cfg, &g->rp, err);
    if (!st && !(st = srl_config_choice(cfg, "task", def_of("task"), tasks, &g->task, err)) &&
        !(st = srl_config_choice(cfg, "activation", def_of("activation"), acts, &g->act_fn,
                                 err)) &&
        !(st = rd_size(cfg, "depth", 0, SRL__MLP_MAX_DEPTH, &g->D, err)) &&
        !(st = rd_size(cfg, "width", 1, 1u << 24, &g->H, err)) &&
        !(st = rd_size(cfg, "in-dim", 1, 1u << 24, &g->din, err)) &&
        !(st = rd_size(cfg, "out-dim", 1, 1u << 24, &g->dout, err)) &&
        !(st = rd_size(cfg, "samples", 1, (uint64_t)1 << 32, &g->N, err)) &&
        !(st = rd_size(cfg, "val-samples", 1, (uint64_t)1 << 32, &g->Nval, err)) &&
        !(st = rd_size(cfg, "batch-size", 1, 1u << 24, &g->B, err)) &&
        !(st = srl_config_double(cfg, "noise", def_of("noise"), &g->noise, err)))
        st = srl_config_double(cfg, "separation", def_of("separation"), &g->sep, err);
    if (!st && !(g->noise >= 0 && isfinite(g->noise)))
        st = srl_err_set(err, SRL_EINVAL, "noise: %g is not a finite number >= 0", g->noise);
    if (!st && !(g->sep >= 0 && isfinite(g->sep)))
        st = srl_err_set(err, SRL_EINVAL, "separation: %g is not a finite number >= 0", g->sep);
    if (!st && g->task == MLP_MIXTURE && g->dout < 2)
        st = srl_err_set(err, SRL_EINVAL, "out-dim: a mixture needs at least 2 classes");
    return st;
}

/* What the run will allocate, estimated before anything is and compared with mem-limit. */
static int check_mlp_memory(const mlp *g, const srl_config *cfg, srl_err *err)
{
    const double din = (double)g->din, H = (double)g->H, D = (double)g->D;
    const double dout = (double)g->dout, B = (double)g->B;
    const double rows = (double)g->N + (double)g->Nval;
    const double numel = D ? din * H + H + (D - 1) * (H * H + H) + H * dout + dout
                           : din * dout + dout;
    double need = srl__model_train_bytes(&g->tc, numel, numel + 16 * (2 * D + 2), g->rp.K);
    need += 4 * layout_elems(B, din, H, D, dout) + 8 * layout_elems(EVAL_CHUNK, din, H, D, dout);
    need += rows * (4 * din + 4 * dout + 4) + (B + EVAL_CHUNK) * 8 * (din + dout + 2);
    return srl__model_mem_check(cfg, need, "model", err);
}

/* The model: weights w_l (n_l, n_{l+1}) and b_l (n_{l+1}), callbacks, extra columns. */
static void mlp_model(mlp *g)
{
    srl__model *m = &g->model;
    m->ctx = g;
    m->nweights = 2 * (g->D + 1);
    for (size_t l = 0; l <= g->D; l++) {
        const size_t nin = l ? g->H : g->din, nout = l < g->D ? g->H : g->dout;
        srl_weight_spec *w = &m->specs[2 * l], *b = &m->specs[2 * l + 1];
        memset(w, 0, sizeof *w);
        memset(b, 0, sizeof *b);
        w->name = wnames[2 * l];
        w->ndim = 2;
        w->shape[0] = nin;
        w->shape[1] = nout;
        b->name = wnames[2 * l + 1];
        b->ndim = 1;
        b->shape[0] = nout;
    }
    srl__model_layout(m);
    m->init = cb_init;
    m->grad = cb_grad;
    m->eval = cb_eval;
    if (g->task == MLP_MIXTURE) {
        m->nextra = 1;
        m->extra_names[0] = "val_acc";
    }
}

/* The buffers of the training pass (B rows) and of evaluation (EVAL_CHUNK rows). */
static int mlp_buffers(mlp *g, srl_err *err)
{
    srl__mlp_layout_make(&g->lay_f, g->B, g->din, g->H, g->D, g->dout);
    srl__mlp_layout_make(&g->lay_d, EVAL_CHUNK, g->din, g->H, g->D, g->dout);
    const size_t rmax = g->B > EVAL_CHUNK ? g->B : EVAL_CHUNK;
    g->acts_f = calloc(g->lay_f.total, sizeof(float));
    g->acts_d = calloc(g->lay_d.total, sizeof(double));
    g->xb = calloc(g->B * g->din, sizeof(float));
    g->tb = calloc(g->B * g->dout, sizeof(float));
    g->lb = calloc(g->B, sizeof(int32_t));
    g->xd = calloc(EVAL_CHUNK * g->din, sizeof(double));
    g->td = calloc(EVAL_CHUNK * g->dout, sizeof(double));
    g->row_loss = calloc(rmax, sizeof(double));
    g->row_hit = calloc(rmax, sizeof(double));
    if (!g->acts_f || !g->acts_d || !g->xb || !g->tb || !g->lb || !g->xd || !g->td ||
        !g->row_loss || !g->row_hit)
        return srl_err_set(err, SRL_ENOMEM, "out of memory");
    set_ones(g->acts_d, g->acts_f, &g->lay_d, &g->lay_f, EVAL_CHUNK, g->B);
    return SRL_OK;
}

static int build(mlp **out, const srl_config *cfg, srl_err *err)
{
    *out = NULL;
    mlp *g = calloc(1, sizeof *g);
    if (!g)
        return srl_err_set(err, SRL_ENOMEM, "out of memory");
    int st = read_mlp_keys(g, cfg, err);
    if (!st)
        st = check_mlp_memory(g, cfg, err);
    if (!st) {
        mlp_model(g);
        st = mlp_buffers(g, err);
    }
    if (!st)
        st = make_data(g, err);
    if (st) {
        mlp_free(g);
        return st;
    }
    *out = g;
    return SRL_OK;
}

int srl__mlp_run(const srl_config *cfg, const srl_sink *out, srl_run_report *rep,
                 srl__model_hook hook, void *arg, srl_err *err)
{
    mlp *g;
    int st = build(&g, cfg, err);
    if (st)
        return st;
    st = srl__model_train(&g->model, &g->tc, &g->rp, out, rep, hook, arg, err);
    mlp_free(g);
    return st;
}

static int run_mlp(const srl_config *cfg, const srl_sink *out, srl_run_report *rep, srl_err *err)
{
    return srl__mlp_run(cfg, out, rep, NULL, NULL, err);
}

const srl_runner srl__runner_mlp = {
    "mlp", SRL_RUN_TRAIN,
    "a multilayer perceptron: teacher-student regression or Gaussian-mixture classification; "
    "K data-parallel replicas",
    mlp_params, run_mlp};
