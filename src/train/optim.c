/* src/train/optim.c: optimizers, schedules, weights and their state (include/srlab/optim.h): SGD,
 * heavy ball, Adam and AdamW (Loshchilov and Hutter's decoupled weight decay) under the precision
 * strategies of docs/design.md §7, among them the seed paper's bf16 AdamW with sr:r=16 weight writes
 * (Ozkara, Yu, Park, AISTATS 2025).
 *
 * Two paths compute the same bits (tests/train/test_optim.c compares them):
 *   generic  src/train/optim_tpl.h, instantiated for binary32 and binary64 update arithmetic: tiles of
 *            OPT_TILE elements, each loaded into arrays of the arithmetic's type, updated in
 *            short vectorisable passes, and written back through the tensors' tile writers
 *            (any format, any rounding, master copies, Kahan compensation);
 *   fused    src/train/optim_fast_isa.h, for the common bf16 case (Adam/AdamW, weights, gradients and
 *            moments in bf16, moments rn, weights rn or sr:r=16): one pass per tile over the
 *            16-bit patterns with the weight's pcg32 draws generated in vector lanes, compiled
 *            for baseline x86-64, x86-64-v3 and x86-64-v4 and chosen at run time (no
 *            -march=native). This is what keeps the bf16-sr step near a plain float loop.
 * OpenMP shares the tiles (or chunks) of a weight among threads (schedule(static), integer
 * reductions only), and every write uses draws addressed by (step, element), so a step gives the
 * same bits for any number of threads. Not here: gradients (the problems), the training loop
 * (src/train/train.c), gradient clipping and parameter groups with their own hyper-parameters. */
#include "srlab/optim.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#if defined(__SSE2__)
#include <emmintrin.h>
#endif

#include "core/threads.h"
#include "train/optim_impl.h"
#include "core/mutant.h"
#include "core/pcg_impl.h"
#include "linalg/tensor_impl.h"

#if defined(__x86_64__)
#include <immintrin.h>
#endif

/* The vector helpers are static and inlined: the ABI note about vector returns does not apply. */
#pragma GCC diagnostic ignored "-Wpsabi"

#define OPT_TILE 512
/* Arrays of scratch a tile's step needs: x, g and the step, then at most five more (the Kahan
 * write); then the tensor writes' scratch, one word per element. A weight whose scratch fits in
 * OPT_SMALL doubles (a few KiB, on the calling thread) keeps it on the stack. */
#define OPT_SCRATCH 8
#define OPT_SMALL 256
/* A weight with fewer elements is stepped on the calling thread. */
#define OPT_OMP_MIN ((size_t)1 << 15)

const char *const srl_optim_names[] = {"sgd", "momentum", "adam", "adamw", NULL};
const char *const srl_schedule_names[] = {"constant", "cosine", NULL};

bool srl_optim_has_m(srl_optim_kind k)
{
    return k == SRL_OPTIM_MOMENTUM || k == SRL_OPTIM_ADAM || k == SRL_OPTIM_ADAMW;
}

bool srl_optim_has_v(srl_optim_kind k)
{
    return k == SRL_OPTIM_ADAM || k == SRL_OPTIM_ADAMW;
}

/* ---- configuration ---- */

int srl_optim_config_check(const srl_optim_config *c, srl_err *err)
{
    if ((unsigned)c->kind >= SRL_OPTIM_COUNT)
        return srl_err_set(err, SRL_EINVAL, "opt: unknown optimizer");
    if (!(c->lr > 0) || !isfinite(c->lr))
        return srl_err_set(err, SRL_EINVAL, "lr: %g is not a positive finite learning rate",
                           c->lr);
    if (!(c->momentum >= 0 && c->momentum < 1))
        return srl_err_set(err, SRL_EINVAL, "momentum: %g is outside [0, 1)", c->momentum);
    if (!(c->beta1 >= 0 && c->beta1 < 1))
        return srl_err_set(err, SRL_EINVAL, "beta1: %g is outside [0, 1)", c->beta1);
    if (!(c->beta2 >= 0 && c->beta2 < 1))
        return srl_err_set(err, SRL_EINVAL, "beta2: %g is outside [0, 1)", c->beta2);
    if (!(c->eps > 0) || !isfinite(c->eps))
        return srl_err_set(err, SRL_EINVAL, "eps: %g is not a positive finite number", c->eps);
    if (!(c->wd >= 0) || !isfinite(c->wd))
        return srl_err_set(err, SRL_EINVAL, "wd: %g is not a non-negative finite number", c->wd);
    if ((unsigned)c->schedule >= SRL_SCHED_COUNT)
        return srl_err_set(err, SRL_EINVAL, "schedule: unknown schedule");
    if (!(c->lr_min >= 0 && c->lr_min <= c->lr))
        return srl_err_set(err, SRL_EINVAL, "lr-min: %g is outside [0, lr = %g]", c->lr_min,
                           c->lr);
    if (c->warmup > c->steps)
        return srl_err_set(err, SRL_EINVAL, "warmup: %llu steps exceed steps = %llu",
                           (unsigned long long)c->warmup, (unsigned long long)c->steps);
    return SRL_OK;
}

double srl_optim_lr(const srl_optim_config *c, uint64_t t)
{
    if (c->warmup && t <= c->warmup)
        return c->lr * (double)t / (double)c->warmup;
    if (c->schedule == SRL_SCHED_CONSTANT || c->steps <= c->warmup)
        return c->lr;
    double q = (double)(t - c->warmup) / (double)(c->steps - c->warmup);
    if (q > 1)
        q = 1;
    return c->lr_min + (c->lr - c->lr_min) * 0.5 * (1.0 + cos(3.14159265358979323846 * q));
}

/* ---- weights ---- */

enum { K_W, K_G, K_M, K_V, K_MASTER, K_COMP, K_N };
static const char *const suffix[K_N] = {"", ".grad", ".m", ".v", ".master", ".comp"};

void srl_weights_free(srl_weights *W)
{
    if (!W)
        return;
    srl_tensor_set_free(&W->set);
    free(W->p);
    memset(W, 0, sizeof *W);
}

int srl_weights_alloc(srl_weights *W, const srl_weight_spec *specs, size_t count,
                      const srl_strategy *s, srl_optim_kind opt, const srl_rng *writes_root,
                      srl_err *err)
{
    memset(W, 0, sizeof *W);
    int st = srl_strategy_check(s, err);
    if (st)
        return st;
    if ((unsigned)opt >= SRL_OPTIM_COUNT)
        return srl_err_set(err, SRL_EINVAL, "unknown optimizer");
    const bool want[K_N] = {true, true, srl_optim_has_m(opt), srl_optim_has_v(opt), s->has_master,
                            s->kahan};
    const srl_slot *slots[K_N] = {&s->param, &s->grad, &s->m, &s->v, &s->master, &s->comp};
    srl_tensor_desc *d = calloc(count * K_N + 1, sizeof *d);
    char(*names)[SRL_TENSOR_NAME_LEN] = calloc(count * K_N + 1, sizeof *names);
    W->p = calloc(count + 1, sizeof *W->p);
    if (!d || !names || !W->p) {
        free(d);
        free(names);
        free(W->p);
        W->p = NULL;
        return srl_err_set(err, SRL_ENOMEM, "out of memory");
    }
    size_t nd = 0;
    for (size_t j = 0; j < count && !st; j++) {
        const char *nm = specs[j].name;
        if (!nm || !*nm || strlen(nm) + 8 > SRL_TENSOR_NAME_LEN)
            st = srl_err_set(err, SRL_EINVAL, "weight %zu: the name must have 1 to %d characters",
                             j, SRL_TENSOR_NAME_LEN - 8);
        else if (strchr(nm, '.'))
            st = srl_err_set(err, SRL_EINVAL, "weight '%s': names may not contain '.' (it "
                             "separates the state suffixes)", nm);
        for (int k = 0; k < K_N && !st; k++) {
            if (!want[k])
                continue;
            snprintf(names[nd], SRL_TENSOR_NAME_LEN, "%s%s", nm, suffix[k]);
            d[nd].name = names[nd];
            d[nd].ndim = specs[j].ndim;
            for (int a = 0; a < specs[j].ndim && a < SRL_TENSOR_MAX_DIMS; a++)
                d[nd].shape[a] = specs[j].shape[a];
            d[nd].fmt = slots[k]->fmt;
            nd++;
        }
    }
    if (!st)
        st = srl_tensor_set_alloc(&W->set, d, nd, writes_root, err);
    free(d);
    free(names);
    if (st) {
        free(W->p);
        memset(W, 0, sizeof *W);
        return st;
    }
    size_t q = 0;
    for (size_t j = 0; j < count; j++) {
        srl_tensor *tk[K_N] = {NULL};
        for (int k = 0; k < K_N; k++)
            if (want[k])
                tk[k] = &W->set.t[q++];
        srl_weight *p = &W->p[j];
        p->n = tk[K_W]->n;
        p->w = tk[K_W];
        p->g = tk[K_G];
        p->m = tk[K_M];
        p->v = tk[K_V];
        p->master = tk[K_MASTER];
        p->comp = tk[K_COMP];
        W->numel += p->n;
    }
    W->count = count;
    W->strat = *s;
    W->opt = opt;
    return SRL_OK;
}

int srl_weights_init(srl_weights *W, size_t j, const double *x0, srl_err *err)
{
    srl_weight *p = &W->p[j];
    for (size_t i = 0; i < p->n; i++)
        if (!isfinite(x0[i]))
            return srl_err_set(err, SRL_EINVAL, "%s: the initial value x0[%zu] is not finite",
                               p->w->name, i);
    srl_tensor *holders[2] = {p->master, p->w};
    for (int h = 0; h < 2; h++) {
        srl_tensor *t = holders[h];
        if (!t)
            continue;
        for (size_t i = 0; i < p->n; i++) {
            const double r = srl_round(x0[i], &t->fmt, SRL_ROUND_RN, NULL);
            if (!isfinite(r))
                return srl_err_set(err, SRL_ERANGE,
                                   "the strategy stores %s in %s, which cannot hold its initial "
                                   "value x0[%zu] = %.17g (largest finite %.17g)",
                                   t->name, t->fmt.name, i, x0[i], t->fmt.xmax);
        }
    }
    int st = SRL_OK;
    if (p->master && (st = srl_tensor_put_d(p->master, 0, x0, p->n, SRL_ROUND_RN, 0)))
        return srl_err_set(err, st, "%s: write failed", p->master->name);
    if (p->master) {
        double *tmp = malloc((p->n ? p->n : 1) * sizeof *tmp);
        if (!tmp)
            return srl_err_set(err, SRL_ENOMEM, "out of memory");
        srl_tensor_get_d(tmp, p->master, 0, p->n);
        st = srl_tensor_put_d(p->w, 0, tmp, p->n, SRL_ROUND_RN, 0);
        free(tmp);
    } else {
        st = srl_tensor_put_d(p->w, 0, x0, p->n, SRL_ROUND_RN, 0);
    }
    if (st)
        return srl_err_set(err, st, "%s: write failed", p->w->name);
    srl_tensor *zero[3] = {p->m, p->v, p->comp};
    for (int k = 0; k < 3; k++)
        if (zero[k])
            memset(zero[k]->data, 0, zero[k]->n * srl_storage_size(zero[k]->storage));
    return SRL_OK;
}

void srl_weights_values(double *x, const srl_weights *W, size_t j)
{
    const srl_weight *p = &W->p[j];
    srl_tensor_get_d(x, p->master ? p->master : p->w, 0, p->n);
}

int srl_weights_set_grad_d(srl_weights *W, size_t j, const double *g, uint64_t t)
{
    if (j >= W->count || t == 0)
        return SRL_EINVAL;
    return srl_tensor_put_d(W->p[j].g, 0, g, W->p[j].n, W->strat.grad.mode, t - 1);
}

int srl_weights_set_grad_f(srl_weights *W, size_t j, const float *g, uint64_t t)
{
    if (j >= W->count || t == 0)
        return SRL_EINVAL;
    return srl_tensor_put_f(W->p[j].g, 0, g, W->p[j].n, W->strat.grad.mode, t - 1);
}

double srl_weights_bytes_per_param(const srl_weights *W)
{
    return W->numel ? (double)W->set.bytes / (double)W->numel : 0.0;
}

/* ---- the step ---- */

static void sqrt_tile_f(float *y, const float *x, size_t k)
{
    size_t i = 0;
#if defined(__SSE2__)
    for (; i + 4 <= k; i += 4)
        _mm_storeu_ps(y + i, _mm_sqrt_ps(_mm_loadu_ps(x + i)));
#endif
    for (; i < k; i++)
        y[i] = sqrtf(x[i]);
}

static void sqrt_tile_d(double *y, const double *x, size_t k)
{
    size_t i = 0;
#if defined(__SSE2__)
    for (; i + 2 <= k; i += 2)
        _mm_storeu_pd(y + i, _mm_sqrt_pd(_mm_loadu_pd(x + i)));
#endif
    for (; i < k; i++)
        y[i] = sqrt(x[i]);
}

static void get_f(float *y, const srl_tensor *t, size_t off, size_t k)
{
    srl_tensor_get_f(y, t, off, k);
}

static void get_d(double *y, const srl_tensor *t, size_t off, size_t k)
{
    srl_tensor_get_d(y, t, off, k);
}

static int put_f(srl_tensor *t, size_t off, const float *x, size_t k, srl_rounding m,
                 uint64_t idx, uint64_t *ws)
{
    return srl__tensor_put_tile_f(t, off, x, k, m, idx, ws);
}

static int put_d(srl_tensor *t, size_t off, const double *x, size_t k, srl_rounding m,
                 uint64_t idx, uint64_t *ws)
{
    return srl__tensor_put_tile_d(t, off, x, k, m, idx, ws);
}

#define REAL float
#define TPL(name) name##_f
#include "train/optim_tpl.h"
#undef REAL
#undef TPL

#define REAL double
#define TPL(name) name##_d
#include "train/optim_tpl.h"
#undef REAL
#undef TPL

/* ---- the fused bf16 kernel (src/train/optim_fast_isa.h), once per instruction set ---- */

typedef uint64_t srl__ov8q __attribute__((vector_size(64)));
typedef uint32_t srl__ov8d __attribute__((vector_size(32)));
#define SRL_INLINE static inline __attribute__((always_inline))
#define SRL__PCG32_MULT SRL_PCG32_MULT
#define FAST_TILE 256   /* elements per tile, a multiple of 8 */
#define FAST_CHUNK 8192 /* elements per parallel work item (one stream seek each) */

#define SRL_ISA_TEMPLATE "train/optim_fast_isa.h"
#include "core/isa_instantiate.h"

/* Which instantiation to run, asked of the CPU (no -march=native in the build). */
static int isa_level(void)
{
    return srl__isa_level();
}

static bool is_mode(srl_rounding m, srl_mode mode, int r)
{
    return m.mode == mode && m.r == r;
}

int srl__optim_fast_applies(const srl_weights *W)
{
    const srl_strategy *s = &W->strat;
    if (s->arith != SRL_ARITH_FP32 || s->has_master || s->kahan)
        return 0;
    if (W->opt != SRL_OPTIM_ADAM && W->opt != SRL_OPTIM_ADAMW)
        return 0;
    if (!srl_format_is_bf16(&s->param.fmt) || !srl_format_is_bf16(&s->grad.fmt) ||
        !srl_format_is_bf16(&s->m.fmt) || !srl_format_is_bf16(&s->v.fmt))
        return 0;
    if (!is_mode(s->m.mode, SRL_RN, 0) || !is_mode(s->v.mode, SRL_RN, 0))
        return 0;
    if (is_mode(s->param.mode, SRL_RN, 0))
        return 1;
    if (!is_mode(s->param.mode, SRL_SR_BITS, 16))
        return 0;
    for (size_t j = 0; j < W->count; j++)
        if (W->p[j].w->rng.kind != SRL_RNG_PCG32)
            return 0;
    return 1;
}

static void fast_chunk(int lvl, srl_step_stats *st, srl_weight *p, const coef_f *c, int adamw,
                       int sr, size_t off, size_t k, uint64_t idx)
{
    SRL_ISA_CALL(lvl, chunk, (st, p, c, adamw, sr, off, k, idx));
    (void)lvl;
}

int srl__optim_step_path(srl_step_stats *out, srl_weights *W, const srl_optim_config *c,
                         uint64_t t, double lr, srl__optim_path path)
{
    if (t == 0 || !(lr >= 0) || !isfinite(lr) || c->kind != W->opt)
        return SRL_EINVAL;
    const bool f32 = W->strat.arith == SRL_ARITH_FP32;
    const bool fast = path == SRL__PATH_AUTO && srl__optim_fast_applies(W);
    const int adamw = W->opt == SRL_OPTIM_ADAMW;
    const int sr = W->strat.param.mode.mode == SRL_SR_BITS;
    const int lvl = isa_level();
    coef_f cf = {0};
    coef_d cd = {0};
    if (f32)
        coef_init_f(&cf, c, t, lr);
    else
        coef_init_d(&cd, c, t, lr);
    srl_step_stats tot = {0, 0, 0};
    int status = SRL_OK;
    for (size_t j = 0; j < W->count && status == SRL_OK; j++) {
        srl_weight *p = &W->p[j];
        const size_t per = fast ? FAST_CHUNK : OPT_TILE;
        const long nitems = (long)((p->n + per - 1) / per);
        uint64_t lost = 0, nf = 0, nfg = 0;
        int st = SRL_OK;
        /* One work item: elements [b per, b per + per) of weight p. */
#define SRL_OPTIM_ITEM(b, ws)                                                                     \
    do {                                                                                          \
        const size_t off = (size_t)(b) * per;                                                     \
        const size_t k = p->n - off < per ? p->n - off : per;                                     \
        srl_step_stats s = {0, 0, 0};                                                             \
        int r = SRL_OK;                                                                           \
        if (fast)                                                                                 \
            fast_chunk(lvl, &s, p, &cf, adamw, sr, off, k, t - 1);                                \
        else if (!(ws))                                                                           \
            r = SRL_ENOMEM;                                                                       \
        else if (f32)                                                                             \
            r = step_tile_f(&s, p, &W->strat, W->opt, &cf, off, k, t - 1, ws);                    \
        else                                                                                      \
            r = step_tile_d(&s, p, &W->strat, W->opt, &cd, off, k, t - 1, ws);                    \
        lost += s.lost;                                                                           \
        nf += s.nonfinite;                                                                        \
        nfg += s.nonfinite_grad;                                                                  \
        if (r < st)                                                                               \
            st = r;                                                                               \
    } while (0)
        /* The tiles' scratch (the fused kernel needs none): for the longest tile, one block per
         * thread on the heap; on the calling thread a short weight's fits on the stack (a quad1d
         * step would otherwise allocate for one value) */
        const size_t stride = p->n < OPT_TILE ? p->n : OPT_TILE;
        const size_t wsz = fast ? 0
                                : stride * (OPT_SCRATCH * (f32 ? sizeof(float) : sizeof(double)) +
                                            sizeof(uint64_t));
        double small[OPT_SMALL];
        if (p->n >= OPT_OMP_MIN && srl__may_fork()) {
#pragma omp parallel reduction(+ : lost, nf, nfg) reduction(min : st)
            {
                void *ws = wsz ? malloc(wsz) : NULL;
#pragma omp for schedule(static)
                for (long b = 0; b < nitems; b++)
                    SRL_OPTIM_ITEM(b, ws);
                free(ws);
            }
        } else { /* no parallel region at all: even an if(0) one costs a team allocation */
            void *ws = !wsz ? NULL : wsz <= sizeof small ? small : malloc(wsz);
            for (long b = 0; b < nitems; b++)
                SRL_OPTIM_ITEM(b, ws);
            if (ws != small)
                free(ws);
        }
#undef SRL_OPTIM_ITEM
        tot.lost += lost;
        tot.nonfinite += nf;
        tot.nonfinite_grad += nfg;
        status = st;
    }
    if (out)
        *out = tot;
    return status;
}

int srl_optim_step(srl_step_stats *out, srl_weights *W, const srl_optim_config *c, uint64_t t,
                   double lr)
{
    return srl__optim_step_path(out, W, c, t, lr, SRL__PATH_AUTO);
}
