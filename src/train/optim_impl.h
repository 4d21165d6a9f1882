/* src/train/optim_impl.h: internals of src/train/optim.c exposed to tests (private). */
#ifndef SRL_OPTIM_IMPL_H
#define SRL_OPTIM_IMPL_H

#include "srlab/optim.h"

typedef enum srl__optim_path {
    SRL__PATH_AUTO = 0,   /* the fused bf16 kernel where it applies, else the generic tiles */
    SRL__PATH_GENERIC = 1 /* always the generic tiles (src/train/optim_tpl.h) */
} srl__optim_path;

/* srl_optim_step with the path chosen: both give the same bits (tests/train/test_optim.c). */
int srl__optim_step_path(srl_step_stats *st, srl_weights *W, const srl_optim_config *c,
                         uint64_t t, double lr, srl__optim_path path);

/* Whether the fused kernel applies to W: fp32 update, no master, no Kahan, Adam or AdamW,
 * weights, gradients and moments stored bf16, moments written rn, weights rn or sr:r=16 (with
 * a pcg32 stream). */
int srl__optim_fast_applies(const srl_weights *W);

#endif
