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
 * Realistic defects (`srlab check --mutate bug`). The mutations above are large on purpose; a
 * defect is small and realistic (sr deciding with 8 random bits, a tie broken away from zero, one
 * draw shared by two elements, Adam's eps inside the square root...) and lives in the library's
 * own code: the rounding decision's scalar and lane copies, the bulk kernels, the bf16 writes,
 * the tensor writes, the optimizers, the matrix product's engines, the replicas' streams. Only a
 * build configured with `meson setup -Dmutants=true` has them (theory/README.md, "Built-in
 * defects"); there opts.bug switches defect opts.bug on for the duration of srl_check_run, so a
 * check's experiment runs the same code paths a real bug would be in. Any check may catch any
 * defect; `srlab check --mutate bug` runs each defect against the checks until one FAILs and
 * names it. A build without them refuses opts.bug != 0 (SRL_ENOTSUP).
 *
 * Two bases of a verdict (srl_check.basis):
 *   statistical  the measurement is an estimate from a sample (seeds, draws): the check has a
 *                confidence level and a minimum detectable effect;
 *   probe        the measurement is deterministic: a run without randomness, or inputs and draws
 *                chosen so that the outcome of a defect is fixed (an input whose fraction equals
 *                its element's draw, a tie, the last spacing below a power of two...); it FAILs
 *                on any defect that changes one result, however rare at random.
 *
 * Power. srl_check.mde states, for the sizes of the full check, the check's minimum detectable
 * effect: the smallest deviation of the measured quantity from the prediction that makes the
 * check FAIL with probability >= 0.99 (theory/TNN-*.md derive each). srl_check_result.mde is the
 * same quantity computed from the interval of the run (srl_check_mde).
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
    double mde;          /* the minimum detectable effect of this run (srl_check_mde) */
    bool pass;
} srl_check_result;

/* The realistic defects of `srlab check --mutate bug` (above), numbered 1 .. srl_check_bug_count()
 * (0: none); the list is the same in every build. */
unsigned srl_check_bug_count(void);
/* Defect b's short name ("sr8") and what it does (one line); NULL out of range (and for 0). */
const char *srl_check_bug_name(unsigned b);
const char *srl_check_bug_text(unsigned b);
/* The defect named `name` (case-sensitive), or 0. */
unsigned srl_check_bug_find(const char *name);
/* Does this build have the defects (-Dmutants=true)? */
bool srl_check_bugs_built(void);

/* The basis of a check's verdict (above). */
typedef enum srl_check_basis { SRL_CHECK_STATISTICAL = 0, SRL_CHECK_PROBE } srl_check_basis;

typedef struct srl_check_opts {
    bool quick;                  /* the sizes of `srlab check --quick` */
    uint64_t seeds;              /* number of seeds of the statistical checks; 0: the
                                    check's default (quick or full) */
    srl_check_mutation mutation; /* SRL_CHECK_MUT_NONE except in tests */
    unsigned bug; /* 0, or the defect to switch on (a build with them only; mutation NONE) */
} srl_check_opts;

/* One check of the catalogue, as `srlab check --list` shows it; run it with srl_check_run
 * (only the catalogue's own entries run: the experiment behind each is private). */
typedef struct srl_check {
    const char *id;                            /* "T03b" */
    const char *statement;                     /* "T03" (theory/T03-*.md) */
    const char *title;                         /* one line */
    const char *mutation[SRL_CHECK_MUT_COUNT]; /* [EXPERIMENT], [PREDICTION]: what the mutation
                                                  does, or NULL ([NONE] is always NULL) */
    const char *mde; /* the minimum detectable effect at the full sizes, with its unit (every
                        row states one: tests/check fails on a NULL) */
    srl_check_basis basis; /* statistical or probe (above) */
} srl_check;

/* The catalogue in order (T01a, T01b, ..., the last statement's checks). */
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
 * a bug; under a defect, the defect may be what stopped it). A mutation c does not document, a
 * defect number out of range or a c not from the catalogue is SRL_EINVAL; a defect in a build
 * without them SRL_ENOTSUP. Not thread-safe under a defect (the switch is global). */
int srl_check_run(srl_check_result *out, const srl_check *c, const srl_check_opts *o,
                  srl_err *err) SRL_WUR;

/* Fill the margin and the verdict of r from its kind and its numbers (the rules above). The
 * checks call it; exposed for tests and for tools that rebuild results. */
void srl_check_judge(srl_check_result *r);

/* The minimum detectable effect of a judged result, in the unit of `measured`: interval, a
 * shift of the measurement by more than the half-width h on the prediction's far side plus
 * z_0.99 standard errors (at most h (1 + z_0.99 / z), z the two-sided normal quantile of
 * SRL_CHECK_ALPHA: the tolerance counts as statistical, so this errs on the large side);
 * estimated bound, the distance to the bound plus the same allowance for the lower limit;
 * band and deterministic bound, the distance from the measurement to the nearer edge the
 * deviation would cross (the larger of the two for a band); exact, 0 (any change). NaN when
 * the result has a NaN. */
double srl_check_mde(const srl_check_result *r);

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
