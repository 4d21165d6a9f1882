/* src/check/check_impl.h: what the check files (src/check/) share (private to the library).
 *
 *   results     srl__chk_result_begin (id and what), srl__chk_result_set (kind and numbers,
 *               then judged)
 *   sizes       srl__chk_seeds: the number of seeds of a statistical check from the options
 *   statistics  means and variances of per-seed values, Student t and normal quantiles
 *   runs        one run of a registered runner through srl_run into memory (srl__chk_rows), with an
 *               optional per-step hook for the convex problems (src/problems/convex.h)
 *   parallel    srl__chk_parallel: independent seeds over OpenMP threads, each into its own slot,
 *               so results cannot depend on the thread count
 *   training    srl__chk_job: a training runner over seeds, each seed reduced to a few numbers
 *   defects     srl__chk_defect: switch a built-in defect on (src/check/bugs.c, `srlab check
 *               --mutate bug`)
 *   rows        the catalogue's row (srl__chk_row: the public srl_check, the function, its
 *               parameters) and every check function, declared here by file; the table is in
 *               src/check/catalogue.c */
#ifndef SRL_CHECK_IMPL_H
#define SRL_CHECK_IMPL_H

#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "srlab/check.h"
#include "srlab/optim.h"
#include "srlab/rounding.h"
#include "srlab/run.h"

/* ---- results ---- */

/* Start a result: id, what (printf-style), every number NaN, pass false. */
void srl__chk_result_begin(srl_check_result *r, const char *id, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
/* Append text to what. */
void srl__chk_result_what(srl_check_result *r, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));
/* Keep in *out the result with the smallest margin so far (the first on ties; a NaN margin is
 * the worst): the check of several comparisons reports its worst. *have: *out holds one. */
void srl__chk_keep_worst(srl_check_result *out, const srl_check_result *cand, bool *have);
/* Set the comparison and judge it (srl_check_judge). */
void srl__chk_result_set(srl_check_result *r, srl_check_kind kind, double measured, double lo,
                         double hi, double predicted);

/* The number of seeds of a statistical check: o->seeds if set, else quick or full. */
uint64_t srl__chk_seeds(const srl_check_opts *o, uint64_t quick, uint64_t full);

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

/* ---- the built-in defects (src/check/bugs.c) ---- */

/* Switch defect b on (0: off) in the library's paths (src/core/mutant.h; a build without the
 * defects ignores it). srl_check_run calls it around a run. */
void srl__chk_defect(unsigned b);

/* ---- training runs over seeds (src/check/train_runs.c) ---- */

/* The unit roundoff of binary32, the update arithmetic of the fp32 strategies: the training
 * checks' deterministic tolerances are multiples of it. */
#define SRL__CHK_U32 0x1p-24

/* bf16, the weight format of the training checks. */
const srl_format *srl__chk_bf16(void);

/* Runs of a training runner over seeds 1 .. N, the runs of each seed (one config, or two paired
 * on the same seed) reduced to nout numbers for that seed. */
typedef struct srl__chk_job srl__chk_job;
/* rows[0 .. nkv-1]: the runs of the configs kv[] on one seed; out: the nout values of the seed */
typedef int (*srl__chk_job_reduce)(const srl__chk_job *j, uint64_t seed,
                                   const srl__chk_rows *rows, double *out, srl_err *err);
struct srl__chk_job {
    const char *problem;
    srl__chk_kv kv[2];
    int nkv;
    size_t nout;
    double *out; /* N x nout after srl__chk_job_run, which allocates it; the caller frees it */
    srl__chk_job_reduce reduce;
    const void *ctx; /* what reduce needs besides the rows */
};
/* A job of nkv configs (their kv[] emptied, to be set by the caller) on problem, nout values per
 * seed. */
void srl__chk_job_init(srl__chk_job *j, const char *problem, int nkv, size_t nout,
                       srl__chk_job_reduce reduce, const void *ctx);
/* Run seeds 1 .. N in parallel; on failure j->out is freed and NULL. */
int srl__chk_job_run(srl__chk_job *j, uint64_t N, srl_err *err);
/* Column k of the per-seed outputs, copied into a fresh array (NULL on failure). */
double *srl__chk_job_col(const srl__chk_job *j, uint64_t N, size_t k);
/* The average of column `name` over the rows with step > burn. */
double srl__chk_late_mean(const srl__chk_rows *r, const char *name, double burn);

/* ---- the catalogue's rows (src/check/catalogue.c) ---- */

/* The parameters of a check function that serves several rows; a row of one function names the
 * member it uses. */
typedef union srl__chk_params {
    bool matvec; /* srl__chk_rn_bound, srl__chk_sr_bound: y = A x rather than a sum */
    struct {
        char stat; /* 'v' the path-variance identity, 'm' the mean, 'i' mean independence */
        bool dot;  /* inner products (T04) rather than sums (T03) */
    } paths;       /* srl__chk_sr_paths */
    struct {
        const char *format, *other; /* the format summed in, and the prediction's mutation */
        uint64_t n;                 /* terms */
    } harmonic;                     /* srl__chk_harmonic_rn */
    double lr;                      /* srl__chk_gd_sr_floor */
    double beta1;                   /* srl__chk_adam_rn_moves */
    struct {
        const char *opt; /* "sgd" (T06) or "adam" (T10) */
        double lr;
        double beta1;    /* Adam's */
        char mut;        /* the prediction mutation: 'q' ulp^2/4 in place of v(r) ulp^2, 'r' the
                            large-r form ulp^2/6 (T06c), 'b' the beta1 = 0 formula (T10g) */
    } penalty;           /* srl__chk_sr_penalty */
    struct {
        const char *strategy;
        size_t bytes; /* the T13 table's bytes per parameter with AdamW */
    } memory;         /* srl__chk_memory */
    bool pairwise;    /* srl__chk_sum_var_bound: the pairwise order rather than recursive;
                         srl__chk_t18_clip: the 3/4 rule (T18c) rather than ocp (T18b);
                         srl__chk_t18_fixed_rot: rn (T18g) rather than sr (T18f) */
} srl__chk_params;

typedef struct srl__chk_row srl__chk_row;

/* A check function: run the experiment of row (its id names the result and, where said, the
 * random streams; its params the variant) under the options, into *out. srl_check_run calls it
 * only with a mutation the row documents. */
typedef int (*srl__chk_fn)(srl_check_result *out, const srl__chk_row *row,
                           const srl_check_opts *o, srl_err *err);

/* One row of the catalogue: what `srlab check --list` shows, the function, its parameters. */
struct srl__chk_row {
    srl_check check; /* the public part: srl_check_at returns its address */
    srl__chk_fn run;
    srl__chk_params params;
};

#define SRL__CHK_FN(name)                                                                          \
    int name(srl_check_result *out, const srl__chk_row *row, const srl_check_opts *o, srl_err *err)

/* src/check/round.c: single roundings */
SRL__CHK_FN(srl__chk_sr_mean);                /* T01a */
SRL__CHK_FN(srl__chk_sr_variance);            /* T01b */
SRL__CHK_FN(srl__chk_rn_error_bound);         /* T01c */
SRL__CHK_FN(srl__chk_sr_error_bound);         /* T01d */
SRL__CHK_FN(srl__chk_sr_pairs);               /* T01e */
SRL__CHK_FN(srl__chk_sr_bits_bias);           /* T02a */
SRL__CHK_FN(srl__chk_sr16_unbiased);          /* T02b */
SRL__CHK_FN(srl__chk_quartic_shift);          /* T11b */
/* src/check/probe.c: probes of the library's paths against the definitions */
SRL__CHK_FN(srl__chk_probe_paths);            /* T01f */
SRL__CHK_FN(srl__chk_probe_write);            /* T02c */
SRL__CHK_FN(srl__chk_probe_step);             /* T10f */
SRL__CHK_FN(srl__chk_probe_kahan);            /* T16c */
/* src/check/sum.c: sums and matrix-vector products */
SRL__CHK_FN(srl__chk_rn_bound);               /* T03a, T04a */
SRL__CHK_FN(srl__chk_sr_bound);               /* T03b, T04b */
SRL__CHK_FN(srl__chk_harmonic_rn);            /* T03c-e */
SRL__CHK_FN(srl__chk_harmonic_sr);            /* T03f */
SRL__CHK_FN(srl__chk_sr_paths);               /* T03g-i, T04c-e */
SRL__CHK_FN(srl__chk_sr_slope);               /* T03j */
/* src/check/t05_gd.c: gradient descent on a quadratic */
SRL__CHK_FN(srl__chk_gd_stall_band);          /* T05a */
SRL__CHK_FN(srl__chk_gd_stall_point);         /* T05b */
SRL__CHK_FN(srl__chk_gd_sr_mean);             /* T05c */
SRL__CHK_FN(srl__chk_gd_sr_floor);            /* T05d, T05e */
/* src/check/t06_penalty.c: the relative SR penalty of SGD and Adam */
SRL__CHK_FN(srl__chk_sr_penalty);             /* T06a, T06b, T10a, T10b */
/* src/check/t07_walk.c: the SR random walk */
SRL__CHK_FN(srl__chk_walk_moves);             /* T07a */
SRL__CHK_FN(srl__chk_walk_cover);             /* T07b */
/* src/check/t08_decay.c: weight decay */
SRL__CHK_FN(srl__chk_decay_rn_lost);          /* T08a */
SRL__CHK_FN(srl__chk_decay_lost_fraction);    /* T08b */
SRL__CHK_FN(srl__chk_decay_sr_mean);          /* T08c */
/* src/check/t09_moment.c: Adam's second moment under RN */
SRL__CHK_FN(srl__chk_moment_no_decrease);     /* T09a */
SRL__CHK_FN(srl__chk_moment_rise);            /* T09b */
/* src/check/t10_freeze.c: Adam frozen, or moving with a bias, under RN */
SRL__CHK_FN(srl__chk_adam_rn_freeze);         /* T10c */
SRL__CHK_FN(srl__chk_adam_rn_moves);          /* T10d, T10e */
/* src/check/t10_bound.c: the rounding term of T10's bound, step by step */
SRL__CHK_FN(srl__chk_adam_bound_term);        /* T10h */
/* src/check/t11_trajectory.c: the mean SR trajectory */
SRL__CHK_FN(srl__chk_sr_trajectory);          /* T11a */
/* src/check/t11_shift.c: the mean SR trajectory's shift and spread on x^4/4 */
SRL__CHK_FN(srl__chk_quartic_trajectory);     /* T11c */
SRL__CHK_FN(srl__chk_quartic_variance);       /* T11d */
/* src/check/t12_replicas.c: data-parallel replicas */
SRL__CHK_FN(srl__chk_replicas_shared);        /* T12a */
SRL__CHK_FN(srl__chk_replicas_drift);         /* T12b */
SRL__CHK_FN(srl__chk_replicas_decay);         /* T12c */
/* src/check/t13_memory.c: bytes per parameter */
SRL__CHK_FN(srl__chk_memory);                 /* T13a-f */
/* src/check/t14_srrn.c: SR against RN with gradient noise */
SRL__CHK_FN(srl__chk_t14_dither);             /* T14a */
SRL__CHK_FN(srl__chk_t14_rn_edge);            /* T14b */
SRL__CHK_FN(srl__chk_t14_rn_frozen);          /* T14c */
SRL__CHK_FN(srl__chk_t14_sr_plateau);         /* T14d */
SRL__CHK_FN(srl__chk_t14_crossover);          /* T14e */
/* src/check/t15_17_literature.c: statements from the literature */
SRL__CHK_FN(srl__chk_heat_sr_slope);          /* T15a */
SRL__CHK_FN(srl__chk_heat_sr_bound);          /* T15b */
SRL__CHK_FN(srl__chk_heat_rn_frozen);         /* T15c */
SRL__CHK_FN(srl__chk_heat_rn_passes);         /* T15d */
SRL__CHK_FN(srl__chk_kahan_rn);               /* T16a */
SRL__CHK_FN(srl__chk_kahan_sr);               /* T16b */
SRL__CHK_FN(srl__chk_plain_sr);               /* T16d */
SRL__CHK_FN(srl__chk_sum_var_bound);          /* T17a, T17b */
SRL__CHK_FN(srl__chk_sum_chebyshev);          /* T17c */
/* src/check/t18_block.c: SR with a shared block scale */
SRL__CHK_FN(srl__chk_t18_unbiased);           /* T18a */
SRL__CHK_FN(srl__chk_t18_clip);               /* T18b, T18c */
SRL__CHK_FN(srl__chk_t18_dot_var);            /* T18d */
SRL__CHK_FN(srl__chk_t18_rht_bound);          /* T18e */
SRL__CHK_FN(srl__chk_t18_fixed_rot);          /* T18f, T18g */

#endif
