/* src/theory/t04_matvec.c: the predictions of theory/T04-matvec.md (include/srlab/theory.h): the
 * backward error bounds of a matrix-vector product, deterministic and, under SR, probabilistic
 * with a union bound over the rows. */
#include "srlab/theory.h"

#include <math.h>

/* Every value of a is a value of b. */
static bool fmt_subset(const srl_format *a, const srl_format *b)
{
    if (a->p > b->p || a->xmax > b->xmax)
        return false;
    /* At or above 2^emin_b, b's spacing is finer than a's (p_a <= p_b). Below it, a's values
     * (its finest spacing is 2^(emin_a - p_a + 1)) must lie on b's subnormal grid. */
    if (a->emin >= b->emin)
        return true;
    return b->subnormals && a->emin - a->p >= b->emin - b->p;
}

double srl_t04_matvec_bound(size_t n, const srl_accum *c)
{
    long h = srl_t03_path(n, c);
    if (h < 0)
        return NAN;
    const double va = srl_t03_unit(&c->acc_fmt, c->acc_mode);
    if (c->fma)
        return expm1((double)(h + 1) * log1p(va)); /* the first product rounded once, then h */
    const double vp = srl_t03_unit(&c->prod_fmt, c->prod_mode);
    if (!fmt_subset(&c->prod_fmt, &c->acc_fmt))
        h++;
    return expm1(log1p(vp) + (double)h * log1p(va));
}

double srl_t04_union_lambda(double lambda, size_t m)
{
    /* 2 m exp(-lambda_m^2/2) = 2 exp(-lambda^2/2): each row's bound at lambda_m, all m at once
     * with the probability of one at lambda */
    return sqrt(lambda * lambda + 2 * log(m > 1 ? (double)m : 1.0));
}

double srl_t04_matvec_sr_bound(size_t n, size_t m, const srl_accum *c, double lambda)
{
    if (c->kahan || c->order != SRL_ORDER_RECURSIVE)
        return NAN;
    if (!c->fma && !fmt_subset(&c->prod_fmt, &c->acc_fmt))
        return NAN;
    if (n == 0)
        return 0.0;
    const double ua = c->acc_fmt.u, va = 2 * ua;
    const double vp = c->fma ? 0.0 : 2 * c->prod_fmt.u;
    const double h = (double)(n - 1);
    const double lm = srl_t04_union_lambda(lambda, m);
    const double vmax = va > vp ? va : vp;
    /* T04: term j's factor is (1 + delta^p_j) times a suffix product of the accumulation
     * factors. The accumulation deltas form a martingale with increments in intervals of length
     * <= 2 ua, so its suffix sums stay below 2 lambda_m ua sqrt(h) on an event of probability
     * >= 1 - 2 m exp(-lambda_m^2/2) = P(lambda) for all m rows; the product rounding adds at
     * most vp to the log, and the second-order terms (h va^2 + vp^2) / (2 (1 - vmax)). */
    return expm1(vp + 2 * lm * ua * sqrt(h) + (h * va * va + vp * vp) / (2 * (1 - vmax)));
}

void srl_t04_eval(srl_t04_values *out, size_t n, size_t m, const srl_accum *c, double lambda)
{
    const double u = c->acc_fmt.u, N = (double)n;
    out->nu = N * u;
    out->sqrt_nu = sqrt(N) * u;
    out->h = (double)srl_t03_path(n, c);
    out->theta = srl_t04_matvec_bound(n, c);
    out->gamma_n = srl_t03_gamma(N, u);
    out->lambda_m = srl_t04_union_lambda(lambda, m);
    out->sr_prob = srl_t03_sr_prob(lambda);
    out->sr_bound = srl_t04_matvec_sr_bound(n, m, c, lambda);
}
