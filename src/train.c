/* src/train.c: training runs (optimizers x precision strategies); see include/srlab/train.h.
 * Placeholder until issue 4 lands: only the common parameter table. */
#include "run_registry.h"

const srl_param srl__train_common_params[] = {
    {"seed", "1", "seed of every random stream of the run (non-negative integer)"},
    {NULL, NULL, NULL},
};
