/* src/check/check_impl.h: what the check files (src/check_*.c) share (private to the library).
 *
 *   results     srl__chk_result_begin (id and what), srl__chk_result_set (kind and numbers,
 *               then judged)
 *   sizes       srl__chk_seeds: the number of seeds of a statistical check from the options
 *   statistics  means and variances of per-seed values, Student t and normal quantiles
 *   runs        one run of a registered runner through srl_run into memory (srl__chk_rows), with an
 *               optional per-step hook for the convex problems (src/problems/convex.h)
 *   parallel    srl__chk_parallel: independent seeds over OpenMP threads, each into its own slot,
 *               so results cannot depend on the thread count
 * Every check function has the signature of srl_check.run and is declared here; the table is
 * in src/check/check.c. */
#ifndef SRL_CHECK_IMPL_H
#define SRL_CHECK_IMPL_H

#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "srlab/check.h"
#include "srlab/optim.h"
#include "srlab/run.h"

/* ---- results ---- */

/* Start a result: id, what (printf-style), every number NaN, pass false. */
void srl__chk_result_begin(srl_check_result *r, const char *id, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
/* Append text to what. */
void srl__chk_result_what(srl_check_result *r, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));
/* Set the comparison and judge it (srl_check_judge). */
void srl__chk_result_set(srl_check_result *r, srl_check_kind kind, double measured, double lo,
                         double hi, double predicted);

/* The number of seeds of a statistical check: o->seeds if set, else quick or full. */
uint64_t srl__chk_seeds(const srl_check_opts *o, uint64_t quick, uint64_t full);

/* A mutation the check does not document. */
int srl__chk_no_mutation(const srl_check_opts *o, srl_err *err);

/* ---- statistics ---- */

/* Mean and sample variance (n - 1 denominator; 0 for n < 2) of x[0..n), two-pass. */
void srl__chk_mean_var(double *mean, double *var, const double *x, size_t n);
/* The two-sided quantile z with P(|Z| > z) = alpha, Z standard normal. */
double srl__chk_z(double alpha);
/* The two-sided Student t quantile with P(|T| > t) = alpha, df degrees of freedom. */
double srl__chk_t(double alpha, double df);

/* ---- runs ---- */

/* Keys and values of a run config, built with printf-style values. */
#define SRL__CHK_KV_MAX 40
typedef struct srl__chk_kv {
    size_t n;
    bool overflow; /* a key did not fit: srl__chk_run refuses the config */
    char key[SRL__CHK_KV_MAX][32];
    char val[SRL__CHK_KV_MAX][96];
} srl__chk_kv;
void srl__chk_kv_init(srl__chk_kv *kv);
/* Set (or replace) key; a value that does not fit (truncated) also sets overflow. */
void srl__chk_kv_set(srl__chk_kv *kv, const char *key, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

/* The rows of one run, numeric columns as doubles (integers converted; string columns: 0 when
 * the text is "ok", 1 otherwise, so `status` reads as "diverged?"). */
typedef struct srl__chk_rows {
    size_t ncol, n, cap;
    char (*names)[48];
    double *v; /* n x ncol */
} srl__chk_rows;
void srl__chk_rows_free(srl__chk_rows *r); /* NULL-safe; leaves r empty */
/* Column index of name, or -1. */
int srl__chk_col_index(const srl__chk_rows *r, const char *name);
/* Value of column `name` in row `row` (NaN when the column is absent). */
double srl__chk_col(const srl__chk_rows *r, size_t row, const char *name);
/* The last row's value of column name. */
double srl__chk_last(const srl__chk_rows *r, const char *name);

typedef int (*srl__chk_inspect_fn)(void *arg, const srl_weights *W, uint64_t t,
                                   const srl_step_stats *st);

/* Run problem `problem` of `kind` with the keys of kv and seed `seed` into *rows (which the
 * caller frees; rows may be NULL to discard them). With inspect (convex training problems
 * only), the hook sees the weights after every step. A diverged run is an error here: no
 * check's experiment diverges when the library is right. */
int srl__chk_run(srl__chk_rows *rows, srl_run_kind kind, const char *problem, const srl__chk_kv *kv,
                 uint64_t seed, srl__chk_inspect_fn inspect, void *arg, srl_err *err);

/* ---- parallel seeds ---- */

/* Call fn(ctx, i, err) for i = 0 .. n-1, OpenMP threads over i (nested parallelism off, as
 * srlab sweep does). fn writes its result into slot i of its own arrays. Returns SRL_OK, or
 * the status and message of the failing call with the smallest i. */
typedef int (*srl__chk_item_fn)(void *ctx, size_t i, srl_err *err);
int srl__chk_parallel(size_t n, srl__chk_item_fn fn, void *ctx, srl_err *err);

/* ---- the checks (src/check/round.c, src/check/sum.c, src/check/train.c) ---- */
#define SRL__CHK_DECLARE(name)                                                                     \
    int name(srl_check_result *out, const srl_check_opts *o, srl_err *err)
SRL__CHK_DECLARE(srl__chk_t01a);
SRL__CHK_DECLARE(srl__chk_t01b);
SRL__CHK_DECLARE(srl__chk_t01c);
SRL__CHK_DECLARE(srl__chk_t01d);
SRL__CHK_DECLARE(srl__chk_t02a);
SRL__CHK_DECLARE(srl__chk_t02b);
SRL__CHK_DECLARE(srl__chk_t03a);
SRL__CHK_DECLARE(srl__chk_t03b);
SRL__CHK_DECLARE(srl__chk_t03c);
SRL__CHK_DECLARE(srl__chk_t03d);
SRL__CHK_DECLARE(srl__chk_t03e);
SRL__CHK_DECLARE(srl__chk_t03f);
SRL__CHK_DECLARE(srl__chk_t04a);
SRL__CHK_DECLARE(srl__chk_t04b);
SRL__CHK_DECLARE(srl__chk_t05a);
SRL__CHK_DECLARE(srl__chk_t05b);
SRL__CHK_DECLARE(srl__chk_t05c);
SRL__CHK_DECLARE(srl__chk_t05d);
SRL__CHK_DECLARE(srl__chk_t05e);
SRL__CHK_DECLARE(srl__chk_t06a);
SRL__CHK_DECLARE(srl__chk_t06b);
SRL__CHK_DECLARE(srl__chk_t07a);
SRL__CHK_DECLARE(srl__chk_t07b);
SRL__CHK_DECLARE(srl__chk_t08a);
SRL__CHK_DECLARE(srl__chk_t08b);
SRL__CHK_DECLARE(srl__chk_t08c);
SRL__CHK_DECLARE(srl__chk_t09a);
SRL__CHK_DECLARE(srl__chk_t09b);
SRL__CHK_DECLARE(srl__chk_t10a);
SRL__CHK_DECLARE(srl__chk_t10b);
SRL__CHK_DECLARE(srl__chk_t10c);
SRL__CHK_DECLARE(srl__chk_t11a);
SRL__CHK_DECLARE(srl__chk_t11b);
SRL__CHK_DECLARE(srl__chk_t12a);
SRL__CHK_DECLARE(srl__chk_t12b);
SRL__CHK_DECLARE(srl__chk_t13a);
SRL__CHK_DECLARE(srl__chk_t13b);
SRL__CHK_DECLARE(srl__chk_t13c);
SRL__CHK_DECLARE(srl__chk_t13d);
SRL__CHK_DECLARE(srl__chk_t13e);
SRL__CHK_DECLARE(srl__chk_t13f);

#endif
