/* srlab/theory_opt.h: the predictions of theory/T10, T11 and T12 as functions (DESIGN §9
 * items 10-12), for `srlab check`, `srlab theory` and the model runner (src/models_train.c).
 *
 *   T10  Adam with SR writes: the SR term of the convergence bound is second order in u and
 *        falls with lr; measured as the relative SR penalty of the stationary loss of Adam
 *        (beta1 = 0) on a noisy quadratic, ulp^2 sigma_g^2 / (6 lr^2 sigma^2). With RN every
 *        update is lost below a computable learning rate, and the bias is the whole initial gap.
 *                                                           (theory/T10-adam-convergence.md)
 *   T11  implicit regularization: the mean SR iterate of gradient descent moves along the
 *        gradient of F + (1/2) sum_j F_jj s_j^2 to leading order (exactly along F's on a
 *        quadratic); on f(x) = x^4/4 one SR rounding of y shifts the mean gradient f'(SR(y)) by
 *        exactly 3 y s^2 + ab(b - a), s^2 = ab, a = y - RD(y), b = RU(y) - y.
 *                                                        (theory/T11-implicit-regularization.md)
 *   T12  data-parallel replicas with independent SR streams: from identical states, one write of
 *        the exact value xe puts a squared distance 2 p (1 - p) q^2 between two replicas in mean
 *        (p the probability of rounding away from zero, q the spacing); the sum over steps and
 *        parameters is the random-walk prediction replica_d2_pred. (theory/T12-replicas.md)
 *
 * Formulas are evaluated in binary64 and rounded to nearest; nothing prints, allocates or
 * draws. */
#ifndef SRLAB_THEORY_OPT_H
#define SRLAB_THEORY_OPT_H

#include "srlab/format.h"
#include "srlab/rounding.h"

#ifdef __cplusplus
extern "C" {
#endif

/* ---- T10 ---- */

/* Relative SR penalty (SR excess over exact arithmetic, divided by the exact excess) of the
 * stationary loss of Adam with beta1 = 0 on f = a/2 (x - x*)^2 with gradient noise of standard
 * deviation sigma, weights written with SR on a grid of spacing ulp around x*: with
 * lr' = lr / sigma, ulp^2 (1 + a lr' / (2 - a lr')) / (6 lr^2). (T10 step 4: Adam is SGD with
 * lr / sigma_g, sigma_g^2 = E[g^2] = sigma^2 (1 + a lr' / (2 - a lr')); then T06.) Requires
 * a lr' < 2. */
double srl_t10_adam_relative_penalty(double lr, double ulp, double a, double sigma);

/* The learning rates below which round-to-nearest loses every Adam step at the value x of f
 * when |m_hat / (sqrt(v_hat) + eps)| <= 1 + delta (a frozen iterate: constant gradient): half
 * the smaller of the two gaps around x, divided by 1 + delta (T10 step 5). */
double srl_t10_rn_freeze_lr(double x, const srl_format *f, double delta);

/* ---- T11 ---- */

/* For f(x) = x^4/4 and y with |y| <= xmax: the leading shift of the mean gradient at the SR
 * rounding of y into f, E[f'(SR(y))] - f'(y) ~ f'''(y) s^2 / 2 = 3 y s^2, s^2 = (y - RD)(RU - y)
 * (srl_t01_sr_variance); the exact shift 3 y s^2 + ab(b - a); and the bound q s^2 >= |ab(b - a)|
 * of the remainder (q = RU - RD). The mean gradient step from SR(y) moves by -lr times the
 * shift. 0 when y is a value of f. */
double srl_t11_quartic_shift(double y, const srl_format *f);
double srl_t11_quartic_shift_exact(double y, const srl_format *f);
double srl_t11_quartic_remainder_bound(double y, const srl_format *f);

/* ---- T12 ---- */

/* The probability that writing the exact value xe into f with mode m rounds its magnitude away
 * from zero: the fraction f = (|xe| - T) / q beyond the truncation T for sr, floor(2^R f) / 2^R
 * for sr:r=R (T02), 1/2 for sr-eq; 0 for the deterministic modes, for values of f, for
 * non-finite xe and where the spacing q = RU(xe) - RD(xe) is not finite (overflow). */
double srl_t12_away_prob(double xe, const srl_format *f, srl_rounding m);
/* 2 p (1 - p) q^2 with p = srl_t12_away_prob(xe, f, m) and q the spacing at xe (T12 items 2-3):
 * the mean squared distance that writing xe puts between two replicas rounding it with
 * independent draws (they differ with probability 2 p (1 - p), then by q); 0 where p is. */
double srl_t12_pair_d2(double xe, const srl_format *f, srl_rounding m);

#ifdef __cplusplus
}
#endif
#endif
