/* srlab/check.h: `srlab check`: every statement of theory/ tested by running its experiment and
 * comparing the measurement with the prediction (docs/design.md §9).
 *
 * A check is one comparison: an id (T03b: statement T03, its second check), what is measured,
 * the measured value with an interval, the predicted value or bound, a margin and a verdict.
 * The statements, their derivations, experiments and tolerances are in theory/TNN-*.md; each
 * check function cites the file and the step it implements (src/check/, one table of checks in
 * src/check/catalogue.c).
 *
 * Kinds of comparison (the margin and the verdict follow from the kind):
 *   interval  the prediction must lie in [ci_lo, ci_hi], the measured value's confidence
 *             interval at the check's level (below), widened by the deterministic tolerance the
 *             theory file derives (binary32 arithmetic, a known model error). margin is the
 *             fraction of the interval's half on the prediction's side that is left:
 *             1 when predicted == measured, 0 on the edge, negative outside.
 *   bound     the measured value must not exceed the predicted bound. For a deterministic
 *             quantity ci_lo = ci_hi = measured; for an estimated one (a frequency, a mean),
 *             ci_lo is the lower confidence limit and the check fails only when even ci_lo
 *             exceeds the bound. margin = 1 - ci_lo / predicted (0 on the bound).
 *   band      a deterministic measured value must lie in a predicted band [lo, hi]; predicted is
 *             the value the formula gives and what names the band. margin as for interval,
 *             with the band in place of the confidence interval.
 *   exact     measured == predicted (integers, grid values, exact computations). margin 0 when
 *             equal, else minus the relative difference.
 * In every kind pass == (margin >= 0) and a NaN anywhere fails.
 *
 * Statistics. Each check's level is 1 - SRL_CHECK_ALPHA: a correct implementation fails a
 * statistical check, for a random choice of seeds, with probability at most SRL_CHECK_ALPHA
 * (Bonferroni across the comparisons inside one check). Seeds are fixed (1 .. N, or named in the
 * `what` text), so a verdict is repeatable bit for bit, on any machine and any thread count:
 * OpenMP runs independent seeds in parallel, each writing its own slot, and every statistic is
 * reduced serially in seed order. The thresholds come from the statistic's exact or limiting
 * law (Clopper-Pearson for frequencies, Student t for means of independent seeds, chi-square for
 * variances), evaluated with GSL, never chosen to make a check pass.
 *
 * Mutations. To prove that every check can fail, a check runs a documented mutation when asked:
 *   SRL_CHECK_MUT_EXPERIMENT  the experiment altered (sr swapped for rn, a truncated sr:r=R, a
 *                             coarser format, a different optimizer...) with the prediction
 *                             unchanged;
 *   SRL_CHECK_MUT_PREDICTION  the predicted constant perturbed (a factor, one bit of precision
 *                             more, a missing term) with the experiment unchanged.
 * srl_check.mutation[k] says what mutation k does, or is NULL when the check has none of that
 * kind; every check has at least one. tests/check asserts that each one FAILs.
 *
 * Nothing here prints or exits; results are values. */
#ifndef SRLAB_CHECK_H
#define SRLAB_CHECK_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "srlab/common.h"

#ifdef __cplusplus
extern "C" {
#endif

/* The family-wise false-alarm probability of one check. */
#define SRL_CHECK_ALPHA 1e-6

#define SRL_CHECK_ID_LEN 8
#define SRL_CHECK_WHAT_LEN 320

typedef enum srl_check_kind {
    SRL_CHECK_INTERVAL = 0,
    SRL_CHECK_BOUND,
    SRL_CHECK_BAND,
    SRL_CHECK_EXACT
} srl_check_kind;

typedef enum srl_check_mutation {
    SRL_CHECK_MUT_NONE = 0,
    SRL_CHECK_MUT_EXPERIMENT,
    SRL_CHECK_MUT_PREDICTION,
    SRL_CHECK_MUT_COUNT
} srl_check_mutation;

/* The result of one check: the row `srlab check` prints and writes as CSV
 * (id,what,measured,ci_lo,ci_hi,predicted,margin,result). */
typedef struct srl_check_result {
    char id[SRL_CHECK_ID_LEN];     /* "T03b" */
    char what[SRL_CHECK_WHAT_LEN]; /* what is measured, on what, with which seeds */
    srl_check_kind kind;
    double measured;
    double ci_lo, ci_hi; /* the interval (see the kinds above) */
    double predicted;    /* the predicted value or bound */
    double margin;       /* >= 0 iff pass (see the kinds above) */
    bool pass;
} srl_check_result;

typedef struct srl_check_opts {
    bool quick;                  /* the sizes of `srlab check --quick` */
    uint64_t seeds;              /* number of seeds of the statistical checks; 0: the
                                    check's default (quick or full) */
    srl_check_mutation mutation; /* SRL_CHECK_MUT_NONE except in tests */
} srl_check_opts;

/* One check of the catalogue, as `srlab check --list` shows it; run it with srl_check_run
 * (only the catalogue's own entries run: the experiment behind each is private). */
typedef struct srl_check {
    const char *id;                            /* "T03b" */
    const char *statement;                     /* "T03" (theory/T03-*.md) */
    const char *title;                         /* one line */
    const char *mutation[SRL_CHECK_MUT_COUNT]; /* [EXPERIMENT], [PREDICTION]: what the mutation
                                                  does, or NULL ([NONE] is always NULL) */
} srl_check;

/* The catalogue in order (T01a, T01b, ..., T13f). */
size_t srl_check_count(void);
const srl_check *srl_check_at(size_t i);
/* The check with this id (case-insensitive: "t03b"), or NULL. */
const srl_check *srl_check_find(const char *id);
/* Does `name` select check c: its id, or its statement ("T03" selects T03a..T03f)?
 * Case-insensitive. */
bool srl_check_selects(const char *name, const srl_check *c);

/* Run check c (an entry of the catalogue: srl_check_at, srl_check_find): fills *out (always: on
 * error its id and what are set, pass is false) and returns SRL_OK, or an error status with a
 * message in err when the experiment could not run (out of memory, a runner refused its config:
 * a bug). A mutation c does not document, or a c not from the catalogue, is SRL_EINVAL. */
int srl_check_run(srl_check_result *out, const srl_check *c, const srl_check_opts *o,
                  srl_err *err) SRL_WUR;

/* Fill the margin and the verdict of r from its kind and its numbers (the rules above). The
 * checks call it; exposed for tests and for tools that rebuild results. */
void srl_check_judge(srl_check_result *r);

/* ---- statistics (exposed for tests) ---- */

/* Two-sided Clopper-Pearson interval of a binomial proportion at level 1 - alpha: k successes
 * in n trials (0 <= k <= n, n >= 1). Exact: bisection on the binomial tails, summed in log
 * space (no incomplete beta function, which loses accuracy for n in the millions). */
void srl_check_clopper_pearson(double *lo, double *hi, uint64_t k, uint64_t n, double alpha);

/* The upper tail P(X >= k) and the lower tail P(X <= k) of X ~ Binomial(n, p). */
double srl_check_binom_upper(uint64_t k, uint64_t n, double p);
double srl_check_binom_lower(uint64_t k, uint64_t n, double p);

#ifdef __cplusplus
}
#endif
#endif
