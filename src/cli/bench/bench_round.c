/* src/cli/bench/bench_round.c: `srlab bench round`: bulk rounding throughput (docs/design.md §5).
 *
 * 10^7 binary64 values (standard normal, fixed seed) rounded into bf16, fp16 and e4m3 with rn
 * and sr, on one thread and on all threads, beside a memcpy of the same array (the memory-bound
 * reference; on all threads each thread copies its share). Every case is run once to warm up,
 * then timed REPS times; the median is reported. ratio_to_memcpy = values per second of the case
 * / values per second of memcpy on the same number of threads (above 1: faster than copying the
 * array, possible because large outputs are written with streaming stores). */
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "cli/bench/bench.h"
#include "cli/cli.h"
#include "srl_config.h"
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

static void copy_array(double *y, const double *x, size_t n)
{
#if SRL_HAVE_OPENMP
#pragma omp parallel
    {
        size_t nt = (size_t)omp_get_num_threads(), t = (size_t)omp_get_thread_num();
        size_t lo = n * t / nt, hi = n * (t + 1) / nt;
        memcpy(y + lo, x + lo, (hi - lo) * sizeof *y);
    }
#else
    memcpy(y, x, n * sizeof *y);
#endif
}

/* Median seconds of REPS timed runs of one case (mode NULL: memcpy). */
static double time_case(double *y, const double *x, size_t n, const srl_format *f,
                        const srl_rounding *m, srl_rng *rng, int *failed)
{
    double t[REPS];
    for (int r = -1; r < REPS; r++) {
        double t0 = cli_bench_now();
        if (!m)
            copy_array(y, x, n);
        else if (srl_round_array(y, x, n, f, *m, rng) != SRL_OK)
            *failed = 1;
        double dt = cli_bench_now() - t0;
        if (r >= 0)
            t[r] = dt;
    }
    return cli_bench_median(t, REPS);
}

int cli_bench_round(FILE *out, int csv)
{
    const size_t n = N_VALUES;
    double *x = malloc(n * sizeof *x), *y = malloc(n * sizeof *y);
    if (!x || !y) {
        free(x);
        free(y);
        return cli_sys_error("bench", "cannot allocate 2 x %zu doubles", n);
    }
    srl_rng data;
    srl_rng_init(&data, SRL_RNG_DEFAULT, 1, 0);
    for (size_t i = 0; i < n; i++)
        x[i] = srl_rng_normal(&data);
    memset(y, 0, n * sizeof *y);

    static const char *const fmts[] = {"bf16", "fp16", "e4m3"};
    static const char *const modes[] = {"rn", "sr"};
    const int all = max_threads();
    const int thread_counts[2] = {1, all};
    const int nt_cases = all > 1 ? 2 : 1;
    int failed = 0;
    if (csv)
        fprintf(out, "case,threads,mvalues_per_s,ratio_to_memcpy\n");
    else
        fprintf(out, "bulk rounding of %d binary64 values (standard normal, seed 1), median of %d "
                     "runs\n%-10s %8s %16s %16s\n", N_VALUES, REPS, "case", "threads",
                "Mvalues/s", "ratio_to_memcpy");
    for (int ti = 0; ti < nt_cases; ti++) {
        const int th = thread_counts[ti];
        set_threads(th);
        const double tm = time_case(y, x, n, NULL, NULL, NULL, &failed);
        const double mv_copy = (double)n / tm / 1e6;
        if (csv)
            fprintf(out, "memcpy,%d,%.1f,1.000\n", th, mv_copy);
        else
            fprintf(out, "%-10s %8d %16.1f %16.3f\n", "memcpy", th, mv_copy, 1.0);
        for (size_t fi = 0; fi < sizeof fmts / sizeof *fmts; fi++) {
            const srl_format *f = srl_format_find(fmts[fi]);
            for (size_t mi = 0; mi < sizeof modes / sizeof *modes; mi++) {
                srl_rounding m;
                if (srl_rounding_parse(&m, modes[mi], NULL) != SRL_OK)
                    continue;
                srl_rng rng;
                srl_rng_init(&rng, SRL_RNG_DEFAULT, 1, 1);
                const double t = time_case(y, x, n, f, &m, &rng, &failed);
                const double mv = (double)n / t / 1e6;
                char name[32];
                snprintf(name, sizeof name, "%s/%s", fmts[fi], modes[mi]);
                if (csv)
                    fprintf(out, "%s,%d,%.1f,%.3f\n", name, th, mv, mv / mv_copy);
                else
                    fprintf(out, "%-10s %8d %16.1f %16.3f\n", name, th, mv, mv / mv_copy);
            }
        }
    }
    set_threads(all);
    free(x);
    free(y);
    if (failed)
        return cli_sys_error("bench", "a rounding call failed");
    return 0;
}
