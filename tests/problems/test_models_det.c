/* tests/problems/test_models_det.c: the MLP and GPT runs give the same bits for any thread count
 * and without OpenMP (suite determinism; src/problems/gpt_impl.h, src/problems/mlp_impl.h: "thread-invariant").
 *
 * The workload, with every parallel loop of the passes forced to fork (srl__models_omp_min = 1)
 * and stochastic roundings everywhere the strategy allows them: a GPT under bf16-sr with act
 * and grad writes sr, a stochastic bf16 accumulation, 2 replicas with independent streams (the
 * all-reduce's stochastic path); the same GPT under fp32 (the native kernels); a GPT and an
 * MLP under mp-tc (the promoted 14-bit accumulation); an MLP mixture task with sr activations
 * and 2 replicas. The digest is a 64-bit FNV-1a hash of every row value
 * (bit patterns) in order.
 *   test_models_det            OpenMP build: the workload at 1, 2, 3 and 8 threads in-process;
 *                              fails unless the digests agree.
 *   test_models_det --digest   prints only the digest (tests/core/determinism.sh compares the
 *                              OpenMP build at 1, 2, 3, 8 threads with the OpenMP-free build). */
#include <stdint.h>
#include <stdio.h>
#include <string.h>


#include "problems/model_impl.h"
#include "srlab/rng.h"
#include "srlab/run.h"
#include "../testdet.h"

typedef struct digest {
    uint64_t h;
    size_t ncol;
} digest;

static void absorb(digest *d, const void *p, size_t n)
{
    d->h = srl_fnv1a64(p, n, d->h);
}

static int d_begin(void *ctx, size_t ncol, const char *const *names, const srl_col_kind *k)
{
    (void)k;
    digest *d = ctx;
    d->ncol = ncol;
    for (size_t i = 0; i < ncol; i++)
        absorb(d, names[i], strlen(names[i]));
    return 0;
}

static int d_row(void *ctx, const srl_value *v)
{
    digest *d = ctx;
    for (size_t i = 0; i < d->ncol; i++) {
        if (v[i].kind == SRL_COL_NUM)
            absorb(d, &v[i].num, sizeof v[i].num);
        else if (v[i].kind == SRL_COL_INT)
            absorb(d, &v[i].i, sizeof v[i].i);
        else
            absorb(d, v[i].str, strlen(v[i].str));
    }
    return 0;
}

static uint64_t workload(void)
{
    static const char *const runs[][40] = {
        {"problem", "gpt", "strategy", "bf16-sr", "act-rounding", "sr", "grad-rounding", "sr",
         "accum", "prod=bf16:rn,acc=bf16:sr,order=blocked:8", "opt", "adamw", "lr", "0.01",
         "replicas", "2", "sr-seed", "independent", "n-layer", "2", "n-embd", "24", "n-head", "3",
         "block-size", "12", "batch-size", "5", "vocab", "9", "data-tokens", "3000", "steps", "3",
         "log-every", "1", "eval-windows", "3", NULL},
        {"problem", "gpt", "strategy", "fp32", "opt", "adamw", "lr", "0.01", "n-layer", "1",
         "n-embd", "32", "n-head", "4", "block-size", "16", "batch-size", "6", "data-tokens",
         "3000", "steps", "3", "log-every", "1", "eval-windows", "5", NULL},
        /* the FP8 tensor-core accumulation: blocks of 128 joined into binary32 (fcproj's
         * k = 4 x 48, the MLP's hidden k = 160), on the packed engine's emulation */
        {"problem", "gpt", "strategy", "mp-tc", "opt", "adamw", "lr", "0.01", "n-layer", "1",
         "n-embd", "48", "n-head", "4", "block-size", "16", "batch-size", "6", "data-tokens",
         "3000", "steps", "3", "log-every", "1", "eval-windows", "5", NULL},
        {"problem", "mlp", "task", "mixture", "strategy", "mp-tc", "opt", "adam", "lr", "0.01",
         "activation", "gelu", "width", "160", "batch-size", "33", "samples", "500",
         "val-samples", "300", "steps", "3", "log-every", "1", NULL},
        {"problem", "mlp", "task", "mixture", "strategy", "bf16-sr", "act-rounding", "sr",
         "grad-rounding", "sr", "accum", "prod=bf16:rn,acc=bf16:sr", "replicas", "2", "sr-seed",
         "independent", "opt", "adam", "lr", "0.01", "activation", "gelu", "width", "40",
         "batch-size", "33", "samples", "500", "val-samples", "300", "steps", "4", "log-every",
         "1", NULL},
    };
    digest d = {SRL_FNV1A64_BASIS, 0};
    srl__models_omp_min = 1;
    for (size_t c = 0; c < sizeof runs / sizeof *runs; c++) {
        srl_config *cfg = srl_config_new();
        for (size_t i = 2; runs[c][i]; i += 2)
            if (srl_config_set(cfg, runs[c][i], runs[c][i + 1]))
                return 0;
        srl_sink sink = {d_begin, d_row, &d};
        srl_run_report rep;
        srl_err e;
        const int st = srl_run(srl_runner_find(SRL_RUN_TRAIN, runs[c][1]), cfg, &sink, &rep, &e);
        srl_config_free(cfg);
        if (st != SRL_OK) {
            fprintf(stderr, "run %zu failed: %s\n", c, e.msg);
            return 0;
        }
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
    return srl_test_det_main(argc, argv, "MLP and GPT runs", 0, run_digest);
}
