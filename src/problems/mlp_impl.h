/* src/problems/mlp_impl.h: the MLP of src/problems/mlp.c (private; tests/problems uses it).
 *
 * Weights, in order: W0 (din, H), b0 (H), W1 (H, H), b1 (H), ..., W_D (H, dout), b_D (dout)
 * (D = depth hidden layers; depth 0 is a linear model din -> dout), named w0, b0, w1, ...
 * The pass (src/problems/mlp_tpl.h, compiled by src/problems/model_instantiate.h) exists as
 * _emu (float, kernels, roundings into the strategy's act and grad slots), _plain (float, plain
 * loops: equal to _emu with the fp32 strategy, bit for bit) and _f64 (binary64: evaluation and
 * gradient checks). */
#ifndef SRL_MLP_IMPL_H
#define SRL_MLP_IMPL_H

#include <stddef.h>
#include <stdint.h>

#include "problems/model_impl.h"
#include "srlab/kernels.h"
#include "srlab/strategy.h"

#define SRL__MLP_MAX_DEPTH 15

enum { MLP_RELU = 0, MLP_GELU = 1, MLP_TANH = 2 };
enum { MLP_TEACHER = 0, MLP_MIXTURE = 1 };

/* Element offsets of one pass's buffers (B rows). */
typedef struct mlp_layout {
    size_t z[SRL__MLP_MAX_DEPTH + 1]; /* z_l (B, n_{l+1}) */
    size_t h[SRL__MLP_MAX_DEPTH + 1]; /* h_l (B, H), l = 1 .. D */
    size_t dz, dh, ones, scratch, total;
} mlp_layout;

typedef struct mlp_pass {
    size_t B, din, H, D, dout;
    int act_fn, task;
    const mlp_layout *lay;
    const size_t *off;        /* weight offsets in the flat arrays */
    const srl_accum *accum;   /* _emu: the products */
    const srl_mxgemm *mx[SRL_STRATEGY_GEMMS]; /* _emu: Fprop, Dgrad, Wgrad block-scaled (NULL:
                                                 the kernels with accum) */
    srl_slot act, grad;       /* _emu: stored activations and gradients */
    srl_rng *rng;             /* _emu: draws, in call order */
    double *row_loss, *row_hit; /* B each */
} mlp_pass;

void srl__mlp_layout_make(mlp_layout *y, size_t B, size_t din, size_t H, size_t D, size_t dout);

int srl__mlp_pass_emu(const mlp_pass *ps, const float *par, float *grad, const float *x,
                      const float *target, const int32_t *label, float *A, double *loss_sum,
                      double *correct);
int srl__mlp_pass_plain(const mlp_pass *ps, const float *par, float *grad, const float *x,
                        const float *target, const int32_t *label, float *A, double *loss_sum,
                        double *correct);
int srl__mlp_pass_f64(const mlp_pass *ps, const double *par, double *grad, const double *x,
                      const double *target, const int32_t *label, double *A, double *loss_sum,
                      double *correct);

/* The MLP runner with a per-step hook; keys as `srlab train --problem mlp`. */
int srl__mlp_run(const srl_config *cfg, const srl_sink *out, srl_run_report *rep,
                 srl__model_hook hook, void *arg, srl_err *err);

#endif
