/* src/check/t10_freeze.c: the checks T10c-e of theory/T10-adam-convergence.md.
 *   T10c  (step 5) Adam with bf16 weights written under RN, at a learning rate below
 *         srl_t10_rn_freeze_lr, loses every step of a noise-free run: the whole initial loss gap
 *         remains (RN's bias term), while SR at the same learning rate makes progress.
 *   T10d, T10e  (step 6) where RN still moves: coordinates in ten binades, Adam's step s against
 *         each spacing q_i: frozen iff s < q_i/2, else moved by q_i rint(s/q_i) per step (RN's
 *         bias), beta1 0 and 0.9.
 * Deterministic (seed 1). T10a-b are in src/check/t06_penalty.c. */
#include "check/check_impl.h"

#include <math.h>

#include "srlab/format.h"
#include "srlab/optim.h"
#include "srlab/rng.h"
#include "srlab/strategy.h"
#include "srlab/theory.h"

int srl__chk_adam_rn_freeze(srl_check_result *out, const srl__chk_row *row,
                            const srl_check_opts *o, srl_err *err)
{
    /* x0 = 1.5 in every coordinate: the gaps to both neighbours are ulp = 2^-7; with a constant
     * gradient (a frozen iterate), m_hat / sqrt(v_hat) = 1 up to the binary32 moments' roundings,
     * so every step is lr (1 +- 10^-4) < ulp/2 = 2^-8 for lr = 0.003 (T10 step 5) */
    const double lr = 0.003, x0 = 1.5;
    const double freeze = srl_t10_rn_freeze_lr(x0, srl__chk_bf16(), 3e-4);
    if (!(lr < freeze))
        return srl_err_set(err, SRL_EINVAL, "%s: lr %g is not below the freeze lr %g",
                           row->check.id, lr, freeze);
    const uint64_t steps = 2000;
    double ratio[2];
    for (int k = 0; k < 2; k++) {
        const bool sr = (k == 1) != (o->mutation == SRL_CHECK_MUT_EXPERIMENT);
        srl__chk_kv kv;
        srl__chk_kv_init(&kv);
        srl__chk_kv_set(&kv, "opt", "adam");
        srl__chk_kv_set(&kv, "format", "bf16");
        srl__chk_kv_set(&kv, "rounding", sr ? "sr" : "rn");
        srl__chk_kv_set(&kv, "d", "16");
        srl__chk_kv_set(&kv, "kappa", "10");
        srl__chk_kv_set(&kv, "x0", "%.17g", x0);
        srl__chk_kv_set(&kv, "lr", "%.17g", lr);
        srl__chk_kv_set(&kv, "steps", "%llu", (unsigned long long)steps);
        srl__chk_kv_set(&kv, "log-every", "%llu", (unsigned long long)steps);
        srl__chk_rows r;
        int st = srl__chk_run(&r, SRL_RUN_TRAIN, "quadratic", &kv, 1, NULL, NULL, err);
        if (st)
            return st;
        ratio[k] = srl__chk_last(&r, "loss_gap") / srl__chk_col(&r, 0, "loss_gap");
        srl__chk_rows_free(&r);
    }
    srl__chk_result_begin(
        out, row->check.id,
        "loss_gap(T) / loss_gap(0) of Adam (beta1 0.9, beta2 0.999) "
        "with bf16 rn weights on a quadratic (d 16, kappa 10, x0 1.5, seed 1), lr "
        "0.003 below the freeze lr %.6g, T = %llu: the RN bias term; predicted 1 (no "
        "progress, for any T); SR at the same lr reaches %.3g",
        freeze, (unsigned long long)steps, ratio[1]);
    srl__chk_result_set(out, SRL_CHECK_EXACT, ratio[0], ratio[0], ratio[0], 1.0);
    return SRL_OK;
}

/* ---- T10d, T10e: where RN still moves (theory/T10 step 6) ---- */

#define T10D_D 10 /* coordinates, x0_i = 1.5 2^(i-4): binades 2^-4 .. 2^5 */
#define T10D_T 8  /* steps: no coordinate leaves its binade */

/* Adam with a constant gradient gamma in every coordinate (a linear loss), bf16 weights written
 * under RN (strategy bf16-rn), beta1 = row's, beta2 0.999, eps 1e-8: after bias correction every
 * step is s = lr gamma / (gamma + eps) (up to binary32 roundings of the moments, relative
 * 1e-6), and RN moves coordinate i by the multiple of its spacing q_i nearest to s: T steps move
 * it by D_i = T q_i rint(s / q_i); frozen (D_i = 0) iff s < q_i / 2. Measured: the largest
 * |D_i(measured) - D_i(predicted)| over the coordinates, in units of T s (exact: 0). */
int srl__chk_adam_rn_moves(srl_check_result *out, const srl__chk_row *row,
                           const srl_check_opts *o, srl_err *err)
{
    (void)o->quick; /* deterministic and small: the same at every size */
    const double lr = 0.003, gamma = 1e-4, eps = 1e-8, beta1 = row->params.beta1;
    srl_strategy strat;
    int st = srl_strategy_preset(&strat, o->mutation == SRL_CHECK_MUT_EXPERIMENT ? "bf16-sr"
                                                                                 : "bf16-rn",
                                 err);
    if (st)
        return st;
    srl_weight_spec spec = {"x", 1, {T10D_D, 0, 0, 0}};
    srl_rng root;
    srl_rng_init(&root, SRL_RNG_DEFAULT, 1, srl_hash_str(row->check.id));
    srl_weights W;
    if ((st = srl_weights_alloc(&W, &spec, 1, &strat, SRL_OPTIM_ADAM, &root, err)))
        return st;
    double x0[T10D_D], g[T10D_D], x[T10D_D];
    for (size_t i = 0; i < T10D_D; i++) {
        x0[i] = ldexp(1.5, (int)i - 4);
        g[i] = gamma;
    }
    srl_optim_config c = {.kind = SRL_OPTIM_ADAM, .lr = lr, .beta1 = beta1, .beta2 = 0.999,
                          .eps = eps, .schedule = SRL_SCHED_CONSTANT, .steps = T10D_T};
    st = srl_weights_init(&W, 0, x0, err);
    for (uint64_t t = 1; t <= T10D_T && !st; t++) {
        st = srl_weights_set_grad_d(&W, 0, g, t);
        if (!st)
            st = srl_optim_step(NULL, &W, &c, t, lr);
    }
    if (st) {
        srl_weights_free(&W);
        return st == SRL_OK ? st : srl_err_set(err, st, "%s: the Adam steps failed", row->check.id);
    }
    srl_weights_values(x, &W, 0);
    srl_weights_free(&W);
    /* the prediction (T10 step 6); s / q_i must not sit near a half-integer, where binary32's
     * moments could tip the nearest multiple (1e-4 is 100 times their relative error) */
    const double s = lr * gamma / (gamma + eps), Ts = T10D_T * s;
    double worst = 0, bias_meas = 0, bias_pred = 0;
    int frozen_pred = 0, frozen_meas = 0;
    for (size_t i = 0; i < T10D_D; i++) {
        const double q = srl_format_ulp(srl__chk_bf16(), x0[i]), r = s / q;
        if (fabs(r - floor(r) - 0.5) < 1e-4)
            return srl_err_set(err, SRL_EINVAL, "%s: s/q = %.9g is too close to a tie",
                               row->check.id, r);
        double pred = T10D_T * q * rint(r);
        if (o->mutation == SRL_CHECK_MUT_PREDICTION)
            pred = Ts; /* no bias: the exact step */
        const double meas = x0[i] - x[i];
        worst = fmax(worst, fabs(meas - pred) / Ts);
        frozen_pred += pred == 0;
        frozen_meas += meas == 0;
        bias_meas += (meas - Ts) / Ts;
        bias_pred += (pred - Ts) / Ts;
    }
    srl__chk_result_begin(
        out, row->check.id,
        "Adam (beta1 %g, beta2 0.999, eps 1e-8), bf16 rn weights x0_i = 1.5 2^(i-4), i < %d, "
        "constant gradient 1e-4, lr 0.003, %d steps (seed 1): max_i |D_i - T q_i rint(s/q_i)| / "
        "(T s), s = lr g/(g + eps); frozen %d (predicted %d, s < q_i/2); mean RN bias of the "
        "displacement (D - T s)/(T s) %.4g (predicted %.4g)",
        beta1, T10D_D, T10D_T, frozen_meas, frozen_pred, bias_meas / T10D_D, bias_pred / T10D_D);
    srl__chk_result_set(out, SRL_CHECK_EXACT, worst, worst, worst, 0.0);
    return SRL_OK;
}
