/* src/cli/bench/bench_sweep.c: `srlab bench sweep`: sweep throughput on 1 and all threads.
 *
 * A grid of small quadratic runs (the engine of `srlab sweep`: include/srlab/sweep.h) executed
 * once on one thread and once on all threads, in the same process, after a warm-up; runs per
 * second and the speedup of all threads over one (the parallel efficiency on 2 cores is
 * speedup / 2). Records are discarded: only the execution is timed. */
#include <stdlib.h>

#include "cli/bench/bench.h"
#include "cli/cli.h"
#include "srl_config.h"
#include "srlab/sweep.h"

#if SRL_HAVE_OPENMP
#include <omp.h>
#endif

static int discard(void *ctx, const srl_sweep_record *rec)
{
    (void)rec;
    (*(size_t *)ctx)++;
    return 0;
}

int cli_bench_sweep(FILE *out, int csv)
{
    static const srl_sweep_setting grid[] = {
        {"problem", "quadratic", NULL}, {"d", "100", NULL},      {"kappa", "10", NULL},
        {"strategy", "fp32,bf16-rn,bf16-sr", NULL},             {"lr", "1e-3:1e-1:log:8", NULL},
        {"steps", "2000", NULL},        {"log-every", "2000", NULL}, {"seeds", "20", NULL},
    };
    srl_sweep *s = NULL;
    srl_err err;
    err.msg[0] = 0;
#if SRL_HAVE_OPENMP
    const int all = omp_get_max_threads();
#else
    const int all = 1;
#endif
    if (srl_sweep_new(&s, grid, sizeof grid / sizeof *grid, NULL, &err) != SRL_OK ||
        srl_sweep_prepare(s, all, &err) != SRL_OK) {
        srl_sweep_free(s);
        return cli_sys_error("bench", "sweep benchmark: %s", err.msg);
    }
    const size_t n = srl_sweep_nruns(s);
    size_t *runs = malloc(n * sizeof *runs);
    if (!runs) {
        srl_sweep_free(s);
        return cli_sys_error("bench", "out of memory");
    }
    for (size_t i = 0; i < n; i++)
        runs[i] = i;
    const int counts[2] = {1, all};
    double rate[2] = {0, 0};
    int rc = 0;
    if (csv)
        fprintf(out, "case,threads,runs,runs_per_s,speedup\n");
    else
        fprintf(out, "sweep throughput: %s\n%zu runs (quadratic d=100, 2000 steps each)\n"
                     "%-8s %8s %12s %10s\n", srl_sweep_command(s), n, "case", "threads",
                "runs/s", "speedup");
    /* warm-up: a tenth of the runs on all threads */
    size_t got = 0;
    if (srl_sweep_execute(s, runs, n / 10 ? n / 10 : 1, all, discard, &got, NULL, &err))
        rc = cli_sys_error("bench", "sweep benchmark: %s", err.msg);
    for (int c = 0; c < (all > 1 ? 2 : 1) && !rc; c++) {
        got = 0;
        const double t0 = cli_bench_now();
        if (srl_sweep_execute(s, runs, n, counts[c], discard, &got, NULL, &err) || got != n) {
            rc = cli_sys_error("bench", "sweep benchmark: %s", err.msg);
            break;
        }
        rate[c] = (double)n / (cli_bench_now() - t0);
        if (csv)
            fprintf(out, "sweep,%d,%zu,%.1f,%.3f\n", counts[c], n, rate[c], rate[c] / rate[0]);
        else
            fprintf(out, "%-8s %8d %12.1f %10.3f\n", "sweep", counts[c], rate[c],
                    rate[c] / rate[0]);
    }
    free(runs);
    srl_sweep_free(s);
    return rc;
}
