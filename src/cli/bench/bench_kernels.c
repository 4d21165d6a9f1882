/* src/cli/bench/bench_kernels.c: `srlab bench kernels`: the matrix product in emulated precision
 * beside a plain binary32 triple loop (docs/design.md §6).
 *
 * C = A B with m = n = k = 512, A and B bf16 values (standard normal, fixed seed, rounded to
 * nearest bf16) held in float arrays, as the MLP and GPT hold their weights. Cases:
 *   plain float   for i, for j: s = 0; for l: s = s + A[i][l] * B[l][j]  (i-j-l order, binary32,
 *                 -ffp-contract=off like everything in srlab): the reference, compiled here
 *                 for this shape, which GCC vectorises over j (every sum keeps its order)
 *   srl_gemm_f    bf16 products (prod=bf16:rn) or the exact products of the bf16 inputs
 *                 (prod=fp32:rn), with fp32 rn or bf16 sr accumulation
 *   srl_gemm      binary64 rn on the same values as doubles, for context
 * Both the reference and srlab's kernels run on all threads (OMP_NUM_THREADS; the reference: one
 * block of rows per thread; srlab: tiles of outputs). Every case is run once to warm up, then timed REPS times; the median is
 * reported. gflops = 2 m n k / seconds / 1e9; ratio_to_plain_float = the case's time / the plain
 * loop's time (1.0: the same speed; below 1: faster). Speed is measured, never asserted. */
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "cli/bench/bench.h"
#include "cli/cli.h"
#include "srl_config.h"
#include "srlab/kernels.h"
#include "srlab/rounding.h"

#if SRL_HAVE_OPENMP
#include <omp.h>
#endif

#define DIM 512
#define REPS 5

/* The reference: C[i][j] = sum_l A[i][l] B[l][j] in binary32, i-j-l, from s = 0, for rows
 * [i0, i1) of the DIM x DIM x DIM product. The shape is a compile-time constant, as in a program
 * written for this one size: GCC then vectorises the loop over j (every sum keeps its order),
 * about four times faster than the same loop with run-time sizes or inside an OpenMP-outlined
 * body. The faster reference is the honest one. */
static __attribute__((noinline)) void plain_rows(float *restrict C, const float *restrict A,
                                                 const float *restrict B, size_t i0, size_t i1)
{
    for (size_t i = i0; i < i1; i++)
        for (size_t j = 0; j < DIM; j++) {
            float s = 0.0f;
            for (size_t l = 0; l < DIM; l++)
                s = s + A[i * DIM + l] * B[l * DIM + j];
            C[i * DIM + j] = s;
        }
}

/* All threads, one contiguous block of rows each (as the kernels split their outputs). */
static void plain_gemm(float *C, const float *A, const float *B)
{
#if SRL_HAVE_OPENMP
#pragma omp parallel
    {
        const size_t nt = (size_t)omp_get_num_threads(), t = (size_t)omp_get_thread_num();
        plain_rows(C, A, B, DIM * t / nt, DIM * (t + 1) / nt);
    }
#else
    plain_rows(C, A, B, 0, DIM);
#endif
}

typedef struct bench_case {
    const char *kernel; /* "plain_float", "gemm_f", "gemm" */
    const char *spec;   /* accumulation config (NULL for the plain loop) */
} bench_case;

static const bench_case cases[] = {
    {"plain_float", NULL},
    {"gemm_f", "prod=bf16:rn,acc=fp32:rn"},
    {"gemm_f", "prod=fp32:rn,acc=fp32:rn"},
    {"gemm_f", "prod=bf16:rn,acc=bf16:sr"},
    {"gemm_f", "prod=fp32:rn,acc=bf16:sr"},
    {"gemm", "prod=fp64:rn,acc=fp64:rn"},
};
#define NCASES (sizeof cases / sizeof cases[0])

typedef struct bench_data {
    float *A, *B, *C;
    double *Ad, *Bd, *Cd;
} bench_data;

/* Median seconds of REPS runs of one case; *st receives a failing status. */
static double time_case(const bench_case *bc, const srl_accum *c, bench_data *d, int *st)
{
    double t[REPS];
    srl_rng rng;
    srl_rng_init(&rng, SRL_RNG_DEFAULT, 1, 7);
    for (int r = -1; r < REPS; r++) {
        const double t0 = cli_bench_now();
        int s = SRL_OK;
        if (!c)
            plain_gemm(d->C, d->A, d->B);
        else if (!strcmp(bc->kernel, "gemm"))
            s = srl_gemm(d->Cd, d->Ad, d->Bd, DIM, DIM, DIM, c, &rng);
        else
            s = srl_gemm_f(d->C, d->A, d->B, DIM, DIM, DIM, c, &rng);
        const double dt = cli_bench_now() - t0;
        if (s != SRL_OK)
            *st = s;
        if (r >= 0)
            t[r] = dt;
    }
    return cli_bench_median(t, REPS);
}

int cli_bench_kernels(FILE *out, int csv)
{
    const size_t nn = (size_t)DIM * DIM;
    bench_data d;
    d.A = malloc(nn * sizeof *d.A);
    d.B = malloc(nn * sizeof *d.B);
    d.C = malloc(nn * sizeof *d.C);
    d.Ad = malloc(nn * sizeof *d.Ad);
    d.Bd = malloc(nn * sizeof *d.Bd);
    d.Cd = malloc(nn * sizeof *d.Cd);
    int rc = 0;
    if (!d.A || !d.B || !d.C || !d.Ad || !d.Bd || !d.Cd) {
        rc = cli_sys_error("bench", "cannot allocate the %dx%d matrices", DIM, DIM);
        goto done;
    }
    srl_rng data;
    srl_rng_init(&data, SRL_RNG_DEFAULT, 1, 0);
    const srl_format *bf16 = srl_format_find("bf16");
    for (size_t i = 0; i < nn; i++) {
        d.Ad[i] = srl_round(srl_rng_normal(&data), bf16, SRL_ROUND_RN, NULL);
        d.Bd[i] = srl_round(srl_rng_normal(&data), bf16, SRL_ROUND_RN, NULL);
        d.A[i] = (float)d.Ad[i];
        d.B[i] = (float)d.Bd[i];
    }
#if SRL_HAVE_OPENMP
    const int threads = omp_get_max_threads();
#else
    const int threads = 1;
#endif
    const double flops = 2.0 * DIM * DIM * DIM;
    if (csv)
        fprintf(out, "kernel,config,gflops,ratio_to_plain_float\n");
    else
        fprintf(out,
                "%dx%dx%d matrix product, bf16-valued inputs (standard normal, seed 1), %d "
                "thread%s, median of %d runs\n%-12s %-64s %8s %10s\n",
                DIM, DIM, DIM, threads, threads > 1 ? "s" : "", REPS, "kernel", "config",
                "GFLOP/s", "ratio");
    double t_plain = 0;
    for (size_t ci = 0; ci < NCASES; ci++) {
        const bench_case *bc = &cases[ci];
        srl_accum c = srl_accum_binary64();
        char name[256] = "i-j-l float loop";
        if (bc->spec) {
            srl_err err;
            if (srl_accum_parse(&c, bc->spec, &err) != SRL_OK) {
                rc = cli_error("bench", "%s", err.msg);
                goto done;
            }
            srl_accum_name(name, sizeof name, &c);
        }
        int st = SRL_OK;
        const double t = time_case(bc, bc->spec ? &c : NULL, &d, &st);
        if (st != SRL_OK) {
            rc = cli_sys_error("bench", "%s %s: %s", bc->kernel, name, srl_strerror(st));
            goto done;
        }
        if (!bc->spec)
            t_plain = t;
        const double ratio = t / t_plain;
        if (csv)
            fprintf(out, "%s,\"%s\",%.3f,%.3f\n", bc->kernel, name, flops / t / 1e9, ratio);
        else
            fprintf(out, "%-12s %-64s %8.2f %10.3f\n", bc->kernel, name, flops / t / 1e9, ratio);
    }
done:
    free(d.A);
    free(d.B);
    free(d.C);
    free(d.Ad);
    free(d.Bd);
    free(d.Cd);
    return rc;
}
