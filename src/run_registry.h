/* src/run_registry.h: the table of runners (private). Each problem file defines its
 * `const srl_runner srl_runner_NAME` and adds one line to src/run_registry.c. */
#ifndef SRL_RUN_REGISTRY_H
#define SRL_RUN_REGISTRY_H

#include "srlab/run.h"

/* NULL-terminated. */
extern const srl_runner *const srl__runners[];

/* Keys every training run accepts (optimizer, strategy, schedule, steps, ...), defined in
 * src/train.c. Terminated by {NULL}. */
extern const srl_param srl__train_common_params[];

#endif
