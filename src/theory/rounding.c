/* src/theory/rounding.c: predictions of theory/T01-T04 (include/srlab/theory.h).
 *
 * The formulas are derived in theory/T01-sr-basics.md, T02-sr-bits-bias.md, T03-summation.md and
 * T04-matvec.md; the comments below cite the step they evaluate. The harmonic stagnation term is
 * computed on the format's grid with exact integer arithmetic (a scaled 128-bit fixed point),
 * without srlab's rounding code, so that the runner that measures it (src/problems/sum.c, through
 * srl_op_apply) and this prediction share nothing but the definition of the format.
 * Not here: predictions about training (src/theory/descent.c, T05-T09, T13). */
#include "srlab/theory.h"

#include <math.h>
#include <string.h>

/* ---- T01 ---- */

static bool finite_in_range(double x, const srl_format *f)
{
    return isfinite(x) && fabs(x) <= f->xmax;
}

double srl_t01_sr_variance(double x, const srl_format *f)
{
    if (!finite_in_range(x, f))
        return NAN;
    const double rd = srl_round(x, f, (srl_rounding){SRL_RD, 0}, NULL);
    const double ru = srl_round(x, f, (srl_rounding){SRL_RU, 0}, NULL);
    /* T01: SR(x) = ru with probability (x - rd)/(ru - rd), rd otherwise; so E = x and
     * Var = (ru - x)^2 P + (x - rd)^2 (1 - P) = (x - rd)(ru - x). In the normal range both
     * differences are exact (Sterbenz: rd and ru lie within a factor 2 of x); below xmin
     * without subnormals they may round once each. */
    return (x - rd) * (ru - x);
}

double srl_t01_sr_variance_max(double x, const srl_format *f)
{
    if (!finite_in_range(x, f))
        return NAN;
    const double rd = srl_round(x, f, (srl_rounding){SRL_RD, 0}, NULL);
    const double ru = srl_round(x, f, (srl_rounding){SRL_RU, 0}, NULL);
    if (rd == ru)
        return 0.0;
    const double q = ru - rd; /* a power of two: exact */
    return q * q / 4;
}

double srl_t01_rn_error_bound(double x, const srl_format *f)
{
    if (!isfinite(x))
        return NAN;
    if (fabs(x) >= f->xmin)
        return f->u * fabs(x); /* ulp(x)/2 = 2^(e-p) <= 2^-p |x| */
    return (f->subnormals ? f->xsub : f->xmin) / 2;
}

double srl_t01_sr_error_bound(double x, const srl_format *f)
{
    if (!isfinite(x))
        return NAN;
    if (fabs(x) >= f->xmin)
        return 2 * f->u * fabs(x); /* ulp(x) = 2^(e-p+1) <= 2^(1-p) |x| */
    return f->subnormals ? f->xsub : f->xmin;
}

/* ---- T02 ---- */

/* |x| = T + f q with T the truncation of |x| to the grid and q the spacing there; false when x
 * is outside the format's finite range. */
static bool split(double x, const srl_format *f, double *T, double *q, double *frac)
{
    if (!finite_in_range(x, f))
        return false;
    const double ax = fabs(x);
    *T = srl_round(ax, f, (srl_rounding){SRL_RZ, 0}, NULL);
    *q = srl_format_ulp(f, ax);
    *frac = (ax - *T) / *q; /* exact: the difference by Sterbenz (or T = 0), then a power of 2 */
    return true;
}

double srl_t02_sr_bits_bias(double x, const srl_format *f, int R)
{
    double T, q, fr;
    if (R < 1 || R > 64 || !split(x, f, &T, &q, &fr))
        return NAN;
    if (fr == 0)
        return 0.0;
    /* T02: P(away) = F / 2^R with F = floor(f 2^R), so E|SR_R(x)| = T + q F 2^-R and
     * E|SR_R(x)| - |x| = -q (f - F 2^-R); the sign of x carries over (the mode is symmetric). */
    const double F = floor(ldexp(fr, R));
    const double mag = q * (fr - ldexp(F, -R));
    return x > 0 ? -mag : mag;
}

double srl_t02_sr_bits_bias_max(double x, const srl_format *f, int R)
{
    double T, q, fr;
    if (R < 1 || R > 64 || !split(x, f, &T, &q, &fr))
        return NAN;
    return ldexp(q, -R);
}

double srl_t02_sr_bits_bias_mean(double x, const srl_format *f, int R)
{
    double T, q, fr;
    if (R < 1 || R > 64 || !split(x, f, &T, &q, &fr))
        return NAN;
    return ldexp(q, -R - 1); /* the mean of the sawtooth f - floor(f 2^R) 2^-R over (0, 1) */
}

/* ---- T03 ---- */

double srl_t03_unit(const srl_format *f, srl_rounding m)
{
    return (m.mode == SRL_RN || m.mode == SRL_RNA) ? f->u : 2 * f->u;
}

double srl_t03_gamma(double h, double v)
{
    const double hv = h * v;
    return hv >= 1 ? INFINITY : hv / (1 - hv);
}

static long ceil_log2(size_t n)
{
    long e = 0;
    while (((size_t)1 << e) < n && e < 63)
        e++;
    return e;
}

long srl_t03_path(size_t n, const srl_accum *c)
{
    if (c->kahan)
        return -1;
    if (n <= 1)
        return 0;
    switch (c->order) {
    case SRL_ORDER_RECURSIVE: return (long)(n - 1);
    case SRL_ORDER_PAIRWISE: return ceil_log2(n);
    case SRL_ORDER_BLOCKED: {
        const size_t K = c->block ? c->block : 1;
        const size_t b = n < K ? n : K;
        const size_t nb = (n + K - 1) / K;
        return (long)((b - 1) + (nb - 1));
    }
    default: return -1;
    }
}

double srl_t03_sum_bound(size_t n, const srl_accum *c)
{
    const long h = srl_t03_path(n, c);
    if (h < 0)
        return NAN;
    return srl_t03_gamma((double)h, srl_t03_unit(&c->acc_fmt, c->acc_mode));
}

double srl_t03_sr_prob(double lambda)
{
    const double P = 1 - 2 * exp(-lambda * lambda / 2);
    return P > 0 ? P : 0.0;
}

double srl_t03_sr_rule(size_t n, const srl_format *f, double lambda)
{
    return lambda * sqrt((double)n) * f->u;
}

double srl_t03_sum_sr_bound(size_t n, const srl_format *f, double lambda)
{
    if (n <= 1)
        return 0.0;
    const double u = f->u, v = 2 * u, h = (double)(n - 1);
    /* T03, forward: the first-order part sum_k delta_k S_k is a martingale whose k-th increment
     * lies in an interval of length ulp(y_k)/|y_k| |S_k| <= 2u A, so (Hoeffding's lemma, Ville's
     * maximal inequality) all its partial sums stay below lambda u sqrt(h) A with probability
     * P(lambda); the second-order part multiplies that by at most (1 + 2u)^(h-1). */
    const double fwd = lambda * u * sqrt(h) * pow(1 + v, h - 1);
    /* T03, backward: each term is multiplied by a suffix product of (1 + delta_k); its log is a
     * difference of two partial sums of the martingale sum delta_k (each below lambda u sqrt(h)
     * on the same event) plus sum (delta - log(1 + delta)) <= h v^2 / (2 (1 - v)), v = 2u. */
    const double bwd = expm1(2 * lambda * u * sqrt(h) + h * v * v / (2 * (1 - v)));
    return fwd < bwd ? fwd : bwd;
}

/* ---- T03: harmonic stagnation on the grid, in exact integer arithmetic ----
 * Values are integers V standing for V 2^-L: L is chosen so that every term's spacing, hence
 * every sum's, is a whole number of units. */

typedef unsigned __int128 u128;

static int bitlen(u128 v)
{
    const uint64_t hi = (uint64_t)(v >> 64), lo = (uint64_t)v;
    if (hi)
        return 128 - __builtin_clzll(hi);
    return lo ? 64 - __builtin_clzll(lo) : 0;
}

/* Round the positive integer quotient num/den (a value in units of one grid spacing: quo = the
 * spacing count below, rem/den the fraction) with mode m; returns the spacing count. */
static u128 round_count(u128 quo, u128 rem, u128 den, srl_mode m)
{
    if (rem == 0)
        return quo;
    switch (m) {
    case SRL_RN: return (2 * rem > den || (2 * rem == den && (quo & 1))) ? quo + 1 : quo;
    case SRL_RNA: return 2 * rem >= den ? quo + 1 : quo;
    case SRL_RU: return quo + 1;
    case SRL_RO: return (quo & 1) ? quo : quo + 1;
    default: return quo; /* rz, rd: positive values go down */
    }
}

int srl_t03_harmonic_stagnation(srl_t03_stagnation *out, const srl_format *f, srl_rounding m,
                                uint64_t nmax, srl_err *err)
{
    memset(out, 0, sizeof *out);
    if (srl_rounding_is_stochastic(m) || !srl_rounding_valid(m))
        return srl_err_set(err, SRL_EINVAL, "harmonic stagnation: the prediction is for the "
                                            "deterministic modes (rn, rna, rz, rd, ru, ro)");
    if (nmax == 0)
        return srl_err_set(err, SRL_EINVAL, "harmonic stagnation: nmax must be at least 1");
    const int p = f->p;
    /* The smallest term 1/nmax has exponent -ceil(log2 nmax) (or emin if lower). */
    int jmax = 0;
    while (jmax < 64 && (UINT64_C(1) << jmax) < nmax)
        jmax++;
    const int Emin_t = -jmax > f->emin ? -jmax : f->emin;
    if (!f->subnormals && -jmax < f->emin)
        return srl_err_set(err, SRL_ENOTSUP,
                           "harmonic stagnation: 1/%llu is below the smallest normal of %s, "
                           "which has no subnormals", (unsigned long long)nmax, f->name);
    const int L = p - 1 - Emin_t; /* the unit 2^-L is the spacing of the smallest term */
    /* Under the nearest and downward modes the sum stays below ln(nmax) + 1 < 2^6, so values
     * need L + 7 bits; ru grows it geometrically, which the loop checks. */
    if (L + 7 > 126)
        return srl_err_set(err, SRL_ENOTSUP,
                           "harmonic stagnation: %s with %llu terms needs a %d-bit grid "
                           "(at most 126)", f->name, (unsigned long long)nmax, L + 7);
    const srl_mode mode = m.mode;
    if (mode == SRL_RU) { /* every positive term moves the sum up: never stagnates (T03) */
        out->sum = out->term = out->ulp = NAN;
        return SRL_OK;
    }
    u128 S = 0;
    for (uint64_t k = 1; k <= nmax; k++) {
        /* t_k = fl(1/k): 1/k lies in binade e_t = -ceil(log2 k); spacing 2^(E-p+1),
         * E = max(e_t, emin); the count of spacings is 2^(p-1-E)/k, never a tie (T03). */
        const int cl = k == 1 ? 0 : 64 - __builtin_clzll(k - 1); /* ceil(log2 k) */
        const int E = -cl > f->emin ? -cl : f->emin;
        const int sh = p - 1 - E;
        const u128 num = (u128)1 << sh;
        const u128 cnt = round_count(num / k, num % k, k, mode);
        const u128 T = cnt << (E - Emin_t); /* spacing 2^(E-p+1) = 2^(E - Emin_t) units */
        if (k == 1) {
            S = T;
            out->sum = ldexp((double)S, -L);
            out->term = out->sum;
            continue;
        }
        /* ulp(s): the spacing above s, 2^(max(e_s, emin) - p + 1). */
        const int es = bitlen(S) - 1 - L;
        const int Es = es > f->emin ? es : f->emin;
        const int shs = L + Es - p + 1; /* >= 0: s >= t_1 ... and s's spacing >= the terms' */
        const u128 U = (u128)1 << shs;
        const bool odd = (S >> shs) & 1;
        bool stays;
        switch (mode) {
        case SRL_RN: stays = 2 * T < U || (2 * T == U && !odd); break;
        case SRL_RNA: stays = 2 * T < U; break;
        case SRL_RZ:
        case SRL_RD: stays = T < U; break;
        case SRL_RO: stays = T < U && odd; break;
        default: stays = false; break;
        }
        /* The sum itself, rounded on the grid (a check of the criterion, and the next s). */
        const u128 Y = S + T;
        const int ey = bitlen(Y) - 1 - L;
        const int Ey = ey > f->emin ? ey : f->emin;
        const int shy = L + Ey - p + 1;
        const u128 mask = ((u128)1 << shy) - 1;
        const u128 R = round_count(Y >> shy, Y & mask, (u128)1 << shy, mode) << shy;
        if (stays != (R == S))
            return srl_err_set(err, SRL_EINVAL,
                               "harmonic stagnation: internal inconsistency at k = %llu",
                               (unsigned long long)k);
        out->term = ldexp((double)T, -L);
        if (stays) {
            out->found = 1;
            out->k = k;
            out->sum = ldexp((double)S, -L);
            out->ulp = ldexp(1.0, Es - p + 1);
            return SRL_OK;
        }
        if (bitlen(R) > 126)
            return srl_err_set(err, SRL_ENOTSUP,
                               "harmonic stagnation: the sum outgrows the 126-bit grid at k = "
                               "%llu", (unsigned long long)k);
        const double r = ldexp((double)R, -L);
        if (r > f->xmax)
            return srl_err_set(err, SRL_ENOTSUP,
                               "harmonic stagnation: the sum overflows %s at k = %llu", f->name,
                               (unsigned long long)k);
        S = R;
        out->sum = r;
    }
    out->ulp = srl_format_ulp(f, out->sum);
    return SRL_OK;
}

/* ---- T04 ---- */

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
    const double lm = sqrt(lambda * lambda + 2 * log(m > 1 ? (double)m : 1.0));
    const double vmax = va > vp ? va : vp;
    /* T04: term j's factor is (1 + delta^p_j) times a suffix product of the accumulation
     * factors. The accumulation deltas form a martingale with increments in intervals of length
     * <= 2 ua, so its suffix sums stay below 2 lambda_m ua sqrt(h) on an event of probability
     * >= 1 - 2 m exp(-lambda_m^2/2) = P(lambda) for all m rows; the product rounding adds at
     * most vp to the log, and the second-order terms (h va^2 + vp^2) / (2 (1 - vmax)). */
    return expm1(vp + 2 * lm * ua * sqrt(h) + (h * va * va + vp * vp) / (2 * (1 - vmax)));
}
