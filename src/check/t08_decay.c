/* src/check/t08_decay.c: the checks of theory/T08-weight-decay.md: decoupled weight decay
 * (AdamW on a flat loss, quad1d with a = 0, or one optimizer step on every significand of a
 * binade) under RN and SR.
 *
 *   T08a  RN, lr wd = 2^-10 and exactly 2^-9: no decay step changes x, for x0 of either sign,
 *         powers of two included (deterministic; exact).
 *   T08b  RN, lr wd = 3 2^-10 (between 2^-9 and 2^-8): the fraction of the 128 bf16 values of
 *         [1, 2) whose decay is lost equals srl_t08_lost_fraction, and every value's outcome
 *         agrees with srl_t08_rn_decay_lost (exact).
 *   T08c  SR: the mean over seeds of x_T is x0 (1 - lr wd)^T (srl_t08_sr_mean), within the SR
 *         variance's interval and the binary32 arithmetic's bias.
 * Seeds 1 .. N (T08c); T08a-b are deterministic. */
#include "check/check_impl.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "srlab/format.h"
#include "srlab/optim.h"
#include "srlab/strategy.h"
#include "srlab/theory.h"

/* AdamW with a flat loss (a = 0): weight decay alone, from x0. */
static void decay_kv(srl__chk_kv *kv, const char *strategy, double x0, double lr, double wd,
                     uint64_t steps, uint64_t every)
{
    srl__chk_kv_set(kv, "opt", "adamw");
    srl__chk_kv_set(kv, "strategy", "%s", strategy);
    srl__chk_kv_set(kv, "a", "0");
    srl__chk_kv_set(kv, "xstar", "0");
    srl__chk_kv_set(kv, "x0", "%.17g", x0);
    srl__chk_kv_set(kv, "lr", "%.17g", lr);
    srl__chk_kv_set(kv, "wd", "%.17g", wd);
    srl__chk_kv_set(kv, "steps", "%llu", (unsigned long long)steps);
    srl__chk_kv_set(kv, "log-every", "%llu", (unsigned long long)every);
}

int srl__chk_decay_rn_lost(srl_check_result *out, const srl__chk_row *row,
                           const srl_check_opts *o, srl_err *err)
{
    /* lr wd = 2^-10 and exactly 2^-9 (lr, wd powers of two: exact in binary32) */
    static const double lrs[] = {0x1p-6, 0x1p-5};
    static const double x0s[] = {1, 1.3671875, -0.80078125, 3, 0x1p-20, 100.5, -1.9921875};
    const size_t nx = sizeof x0s / sizeof x0s[0];
    const uint64_t steps = 50;
    uint64_t moved = 0, cases = 0;
    for (size_t a = 0; a < 2; a++)
        for (size_t i = 0; i < nx; i++) {
            srl__chk_kv kv;
            srl__chk_kv_init(&kv);
            decay_kv(&kv, o->mutation == SRL_CHECK_MUT_EXPERIMENT ? "bf16-sr" : "bf16-rn",
                     x0s[i], lrs[a], 0x1p-4, steps, 1);
            srl__chk_rows r;
            int st = srl__chk_run(&r, SRL_RUN_TRAIN, "quad1d", &kv, 1, NULL, NULL, err);
            if (st)
                return st;
            for (size_t k = 1; k < r.n; k++) {
                cases++;
                /* lost: the stored x is unchanged, and the step reports it lost */
                moved += srl__chk_col(&r, k, "x") != x0s[i] ||
                         srl__chk_col(&r, k, "lost_update_frac") != 1;
            }
            srl__chk_rows_free(&r);
        }
    srl__chk_result_begin(
        out, row->check.id,
        "decay steps that changed x, of %llu (AdamW with a flat loss, "
        "bf16-rn, lr wd = 2^-10 and = 2^-9, %zu values of x0 incl. powers of two, "
        "%llu steps each, deterministic); predicted 0 (lost for every x)",
        (unsigned long long)cases, nx, (unsigned long long)steps);
    srl__chk_result_set(out, SRL_CHECK_EXACT, (double)moved, (double)moved, (double)moved, 0.0);
    return SRL_OK;
}

int srl__chk_decay_lost_fraction(srl_check_result *out, const srl__chk_row *row,
                                 const srl_check_opts *o, srl_err *err)
{
    const srl_format *f = srl__chk_bf16();
    const size_t n = (size_t)1 << (f->p - 1);  /* the significands of the binade [1, 2) */
    const double lr = 0x1p-5, wd = 3 * 0x1p-5; /* lr wd = 3 2^-10 in (2^-9, 2^-8) */
    srl_strategy s;
    int st = srl_strategy_preset(&s, "bf16-rn", err);
    if (st)
        return st;
    if (o->mutation == SRL_CHECK_MUT_EXPERIMENT)
        s.param.mode = (srl_rounding){SRL_RZ, 0};
    srl_weight_spec spec = {"x", 1, {n, 0, 0, 0}};
    srl_rng root;
    srl_rng_init(&root, SRL_RNG_DEFAULT, 1, srl_hash_str("T08b"));
    srl_weights W;
    if ((st = srl_weights_alloc(&W, &spec, 1, &s, SRL_OPTIM_ADAMW, &root, err)))
        return st;
    double *x0 = malloc(n * sizeof *x0), *g = calloc(n, sizeof *g), *x1 = malloc(n * sizeof *x1);
    if (!x0 || !g || !x1) {
        st = srl_err_set(err, SRL_ENOMEM, "out of memory");
        goto done;
    }
    for (size_t i = 0; i < n; i++)
        x0[i] = ldexp((double)(n + i), 1 - f->p); /* M 2^(1-p), M = 2^(p-1) .. 2^p - 1 */
    if ((st = srl_weights_init(&W, 0, x0, err)) || (st = srl_weights_set_grad_d(&W, 0, g, 1)))
        goto done;
    srl_optim_config c;
    memset(&c, 0, sizeof c);
    c.kind = SRL_OPTIM_ADAMW;
    c.lr = lr;
    c.beta1 = 0.9;
    c.beta2 = 0.999;
    c.eps = 1e-8;
    c.wd = wd;
    c.schedule = SRL_SCHED_CONSTANT;
    c.steps = 1;
    srl_step_stats ss;
    if ((st = srl_optim_step(&ss, &W, &c, 1, lr))) {
        srl_err_set(err, st, "srl_optim_step failed");
        goto done;
    }
    srl_weights_values(x1, &W, 0);
    /* every element's outcome against T08's exact decision, and the count */
    uint64_t disagree = 0;
    for (size_t i = 0; i < n; i++)
        disagree += (x1[i] == x0[i]) != srl_t08_rn_decay_lost(x0[i], lr * wd, f);
    const double meas = (double)ss.lost / (double)n, pred = srl_t08_lost_fraction(lr * wd, f);
    srl__chk_result_begin(
        out, row->check.id,
        "fraction of the %zu bf16 values of [1, 2) whose decay step "
        "(AdamW, zero gradient, lr wd = 3 2^-10, bf16-rn, one step) is lost; %llu "
        "values disagree with the exact per-value decision; predicted by "
        "srl_t08_lost_fraction",
        n, (unsigned long long)disagree);
    srl__chk_result_set(out, SRL_CHECK_EXACT, meas, meas, meas, pred);
    if (disagree) {
        out->pass = false;
        out->margin = fmin(out->margin, -(double)disagree / (double)n);
    }
done:
    free(x0);
    free(g);
    free(x1);
    srl_weights_free(&W);
    return st;
}

static int xlast_reduce(const srl__chk_job *j, uint64_t seed, const srl__chk_rows *rows,
                        double *out, srl_err *err)
{
    (void)j;
    (void)seed;
    (void)err;
    out[0] = srl__chk_last(&rows[0], "x");
    return SRL_OK;
}

int srl__chk_decay_sr_mean(srl_check_result *out, const srl__chk_row *row,
                           const srl_check_opts *o, srl_err *err)
{
    const uint64_t N = srl__chk_seeds(o, 100, 400), T = 1000;
    const double lr = 1e-3, wd = 0.1, x0 = 1;
    srl__chk_job j;
    srl__chk_job_init(&j, "quad1d", 1, 1, xlast_reduce, NULL);
    decay_kv(&j.kv[0], o->mutation == SRL_CHECK_MUT_EXPERIMENT ? "bf16-rn" : "bf16-sr", x0, lr,
             wd, T, T);
    int st = srl__chk_job_run(&j, N, err);
    if (st)
        return st;
    double mean, var;
    srl__chk_mean_var(&mean, &var, j.out, (size_t)N);
    free(j.out);
    /* T08 tolerance: Var(x_T) <= T q^2 / 4 (q = 2^-8 on (0.5, 1]), plus 3 u32 T for the binary32
     * arithmetic's roundings */
    const double q = 0x1p-8;
    const double half = srl__chk_z(SRL_CHECK_ALPHA) * sqrt((double)T * q * q / 4 / (double)N) +
                        3 * SRL__CHK_U32 * (double)T;
    const double pred = srl_t08_sr_mean(x0, lr * wd, T);
    srl__chk_result_begin(out, row->check.id,
                          "mean over seeds 1-%llu of x_T after T = %llu AdamW decay "
                          "steps (flat loss, bf16-sr, lr 1e-3, wd 0.1, x0 1); predicted x0 (1 - lr "
                          "wd)^T",
                          (unsigned long long)N, (unsigned long long)T);
    srl__chk_result_set(out, SRL_CHECK_INTERVAL, mean, mean - half, mean + half, pred);
    return SRL_OK;
}
