/* src/theory/t12_replicas.c: the predictions of theory/T12-replicas.md (include/srlab/theory.h):
 * data-parallel replicas writing the same exact value with independent SR draws differ with
 * probability 2 p (1 - p), by one spacing q: a random walk of mean squared distance
 * 2 p (1 - p) q^2 per step and weight. Comments cite the step they evaluate. */
#include "srlab/theory.h"

#include <math.h>

#include "core/mutant.h"
#include "srlab/rounding.h"

/* p as srl_t12_away_prob defines it, and the spacing q at xe (0 where p is 0 by definition) */
static double away(double xe, const srl_format *f, srl_rounding m, double *q)
{
    *q = 0;
    if (!isfinite(xe))
        return 0;
    double rd, ru;
    srl_t01_neighbours(&rd, &ru, xe, f);
    if (!(ru > rd) || !isfinite(ru - rd))
        return 0;
    *q = ru - rd;
    const double fr = (fabs(xe) - fmin(fabs(rd), fabs(ru))) / *q; /* fraction away from zero */
    switch (m.mode) {
    case SRL_SR: return fr;
    case SRL_SR_EQ: return 0.5;
    case SRL_SR_BITS: return floor(ldexp(fr, m.r)) / ldexp(1.0, m.r); /* T02: F / 2^R */
    default: return 0;
    }
}

double srl_t12_away_prob(double xe, const srl_format *f, srl_rounding m)
{
    double q;
    return away(xe, f, m, &q);
}

double srl_t12_diff_prob(double xe, const srl_format *f, srl_rounding m)
{
    const double p = srl_t12_away_prob(xe, f, m);
    /* T12 step 2: one replica away and the other not, either way round */
    return 2 * p * (1 - p);
}

double srl_t12_pair_d2(double xe, const srl_format *f, srl_rounding m)
{
    double q;
    const double p = away(xe, f, m, &q);
    /* T12 step 2: the replicas differ with probability p (1 - p) + (1 - p) p, then by q;
     * defect pred-half (src/core/mutant.h): one replica's variance */
    return (SRL__MUT(PRED_HALF) ? 1 : 2) * (p * (1 - p) * q * q);
}

double srl_t12_decay_keep(srl_optim_kind k, double lr, double wd)
{
    /* T12 step 3: with the same gradient (and, for AdamW, the same moments) the exact values of
     * two replicas differ by (1 - lr wd) (x_r - x_0); under momentum and Adam with L2 decay the
     * decay enters the buffers, which then differ: not modelled (factor 1) */
    if (k != SRL_OPTIM_SGD && k != SRL_OPTIM_ADAMW)
        return 1;
    const double c = 1 - lr * wd;
    return c * c;
}

void srl_t12_eval(srl_t12_values *out, double x, double lr, double update, uint64_t steps,
                  uint64_t params, const srl_format *f, srl_rounding m)
{
    /* the replicas' common weight is a value of the format (item 4: on the grid) */
    out->x = srl_round(x, f, SRL_ROUND_RN, NULL);
    out->xe = out->x - lr * update;
    out->in_range = fabs(out->x) <= f->xmax && fabs(out->xe) <= f->xmax;
    double rd, ru;
    srl_t01_neighbours(&rd, &ru, out->xe, f);
    out->q = ru - rd;
    out->p_away = srl_t12_away_prob(out->xe, f, m);
    out->diff_prob = srl_t12_diff_prob(out->xe, f, m);
    out->step_d2 = srl_t12_pair_d2(out->xe, f, m);
    /* item 4: for a step below one spacing, p (1 - p) q^2 <= |step| q */
    const double step = fabs(lr * update);
    out->small_step = step < out->q;
    out->step_d2_small = 2 * step * out->q;
    const double T = (double)steps * (double)params; /* independent steps and weights add */
    out->d2 = T * out->step_d2;
    out->dist_rms = sqrt(out->d2);
}
