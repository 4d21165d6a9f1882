/* tests/train/test_train_det.c: training runs give the same bits for any thread count and
 * without OpenMP, suite `determinism` (include/srlab/optim.h: "bit-identical for any thread
 * count"; docs/design.md §4, §6).
 *
 * The workload: quadratic problems of d = 40000 parameters (above every OpenMP threshold of the
 * optimizer step and of the tensor writes, and not a multiple of any tile or chunk) trained 12
 * steps with gradient noise under every strategy preset and a custom one with stochastic
 * gradient and moment writes; Adam/AdamW (the fused bf16 kernel), momentum and SGD (the
 * generic tiles); and lsq with grad-compute=kernels and a stochastic accumulation. The digest is a 64-bit FNV-1a hash of every row value (bit patterns) in order.
 *   test_train_det            OpenMP build: the workload at 1, 2, 3 and 8 threads in-process;
 *                             fails unless the digests agree; prints the digest.
 *   test_train_det --digest   prints only the digest (for tests/core/determinism.sh, which
 *                             compares the OpenMP build at OMP_NUM_THREADS=1,2,3,8 with the
 *                             OpenMP-free build).
 * Equality is exact. */
#include <stdint.h>
#include <stdio.h>
#include <string.h>


#include "srlab/rng.h"
#include "srlab/run.h"
#include "../testdet.h"

typedef struct digest {
    uint64_t h;
} digest;

static void absorb(digest *d, const void *p, size_t n)
{
    d->h = srl_fnv1a64(p, n, d->h);
}

static int d_begin(void *ctx, size_t ncol, const char *const *names, const srl_col_kind *k)
{
    (void)k;
    digest *d = ctx;
    for (size_t i = 0; i < ncol; i++)
        absorb(d, names[i], strlen(names[i]));
    return 0;
}

static size_t ncols;

static int d_row(void *ctx, const srl_value *v)
{
    digest *d = ctx;
    for (size_t i = 0; i < ncols; i++) {
        if (v[i].kind == SRL_COL_NUM)
            absorb(d, &v[i].num, sizeof v[i].num);
        else if (v[i].kind == SRL_COL_INT)
            absorb(d, &v[i].i, sizeof v[i].i);
        else
            absorb(d, v[i].str, strlen(v[i].str));
    }
    return 0;
}

static int count_begin(void *ctx, size_t ncol, const char *const *names, const srl_col_kind *k)
{
    ncols = ncol;
    return d_begin(ctx, ncol, names, k);
}

static uint64_t workload(void)
{
    static const char *const cases[][16] = {
        {"strategy", "bf16-sr", "opt", "adamw", NULL},
        {"strategy", "bf16-rn", "opt", "adam", NULL},
        {"strategy", "fp32", "opt", "adamw", NULL},
        {"strategy", "mp", "opt", "adamw", NULL},
        {"strategy", "bf16-kahan", "opt", "momentum", NULL},
        {"strategy", "bf16-sr-exact", "opt", "adamw", NULL},
        {"strategy", "custom", "opt", "adamw", "param-format", "bf16", "param-rounding", "sr",
         "grad-rounding", "sr", "state-format", "fp16", NULL},
        {"strategy", "bf16-sr", "opt", "sgd", "rng", "pcg64", NULL},
    };
    static const char *const lsq[] = {"strategy", "bf16-sr", "opt", "adamw", "samples", "3000",
                                      "d", "64", "grad-compute", "kernels", "accum",
                                      "prod=bf16:rn,acc=fp16:sr,order=blocked:16", "lr", "0.01",
                                      "steps", "6", "log-every", "1", "seed", "3", NULL};
    digest d = {SRL_FNV1A64_BASIS};
    const srl_runner *r = srl_runner_find(SRL_RUN_TRAIN, "quadratic");
    for (size_t c = 0; c < sizeof cases / sizeof *cases; c++) {
        srl_config *cfg = srl_config_new();
        const char *rest[] = {"d", "40000", "kappa", "50", "lr", "0.01", "wd", "0.01",
                              "grad-noise", "0.1", "steps", "12", "log-every", "1", "seed", "5",
                              NULL};
        for (size_t i = 0; cases[c][i]; i += 2)
            if (srl_config_set(cfg, cases[c][i], cases[c][i + 1]))
                return 0;
        for (size_t i = 0; rest[i]; i += 2)
            if (srl_config_set(cfg, rest[i], rest[i + 1]))
                return 0;
        srl_sink sink = {count_begin, d_row, &d};
        srl_run_report rep;
        srl_err e;
        if (srl_run(r, cfg, &sink, &rep, &e) != SRL_OK) {
            fprintf(stderr, "run %zu failed: %s\n", c, e.msg);
            srl_config_free(cfg);
            return 0;
        }
        srl_config_free(cfg);
    }
    /* lsq with the gradient's products through the kernels (their own threads) */
    srl_config *cfg = srl_config_new();
    for (size_t i = 0; lsq[i]; i += 2)
        if (srl_config_set(cfg, lsq[i], lsq[i + 1]))
            return 0;
    srl_sink sink = {count_begin, d_row, &d};
    srl_run_report rep;
    srl_err e;
    const int st = srl_run(srl_runner_find(SRL_RUN_TRAIN, "lsq"), cfg, &sink, &rep, &e);
    srl_config_free(cfg);
    if (st != SRL_OK) {
        fprintf(stderr, "lsq run failed: %s\n", e.msg);
        return 0;
    }
    return d.h;
}

/* The workload's digest; 0 means it failed. */
static int run_digest(uint64_t *h)
{
    *h = workload();
    return *h == 0;
}

int main(int argc, char **argv)
{
    return srl_test_det_main(argc, argv, "training runs", 0, run_digest);
}
