/* src/cli/bench/bench_train.c: `srlab bench train`: AdamW steps per second per strategy (docs/design.md §7).
 *
 * 10^6 parameters (one weight vector; the gradient of the 10^6-parameter diagonal quadratic of
 * `srlab train --problem quadratic --kappa 10` at x = 0, written once through the strategy's
 * gradient slot), AdamW (lr 1e-3, wd 0.01, betas 0.9/0.999, eps 1e-8) under fp32, mp, bf16-rn,
 * bf16-sr, bf16-sr-exact and bf16-kahan, timed with srl_optim_step on one thread, beside two
 * references in this binary on the same thread and data sizes:
 *   plain-float       a plain float AdamW loop (arrays p, g, m, v; the same operations as
 *                     srlab's fp32 step), compiled as srlab is; its sqrtf stays scalar because
 *                     the build keeps errno semantics (no -ffast-math, no -fno-math-errno);
 *   plain-float-simd  the same loop with the square roots taken by SSE2 in a separate pass over
 *                     a tile, which lets the compiler vectorise the rest: the fastest plain
 *                     float loop this build can produce.
 * Each case is warmed up, then timed ROUNDS times over STEPS steps, the rounds interleaved
 * across cases (so a change in machine load hits every case alike); the median round counts.
 * ratio_to_plain_float = time per step of the case / time per step of plain-float. The work of a
 * step does not depend on the values, so a fixed gradient measures it. */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#if defined(__SSE2__)
#include <emmintrin.h>
#endif

#include "cli/bench/bench.h"
#include "cli/cli.h"
#include "srl_config.h"
#include "srlab/optim.h"
#include "srlab/strategy.h"

#if SRL_HAVE_OPENMP
#include <omp.h>
#endif

#define N_PARAMS 1000000
#define STEPS 10
#define ROUNDS 7
#define NCASES 8 /* two references, six strategies */

typedef struct plain {
    float *p, *g, *m, *v;
    size_t n;
    int t;
} plain;

/* The reference: AdamW in float, the operation order of srlab's fp32 step. */
static void plain_step(plain *s)
{
    s->t++;
    const float lr = 1e-3f, b1 = 0.9f, b2 = 0.999f, c1 = (float)(1 - 0.9), c2 = (float)(1 - 0.999);
    const float eps = 1e-8f, wd = 0.01f;
    const float bc1 = (float)(1 - pow(0.9, s->t)), bc2 = (float)(1 - pow(0.999, s->t));
    float *restrict p = s->p, *restrict m = s->m, *restrict v = s->v;
    const float *restrict g = s->g;
    for (size_t i = 0; i < s->n; i++) {
        const float gi = g[i];
        const float mi = b1 * m[i] + c1 * gi, vi = b2 * v[i] + (c2 * gi) * gi;
        m[i] = mi;
        v[i] = vi;
        p[i] = p[i] - lr * ((mi / bc1) / (sqrtf(vi / bc2) + eps) + wd * p[i]);
    }
}

/* The same with the square roots in their own SSE2 pass over tiles of 256. */
static void plain_step_simd(plain *s)
{
    s->t++;
    const float lr = 1e-3f, b1 = 0.9f, b2 = 0.999f, c1 = (float)(1 - 0.9), c2 = (float)(1 - 0.999);
    const float eps = 1e-8f, wd = 0.01f;
    const float bc1 = (float)(1 - pow(0.9, s->t)), bc2 = (float)(1 - pow(0.999, s->t));
    float q[256];
    for (size_t i0 = 0; i0 < s->n; i0 += 256) {
        const size_t k = s->n - i0 < 256 ? s->n - i0 : 256;
        float *restrict p = s->p + i0, *restrict m = s->m + i0, *restrict v = s->v + i0;
        const float *restrict g = s->g + i0;
        for (size_t i = 0; i < k; i++) {
            const float gi = g[i];
            m[i] = b1 * m[i] + c1 * gi;
            v[i] = b2 * v[i] + (c2 * gi) * gi;
            q[i] = v[i] / bc2;
        }
        size_t i = 0;
#if defined(__SSE2__)
        for (; i + 4 <= k; i += 4)
            _mm_storeu_ps(q + i, _mm_sqrt_ps(_mm_loadu_ps(q + i)));
#endif
        for (; i < k; i++)
            q[i] = sqrtf(q[i]);
        for (i = 0; i < k; i++)
            p[i] = p[i] - lr * ((m[i] / bc1) / (q[i] + eps) + wd * p[i]);
    }
}

static const char *const names[NCASES] = {"plain-float", "plain-float-simd", "fp32", "mp",
                                          "bf16-rn", "bf16-sr", "bf16-sr-exact", "bf16-kahan"};

/* What the cases step: the two plain references and the strategies' weights. */
typedef struct train_bench {
    plain ps[2];
    srl_weights W[NCASES]; /* cases 2.. */
    srl_optim_config oc;
} train_bench;

/* The plain references' arrays: the parameters x0 and the gradient g in float, zero moments. */
static int setup_plain(plain *p, const double *x0, const double *g, size_t n)
{
    p->n = n;
    p->p = malloc(n * sizeof(float));
    p->g = malloc(n * sizeof(float));
    p->m = calloc(n, sizeof(float));
    p->v = calloc(n, sizeof(float));
    if (!p->p || !p->g || !p->m || !p->v)
        return cli_sys_error("bench", "out of memory");
    for (size_t i = 0; i < n; i++) {
        p->p[i] = (float)x0[i];
        p->g[i] = (float)g[i];
    }
    return 0;
}

/* Every case at x0, its gradient slot holding the quadratic's gradient there. */
static int setup(train_bench *b)
{
    const size_t n = N_PARAMS;
    double *x0 = malloc(n * sizeof *x0), *g = malloc(n * sizeof *g);
    int rc = 0;
    if (!x0 || !g)
        rc = cli_sys_error("bench", "out of memory");
    /* the quadratic's gradient lambda_i (x_i - x*_i) at x = 0: x* from a fixed stream */
    srl_rng data, root;
    srl_rng_init(&data, SRL_RNG_DEFAULT, 1, 0);
    for (size_t i = 0; !rc && i < n; i++) {
        const double lambda = pow(10.0, (double)i / (double)(n - 1));
        x0[i] = 0.01 * srl_rng_normal(&data);
        g[i] = lambda * (x0[i] - srl_rng_normal(&data));
    }
    for (int k = 0; !rc && k < 2; k++)
        rc = setup_plain(&b->ps[k], x0, g, n);
    srl_rng_init(&root, SRL_RNG_DEFAULT, 1, 0);
    const srl_weight_spec spec = {"w", 1, {n, 0, 0, 0}};
    for (int c = 2; !rc && c < NCASES; c++) {
        srl_strategy st;
        srl_err e;
        e.msg[0] = 0;
        if (srl_strategy_preset(&st, names[c], &e) ||
            srl_weights_alloc(&b->W[c], &spec, 1, &st, SRL_OPTIM_ADAMW, &root, &e) ||
            srl_weights_init(&b->W[c], 0, x0, &e) || srl_weights_set_grad_d(&b->W[c], 0, g, 1))
            rc = cli_sys_error("bench", "setting up %s failed: %s", names[c], e.msg);
    }
    free(x0);
    free(g);
    return rc;
}

static void teardown(train_bench *b)
{
    for (int c = 0; c < NCASES; c++)
        srl_weights_free(&b->W[c]);
    for (int k = 0; k < 2; k++) {
        free(b->ps[k].p);
        free(b->ps[k].g);
        free(b->ps[k].m);
        free(b->ps[k].v);
    }
}

/* Seconds per step of every case in every round, on one thread; round -1 warms up. */
static int time_rounds(train_bench *b, double t_round[NCASES][ROUNDS])
{
#if SRL_HAVE_OPENMP
    const int threads = omp_get_max_threads();
    omp_set_num_threads(1);
#endif
    uint64_t tstep[NCASES] = {0};
    int rc = 0;
    for (int r = -1; r < ROUNDS && !rc; r++) {
        for (int c = 0; c < NCASES && !rc; c++) {
            const double t0 = cli_bench_now();
            for (int k = 0; k < STEPS && !rc; k++) {
                if (c < 2)
                    (c ? plain_step_simd : plain_step)(&b->ps[c]);
                else if (srl_optim_step(NULL, &b->W[c], &b->oc, ++tstep[c], b->oc.lr) != SRL_OK)
                    rc = cli_sys_error("bench", "srl_optim_step failed for %s", names[c]);
            }
            if (r >= 0)
                t_round[c][r] = (cli_bench_now() - t0) / STEPS;
        }
    }
#if SRL_HAVE_OPENMP
    omp_set_num_threads(threads);
#endif
    return rc;
}

static void print_results(FILE *out, int csv, const train_bench *b, const double med[NCASES])
{
    const size_t n = N_PARAMS;
    if (csv) {
        fputs("strategy,params,steps_per_s,ratio_to_plain_float\n", out);
        for (int c = 0; c < NCASES; c++)
            fprintf(out, "%s,%zu,%.6g,%.4f\n", names[c], n, 1 / med[c], med[c] / med[0]);
        return;
    }
    fprintf(out, "train: AdamW steps on %zu parameters, 1 thread, median of %d rounds of %d "
                 "steps (ratio: time per step / plain-float's)\n",
            n, ROUNDS, STEPS);
    fprintf(out, "  %-18s %10s %10s %12s %10s %8s\n", "strategy", "bytes/par", "ms/step",
            "ns/param", "steps/s", "ratio");
    for (int c = 0; c < NCASES; c++)
        fprintf(out, "  %-18s %10.0f %10.3f %12.3f %10.1f %8.2f\n", names[c],
                c < 2 ? 16.0 : srl_weights_bytes_per_param(&b->W[c]), 1e3 * med[c],
                1e9 * med[c] / (double)n, 1 / med[c], med[c] / med[0]);
}

int cli_bench_train(FILE *out, int csv)
{
    train_bench b;
    memset(&b, 0, sizeof b);
    b.oc = (srl_optim_config){SRL_OPTIM_ADAMW, 1e-3, 0.9, 0.9, 0.999, 1e-8, 0.01,
                              SRL_SCHED_CONSTANT, 0, 0, 1000000};
    double t_round[NCASES][ROUNDS], med[NCASES];
    int rc = setup(&b);
    if (!rc)
        rc = time_rounds(&b, t_round);
    if (!rc) {
        for (int c = 0; c < NCASES; c++)
            med[c] = cli_bench_median(t_round[c], ROUNDS);
        print_results(out, csv, &b, med);
    }
    teardown(&b);
    return rc;
}
