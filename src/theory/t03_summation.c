/* src/theory/t03_summation.c: the predictions of theory/T03-summation.md (include/srlab/theory.h):
 * the deterministic bound gamma_h of a sum in any order, the probabilistic bound under SR, and
 * the harmonic series' stagnation term under the deterministic modes.
 *
 * The stagnation term is computed on the format's grid with exact integer arithmetic (a scaled
 * 128-bit fixed point), without srlab's rounding code, so that the runner that measures it
 * (src/problems/sum.c, through srl_op_apply) and this prediction share nothing but the
 * definition of the format. */
#include "srlab/theory.h"

#include <math.h>
#include <string.h>

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

/* ---- the harmonic series on the grid, in exact integer arithmetic ----
 * Values are integers V standing for V 2^-L: L is chosen so that every term's spacing, hence
 * every sum's, is a whole number of units. */

typedef unsigned __int128 u128;

typedef struct hgrid {
    int L;      /* the unit is 2^-L: the spacing of the smallest term */
    int Emin_t; /* the binade of the smallest term (or emin if lower) */
} hgrid;

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

/* The grid of a series up to nmax terms in f: SRL_ENOTSUP when a term falls below xmin without
 * subnormals or the values need more than 126 bits. */
static int harmonic_grid(hgrid *g, const srl_format *f, uint64_t nmax, srl_err *err)
{
    /* The smallest term 1/nmax has exponent -ceil(log2 nmax) (or emin if lower). */
    int jmax = 0;
    while (jmax < 64 && (UINT64_C(1) << jmax) < nmax)
        jmax++;
    g->Emin_t = -jmax > f->emin ? -jmax : f->emin;
    if (!f->subnormals && -jmax < f->emin)
        return srl_err_set(err, SRL_ENOTSUP,
                           "harmonic stagnation: 1/%llu is below the smallest normal of %s, "
                           "which has no subnormals", (unsigned long long)nmax, f->name);
    g->L = f->p - 1 - g->Emin_t;
    /* Under the nearest and downward modes the sum stays below ln(nmax) + 1 < 2^6, so values
     * need L + 7 bits; ru grows it geometrically, which the loop checks. */
    if (g->L + 7 > 126)
        return srl_err_set(err, SRL_ENOTSUP,
                           "harmonic stagnation: %s with %llu terms needs a %d-bit grid "
                           "(at most 126)", f->name, (unsigned long long)nmax, g->L + 7);
    return SRL_OK;
}

/* t_k = fl(1/k) in units: 1/k lies in binade e_t = -ceil(log2 k); spacing 2^(E-p+1),
 * E = max(e_t, emin); the count of spacings is 2^(p-1-E)/k, never a tie (T03). */
static u128 harmonic_term(uint64_t k, const hgrid *g, const srl_format *f, srl_mode mode)
{
    const int cl = k == 1 ? 0 : 64 - __builtin_clzll(k - 1); /* ceil(log2 k) */
    const int E = -cl > f->emin ? -cl : f->emin;
    const int sh = f->p - 1 - E;
    const u128 num = (u128)1 << sh;
    const u128 cnt = round_count(num / k, num % k, k, mode);
    return cnt << (E - g->Emin_t); /* spacing 2^(E-p+1) = 2^(E - Emin_t) units */
}

/* The spacing above the grid value V, 2^(max(e_V, emin) - p + 1), as a power of two in units:
 * >= 0 for every sum (s >= t_1, and s's spacing is at least the terms'). */
static int spacing_shift(u128 V, const hgrid *g, const srl_format *f)
{
    const int e = bitlen(V) - 1 - g->L;
    const int E = e > f->emin ? e : f->emin;
    return g->L + E - f->p + 1;
}

/* T03's criterion: does the term T leave the sum S (spacing 2^shs units) unchanged? */
static bool harmonic_stays(u128 S, u128 T, int shs, srl_mode mode)
{
    const u128 U = (u128)1 << shs;
    const bool odd = (S >> shs) & 1;
    switch (mode) {
    case SRL_RN: return 2 * T < U || (2 * T == U && !odd);
    case SRL_RNA: return 2 * T < U;
    case SRL_RZ:
    case SRL_RD: return T < U;
    case SRL_RO: return T < U && odd;
    default: return false;
    }
}

/* The value Y rounded onto the grid of f with mode (its own spacing). */
static u128 grid_round(u128 Y, const hgrid *g, const srl_format *f, srl_mode mode)
{
    const int shy = spacing_shift(Y, g, f);
    const u128 mask = ((u128)1 << shy) - 1;
    return round_count(Y >> shy, Y & mask, (u128)1 << shy, mode) << shy;
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
    hgrid g = {0, 0};
    const int st = harmonic_grid(&g, f, nmax, err);
    if (st)
        return st;
    const srl_mode mode = m.mode;
    if (mode == SRL_RU) { /* every positive term moves the sum up: never stagnates (T03) */
        out->sum = out->term = out->ulp = NAN;
        return SRL_OK;
    }
    u128 S = harmonic_term(1, &g, f, mode);
    out->sum = out->term = ldexp((double)S, -g.L);
    for (uint64_t k = 2; k <= nmax; k++) {
        const u128 T = harmonic_term(k, &g, f, mode);
        const int shs = spacing_shift(S, &g, f);
        const bool stays = harmonic_stays(S, T, shs, mode);
        /* the sum itself, rounded on the grid: a check of the criterion, and the next s */
        const u128 R = grid_round(S + T, &g, f, mode);
        if (stays != (R == S))
            return srl_err_set(err, SRL_EINVAL,
                               "harmonic stagnation: internal inconsistency at k = %llu",
                               (unsigned long long)k);
        out->term = ldexp((double)T, -g.L);
        if (stays) {
            out->found = 1;
            out->k = k;
            out->sum = ldexp((double)S, -g.L);
            out->ulp = ldexp(1.0, shs - g.L);
            return SRL_OK;
        }
        if (bitlen(R) > 126)
            return srl_err_set(err, SRL_ENOTSUP,
                               "harmonic stagnation: the sum outgrows the 126-bit grid at k = "
                               "%llu", (unsigned long long)k);
        const double r = ldexp((double)R, -g.L);
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

void srl_t03_eval(srl_t03_values *out, size_t n, const srl_accum *c, double lambda,
                  uint64_t nmax)
{
    const srl_format *f = &c->acc_fmt;
    out->u = f->u;
    out->v = srl_t03_unit(f, c->acc_mode);
    out->h = (double)srl_t03_path(n, c);
    out->gamma = srl_t03_sum_bound(n, c);
    out->sr_prob = srl_t03_sr_prob(lambda);
    out->sr_rule = srl_t03_sr_rule(n, f, lambda);
    out->sr_bound = srl_t03_sum_sr_bound(n, f, lambda);
    /* the stagnation criterion is for the deterministic modes; under a stochastic one, rn's
     * term is the contrast */
    out->harmonic_mode = srl_rounding_is_stochastic(c->acc_mode) ? SRL_ROUND_RN : c->acc_mode;
    out->harmonic_err.msg[0] = 0;
    out->harmonic_status =
        srl_t03_harmonic_stagnation(&out->harmonic, f, out->harmonic_mode, nmax,
                                    &out->harmonic_err);
}
