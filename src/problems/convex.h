/* src/problems/convex.h: the convex problems' entry point with a per-step hook (private; for
 * tests/train, which assert properties of the stored tensors after every step). */
#ifndef SRL_PROBLEMS_CONVEX_H
#define SRL_PROBLEMS_CONVEX_H

#include "srlab/rows.h"
#include "srlab/train.h"

/* The runner of problem `name` (quad1d, quadratic, lsq, logreg) with srl_train_run_inspect's
 * hook. Keys are not checked against the runner's table here (srl_run does that). */
int srl__convex_run(const char *name, const srl_config *cfg, const srl_sink *out,
                    srl_run_report *rep,
                    int (*inspect)(void *arg, const srl_weights *W, uint64_t t,
                                   const srl_step_stats *st),
                    void *arg, srl_err *err);

/* The extreme eigenvalues of the Hessian of problem `name` (for logreg, at x*) and ||x*||_2,
 * from the same data as a run with cfg: for tests that derive tolerances from them. */
int srl__convex_spectrum(const char *name, const srl_config *cfg, double *lmin, double *lmax,
                         double *xstar_norm, srl_err *err);

#endif
