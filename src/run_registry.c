/* src/run_registry.c: every runner srlab knows, in the order `--help` lists them.
 * Add one line per problem (and its extern declaration). */
#include "run_registry.h"

const srl_runner *const srl__runners[] = {
    NULL,
};
