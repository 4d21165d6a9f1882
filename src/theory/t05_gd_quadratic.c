/* src/theory/t05_gd_quadratic.c: the predictions of theory/T05-gd-quadratic.md
 * (include/srlab/theory.h): gradient descent on f(x) = a/2 (x - x*)^2 under RN freezes and
 * stalls at ulp/(2 lr a) (and exactly at the fixed point of the rounded map, found by iterating
 * it); under SR its mean is the exact iterate and its excess loss settles at a floor that does
 * not depend on lr. Comments cite the step they evaluate. */
#include "srlab/theory.h"

#include <math.h>
#include <string.h>

#include "srlab/rounding.h"

void srl_t05_neighbours(double *g0, double *g1, double x, const srl_format *f)
{
    srl_t01_neighbours(g0, g1, x, f);
}

double srl_t05_freeze_grad(double x, double lr, const srl_format *f)
{
    /* T05 step 1: RN(x - s) = x iff |s| < ulp(x)/2 (ties aside), s = lr g. */
    return srl_format_ulp(f, x) / (2 * lr);
}

double srl_t05_stall_distance(double xstar, double lr, double a, const srl_format *f)
{
    /* T05 step 2: with g = a (x - x*), the step is frozen iff lr a |x - x*| < ulp/2. */
    return srl_format_ulp(f, xstar) / (2 * lr * a);
}

double srl_t05_gd_iterate(double a, double xstar, double x0, double lr, uint64_t t)
{
    return xstar + pow(1 - lr * a, (double)t) * (x0 - xstar);
}

double srl_t05_loss_gap(double a, double distance)
{
    return 0.5 * a * distance * distance;
}

double srl_t05_sr_floor(double a, double xstar, const srl_format *f)
{
    double g0, g1;
    srl_t05_neighbours(&g0, &g1, xstar, f);
    /* T05 step 4: the stationary law on {g0, g1} has mean x*, excess (a/2)(x* - g0)(g1 - x*). */
    return 0.5 * a * (xstar - g0) * (g1 - xstar);
}

int srl_t05_rn_stall(srl_t05_stall *out, double a, double xstar, double x0, double lr,
                     const srl_format *f, const srl_format *grad_fmt, srl_arith arith,
                     uint64_t max_steps)
{
    memset(out, 0, sizeof *out);
    if (!(lr > 0) || !isfinite(lr) || !isfinite(a) || !isfinite(xstar) || !isfinite(x0))
        return SRL_EINVAL;
    if (arith == SRL_ARITH_FP32 && (!srl_format_fits_float(f) || !srl_format_fits_float(grad_fmt)))
        return SRL_EINVAL;
    const srl_rounding rn = SRL_ROUND_RN;
    double x = srl_round(x0, f, rn, NULL);
    const float lr32 = (float)lr;
    uint64_t t = 0;
    for (; t < max_steps; t++) {
        /* the operations of src/problems/convex.c (gradient) and src/train/optim_tpl.h (sgd) */
        const double g = srl_round(a * (x - xstar), grad_fmt, rn, NULL);
        double xe;
        if (arith == SRL_ARITH_FP32) {
            const float s = lr32 * (float)g;
            xe = (double)((float)x - s);
        } else {
            xe = x - lr * g;
        }
        const double xn = srl_round(xe, f, rn, NULL);
        if (!isfinite(xn)) {
            out->x = xn;
            out->step = t + 1;
            out->distance = INFINITY;
            return SRL_OK;
        }
        if (xn == x) {
            out->fixed = true;
            break;
        }
        x = xn;
    }
    out->step = t;
    out->x = x;
    out->distance = fabs(x - xstar);
    return SRL_OK;
}

int srl_t05_eval(srl_t05_values *out, double a, double xstar, double x0, double lr,
                 uint64_t steps, const srl_format *f, const srl_format *grad_fmt, srl_arith arith)
{
    out->u = f->u;
    out->ulp = srl_format_ulp(f, xstar);
    out->freeze_grad = srl_t05_freeze_grad(xstar, lr, f);
    out->stall_distance = srl_t05_stall_distance(xstar, lr, a, f);
    out->band = out->stall_distance >= out->ulp;
    out->band_lo = out->stall_distance - out->ulp;
    const int st = srl_t05_rn_stall(&out->stall, a, xstar, x0, lr, f, grad_fmt, arith,
                                    SRL_T05_STALL_MAX_STEPS);
    out->stall_ratio = out->stall.distance / out->stall_distance;
    out->stall_loss_gap = srl_t05_loss_gap(a, out->stall.distance);
    srl_t05_neighbours(&out->g0, &out->g1, xstar, f);
    out->sr_floor = srl_t05_sr_floor(a, xstar, f);
    out->x0 = srl_round(x0, f, SRL_ROUND_RN, NULL);
    out->sr_mean_iterate = srl_t05_gd_iterate(a, xstar, out->x0, lr, steps);
    return st;
}
