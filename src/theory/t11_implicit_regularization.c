/* src/theory/t11_implicit_regularization.c: the predictions of
 * theory/T11-implicit-regularization.md (include/srlab/theory.h): one SR rounding of y shifts
 * the mean gradient of f(x) = x^4/4 by exactly 3 y s^2 + ab(b - a), s^2 = ab = Var[SR(y)]. */
#include "srlab/theory.h"

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

void srl_t11_eval(srl_t11_values *out, double y, double lr, const srl_format *f)
{
    gaps(&out->a, &out->b, y, f);
    out->s2 = srl_t01_sr_variance(y, f);
    out->shift = srl_t11_quartic_shift(y, f);
    out->shift_exact = srl_t11_quartic_shift_exact(y, f);
    out->remainder_bound = srl_t11_quartic_remainder_bound(y, f);
    out->mean_step_shift = -lr * out->shift; /* the step is -lr f' */
}
