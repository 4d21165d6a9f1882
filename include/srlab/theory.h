/* srlab/theory.h: the predictions of theory/T01-T13 as functions (docs/design.md §9), for
 * `srlab theory`, `srlab check`, the problems that log a prediction beside a measurement, and
 * the tests. One section per statement, in the order of theory/README.md:
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
 *   T05  gradient descent on f(x) = a/2 (x - x*)^2: the RN freeze threshold and stall distance
 *        ulp/(2 lr a), the exact RN stall point (the rounded map iterated), the SR mean iterate
 *        (the exact GD iterate) and the SR excess-loss floor (a/2)(x* - g0)(g1 - x*), which does
 *        not depend on lr                                   (theory/T05-gd-quadratic.md)
 *   T06  noisy SGD: stationary excess loss in exact arithmetic and the extra from SR; their
 *        ratio v(r)/r^2, r = lr sigma / ulp (ulp^2 / (6 lr^2 sigma^2) for r >= 1/2)
 *                                                             (theory/T06-noisy-sgd.md)
 *   T07  SR at small learning rates is a random walk: moves per step Bernoulli(lr|g|/ulp),
 *        waiting and covering times                           (theory/T07-sr-random-walk.md)
 *   T08  decoupled weight decay under RN is lost for every x when lr wd <= 2^-(p+1) (2^-9 in
 *        bf16); the exact fraction of a binade where it is lost; SR applies it in mean
 *                                                               (theory/T08-weight-decay.md)
 *   T09  the second moment v under RN with beta2 close to 1: whether it can decrease, and the
 *        multiple of v that g^2 must exceed for it to rise     (theory/T09-second-moment.md)
 *   T10  Adam with SR writes: the SR term of the convergence bound is second order in u and
 *        falls with lr; measured as the relative SR penalty of the stationary loss of Adam
 *        (beta1 = 0) on a noisy quadratic, ulp^2 sigma_g^2 / (6 lr^2 sigma^2). With RN every
 *        update is lost below a computable learning rate, and the bias is the whole initial gap.
 *                                                           (theory/T10-adam-convergence.md)
 *   T11  implicit regularization: the mean SR iterate of gradient descent moves along the
 *        gradient of F + (1/2) tr(H Sigma_t) to leading order, Sigma_t the iterate's covariance
 *        (its recursion: srl_t11_sigma_next; exactly along F's on a quadratic); on
 *        f(x) = x^4/4 one SR rounding of y shifts the mean gradient f'(SR(y)) by exactly
 *        3 y s^2 + ab(b - a), s^2 = ab, a = y - RD(y), b = RU(y) - y.
 *                                                        (theory/T11-implicit-regularization.md)
 *   T12  data-parallel replicas with independent SR streams: from identical states, one write of
 *        the exact value xe puts a squared distance 2 p (1 - p) q^2 between two replicas in mean
 *        (p the probability of rounding away from zero, q the spacing); the sum over steps and
 *        parameters is the random-walk prediction replica_d2_pred. (theory/T12-replicas.md)
 *   T13  bytes per parameter of each strategy                  (theory/T13-memory.md)
 *   T14  noisy SGD with RN or SR writes: RN's gain and step variance, SR's added variance, the
 *        excess loss after T steps, RN's freeze, SR's plateau below lr* = ulp/(sigma sqrt 6),
 *        the crossover learning rate                          (theory/T14-sr-vs-rn.md)
 *   T15  the heat equation in low precision (Croci and Giles 2022): RN stagnates for small dt,
 *        SR's error grows like u dt^-1/4                        (theory/T15-heat-equation.md)
 *   T16  Kahan-compensated weight writes under RN and SR         (theory/T16-kahan-updates.md)
 *   T17  the variance bound of SR summation, recursive and pairwise, and its Chebyshev bound
 *                                                              (theory/T17-sr-sum-variance.md)
 *
 * Conventions: u = 2^-p is the unit roundoff of the format; ulp(x) is the grid spacing of the
 * format at x (srl_format_ulp); "v" is the largest relative error of one rounding in the normal
 * range: u for rn and rna (|RN(x) - x| <= ulp/2 <= u|x|), 2u for every other mode, stochastic
 * ones included (the error is less than one ulp, and ulp(x) <= 2u|x|). Unless a function says
 * otherwise its inputs are finite and lr > 0. Formulas are evaluated in binary64 and rounded to
 * nearest (a bound is never tight to the last bit, so this is immaterial); +inf where a
 * formula's denominator vanishes (gamma_h for h v >= 1): no bound. Nothing here prints,
 * allocates or draws.
 *
 * Besides its formulas, each statement T01-T12, T15-T17 has srl_tNN_values and srl_tNN_eval: every
 * prediction of the statement at one point of its parameters, composed of the functions of its
 * section (the values `srlab theory TNN` prints; `srlab check` calls the same functions). The
 * sources are src/theory/tNN_slug.c, one per theory/TNN-slug.md. */
#ifndef SRLAB_THEORY_H
#define SRLAB_THEORY_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "srlab/common.h"
#include "srlab/format.h"
#include "srlab/kernels.h"
#include "srlab/optim.h"
#include "srlab/rounding.h"
#include "srlab/strategy.h"

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

/* RD(x) and RU(x): the two values of f one rounding of x chooses between (equal when x is a
 * value of f). */
void srl_t01_neighbours(double *rd, double *ru, double x, const srl_format *f);
/* The larger of the two errors SR can make at x: max(x - RD(x), RU(x) - x). */
double srl_t01_sr_error_max(double x, const srl_format *f);

/* Every prediction of T01 at x (|x| <= xmax), the values `srlab theory T01` prints. */
typedef struct srl_t01_values {
    double u;               /* 2^-p */
    double rd, ru;          /* srl_t01_neighbours */
    double q;               /* RU(x) - RD(x), the grid spacing at x; 0 for a value of f */
    bool inexact;           /* q > 0 (the next two are NaN otherwise) */
    double p_up;            /* (x - RD(x)) / q: SR returns RU(x) with this probability */
    double sr_mean;         /* RD + q p_up: E[SR(x)] = x (item 1) */
    double sr_variance;     /* srl_t01_sr_variance (item 2) */
    double sr_variance_max; /* srl_t01_sr_variance_max */
    double rn;              /* RN(x) */
    double rn_error;        /* |RN(x) - x| */
    double rn_error_bound;  /* srl_t01_rn_error_bound (item 3) */
    double sr_error_max;    /* srl_t01_sr_error_max */
    double sr_error_bound;  /* srl_t01_sr_error_bound (item 4) */
} srl_t01_values;
void srl_t01_eval(srl_t01_values *out, double x, const srl_format *f);

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

/* Var[SR_R(x)] = q^2 P (1 - P): the two-point law with P = srl_t12_away_prob(x, f, sr:r=R), q
 * the spacing at x. */
double srl_t02_sr_bits_variance(double x, const srl_format *f, int R);

/* Every prediction of T02 at x (|x| <= xmax) for sr:r=R, as `srlab theory T02` prints them. */
typedef struct srl_t02_values {
    double q;         /* the grid spacing at x */
    double frac;      /* f = (|x| - T) / q: exact sr rounds away from zero with this probability */
    double p_away;    /* floor(f 2^R) / 2^R: sr:r=R does */
    double bias;      /* srl_t02_sr_bits_bias */
    double bias_ulps; /* bias / q */
    double bias_max;  /* srl_t02_sr_bits_bias_max */
    double bias_mean; /* srl_t02_sr_bits_bias_mean */
    double variance;  /* srl_t02_sr_bits_variance */
} srl_t02_values;
void srl_t02_eval(srl_t02_values *out, double x, const srl_format *f, int R);

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

/* Every prediction of T03 for n terms summed with config c (its accumulator's format and mode,
 * its order), lambda, and the harmonic series searched up to nmax terms, as `srlab theory T03`
 * prints them. */
typedef struct srl_t03_values {
    double u;                    /* the accumulator format's 2^-p */
    double v;                    /* srl_t03_unit of the accumulation */
    double h;                    /* srl_t03_path */
    double gamma;                /* srl_t03_sum_bound (item 1) */
    double sr_prob;              /* srl_t03_sr_prob */
    double sr_rule;              /* srl_t03_sr_rule */
    double sr_bound;             /* srl_t03_sum_sr_bound (item 2) */
    srl_rounding harmonic_mode;  /* the accumulation mode, or rn for a stochastic one (the
                                    contrast: the criterion is for the deterministic modes) */
    int harmonic_status;         /* srl_t03_harmonic_stagnation's status (item 3) ... */
    srl_err harmonic_err;        /* ... its message when not SRL_OK ... */
    srl_t03_stagnation harmonic; /* ... and its result when SRL_OK */
} srl_t03_values;
void srl_t03_eval(srl_t03_values *out, size_t n, const srl_accum *c, double lambda,
                  uint64_t nmax);

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

/* lambda_m = sqrt(lambda^2 + 2 ln m), m >= 1 (m = 0 counts as 1): the union bound over m rows.
 * Each row's bound at lambda_m fails with probability 2 exp(-lambda_m^2/2) = 2 exp(-lambda^2/2)
 * / m, so all m hold at once with probability srl_t03_sr_prob(lambda). */
double srl_t04_union_lambda(double lambda, size_t m);

/* Every prediction of T04 for y = A x with A m x n and config c, as `srlab theory T04` prints
 * them. */
typedef struct srl_t04_values {
    double nu;       /* n u: the worst-case scale of RN's backward error */
    double sqrt_nu;  /* sqrt(n) u: the scale of SR's */
    double h;        /* srl_t03_path */
    double theta;    /* srl_t04_matvec_bound (item 1) */
    double gamma_n;  /* srl_t03_gamma(n, u) */
    double lambda_m; /* srl_t04_union_lambda */
    double sr_prob;  /* srl_t03_sr_prob */
    double sr_bound; /* srl_t04_matvec_sr_bound (item 2) */
} srl_t04_values;
void srl_t04_eval(srl_t04_values *out, size_t n, size_t m, const srl_accum *c, double lambda);

/* ---- T05 ---- */

/* The grid neighbours g0 <= x <= g1 of x in f (equal when x is a value of f). */
void srl_t05_neighbours(double *g0, double *g1, double x, const srl_format *f);

/* |g| below which a step lr*g from x is lost under RN: ulp(x) / (2 lr) (half the spacing; the
 * spacing below x when the step goes down across a power of two is half as large: then ulp/4
 * instead of ulp/2; this function returns the spacing at x, the formula of T05). */
double srl_t05_freeze_grad(double x, double lr, const srl_format *f);

/* The stall distance ulp(x*) / (2 lr a): GD under RN stops moving once |x - x*| falls below it
 * (when the stall zone lies in one binade and is wider than one ulp). */
double srl_t05_stall_distance(double xstar, double lr, double a, const srl_format *f);

/* The exact GD iterate x* + (1 - lr a)^t (x0 - x*), which the SR mean follows (x0: the initial
 * point as stored). */
double srl_t05_gd_iterate(double a, double xstar, double x0, double lr, uint64_t t);

/* The SR floor (a/2)(x* - g0)(g1 - x*) of the stationary excess loss (for 0 < lr a <= 1). */
double srl_t05_sr_floor(double a, double xstar, const srl_format *f);

/* The RN stall point found by iterating exactly the operations `srlab train --problem quad1d
 * --opt sgd --format F --rounding rn [--grad-format G] [--update-arith A]` performs:
 *     x_0 = RN_F(x0);  g = RN_G(a * (x - x*)) (binary64 product and difference);
 *     x <- RN_F(x - lr*g) with lr*g and the subtraction in A (binary32 or binary64),
 * until x stops changing (a fixed point) or max_steps steps. */
typedef struct srl_t05_stall {
    bool fixed;       /* a fixed point was reached */
    uint64_t step;    /* the first step after which x no longer changes (or max_steps) */
    double x;         /* the stall point (or the iterate after max_steps) */
    double distance;  /* |x - x*| */
} srl_t05_stall;
int srl_t05_rn_stall(srl_t05_stall *out, double a, double xstar, double x0, double lr,
                     const srl_format *f, const srl_format *grad_fmt, srl_arith arith,
                     uint64_t max_steps) SRL_WUR;

/* The loss gap f(x) - f* = a/2 d^2 at distance d = |x - x*|. */
double srl_t05_loss_gap(double a, double distance);

/* The step limit of srl_t05_eval's srl_t05_rn_stall. */
#define SRL_T05_STALL_MAX_STEPS 10000000

/* Every prediction of T05 for GD on a/2 (x - x*)^2 in f from x0 at lr, as `srlab theory T05`
 * prints them; the RN run with gradients in grad_fmt and updates in arith. Returns
 * srl_t05_rn_stall's status. */
typedef struct srl_t05_values {
    double u;               /* 2^-p */
    double ulp;             /* the grid spacing at x* */
    double freeze_grad;     /* srl_t05_freeze_grad at x* */
    double stall_distance;  /* srl_t05_stall_distance: D */
    bool band;              /* D >= ulp: the stall point lies in [D - ulp, D] */
    double band_lo;         /* D - ulp */
    srl_t05_stall stall;    /* srl_t05_rn_stall from x0, at most SRL_T05_STALL_MAX_STEPS */
    double stall_ratio;     /* stall.distance / D */
    double stall_loss_gap;  /* srl_t05_loss_gap at stall.distance: kept forever */
    double g0, g1;          /* srl_t05_neighbours of x* */
    double sr_floor;        /* srl_t05_sr_floor */
    double x0;              /* RN(x0): the stored start */
    double sr_mean_iterate; /* srl_t05_gd_iterate from the stored x0 at t = steps */
} srl_t05_values;
int srl_t05_eval(srl_t05_values *out, double a, double xstar, double x0, double lr,
                 uint64_t steps, const srl_format *f, const srl_format *grad_fmt,
                 srl_arith arith) SRL_WUR;

/* ---- T06 ---- */

/* Stationary excess loss of SGD on f = a/2 (x - x*)^2 with gradient noise of standard deviation
 * sigma, in exact arithmetic: a/2 Var = lr sigma^2 / (2 (2 - lr a))  (about lr sigma^2 / 4). */
double srl_t06_excess_exact(double lr, double sigma, double a);
/* r = lr sigma / ulp: the exact step's noise in spacings, the variable that sets the regime
 * (T06 item 2: the weight sits on the grid, so the position of its exact new value in its cell is
 * that of the step). */
double srl_t06_r(double lr, double sigma, double ulp);
/* The extra excess from SR writes, E[(y - RD)(RU - y)] = v(r) ulp^2 per step (v =
 * srl_t14_sr_cell_var): v(r) ulp^2 / (2 lr (2 - lr a)). */
double srl_t06_excess_sr(double lr, double sigma, double ulp, double a);
/* Its large-r form, v = 1/6 (r >= 1/2, within 0.44%): ulp^2 / (12 lr (2 - lr a)). */
double srl_t06_excess_sr_large_r(double lr, double ulp, double a);
/* Their ratio v(r) / r^2: the relative SR penalty; ulp^2 / (6 lr^2 sigma^2) for r >= 1/2
 * (srl_t06_relative_penalty_large_r), below that smaller (by 17% at r = 1/4), tending to
 * sqrt(2/pi) / r as r -> 0. */
double srl_t06_relative_penalty(double lr, double ulp, double sigma);
double srl_t06_relative_penalty_large_r(double lr, double ulp, double sigma);
/* The learning rate at which srl_t06_relative_penalty equals penalty (> 0): v(r)/r^2 falls as r
 * grows, so the root is unique (bisection on r). */
double srl_t06_penalty_lr(double penalty, double ulp, double sigma);

/* Every prediction of T06 for noisy SGD around x* in f, as `srlab theory T06` prints them
 * (requires lr a < 2). */
typedef struct srl_t06_values {
    double ulp;              /* the grid spacing at x* */
    double r;                /* srl_t06_r */
    double excess_exact;     /* srl_t06_excess_exact */
    double excess_sr;        /* srl_t06_excess_sr */
    double relative_penalty; /* srl_t06_relative_penalty */
    double penalty_large_r;  /* srl_t06_relative_penalty_large_r */
    double lr_for_1pct;      /* srl_t06_penalty_lr at 1% */
} srl_t06_values;
void srl_t06_eval(srl_t06_values *out, double xstar, double a, double lr, double sigma,
                  const srl_format *f);

/* ---- T07 ---- */

/* Moves per step of an SR walk with drift d = lr |g| < ulp: Bernoulli(p), p = d / ulp. */
double srl_t07_move_prob(double lr, double g, double ulp);
/* Steps to move K = distance / ulp grid steps at constant p (negative binomial): mean K / p and
 * standard deviation sqrt(K (1 - p)) / p. */
void srl_t07_cover_steps(double *mean, double *sd, double distance, double ulp, double p);

/* The mean wait between moves, 1 / p steps (geometric). */
double srl_t07_wait_steps(double p);
/* The moves in `steps` steps, Binomial(steps, p): mean steps p, sd sqrt(steps p (1 - p)). */
void srl_t07_moves(double *mean, double *sd, uint64_t steps, double p);

/* Every prediction of T07 at the weight x with the constant gradient g, as `srlab theory T07`
 * prints them (a walk needs 0 < move_prob < 1). */
typedef struct srl_t07_values {
    double ulp;                  /* the grid spacing at x */
    double drift;                /* lr |g|: the exact step */
    double move_prob;            /* srl_t07_move_prob */
    bool rn_frozen;              /* lr |g| < ulp/2: RN never moves (T05 step 1) */
    double moves_mean, moves_sd; /* srl_t07_moves */
    double wait_mean;            /* srl_t07_wait_steps */
    double cover_mean, cover_sd; /* srl_t07_cover_steps over `distance` */
} srl_t07_values;
void srl_t07_eval(srl_t07_values *out, double x, double lr, double g, uint64_t steps,
                  double distance, const srl_format *f);

/* ---- T08 ---- */

/* Is a decay step x <- x - lr wd x (exact real decrement) lost under RN in f, i.e. does
 * RN(x (1 - lr wd)) equal x? Decided exactly (one binary64 FMA on exact operands). */
bool srl_t08_rn_decay_lost(double x, double lr_wd, const srl_format *f);
/* The threshold 2^-(p+1): for lr wd <= it the decay is lost for every normal x (at powers of
 * two exactly at it, by the tie to even). */
double srl_t08_threshold(const srl_format *f);
/* The fraction of the 2^(p-1) values of one binade of the normal range for which the decay is
 * lost (the same for every binade), counted exactly: 1 for lr wd <= 2^-(p+1); 0 once lr wd
 * exceeds 2^-p (every decrement is then at least half a spacing). */
double srl_t08_lost_fraction(double lr_wd, const srl_format *f);

/* E[x_T] under SR after T decay steps from x0: x0 (1 - lr wd)^T (SR applies the decay in mean). */
double srl_t08_sr_mean(double x0, double lr_wd, uint64_t steps);

/* Every prediction of T08 for the weight x (rounded to nearest into f: the stored value), as
 * `srlab theory T08` prints them. */
typedef struct srl_t08_values {
    double lr_wd;          /* lr wd */
    double threshold;      /* srl_t08_threshold */
    bool below_threshold;  /* lr wd <= threshold: lost for every x */
    double lost_fraction;  /* srl_t08_lost_fraction */
    double x;              /* RN(x): the stored weight */
    bool lost;             /* srl_t08_rn_decay_lost at the stored x */
    double sr_mean_x_T;    /* srl_t08_sr_mean from the stored x */
    double rn_x_T;         /* the stored x when lost (RN keeps it forever), NaN otherwise */
} srl_t08_values;
void srl_t08_eval(srl_t08_values *out, double x, double lr, double wd, uint64_t steps,
                  const srl_format *f);

/* ---- T09 ---- */

/* One Adam second-moment write v <- RN_f(beta2 v + (1 - beta2) g^2) in real arithmetic, for v a
 * positive normal value of f. */
typedef struct srl_t09 {
    bool can_decrease;  /* some g (g = 0 is the extreme) makes the stored v smaller */
    double v_min_next;  /* RN_f(beta2 v): the smallest value the write can store */
    double rise_ratio;  /* the smallest g^2 / v for which the stored v rises: 1 + ulp(v) /
                           (2 (1 - beta2) v) (from the real-number condition
                           (1 - beta2)(g^2 - v) >= ulp(v)/2, ties to even counted) */
} srl_t09;
int srl_t09_second_moment(srl_t09 *out, double v, double beta2, const srl_format *f) SRL_WUR;
/* The largest 1 - beta2 for which no normal v can ever decrease: 2^-(p+1) (bf16: 1/512, so
 * beta2 >= 0.998046875). The binding case is v a power of two, whose spacing below is half its
 * spacing above; elsewhere the condition is (1 - beta2) M < 1/2 for the significand M. And the
 * range [lo, hi] of rise_ratio over a binade: 1 + 1/(2 (1 - beta2) M), M = 2^p - 1 .. 2^(p-1). */
double srl_t09_no_decrease_bound(const srl_format *f);
void srl_t09_rise_range(double *lo, double *hi, double beta2, const srl_format *f);

/* Every prediction of T09 for the stored second moment v, as `srlab theory T09` prints them;
 * SRL_EINVAL under srl_t09_second_moment's conditions (the other fields are still set). */
typedef struct srl_t09_values {
    double no_decrease_bound;            /* srl_t09_no_decrease_bound */
    double decay;                        /* 1 - beta2 */
    bool ratchet;                        /* 1 - beta2 <= the bound: no v can ever decrease */
    srl_t09 write;                       /* srl_t09_second_moment at v */
    double rise_ratio_min, rise_ratio_max; /* srl_t09_rise_range */
} srl_t09_values;
int srl_t09_eval(srl_t09_values *out, double v, double beta2, const srl_format *f) SRL_WUR;

/* ---- T10 ---- */

/* Relative SR penalty (SR excess over exact arithmetic, divided by the exact excess) of the
 * stationary loss of Adam with beta1 = 0 on f = a/2 (x - x*)^2 with gradient noise of standard
 * deviation sigma, weights written with SR on a grid of spacing ulp around x*: with
 * lr' = lr / sigma and r = lr / ulp (Adam's step noise in spacings), v(r) (sigma_g^2/sigma^2)
 * / r^2 = ulp^2 (1 + a lr' / (2 - a lr')) / (6 lr^2) for r >= 1/2. (T10 step 4: Adam is SGD
 * with lr / sigma_g, sigma_g^2 = E[g^2] = sigma^2 (1 + a lr' / (2 - a lr')); then T06.)
 * Requires a lr' < 2. */
double srl_t10_adam_relative_penalty(double lr, double ulp, double a, double sigma);

/* The stationary state of Adam with beta1 >= 0 (the paper's optimizer has 0.9) on the same noisy
 * quadratic, linearised (T10 item 4, derived there): with lr' = lr / sigma_g (v_hat at its mean
 * E[g^2] = sigma_g^2, eps and the bias corrections negligible) the pair (e, m), e = x - x*,
 * evolves as m' = b1 m + (1 - b1)(a e + sigma xi), e' = e - lr' m' + eta, eta the write's
 * rounding error: mean 0, variance w = v(r_m) ulp^2, r_m = lr' sd(m') / ulp (the step's noise in
 * spacings; srl_t14_sr_cell_var). The stationary covariance solves the 2 x 2 Lyapunov equation
 * S = A S A^T + B B^T + diag(w, 0); sigma_g^2 = sigma^2 + a^2 S_ee and w are iterated to their
 * fixed point. excess = a/2 S_ee; the penalty (excess_sr - excess_exact) / excess_exact. For
 * beta1 = 0 it is srl_t10_adam_relative_penalty's v(r)/r^2 form (r = lr/ulp). SRL_EINVAL unless
 * 0 <= beta1 < 1, lr, ulp, a, sigma > 0 and the recursion is stable. */
typedef struct srl_t10_adam_model {
    double lr_eff;       /* lr' = lr / sigma_g (the exact run's) */
    double sigma_g2;     /* E[g^2] of the exact run */
    double r_m;          /* the SR run's step noise in spacings */
    double excess_exact; /* a/2 S_ee without rounding */
    double excess_sr;    /* a/2 S_ee with SR writes */
    double penalty;      /* their relative difference */
} srl_t10_adam_model;
int srl_t10_adam_stationary(srl_t10_adam_model *out, double lr, double ulp, double a,
                            double sigma, double beta1) SRL_WUR;

/* The learning rates below which round-to-nearest loses every Adam step at the value x of f
 * when |m_hat / (sqrt(v_hat) + eps)| <= 1 + delta (a frozen iterate: constant gradient): half
 * the smaller of the two gaps around x, divided by 1 + delta (T10 step 5). */
double srl_t10_rn_freeze_lr(double x, const srl_format *f, double delta);

/* sigma_g^2 / sigma^2 = 1 + a lr' / (2 - a lr'), lr' = lr / sigma: E[g^2] at stationarity of
 * Adam with beta1 = 0 (SGD with lr') on the noisy quadratic, relative to the noise's. */
double srl_t10_sigma_g2_ratio(double lr, double a, double sigma);

/* Every prediction of T10, as `srlab theory T10` prints them (requires a lr / sigma < 2): the
 * SR penalty around x*, and the RN freeze at the start x0 (rounded to nearest into f). */
typedef struct srl_t10_values {
    double ulp;              /* the grid spacing at x* */
    double lr_eff;           /* lr' = lr / sigma */
    double sigma_g2_ratio;   /* srl_t10_sigma_g2_ratio */
    double relative_penalty; /* srl_t10_adam_relative_penalty (item 4, beta1 = 0) */
    double penalty_at_2lr;   /* the same at 2 lr */
    double beta1;            /* the first moment's decay of the model below */
    srl_t10_adam_model model; /* srl_t10_adam_stationary at beta1 (NaN when it fails) */
    double x0;               /* RN(x0): the stored start */
    double rn_freeze_lr;     /* srl_t10_rn_freeze_lr at the stored x0 (item 5) */
    bool rn_frozen;          /* lr < rn_freeze_lr */
} srl_t10_values;
void srl_t10_eval(srl_t10_values *out, double xstar, double a, double lr, double sigma,
                  double beta1, double x0, double delta, const srl_format *f);

/* ---- T11 ---- */

/* For f(x) = x^4/4 and y with |y| <= xmax: the leading shift of the mean gradient at the SR
 * rounding of y into f, E[f'(SR(y))] - f'(y) ~ f'''(y) s^2 / 2 = 3 y s^2, s^2 = (y - RD)(RU - y)
 * (srl_t01_sr_variance); the exact shift 3 y s^2 + ab(b - a); and the bound q s^2 >= |ab(b - a)|
 * of the remainder (q = RU - RD). The mean gradient step from SR(y) moves by -lr times the
 * shift. 0 when y is a value of f. */
double srl_t11_quartic_shift(double y, const srl_format *f);
double srl_t11_quartic_shift_exact(double y, const srl_format *f);
double srl_t11_quartic_remainder_bound(double y, const srl_format *f);
/* T11 item 3 on f(x) = x^4/4: the shift D_T = E[x_T] - x_T^GD of the mean SR iterate from exact
 * gradient descent after T steps from x0, given the iterate variances sigma[0 .. T-1] before
 * each step: D' = D - lr ((g + D)^3 - g^3 + 3 (g + D) sigma_t), g' = g - lr g^3 (the term
 * (1/2) grad tr(H Sigma) = 3 m Sigma_t; the third central moment dropped). *gT = x_T^GD. */
double srl_t11_quartic_mean_shift(double *gT, double x0, double lr, const double *sigma,
                                  size_t T);
/* T11 item 3's S_t on f = x^4/4: the mean SR variance (y - RD)(RU - y) of y = x - lr x^3 over
 * x_t's law, x_t a value of f (the writes keep it on the grid) taken as N(m, sigma) restricted
 * to the grid (weights: the density at each grid value times its spacing); sigma 0: x = m. */
double srl_t11_grid_sr_var(double m, double sigma, double lr, const srl_format *f);
/* T11 item 3 on f = x^4/4 with Sigma_t predicted, not measured: from x0 (Sigma 0), for
 * t = 1 .. T, m' = m - lr (m^3 + 3 m Sigma), Sigma' = (1 - 3 lr m^2)^2 Sigma + S,
 * S = srl_t11_grid_sr_var(m, Sigma, lr, f) (the iterate's law taken Gaussian on the grid);
 * sigma[t-1], D[t-1] = m_t - x_t^GD; *gT = x_T^GD. */
void srl_t11_quartic_predict(double *sigma, double *D, double *gT, double x0, double lr,
                             size_t T, const srl_format *f);
/* One step of the iterate variance's recursion (T11 item 3): (1 - lr H)^2 sigma + s2, H the
 * curvature at the mean, s2 the mean SR variance E[s^2(y)] of the step's write. */
double srl_t11_sigma_next(double sigma, double lr, double hess, double s2);

/* Every prediction of T11 item 4 at y (|y| <= xmax), as `srlab theory T11` prints them. */
typedef struct srl_t11_values {
    double a, b;            /* y - RD(y), RU(y) - y */
    double s2;              /* ab = srl_t01_sr_variance */
    double shift;           /* srl_t11_quartic_shift */
    double shift_exact;     /* srl_t11_quartic_shift_exact */
    double remainder_bound; /* srl_t11_quartic_remainder_bound */
    double mean_step_shift; /* -lr shift: the mean gradient step from SR(y) minus that from y */
} srl_t11_values;
void srl_t11_eval(srl_t11_values *out, double y, double lr, const srl_format *f);

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

/* 2 p (1 - p), p = srl_t12_away_prob(xe, f, m): the probability that two replicas writing xe
 * with independent draws store different values (T12 item 2). */
double srl_t12_diff_prob(double xe, const srl_format *f, srl_rounding m);
/* The factor by which one step of optimizer k with learning rate lr and weight decay wd
 * multiplies the squared distance between two replicas (T12 step 3): (1 - lr wd)^2 for sgd and
 * adamw (decoupled), whose exact values differ by (1 - lr wd) (x_r - x_0); 1 for momentum and
 * adam (L2 decay enters their buffers: not modelled). */
double srl_t12_decay_keep(srl_optim_kind k, double lr, double wd);

/* Every prediction of T12 for replicas sharing the weight x (rounded to nearest into f) that
 * write x - lr update with mode m, over `steps` steps and `params` weights alike, as
 * `srlab theory T12` prints them. */
typedef struct srl_t12_values {
    double x;             /* RN(x): the replicas' common stored weight */
    double xe;            /* x - lr update: the exact value every replica writes */
    bool in_range;        /* |x| and |xe| <= xmax (the rest assumes it) */
    double q;             /* RU(xe) - RD(xe), the grid spacing there */
    double p_away;        /* srl_t12_away_prob */
    double diff_prob;     /* srl_t12_diff_prob */
    double step_d2;       /* srl_t12_pair_d2 (item 3) */
    bool small_step;      /* |lr update| < q: item 4's approximation applies */
    double step_d2_small; /* 2 |lr update| q */
    double d2;            /* steps params step_d2: E||x_r - x_0||^2, a random walk */
    double dist_rms;      /* sqrt(d2) */
} srl_t12_values;
void srl_t12_eval(srl_t12_values *out, double x, double lr, double update, uint64_t steps,
                  uint64_t params, const srl_format *f, srl_rounding m);

/* ---- T13 ---- */

/* Bytes per parameter of strategy s with optimizer k (srl_strategy_bytes). */
srl_bytes srl_t13_bytes(const srl_strategy *s, srl_optim_kind k);

/* ---- T14 ---- */

/* Noisy SGD on a/2 (x - x*)^2 (gradient a e + sigma xi, e = x - x*) with the weight on a grid
 * of spacing ulp (one binade): the exact step in spacings is s ~ N(m, r^2), r = lr sigma / ulp.
 * (theory/T14-sr-vs-rn.md) */
typedef enum srl_t14_mode { SRL_T14_EXACT, SRL_T14_RN, SRL_T14_SR } srl_t14_mode;
/* E[frac(s)(1 - frac(s))] for s ~ N(0, r^2): SR's added variance per step in ulp^2 (1/6 once
 * r >~ 0.5, 0 as r -> 0). */
double srl_t14_sr_cell_var(double r);
/* E[round(s)^2] for s ~ N(0, r^2): RN's step variance in ulp^2 (r^2 + 1/12 once r >~ 0.5,
 * the dithered-quantisation limit; exponentially small as r -> 0). */
double srl_t14_rn_step_var(double r);
/* d/dm E[round(s + m)] at m = 0 for s ~ N(0, r^2): RN's gain on the restoring drift (1 once
 * r >~ 0.5; exponentially small as r -> 0: the freeze). */
double srl_t14_rn_gain(double r);
/* The mean excess loss a/2 E[e_T^2] after `steps` steps from e0 (INFINITY: stationary, e0 then
 * ignored) of the linearised recursion of mode m: e' = (1 - k lr a) e + noise of variance W
 * (exact: k 1, W lr^2 sigma^2; SR: k 1, W (r^2 + sr_cell_var) ulp^2; RN: k rn_gain,
 * W rn_step_var ulp^2). Requires 0 < lr a < 1. */
double srl_t14_excess(srl_t14_mode m, double a, double lr, double sigma, double ulp, double e0,
                      double steps);
/* The same after each step t = 0 .. steps into excess[t], keeping the drift whole: the mean
 * error moves by the exact mean step of the mode at the mean (nonlinear for RN), the variance
 * contracts with the gain there and gains the step variance there. Agrees with srl_t14_excess
 * near x*; far from it (RN near its freeze) it is the better model. */
void srl_t14_path(double *excess, srl_t14_mode m, double a, double lr, double sigma, double ulp,
                  double e0, uint64_t steps);
/* The probability that one RN step at distance e moves the weight: P(|lr g| >= ulp/2). */
double srl_t14_rn_move_prob(double a, double lr, double sigma, double ulp, double e);
/* SR's best learning rate ulp / (sigma sqrt 6): the minimum of lr sigma^2/4 + ulp^2/(24 lr). */
double srl_t14_lr_star(double ulp, double sigma);
/* The crossover: the largest lr (below 16 ulp/sigma) at which SR's srl_t14_excess after
 * `steps` steps from e0 is below RN's (NaN if none above 2^-20 of that). */
double srl_t14_crossover(double a, double sigma, double ulp, double e0, double steps);

/* Every prediction of T14 at one point, as `srlab theory T14` prints them. */
typedef struct srl_t14_values {
    double ulp, r;                             /* spacing at x*, r = lr sigma / ulp */
    double rn_gain, rn_step_var;               /* srl_t14_rn_gain, srl_t14_rn_step_var at r */
    double sr_cell_var;                        /* srl_t14_sr_cell_var at r */
    double excess_exact, excess_rn, excess_sr; /* srl_t14_excess after steps from x0 */
    double stat_exact, stat_rn, stat_sr;       /* the same, stationary */
    double rn_move_prob;                       /* srl_t14_rn_move_prob at x0 */
    double rn_moves_expected;                  /* steps rn_move_prob */
    double lr_star;                            /* srl_t14_lr_star */
    double excess_sr_at_lr_star;               /* stationary SR excess at lr_star */
    double crossover_lr;                       /* srl_t14_crossover from x0 over steps */
} srl_t14_values;
void srl_t14_eval(srl_t14_values *out, double xstar, double a, double lr, double sigma,
                  double x0, double steps, const srl_format *f);
/* ---- T15-T17: statements from the literature (src/theory/t15_17_literature.c) ---- */

/* T15 (theory/T15-heat-equation.md; Croci and Giles 2022): u_t = u_xx on [0, 1] by explicit
 * Euler on m intervals, dt = r h^2, steps = round(t_end / dt), every update rounded once into a
 * format of precision p, u = 2^-p. */
/* The mean over the m - 1 interior points of the SR error's mean square bound:
 * (u^2/4) (1/(m-1)) sum_k (1 - lambda_k^(2 steps)) / (1 - lambda_k^2), lambda_k = 1 - 4 r
 * sin^2(k pi h / 2): the propagated per-step variance ulp^2/4 <= u^2/4 (values in [0, 1]). */
double srl_t15_sr_ms_bound(uint64_t m, double r, uint64_t steps, double u);
/* The small-h limit of srl_t15_sr_ms_bound at fixed t = steps dt: u^2 S(t) / (8 pi^2 r h),
 * S(t) = sum_k (1 - exp(-2 pi^2 k^2 t)) / k^2; u^2 / (48 r h) once t >> 1/(2 pi^2). */
double srl_t15_sr_ms_asym(uint64_t m, double r, double t, double u);
/* RN's stagnation (T15 item 1), exactly: the rounded map U <- RN(U + r L U) iterated from
 * U0 = RN(sin(pi x_j)) until a step changes no point (a fixed point, kept for every later step).
 * passes: updates that changed a value (first_step_passes of them at step 1); changed: updates
 * with L != 0 over all `steps` steps (the solver's denominator); lost_frac = 1 - passes/changed;
 * fixed_step: the number of steps before the fixed point (steps when none is reached, then
 * SRL_ERANGE). work: 2 (m + 1) doubles, the fixed point U* in work[0 .. m]. */
typedef struct srl_t15_rn {
    uint64_t passes, first_step_passes, changed, fixed_step;
    double lost_frac;
} srl_t15_rn;
int srl_t15_rn_fixed_point(srl_t15_rn *out, uint64_t m, double r, uint64_t steps,
                           const srl_format *f, double *work);
/* The RMS error of the RN run once stagnated: rms_j (U*_j - V_j), U* the fixed point of
 * srl_t15_rn_fixed_point (U0 itself when no update passes), V the binary64 scheme after `steps`
 * steps from U0; NaN when no fixed point is reached within the steps. */
double srl_t15_frozen_rms(uint64_t m, double r, uint64_t steps, const srl_format *f,
                          double *work); /* work: 4 (m + 1) doubles (nothing here allocates) */
/* The least-squares slope of y against x (n >= 2 points). */
double srl_t15_slope(const double *x, const double *y, size_t n);

typedef struct srl_t15_values {
    double u, h, dt, t;   /* unit roundoff, grid spacing, time step, final time steps dt */
    uint64_t steps;
    double mu1;           /* (4/h^2) sin^2(pi h/2): the decay rate of the sine mode */
    double update_ratio;  /* dt mu1 / u: the sine mode's update per step in units of u |U| */
    bool rn_frozen;       /* update_ratio < 1/2: below half a spacing at every point */
    double rn_bound;      /* steps u: the worst-case RN bound on max |U - V| (O(u/dt)) */
    double sr_rms_bound;  /* sqrt(srl_t15_sr_ms_bound) */
    double sr_rms_asym;   /* sqrt(srl_t15_sr_ms_asym): its small-h form at this t */
    double sr_rms_limit;  /* u sqrt(1/(48 r h)) ~ u dt^-1/4: the same for t >> 1/(2 pi^2) */
    srl_t15_rn rn;        /* srl_t15_rn_fixed_point (lost_frac NaN when not computed) */
    double frozen_rms;    /* srl_t15_frozen_rms */
} srl_t15_values;
/* rn and frozen_rms only when steps (m - 1) <= 10^8 (else NaN: the schemes would take long).
 * work: 4 (m + 1) doubles. */
int srl_t15_eval(srl_t15_values *out, uint64_t m, double r, double t_end, const srl_format *f,
                 double *work);

/* T16 (theory/T16-kahan-updates.md): Kahan-compensated weight writes in gradient descent on
 * f = a/2 (x - x*)^2. */
typedef struct srl_t16_values {
    double ulp;           /* spacing at x* */
    double rn_limit;      /* RN(x*): where compensated RN descent ends */
    double rn_limit_dist; /* |RN(x*) - x*| <= ulp/2 */
    double rn_stall;      /* ulp(x*)/(2 lr a): plain RN's stall distance (T05), for contrast */
    double x_exact;       /* x* + (1 - lr a)^steps (x0 - x*) */
    double ulp_t;         /* the spacing at x_exact */
    double sr_kahan_ms;   /* (x_exact - RD)(RU - x_exact): E (x_t - x_exact)^2 with SR writes and
                             Kahan (one SR rounding of the exact iterate), <= ulp_t^2/4 */
    double comp_tol;      /* its tolerance for a compensation stored with unit roundoff uc:
                             the drift bound uc ulp_t / (lr a), as ulp_t (2 drift + drift^2) */
    double sr_plain_ms;   /* srl_t16_plain_sr_ms: E (x_t - x_exact)^2 with plain SR writes */
    double sr_plain_ms_uniform; /* (ulp_t^2/6) (1 - c^(2 steps)) / (1 - c^2), c = 1 - lr a: the
                                   same if every write's fraction were uniform (it is not early
                                   on: the law starts at one point) */
} srl_t16_values;
void srl_t16_eval(srl_t16_values *out, double a, double xstar, double x0, double lr,
                  uint64_t steps, const srl_format *f, double uc);
/* Plain SR writes (no compensation), exactly: the law of the weight over f's grid propagated
 * step by step from RN(x0), the update w - lr (a (w - x*)) in binary64 then SR (T16 item 3);
 * E (w_steps - x_steps)^2, x_steps = x* + (1 - lr a)^steps (RN(x0) - x*). NaN when out of
 * memory. */
double srl_t16_plain_sr_ms(double a, double xstar, double x0, double lr, uint64_t steps,
                           const srl_format *f);
/* Under RN writes with compensation the weight dithers between the neighbours of x*: over K
 * steps of the cycle its mean is within 2 ulp/K + uc ulp/(lr a) of x* (theory/T16 item 2). */
double srl_t16_rn_mean_tol(double ulp, double lr, double a, uint64_t K, double uc);

/* T17 (theory/T17-sr-sum-variance.md): the variance bound of SR summation of x[0..n), each
 * addition rounded with variance <= u^2 y^2: recursive V_k <= (1 + u^2) V_(k-1) + u^2 S_k^2;
 * pairwise (srl_sum's tree: the left part the largest power of two below the length)
 * V <= (1 + u^2)(V_L + V_R) + u^2 S^2. */
double srl_t17_var_recursive(const double *x, size_t n, double u);
double srl_t17_var_pairwise(const double *x, size_t n, double u);

typedef struct srl_t17_values {
    double u, S;                /* unit roundoff, exact sum n x */
    double var_rec, var_pair;   /* the bounds for n equal terms x */
    double rel_rec, rel_pair;   /* sqrt(bound) / |S| */
    double rel_rec_asym;        /* u sqrt(n/3): the recursive bound's large-n form */
    double lambda;              /* 1/sqrt(delta): Chebyshev's multiple for probability delta */
    double prob_rec, prob_pair; /* lambda sqrt(bound) / |S|: exceeded with probability <= delta */
} srl_t17_values;
void srl_t17_eval(srl_t17_values *out, double x, uint64_t n, double delta, const srl_format *f);

#ifdef __cplusplus
}
#endif
#endif
