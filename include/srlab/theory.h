/* srlab/theory.h: the predictions of theory/T05-T09 and T13 as functions (DESIGN §9 items 5-9
 * and 13), for `srlab theory`, `srlab check` and the tests of the training code.
 *
 *   T05  gradient descent on f(x) = a/2 (x - x*)^2: the RN freeze threshold and stall distance
 *        ulp/(2 lr a), the exact RN stall point (the rounded map iterated), the SR mean iterate
 *        (the exact GD iterate) and the SR excess-loss floor (a/2)(x* - g0)(g1 - x*), which does
 *        not depend on lr                                   (theory/T05-gd-quadratic.md)
 *   T06  noisy SGD: stationary excess loss in exact arithmetic and the extra from SR; their
 *        ratio ulp^2 / (6 lr^2 sigma^2)                      (theory/T06-noisy-sgd.md)
 *   T07  SR at small learning rates is a random walk: moves per step Bernoulli(lr|g|/ulp),
 *        waiting and covering times                           (theory/T07-sr-random-walk.md)
 *   T08  decoupled weight decay under RN is lost for every x when lr wd <= 2^-(p+1) (2^-9 in
 *        bf16); the exact fraction of a binade where it is lost; SR applies it in mean
 *                                                               (theory/T08-weight-decay.md)
 *   T09  the second moment v under RN with beta2 close to 1: whether it can decrease, and the
 *        multiple of v that g^2 must exceed for it to rise     (theory/T09-second-moment.md)
 *   T13  bytes per parameter of each strategy                  (theory/T13-memory.md)
 *
 * ulp(x) is the grid spacing of the format at x (srl_format_ulp), u = 2^-p. Unless a function
 * says otherwise its inputs are finite, lr > 0, and formulas are evaluated in binary64 and
 * rounded to nearest (immaterial for predictions). Nothing here prints, allocates or draws. */
#ifndef SRLAB_THEORY_H
#define SRLAB_THEORY_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "srlab/common.h"
#include "srlab/format.h"
#include "srlab/optim.h"
#include "srlab/strategy.h"

#ifdef __cplusplus
extern "C" {
#endif

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

/* ---- T06 ---- */

/* Stationary excess loss of SGD on f = a/2 (x - x*)^2 with gradient noise of standard deviation
 * sigma, in exact arithmetic: a/2 Var = lr sigma^2 / (2 (2 - lr a))  (about lr sigma^2 / 4). */
double srl_t06_excess_exact(double lr, double sigma, double a);
/* The extra excess from SR writes with E[(x - RD)(RU - x)] = ulp^2/6 per step:
 * ulp^2 / (12 lr (2 - lr a))  (about ulp^2 / (24 lr)). */
double srl_t06_excess_sr(double lr, double ulp, double a);
/* Their ratio ulp^2 / (6 lr^2 sigma^2): the relative SR penalty. */
double srl_t06_relative_penalty(double lr, double ulp, double sigma);

/* ---- T07 ---- */

/* Moves per step of an SR walk with drift d = lr |g| < ulp: Bernoulli(p), p = d / ulp. */
double srl_t07_move_prob(double lr, double g, double ulp);
/* Steps to move K = distance / ulp grid steps at constant p (negative binomial): mean K / p and
 * standard deviation sqrt(K (1 - p)) / p. */
void srl_t07_cover_steps(double *mean, double *sd, double distance, double ulp, double p);

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

/* ---- T13 ---- */

/* Bytes per parameter of strategy s with optimizer k (srl_strategy_bytes). */
srl_bytes srl_t13_bytes(const srl_strategy *s, srl_opt_kind k);

#ifdef __cplusplus
}
#endif
#endif
