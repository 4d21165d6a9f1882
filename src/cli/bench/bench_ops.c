/* src/cli/bench/bench_ops.c: `srlab bench ops`: the exact operations, fast path beside the MPFR path
 * (docs/design.md §5, include/srlab/ops.h).
 *
 * For add, sub, mul, fma, div and sqrt in bf16 and fp32, with rn and sr: N_SETS operand sets of
 * values of the format (standard normal, fixed seed, rounded to nearest; the square root's operand
 * is |a|), the draws u of indices 0 .. N_SETS-1 of a fixed stream, and
 *   fast  srl_op_apply_draw  (what kernels call in their inner loops),
 *   mpfr  srl_op_mpfr_draw   (the MPFR reference path: same operands, same draws, same bits).
 * One thread. Each case is timed REPS times, fast and MPFR alternating (so a busy machine slows
 * both alike), every timing a whole number of passes over the sets lasting at least MIN_SECONDS;
 * the median is reported in millions of operations per second, with the ratio fast / mpfr.
 * The results of the two paths are also compared (they must be identical; a mismatch is reported
 * as a failure of the system, exit status 3). Speed is measured, never asserted. */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <mpfr.h>

#include "cli/bench/bench.h"
#include "cli/cli.h"
#include "srlab/ops_mpfr.h"
#include "srlab/ops.h"
#include "srlab/rounding.h"

#define N_SETS 4096
#define REPS 7
#define MIN_SECONDS 0.02

typedef struct ops_data {
    double a[N_SETS], b[N_SETS], c[N_SETS];
    uint64_t u[N_SETS];
    double y[N_SETS];
} ops_data;

typedef struct ops_case {
    srl_op op;
    const srl_format *f;
    srl_rounding m;
    const srl_rng *rng;
} ops_case;

/* One pass over the sets; returns the number of operations. The results land in d->y. */
static size_t pass_fast(const ops_case *k, ops_data *d)
{
    for (size_t i = 0; i < N_SETS; i++)
        d->y[i] = srl_op_apply_draw(k->op, d->a[i], d->b[i], d->c[i], k->f, k->m, d->u[i], k->rng,
                                    i);
    return N_SETS;
}

static size_t pass_mpfr(const ops_case *k, ops_data *d, int *st)
{
    for (size_t i = 0; i < N_SETS; i++) {
        const int s = srl_op_mpfr_draw(&d->y[i], NULL, k->op, d->a[i], d->b[i], d->c[i], k->f,
                                       k->m, d->u[i], k->rng, i);
        if (s != SRL_OK)
            *st = s;
    }
    return N_SETS;
}

/* Operations per second of one timing: whole passes until MIN_SECONDS have elapsed. */
static double time_once(const ops_case *k, ops_data *d, int mpfr, int *st)
{
    size_t n = 0;
    const double t0 = cli_bench_now();
    double dt;
    do {
        n += mpfr ? pass_mpfr(k, d, st) : pass_fast(k, d);
        dt = cli_bench_now() - t0;
    } while (dt < MIN_SECONDS);
    return (double)n / dt;
}

/* The operands (values of f: standard normal, seed 1, rounded to nearest) and the draws of
 * indices 0 .. N_SETS-1 of the stream `draws`. */
static void fill_sets(ops_data *d, const srl_format *f, const srl_rng *draws)
{
    srl_rng data;
    srl_rng_init(&data, SRL_RNG_DEFAULT, 1, 0);
    for (size_t i = 0; i < N_SETS; i++) {
        d->a[i] = srl_round(srl_rng_normal(&data), f, SRL_ROUND_RN, NULL);
        d->b[i] = srl_round(srl_rng_normal(&data), f, SRL_ROUND_RN, NULL);
        d->c[i] = srl_round(srl_rng_normal(&data), f, SRL_ROUND_RN, NULL);
        d->u[i] = srl_rng_draw_at(draws, i);
    }
}

/* The two paths must agree bit for bit (ref: room for N_SETS results). */
static int compare_paths(const ops_case *k, ops_data *d, double *ref, const char *mode)
{
    int st = SRL_OK;
    pass_mpfr(k, d, &st);
    memcpy(ref, d->y, N_SETS * sizeof *ref);
    pass_fast(k, d);
    for (size_t i = 0; i < N_SETS; i++)
        if (memcmp(&ref[i], &d->y[i], sizeof *ref) != 0 && !(isnan(ref[i]) && isnan(d->y[i])))
            return cli_sys_error("bench", "%s %s %s: fast path %a and MPFR path %a differ on "
                                 "(%a, %a, %a)", srl_op_name(k->op), k->f->name, mode, d->y[i],
                                 ref[i], d->a[i], d->b[i], d->c[i]);
    return 0;
}

/* One case: the paths compared, then timed alternately; its line (or CSV lines) on out. */
static int bench_case(FILE *out, int csv, const ops_case *k, ops_data *d, double *ref,
                      const char *mode)
{
    int rc = compare_paths(k, d, ref, mode), st = SRL_OK;
    if (rc)
        return rc;
    double tf[REPS], tm[REPS];
    for (int r = 0; r < REPS; r++) {
        tf[r] = time_once(k, d, 0, &st);
        tm[r] = time_once(k, d, 1, &st);
    }
    if (st != SRL_OK)
        return cli_sys_error("bench", "srl_op_mpfr_draw: %s", srl_strerror(st));
    const double fast = cli_bench_median(tf, REPS) / 1e6, mp = cli_bench_median(tm, REPS) / 1e6;
    const char *op = srl_op_name(k->op);
    if (csv) {
        fprintf(out, "%s,%s,%s,fast,%.3f\n", op, k->f->name, mode, fast);
        fprintf(out, "%s,%s,%s,mpfr,%.3f\n", op, k->f->name, mode, mp);
    } else {
        fprintf(out, "%-5s %-6s %-4s %12.2f %12.3f %8.1fx\n", op, k->f->name, mode, fast, mp,
                fast / mp);
    }
    return 0;
}

int cli_bench_ops(FILE *out, int csv)
{
    static const char *const fmts[] = {"bf16", "fp32"};
    static const char *const modes[] = {"rn", "sr"};
    ops_data *d = malloc(sizeof *d);
    double *ref = malloc(N_SETS * sizeof *ref);
    if (!d || !ref) {
        free(d);
        free(ref);
        return cli_sys_error("bench", "cannot allocate the operand sets");
    }
    int rc = 0;
    srl_rng draws;
    srl_rng_init(&draws, SRL_RNG_DEFAULT, 1, 11);
    if (csv)
        fprintf(out, "op,format,mode,path,mops_per_s\n");
    else
        fprintf(out,
                "exact operations on %d operand sets (values of the format: standard normal, "
                "seed 1), 1 thread, median of %d timings;\nfast = srl_op_apply_draw, mpfr = "
                "srl_op_mpfr_draw (same operands and draws, identical results)\n"
                "%-5s %-6s %-4s %12s %12s %9s\n",
                N_SETS, REPS, "op", "format", "mode", "fast Mop/s", "mpfr Mop/s", "ratio");
    for (size_t fi = 0; !rc && fi < sizeof fmts / sizeof fmts[0]; fi++) {
        const srl_format *f = srl_format_find(fmts[fi]);
        fill_sets(d, f, &draws);
        for (int op = 0; !rc && op < SRL_OP_COUNT; op++) {
            if (op == SRL_SQRT)
                for (size_t i = 0; i < N_SETS; i++)
                    d->a[i] = fabs(d->a[i]);
            for (size_t mi = 0; !rc && mi < sizeof modes / sizeof modes[0]; mi++) {
                srl_rounding m;
                srl_err err;
                if (srl_rounding_parse(&m, modes[mi], &err) != SRL_OK) {
                    rc = cli_error("bench", "%s", err.msg);
                    break;
                }
                const ops_case k = {(srl_op)op, f, m, &draws};
                rc = bench_case(out, csv, &k, d, ref, modes[mi]);
            }
        }
    }
    free(d);
    free(ref);
    return rc;
}
