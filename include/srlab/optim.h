/* srlab/optim.h: optimizers (SGD, heavy-ball momentum, Adam, AdamW) and learning-rate schedules,
 * applied to named weight tensors under a precision strategy (docs/design.md §7).
 *
 * Weights. A model is a list of named weights (srl_weight_spec: a name and a shape). For each,
 * srl_weights_alloc carves from one allocation the tensors the strategy and the optimizer need
 * (include/srlab/tensor.h, packed: bf16 is 2 bytes per value):
 *   NAME         the weights forward/backward read (strategy slot param)
 *   NAME.grad    the gradient the problem writes (slot grad)
 *   NAME.m       first moment / momentum buffer (slot m; momentum, Adam, AdamW only)
 *   NAME.v       second moment (slot v; Adam, AdamW only)
 *   NAME.master  master copy (slot master; strategies with one, e.g. mp)
 *   NAME.comp    Kahan compensation (slot comp; kahan=on)
 * Each tensor has its own write stream keyed by its name, so every stochastic write is a pure
 * function of (seed, tensor, step, element).
 *
 * One step. Let A be the strategy's update arithmetic (binary32 or binary64, native operations,
 * each rounded to nearest in A; no contraction into FMA). Hyper-parameters enter A as
 * lr, wd, eps, beta1, beta2, mu rounded to nearest in A; c1 = A(1 - beta1), c2 = A(1 - beta2),
 * bc1 = A(1 - beta1^t), bc2 = A(1 - beta2^t) with the differences and powers in binary64, t the
 * number of this step (1, 2, ...). For every element, with x the current parameter value (the
 * master when there is one, else the weight), g the stored gradient, m and v the stored moments
 * (all read exactly into A), the step s is, operation by operation in A:
 *   sgd       d = g + wd*x;                              s = lr*d
 *   momentum  d = g + wd*x;  m' = mu*m + d;               s = lr*m'
 *   adam      d = g + wd*x;  m' = b1*m + c1*d;  v' = b2*v + (c2*d)*d;
 *             s = lr*((m'/bc1) / (sqrt(v'/bc2) + eps))                 (L2 in the gradient)
 *   adamw     m' = b1*m + c1*g;  v' = b2*v + (c2*g)*g;
 *             s = lr*((m'/bc1) / (sqrt(v'/bc2) + eps) + wd*x)         (decoupled weight decay,
 *             folded into the same write as the update)
 * (with wd = 0 the terms wd*x vanish exactly). m' and v' are written to NAME.m and NAME.v with
 * their slots' rounding; the step itself uses the unrounded m' and v' (a fused kernel's
 * registers). The new parameter value xe = x - s (in A) is then written:
 *   plain     NAME <- round_param(xe)
 *   master    NAME.master <- round_master(xe);  NAME <- round_param(NAME.master)  (the cast)
 *   kahan     with c the stored compensation and e = -s the increment, in A:
 *             y = e + c;  NAME <- round_param(x + y);  t = NAME - x;  NAME.comp <- round_comp(y - t)
 *             (Kahan's compensated summation of the increments: comp holds what the rounded
 *             weight has not absorbed yet.)
 * Every write of step t to element i uses draw (t-1)*n + i of its tensor's stream (rounding.h's
 * modes; bf16 sr:r=16 is the seed paper's integer trick, bit for bit). A stored gradient is
 * written by the problem at the same step index (srl_weights_set_grad_*).
 *
 * Statistics of a step (srl_step_stats): `lost` counts elements whose step s was nonzero but
 * whose stored parameter (master if any, else the weight; for kahan the pair weight and
 * compensation) did not change, whether the update vanished in A (x - s == x) or in the write.
 * `nonfinite` counts non-finite stored parameters after the step, `nonfinite_grad` non-finite
 * gradients read.
 *
 * Threads: elements are processed in fixed tiles, OpenMP over tiles, so results are bit-identical
 * for any thread count. Steps allocate nothing. */
#ifndef SRLAB_OPTIM_H
#define SRLAB_OPTIM_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "srlab/common.h"
#include "srlab/rng.h"
#include "srlab/strategy.h"
#include "srlab/tensor.h"

#ifdef __cplusplus
extern "C" {
#endif

/* ---- optimizers and schedules ---- */

typedef enum srl_optim_kind {
    SRL_OPTIM_SGD = 0,
    SRL_OPTIM_MOMENTUM,
    SRL_OPTIM_ADAM,
    SRL_OPTIM_ADAMW,
    SRL_OPTIM_COUNT
} srl_optim_kind;

typedef enum srl_schedule { SRL_SCHED_CONSTANT = 0, SRL_SCHED_COSINE, SRL_SCHED_COUNT } srl_schedule;

/* "sgd", "momentum", "adam", "adamw" (NULL-terminated, in enum order). */
extern const char *const srl_optim_names[];
/* "constant", "cosine". */
extern const char *const srl_schedule_names[];

bool srl_optim_has_m(srl_optim_kind k); /* momentum, adam, adamw */
bool srl_optim_has_v(srl_optim_kind k); /* adam, adamw */

typedef struct srl_optim_config {
    srl_optim_kind kind;
    double lr;           /* peak learning rate, > 0 and finite */
    double momentum;     /* heavy ball mu, in [0, 1) */
    double beta1, beta2; /* Adam, in [0, 1) */
    double eps;          /* Adam, > 0 */
    double wd;           /* weight decay >= 0: L2 in the gradient (sgd, momentum, adam) or
                            decoupled (adamw) */
    srl_schedule schedule;
    uint64_t warmup;     /* linear warm-up steps (0: none) */
    double lr_min;       /* the cosine schedule's final learning rate, in [0, lr] */
    uint64_t steps;      /* total steps (the cosine schedule's length) */
} srl_optim_config;

/* Domain checks with one message naming the key: lr > 0 finite, momentum, beta1, beta2 in
 * [0, 1), eps > 0 finite, wd >= 0 finite, 0 <= lr_min <= lr, warmup <= steps. */
int srl_optim_config_check(const srl_optim_config *c, srl_err *err) SRL_WUR;

/* The learning rate of step t (t = 1 .. steps), in binary64:
 *   warm-up (t <= warmup):  lr * t / warmup
 *   constant:               lr
 *   cosine:                 lr_min + (lr - lr_min) (1 + cos(pi q)) / 2,
 *                           q = (t - warmup) / (steps - warmup)  (q = 1 at the last step). */
double srl_optim_lr(const srl_optim_config *c, uint64_t t);

/* ---- weights and their optimizer state ---- */

typedef struct srl_weight_spec {
    const char *name; /* 1..(SRL_TENSOR_NAME_LEN - 8) characters, unique */
    int ndim;
    size_t shape[SRL_TENSOR_MAX_DIMS];
} srl_weight_spec;

typedef struct srl_weight {
    size_t n;             /* elements */
    srl_tensor *w;        /* NAME: what forward/backward read */
    srl_tensor *g;        /* NAME.grad */
    srl_tensor *m, *v;    /* NAME.m, NAME.v, or NULL */
    srl_tensor *master;   /* NAME.master, or NULL */
    srl_tensor *comp;     /* NAME.comp, or NULL */
} srl_weight;

typedef struct srl_weights {
    size_t count;         /* number of weights */
    srl_weight *p;        /* count entries, in the order of the specs */
    size_t numel;         /* total parameters */
    srl_strategy strat;
    srl_optim_kind opt;
    srl_tensor_set set;   /* every tensor, one allocation */
} srl_weights;

/* Allocate the tensors of `count` weights for strategy s and optimizer opt, all zero. Tensor
 * streams derive from writes_root (see include/srlab/tensor.h). SRL_EINVAL for a bad name or a
 * strategy srl_strategy_check rejects, SRL_ENOMEM. On failure W is empty. */
int srl_weights_alloc(srl_weights *W, const srl_weight_spec *specs, size_t count,
                      const srl_strategy *s, srl_optim_kind opt, const srl_rng *writes_root,
                      srl_err *err) SRL_WUR;
void srl_weights_free(srl_weights *W); /* NULL-safe */

/* Set weight j to x0 (n values): the master (if any) and the weight are x0 rounded to nearest
 * into their formats (the weight, with a master, is the cast of the master with param's mode at
 * draw index 0); moments and compensation +0. SRL_ERANGE when a finite x0 value overflows a
 * format that must hold it ("the strategy stores NAME in FMT, which cannot hold x0[i] = ...",
 * largest finite given), SRL_EINVAL for a non-finite x0. */
int srl_weights_init(srl_weights *W, size_t j, const double *x0, srl_err *err) SRL_WUR;

/* The current parameter values of weight j in binary64 (exact): the master if there is one,
 * else the weight. The point at which losses and distances are evaluated. */
void srl_weights_values(double *x, const srl_weights *W, size_t j);

/* Write the gradient of weight j for step t (t = number of steps taken + 1): g rounded into the
 * grad slot, draws (t-1)*n + i of NAME.grad's stream. */
int srl_weights_set_grad_d(srl_weights *W, size_t j, const double *g, uint64_t t) SRL_WUR;
int srl_weights_set_grad_f(srl_weights *W, size_t j, const float *g, uint64_t t) SRL_WUR;

/* Bytes per parameter actually allocated (tensor data, padding excluded) = set.bytes / numel. */
double srl_weights_bytes_per_param(const srl_weights *W);

/* ---- the step ---- */

typedef struct srl_step_stats {
    uint64_t lost;           /* nonzero step, stored parameter unchanged */
    uint64_t nonfinite;      /* non-finite stored parameters after the step */
    uint64_t nonfinite_grad; /* non-finite gradients read */
} srl_step_stats;

/* Step number t (t >= 1) with learning rate lr (usually srl_optim_lr(c, t)) on every weight,
 * as described at the top of this file. The gradients must have been written for step t.
 * st may be NULL. SRL_EINVAL for t = 0, a non-finite or negative lr or an optimizer that does
 * not match the one W was allocated for. */
int srl_optim_step(srl_step_stats *st, srl_weights *W, const srl_optim_config *c, uint64_t t,
                   double lr) SRL_WUR;

#ifdef __cplusplus
}
#endif
#endif
