/* src/run/run_registry.c: every runner srlab knows, in the order `--help` lists them.
 * Add one line per problem (and its declaration in src/problems/runners.h). */
#include "run/run_registry.h"

#include "problems/runners.h"

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
    &srl_runner_heat,
    NULL,
};
