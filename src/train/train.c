/* src/train/train.c: training runs (include/srlab/train.h): the common keys of every training runner,
 * their reading and checking, the run's streams, and the loop that trains a problem and logs
 * rows. Problems live in their own files (src/problems/convex.c, ...). */
#include "srlab/train.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "train/train_impl.h"

/* The keys of every training run. `srlab sweep` uses exactly these as axes; the defaults are
 * text accepted by the readers below ("strategy" means: the value of the --strategy preset). */
const srl_param srl__train_common_params[] = {
    {"seed", "1", "seed of every random stream of the run (non-negative integer)"},
    {"steps", "1000", "number of optimizer steps (>= 0)"},
    {"log-every", "10", "log a row every N steps (>= 1); step 0 and the last step always"},
    {"opt", "sgd", "optimizer: sgd, momentum (heavy ball), adam, adamw"},
    {"lr", "0.01", "peak learning rate (> 0)"},
    {"schedule", "constant", "learning-rate schedule after warm-up: constant, cosine"},
    {"warmup", "0", "linear warm-up steps: lr(t) = lr t / warmup for t <= warmup"},
    {"lr-min", "0", "final learning rate of the cosine schedule, in [0, lr]"},
    {"momentum", "0.9", "heavy-ball coefficient mu in [0, 1) (opt momentum)"},
    {"beta1", "0.9", "Adam first-moment decay in [0, 1)"},
    {"beta2", "0.999", "Adam second-moment decay in [0, 1)"},
    {"eps", "1e-8", "Adam epsilon (> 0), added to sqrt(v_hat)"},
    {"wd", "0", "weight decay (>= 0): decoupled for adamw, L2 in the gradient otherwise"},
    {"strategy", "fp32",
     "precision strategy: fp32, mp, bf16-rn, bf16-sr, bf16-sr-exact, bf16-kahan, mp-tc, "
     "custom"},
    {"format", "strategy", "shorthand for param-format: weight storage format"},
    {"rounding", "strategy", "shorthand for param-rounding: rounding of the weight write"},
    {"param-format", "strategy", "weight storage format (bf16, fp16, fp32, ..., p=P,emax=E)"},
    {"param-rounding", "strategy",
     "rounding of the weight write (or of the master's cast): rn, sr, sr:r=16, ..."},
    {"grad-format", "strategy", "gradient storage format"},
    {"grad-rounding", "strategy", "rounding of the gradient write"},
    {"state-format", "strategy", "storage format of both moments (m and v)"},
    {"state-rounding", "strategy", "rounding of both moments' writes"},
    {"m-format", "strategy", "first moment / momentum buffer format (overrides state-format)"},
    {"m-rounding", "strategy", "first moment rounding (overrides state-rounding)"},
    {"v-format", "strategy", "second moment format (overrides state-format)"},
    {"v-rounding", "strategy", "second moment rounding (overrides state-rounding)"},
    {"master-format", "strategy", "master copy format, or none (mp: fp32)"},
    {"master-rounding", "strategy", "rounding of the master write"},
    {"kahan", "strategy", "on: Kahan-compensated weight update (bf16-kahan: on)"},
    {"comp-format", "strategy", "Kahan compensation buffer format"},
    {"comp-rounding", "strategy", "rounding of the compensation write"},
    {"update-arith", "strategy", "arithmetic of the optimizer update: fp32 or fp64"},
    {"act-format", "strategy", "activation format (problems with a forward pass)"},
    {"act-rounding", "strategy", "activation rounding (problems with a forward pass)"},
    {"accum", "strategy",
     "matrix-product accumulation (problems with a forward pass; lsq, logreg with "
     "grad-compute=kernels), kernels notation: prod=FMT:MODE,acc=FMT:MODE[,order=...]"},
    {"mx", "off",
     "block-scaled GEMMs for the Fprop, Dgrad and Wgrad of the MLP's layers and the GPT's "
     "linear layers (qkv, proj, fc, fcproj): off, a recipe (mxfp8, fp4-rn, fp4-fprop, "
     "fp4-dgrad, fp4-wgrad, fp4-sr, fp4-sr-rht, fp4-had) or an mxgemm spec "
     "fmt=mxfp4,round=sr,scale=3/4,rot=rht,... (docs/mx-training.md)"},
    {"mx-fprop", "off", "Fprop (y = x W) alone: off or a spec on top of mx's"},
    {"mx-dgrad", "off", "Dgrad (dx = dy W^T) alone: off or a spec on top of mx's"},
    {"mx-wgrad", "off", "Wgrad (dW = x^T dy) alone: off or a spec on top of mx's"},
    {"grad-noise", "0", "standard deviation of Gaussian noise added to every gradient element"},
    {"rng", "pcg32", "generator of every stream: pcg32 or pcg64"},
    {NULL, NULL, NULL},
};

static const srl_param *common(const char *key)
{
    for (const srl_param *p = srl__train_common_params; p->key; p++)
        if (!strcmp(p->key, key))
            return p;
    return NULL;
}

static const char *def(const char *key)
{
    const srl_param *p = common(key);
    return p ? p->def : NULL;
}

static int rd_double(const srl_config *c, const char *key, double *out, srl_err *err)
{
    return srl_config_double(c, key, def(key), out, err);
}

static int rd_u64(const srl_config *c, const char *key, uint64_t *out, srl_err *err)
{
    return srl_config_u64(c, key, def(key), out, err);
}

int srl_train_config_from(srl_train_config *tc, const srl_config *cfg, srl_err *err)
{
    memset(tc, 0, sizeof *tc);
    int st, k;
    srl_optim_config *o = &tc->opt;
    if ((st = srl_config_choice(cfg, "opt", def("opt"), srl_optim_names, &k, err)))
        return st;
    o->kind = (srl_optim_kind)k;
    if ((st = srl_config_choice(cfg, "schedule", def("schedule"), srl_schedule_names, &k, err)))
        return st;
    o->schedule = (srl_schedule)k;
    if ((st = rd_double(cfg, "lr", &o->lr, err)) || (st = rd_double(cfg, "lr-min", &o->lr_min, err)) ||
        (st = rd_double(cfg, "momentum", &o->momentum, err)) ||
        (st = rd_double(cfg, "beta1", &o->beta1, err)) ||
        (st = rd_double(cfg, "beta2", &o->beta2, err)) ||
        (st = rd_double(cfg, "eps", &o->eps, err)) || (st = rd_double(cfg, "wd", &o->wd, err)) ||
        (st = rd_u64(cfg, "warmup", &o->warmup, err)) ||
        (st = rd_u64(cfg, "steps", &tc->steps, err)) ||
        (st = rd_u64(cfg, "log-every", &tc->log_every, err)) ||
        (st = rd_u64(cfg, "seed", &tc->seed, err)) ||
        (st = rd_double(cfg, "grad-noise", &tc->grad_noise, err)))
        return st;
    static const char *const kinds[] = {"pcg64", "pcg32", NULL}; /* srl_rng_kind order */
    if ((st = srl_config_choice(cfg, "rng", def("rng"), kinds, &k, err)))
        return st;
    tc->rng = k ? SRL_RNG_PCG32 : SRL_RNG_PCG64;
    o->steps = tc->steps;
    if (!(o->lr > 0) || !isfinite(o->lr))
        return srl_err_set(err, SRL_EINVAL,
                           "lr: %s is not a positive finite learning rate",
                           srl_config_get(cfg, "lr") ? srl_config_get(cfg, "lr") : def("lr"));
    if ((st = srl_optim_config_check(o, err)))
        return st;
    if (tc->log_every < 1)
        return srl_err_set(err, SRL_EINVAL, "log-every: must be at least 1");
    if (!(tc->grad_noise >= 0) || !isfinite(tc->grad_noise))
        return srl_err_set(err, SRL_EINVAL,
                           "grad-noise: %g is not a non-negative finite standard deviation",
                           tc->grad_noise);
    return srl_strategy_from_config(&tc->strat, cfg, err);
}

void srl_train_stream(srl_rng *r, const srl_train_config *tc, const char *purpose)
{
    srl_rng root;
    srl_rng_init(&root, tc->rng, tc->seed, 0);
    srl_rng_derive(r, &root, srl_hash_str(purpose));
}

void srl_train_add_noise(double *g, size_t n, size_t offset, size_t N, uint64_t t,
                         const srl_train_config *tc)
{
    if (tc->grad_noise == 0 || n == 0)
        return;
    srl_rng r;
    srl_train_stream(&r, tc, "grad-noise");
    srl_rng_seek(&r, 2 * ((t - 1) * (uint64_t)N + offset));
    for (size_t i = 0; i < n; i++)
        g[i] += tc->grad_noise * srl_rng_normal(&r);
}

/* ---- the loop ---- */

enum { C_STEP, C_LR, C_LOSS, C_GAP, C_DIST, C_GNORM, C_LOST, C_STATUS, C_FIXED };
static const char *const fixed_names[C_FIXED] = {
    "step", "lr_used", "loss", "loss_gap", "dist_to_opt", "grad_norm", "lost_update_frac", "status",
};
_Static_assert(C_FIXED == SRL__TRAIN_COLUMNS, "train_impl.h counts the columns");

void srl__train_columns_start(const char **names, srl_col_kind *kinds)
{
    for (int k = 0; k < C_FIXED; k++) {
        names[k] = fixed_names[k];
        kinds[k] = k == C_STEP ? SRL_COL_INT : k == C_STATUS ? SRL_COL_STR : SRL_COL_NUM;
    }
}

void srl__train_row_start(srl_value *v, uint64_t t, const double num[6], const char *status)
{
    v[C_STEP].kind = SRL_COL_INT;
    v[C_STEP].i = (int64_t)t;
    for (int k = 0; k < 6; k++) {
        v[C_LR + k].kind = SRL_COL_NUM;
        v[C_LR + k].num = num[k];
    }
    v[C_STATUS].kind = SRL_COL_STR;
    v[C_STATUS].str = status;
}

typedef struct logger {
    const srl_train_problem *p;
    const srl_sink *out;
} logger;

static int emit(const logger *L, const srl_weights *W, uint64_t t, double lr, double lost_frac,
                const char *status, srl_err *err)
{
    srl_train_metrics m;
    for (size_t i = 0; i < 8; i++)
        m.extra[i] = NAN;
    m.loss = m.loss_gap = m.dist_to_opt = m.grad_norm = NAN;
    int st = L->p->evaluate(L->p->ctx, W, &m, err);
    if (st)
        return st;
    srl_value v[C_FIXED + 8];
    memset(v, 0, sizeof v);
    const double nums[] = {lr, m.loss, m.loss_gap, m.dist_to_opt, m.grad_norm, lost_frac};
    srl__train_row_start(v, t, nums, status);
    for (size_t k = 0; k < L->p->nextra; k++) {
        v[C_FIXED + k].kind = SRL_COL_NUM;
        v[C_FIXED + k].num = m.extra[k];
    }
    st = L->out->row(L->out->ctx, v);
    if (st)
        return srl_err_set(err, st, "writing a row failed: %s", srl_strerror(st));
    return SRL_OK;
}

/* The problem's weights under tc's strategy and optimizer (write streams from the run's "writes"
 * stream), initialised by p->init. */
static int weights_setup(srl_weights *W, const srl_train_problem *p, const srl_train_config *tc,
                         srl_err *err)
{
    srl_rng writes;
    srl_train_stream(&writes, tc, "writes");
    int st = srl_weights_alloc(W, p->weights, p->nweights, &tc->strat, tc->opt.kind, &writes,
                               err);
    if (st)
        return st;
    size_t maxn = 1;
    for (size_t j = 0; j < W->count; j++)
        if (W->p[j].n > maxn)
            maxn = W->p[j].n;
    double *x0 = malloc(maxn * sizeof *x0);
    if (!x0)
        st = srl_err_set(err, SRL_ENOMEM, "out of memory");
    for (size_t j = 0; j < W->count && !st; j++) {
        st = p->init(p->ctx, j, x0, err);
        if (!st)
            st = srl_weights_init(W, j, x0, err);
    }
    free(x0);
    if (st)
        srl_weights_free(W);
    return st;
}

/* Start the rows: the fixed columns, then the problem's extra ones. */
static int begin_rows(const srl_train_problem *p, const srl_sink *out, srl_err *err)
{
    const char *names[C_FIXED + 8];
    srl_col_kind kinds[C_FIXED + 8];
    srl__train_columns_start(names, kinds);
    for (size_t k = 0; k < p->nextra; k++) {
        names[C_FIXED + k] = p->extra_names[k];
        kinds[C_FIXED + k] = SRL_COL_NUM;
    }
    const int st = out->begin(out->ctx, C_FIXED + p->nextra, names, kinds);
    if (st)
        return srl_err_set(err, st, "starting the rows failed: %s", srl_strerror(st));
    return SRL_OK;
}

/* The report's note for a step whose gradient or new weights are not all finite. */
static void note_divergence(srl_run_report *rep, uint64_t t, const srl_step_stats *ss,
                            size_t numel, const srl_format *grad_fmt)
{
    if (ss->nonfinite_grad)
        snprintf(rep->note, sizeof rep->note,
                 "diverged at step %llu: %llu of %zu gradient elements are not finite "
                 "(overflow or NaN in grad-format %s)", (unsigned long long)t,
                 (unsigned long long)ss->nonfinite_grad, numel, grad_fmt->name);
    else
        snprintf(rep->note, sizeof rep->note,
                 "diverged at step %llu: %llu of %zu parameters are not finite",
                 (unsigned long long)t, (unsigned long long)ss->nonfinite, numel);
}

int srl_train_run_inspect(const srl_train_problem *p, const srl_train_config *tc,
                          const srl_sink *out, srl_run_report *rep,
                          int (*inspect)(void *arg, const srl_weights *W, uint64_t t,
                                         const srl_step_stats *st),
                          void *arg, srl_err *err)
{
    if (p->nextra > 8)
        return srl_err_set(err, SRL_EINVAL, "a problem has at most 8 extra columns");
    srl_run_report scratch;
    if (!rep)
        rep = &scratch;
    memset(rep, 0, sizeof *rep);
    srl_weights W;
    int st = weights_setup(&W, p, tc, err);
    if (st)
        return st;
    const logger L = {p, out};
    if (!(st = begin_rows(p, out, err)))
        st = emit(&L, &W, 0, srl_optim_lr(&tc->opt, 1), 0.0, "ok", err);
    for (uint64_t t = 1; t <= tc->steps && !st; t++) {
        const double lr = srl_optim_lr(&tc->opt, t);
        if ((st = p->gradient(p->ctx, &W, t, err)))
            break;
        srl_step_stats ss;
        if ((st = srl_optim_step(&ss, &W, &tc->opt, t, lr))) {
            srl_err_set(err, st, "optimizer step %llu failed: %s", (unsigned long long)t,
                        srl_strerror(st));
            break;
        }
        if (inspect && (st = inspect(arg, &W, t, &ss)))
            break;
        const double lost = W.numel ? (double)ss.lost / (double)W.numel : 0.0;
        if (ss.nonfinite || ss.nonfinite_grad) {
            rep->diverged = true;
            note_divergence(rep, t, &ss, W.numel, &tc->strat.grad.fmt);
            st = emit(&L, &W, t, lr, lost, "diverged", err);
            break;
        }
        if (t % tc->log_every == 0 || t == tc->steps)
            st = emit(&L, &W, t, lr, lost, "ok", err);
    }
    srl_weights_free(&W);
    return st;
}

int srl_train_run(const srl_train_problem *p, const srl_train_config *tc, const srl_sink *out,
                  srl_run_report *rep, srl_err *err)
{
    return srl_train_run_inspect(p, tc, out, rep, NULL, NULL, err);
}
