/* src/theory/t11_implicit_regularization.c: the predictions of
 * theory/T11-implicit-regularization.md (include/srlab/theory.h): one SR rounding of y shifts
 * the mean gradient of f(x) = x^4/4 by exactly 3 y s^2 + ab(b - a), s^2 = ab = Var[SR(y)]. */
#include "srlab/theory.h"

#include <math.h>

#include "srlab/rounding.h"

/* a = y - RD(y), b = RU(y) - y (both 0 for a value of f) */
static void gaps(double *a, double *b, double y, const srl_format *f)
{
    double lo, hi;
    srl_t01_neighbours(&lo, &hi, y, f);
    *a = y - lo;
    *b = hi - y;
}

double srl_t11_quartic_shift(double y, const srl_format *f)
{
    /* T11 step 4: the leading term f'''(y) s^2 / 2 = 3 y s^2 */
    return 3 * y * srl_t01_sr_variance(y, f);
}

double srl_t11_quartic_shift_exact(double y, const srl_format *f)
{
    /* T11 step 4: E[(y + eta)^3] - y^3 = 3 y E[eta^2] + E[eta^3] = 3 y ab + ab(b - a) */
    double a, b;
    gaps(&a, &b, y, f);
    return 3 * y * a * b + a * b * (b - a);
}

double srl_t11_quartic_remainder_bound(double y, const srl_format *f)
{
    double a, b;
    gaps(&a, &b, y, f);
    return a * b * (a + b);
}

double srl_t11_quartic_mean_shift(double *gT, double x0, double lr, const double *sigma,
                                  size_t T)
{
    /* T11 item 3 on f = x^4/4 (f' = x^3, third derivative 6x):
     * m' = m - lr (m^3 + 3 m Sigma_t), the third central moment dropped; g' = g - lr g^3 (exact
     * GD); D = m - g */
    double g = x0, D = 0;
    for (size_t t = 0; t < T; t++) {
        const double m = g + D;
        D -= lr * (m * m * m - g * g * g + 3 * m * sigma[t]);
        g -= lr * g * g * g;
    }
    *gT = g;
    return D;
}

double srl_t11_sigma_next(double sigma, double lr, double hess, double s2)
{
    /* T11 item 3: x' - m' = (1 - lr H) (x - m) + eta to first order, Var(eta) = E[s^2] */
    const double c = 1 - lr * hess;
    return c * c * sigma + s2;
}

double srl_t11_grid_sr_var(double m, double sigma, double lr, const srl_format *f)
{
    /* T11 item 3's S_t on f = x^4/4: the iterate x_t is a value of f (every write puts it on
     * the grid), so the position of y = x - lr x^3 in its cell is set by the step from x, not by
     * the spread; x_t's law is taken as the Gaussian N(m, sigma) restricted to the grid (each
     * grid value weighted by the density there times its spacing), and S = E[(y - RD)(RU - y)]
     * under it. sigma 0: x = m. */
    const srl_rounding rd = {SRL_RD, 0}, ru = {SRL_RU, 0};
    if (!(sigma > 0)) {
        const double y = m - lr * m * m * m;
        return srl_t01_sr_variance(y, f);
    }
    const double s = sqrt(sigma), top = m + 10 * s;
    double g = srl_round(m - 10 * s, f, ru, NULL), wsum = 0, tot = 0;
    for (int k = 0; g <= top && k < 1000000; k++) {
        double h = srl_round(nextafter(g, INFINITY), f, ru, NULL); /* the next grid value */
        const double lo = srl_round(nextafter(g, -INFINITY), f, rd, NULL);
        if (!(h > g) || !isfinite(h))
            break;
        const double z = (g - m) / s, w = exp(-z * z / 2) * (h - lo) / 2, y = g - lr * g * g * g;
        wsum += w;
        tot += w * srl_t01_sr_variance(y, f);
        g = h;
    }
    return wsum > 0 ? tot / wsum : 0;
}

void srl_t11_quartic_predict(double *sigma, double *D, double *gT, double x0, double lr,
                             size_t T, const srl_format *f)
{
    /* T11 item 3 on f = x^4/4, Sigma_t predicted: m' = m - lr (m^3 + 3 m Sigma),
     * Sigma' = (1 - 3 lr m^2)^2 Sigma + S, S = srl_t11_grid_sr_var(m, Sigma); g' = g - lr g^3;
     * sigma[t], D[t] after step t + 1 */
    double m = x0, S = 0, g = x0;
    for (size_t t = 0; t < T; t++) {
        const double c = 1 - 3 * lr * m * m;
        const double Sn = c * c * S + srl_t11_grid_sr_var(m, S, lr, f);
        m = m - lr * (m * m * m + 3 * m * S);
        S = Sn;
        g -= lr * g * g * g;
        sigma[t] = S;
        D[t] = m - g;
    }
    *gT = g;
}

void srl_t11_eval(srl_t11_values *out, double y, double lr, const srl_format *f)
{
    gaps(&out->a, &out->b, y, f);
    out->s2 = srl_t01_sr_variance(y, f);
    out->shift = srl_t11_quartic_shift(y, f);
    out->shift_exact = srl_t11_quartic_shift_exact(y, f);
    out->remainder_bound = srl_t11_quartic_remainder_bound(y, f);
    out->mean_step_shift = -lr * out->shift; /* the step is -lr f' */
}
