/* src/cli/reproduce/reproduce_plan.h: which experiments, figures and checks `srlab reproduce`
 * runs (reproduce_plan.c).
 *
 * The experiments are the spec files NAME.ini of r->experiments, in name order (--only keeps
 * some). Each spec's header comment names its figures, one `srlab plot` command per line after
 * "Figure:" / "Figures:", with OUT.csv and OUT.summary.csv standing for the sweep's files, e.g.
 *     # Figure: srlab plot stall --in OUT.summary.csv -o stall.png      (plots/stall.gp)
 * Per spec the plan holds
 *     srlab sweep specs/NAME.ini [--quick] [--threads N] -o NAME.csv
 * (and in quick mode `srlab sweep specs/NAME.ini --dry-run`, the full mode's size), then each of
 * its figures (srlab plot ... -o FILE.png); at the end
 *     srlab check [--quick] -o check.csv [NAMES...]
 * What keeps a spec or a figure from running (it cannot be read, a bad name, a figure line that
 * is not a srlab plot command, a missing plot script, a figure file two specs draw) is kept as
 * its `problem`, for the progress lines and the report. */
#ifndef SRL_CLI_REPRODUCE_PLAN_H
#define SRL_CLI_REPRODUCE_PLAN_H

#include <stdbool.h>
#include <stddef.h>

#include "cli/reproduce/reproduce.h"

/* The options that shape the plan. */
typedef struct rp_opts {
    bool quick, force;
    const char *dir, *threads; /* -o, --threads (as given) */
    const char **only;         /* --only: comma lists of experiment names */
    size_t nonly;
    const char *checks;        /* --checks: a comma list of statements, "none", or NULL */
} rp_opts;

/* Plan r (r->experiments and r->plots set, r->check_skipped decided): r->ex and r->check.
 * Returns 0, or an exit status after a message (the folder of specs cannot be read, holds no
 * spec, --only names an unknown one; out of memory). Free with rp_plan_free, whatever it
 * returns. */
int rp_plan_build(rp_report *r, const rp_opts *o);
void rp_plan_free(rp_report *r);

#endif
