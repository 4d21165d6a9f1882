/* src/run/run_registry.c: every runner srlab knows, in the order `--help` lists them.
 * Add one line per problem (and its declaration in src/problems/runners.h). */
#include "run/run_registry.h"

#include "problems/runners.h"

const srl_runner *const srl__runners[] = {
    &srl__runner_quad1d,
    &srl__runner_quadratic,
    &srl__runner_lsq,
    &srl__runner_logreg,
    &srl__runner_mlp,
    &srl__runner_gpt,
    &srl__runner_harmonic,
    &srl__runner_sum,
    &srl__runner_matvec,
    &srl__runner_heat,
    NULL,
};
