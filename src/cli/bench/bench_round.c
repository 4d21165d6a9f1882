/* src/cli/bench/bench_round.c: `srlab bench round`: bulk rounding throughput (docs/design.md §5).
 *
 * 10^7 values, binary64 and binary32 in/out, standard normal and uniform [-1,1] (fixed seed),
 * rounded into bf16, fp16, e4m3 and e5m2 with rn, rz, sr (pcg32) and sr with pcg64, on one thread
 * and on all threads, each group beside a memcpy of the same bytes (the memory-bound reference;
 * on all threads each thread copies its share). Every case is run once to warm up,
 * then timed REPS times; the median is reported. ratio_to_memcpy = values per second of the case
 * / values per second of memcpy on the same number of threads (above 1: faster than copying the
 * array, possible because large outputs are written with streaming stores).
 * Then block quantization (srlab/mx.h) of the binary32 normal array, beside bf16 bulk rounding
 * of the same array in the same mode: every block format (srl_mx_preset: mxfp8-e4m3, mxfp8-e5m2,
 * mxfp6-e3m2, mxfp6-e2m3, mxfp4, mxint8, nvfp4) under every scale rule (ocp, 3/4, ceil) in rn
 * and sr; ratio_to_bf16 = the bf16 rounding's time over the case's (issue 32 aims at 0.5 or
 * more). */
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "cli/bench/bench.h"
#include "cli/cli.h"
#include "srl_config.h"
#include "srlab/mx.h"
#include "srlab/rounding.h"

#if SRL_HAVE_OPENMP
#include <omp.h>
#endif

#define N_VALUES 10000000
#define REPS 7

static int max_threads(void)
{
#if SRL_HAVE_OPENMP
    return omp_get_max_threads();
#else
    return 1;
#endif
}

static void set_threads(int t)
{
#if SRL_HAVE_OPENMP
    omp_set_num_threads(t);
#else
    (void)t;
#endif
}

/* memcpy of the same bytes, each thread copying its share. */
static void copy_bytes(void *y, const void *x, size_t bytes)
{
#if SRL_HAVE_OPENMP
#pragma omp parallel
    {
        size_t nt = (size_t)omp_get_num_threads(), t = (size_t)omp_get_thread_num();
        size_t lo = bytes * t / nt, hi = bytes * (t + 1) / nt;
        memcpy((char *)y + lo, (const char *)x + lo, hi - lo);
    }
#else
    memcpy(y, x, bytes);
#endif
}

/* One case: n values of one element type (binary64 or binary32) in x, rounded into y. */
typedef struct {
    void *y;
    const void *x;
    size_t n;
    int single; /* 1: binary32 in/out (srl_round_array_float) */
} round_job;

/* Median seconds of REPS timed runs of one case (mode NULL: memcpy of the same bytes). */
static double time_case(const round_job *j, const srl_format *f, const srl_rounding *m,
                        srl_rng_kind kind, int *failed)
{
    double t[REPS];
    for (int r = -1; r < REPS; r++) {
        srl_rng rng;
        srl_rng_init(&rng, kind, 1, 1);
        double t0 = cli_bench_now();
        int st = SRL_OK;
        if (!m)
            copy_bytes(j->y, j->x, j->n * (j->single ? sizeof(float) : sizeof(double)));
        else if (j->single)
            st = srl_round_array_float(j->y, j->x, j->n, f, *m, &rng);
        else
            st = srl_round_array(j->y, j->x, j->n, f, *m, &rng);
        if (st != SRL_OK)
            *failed = 1;
        double dt = cli_bench_now() - t0;
        if (r >= 0)
            t[r] = dt;
    }
    return cli_bench_median(t, REPS);
}

static void print_row(FILE *out, int csv, const char *name, const round_job *j, const char *dist,
                      int th, double mv, double mv_copy)
{
    const char *elem = j->single ? "binary32" : "binary64";
    if (csv)
        fprintf(out, "%s,%s,%s,%d,%.1f,%.3f\n", name, elem, dist, th, mv, mv / mv_copy);
    else
        fprintf(out, "%-20s %-9s %-8s %8d %12.1f %16.3f\n", name, elem, dist, th, mv,
                mv / mv_copy);
}

/* Every case of one element type, input distribution and thread count. */
static void run_group(FILE *out, int csv, const round_job *j, const char *dist, int th,
                      int *failed)
{
    static const char *const fmts[] = {"bf16", "fp16", "e4m3", "e5m2"};
    static const struct {
        const char *name, *mode;
        srl_rng_kind kind;
    } modes[] = {{"rn", "rn", SRL_RNG_PCG32},
                 {"rz", "rz", SRL_RNG_PCG32},
                 {"sr", "sr", SRL_RNG_PCG32},
                 {"sr-pcg64", "sr", SRL_RNG_PCG64}};
    const double mv_copy = (double)j->n / time_case(j, NULL, NULL, SRL_RNG_PCG32, failed) / 1e6;
    print_row(out, csv, "memcpy", j, dist, th, mv_copy, mv_copy);
    for (size_t fi = 0; fi < sizeof fmts / sizeof *fmts; fi++) {
        const srl_format *f = srl_format_find(fmts[fi]);
        for (size_t mi = 0; mi < sizeof modes / sizeof *modes; mi++) {
            srl_rounding m;
            if (!f || srl_rounding_parse(&m, modes[mi].mode, NULL) != SRL_OK)
                continue;
            const double t = time_case(j, f, &m, modes[mi].kind, failed);
            char name[32];
            snprintf(name, sizeof name, "%s/%s", fmts[fi], modes[mi].name);
            print_row(out, csv, name, j, dist, th, (double)j->n / t / 1e6, mv_copy);
        }
    }
}

/* Median seconds of REPS timed block quantizations of a binary32 job. */
static double time_mx(const round_job *j, const srl_mx_format *f, srl_mx_rule r,
                      const srl_rounding *m, int *failed)
{
    double t[REPS];
    for (int q = -1; q < REPS; q++) {
        srl_rng rng;
        srl_rng_init(&rng, SRL_RNG_PCG32, 1, 1);
        const double t0 = cli_bench_now();
        if (srl_mx_quantize_float(j->y, NULL, NULL, j->x, j->n, f, r, *m, &rng) != SRL_OK)
            *failed = 1;
        const double dt = cli_bench_now() - t0;
        if (q >= 0)
            t[q] = dt;
    }
    return cli_bench_median(t, REPS);
}

/* bf16 rn and sr, then each block format under each scale rule in the same mode, with the ratio
 * of their times. */
static void run_mx(FILE *out, int csv, const round_job *j, int th, int *failed)
{
    double t_bf16[2] = {0, 0}; /* rn, sr */
    for (int k = 0; k < 2; k++) {
        srl_rounding m = k ? SRL_ROUND_SR : SRL_ROUND_RN;
        t_bf16[k] = time_case(j, srl_format_find("bf16"), &m, SRL_RNG_PCG32, failed);
        const double mv = (double)j->n / t_bf16[k] / 1e6;
        print_row(out, csv, k ? "bf16/sr" : "bf16/rn", j, "normal", th, mv, mv);
    }
    for (size_t fi = 0; fi < srl_mx_preset_count(); fi++)
        for (int r = 0; r < SRL_MX_RULE_COUNT; r++)
            for (int k = 0; k < 2; k++) {
                const srl_mx_format *f = srl_mx_preset(fi);
                const srl_rounding m = k ? SRL_ROUND_SR : SRL_ROUND_RN;
                const double t = time_mx(j, f, (srl_mx_rule)r, &m, failed);
                char name[sizeof f->name + 16];
                snprintf(name, sizeof name, "%s/%s/%s", f->name, srl_mx_rule_name((srl_mx_rule)r),
                         k ? "sr" : "rn");
                print_row(out, csv, name, j, "normal", th, (double)j->n / t / 1e6,
                          (double)j->n / t_bf16[k] / 1e6);
            }
}

int cli_bench_round(FILE *out, int csv)
{
    const size_t n = N_VALUES;
    double *xn = malloc(n * sizeof *xn), *xu = malloc(n * sizeof *xu), *y = malloc(n * sizeof *y);
    float *xnf = malloc(n * sizeof *xnf), *xuf = malloc(n * sizeof *xuf);
    if (!xn || !xu || !y || !xnf || !xuf) {
        free(xn), free(xu), free(y), free(xnf), free(xuf);
        return cli_sys_error("bench", "cannot allocate the 5 arrays of %zu values", n);
    }
    srl_rng data;
    srl_rng_init(&data, SRL_RNG_DEFAULT, 1, 0);
    for (size_t i = 0; i < n; i++) {
        xn[i] = srl_rng_normal(&data);
        xu[i] = 2.0 * srl_rng_uniform(&data) - 1.0;
        xnf[i] = (float)xn[i];
        xuf[i] = (float)xu[i];
    }
    memset(y, 0, n * sizeof *y);
    const round_job jobs[4] = {{y, xn, n, 0}, {y, xu, n, 0}, {y, xnf, n, 1}, {y, xuf, n, 1}};
    static const char *const dists[4] = {"normal", "uniform", "normal", "uniform"};

    const int all = max_threads();
    const int thread_counts[2] = {1, all};
    const int nt_cases = all > 1 ? 2 : 1;
    int failed = 0;
    if (csv)
        fprintf(out, "case,elem,input,threads,mvalues_per_s,ratio_to_memcpy\n");
    else
        fprintf(out, "bulk rounding of %d values (binary64 and binary32 in/out; standard normal "
                     "and uniform [-1,1], seed 1), median of %d runs\n%-20s %-9s %-8s %8s %12s "
                     "%16s\n", N_VALUES, REPS, "case", "elem", "input", "threads", "Mvalues/s",
                "ratio_to_memcpy");
    for (int ti = 0; ti < nt_cases; ti++) {
        set_threads(thread_counts[ti]);
        for (int g = 0; g < 4; g++)
            run_group(out, csv, &jobs[g], dists[g], thread_counts[ti], &failed);
    }
    if (csv)
        fprintf(out, "\ncase,elem,input,threads,mvalues_per_s,ratio_to_bf16\n");
    else
        fprintf(out, "\nblock quantization of the same %d binary32 normal values beside bf16 bulk "
                     "rounding in the same mode\n%-20s %-9s %-8s %8s %12s %16s\n", N_VALUES,
                "case", "elem", "input", "threads", "Mvalues/s", "ratio_to_bf16");
    for (int ti = 0; ti < nt_cases; ti++) {
        set_threads(thread_counts[ti]);
        run_mx(out, csv, &jobs[2], thread_counts[ti], &failed);
    }
    set_threads(all);
    free(xn), free(xu), free(y), free(xnf), free(xuf);
    if (failed)
        return cli_sys_error("bench", "a rounding call failed");
    return 0;
}
