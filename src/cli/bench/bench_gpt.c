/* src/cli/bench/bench_gpt.c: `srlab bench train`'s GPT part: tokens per second of GPT training per
 * precision strategy, beside the same model trained in plain float (docs/design.md §8 gpt; issue 6).
 *
 * The model: `srlab train --problem gpt --n-layer 3 --n-embd 96 --n-head 4 --block-size 64
 * --batch-size 8` (about 3.4 x 10^5 parameters, 512 tokens per step) with AdamW (lr 1e-3, wd
 * 0.1). A step is everything training does: the micro-batch, forward and backward, the gradient
 * write, the optimizer step (the evaluation rows are not timed: the hook of srl__gpt_run stamps
 * the clock after each step, and only steps 2 .. STEPS+1 count).
 *   plain-float  the same model and data in plain float in this binary: src/problems/gpt_tpl.h's _plain
 *                pass (ordinary float loops in the kernels' order, cloned for x86-64-v3/v4 and
 *                picked at run time like srlab's own kernels) and AdamW in float, no rounding
 *                beyond float's own. With the fp32 strategy srlab computes the same bits
 *                (tests/problems/test_gpt.c), so the ratio fp32 / plain-float is the cost of
 *                srlab's bookkeeping alone.
 *   fp32, mp, bf16-rn, bf16-sr, bf16-sr-exact, bf16-kahan, mp-tc   `srlab train` under that
 *                strategy.
 * One thread (the same for every case; runs are the parallel unit of a sweep), timed in CPU
 * seconds of the process (CLOCK_PROCESS_CPUTIME_ID), so that other load on the machine does not
 * enter the figures (memory-bandwidth contention still can). Each case runs
 * ROUNDS times, the rounds interleaved across cases so that a change of machine load hits every
 * case alike; the median round counts. bytes_per_param: the weights and optimizer state actually
 * allocated (srl_weights: tensor data without padding, divided by the parameter count; plain
 * float keeps p, g, m, v as floats: 16). Speed is measured, never asserted. */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "problems/gpt_impl.h"
#include "cli/bench/bench.h"
#include "cli/cli.h"
#include "srl_config.h"
#include "srlab/optim.h"

#if SRL_HAVE_OPENMP
#include <omp.h>
#endif

#define STEPS 4
#define ROUNDS 5
#define NCASES 8

static const char *const cases[NCASES] = {"plain-float", "fp32",          "mp",         "bf16-rn",
                                          "bf16-sr",     "bf16-sr-exact", "bf16-kahan", "mp-tc"};

/* Seconds of CPU time of the process: with one thread this is the time the work took, and it
 * does not count the time other processes of a loaded machine take from it. */
static double now(void)
{
    struct timespec t;
    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &t);
    return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

static srl_config *bench_config(const char *strategy)
{
    static const char *const kv[] = {"opt", "adamw", "lr", "1e-3", "wd", "0.1", "n-layer", "3",
                                     "n-embd", "96", "n-head", "4", "block-size", "64",
                                     "batch-size", "8", "data-tokens", "20000", "eval-windows",
                                     "1", "log-every", "1000000", NULL};
    srl_config *c = srl_config_new();
    if (!c)
        return NULL;
    char steps[16];
    snprintf(steps, sizeof steps, "%d", STEPS + 1);
    if (srl_config_set(c, "strategy", strategy) || srl_config_set(c, "steps", steps)) {
        srl_config_free(c);
        return NULL;
    }
    for (size_t i = 0; kv[i]; i += 2)
        if (srl_config_set(c, kv[i], kv[i + 1])) {
            srl_config_free(c);
            return NULL;
        }
    return c;
}

typedef struct stamp {
    double t1, tend, bytes;
} stamp;

static int hook(void *arg, const srl_weights *W, size_t K, uint64_t t, const double *pv)
{
    (void)K, (void)pv;
    stamp *s = arg;
    if (t == 1) {
        s->t1 = now();
        s->bytes = (double)W[0].set.bytes / (double)W[0].numel;
    }
    if (t == STEPS + 1)
        s->tend = now();
    return 0;
}

static int nop_begin(void *c, size_t n, const char *const *names, const srl_col_kind *k)
{
    (void)c, (void)n, (void)names, (void)k;
    return 0;
}

static int nop_row(void *c, const srl_value *v)
{
    (void)c, (void)v;
    return 0;
}

/* One timed round of srlab training under a strategy: seconds per step. */
static int round_srlab(const char *strategy, double *sec, double *bytes)
{
    srl_config *c = bench_config(strategy);
    if (!c)
        return -1;
    stamp s = {0, 0, 0};
    srl_sink sink = {nop_begin, nop_row, NULL};
    srl_run_report rep;
    srl_err e;
    const int st = srl__gpt_run(c, &sink, &rep, hook, &s, &e);
    srl_config_free(c);
    if (st)
        return cli_error("bench", "train: %s", e.msg);
    *sec = (s.tend - s.t1) / STEPS;
    *bytes = s.bytes;
    return 0;
}

/* The plain float reference: the same data, initialisation and batches. */
typedef struct plain {
    srl__gpt_problem *p;
    const srl__model *m;
    srl__gpt_layout lay;
    float *w, *g, *mm, *vv, *acts;
    double *rowl;
    int32_t *tok;
} plain;

static void plain_free(plain *q)
{
    srl__gpt_problem_free(q->p);
    free(q->w);
    free(q->g);
    free(q->mm);
    free(q->vv);
    free(q->acts);
    free(q->rowl);
    free(q->tok);
}

static int plain_new(plain *q)
{
    memset(q, 0, sizeof *q);
    srl_config *c = bench_config("fp32");
    srl_err e;
    int st = c ? srl__gpt_problem_new(&q->p, c, &e) : SRL_ENOMEM;
    srl_config_free(c);
    if (st)
        return cli_error("bench", "plain float: %s", st == SRL_ENOMEM ? "out of memory" : e.msg);
    q->m = srl__gpt_problem_model(q->p);
    const srl__gpt_dims *d = srl__gpt_problem_dims(q->p);
    srl__gpt_layout_make(&q->lay, d, 1);
    const size_t n = q->m->flat;
    double *x0 = calloc(n, sizeof *x0);
    q->w = calloc(n, sizeof *q->w);
    q->g = calloc(n, sizeof *q->g);
    q->mm = calloc(n, sizeof *q->mm);
    q->vv = calloc(n, sizeof *q->vv);
    q->acts = calloc(q->lay.total, sizeof *q->acts);
    q->rowl = calloc(d->B * d->T, sizeof *q->rowl);
    q->tok = calloc(d->B * (d->T + 1), sizeof *q->tok);
    if (!x0 || !q->w || !q->g || !q->mm || !q->vv || !q->acts || !q->rowl || !q->tok ||
        q->m->init(q->m->ctx, x0, &e)) {
        free(x0);
        plain_free(q);
        return cli_sys_error("bench", "out of memory");
    }
    for (size_t i = 0; i < n; i++)
        q->w[i] = (float)x0[i];
    free(x0);
    return 0;
}

/* AdamW in float, the operations of srlab's fp32 step (include/srlab/optim.h). */
static void adamw_f(float *restrict p, const float *restrict g, float *restrict m,
                    float *restrict v, size_t n, uint64_t t, const srl_optim_config *c)
{
    const float lr = (float)c->lr, wd = (float)c->wd, eps = (float)c->eps;
    const float b1 = (float)c->beta1, b2 = (float)c->beta2;
    const float c1 = (float)(1 - c->beta1), c2 = (float)(1 - c->beta2);
    const float bc1 = (float)(1 - pow(c->beta1, (double)t));
    const float bc2 = (float)(1 - pow(c->beta2, (double)t));
    for (size_t i = 0; i < n; i++) {
        const float m1 = b1 * m[i] + c1 * g[i], v1 = b2 * v[i] + (c2 * g[i]) * g[i];
        m[i] = m1;
        v[i] = v1;
        p[i] = p[i] - lr * ((m1 / bc1) / (sqrtf(v1 / bc2) + eps) + wd * p[i]);
    }
}

static int plain_step(plain *q, uint64_t t)
{
    const srl__gpt_dims *d = srl__gpt_problem_dims(q->p);
    srl__gpt_problem_batch(q->p, 0, t, q->tok);
    srl__gpt_pass ps;
    memset(&ps, 0, sizeof ps);
    ps.d = *d;
    ps.lay = &q->lay;
    ps.off = q->m->off;
    ps.row_loss = q->rowl;
    double ls;
    if (srl__gpt_pass_plain(&ps, q->w, q->g, q->tok, q->acts, &ls))
        return -1;
    const srl_optim_config *c = &srl__gpt_problem_train_config(q->p)->opt;
    for (size_t j = 0; j < q->m->nweights; j++) {
        size_t n = 1;
        for (int a = 0; a < q->m->specs[j].ndim; a++)
            n *= q->m->specs[j].shape[a];
        adamw_f(q->w + q->m->off[j], q->g + q->m->off[j], q->mm + q->m->off[j],
                q->vv + q->m->off[j], n, t, c);
    }
    return 0;
}

static int round_plain(plain *q, uint64_t *t, double *sec)
{
    if (plain_step(q, ++*t)) /* warm-up, as srlab's step 1 */
        return cli_sys_error("bench", "plain float pass failed");
    const double t0 = now();
    for (int s = 0; s < STEPS; s++)
        if (plain_step(q, ++*t))
            return cli_sys_error("bench", "plain float pass failed");
    *sec = (now() - t0) / STEPS;
    return 0;
}

int cli_bench_gpt(FILE *out, int csv)
{
#if SRL_HAVE_OPENMP
    const int saved = omp_get_max_threads();
    omp_set_num_threads(1);
#endif
    plain q;
    int rc = plain_new(&q);
    double sec[NCASES][ROUNDS], bytes[NCASES];
    bytes[0] = 16;
    uint64_t tp = 0;
    for (int r = 0; r < ROUNDS && !rc; r++)
        for (int c = 0; c < NCASES && !rc; c++)
            rc = c ? round_srlab(cases[c], &sec[c][r], &bytes[c]) : round_plain(&q, &tp, &sec[0][r]);
    const srl__gpt_dims d = rc ? (srl__gpt_dims){0, 0, 0, 0, 0, 0} : *srl__gpt_problem_dims(q.p);
    const size_t numel = rc ? 0 : q.m->numel;
    if (!rc)
        plain_free(&q);
#if SRL_HAVE_OPENMP
    omp_set_num_threads(saved);
#endif
    if (rc)
        return rc;
    const double tokens = (double)(d.B * d.T);
    double med[NCASES];
    for (int c = 0; c < NCASES; c++)
        med[c] = cli_bench_median(sec[c], ROUNDS);
    if (csv)
        fprintf(out, "benchmark,case,params,tokens_per_step,threads,ms_per_step,tokens_per_s,"
                     "ratio_to_plain_float,bytes_per_param\n");
    else
        fprintf(out, "GPT training (--n-layer %zu --n-embd %zu --n-head %zu --block-size %zu "
                     "--batch-size %zu: %zu parameters, %.0f tokens per step), AdamW, 1 thread, "
                     "CPU time, median of %d rounds of %d steps\n"
                     "%-14s %12s %12s %10s %15s\n", d.L, d.C, d.NH, d.T, d.B, numel, tokens,
                ROUNDS, STEPS, "case", "ms/step", "tokens/s", "x plain", "bytes/param");
    for (int c = 0; c < NCASES; c++) {
        const double ms = 1e3 * med[c], tps = tokens / med[c], ratio = med[c] / med[0];
        if (csv)
            fprintf(out, "train-gpt,%s,%zu,%.0f,1,%.4g,%.6g,%.4g,%.4g\n", cases[c], numel, tokens,
                    ms, tps, ratio, bytes[c]);
        else
            fprintf(out, "%-14s %12.2f %12.0f %10.2f %15.2f\n", cases[c], ms, tps, ratio,
                    bytes[c]);
    }
    return 0;
}
