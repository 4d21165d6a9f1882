/* src/train/train_impl.h: what the training loop shares with the layers above it (private). */
#ifndef SRL_TRAIN_IMPL_H
#define SRL_TRAIN_IMPL_H

#include "srlab/rows.h"

/* Keys every training run accepts (optimizer, strategy, schedule, steps, ...), defined in
 * src/train/train.c. Terminated by {NULL}. */
extern const srl_param srl__train_common_params[];

#endif
