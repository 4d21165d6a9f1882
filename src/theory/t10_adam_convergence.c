/* src/theory/t10_adam_convergence.c: the predictions of theory/T10-adam-convergence.md
 * (include/srlab/theory.h): Adam with SR writes pays a relative penalty that falls like 1/lr^2
 * (measured on a noisy quadratic with beta1 = 0, where Adam is SGD with lr / sigma_g); with RN
 * every step is lost below a computable learning rate. Comments cite the step they evaluate. */
#include "srlab/theory.h"

#include <math.h>
#include <stdbool.h>
#include <string.h>

#include "srlab/rounding.h"
#include "theory/grid.h"

double srl_t10_sigma_g2_ratio(double lr, double a, double sigma)
{
    /* T10 step 4: sigma_g^2 / sigma^2 = 1 + a lr' / (2 - a lr'), lr' = lr / sigma */
    const double lp = lr / sigma;
    return 1 + a * lp / (2 - a * lp);
}

double srl_t10_adam_relative_penalty(double lr, double ulp, double a, double sigma)
{
    /* T10 step 4: the T06 penalty v(r)/r^2 with lr' = lr / sigma_g (r = lr'sigma/ulp ... in
     * T06's terms v(r) ulp^2 / (lr'^2 sigma^2)), Adam's step noise r = lr' sigma_g / ulp =
     * lr / ulp: v(lr/ulp) ulp^2 sigma_g^2 / (lr^2 sigma^2); ulp^2 sigma_g^2 / (6 lr^2 sigma^2)
     * for r >= 1/2 */
    const double r = lr / ulp;
    return srl_t14_sr_cell_var(r) / (r * r) * srl_t10_sigma_g2_ratio(lr, a, sigma);
}

/* The stationary covariance S of z' = A z + noise of covariance Q (2 x 2, symmetric): the
 * discrete Lyapunov equation S = A S A^T + Q as three linear equations in (S11, S12, S22), by
 * Cramer's rule. false when singular or S is not a covariance (unstable A). */
static bool lyapunov(double S[3], const double A[4], const double Q[3])
{
    const double a = A[0], b = A[1], c = A[2], d = A[3];
    /* (I - M) s = q, M the map s -> (A S A^T)'s (11, 12, 22) entries */
    const double M[3][3] = {{1 - a * a, -2 * a * b, -b * b},
                            {-a * c, 1 - (a * d + b * c), -b * d},
                            {-c * c, -2 * c * d, 1 - d * d}};
    const double det = M[0][0] * (M[1][1] * M[2][2] - M[1][2] * M[2][1]) -
                       M[0][1] * (M[1][0] * M[2][2] - M[1][2] * M[2][0]) +
                       M[0][2] * (M[1][0] * M[2][1] - M[1][1] * M[2][0]);
    if (!(fabs(det) > 0))
        return false;
    for (int k = 0; k < 3; k++) {
        double N[3][3];
        memcpy(N, M, sizeof N);
        for (int i = 0; i < 3; i++)
            N[i][k] = Q[i];
        S[k] = (N[0][0] * (N[1][1] * N[2][2] - N[1][2] * N[2][1]) -
                N[0][1] * (N[1][0] * N[2][2] - N[1][2] * N[2][0]) +
                N[0][2] * (N[1][0] * N[2][1] - N[1][1] * N[2][0])) /
               det;
    }
    return S[0] >= 0 && S[2] >= 0 && S[1] * S[1] <= S[0] * S[2] * (1 + 1e-12);
}

/* One run's stationary state (T10 item 4): sr adds the write's variance w = v(r_m) ulp^2. The
 * fixed point of (sigma_g^2, w) by iteration (each step contracts: both depend on S weakly). */
static bool adam_fixed_point(double *S_ee, double *sg2_out, double *r_m, double lr, double ulp,
                             double a, double sigma, double b1, bool sr)
{
    double sg2 = sigma * sigma, w = 0, S[3] = {0, 0, 0};
    *r_m = 0;
    for (int it = 0; it < 500; it++) {
        const double lp = lr / sqrt(sg2);
        const double A[4] = {1 - lp * (1 - b1) * a, -lp * b1, (1 - b1) * a, b1};
        const double B0 = -lp * (1 - b1) * sigma, B1 = (1 - b1) * sigma;
        const double Q[3] = {B0 * B0 + w, B0 * B1, B1 * B1};
        if (!lyapunov(S, A, Q))
            return false;
        const double rm = sr ? lp * sqrt(S[2]) / ulp : 0;
        const double w_new = sr ? srl_t14_sr_cell_var(rm) * ulp * ulp : 0;
        const double sg2_new = sigma * sigma + a * a * S[0];
        const bool done = fabs(sg2_new - sg2) <= 1e-15 * sg2 && fabs(w_new - w) <= 1e-15 * w_new;
        sg2 = sg2_new, w = w_new, *r_m = rm;
        if (done)
            break;
    }
    *S_ee = S[0];
    *sg2_out = sg2;
    return true;
}

int srl_t10_adam_stationary(srl_t10_adam_model *out, double lr, double ulp, double a,
                            double sigma, double beta1)
{
    out->lr_eff = out->sigma_g2 = out->r_m = out->excess_exact = out->excess_sr = out->penalty =
        NAN;
    if (!(lr > 0 && ulp > 0 && a > 0 && sigma > 0 && beta1 >= 0 && beta1 < 1))
        return SRL_EINVAL;
    double Se, Ss, sg2e, sg2s, r0, rm;
    if (!adam_fixed_point(&Se, &sg2e, &r0, lr, ulp, a, sigma, beta1, false) ||
        !adam_fixed_point(&Ss, &sg2s, &rm, lr, ulp, a, sigma, beta1, true))
        return SRL_EINVAL;
    out->lr_eff = lr / sqrt(sg2e);
    out->sigma_g2 = sg2e;
    out->r_m = rm;
    out->excess_exact = a / 2 * Se;
    out->excess_sr = a / 2 * Ss;
    out->penalty = (Ss - Se) / Se;
    return SRL_OK;
}

double srl_t10_rn_freeze_lr(double x, const srl_format *f, double delta)
{
    /* T10 step 5 with T05 step 1: a step s from the grid value x is lost under RN iff |s| is
     * below half the gap on its side; the gap below a power of two (normal range) is half the
     * spacing at it */
    const double q = srl_format_ulp(f, x);
    return 0.5 * fmin(q, srl__theory_gap_below(fabs(x), f)) / (1 + delta);
}

void srl_t10_eval(srl_t10_values *out, double xstar, double a, double lr, double sigma,
                  double beta1, double x0, double delta, const srl_format *f)
{
    out->ulp = srl_format_ulp(f, xstar);
    out->lr_eff = lr / sigma;
    out->sigma_g2_ratio = srl_t10_sigma_g2_ratio(lr, a, sigma);
    out->relative_penalty = srl_t10_adam_relative_penalty(lr, out->ulp, a, sigma);
    out->penalty_at_2lr = srl_t10_adam_relative_penalty(2 * lr, out->ulp, a, sigma);
    out->beta1 = beta1;
    if (srl_t10_adam_stationary(&out->model, lr, out->ulp, a, sigma, beta1) != SRL_OK)
        out->model.penalty = NAN; /* (already NaN: the caller reports it) */
    out->x0 = srl_round(x0, f, SRL_ROUND_RN, NULL);
    out->rn_freeze_lr = srl_t10_rn_freeze_lr(out->x0, f, delta);
    out->rn_frozen = lr < out->rn_freeze_lr;
}
