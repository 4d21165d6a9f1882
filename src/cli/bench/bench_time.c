/* src/cli/bench/bench_time.c: the clock and the median every benchmark of `srlab bench` uses
 * (src/cli/bench/bench.h). */
#include <stdlib.h>

#include "cli/bench/bench.h"
#include "cli/host.h"

double cli_bench_now(void)
{
    return cli_host_now();
}

static int cmp_double(const void *a, const void *b)
{
    const double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

double cli_bench_median(double *v, size_t n)
{
    qsort(v, n, sizeof *v, cmp_double);
    return v[n / 2];
}
