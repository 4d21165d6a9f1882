/* srlab/theory_sum.h: the predictions of theory/T01-T04 as functions (DESIGN §9 items 1-4), for
 * `srlab check`, `srlab theory` and the summation problems (src/problems_sum.c).
 *
 *   T01  SR is unbiased; Var[SR(x)] = (x - RD(x))(RU(x) - x) <= ulp^2/4; |RN(x) - x| <= u|x|,
 *        |SR(x) - x| < 2u|x|                                      (theory/T01-sr-basics.md)
 *   T02  sr:r=R bias: E[SR_R(x)] - x = -sign(x) q (f - floor(f 2^R) / 2^R)
 *                                                                 (theory/T02-sr-bits-bias.md)
 *   T03  summation: the deterministic bound gamma_h, the probabilistic SR bound, and the
 *        harmonic series' stagnation term under the deterministic modes
 *                                                                 (theory/T03-summation.md)
 *   T04  matrix-vector products: normwise/componentwise backward error bounds
 *                                                                 (theory/T04-matvec.md)
 *
 * Conventions: u = 2^-p is the unit roundoff of the format; "v" is the largest relative error
 * of one rounding in the normal range: u for rn and rna (|RN(x) - x| <= ulp/2 <= u|x|), 2u for
 * every other mode, stochastic ones included (the error is less than one ulp, and
 * ulp(x) <= 2u|x|). Bounds are returned as binary64 numbers rounded to nearest from their
 * formulas (a bound is never tight to the last bit, so this is immaterial); +inf where a
 * formula's denominator vanishes (gamma_h for h v >= 1): no bound. Nothing here prints,
 * allocates (except srl_t03_harmonic_stagnation, which does not either) or draws. */
#ifndef SRLAB_THEORY_SUM_H
#define SRLAB_THEORY_SUM_H

#include <stddef.h>
#include <stdint.h>

#include "srlab/common.h"
#include "srlab/format.h"
#include "srlab/kernels.h"
#include "srlab/rounding.h"

#ifdef __cplusplus
extern "C" {
#endif

/* ---- T01 ---- */

/* Var[SR(x)] = (x - RD(x)) (RU(x) - x) for finite x with |x| <= xmax (NaN otherwise); 0 for a
 * value of f. Within 3 roundings of binary64 (both factors are exact when |x| >= xmin or the
 * format has subnormals; the product is rounded once). */
double srl_t01_sr_variance(double x, const srl_format *f);
/* ulp^2 / 4 with ulp = RU(x) - RD(x) the grid spacing around x: the maximum of the variance
 * over the grid interval containing x (at its midpoint). */
double srl_t01_sr_variance_max(double x, const srl_format *f);
/* The largest |RN(x) - x|: u|x| when |x| >= xmin, xsub/2 below (the subnormal spacing is
 * absolute). With subnormals off, xmin/2 below xmin. */
double srl_t01_rn_error_bound(double x, const srl_format *f);
/* The supremum of |SR(x) - x| (never attained for inexact x): 2u|x| when |x| >= xmin, the
 * spacing below (xsub, or xmin without subnormals). */
double srl_t01_sr_error_bound(double x, const srl_format *f);

/* ---- T02 ---- */

/* E[SR_R(x)] - x for the mode sr:r=R (1 <= R <= 64), exactly (every step is exact in binary64
 * for |x| >= 2^-1022): with T = |x| truncated to the grid, q the spacing there and
 * f = (|x| - T)/q, the bias is -sign(x) q (f - floor(f 2^R) 2^-R): always toward zero, of
 * magnitude below q 2^-R; 0 for values of f. NaN for non-finite x, |x| > xmax, or a bad R. */
double srl_t02_sr_bits_bias(double x, const srl_format *f, int R);
/* The supremum q 2^-R of |bias| over the grid interval containing x, and its average q 2^-(R+1)
 * over a fraction f uniform on (0, 1). */
double srl_t02_sr_bits_bias_max(double x, const srl_format *f, int R);
double srl_t02_sr_bits_bias_mean(double x, const srl_format *f, int R);

/* ---- T03 ---- */

/* The per-rounding relative error bound v of mode m in f (see above): u or 2u. */
double srl_t03_unit(const srl_format *f, srl_rounding m);
/* gamma_h(v) = h v / (1 - h v); +inf when h v >= 1. */
double srl_t03_gamma(double h, double v);
/* The number of roundings on the longest path from a term to the result of an n-term sum in
 * order c->order (recursive n-1, pairwise ceil(log2 n), blocked:K (min(n,K) - 1) + (ceil(n/K)
 * - 1)); 0 for n <= 1. Kahan summation is not a plain path: returns -1. */
long srl_t03_path(size_t n, const srl_accum *c);
/* Deterministic bound on |s - S| / sum|x_i| for an n-term sum of values of the accumulator
 * format (Higham, Accuracy and Stability, 2nd ed., §4.2): gamma_h(v) with h = srl_t03_path and
 * v = srl_t03_unit(acc_fmt, acc_mode); gamma_{n-1}(u) for recursive rn. NaN for Kahan. Holds
 * for every run when no intermediate result overflows. */
double srl_t03_sum_bound(size_t n, const srl_accum *c);
/* P(lambda) = 1 - 2 exp(-lambda^2 / 2), clamped at 0: the probability with which the SR
 * bounds below hold. */
double srl_t03_sr_prob(double lambda);
/* The first-order rule lambda sqrt(n) u of Connolly, Higham and Mary (SIAM J. Sci. Comput. 43
 * (2021) A566-A585), quoted for comparison; not a rigorous bound in srlab's normalisation. */
double srl_t03_sr_rule(size_t n, const srl_format *f, double lambda);
/* The rigorous probabilistic bound derived in T03 for recursive summation of n values of f
 * with an unbiased stochastic rounding (sr) of every addition: with probability at least
 * srl_t03_sr_prob(lambda), |s - S| / sum|x_i| <= min(B_fwd, B_bwd), with h = n - 1:
 *     B_fwd = lambda u sqrt(h) (1 + 2u)^(h-1)
 *     B_bwd = exp(2 lambda u sqrt(h) + 2 h u^2 / (1 - 2u)) - 1
 * (the smaller of two valid bounds, chosen from n, u and lambda alone, so the probability is not
 * split). B_fwd is lambda sqrt(n-1) u to first order: the rule above, made rigorous. 0 for
 * n <= 1. Proved for the mode sr; for other modes a reference line. */
double srl_t03_sum_sr_bound(size_t n, const srl_format *f, double lambda);

/* Stagnation of the harmonic series s_1 = t_1, s_k = fl(s_{k-1} + t_k), t_k = fl(1/k), every
 * rounding in f with the deterministic mode m (rn, rna, rz, rd, ru, ro). Computed by exact
 * integer arithmetic on the format's grid, independently of srlab's rounding code, and the
 * criterion of T03: s stops changing at the first k with
 *     rn:  t_k < ulp(s)/2, or t_k = ulp(s)/2 and s even (last significand bit 0);
 *     rna: t_k < ulp(s)/2;   rz, rd: t_k < ulp(s);   ro: t_k < ulp(s) and s odd;   ru: never,
 * where ulp(s) is the spacing above s; once stopped it never moves again (T03). */
typedef struct srl_t03_stagnation {
    int found;          /* 1 when the sum stagnates at some k <= nmax */
    uint64_t k;         /* the first term that leaves the sum unchanged (0 if not found) */
    double sum;         /* the stagnated value s_{k-1} (or s_nmax if not found; NaN for ru,
                           which is not simulated since it never stagnates) */
    double term;        /* t_k (or t_nmax) */
    double ulp;         /* the spacing above sum */
} srl_t03_stagnation;

/* SRL_EINVAL for a stochastic mode or nmax = 0; SRL_ENOTSUP when a term would fall below xmin
 * in a format without subnormals, when the sum would overflow, or when the grid needs more
 * than 126 bits (p + log2(nmax) > 120): err says which. */
int srl_t03_harmonic_stagnation(srl_t03_stagnation *out, const srl_format *f, srl_rounding m,
                                uint64_t nmax, srl_err *err) SRL_WUR;

/* ---- T04 ---- */

/* Deterministic bound on the backward error of y = A x (n columns) computed with config c
 * (each output an n-term inner product, along the order's longest path h):
 *     fma:    (1 + v_a)^(h + 1) - 1
 *     no fma: (1 + v_p) (1 + v_a)^h - 1
 * with v_p, v_a the units of the product and accumulator modes; <= gamma_n for one format and
 * rn. When the product format is not a subset of the accumulator's, the first product is rounded
 * once more into the accumulator (kernels.h) and the exponent h becomes h + 1. Bounds both the
 * componentwise error max_i |yhat_i - y_i| / (|A||x|)_i and the normwise error
 * ||yhat - y||_inf / (||A||_inf ||x||_inf). NaN with Kahan. */
double srl_t04_matvec_bound(size_t n, const srl_accum *c);
/* The probabilistic bound of T04 for the recursive order with stochastic (sr) products and
 * accumulation, holding for all m rows at once with probability at least
 * srl_t03_sr_prob(lambda): with lambda_m = sqrt(lambda^2 + 2 ln m) (a union bound over rows),
 * h = n - 1, u_a the accumulator's unit roundoff, v_a = 2 u_a, v_p = 2 u_p (0 with fma),
 *     exp(v_p + 2 lambda_m u_a sqrt(h) + (h v_a^2 + v_p^2) / (2 (1 - max(v_a, v_p)))) - 1.
 * It is proved for runs whose product and accumulation modes are sr (unbiased, mean
 * independent); for other modes it is only a reference line. NaN unless the order is
 * recursive without Kahan and the product format is a subset of the accumulator's. */
double srl_t04_matvec_sr_bound(size_t n, size_t m, const srl_accum *c, double lambda);

#ifdef __cplusplus
}
#endif
#endif
