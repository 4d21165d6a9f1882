/* src/problems/runners.h: the runner of each problem (private; the table that lists them in
 * `--help` order is src/run/run_registry.c). */
#ifndef SRL_PROBLEMS_RUNNERS_H
#define SRL_PROBLEMS_RUNNERS_H

#include "srlab/rows.h"

/* src/problems/convex.c */
extern const srl_runner srl_runner_quad1d, srl_runner_quadratic, srl_runner_lsq,
    srl_runner_logreg;
/* src/problems/mlp.c, src/problems/gpt.c */
extern const srl_runner srl_runner_mlp, srl_runner_gpt;
/* src/problems/sum.c */
extern const srl_runner srl_runner_harmonic, srl_runner_sum, srl_runner_matvec;
/* src/problems/heat.c */
extern const srl_runner srl_runner_heat;

#endif
