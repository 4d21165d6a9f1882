/* src/cli/bench/bench.h: the measurements behind `srlab bench` (one file each: bench_round.c,
 * bench_ops.c, bench_kernels.c, bench_train.c). Each prints a human table, or CSV with csv != 0,
 * on `out`, times every case against a reference run in the same process (memcpy, native
 * float, the MPFR path) and returns 0 or an exit status. Speed is measured, never asserted. */
#ifndef SRL_CLI_BENCH_H
#define SRL_CLI_BENCH_H

#include <stddef.h>
#include <stdio.h>

int cli_bench_round(FILE *out, int csv);
int cli_bench_ops(FILE *out, int csv);
int cli_bench_kernels(FILE *out, int csv);
int cli_bench_train(FILE *out, int csv);
int cli_bench_sweep(FILE *out, int csv); /* bench_sweep.c: sweep runs per second, 1 and all threads */
int cli_bench_gpt(FILE *out, int csv); /* bench_gpt.c: GPT tokens per second per strategy */

/* Seconds on a monotonic clock (bench_time.c). */
double cli_bench_now(void);
/* The median of v[0..n-1], n > 0 (the upper one for even n); sorts v. */
double cli_bench_median(double *v, size_t n);

#endif
