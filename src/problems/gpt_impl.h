/* src/problems/gpt_impl.h: the GPT of src/problems/gpt.c (private; tests/problems and the benchmark use it).
 *
 * Dimensions (the legend of src/problems/gpt_tpl.h):
 *   B  sequences per micro-batch      T  block size (positions)      C  width (n_embd)
 *   L  layers                         NH heads, hs = C / NH          V  vocabulary
 * Parameters, in this order, each one srl_weight (src/optim.h carves them from one allocation),
 * matrices stored (in, out) so that the forward product is x @ W:
 *   wte (V, C)  wpe (T, C)  ln1w (L, C)  ln1b (L, C)  qkvw (L, C, 3C)  attprojw (L, C, C)
 *   ln2w (L, C)  ln2b (L, C)  fcw (L, C, 4C)  fcprojw (L, 4C, C)  lnfw (C)  lnfb (C)
 * (no linear biases; the head is tied to wte: logits = lnf @ wte^T).
 *
 * The forward and backward pass is written once (src/problems/gpt_tpl.h) and compiled three times
 * (src/problems/model_instantiate.h):
 *   _emu    float values; every matrix product is a kernel call (srl_gemm_f / _nt_f / _tn_f)
 *           with the strategy's accumulation config; every stored activation is rounded into
 *           the act slot and every stored gradient into the grad slot (srl__round_slot), with
 *           draws from ps->rng in a fixed order; the nonlinearities in native binary32.
 *   _plain  float values, the same operations in the same order with plain loops and no extra
 *           rounding: the same model in ordinary float arithmetic. With the fp32 strategy
 *           (binary32 rn products and recursive accumulation, fp32 slots) _emu equals it bit for
 *           bit (tests/problems/test_gpt.c), and the benchmark times both.
 *   _f64    binary64 values and plain loops: evaluation and gradient checks.
 * All three are deterministic and thread-invariant (OpenMP over rows, over (b, h) pairs and over
 * channels only; every reduction serial in a fixed order). */
#ifndef SRL_GPT_IMPL_H
#define SRL_GPT_IMPL_H

#include <stddef.h>
#include <stdint.h>

#include "problems/model_impl.h"
#include "srlab/kernels.h"
#include "srlab/strategy.h"

enum {
    GP_WTE, GP_WPE, GP_LN1W, GP_LN1B, GP_QKVW, GP_ATTPROJW, GP_LN2W, GP_LN2B, GP_FCW,
    GP_FCPROJW, GP_LNFW, GP_LNFB, GP_COUNT
};

typedef struct srl__gpt_dims {
    size_t V, T, C, L, NH, B;
} srl__gpt_dims;

/* Weight specs (names and shapes above) into specs[0 .. GP_COUNT). */
void srl__gpt_specs(srl_weight_spec *specs, const srl__gpt_dims *d);
/* Number of parameters (a double: no overflow for any dims). */
double srl__gpt_numel(const srl__gpt_dims *d);

/* Offsets (in elements) of the activation buffers of one pass with d.B rows; `bwd` adds the
 * backward buffers. Every offset is a multiple of 16 elements. */
typedef struct srl__gpt_layout {
    size_t enc, lnf, lnf_mean, lnf_rstd, logits, tmpc, tsc;
    size_t per_layer, l0; /* layer l's buffers start at l0 + l * per_layer */
    /* inside a layer */
    size_t ln1, ln1_mean, ln1_rstd, qkv, qh, kh, vh, att, yh, atty, res2, ln2, ln2_mean,
        ln2_rstd, fch, fchg, fcth, res3; /* fcth: GELU's tanh term, kept for the backward */
    /* backward (bwd) */
    size_t dlogits, dres, dln, dqkv, dqh, dkh, dvh, datt, dyh, datty, dfchg, dfch, dtmp;
    size_t total;
    int bwd;
} srl__gpt_layout;
void srl__gpt_layout_make(srl__gpt_layout *lay, const srl__gpt_dims *d, int bwd);
/* lay->total for dims d, as a double (for the memory check before any size_t arithmetic). */
double srl__gpt_acts_elems(const srl__gpt_dims *d, int bwd);

/* One forward (and backward) pass. */
typedef struct srl__gpt_pass {
    srl__gpt_dims d;           /* d.B = sequences in this pass (<= the layout's) */
    const srl__gpt_layout *lay;
    const size_t *off;         /* offsets of the GP_COUNT weights in the flat arrays */
    /* _emu only: */
    const srl_accum *accum;    /* the matrix products */
    const srl_mxgemm *mx[SRL_STRATEGY_GEMMS]; /* the blocks' linear layers' Fprop, Dgrad, Wgrad
                                               * block-scaled (NULL: with accum) */
    srl_slot act, grad;        /* stored activations, stored gradients */
    srl_rng *rng;              /* draws of every stochastic rounding, in call order */
    double *row_loss;          /* B*T per-position losses (binary64 values of the pass's loss) */
} srl__gpt_pass;

/* tok: B windows of T+1 tokens (inputs tok[b(T+1) + t], targets tok[b(T+1) + t + 1]).
 * par, grad: flat arrays (weight j at off[j]); grad NULL: forward only. acts: lay->total
 * elements. *loss_sum = sum of the B*T per-position cross-entropies (each computed in the
 * instance's arithmetic, summed in binary64 in position order). The gradient is that of the mean
 * loss (the sum / (B T)). Returns SRL_OK or a kernel's error (SRL_ENOMEM, SRL_EINVAL). */
int srl__gpt_pass_emu(const srl__gpt_pass *ps, const float *par, float *grad, const int32_t *tok,
                      float *acts, double *loss_sum);
int srl__gpt_pass_plain(const srl__gpt_pass *ps, const float *par, float *grad,
                        const int32_t *tok, float *acts, double *loss_sum);
int srl__gpt_pass_f64(const srl__gpt_pass *ps, const double *par, double *grad,
                      const int32_t *tok, double *acts, double *loss_sum);

/* The GPT runner with a per-step hook (src/problems/model_impl.h); keys as `srlab train --problem gpt`. */
int srl__gpt_run(const srl_config *cfg, const srl_sink *out, srl_run_report *rep,
                 srl__model_hook hook, void *arg, srl_err *err);

/* A training problem built from a config, for tests and benchmarks: the model (weights layout,
 * callbacks) and the train config; srl__gpt_problem_free releases it. */
typedef struct srl__gpt_problem srl__gpt_problem;
int srl__gpt_problem_new(srl__gpt_problem **out, const srl_config *cfg, srl_err *err);
void srl__gpt_problem_free(srl__gpt_problem *p);
const srl__model *srl__gpt_problem_model(const srl__gpt_problem *p);
const srl_train_config *srl__gpt_problem_train_config(const srl__gpt_problem *p);
const srl__gpt_dims *srl__gpt_problem_dims(const srl__gpt_problem *p);
/* Micro-batch of replica r at step t (what the model's grad callback trains on): B(T+1) tokens. */
void srl__gpt_problem_batch(const srl__gpt_problem *p, size_t r, uint64_t t, int32_t *tok);
/* f*: the best achievable expected validation loss (NaN for text files). */
double srl__gpt_problem_fstar(const srl__gpt_problem *p);

#endif
