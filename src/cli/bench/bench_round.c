/* src/cli/bench/bench_round.c: `srlab bench round`: bulk rounding throughput (docs/design.md §5).
 *
 * 10^7 values, binary64 and binary32 in/out, standard normal and uniform [-1,1] (fixed seed),
 * rounded into bf16, fp16, e4m3 and e5m2 with rn, rz, sr (pcg32) and sr with pcg64, on one thread
 * and on all threads, each group beside a memcpy of the same bytes (the memory-bound reference;
 * on all threads each thread copies its share). Every case runs in turn with its reference
 * (memcpy here, bf16 rounding below), once to warm up, then REPS times; Mvalues/s is n over the
 * case's median time, and ratio_to_memcpy the median over the repeats of memcpy's time over the
 * case's in the same repeat (above 1: faster than copying the array, possible because large
 * outputs are written with streaming stores).
 * Then block quantization (srlab/mx.h) of the binary32 normal array, beside bf16 bulk rounding
 * of the same array in the same mode: every block format (srl_mx_preset: mxfp8-e4m3, mxfp8-e5m2,
 * mxfp6-e3m2, mxfp6-e2m3, mxfp4, mxint8, nvfp4) under every scale rule (ocp, 3/4, ceil) in rn
 * and sr; ratio_to_bf16 = the median of the bf16 rounding's time over the case's, paired by
 * repeat like ratio_to_memcpy (issue 32 aims at 0.5 or more). The reference rows (memcpy,
 * bf16/rn, bf16/sr) are timed on their own and show 1. */
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

/* One contender: a memcpy of the job's bytes (f and mx NULL), its rounding into f, or (mx) its
 * block quantization into mx under rule. */
typedef struct {
    const srl_format *f;
    const srl_mx_format *mx;
    srl_mx_rule rule;
    srl_rounding m;
    srl_rng_kind kind;
} contender;

/* Seconds of one run of c on j (from the same seed and stream every time). */
static double run_once(const round_job *j, const contender *c, int *failed)
{
    srl_rng rng;
    srl_rng_init(&rng, c->kind, 1, 1);
    const double t0 = cli_bench_now();
    int st = SRL_OK;
    if (c->mx)
        st = srl_mx_quantize_float(j->y, NULL, NULL, j->x, j->n, c->mx, c->rule, c->m, &rng);
    else if (!c->f)
        copy_bytes(j->y, j->x, j->n * (j->single ? sizeof(float) : sizeof(double)));
    else if (j->single)
        st = srl_round_array_float(j->y, j->x, j->n, c->f, c->m, &rng);
    else
        st = srl_round_array(j->y, j->x, j->n, c->f, c->m, &rng);
    if (st != SRL_OK)
        *failed = 1;
    return cli_bench_now() - t0;
}

/* Median seconds of REPS timed runs of one contender, after one untimed warm-up run. */
static double time_one(const round_job *j, const contender *c, int *failed)
{
    double t[REPS];
    for (int r = -1; r < REPS; r++) {
        const double dt = run_once(j, c, failed);
        if (r >= 0)
            t[r] = dt;
    }
    return cli_bench_median(t, REPS);
}

/* The reference ref and the case c in turn, REPS times after a warm-up pair: *t_case = the
 * case's median seconds, and the result the median over the repeats of ref's time over the
 * case's in that repeat. Each ratio pairs two runs made a few milliseconds apart, so a change in
 * the memory bandwidth left by the machine's other work (which moved bf16 rounding at 10^7
 * between 1660 and 4600 Mvalues/s from one minute to the next on a shared VM) hits both alike;
 * a ratio of two medians taken apart would carry it whole. */
static double time_paired(const round_job *j, const contender *ref, const contender *c,
                          double *t_case, int *failed)
{
    double t[REPS], q[REPS];
    for (int r = -1; r < REPS; r++) {
        const double tr = run_once(j, ref, failed), tc = run_once(j, c, failed);
        if (r >= 0)
            t[r] = tc, q[r] = tr / tc;
    }
    *t_case = cli_bench_median(t, REPS);
    return cli_bench_median(q, REPS);
}

static void print_row(FILE *out, int csv, const char *name, const round_job *j, const char *dist,
                      int th, double mv, double ratio)
{
    const char *elem = j->single ? "binary32" : "binary64";
    if (csv)
        fprintf(out, "%s,%s,%s,%d,%.1f,%.3f\n", name, elem, dist, th, mv, ratio);
    else
        fprintf(out, "%-20s %-9s %-8s %8d %12.1f %16.3f\n", name, elem, dist, th, mv, ratio);
}

/* Every case of one element type, input distribution and thread count, each beside memcpy. */
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
    const contender copy = {NULL, NULL, SRL_MX_OCP, SRL_ROUND_RN, SRL_RNG_PCG32};
    print_row(out, csv, "memcpy", j, dist, th, (double)j->n / time_one(j, &copy, failed) / 1e6,
              1.0);
    for (size_t fi = 0; fi < sizeof fmts / sizeof *fmts; fi++) {
        const srl_format *f = srl_format_find(fmts[fi]);
        for (size_t mi = 0; mi < sizeof modes / sizeof *modes; mi++) {
            contender c = {f, NULL, SRL_MX_OCP, SRL_ROUND_RN, modes[mi].kind};
            if (!f || srl_rounding_parse(&c.m, modes[mi].mode, NULL) != SRL_OK)
                continue;
            double t;
            const double ratio = time_paired(j, &copy, &c, &t, failed);
            char name[32];
            snprintf(name, sizeof name, "%s/%s", fmts[fi], modes[mi].name);
            print_row(out, csv, name, j, dist, th, (double)j->n / t / 1e6, ratio);
        }
    }
}

/* bf16 rn and sr, then each block format under each scale rule in the same mode, each beside
 * bf16 rounding in that mode. */
static void run_mx(FILE *out, int csv, const round_job *j, int th, int *failed)
{
    const srl_format *bf16 = srl_format_find("bf16");
    for (int k = 0; k < 2; k++) {
        const contender c = {bf16, NULL, SRL_MX_OCP, k ? SRL_ROUND_SR : SRL_ROUND_RN,
                             SRL_RNG_PCG32};
        print_row(out, csv, k ? "bf16/sr" : "bf16/rn", j, "normal", th,
                  (double)j->n / time_one(j, &c, failed) / 1e6, 1.0);
    }
    for (size_t fi = 0; fi < srl_mx_preset_count(); fi++)
        for (int r = 0; r < SRL_MX_RULE_COUNT; r++)
            for (int k = 0; k < 2; k++) {
                const srl_rounding m = k ? SRL_ROUND_SR : SRL_ROUND_RN;
                const contender ref = {bf16, NULL, SRL_MX_OCP, m, SRL_RNG_PCG32};
                const contender c = {NULL, srl_mx_preset(fi), (srl_mx_rule)r, m, SRL_RNG_PCG32};
                double t;
                const double ratio = time_paired(j, &ref, &c, &t, failed);
                char name[sizeof c.mx->name + 16];
                snprintf(name, sizeof name, "%s/%s/%s", c.mx->name,
                         srl_mx_rule_name((srl_mx_rule)r), k ? "sr" : "rn");
                print_row(out, csv, name, j, "normal", th, (double)j->n / t / 1e6, ratio);
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
