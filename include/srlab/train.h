/* srlab/train.h: training runs: a problem trained by an optimizer under a precision strategy,
 * logged as rows (docs/design.md §7, §8, §11).
 *
 * A training run is a config (include/srlab/run.h) read by srl_train_config_from: the common
 * keys of every training runner (srl_runner_common_params(SRL_RUN_TRAIN): seed, steps,
 * log-every, opt, lr, schedule keys, optimizer keys, strategy and its piece keys, grad-noise,
 * rng) plus the problem's own keys. srl_train_run then
 *   1. allocates the problem's weights with their optimizer state (include/srlab/optim.h) and
 *      sets them to the problem's x0 (rounded to nearest; a format that cannot hold x0 is an
 *      error, nothing is emitted);
 *   2. logs step 0, then for t = 1 .. steps: asks the problem for the gradient at the stored
 *      weights (written into NAME.grad for step t), takes optimizer step t with lr(t)
 *      (srl_optim_lr), and logs every log-every steps and the last step;
 *   3. stops at the first step that leaves a non-finite weight or reads a non-finite gradient:
 *      it logs that step with status "diverged", sets rep->diverged and a note, and returns
 *      SRL_OK (a sweep goes on).
 * Rows. Metric columns, in order:
 *   step              steps taken (0 = the initial point)
 *   lr_used           the learning rate of that step (srl_optim_lr; at step 0 the one of step 1)
 *   loss              the problem's loss at the stored parameters (master if any, else the
 *                     weights), evaluated in binary64 from their exact values
 *   loss_gap          loss - f*, computed without cancellation where the problem allows
 *   dist_to_opt       ||x - x*||_2
 *   grad_norm         ||grad f(x)||_2 of the exact (noise-free) gradient at the parameters
 *   lost_update_frac  (elements whose nonzero step left the stored parameter unchanged) / (all
 *                     elements), in the step that led to this row; 0 at step 0
 *   status            ok | diverged
 * followed by the problem's extra columns (srl_train_problem.extra_names). NaN marks a metric a
 * problem does not have.
 *
 * Randomness: every stream is derived from the run's root stream (seed `seed`, stream 0, kind
 * `rng`) with a purpose key, srl_train_stream(): "data" (problem data, optimum), "init" (x0),
 * "grad-noise", and "writes" (the root of the per-tensor write streams of
 * include/srlab/tensor.h). Gradient noise for element i (offset within all parameters) at
 * step t uses draws 2((t-1) N + i) and 2((t-1) N + i) + 1 of "grad-noise" (N = number of
 * parameters): a pure function of (seed, t, i). */
#ifndef SRLAB_TRAIN_H
#define SRLAB_TRAIN_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "srlab/common.h"
#include "srlab/optim.h"
#include "srlab/rng.h"
#include "srlab/config.h"
#include "srlab/rows.h"
#include "srlab/strategy.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct srl_train_config {
    srl_optim_config opt;  /* optimizer, hyper-parameters, schedule */
    srl_strategy strat;    /* precision strategy */
    uint64_t steps;        /* optimizer steps (0: only the initial row) */
    uint64_t log_every;    /* >= 1 */
    uint64_t seed;
    srl_rng_kind rng;      /* generator of every stream */
    double grad_noise;     /* standard deviation sigma of the Gaussian noise added to each
                              gradient element (0: none) */
} srl_train_config;

/* Read the common training keys of cfg (defaults from srl_runner_common_params) and check their
 * domains: lr > 0 finite, steps, log-every >= 1, grad-noise >= 0, strategy and optimizer known,
 * ... Messages name the key. Problem keys are the runner's business. */
int srl_train_config_from(srl_train_config *tc, const srl_config *cfg, srl_err *err) SRL_WUR;

/* The stream of a purpose ("data", "init", "grad-noise", "writes", ...) of a run. */
void srl_train_stream(srl_rng *r, const srl_train_config *tc, const char *purpose);

/* g[i] += sigma * N(0,1) for elements offset .. offset+n-1 of the N parameters, at step t
 * (draws above). No-op when sigma is 0. */
void srl_train_add_noise(double *g, size_t n, size_t offset, size_t N, uint64_t t,
                         const srl_train_config *tc);

/* Metrics a problem reports (NaN where it has none). */
typedef struct srl_train_metrics {
    double loss, loss_gap, dist_to_opt, grad_norm;
    double extra[8]; /* the problem's extra columns, in order */
} srl_train_metrics;

/* A problem srl_train_run can train. */
typedef struct srl_train_problem {
    void *ctx;
    size_t nweights;
    const srl_weight_spec *weights;
    /* x0 of weight j (weights[j] has n elements). */
    int (*init)(void *ctx, size_t j, double *x0, srl_err *err);
    /* Write the gradient of every weight for step t (srl_weights_set_grad_*), computed at the
     * weights forward/backward read (the NAME tensors: for mp the bf16 cast of the master). */
    int (*gradient)(void *ctx, srl_weights *W, uint64_t t, srl_err *err);
    /* Metrics at the stored parameters (srl_weights_values). */
    int (*evaluate)(void *ctx, const srl_weights *W, srl_train_metrics *m, srl_err *err);
    size_t nextra;                  /* <= 8 */
    const char *const *extra_names; /* nextra column names */
} srl_train_problem;

/* Train p as described at the top of this file, delivering rows to out. A sink's non-zero
 * return stops the run and is returned. On SRL_OK, rep says whether the run diverged. */
int srl_train_run(const srl_train_problem *p, const srl_train_config *tc, const srl_sink *out,
                  srl_run_report *rep, srl_err *err) SRL_WUR;

/* The same, handing the weights to `inspect` after every step (tests use it to assert that
 * every tensor holds values of its format); inspect's non-zero return stops the run and is
 * returned. inspect may be NULL. */
int srl_train_run_inspect(const srl_train_problem *p, const srl_train_config *tc,
                          const srl_sink *out, srl_run_report *rep,
                          int (*inspect)(void *arg, const srl_weights *W, uint64_t t,
                                         const srl_step_stats *st),
                          void *arg, srl_err *err) SRL_WUR;

#ifdef __cplusplus
}
#endif
#endif
