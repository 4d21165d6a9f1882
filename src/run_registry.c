/* src/run_registry.c: every runner srlab knows, in the order `--help` lists them.
 * Add one line per problem (and its extern declaration). */
#include "run_registry.h"

/* src/problems_convex.c */
extern const srl_runner srl_runner_quad1d, srl_runner_quadratic, srl_runner_lsq,
    srl_runner_logreg;
/* src/problems_mlp.c, src/problems_gpt.c */
extern const srl_runner srl_runner_mlp, srl_runner_gpt;
/* src/problems_sum.c */
extern const srl_runner srl_runner_harmonic, srl_runner_sum, srl_runner_matvec;

const srl_runner *const srl__runners[] = {
    &srl_runner_quad1d,
    &srl_runner_quadratic,
    &srl_runner_lsq,
    &srl_runner_logreg,
    &srl_runner_mlp,
    &srl_runner_gpt,
    &srl_runner_harmonic,
    &srl_runner_sum,
    &srl_runner_matvec,
    NULL,
};
