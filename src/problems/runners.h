/* src/problems/runners.h: the runner of each problem (private; the table that lists them in
 * `--help` order is src/run/run_registry.c). */
#ifndef SRL_PROBLEMS_RUNNERS_H
#define SRL_PROBLEMS_RUNNERS_H

#include "srlab/rows.h"

/* src/problems/convex.c */
extern const srl_runner srl__runner_quad1d, srl__runner_quadratic, srl__runner_lsq,
    srl__runner_logreg;
/* src/problems/mlp.c, src/problems/gpt.c */
extern const srl_runner srl__runner_mlp, srl__runner_gpt;
/* src/problems/sum.c */
extern const srl_runner srl__runner_harmonic, srl__runner_sum, srl__runner_matvec;
/* src/problems/heat.c */
extern const srl_runner srl__runner_heat;

#endif
