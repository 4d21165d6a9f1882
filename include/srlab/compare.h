/* srlab/compare.h: paired comparisons of a sweep's runs, with a multiple-comparison correction
 * and the smallest difference each comparison could have detected.
 *
 * The input is a runs file of srlab sweep (one row per run: `run`, the axis columns, `seed`,
 * then per-run values such as final_loss or final_val_loss; include/srlab/sweep.h, "Files").
 * One axis (`strategy`, say) is compared: every other level of it against a baseline level
 * (`mp`), at every grid point of the remaining axes (each learning rate, say), run by run with
 * the same seed: a seed fixes the data, the initialisation and every random stream but the
 * compared setting's own, so the paired difference d_s = metric(level, s) - metric(baseline, s)
 * removes the seed-to-seed spread the two runs share.
 *
 * Which columns make a grid point: an axis column that varies in the file, other than the
 * compared axis and other than a column the compared axis determines (one value per level,
 * like `format` and `rounding` under `strategy`). Rows whose metric is not a finite number
 * (a diverged run) leave their seed unpaired; the row counts them.
 *
 * Per comparison (n pairs, n >= 2): mean difference dbar, sample standard deviation sd,
 * standard error se = sd/sqrt(n), t = dbar/se on n - 1 degrees of freedom, two-sided p
 * (Student t, GSL). Over the m comparisons of the file the p values are adjusted by Holm's
 * step-down method, which controls the family-wise error rate at alpha: sort p ascending,
 * p_holm(i) = max over j <= i of min(1, (m - j + 1) p(j)). A comparison is resolved when
 * p_holm < alpha. Its minimum detectable difference is the |dbar| that a two-sided test at the
 * Bonferroni level alpha/m (Holm's first step, so conservative) would detect with the given
 * power when the true spread equals the observed sd:
 *     mdd = (t_{1 - alpha/(2m), n-1} + t_{power, n-1}) * se.
 * A study that reports "not resolved" should also report mdd: differences smaller than it were
 * out of reach, not shown absent.
 *
 * Equivalence (o->margin = delta > 0): two one-sided tests (TOST) of H0: |true difference| >=
 * delta, on the same pairs: p_tost = max(Q_t((dbar + delta)/se), P_t((dbar - delta)/se)) on
 * n - 1 degrees of freedom, adjusted by Holm over the same m comparisons. A comparison is
 * `equivalent` within delta when p_tost_holm < alpha. Its equivalence bound is
 *     eq_bound = |dbar| + t_{1 - alpha/m, n-1} * se,
 * the smallest delta that TOST at the Bonferroni level alpha/m (Holm's first step) accepts:
 * the level's metric lies within eq_bound of the baseline's at family-wise confidence
 * 1 - alpha. "Not resolved" says a difference was not found; only `equivalent` says one as
 * large as delta was excluded.
 *
 * At best (o->at_best = "lr", say): each level is compared at its own best value of that axis
 * instead of at every value, at each grid point of the remaining axes: the value whose mean
 * metric over its seeds is lowest, among the values where every run's metric is finite (the
 * first in file order on a tie). This is "each strategy tuned against the baseline tuned", the
 * seed paper's question. The best values are chosen from the same runs that are compared, so p
 * does not account for the choice (a winner's curse: a noisy level's best looks better than it
 * is); two extra columns name the chosen values, AXIS_level and AXIS_baseline. */
#ifndef SRLAB_COMPARE_H
#define SRLAB_COMPARE_H

#include <stddef.h>

#include "srlab/common.h"
#include "srlab/sweep.h"

typedef struct srl_compare_opts {
    const char *axis;     /* the compared column, e.g. "strategy" */
    const char *baseline; /* its level every other level is compared with, e.g. "mp" */
    const char *metric;   /* a per-run column, e.g. "final_val_loss"; NULL: final_val_loss
                           * when the file has it (the models), else final_loss */
    double alpha;         /* family-wise level, 0 < alpha < 1 (0.05) */
    double power;         /* for the minimum detectable difference, 0 < power < 1 (0.8) */
    const char *at_best;  /* NULL, or an axis (e.g. "lr"): compare each level at its own best
                           * value of it, below */
    double margin;        /* > 0: also test equivalence within this margin (TOST, above); 0: no */
} srl_compare_opts;

/* Holm's step-down adjustment of m p values, in place; NaN entries are left out of the family
 * and stay NaN. The family's size in *family (may be NULL). SRL_OK or SRL_ENOMEM (p untouched). */
int srl_holm_adjust(double *p, size_t m, size_t *family) SRL_WUR;

/* The comparisons of a runs file as CSV text in *out (the caller frees it): the runs file's '#'
 * lines (version, command, seeds), '# compare:' lines stating the method, then
 *   KEY...,level,baseline,pairs,unpaired,mean_diff,sd_diff,se,t,df,p,p_holm,mdd,verdict
 * (at best: AXIS_level,AXIS_baseline after baseline, and AXIS is not a KEY; with a margin:
 * eq_bound,p_tost,p_tost_holm,equivalence after verdict)
 * one line per (grid point, level), in the order of the runs file. The runs file must add up: a
 * whole sweep's (not a shard's: merge first), exactly the runs its `# runs:` line counts, each
 * run number once, no two lines the same run (axis values and seed), no NUL byte or CR; else
 * SRL_EPARSE naming the lines. The baseline is compared with each level's text as the file
 * holds it (quoted fields unquoted, srl_csv_value), a format or mode under its one name
 * (srl_config_canonical: "half" finds fp16). verdict is `lower` or
 * `higher` (the level's metric than the baseline's, resolved at alpha after Holm), `not
 * resolved`, or `too few pairs` (n < 2, left out of the family); equivalence is `equivalent`,
 * `not shown` or `too few pairs`. Errors (SRL_EPARSE, SRL_EINVAL)
 * name the file and the column, level or line. */
int srl_sweep_compare(const srl_sweep_text *runs, const srl_compare_opts *o, char **out,
                      size_t *len, srl_err *err) SRL_WUR;

#endif
