/* src/check/t10_freeze.c: the check T10c of theory/T10-adam-convergence.md (step 5): Adam with
 * bf16 weights written under RN, at a learning rate below srl_t10_rn_freeze_lr, loses every step
 * of a noise-free run: the whole initial loss gap remains (RN's bias term), while SR at the same
 * learning rate makes progress. Deterministic (seed 1). T10a-b are in src/check/t06_penalty.c. */
#include "check/check_impl.h"

#include <math.h>

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
