/* src/sweep/censored.c: the fraction of runs that reach a target, with its Clopper-Pearson
 * interval, and the Kaplan-Meier median of the times they take, with its interval
 * (src/sweep/censored.h says what each is). srlab sweep's summary gives them for
 * steps_to_target (summary.c); srlab check's binomial checks use the same tails
 * (include/srlab/check.h). */
#include "sweep/censored.h"

#include <math.h>
#include <stdlib.h>

#include <gsl/gsl_cdf.h>
#include <gsl/gsl_sf_gamma.h>

/* ---- the binomial tails and the Clopper-Pearson interval ---- */

/* log of the Binomial(n, p) probability of k. */
static double binom_logpmf(uint64_t k, uint64_t n, double p)
{
    return gsl_sf_lnchoose((unsigned)n, (unsigned)k) + (double)k * log(p) +
           (double)(n - k) * log1p(-p);
}

/* The sum of the pmf from k moving away from the mode (up when dir > 0), where the terms
 * decrease: stop once a term is below 2^-60 of the sum. */
static double binom_tail_from(uint64_t k, uint64_t n, double p, int dir)
{
    const double r = p / (1 - p);
    double term = exp(binom_logpmf(k, n, p)), sum = 0;
    uint64_t j = k;
    for (;;) {
        sum += term;
        if (term <= sum * 0x1p-60 || term == 0)
            break;
        if (dir > 0) {
            if (j == n)
                break;
            term *= (double)(n - j) / (double)(j + 1) * r; /* pmf(j+1) / pmf(j) */
            j++;
        } else {
            if (j == 0)
                break;
            term *= (double)j / (double)(n - j + 1) / r; /* pmf(j-1) / pmf(j) */
            j--;
        }
    }
    return sum;
}

double srl__binom_upper(uint64_t k, uint64_t n, double p)
{
    if (k == 0)
        return 1;
    if (k > n)
        return 0;
    if (p <= 0)
        return 0;
    if (p >= 1)
        return 1;
    const double mode = floor((double)(n + 1) * p);
    if ((double)k > mode)
        return fmin(1, binom_tail_from(k, n, p, +1));
    return fmax(0, 1 - srl__binom_lower(k - 1, n, p));
}

double srl__binom_lower(uint64_t k, uint64_t n, double p)
{
    if (k >= n)
        return 1;
    if (p <= 0)
        return 1;
    if (p >= 1)
        return 0;
    const double mode = floor((double)(n + 1) * p);
    if ((double)k < mode)
        return fmin(1, binom_tail_from(k, n, p, -1));
    return fmax(0, 1 - srl__binom_upper(k + 1, n, p));
}

void srl__clopper_pearson(double *lo, double *hi, uint64_t k, uint64_t n, double alpha)
{
    const double phat = (double)k / (double)n, a2 = alpha / 2;
    /* lo: P(X >= k; p) = a2, increasing in p, on [0, phat] */
    if (k == 0) {
        *lo = 0;
    } else {
        double a = 0, b = phat;
        for (int it = 0; it < 200 && b - a > 1e-17 + 1e-15 * b; it++) {
            const double m = 0.5 * (a + b);
            if (srl__binom_upper(k, n, m) < a2)
                a = m;
            else
                b = m;
        }
        *lo = a;
    }
    /* hi: P(X <= k; p) = a2, decreasing in p, on [phat, 1] */
    if (k == n) {
        *hi = 1;
    } else {
        double a = phat, b = 1;
        for (int it = 0; it < 200 && b - a > 1e-17 + 1e-15 * b; it++) {
            const double m = 0.5 * (a + b);
            if (srl__binom_lower(k, n, m) < a2)
                b = m;
            else
                a = m;
        }
        *hi = b;
    }
}

/* ---- Kaplan-Meier ---- */

typedef struct km_obs {
    double t;
    bool event;
} km_obs;

/* by time; at one time the events first (a run censored at an event time is at risk there) */
static int km_cmp(const void *pa, const void *pb)
{
    const km_obs *a = pa, *b = pb;
    if (a->t != b->t)
        return a->t < b->t ? -1 : 1;
    return (int)b->event - (int)a->event;
}

int srl__km_median(srl__km *km, const double *time, const bool *event, size_t n, double alpha)
{
    km_obs *o = malloc((n ? n : 1) * sizeof *o);
    if (!o)
        return -1;
    size_t reached = 0;
    for (size_t i = 0; i < n; i++) {
        o[i].t = time[i];
        o[i].event = event[i];
        reached += event[i];
    }
    qsort(o, n, sizeof *o, km_cmp);
    const double z = gsl_cdf_ugaussian_Qinv(alpha / 2);
    double S = 1, gw = 0, med = NAN, lo = NAN, hi = NAN;
    for (size_t i = 0; i < n && isnan(hi);) {
        size_t j = i, d = 0;
        for (; j < n && o[j].t == o[i].t; j++)
            d += o[j].event;
        if (d > 0) {
            const double at_risk = (double)(n - i);
            S *= 1 - (double)d / at_risk;
            double top = 0, bottom = 0; /* the band at this time ([0, 0] once S = 0) */
            if (S > 0) {
                gw += (double)d / (at_risk * (at_risk - (double)d));
                const double w = z * sqrt(gw) / fabs(log(S));
                top = pow(S, exp(-w));
                bottom = pow(S, exp(w));
            }
            if (isnan(med) && S <= 0.5)
                med = o[i].t;
            if (isnan(lo) && bottom <= 0.5)
                lo = o[i].t;
            if (isnan(hi) && top <= 0.5)
                hi = o[i].t;
        }
        i = j;
    }
    free(o);
    km->reached = reached;
    km->median = med;
    km->lo = lo;
    km->hi = hi;
    return 0;
}
