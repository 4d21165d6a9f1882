/* tests/core/test_small_stacks.c: the environment cannot crash srlab's parallel loops
 * (issue 28, item 4), suite `unit`. Run with OMP_STACKSIZE=16k (tests/core/meson.build), which
 * leaves an OpenMP worker about 11 KiB of stack:
 *
 *   guard   srl__workers_ok() says no (16 KiB < SRL__WORKER_STACK): srlab's loops then run on
 *           the calling thread, and a two-thread call gives the one-thread bits;
 *   bodies  forced to fork anyway (srl__workers_assume(1)) on two threads, the loop bodies that
 *           kept tile arrays on the stack -- the bulk roundings (binary64, binary32, binary64 to
 *           binary32; a format whose subnormals take the reference path), the tensor writes
 *           (bf16, binary32 and binary64 storage; rn, sr, sr:r=16), the optimizer's tiles (sgd,
 *           momentum, adam, adamw under fp32, mp, bf16-sr, bf16-sr-exact, bf16-kahan and a
 *           binary64 update) -- run to the end on those stacks and give the one-thread bits.
 * Before their tiles moved to the heap the bulk roundings' block (43 KiB of frames) and the
 * optimizer's tile (33 KiB) overflowed such a stack at once (a segmentation fault). */
#include <math.h>
#include <omp.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "core/threads.h"
#include "srlab/optim.h"
#include "srlab/rounding.h"
#include "srlab/strategy.h"
#include "srlab/tensor.h"
#include "../testutil.h"

#ifndef SRL_TEST_STACK
#define SRL_TEST_STACK "16k" /* 240k under AddressSanitizer, whose redzones grow every frame */
#endif
#define SEED UINT64_C(0x5ac5)
#define N ((size_t)1 << 17) /* above every loop's threshold for forking */

static void fill(double *x, size_t n, uint64_t seed)
{
    srl_rng r;
    srl_rng_init(&r, SRL_RNG_PCG32, seed, 0);
    for (size_t i = 0; i < n; i++) /* magnitudes from 2^-140 to 2^20: normals and subnormals */
        x[i] = ldexp((double)(srl_rng_next(&r) >> 11) * 0x1p-53 + 0.5, (int)(i % 161) - 140) *
               (i % 3 ? 1 : -1);
}

/* ---- bulk roundings ---- */

static int round_all(double *yd, float *yf, float *yf2, const double *x, const float *xf,
                     const srl_format *f, srl_rounding m)
{
    srl_rng r;
    srl_rng_init(&r, SRL_RNG_PCG32, SEED, 1);
    int st = srl_round_array(yd, x, N, f, m, &r);
    if (!st && srl_format_fits_float(f))
        st = srl_round_array_float(yf, xf, N, f, m, &r);
    if (!st && srl_format_fits_float(f))
        st = srl_round_array_d2f(yf2, x, N, f, m, &r);
    return st;
}

static void test_roundings(void)
{
    const long before = srl_test_failures;
    double *x = malloc(N * sizeof *x), *y1 = malloc(N * sizeof *y1), *y2 = malloc(N * sizeof *y2);
    float *xf = malloc(N * sizeof *xf), *f1 = malloc(2 * N * sizeof *f1),
          *f2 = malloc(2 * N * sizeof *f2);
    if (!x || !y1 || !y2 || !xf || !f1 || !f2)
        abort();
    fill(x, N, SEED);
    for (size_t i = 0; i < N; i++)
        xf[i] = (float)x[i];
    /* bf16 and tf32 (the binary32 pattern path), fp16 and e4m3 (ranges below binary32's: the
     * reference path for their subnormal straddle), a custom format without subnormals */
    const char *fmts[] = {"bf16", "tf32", "fp16", "e4m3", "p=13,emax=60,emin=-70,subnormals=off"};
    const char *modes[] = {"rn", "rz", "ro", "sr", "sr-eq", "sr:r=16"};
    for (size_t a = 0; a < sizeof fmts / sizeof *fmts; a++)
        for (size_t b = 0; b < sizeof modes / sizeof *modes; b++) {
            srl_format f;
            srl_rounding m;
            if (srl_format_parse(&f, fmts[a], NULL) || srl_rounding_parse(&m, modes[b], NULL))
                abort();
            omp_set_num_threads(1);
            int s1 = round_all(y1, f1, f1 + N, x, xf, &f, m);
            omp_set_num_threads(2);
            int s2 = round_all(y2, f2, f2 + N, x, xf, &f, m);
            CHECK(s1 == SRL_OK && s2 == SRL_OK, "%s %s: status %d %d", fmts[a], modes[b], s1, s2);
            size_t bad = 0;
            for (size_t i = 0; i < N; i++)
                bad += !srl_test_same(y1[i], y2[i]) ||
                       (srl_format_fits_float(&f) &&
                        (!srl_test_same(f1[i], f2[i]) || !srl_test_same(f1[N + i], f2[N + i])));
            CHECK(bad == 0, "%s %s: %zu values differ between 1 and 2 threads (seed %#llx)",
                  fmts[a], modes[b], bad, (unsigned long long)SEED);
        }
    free(x), free(y1), free(y2), free(xf), free(f1), free(f2);
    GROUP("bulk roundings on two threads with 16 KiB stacks: the one-thread bits", before);
}

/* ---- optimizer steps (and the tensor writes inside them) ---- */

/* Three steps of optimizer `opt` under the strategy of config keys kv on one weight of N
 * elements; its values after them in out (N doubles). */
static int train(double *out, const char *opt, const char *const *kv, int threads)
{
    omp_set_num_threads(threads);
    srl_config *cfg = srl_config_new();
    for (; kv && kv[0]; kv += 2)
        if (srl_config_set(cfg, kv[0], kv[1]))
            abort();
    srl_strategy s;
    srl_err e;
    int st = srl_strategy_from_config(&s, cfg, &e);
    srl_config_free(cfg);
    if (st)
        return st;
    srl_optim_kind k = SRL_OPTIM_SGD;
    for (int i = 0; srl_optim_names[i]; i++)
        if (!strcmp(srl_optim_names[i], opt))
            k = (srl_optim_kind)i;
    srl_weight_spec spec = {"w", 1, {N}};
    srl_rng root;
    srl_rng_init(&root, SRL_RNG_PCG32, SEED, 7);
    srl_weights W;
    if ((st = srl_weights_alloc(&W, &spec, 1, &s, k, &root, &e)))
        return st;
    double *x0 = malloc(N * sizeof *x0), *g = malloc(N * sizeof *g);
    if (!x0 || !g)
        abort();
    fill(x0, N, SEED + 1);
    for (size_t i = 0; i < N; i++)
        x0[i] = fmin(fmax(x0[i], -1e4), 1e4);
    st = srl_weights_init(&W, 0, x0, &e);
    srl_optim_config c = {.kind = k, .lr = 0.01, .momentum = 0.9, .beta1 = 0.9, .beta2 = 0.999,
                          .eps = 1e-8, .wd = 0.01, .steps = 3};
    for (uint64_t t = 1; t <= 3 && !st; t++) {
        fill(g, N, SEED + 1 + t);
        for (size_t i = 0; i < N; i++)
            g[i] = fmin(fmax(g[i], -1e3), 1e3);
        st = srl_weights_set_grad_d(&W, 0, g, t);
        if (!st)
            st = srl_optim_step(NULL, &W, &c, t, c.lr);
    }
    if (!st)
        srl_weights_values(out, &W, 0);
    srl_weights_free(&W);
    free(x0);
    free(g);
    return st;
}

static void test_steps(void)
{
    const long before = srl_test_failures;
    static const char *const fp32[] = {"strategy", "fp32", NULL};
    static const char *const mp[] = {"strategy", "mp", NULL};
    static const char *const sr[] = {"strategy", "bf16-sr", NULL};
    static const char *const exact[] = {"strategy", "bf16-sr-exact", NULL};
    static const char *const kahan[] = {"strategy", "bf16-kahan", NULL};
    static const char *const f64[] = {"strategy", "custom", "param-format", "fp64",
                                      "state-format", "fp64", "grad-format", "fp64",
                                      "update-arith", "fp64", "param-rounding", "sr", NULL};
    static const char *const f16[] = {"strategy", "custom", "param-format", "fp16",
                                      "param-rounding", "sr", "state-format", "bf16", NULL};
    const char *const *strats[] = {fp32, mp, sr, exact, kahan, f64, f16};
    const char *names[] = {"fp32", "mp", "bf16-sr", "bf16-sr-exact", "bf16-kahan", "fp64 sr",
                           "fp16 sr"};
    const char *opts[] = {"sgd", "momentum", "adam", "adamw"};
    double *a = malloc(N * sizeof *a), *b = malloc(N * sizeof *b);
    if (!a || !b)
        abort();
    for (size_t i = 0; i < sizeof strats / sizeof *strats; i++)
        for (size_t o = 0; o < sizeof opts / sizeof *opts; o++) {
            int s1 = train(a, opts[o], strats[i], 1), s2 = train(b, opts[o], strats[i], 2);
            CHECK(s1 == SRL_OK && s2 == SRL_OK, "%s %s: status %d %d", names[i], opts[o], s1,
                  s2);
            size_t bad = 0;
            for (size_t k = 0; k < N && !s1 && !s2; k++)
                bad += !srl_test_same(a[k], b[k]);
            CHECK(bad == 0, "%s %s: %zu weights differ between 1 and 2 threads (seed %#llx)",
                  names[i], opts[o], bad, (unsigned long long)SEED);
        }
    free(a);
    free(b);
    GROUP("optimizer steps and tensor writes on two threads with 16 KiB stacks", before);
}

int main(void)
{
    const char *ss = getenv("OMP_STACKSIZE");
    CHECK(ss && !strcmp(ss, SRL_TEST_STACK), "run with OMP_STACKSIZE=" SRL_TEST_STACK
          " (tests/core/meson.build), not %s", ss ? ss : "(unset)");
    srl__workers_assume(-1);
    CHECK(!srl__workers_ok(), "16 KiB worker stacks are taken as enough");
    GROUP("workers with 16 KiB stacks: srlab's loops stay on the calling thread", 0L);
    srl__workers_assume(1); /* fork anyway: the loop bodies must fit */
    test_roundings();
    test_steps();
    TEST_END();
}
