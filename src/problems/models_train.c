/* src/problems/models_train.c: training a model problem (the MLP, the GPT) with K emulated data-parallel
 * replicas (docs/design.md §8 `dp`, §9 item 12; theory/T12-replicas.md). Private API: src/problems/model_impl.h.
 *
 * One step t (t = 1, 2, ...), replicas r = 0 .. K-1 in order:
 *   1. replica r reads its weights (the NAME tensors, for mp the bf16 cast of its master) as
 *      float, runs forward and backward on its own micro-batch (the model draws its data by
 *      (t, r)), and its gradient is written into its NAME.grad tensors: rounded into the grad
 *      slot with the slot's mode and draws (t-1) n + i of that tensor's stream (optim.h);
 *   2. all-reduce (K >= 2), element by element, in the grad format F with the grad mode M:
 *          s = g_0;  s = M_F(s + g_r) for r = 1 .. K-1 (in that order);  g = M_F(s / K)
 *      each operation the exact result rounded once (srl_op_apply_draw; native binary32
 *      arithmetic when F is binary32 and M is rn, which is the same operation). With a
 *      stochastic M, operation o (o = 0 .. K-2 the additions, K-1 the division) of element i
 *      (flat index over all weights) uses draw ((t-1) K + o) N + i of the run's "allreduce"
 *      stream (N = number of parameters). g is then written into every replica's NAME.grad
 *      (it is a value of F: the write is exact). This is a ring all-reduce's arithmetic with a
 *      fixed order, the same on every replica, as a deterministic collective would give;
 *   3. every replica takes optimizer step t (srl_optim_step) with its own tensors. Their write
 *      streams derive from the run's "writes" stream: shared, every replica uses it (the seed
 *      paper's shared randomness); independent, replica 0 uses it and replica r >= 1 a stream
 *      derived from it with key hash("replica", r).
 * With K = 1 steps 2 and 3 reduce to plain training (the same rows as any srlab training run).
 *
 * Rows: the columns of include/srlab/train.h (step, lr_used, loss, loss_gap, dist_to_opt,
 * grad_norm, lost_update_frac, status), evaluated on replica 0, then
 *   val_loss           the validation loss of replica 0's stored parameters, binary64
 *   fstar              the best achievable expected loss (NaN if unknown); loss_gap = loss - fstar
 *   replica_div        max over r of ||x_r - x_0||_2 / ||x_0||_2 (0 for K = 1)
 *   replica_diff_frac  fraction of parameters on which some replica differs from replica 0
 *   replica_d2         mean over r = 1 .. K-1 of ||x_r - x_0||_2^2
 *   replica_d2_pred    theory/T12's random-walk prediction of replica_d2: the sum over steps and
 *                      parameters of 2 p (1 - p) q^2, p the probability that replica 0's weight
 *                      write rounds away from zero and q the grid spacing there (0 with shared
 *                      streams or a deterministic write; NaN where T12 does not apply: Kahan
 *                      compensation)
 * then the model's extra columns. x is the stored parameters (the master if any). grad_norm is
 * the 2-norm of the stored (all-reduced) gradient of the step that led to the row (NaN at step
 * 0); dist_to_opt is NaN (a network's optimum is not a point). lost_update_frac is replica 0's.
 * A non-finite weight or gradient in any replica stops the run as in src/train/train.c. */
#include "problems/model_impl.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "core/threads.h"      /* srl__workers_ok */
#include "core/mutant.h"
#include "round/round_bulk.h" /* srl__round_array_float_fork */
#include "srlab/ops.h"
#include "srlab/tensor.h"
#include "srlab/theory.h"
#include "train/train_impl.h"

size_t srl__models_omp_min = (size_t)1 << 15;

/* ---- layout, keys, memory ---- */

void srl__model_layout(srl__model *m)
{
    size_t off = 0, n = 0;
    for (size_t j = 0; j < m->nweights; j++) {
        size_t e = 1;
        for (int a = 0; a < m->specs[j].ndim; a++)
            e *= m->specs[j].shape[a];
        m->off[j] = off;
        off += (e + 15) & ~(size_t)15;
        n += e;
    }
    m->numel = n;
    m->flat = off ? off : 16;
}

int srl__model_read_replicas(const srl_config *cfg, srl__replicas *rp, srl_err *err)
{
    uint64_t K;
    int st = srl_config_u64(cfg, "replicas", "1", &K, err);
    if (st)
        return st;
    if (K < 1)
        return srl_err_set(err, SRL_EINVAL, "replicas: 0 replicas cannot train (give 1 or more)");
    if (K > 1024)
        return srl_err_set(err, SRL_EINVAL, "replicas: %llu is more than 1024",
                           (unsigned long long)K);
    static const char *const modes[] = {"shared", "independent", NULL};
    int mode;
    if ((st = srl_config_choice(cfg, "sr-seed", "shared", modes, &mode, err)))
        return st;
    rp->K = (size_t)K;
    rp->shared = mode == 0;
    return SRL_OK;
}

int srl__model_check_strategy(const srl_strategy *s, srl_err *err)
{
    const struct {
        const char *key;
        const srl_format *f;
    } need[] = {{"param-format", &s->param.fmt},
                {"act-format", &s->act.fmt},
                {"grad-format", &s->grad.fmt},
                {"accum", &s->accum_cfg.acc_fmt}};
    for (size_t i = 0; i < sizeof need / sizeof *need; i++)
        if (!srl_format_fits_float(need[i].f))
            return srl_err_set(err, SRL_EINVAL,
                               "%s: %s is not a subset of binary32, which the MLP and GPT use to "
                               "hold weights, activations and gradients between the kernels "
                               "(choose a format of at most 24 bits of precision and binary32's "
                               "range)", need[i].key, need[i].f->name);
    return SRL_OK;
}

double srl__model_train_bytes(const srl_train_config *tc, double numel, double flat, size_t K)
{
    const srl_bytes b = srl_strategy_bytes(&tc->strat, srl_optim_has_m(tc->opt.kind),
                                           srl_optim_has_v(tc->opt.kind));
    double per = (double)b.total * numel + 6 * 64.0 * SRL__MODEL_MAX_WEIGHTS; /* + padding */
    double bytes = per * (double)K;
    bytes += 2 * 4.0 * flat;                  /* float parameters and gradient */
    bytes += 2 * 8.0 * flat;                  /* binary64 values of two replicas */
    if (K > 1)
        bytes += 8.0 * flat;                  /* the prediction */
    return bytes;
}

static double phys_bytes(void)
{
    const long pages = sysconf(_SC_PHYS_PAGES), size = sysconf(_SC_PAGE_SIZE);
    if (pages <= 0 || size <= 0)
        return 16.0 * 1024 * 1024 * 1024; /* unknown: assume 16 GiB */
    return (double)pages * (double)size;
}

static void human(char *buf, size_t len, double b)
{
    const char *u[] = {"bytes", "KiB", "MiB", "GiB", "TiB", "PiB", "EiB"};
    int k = 0;
    while (b >= 1024 && k < 6) {
        b /= 1024;
        k++;
    }
    if (b >= 1e6) /* beyond EiB */
        snprintf(buf, len, "%.3g %s", b, u[k]);
    else
        snprintf(buf, len, k ? "%.1f %s" : "%.0f %s", b, u[k]);
}

int srl__model_mem_check(const srl_config *cfg, double need, const char *what, srl_err *err)
{
    const char *v = srl_config_get(cfg, "mem-limit");
    double limit;
    if (!v || !strcmp(v, "auto")) {
        limit = phys_bytes();
        v = "auto";
    } else {
        char *end;
        limit = strtod(v, &end);
        double mult = 1;
        if (*end == 'K' || *end == 'k')
            mult = 1024.0, end++;
        else if (*end == 'M' || *end == 'm')
            mult = 1024.0 * 1024, end++;
        else if (*end == 'G' || *end == 'g')
            mult = 1024.0 * 1024 * 1024, end++;
        else if (*end == 'T' || *end == 't')
            mult = 1024.0 * 1024 * 1024 * 1024, end++;
        if (end == v || *end || !(limit > 0) || !isfinite(limit))
            return srl_err_set(err, SRL_EPARSE, "mem-limit: '%s' is not a positive size (bytes "
                               "with an optional K, M, G or T suffix, or auto)", v);
        limit *= mult;
    }
    if (!(need <= limit)) {
        char a[32], b[32];
        human(a, sizeof a, need);
        human(b, sizeof b, limit);
        return srl_err_set(err, SRL_EINVAL,
                           "the %s needs about %s of memory, more than the limit of %s "
                           "(mem-limit=%s); nothing was allocated: make it smaller", what, a, b,
                           v);
    }
    return SRL_OK;
}

/* ---- streams ---- */

void srl__model_compute_stream(srl_rng *c, const srl_train_config *tc, size_t r, uint64_t t)
{
    srl_rng base;
    srl_train_stream(&base, tc, "compute");
    srl_rng_derive(c, &base, srl_hash64((uint64_t)r, t));
}

void srl__model_writes_root(srl_rng *root, const srl_train_config *tc, size_t r, bool shared)
{
    srl_train_stream(root, tc, "writes");
    /* defects replica-stream, replica-shared (src/core/mutant.h): shared streams that differ,
     * independent ones that do not */
    if ((!shared || SRL__MUT(REPLICA_STREAM)) && r > 0 && !SRL__MUT(REPLICA_SHARED))
        srl_rng_derive(root, root, srl_hash64(srl_hash_str("replica"), (uint64_t)r));
}

static bool is_binary32(const srl_format *f)
{
    const srl_format *p = srl_format_find("fp32");
    return p && srl_format_equal(f, p);
}

int srl__round_slot(float *x, size_t n, const srl_slot *slot, srl_rng *rng)
{
    const bool sto = srl_rounding_is_stochastic(slot->mode);
    if (is_binary32(&slot->fmt)) { /* every float is a value: unchanged, the draws still consumed */
        if (sto && n)
            srl_rng_seek(rng, rng->counter + n);
        return SRL_OK;
    }
    /* Forks on the passes' threshold, not the bulk API's: the arrays here were just written by
     * the passes' loops, a static half per thread, and the bulk split gives each thread the
     * half it wrote (in its own cache; one thread rounding both halves fetches the other
     * core's lines, two to three times as slow at GPT size b, BENCHMARKS.md). */
    return srl__round_array_float_fork(x, x, n, &slot->fmt, slot->mode, rng,
                                       srl__models_omp_min);
}

/* ---- the all-reduce ---- */

typedef struct loopstate {
    const srl__model *m;
    const srl_train_config *tc;
    size_t K;
    bool shared;
    srl_weights *W;  /* K replicas */
    float *pbuf, *gbuf;
    double *x0, *xr; /* binary64 values of replica 0 and of another replica */
    double *pred;    /* per-coordinate prediction (K > 1, independent, stochastic write) */
    bool pred_on, pred_nan;
    srl_rng allreduce;
} loopstate;

static int allreduce(loopstate *L, uint64_t t)
{
    const srl__model *m = L->m;
    const srl_slot *gs = &L->tc->strat.grad;
    const bool native = is_binary32(&gs->fmt) && gs->mode.mode == SRL_RN;
    const bool sto = srl_rounding_is_stochastic(gs->mode);
    const uint64_t N = m->numel, K = L->K;
    float *s = L->gbuf, *tmp = L->pbuf;
    uint64_t base_i = 0; /* flat index (without padding) of the weight's first element */
    for (size_t j = 0; j < m->nweights; j++) {
        const size_t n = L->W[0].p[j].n;
        srl_tensor_get_f(s, L->W[0].p[j].g, 0, n);
        for (size_t r = 1; r <= K; r++) {
            const bool div = r == K;
            if (!div)
                srl_tensor_get_f(tmp, L->W[r].p[j].g, 0, n);
            const uint64_t first = ((t - 1) * K + (r - 1)) * N + base_i;
            if (native) {
                const float fk = (float)K;
                if (div)
                    for (size_t i = 0; i < n; i++)
                        s[i] = s[i] / fk;
                else
                    for (size_t i = 0; i < n; i++)
                        s[i] = s[i] + tmp[i];
                continue;
            }
#pragma omp parallel for schedule(static) if (n >= srl__models_omp_min && srl__workers_ok())
            for (size_t i = 0; i < n; i++) {
                const uint64_t idx = first + i;
                const uint64_t u = sto ? srl_rng_draw_at(&L->allreduce, idx) : 0;
                s[i] = (float)(div ? srl_op_apply_draw(SRL_DIV, s[i], (double)K, 0, &gs->fmt,
                                                       gs->mode, u, &L->allreduce, idx)
                                   : srl_op_apply_draw(SRL_ADD, s[i], tmp[i], 0, &gs->fmt,
                                                       gs->mode, u, &L->allreduce, idx));
            }
        }
        for (size_t r = 0; r < K; r++) { /* s holds values of the grad format: exact writes */
            int st = srl_tensor_put_f(L->W[r].p[j].g, 0, s, n, SRL_ROUND_RN, t - 1);
            if (st)
                return st;
        }
        base_i += n;
    }
    return SRL_OK;
}

/* ---- theory/T12: the random-walk prediction ---- */

/* The value the optimizer step writes for one element, computed as include/srlab/optim.h
 * defines it in arithmetic REAL (see there for the coefficients). */
#define DEFINE_XE(NAME, REAL, SQRT)                                                              \
    static double NAME(const srl_optim_config *c, srl_optim_kind k, double xd, double gd,         \
                       double md, double vd, uint64_t t, double lrd)                             \
    {                                                                                            \
        const REAL lr = (REAL)lrd, wd = (REAL)c->wd, eps = (REAL)c->eps;                         \
        const REAL b1 = (REAL)c->beta1, b2 = (REAL)c->beta2, mu = (REAL)c->momentum;             \
        const REAL c1 = (REAL)(1 - c->beta1), c2 = (REAL)(1 - c->beta2);                         \
        const REAL bc1 = (REAL)(1 - pow(c->beta1, (double)t));                                   \
        const REAL bc2 = (REAL)(1 - pow(c->beta2, (double)t));                                   \
        const REAL x = (REAL)xd, g = (REAL)gd, m = (REAL)md, v = (REAL)vd;                       \
        REAL s;                                                                                  \
        switch (k) {                                                                             \
        case SRL_OPTIM_SGD: s = lr * (g + wd * x); break;                                          \
        case SRL_OPTIM_MOMENTUM: s = lr * (mu * m + (g + wd * x)); break;                          \
        case SRL_OPTIM_ADAM: {                                                                     \
            const REAL d = g + wd * x;                                                           \
            const REAL m1 = b1 * m + c1 * d, v1 = b2 * v + (c2 * d) * d;                         \
            s = lr * ((m1 / bc1) / (SQRT(v1 / bc2) + eps));                                      \
            break;                                                                               \
        }                                                                                        \
        default: {                                                                               \
            const REAL m1 = b1 * m + c1 * g, v1 = b2 * v + (c2 * g) * g;                         \
            s = lr * ((m1 / bc1) / (SQRT(v1 / bc2) + eps) + wd * x);                             \
            break;                                                                               \
        }                                                                                        \
        }                                                                                        \
        return (double)(x - s);                                                                  \
    }
DEFINE_XE(xe_f, float, sqrtf)
DEFINE_XE(xe_d, double, sqrt)

/* Contract the prediction so far by the step's weight decay (srl_t12_decay_keep) and add this
 * step's 2 p (1 - p) q^2 per coordinate (srl_t12_pair_d2), from replica 0's state before the
 * step. */
static void predict(loopstate *L, uint64_t t, double lr)
{
    const srl_weights *W = &L->W[0];
    const srl_strategy *s = &W->strat;
    const srl_slot *slot = s->has_master ? &s->master : &s->param;
    const bool f32 = s->arith == SRL_ARITH_FP32;
    const srl_optim_config *c = &L->tc->opt;
    /* T12 step 3: the squared distance so far contracts with the weight decay of this step */
    const double keep = srl_t12_decay_keep(c->kind, lr, c->wd);
    for (size_t j = 0; j < W->count; j++) {
        const srl_weight *p = &W->p[j];
        const size_t n = p->n;
        double *pr = L->pred + L->m->off[j];
#pragma omp parallel for schedule(static) if (n >= srl__models_omp_min && srl__workers_ok())
        for (size_t i0 = 0; i0 < n; i0 += 256) {
            double x[256], g[256], mm[256], vv[256];
            const size_t k = n - i0 < 256 ? n - i0 : 256;
            srl_tensor_get_d(x, p->master ? p->master : p->w, i0, k);
            srl_tensor_get_d(g, p->g, i0, k);
            if (p->m)
                srl_tensor_get_d(mm, p->m, i0, k);
            else
                memset(mm, 0, sizeof mm);
            if (p->v)
                srl_tensor_get_d(vv, p->v, i0, k);
            else
                memset(vv, 0, sizeof vv);
            for (size_t i = 0; i < k; i++) {
                const double xe = f32 ? xe_f(c, c->kind, x[i], g[i], mm[i], vv[i], t, lr)
                                      : xe_d(c, c->kind, x[i], g[i], mm[i], vv[i], t, lr);
                pr[i0 + i] = keep * pr[i0 + i] + srl_t12_pair_d2(xe, &slot->fmt, slot->mode);
            }
        }
    }
}

/* ---- rows ---- */

/* The columns after train.h's (src/train/train_impl.h), then the model's extra ones. */
enum { C_VAL = SRL__TRAIN_COLUMNS, C_FSTAR, C_DIV, C_DIFF, C_D2, C_D2P, C_FIXED };
static const char *const model_names[C_FIXED - C_VAL] = {
    "val_loss", "fstar", "replica_div", "replica_diff_frac", "replica_d2", "replica_d2_pred",
};

static void values_flat(double *x, const loopstate *L, size_t r)
{
    for (size_t j = 0; j < L->m->nweights; j++)
        srl_weights_values(x + L->m->off[j], &L->W[r], j);
}

static double grad_norm(const loopstate *L)
{
    double s = 0, tile[512];
    const srl_weights *W = &L->W[0];
    for (size_t j = 0; j < W->count; j++)
        for (size_t i0 = 0; i0 < W->p[j].n; i0 += 512) {
            const size_t k = W->p[j].n - i0 < 512 ? W->p[j].n - i0 : 512;
            srl_tensor_get_d(tile, W->p[j].g, i0, k);
            for (size_t i = 0; i < k; i++)
                s += tile[i] * tile[i];
        }
    return sqrt(s);
}

/* The replica columns (K > 1; L->x0 holds replica 0's values): out[0] replica_div, out[1]
 * replica_diff_frac, out[2] replica_d2, out[3] replica_d2_pred (the header says what they are). */
static void replica_metrics(loopstate *L, double out[4])
{
    const srl__model *m = L->m;
    double div = 0, d2 = 0, d2p = 0, n0 = 0;
    for (size_t j = 0; j < m->nweights; j++)
        for (size_t i = 0; i < L->W[0].p[j].n; i++)
            n0 += L->x0[m->off[j] + i] * L->x0[m->off[j] + i];
    n0 = sqrt(n0);
    unsigned char *differs = (unsigned char *)L->pbuf; /* scratch: flat bytes */
    memset(differs, 0, m->flat);
    for (size_t r = 1; r < L->K; r++) {
        values_flat(L->xr, L, r);
        double s = 0;
        for (size_t j = 0; j < m->nweights; j++)
            for (size_t i = 0; i < L->W[0].p[j].n; i++) {
                const size_t o = m->off[j] + i;
                const double d = L->xr[o] - L->x0[o];
                if (memcmp(&L->xr[o], &L->x0[o], sizeof(double)))
                    differs[o] = 1;
                if (isfinite(d))
                    s += d * d;
                else if (!(L->xr[o] != L->xr[o] && L->x0[o] != L->x0[o]))
                    s = INFINITY;
            }
        div = fmax(div, sqrt(s) / n0);
        d2 += s;
    }
    d2 /= (double)(L->K - 1);
    size_t cnt = 0;
    for (size_t o = 0; o < m->flat; o++)
        cnt += differs[o];
    if (L->pred_nan)
        d2p = NAN;
    else if (L->pred_on)
        for (size_t o = 0; o < m->flat; o++)
            d2p += L->pred[o];
    out[0] = div;
    out[1] = (double)cnt / (double)m->numel;
    out[2] = d2;
    out[3] = d2p;
}

static int emit(loopstate *L, const srl_sink *out, uint64_t t, double lr, double lost,
                double gnorm, const char *status, srl_err *err)
{
    const srl__model *m = L->m;
    double loss = NAN, val = NAN, extra[SRL__MODEL_MAX_EXTRA];
    for (size_t k = 0; k < SRL__MODEL_MAX_EXTRA; k++)
        extra[k] = NAN;
    values_flat(L->x0, L, 0);
    int st = m->eval(m->ctx, L->x0, &loss, &val, extra, err);
    if (st)
        return st;
    double replica[4] = {0, 0, 0, 0};
    if (L->K > 1)
        replica_metrics(L, replica);
    srl_value v[C_FIXED + SRL__MODEL_MAX_EXTRA];
    memset(v, 0, sizeof v);
    const double nums[] = {lr, loss, loss - m->fstar, NAN, gnorm, lost};
    srl__train_row_start(v, t, nums, status);
    const double more[] = {val, m->fstar, replica[0], replica[1], replica[2], replica[3]};
    for (int k = 0; k < 6; k++) {
        v[C_VAL + k].kind = SRL_COL_NUM;
        v[C_VAL + k].num = more[k];
    }
    for (size_t k = 0; k < m->nextra; k++) {
        v[C_FIXED + k].kind = SRL_COL_NUM;
        v[C_FIXED + k].num = extra[k];
    }
    st = out->row(out->ctx, v);
    if (st)
        return srl_err_set(err, st, "writing a row failed: %s", srl_strerror(st));
    return SRL_OK;
}

/* ---- the loop ---- */

static void free_state(loopstate *L)
{
    if (L->W)
        for (size_t r = 0; r < L->K; r++)
            srl_weights_free(&L->W[r]);
    free(L->W);
    free(L->pbuf);
    free(L->gbuf);
    free(L->x0);
    free(L->xr);
    free(L->pred);
}

/* One optimizer step of every replica. *gnorm (replica 0's gradient norm) is computed only when
 * want_gnorm: a row will be emitted. It is a serial binary64 sum over every parameter, in order
 * (0.3 ms of a 13 ms GPT step at size b on two threads), and the optimizer only reads the
 * gradients, so the run can still take it after the step if that step diverges. */
static int one_step(loopstate *L, uint64_t t, double lr, bool want_gnorm, srl_step_stats *ss0,
                    double *gnorm, srl_step_stats *tot, srl_err *err)
{
    const srl__model *m = L->m;
    int st;
    for (size_t r = 0; r < L->K; r++) {
        srl_weights *W = &L->W[r];
        for (size_t j = 0; j < m->nweights; j++)
            srl_tensor_get_f(L->pbuf + m->off[j], W->p[j].w, 0, W->p[j].n);
        srl_rng c;
        srl__model_compute_stream(&c, L->tc, r, t);
        if ((st = m->grad(m->ctx, r, t, L->pbuf, L->gbuf, &c, err)))
            return st;
        for (size_t j = 0; j < m->nweights; j++)
            if ((st = srl_weights_set_grad_f(W, j, L->gbuf + m->off[j], t)))
                return srl_err_set(err, st, "writing the gradient of %s failed: %s",
                                   W->p[j].w->name, srl_strerror(st));
    }
    if (L->K > 1 && (st = allreduce(L, t)))
        return srl_err_set(err, st, "the all-reduce failed: %s", srl_strerror(st));
    *gnorm = want_gnorm ? grad_norm(L) : NAN;
    if (L->pred_on)
        predict(L, t, lr);
    memset(tot, 0, sizeof *tot);
    for (size_t r = 0; r < L->K; r++) {
        srl_step_stats ss;
        if ((st = srl_optim_step(&ss, &L->W[r], &L->tc->opt, t, lr)))
            return srl_err_set(err, st, "optimizer step %llu failed: %s", (unsigned long long)t,
                               srl_strerror(st));
        if (r == 0)
            *ss0 = ss;
        tot->nonfinite += ss.nonfinite;
        tot->nonfinite_grad += ss.nonfinite_grad;
    }
    return SRL_OK;
}

/* The loop's state: the buffers, the K replicas' weights allocated (write streams as the header
 * says) and initialised from m->init, the all-reduce stream. On failure the caller frees L. */
static int loop_init(loopstate *L, const srl__model *m, const srl_train_config *tc,
                     const srl__replicas *rp, srl_err *err)
{
    memset(L, 0, sizeof *L);
    L->m = m;
    L->tc = tc;
    L->K = rp->K;
    L->shared = rp->shared;
    const srl_strategy *s = &tc->strat;
    const srl_slot *wslot = s->has_master ? &s->master : &s->param;
    L->pred_on = L->K > 1 && !L->shared && srl_rounding_is_stochastic(wslot->mode) && !s->kahan;
    L->pred_nan = L->K > 1 && !L->shared && s->kahan;
    srl_train_stream(&L->allreduce, tc, "allreduce");
    L->W = calloc(L->K, sizeof *L->W);
    L->pbuf = aligned_alloc(64, m->flat * sizeof(float));
    L->gbuf = aligned_alloc(64, m->flat * sizeof(float));
    L->x0 = calloc(m->flat, sizeof(double));
    L->xr = calloc(m->flat, sizeof(double));
    if (L->pred_on)
        L->pred = calloc(m->flat, sizeof(double));
    if (!L->W || !L->pbuf || !L->gbuf || !L->x0 || !L->xr || (L->pred_on && !L->pred))
        return srl_err_set(err, SRL_ENOMEM, "out of memory");
    memset(L->pbuf, 0, m->flat * sizeof(float));
    memset(L->gbuf, 0, m->flat * sizeof(float));
    int st = SRL_OK;
    for (size_t r = 0; r < L->K && !st; r++) {
        srl_rng root;
        srl__model_writes_root(&root, tc, r, L->shared);
        st = srl_weights_alloc(&L->W[r], m->specs, m->nweights, s, tc->opt.kind, &root, err);
    }
    if (!st)
        st = m->init(m->ctx, L->x0, err);
    for (size_t r = 0; r < L->K && !st; r++)
        for (size_t j = 0; j < m->nweights && !st; j++)
            st = srl_weights_init(&L->W[r], j, L->x0 + m->off[j], err);
    return st;
}

/* Start the rows: the fixed columns, then the model's extra ones. */
static int begin_rows(const srl__model *m, const srl_sink *out, srl_err *err)
{
    const size_t ncol = C_FIXED + m->nextra;
    const char *names[C_FIXED + SRL__MODEL_MAX_EXTRA];
    srl_col_kind kinds[C_FIXED + SRL__MODEL_MAX_EXTRA];
    srl__train_columns_start(names, kinds);
    for (size_t k = C_VAL; k < ncol; k++) {
        names[k] = k < C_FIXED ? model_names[k - C_VAL] : m->extra_names[k - C_FIXED];
        kinds[k] = SRL_COL_NUM;
    }
    const int st = out->begin(out->ctx, ncol, names, kinds);
    if (st)
        return srl_err_set(err, st, "starting the rows failed: %s", srl_strerror(st));
    return SRL_OK;
}

/* The report's note for a step whose gradient or new weights are not all finite. */
static void note_divergence(srl_run_report *rep, uint64_t t, const srl_step_stats *tot,
                            const srl_format *grad_fmt)
{
    if (tot->nonfinite_grad)
        snprintf(rep->note, sizeof rep->note,
                 "diverged at step %llu: %llu gradient elements are not finite (overflow or NaN "
                 "in grad-format %s)", (unsigned long long)t,
                 (unsigned long long)tot->nonfinite_grad, grad_fmt->name);
    else
        snprintf(rep->note, sizeof rep->note,
                 "diverged at step %llu: %llu parameters are not finite", (unsigned long long)t,
                 (unsigned long long)tot->nonfinite);
}

int srl__model_train(const srl__model *m, const srl_train_config *tc, const srl__replicas *rp,
                     const srl_sink *out, srl_run_report *rep, srl__model_hook hook, void *arg,
                     srl_err *err)
{
    srl_run_report scratch;
    if (!rep)
        rep = &scratch;
    memset(rep, 0, sizeof *rep);
    snprintf(rep->info, sizeof rep->info, "%zu trainable parameters in %zu tensors, %zu replica%s",
             m->numel, m->nweights, rp->K, rp->K == 1 ? "" : "s");
    if (m->nextra > SRL__MODEL_MAX_EXTRA)
        return srl_err_set(err, SRL_EINVAL, "a model has at most %d extra columns",
                           SRL__MODEL_MAX_EXTRA);
    loopstate L;
    int st = loop_init(&L, m, tc, rp, err);
    if (!st)
        st = begin_rows(m, out, err);
    if (!st)
        st = emit(&L, out, 0, srl_optim_lr(&tc->opt, 1), 0.0, NAN, "ok", err);
    for (uint64_t t = 1; t <= tc->steps && !st; t++) {
        const double lr = srl_optim_lr(&tc->opt, t);
        srl_step_stats ss0 = {0, 0, 0}, tot = {0, 0, 0};
        double gnorm = NAN;
        const bool logged = t % tc->log_every == 0 || t == tc->steps;
        if ((st = one_step(&L, t, lr, logged, &ss0, &gnorm, &tot, err)))
            break;
        if (hook && (st = hook(arg, L.W, L.K, t, L.pred)))
            break;
        const double lost = m->numel ? (double)ss0.lost / (double)m->numel : 0.0;
        if (tot.nonfinite || tot.nonfinite_grad) {
            rep->diverged = true;
            note_divergence(rep, t, &tot, &tc->strat.grad.fmt);
            if (!logged)
                gnorm = grad_norm(&L);
            st = emit(&L, out, t, lr, lost, gnorm, "diverged", err);
            break;
        }
        if (logged)
            st = emit(&L, out, t, lr, lost, gnorm, "ok", err);
    }
    free_state(&L);
    return st;
}

const char *srl__model_param_def(const srl_param *tab, const char *key)
{
    for (const srl_param *p = tab; p->key; p++)
        if (!strcmp(p->key, key))
            return p->def;
    return NULL;
}

int srl__model_read_size(const srl_config *cfg, const srl_param *tab, const char *key, uint64_t lo,
                         uint64_t hi, size_t *out, srl_err *err)
{
    uint64_t v;
    int st = srl_config_u64(cfg, key, srl__model_param_def(tab, key), &v, err);
    if (st)
        return st;
    if (v < lo || v > hi)
        return srl_err_set(err, SRL_EINVAL, "%s: %llu is outside [%llu, %llu]", key,
                           (unsigned long long)v, (unsigned long long)lo,
                           (unsigned long long)hi);
    *out = (size_t)v;
    return SRL_OK;
}
