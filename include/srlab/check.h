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
 * defect (srl_check_bug) is small and realistic: sr deciding with 8 random bits, a tie broken
 * away from zero, one draw shared by two elements... A check's experiment reaches the rounding
 * through a table of functions (src/check/bugs.c); with opts.bug set, the table holds a wrong
 * variant written in src/check, so the defect lives only inside the check's experiment, never
 * in the library. srl_check.bugs says which defects reach a check's experiment; each defect must
 * make at least one check FAIL (tests/check asserts it).
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

/* The realistic defects of `srlab check --mutate bug` (above). */
typedef enum srl_check_bug {
    SRL_CHECK_BUG_NONE = 0,
    SRL_CHECK_BUG_SR8,       /* sr decides with 8 random bits instead of the exact comparison */
    SRL_CHECK_BUG_SR_LE,     /* sr rounds away from zero when U <= f instead of U < f */
    SRL_CHECK_BUG_TIES_AWAY, /* rn breaks ties away from zero instead of to even */
    SRL_CHECK_BUG_DRAW_HALF, /* element i of an array reuses draw i/2 */
    SRL_CHECK_BUG_SUBNORMAL, /* fp16's subnormal spacing off by a factor 2 (2^-23, not 2^-24) */
    SRL_CHECK_BUG_SR12,      /* the seed paper's sr:r=16 write done with 12 random bits */
    SRL_CHECK_BUG_ADAM_EPS,  /* Adam divides by sqrt(v + eps) instead of sqrt(v) + eps */
    SRL_CHECK_BUG_REPLICA_STREAM, /* replicas' shared SR streams differ by the replica index */
    SRL_CHECK_BUG_COUNT
} srl_check_bug;

/* The defect's short name ("sr8") and what it does (one line); NULL out of range. */
const char *srl_check_bug_name(srl_check_bug b);
const char *srl_check_bug_text(srl_check_bug b);
/* The mask bit of defect b in srl_check.bugs. */
#define SRL_CHECK_BUG_BIT(b) (1u << (unsigned)(b))

typedef struct srl_check_opts {
    bool quick;                  /* the sizes of `srlab check --quick` */
    uint64_t seeds;              /* number of seeds of the statistical checks; 0: the
                                    check's default (quick or full) */
    srl_check_mutation mutation; /* SRL_CHECK_MUT_NONE except in tests */
    srl_check_bug bug;           /* SRL_CHECK_BUG_NONE except in tests (with mutation NONE) */
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
    unsigned bugs;   /* SRL_CHECK_BUG_BIT of each defect that reaches the experiment */
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
 * a bug). A mutation c does not document, or a c not from the catalogue, is SRL_EINVAL. */
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
