/* src/train/train_impl.h: what the training loop shares with the layers above it (private). */
#ifndef SRL_TRAIN_IMPL_H
#define SRL_TRAIN_IMPL_H

#include "srlab/rows.h"

/* Keys every training run accepts (optimizer, strategy, schedule, steps, ...), defined in
 * src/train/train.c. Terminated by {NULL}. */
extern const srl_param srl__train_common_params[];

/* The columns every training run's rows begin with (include/srlab/train.h): step, lr_used, loss,
 * loss_gap, dist_to_opt, grad_norm, lost_update_frac, status. */
#define SRL__TRAIN_COLUMNS 8

/* Their names and kinds into names[0 .. SRL__TRAIN_COLUMNS), kinds[...]. */
void srl__train_columns_start(const char **names, srl_col_kind *kinds);

/* Their values at step t into v[0 .. SRL__TRAIN_COLUMNS): num[0 .. 6) are lr_used, loss,
 * loss_gap, dist_to_opt, grad_norm and lost_update_frac. */
void srl__train_row_start(srl_value *v, uint64_t t, const double num[6], const char *status);

#endif
