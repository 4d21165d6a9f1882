/* src/theory/grid.c: grid facts the statements share (src/theory/grid.h). */
#include "theory/grid.h"

#include <math.h>

bool srl__theory_in_range(double x, const srl_format *f)
{
    return isfinite(x) && fabs(x) <= f->xmax;
}

double srl__theory_gap_below(double x, const srl_format *f)
{
    const double q = srl_format_ulp(f, x);
    int e;
    const double m = frexp(x, &e);
    return (m == 0.5 && x > f->xmin) ? q / 2 : q;
}

bool srl__theory_is_even(double x, const srl_format *f)
{
    const double k = fabs(x) / srl_format_ulp(f, x);
    return fmod(k, 2.0) == 0.0;
}
