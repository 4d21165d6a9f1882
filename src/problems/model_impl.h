/* src/problems/model_impl.h: what the MLP and the GPT problems share (private): the training loop over
 * K emulated data-parallel replicas, their gradient all-reduce, the divergence metrics and the
 * random-walk prediction of theory/T12, the keys every model problem has, the memory check, the
 * slot rounding and the names of their passes' instances (the operations their passes share are
 * src/problems/model_ops.h).
 *
 * A model is a list of weights (srl_weight_spec) laid out in one flat array (weight j at off[j],
 * offsets rounded up to 16 elements); the loop hands the model its parameters as float values
 * (the NAME tensors: what forward/backward read) and asks for the gradient in float; the model
 * never touches the optimizer state. */
#ifndef SRL_MODEL_IMPL_H
#define SRL_MODEL_IMPL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "srlab/optim.h"
#include "srlab/rows.h"
#include "srlab/train.h"

#define SRL__MODEL_MAX_WEIGHTS 32
#define SRL__MODEL_MAX_EXTRA 4

typedef struct srl__model {
    void *ctx;
    size_t nweights;
    srl_weight_spec specs[SRL__MODEL_MAX_WEIGHTS];
    size_t off[SRL__MODEL_MAX_WEIGHTS]; /* offset of weight j in the flat arrays */
    size_t numel;                       /* parameters */
    size_t flat;                        /* length of the flat arrays (numel plus padding) */
    /* x0 of every weight, binary64, in the flat layout (the "init" stream). */
    int (*init)(void *ctx, double *x0, srl_err *err);
    /* Replica r's gradient at step t (t >= 1): forward and backward of its micro-batch at the
     * parameters p (float, values of the param format, flat layout), the parameter gradient into
     * g (float, flat layout; the loop rounds it into the grad slot). Stochastic roundings of the
     * forward/backward draw from `compute` in a fixed order (its counter advances by exactly the
     * draws used). Thread-invariant. */
    int (*grad)(void *ctx, size_t r, uint64_t t, const float *p, float *g, srl_rng *compute,
                srl_err *err);
    /* Metrics in binary64 at the parameters x (flat): loss on the training evaluation set,
     * val_loss on the validation set, and nextra extra columns. */
    int (*eval)(void *ctx, const double *x, double *loss, double *val_loss, double *extra,
                srl_err *err);
    double fstar;                       /* best achievable expected loss, NaN if unknown */
    size_t nextra;
    const char *extra_names[SRL__MODEL_MAX_EXTRA];
} srl__model;

/* Set m->off, m->numel and m->flat from m->specs[0 .. nweights). */
void srl__model_layout(srl__model *m);

/* Called after every step with the K replicas' weights; pred_var[i] is the random-walk
 * prediction of E (x_r,i - x_0,i)^2 so far for coordinate i (flat layout; NULL unless the
 * replicas draw independently with a stochastic weight write). Non-zero stops the run. */
typedef int (*srl__model_hook)(void *arg, const srl_weights *W, size_t K, uint64_t t,
                               const double *pred_var);

typedef struct srl__replicas {
    size_t K;     /* replicas >= 1 */
    bool shared;  /* sr-seed shared (true) or independent */
} srl__replicas;

/* The keys every model problem has, for its srl_param table (srl__MODEL_KEYS below). */
#define SRL__MODEL_KEYS                                                                           \
    {"replicas", "1",                                                                             \
     "data-parallel replicas K >= 1: each computes the gradient of its own micro-batch, the "    \
     "gradients are averaged in grad-format, every replica takes the step"},                      \
        {"sr-seed", "shared",                                                                     \
         "the replicas' weight-write streams: shared (one stream, the seed paper's shared "       \
         "randomness) or independent (one per replica)"},                                          \
        {"mem-limit", "auto",                                                                     \
         "refuse configs needing more memory than this: bytes with an optional K, M, G, T "       \
         "suffix (powers of 1024), or auto (the machine's physical memory)"}

/* Read replicas and sr-seed (defaults from the table above). */
int srl__model_read_replicas(const srl_config *cfg, srl__replicas *rp, srl_err *err) SRL_WUR;

/* The MLP and GPT hold weights, activations and activation gradients in binary32 containers
 * and run their products through the _f kernels: refuse (SRL_EINVAL, naming the key) a param,
 * act or grad format, or an accumulator format, that is not a subset of binary32. */
int srl__model_check_strategy(const srl_strategy *s, srl_err *err) SRL_WUR;

/* Bytes srl__model_train allocates for K replicas of `numel` parameters in `flat` slots under
 * tc's strategy and optimizer (weights and their state, the float and binary64 flat buffers,
 * the prediction array). A double: it cannot overflow. */
double srl__model_train_bytes(const srl_train_config *tc, double numel, double flat, size_t K);

/* Refuse (SRL_EINVAL, a message saying what needs how much and what the limit is) when `need`
 * bytes exceed mem-limit. Call it before allocating anything. */
int srl__model_mem_check(const srl_config *cfg, double need, const char *what,
                         srl_err *err) SRL_WUR;

/* Train m with K replicas (see src/problems/models_train.c for the rows, the all-reduce and the streams).
 * hook may be NULL. */
int srl__model_train(const srl__model *m, const srl_train_config *tc, const srl__replicas *rp,
                     const srl_sink *out, srl_run_report *rep, srl__model_hook hook, void *arg,
                     srl_err *err) SRL_WUR;

/* The stream of replica r's forward/backward at step t: a pure function of (seed, r, t). */
void srl__model_compute_stream(srl_rng *c, const srl_train_config *tc, size_t r, uint64_t t);

/* The weight-write root of replica r (shared: the run's "writes" stream for every replica;
 * independent: replica 0 that stream, replica r >= 1 a stream derived from it with key r). */
void srl__model_writes_root(srl_rng *root, const srl_train_config *tc, size_t r, bool shared);

/* Loops of the MLP and GPT passes fork OpenMP threads only above srl__models_omp_min elements
 * (default 2^15: a parallel region costs microseconds, 2^15 elements of GELU hundreds of them;
 * 2^18 left the middle GPT size one-threaded). Tests lower it to run every parallel loop on
 * tiny models; results never depend on it. Not thread-safe: set it between
 * runs. */
extern size_t srl__models_omp_min;

/* The default of `key` in a problem's parameter table (NULL if absent), and a size key read with
 * that default and checked against [lo, hi] (the error names the key and the range). */
const char *srl__model_param_def(const srl_param *tab, const char *key);
int srl__model_read_size(const srl_config *cfg, const srl_param *tab, const char *key, uint64_t lo,
                         uint64_t hi, size_t *out, srl_err *err) SRL_WUR;

/* Round x[0..n) in place into slot (its format and mode), drawing from rng (n draws when
 * stochastic, none otherwise; a binary32 format leaves x unchanged but still consumes the
 * draws). From srl__models_omp_min elements on, each thread rounds a static share, the
 * passes' loops' split (element i still takes draw counter + i). */
int srl__round_slot(float *x, size_t n, const srl_slot *slot, srl_rng *rng) SRL_WUR;

/* The instances of a model's pass (src/problems/model_instantiate.h, PASS_MODE). */
#define SRL__PASS_EMU 0   /* float, kernels, roundings into the strategy's slots */
#define SRL__PASS_PLAIN 1 /* float, plain loops */
#define SRL__PASS_F64 2   /* double, plain loops */

/* Return the status of `call` if it is not SRL_OK (the passes' phases). */
#define SRL__TRY(call)                                                                            \
    do {                                                                                          \
        const int st_ = (call);                                                                   \
        if (st_)                                                                                  \
            return st_;                                                                           \
    } while (0)

#endif
