/* src/theory/t15_17_literature.c: the predictions of three statements from the literature
 * (include/srlab/theory.h): the heat equation in low precision (theory/T15-heat-equation.md),
 * Kahan-compensated weight writes (theory/T16-kahan-updates.md) and the variance bound of SR
 * summation (theory/T17-sr-sum-variance.md). */
#include "srlab/theory.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "srlab/rounding.h"

static const double t15_pi = 3.14159265358979323846;

/* ---- T15 ---- */

double srl_t15_sr_ms_bound(uint64_t m, double r, uint64_t steps, double u)
{
    const double h = 1.0 / (double)m;
    double s = 0;
    for (uint64_t k = 1; k < m; k++) {
        const double sn = sin((double)k * t15_pi * h / 2);
        const double lam = 1 - 4 * r * sn * sn, l2 = lam * lam;
        s += (1 - pow(l2, (double)steps)) / (1 - l2);
    }
    return u * u / 4 * s / (double)(m - 1);
}

/* U0 = RN(sin(pi x_j)) into work[0 .. m] (ends 0). */
static void t15_initial(double *U, size_t n, const srl_format *f)
{
    const double h = 1.0 / (double)(n - 1);
    for (size_t j = 0; j < n; j++)
        U[j] = (j == 0 || j == n - 1) ? 0.0
                                      : srl_round(sin(t15_pi * (double)j * h), f, SRL_ROUND_RN,
                                                  NULL);
}

int srl_t15_rn_fixed_point(srl_t15_rn *out, uint64_t m, double r, uint64_t steps,
                           const srl_format *f, double *work)
{
    /* T15 step 1: iterate the rounded map U <- RN(U + r L U) from U0 (L exact in binary64, as the
     * solver requires; U + r L exact in binary64 for the formats the solver takes: fma's one
     * rounding is then none) until a step changes nothing: from there every step is that step */
    const size_t n = (size_t)m + 1;
    double *U = work, *W = work + n;
    t15_initial(U, n, f);
    W[0] = W[n - 1] = 0;
    memset(out, 0, sizeof *out);
    out->fixed_step = steps;
    for (uint64_t t = 0; t < steps; t++) {
        uint64_t moved = 0, nonzero = 0;
        for (size_t j = 1; j + 1 < n; j++) {
            const double L = (U[j - 1] + U[j + 1]) - 2 * U[j];
            W[j] = L != 0 ? srl_round(fma(r, L, U[j]), f, SRL_ROUND_RN, NULL) : U[j];
            nonzero += L != 0;
            moved += W[j] != U[j];
        }
        out->changed += nonzero;
        out->passes += moved;
        if (t == 0)
            out->first_step_passes = moved;
        if (!moved) { /* a fixed point: every later step loses every update the same way */
            out->fixed_step = t;
            out->changed += (steps - t - 1) * nonzero;
            break;
        }
        memcpy(U + 1, W + 1, (n - 2) * sizeof *U);
    }
    /* as the solver counts it: lost / changed */
    out->lost_frac = out->changed ? (double)(out->changed - out->passes) / (double)out->changed : 0;
    return out->fixed_step < steps || steps == 0 ? SRL_OK : SRL_ERANGE;
}

double srl_t15_frozen_rms(uint64_t m, double r, uint64_t steps, const srl_format *f, double *work)
{
    const size_t n = (size_t)m + 1;
    double *Us = work, *V = work + 2 * n, *W = work + 3 * n;
    srl_t15_rn fp;
    if (srl_t15_rn_fixed_point(&fp, m, r, steps, f, work) != SRL_OK)
        return NAN; /* not stagnated within the steps */
    t15_initial(V, n, f);
    W[0] = W[n - 1] = 0;
    for (uint64_t t = 0; t < steps; t++) { /* the binary64 scheme, as src/problems/heat.c */
        for (size_t j = 1; j + 1 < n; j++)
            W[j] = V[j] + r * ((V[j - 1] + V[j + 1]) - 2 * V[j]);
        double *x = V;
        V = W, W = x;
    }
    double s2 = 0;
    for (size_t j = 1; j + 1 < n; j++) {
        const double e = Us[j] - V[j];
        s2 += e * e;
    }
    return sqrt(s2 / (double)(m - 1));
}

double srl_t15_sr_ms_asym(uint64_t m, double r, double t, double u)
{
    /* T15 step 2's small-h limit at fixed t: 1 - l_k^(2N) -> 1 - exp(-2 pi^2 k^2 t), 1 - l_k^2
     * -> 2 r pi^2 k^2 h^2, so (u^2/4) (1/(m-1)) sum_k ... -> u^2 S(t) / (8 pi^2 r h),
     * S(t) = sum_k (1 - exp(-2 pi^2 k^2 t)) / k^2 = pi^2/6 - sum_k exp(-2 pi^2 k^2 t) / k^2;
     * for t >> 1/(2 pi^2), u^2 / (48 r h) */
    const double h = 1.0 / (double)m;
    double S = t15_pi * t15_pi / 6;
    for (int k = 1; k < 1000; k++) {
        const double e = exp(-2 * t15_pi * t15_pi * k * k * t) / ((double)k * k);
        S -= e;
        if (e < 1e-18 * S)
            break;
    }
    return u * u * S / (8 * t15_pi * t15_pi * r * h);
}

double srl_t15_slope(const double *x, const double *y, size_t n)
{
    double mx = 0, my = 0;
    for (size_t i = 0; i < n; i++)
        mx += x[i], my += y[i];
    mx /= (double)n, my /= (double)n;
    double sxy = 0, sxx = 0;
    for (size_t i = 0; i < n; i++) {
        sxy += (x[i] - mx) * (y[i] - my);
        sxx += (x[i] - mx) * (x[i] - mx);
    }
    return sxy / sxx;
}

int srl_t15_eval(srl_t15_values *o, uint64_t m, double r, double t_end, const srl_format *f,
                 double *work)
{
    if (m < 2 || !(r > 0 && r <= 0.5) || !(t_end > 0))
        return SRL_EINVAL;
    const double h = 1.0 / (double)m, dt = r * h * h;
    const double steps = fmax(1.0, nearbyint(t_end / dt)), sn = sin(t15_pi * h / 2);
    o->u = ldexp(1.0, -f->p);
    o->h = h;
    o->dt = dt;
    o->steps = (uint64_t)steps;
    o->t = steps * dt;
    o->mu1 = 4 / (h * h) * sn * sn;
    o->update_ratio = dt * o->mu1 / o->u;
    o->rn_frozen = o->update_ratio < 0.5;
    o->rn_bound = steps * o->u;
    o->sr_rms_bound = sqrt(srl_t15_sr_ms_bound(m, r, o->steps, o->u));
    o->sr_rms_asym = sqrt(srl_t15_sr_ms_asym(m, r, o->t, o->u));
    o->sr_rms_limit = o->u * sqrt(1 / (48 * r * h));
    const bool small = steps * (double)(m - 1) <= 1e8;
    if (!small || srl_t15_rn_fixed_point(&o->rn, m, r, o->steps, f, work) != SRL_OK) {
        o->rn.passes = o->rn.first_step_passes = o->rn.changed = 0;
        o->rn.fixed_step = o->steps;
        o->rn.lost_frac = NAN;
    }
    o->frozen_rms = small ? srl_t15_frozen_rms(m, r, o->steps, f, work) : NAN;
    return SRL_OK;
}

/* ---- T16 ---- */

void srl_t16_eval(srl_t16_values *o, double a, double xstar, double x0, double lr,
                  uint64_t steps, const srl_format *f, double uc)
{
    const double c = 1 - lr * a;
    o->ulp = srl_format_ulp(f, xstar);
    o->rn_limit = srl_round(xstar, f, SRL_ROUND_RN, NULL);
    o->rn_limit_dist = fabs(o->rn_limit - xstar);
    o->rn_stall = o->ulp / (2 * lr * a);
    o->x_exact = xstar + pow(c, (double)steps) * (x0 - xstar);
    o->ulp_t = srl_format_ulp(f, o->x_exact);
    const double lo = srl_round(o->x_exact, f, (srl_rounding){SRL_RD, 0}, NULL);
    const double hi = srl_round(o->x_exact, f, (srl_rounding){SRL_RU, 0}, NULL);
    o->sr_kahan_ms = (o->x_exact - lo) * (hi - o->x_exact);
    const double drift = uc * o->ulp_t / (lr * a);
    o->comp_tol = o->ulp_t * 2 * drift + drift * drift;
    o->sr_plain_ms_uniform =
        o->ulp_t * o->ulp_t / 6 * (1 - pow(c * c, (double)steps)) / (1 - c * c);
    o->sr_plain_ms = srl_t16_plain_sr_ms(a, xstar, x0, lr, steps, f);
}

/* A distribution over values of the format: sorted values, their probabilities. */
typedef struct t16_dist {
    size_t n, cap;
    double *x, *p;
} t16_dist;

static int t16_add(t16_dist *d, double x, double p)
{
    if (p == 0)
        return 0;
    size_t lo = 0, hi = d->n; /* binary search: the support stays sorted */
    while (lo < hi) {
        const size_t mid = (lo + hi) / 2;
        if (d->x[mid] < x)
            lo = mid + 1;
        else
            hi = mid;
    }
    if (lo < d->n && d->x[lo] == x) {
        d->p[lo] += p;
        return 0;
    }
    if (d->n == d->cap) {
        const size_t cap = d->cap ? 2 * d->cap : 64;
        double *nx = realloc(d->x, cap * sizeof *nx), *np = nx ? realloc(d->p, cap * sizeof *np)
                                                                : NULL;
        if (nx)
            d->x = nx;
        if (!np)
            return -1;
        d->p = np;
        d->cap = cap;
    }
    memmove(d->x + lo + 1, d->x + lo, (d->n - lo) * sizeof *d->x);
    memmove(d->p + lo + 1, d->p + lo, (d->n - lo) * sizeof *d->p);
    d->x[lo] = x;
    d->p[lo] = p;
    d->n++;
    return 0;
}

double srl_t16_plain_sr_ms(double a, double xstar, double x0, double lr, uint64_t steps,
                           const srl_format *f)
{
    /* T16 item 3's plain SR, exactly: the law of w_t over the grid, step by step. From w the
     * update is y = w - lr (a (w - x*)) in binary64 (the fp64 gradient and update of the
     * experiment), then y goes to RD(y) with probability 1 - p and RU(y) with p = (y - RD)/(RU -
     * RD) (T01); E (w_T - x_T)^2 over that law, x_T the exact GD iterate from RN(x0). */
    t16_dist cur = {0, 0, NULL, NULL}, nxt = {0, 0, NULL, NULL};
    const double w0 = srl_round(x0, f, SRL_ROUND_RN, NULL);
    const double xe = xstar + pow(1 - lr * a, (double)steps) * (w0 - xstar); /* as srl_t16_eval */
    double ms = NAN;
    if (t16_add(&cur, w0, 1))
        goto done;
    for (uint64_t t = 0; t < steps; t++) {
        nxt.n = 0;
        for (size_t i = 0; i < cur.n; i++) {
            const double w = cur.x[i], y = w - lr * (a * (w - xstar));
            const double rd = srl_round(y, f, (srl_rounding){SRL_RD, 0}, NULL),
                         ru = srl_round(y, f, (srl_rounding){SRL_RU, 0}, NULL);
            const double pu = ru > rd ? (y - rd) / (ru - rd) : 0;
            if (t16_add(&nxt, rd, cur.p[i] * (1 - pu)) || t16_add(&nxt, ru, cur.p[i] * pu))
                goto done;
        }
        t16_dist tmp = cur;
        cur = nxt, nxt = tmp;
    }
    ms = 0;
    for (size_t i = 0; i < cur.n; i++)
        ms += cur.p[i] * (cur.x[i] - xe) * (cur.x[i] - xe);
done:
    free(cur.x), free(cur.p), free(nxt.x), free(nxt.p);
    return ms;
}

double srl_t16_rn_mean_tol(double ulp, double lr, double a, uint64_t K, double uc)
{
    return 2 * ulp / (double)K + uc * ulp / (lr * a);
}

/* ---- T17 ---- */

double srl_t17_var_recursive(const double *x, size_t n, double u)
{
    double S = n ? x[0] : 0, V = 0;
    for (size_t k = 1; k < n; k++) {
        S += x[k];
        V = (1 + u * u) * V + u * u * S * S;
    }
    return V;
}

/* The bound and the exact sum (*S) of x[a..b), srl_sum's pairwise tree. */
static double var_pairwise(const double *x, size_t a, size_t b, double u, double *S)
{
    if (b - a == 1) {
        *S = x[a];
        return 0;
    }
    size_t h = 1;
    while (2 * h < b - a)
        h *= 2;
    double SL, SR;
    const double VL = var_pairwise(x, a, a + h, u, &SL), VR = var_pairwise(x, a + h, b, u, &SR);
    *S = SL + SR;
    return (1 + u * u) * (VL + VR) + u * u * *S * *S;
}

double srl_t17_var_pairwise(const double *x, size_t n, double u)
{
    double S;
    return n ? var_pairwise(x, 0, n, u, &S) : 0;
}

/* The pairwise bound of L equal terms x: the tree splits L into h (the largest power of two below
 * L) and L - h; the bound depends on the lengths only. */
static double var_equal_pairwise(uint64_t L, double x, double u2)
{
    if (L <= 1)
        return 0;
    uint64_t h = 1;
    double Vh = 0; /* the bound of the full tree of h = 2^j leaves, built up level by level */
    while (2 * h < L) {
        h *= 2;
        Vh = (1 + u2) * 2 * Vh + u2 * ((double)h * x) * ((double)h * x);
    }
    const double S = (double)L * x;
    return (1 + u2) * (Vh + var_equal_pairwise(L - h, x, u2)) + u2 * S * S;
}

void srl_t17_eval(srl_t17_values *o, double x, uint64_t n, double delta, const srl_format *f)
{
    /* n equal terms: the partial sums are k x, the tree's node sums (its length) x */
    const double u = ldexp(1.0, -f->p), u2 = u * u;
    double V = 0;
    for (uint64_t k = 2; k <= n; k++)
        V = (1 + u2) * V + u2 * ((double)k * x) * ((double)k * x);
    o->u = u;
    o->S = (double)n * x;
    o->var_rec = V;
    o->var_pair = var_equal_pairwise(n, x, u2);
    o->rel_rec = sqrt(o->var_rec) / fabs(o->S);
    o->rel_pair = sqrt(o->var_pair) / fabs(o->S);
    o->rel_rec_asym = u * sqrt((double)n / 3);
    o->lambda = 1 / sqrt(delta);
    o->prob_rec = o->lambda * o->rel_rec;
    o->prob_pair = o->lambda * o->rel_pair;
}
