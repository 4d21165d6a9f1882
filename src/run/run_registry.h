/* src/run/run_registry.h: the table of runners (private). Each problem file defines its
 * `const srl_runner srl__runner_NAME` (declared in src/problems/runners.h) and adds one line to
 * src/run/run_registry.c. */
#ifndef SRL_RUN_REGISTRY_H
#define SRL_RUN_REGISTRY_H

#include "srlab/run.h"
#include "train/train_impl.h"

/* NULL-terminated. */
extern const srl_runner *const srl__runners[];

#endif
