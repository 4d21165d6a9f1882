/* src/check/round.c: the checks of single roundings (theory/T01-sr-basics.md,
 * theory/T02-sr-bits-bias.md, theory/T11-implicit-regularization.md item 2).
 *
 *   T01a  E[SR(x)] = x: the frequency k/N of rounding away from zero among N roundings of x is
 *         Binomial(N, f), f = (|x| - T)/q (T01 step 1); its Clopper-Pearson interval, minus f,
 *         must contain 0 (bias in units of the spacing q), for every probe (Bonferroni).
 *   T01b  Var[SR(x)] = (x - RD)(RU - x): the two-point law's variance is q^2 p (1 - p); the image
 *         of the Clopper-Pearson interval of p under p (1 - p) must contain the predicted
 *         (x - RD)(RU - x) / q^2 (srl_t01_sr_variance).
 *   T01c  |RN(x) - x| <= u|x| (srl_t01_rn_error_bound): the largest ratio over random probes of
 *         seven formats (normal and subnormal ranges, binade bottoms where the bound is tight).
 *         Under rn, the probes that are midpoints (a quarter of them) must go to the even
 *         neighbour (ties to even): the count that does not is exact, 0.
 *   T01d  |SR(x) - x| < 2u|x| (srl_t01_sr_error_bound): the same probes under sr.
 *   T01e  the elements of one array are rounded independently: the frequency of pairs
 *         (2j, 2j + 1) both away from zero is Binomial(N/2, f^2) (Clopper-Pearson).
 *   T02a  sr:r=R: the frequency away from zero is Binomial(N, F/2^R); the bias in spacings
 *         (k/N - f) must be consistent with srl_t02_sr_bits_bias / q.
 *   T02b  sr:r=16 of binary32 values into bf16 is unbiased (T02: f has at most 16 bits).
 *   T11b  f(x) = x^4/4: for y between two grid points, E[SR(y)^3] - y^3 = 3 y s^2 + ab(b - a),
 *         s^2 = ab, a = y - RD, b = RU - y (T11 step 4); the leading term 3 y s^2 is checked, the
 *         third-moment term bounded and added to the tolerance.
 * Every rounding is the library's own (srl_round, srl_round_array), where the built-in defects of
 * `srlab check --mutate bug` live (src/core/mutant.h).
 * Draws: every probe has its own stream, srl_rng_derive of (check, probe), seed 1; the seeds are
 * printed in the `what` text. Sampling is done in chunks with srl_round_array (thread-invariant
 * by construction). */
#include "check/check_impl.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "srlab/format.h"
#include "srlab/rng.h"
#include "srlab/rounding.h"
#include "srlab/theory.h"

#define CHUNK 65536

static const srl_rounding RZ = {SRL_RZ, 0}, RD = {SRL_RD, 0}, RU = {SRL_RU, 0};

/* The stream of probe i of check `id`: seed 1, stream hash(id), child i. */
static void probe_stream(srl_rng *r, const char *id, uint64_t i)
{
    srl_rng root;
    srl_rng_init(&root, SRL_RNG_DEFAULT, 1, srl_hash_str(id));
    srl_rng_derive(r, &root, i);
}

/* Round x N times into f with mode m (draws from r) and count the results away from
 * zero (|result| > |RZ(x)|); with pairs, also the pairs of elements (2j, 2j + 1) of one array
 * that both went away (N even). */
static int count_away(uint64_t *k, uint64_t *pairs, double x, uint64_t N, const srl_format *f,
                      srl_rounding m, srl_rng *r, srl_err *err)
{
    double *in = malloc(CHUNK * sizeof *in), *out = malloc(CHUNK * sizeof *out);
    if (!in || !out) {
        free(in);
        free(out);
        return srl_err_set(err, SRL_ENOMEM, "out of memory");
    }
    const double t = fabs(srl_round(x, f, RZ, NULL));
    for (size_t i = 0; i < CHUNK; i++)
        in[i] = x;
    uint64_t c = 0, c2 = 0;
    int st = SRL_OK;
    for (uint64_t done = 0; done < N && !st; done += CHUNK) {
        const size_t n = (size_t)(N - done < CHUNK ? N - done : CHUNK);
        st = srl_round_array(out, in, n, f, m, r);
        for (size_t i = 0; i < n; i++)
            c += fabs(out[i]) > t;
        for (size_t i = 0; i + 1 < n; i += 2)
            c2 += fabs(out[i]) > t && fabs(out[i + 1]) > t;
    }
    free(in);
    free(out);
    if (st)
        return srl_err_set(err, st, "srl_round_array failed");
    *k = c;
    if (pairs)
        *pairs = c2;
    return SRL_OK;
}

/* Spacing q = RU(x) - RD(x) around x and the fraction f = (|x| - T)/q of the magnitude beyond its
 * truncation T, with which exact sr rounds away from zero (T01; exact: |x| - T is exact for
 * neighbours of a common binade, q is a power of two); both 0 for a value of f. */
static void cell(double *q, double *frac, double x, const srl_format *f)
{
    double rd, ru;
    srl_t01_neighbours(&rd, &ru, x, f);
    *q = ru - rd;
    *frac = srl_t12_away_prob(x, f, SRL_ROUND_SR);
}

static const srl_format *fmt(const char *name)
{
    return srl_format_find(name);
}

/* ---- T01a, T01b, T02a, T02b: probes rounded N times ---- */

typedef struct probe {
    double x;
    const char *format;
    srl_rounding mode; /* sr, or sr:r=R */
} probe;

static const probe t01_probes[] = {
    {0.1, "bf16", {SRL_SR, 0}},
    {1.0 / 3.0, "fp16", {SRL_SR, 0}},
    {-2.7, "e4m3", {SRL_SR, 0}},
    {3e-7, "fp16", {SRL_SR, 0}},                  /* subnormal range of fp16 */
    {1 + 0x1p-13 + 0x1p-40, "bf16", {SRL_SR, 0}}, /* f = 1/64 + 2^-33 */
    {1 + 3 * 0x1p-17, "bf16", {SRL_SR, 0}},       /* f = 3/1024: below 2^-8 */
    {-12345.678, "fp32", {SRL_SR, 0}},
};
#define NT01 (sizeof t01_probes / sizeof t01_probes[0])

static const probe t02_probes[] = {
    {0.1, "bf16", {SRL_SR_BITS, 4}},       {1.3, "bf16", {SRL_SR_BITS, 2}},
    {1.0 / 3.0, "fp16", {SRL_SR_BITS, 3}}, {-0.7, "bf16", {SRL_SR_BITS, 5}},
    {-2.7, "e4m3", {SRL_SR_BITS, 1}},      {1e-3, "fp32", {SRL_SR_BITS, 6}},
};
#define NT02 (sizeof t02_probes / sizeof t02_probes[0])

typedef struct sample {
    double q, frac; /* spacing and fraction of x */
    uint64_t k, N;  /* away from zero, of N */
    uint64_t k2;    /* pairs (2j, 2j + 1) of one array both away, of N/2 */
    double lo, hi;  /* Clopper-Pearson interval of the frequency away from zero */
} sample;

/* Sample each probe (the mode possibly replaced by `mode_override` when non-NULL), the
 * Clopper-Pearson intervals at level 1 - alpha/count. Probes run in parallel (each has its own
 * stream; the bulk roundings inside are then serial): coarse-grained threads, the same
 * counts for any thread count. */
typedef struct sample_job {
    sample *s;
    const probe *p;
    size_t count;
    uint64_t N;
    const char *id;
    const srl_rounding *ov;
} sample_job;

static int sample_item(void *ctx, size_t i, srl_err *err)
{
    const sample_job *j = ctx;
    const srl_format *f = fmt(j->p[i].format);
    srl_rng r;
    probe_stream(&r, j->id, i);
    cell(&j->s[i].q, &j->s[i].frac, j->p[i].x, f);
    const srl_rounding m = j->ov ? *j->ov : j->p[i].mode;
    int st = count_away(&j->s[i].k, &j->s[i].k2, j->p[i].x, j->N, f, m, &r, err);
    if (st)
        return st;
    j->s[i].N = j->N;
    srl_check_clopper_pearson(&j->s[i].lo, &j->s[i].hi, j->s[i].k, j->N,
                              SRL_CHECK_ALPHA / (double)j->count);
    return SRL_OK;
}

static int sample_probes(sample *s, const probe *p, size_t count, uint64_t N, const char *id,
                         const srl_rounding *mode_override, srl_err *err)
{
    sample_job j = {s, p, count, N, id, mode_override};
    return srl__chk_parallel(count, sample_item, &j, err);
}

/* Judge a frequency k/n with interval [lo, hi] as a deviation from `centre`: measured k/n -
 * centre, interval [lo - centre, hi - centre], predicted pred - centre. */
static void set_freq(srl_check_result *c, uint64_t k, uint64_t n, double lo, double hi,
                     double centre, double pred)
{
    srl__chk_result_set(c, SRL_CHECK_INTERVAL, (double)k / (double)n - centre, lo - centre,
                        hi - centre, pred - centre);
}

/* Begin the result of T01 probe i: what, the probe, n units (draws, pairs), its stream. */
static void begin_t01(srl_check_result *c, const char *id, const char *what, size_t i, uint64_t n,
                      const char *units)
{
    srl__chk_result_begin(c, id,
                          "%s, x = %.17g into %s, %llu %s (seed 1, stream %s/%zu); worst of %zu "
                          "probes",
                          what, t01_probes[i].x, t01_probes[i].format, (unsigned long long)n,
                          units, id, i, (size_t)NT01);
}

static uint64_t draws(const srl_check_opts *o, uint64_t quick, uint64_t full)
{
    return o->quick ? quick : full;
}

int srl__chk_sr_mean(srl_check_result *out, const srl__chk_row *row, const srl_check_opts *o,
                     srl_err *err)
{
    const uint64_t N = draws(o, UINT64_C(1) << 20, UINT64_C(1) << 22);
    const srl_rounding bits4 = {SRL_SR_BITS, 4};
    const srl_rounding *ov = o->mutation == SRL_CHECK_MUT_EXPERIMENT ? &bits4 : NULL;
    sample s[NT01];
    int st = sample_probes(s, t01_probes, NT01, N, row->check.id, ov, err);
    if (st)
        return st;
    bool have = false;
    for (size_t i = 0; i < NT01; i++) {
        srl_check_result c;
        begin_t01(&c, row->check.id, "mean(SR(x)) - x in spacings", i, N, "draws");
        /* bias in spacings, measured in the direction away from zero: k/N - f */
        set_freq(&c, s[i].k, N, s[i].lo, s[i].hi, s[i].frac, s[i].frac);
        srl__chk_keep_worst(out, &c, &have);
    }
    return SRL_OK;
}

/* T01e: the elements of one array are rounded with independent draws (srlab/rounding.h: draw
 * counter + i for element i): among N/2 pairs (2j, 2j + 1), the number both rounded away is
 * Binomial(N/2, f^2); its Clopper-Pearson interval, minus f^2, must contain 0. A draw shared by
 * a pair makes it f (the prediction mutation). */
int srl__chk_sr_pairs(srl_check_result *out, const srl__chk_row *row, const srl_check_opts *o,
                      srl_err *err)
{
    const uint64_t N = draws(o, UINT64_C(1) << 20, UINT64_C(1) << 22);
    sample s[NT01];
    int st = sample_probes(s, t01_probes, NT01, N, row->check.id, NULL, err);
    if (st)
        return st;
    bool have = false;
    const uint64_t P = N / 2;
    for (size_t i = 0; i < NT01; i++) {
        const double f = s[i].frac;
        const double pred = o->mutation == SRL_CHECK_MUT_PREDICTION ? f : f * f;
        double lo, hi;
        srl_check_clopper_pearson(&lo, &hi, s[i].k2, P, SRL_CHECK_ALPHA / (double)NT01);
        srl_check_result c;
        begin_t01(&c, row->check.id, "P(both elements 2j, 2j+1 of one array away) - f^2", i, P,
                  "pairs");
        set_freq(&c, s[i].k2, P, lo, hi, f * f, pred);
        srl__chk_keep_worst(out, &c, &have);
    }
    return SRL_OK;
}

/* min and max of p (1 - p) over [lo, hi] */
static void pq_range(double *mn, double *mx, double lo, double hi)
{
    const double glo = lo * (1 - lo), ghi = hi * (1 - hi);
    *mn = fmin(glo, ghi);
    *mx = (lo <= 0.5 && hi >= 0.5) ? 0.25 : fmax(glo, ghi);
}

int srl__chk_sr_variance(srl_check_result *out, const srl__chk_row *row, const srl_check_opts *o,
                         srl_err *err)
{
    const uint64_t N = draws(o, UINT64_C(1) << 20, UINT64_C(1) << 22);
    const srl_rounding eq = {SRL_SR_EQ, 0};
    const srl_rounding *ov = o->mutation == SRL_CHECK_MUT_EXPERIMENT ? &eq : NULL;
    sample s[NT01];
    int st = sample_probes(s, t01_probes, NT01, N, row->check.id, ov, err);
    if (st)
        return st;
    bool have = false;
    for (size_t i = 0; i < NT01; i++) {
        const srl_format *f = fmt(t01_probes[i].format);
        const double x = t01_probes[i].x, q2 = s[i].q * s[i].q;
        double pred = srl_t01_sr_variance(x, f) / q2;
        if (o->mutation == SRL_CHECK_MUT_PREDICTION)
            pred = srl_t01_sr_variance_max(x, f) / q2;
        srl_check_result c;
        srl__chk_result_begin(
            &c, row->check.id,
            "Var(SR(x)) / q^2, x = %.17g into %s, %llu draws (seed 1, "
            "stream T01b/%zu); worst of %zu probes; predicted (x-RD)(RU-x)/q^2 <= "
            "1/4",
            x, t01_probes[i].format, (unsigned long long)N, i, (size_t)NT01);
        const double ph = (double)s[i].k / (double)N;
        double mn, mx;
        pq_range(&mn, &mx, s[i].lo, s[i].hi);
        /* the two-point law's variance p (1 - p) q^2 at the observed frequency */
        srl__chk_result_set(&c, SRL_CHECK_INTERVAL, ph * (1 - ph), mn, mx, pred);
        if (!(pred <= 0.25)) { /* the bound of T01 item 2 */
            c.pass = false;
            c.margin = -1;
        }
        srl__chk_keep_worst(out, &c, &have);
    }
    return SRL_OK;
}

/* ---- T01c, T01d: error bounds over random probes ---- */

static const char *const bound_formats[] = {
    "bf16", "fp16", "fp32", "tf32", "e4m3", "e5m2", "p=8,emax=127,subnormals=off",
};
#define NBF (sizeof bound_formats / sizeof bound_formats[0])

/* Probe j of format f: a random magnitude with exponent uniform over the format's range (from
 * p + 2 binades below xmin), a random sign; every fourth probe sits one half spacing above a
 * power of two (where |RN(x) - x| / (u|x|) is nearly 1), every fourth after it just below the
 * next grid point (where the SR error nears a whole spacing). */
static double bound_probe(srl_rng *r, const srl_format *f, uint64_t j)
{
    const uint64_t w = srl_rng_next(r), w2 = srl_rng_next(r);
    const int lo = f->emin - f->p - 2, hi = f->emax;
    const int e = lo + (int)(w % (uint64_t)(hi - lo + 1));
    const double m = 1 + ldexp((double)(w2 >> 12), -52); /* [1, 2) */
    double x;
    switch (j % 4) {
    case 1: /* 2^e + q/2 */ x = ldexp(1, e) + 0.5 * srl_format_ulp(f, ldexp(1, e)); break;
    case 2: { /* just below a grid point: g + q (1 - 2^-20) */
        const double g = srl_round(ldexp(m, e), f, RD, NULL);
        x = g + srl_format_ulp(f, g) * (1 - 0x1p-20);
        break;
    }
    default: x = ldexp(m, e); break;
    }
    if (!(fabs(x) <= f->xmax))
        x = f->xmax * 0.75;
    return (w2 & 1) ? -x : x;
}

typedef struct bound_res {
    double worst;
    double x;
    const char *format;
    uint64_t ties, odd; /* midpoints met, and those not rounded to the even neighbour (rn) */
    double odd_x;       /* the first such midpoint */
    const char *odd_format;
} bound_res;

/* The even one of the neighbours rd < ru of a midpoint: both are multiples of q = ru - rd (the
 * spacing between them), and the even one is an even multiple (zero included). */
static double even_neighbour(double rd, double ru)
{
    return fmod(fabs(rd) / (ru - rd), 2) == 0 ? rd : ru;
}

/* The largest |R(x) - x| / bound(x) over M probes of every format, R = mode into (format,
 * precision p + dp), bound from the format itself; under rn, every probe that is a
 * midpoint of two neighbours must go to the even one (ties to even). */
static void bound_scan(bound_res *res, uint64_t M, srl_rounding mode, int dp, bool sr_bound,
                       double bound_scale, const char *id)
{
    res->worst = -1;
    res->ties = res->odd = 0;
    res->odd_x = NAN;
    res->odd_format = "-";
    for (size_t k = 0; k < NBF; k++) {
        srl_format f, g;
        srl_err e;
        if (srl_format_parse(&f, bound_formats[k], &e))
            continue;
        g = f;
        if (dp &&
            srl_format_make(&g, f.p + dp, f.emax, f.emin, f.subnormals, f.inf, f.saturate, &e))
            continue;
        srl_rng r, rs;
        probe_stream(&r, id, k);
        probe_stream(&rs, id, 1000 + k);
        for (uint64_t j = 0; j < M; j++) {
            const double x = bound_probe(&r, &f, j);
            if (!(fabs(x) <= g.xmax))
                continue; /* beyond the (mutated) format's range */
            const double y = srl_round(x, &g, mode, &rs);
            const double rd = srl_round(x, &g, RD, NULL), ru = srl_round(x, &g, RU, NULL);
            if (mode.mode == SRL_RN && rd < ru && x - rd == ru - x) {
                res->ties++;
                if (y != even_neighbour(rd, ru) && !res->odd++) {
                    res->odd_x = x;
                    res->odd_format = bound_formats[k];
                }
            }
            const double b = bound_scale * (sr_bound ? srl_t01_sr_error_bound(x, &f)
                                                     : srl_t01_rn_error_bound(x, &f));
            const double ratio = fabs(y - x) / b;
            if (ratio > res->worst) {
                res->worst = ratio;
                res->x = x;
                res->format = bound_formats[k];
            }
        }
    }
}

int srl__chk_rn_error_bound(srl_check_result *out, const srl__chk_row *row, const srl_check_opts *o,
                            srl_err *err)
{
    (void)err;
    const uint64_t M = draws(o, UINT64_C(1) << 14, UINT64_C(1) << 16);
    const srl_rounding m = o->mutation == SRL_CHECK_MUT_EXPERIMENT ? RZ : SRL_ROUND_RN;
    const double scale = o->mutation == SRL_CHECK_MUT_PREDICTION ? 0.5 : 1.0;
    bound_res b;
    bound_scan(&b, M, m, 0, false, scale, row->check.id);
    srl_check_result c;
    bool have = false;
    srl__chk_result_begin(&c, row->check.id,
                          "max |RN(x) - x| / (u|x|) (below xmin: / half the spacing) "
                          "over %llu probes in each of %zu formats (seed 1, streams T01c/k); worst "
                          "x = %.17g in %s",
                          (unsigned long long)M, (size_t)NBF, b.x, b.format);
    srl__chk_result_set(&c, SRL_CHECK_BOUND, b.worst, b.worst, b.worst, 1.0);
    srl__chk_keep_worst(out, &c, &have);
    /* ties to even (T01 item 3): the midpoints among the probes, none rounded to the odd
     * neighbour; there are midpoints (a quarter of the probes are), else the check is void */
    srl__chk_result_begin(&c, row->check.id,
                          "midpoints among the probes (seed 1, streams T01c/k) rounded by RN to "
                          "the odd neighbour: %llu of %llu (predicted 0: ties to even); first "
                          "x = %.17g in %s",
                          (unsigned long long)b.odd, (unsigned long long)b.ties, b.odd_x,
                          b.odd_format);
    srl__chk_result_set(&c, SRL_CHECK_EXACT, (double)b.odd, (double)b.odd, (double)b.odd,
                        b.ties ? 0.0 : NAN);
    if (!c.pass) /* shown only when it fails: the bound's row says more when both pass */
        *out = c;
    return SRL_OK;
}

int srl__chk_sr_error_bound(srl_check_result *out, const srl__chk_row *row, const srl_check_opts *o,
                            srl_err *err)
{
    (void)err;
    const uint64_t M = draws(o, UINT64_C(1) << 14, UINT64_C(1) << 16);
    const int dp = o->mutation == SRL_CHECK_MUT_EXPERIMENT ? -1 : 0;
    const bool srb = o->mutation != SRL_CHECK_MUT_PREDICTION;
    bound_res b;
    bound_scan(&b, M, SRL_ROUND_SR, dp, srb, 1.0, row->check.id);
    srl__chk_result_begin(out, row->check.id,
                          "max |SR(x) - x| / (2u|x|) (below xmin: / the spacing) over "
                          "%llu probes in each of %zu formats (seed 1, streams T01d/k); must stay "
                          "below 1 (never attained); worst x = %.17g in %s",
                          (unsigned long long)M, (size_t)NBF, b.x, b.format);
    srl__chk_result_set(out, SRL_CHECK_BOUND, b.worst, b.worst, b.worst, 1.0);
    if (b.worst >= 1) { /* the supremum is not attained: equality is a violation too */
        out->pass = false;
        out->margin = fmin(out->margin, -0x1p-52);
    }
    return SRL_OK;
}

/* ---- T02 ---- */

int srl__chk_sr_bits_bias(srl_check_result *out, const srl__chk_row *row, const srl_check_opts *o,
                          srl_err *err)
{
    const uint64_t N = draws(o, UINT64_C(1) << 20, UINT64_C(1) << 22);
    const srl_rounding sr = SRL_ROUND_SR;
    const srl_rounding *ov = o->mutation == SRL_CHECK_MUT_EXPERIMENT ? &sr : NULL;
    sample s[NT02];
    int st = sample_probes(s, t02_probes, NT02, N, row->check.id, ov, err);
    if (st)
        return st;
    bool have = false;
    for (size_t i = 0; i < NT02; i++) {
        const probe *p = &t02_probes[i];
        const srl_format *f = fmt(p->format);
        /* the closed form, signed; in spacings in the direction away from zero */
        double pred = srl_t02_sr_bits_bias(p->x, f, p->mode.r) * (p->x < 0 ? -1 : 1) / s[i].q;
        if (o->mutation == SRL_CHECK_MUT_PREDICTION)
            pred = 0;
        srl_check_result c;
        srl__chk_result_begin(&c, row->check.id,
                              "mean(SR_R(x)) - x in spacings, x = %.17g into %s with "
                              "sr:r=%d, %llu draws (seed 1, stream T02a/%zu); worst of %zu probes",
                              p->x, p->format, p->mode.r, (unsigned long long)N, i, (size_t)NT02);
        set_freq(&c, s[i].k, N, s[i].lo, s[i].hi, s[i].frac, s[i].frac + pred);
        srl__chk_keep_worst(out, &c, &have);
    }
    return SRL_OK;
}

/* 8 values whose 16 fraction bits end in >= 0xF0 (what sr:r=8 gets most wrong), 4 whose high 12
 * are 0 (sr:r=12 never rounds them away) */
#define NT02B 12

int srl__chk_sr16_unbiased(srl_check_result *out, const srl__chk_row *row, const srl_check_opts *o,
                           srl_err *err)
{
    /* 2^22 draws even in quick mode: the mutation's bias is 0xF0 / 2^16 spacings, and the
     * interval's half-width at 2^22 draws is below 1.4e-3 spacings. */
    const uint64_t N = UINT64_C(1) << 22;
    (void)o;
    const srl_format *bf16 = fmt("bf16");
    probe p[NT02B];
    srl_rng r;
    probe_stream(&r, "T02b/values", 0);
    for (size_t i = 0; i < NT02B; i++) {
        /* a bf16 value v in [1, 16) and 16 fraction bits below it, the low 8 of them >= 0xF0
         * (the case sr:r=8 gets most wrong): a binary32 number (8 + 16 bits) */
        const uint64_t w = srl_rng_next(&r);
        const double v = ldexp(128 + (double)(w & 127), (int)((w >> 7) % 4) - 7);
        const uint64_t F = i < 8 ? ((w >> 16) & 0xFF) << 8 | (0xF0 + ((w >> 24) & 0xF))
                                 : 8 + ((w >> 16) & 7);
        double x = v + srl_format_ulp(bf16, v) * ldexp((double)F, -16);
        if ((w >> 30) & 1)
            x = -x;
        p[i] = (probe){x, "bf16", {SRL_SR_BITS, 16}};
    }
    const srl_rounding bits8 = {SRL_SR_BITS, 8};
    const srl_rounding *ov = o->mutation == SRL_CHECK_MUT_EXPERIMENT ? &bits8 : NULL;
    sample s[NT02B];
    int st = sample_probes(s, p, NT02B, N, row->check.id, ov, err);
    if (st)
        return st;
    bool have = false;
    for (size_t i = 0; i < NT02B; i++) {
        /* the prediction: T02's closed form, which is 0 for binary32 inputs and R = 16 */
        const double pred = srl_t02_sr_bits_bias(p[i].x, bf16, 16);
        srl_check_result c;
        srl__chk_result_begin(
            &c, row->check.id,
            "mean(SR_16(x)) - x in spacings, x = %.9g (binary32) into "
            "bf16 with sr:r=16, %llu draws (seed 1, stream T02b/%zu); worst of %d "
            "binary32 values",
            p[i].x, (unsigned long long)N, i, NT02B);
        set_freq(&c, s[i].k, N, s[i].lo, s[i].hi, s[i].frac, s[i].frac + pred);
        if ((double)(float)p[i].x != p[i].x)
            c.pass = false; /* the probe must be a binary32 number */
        srl__chk_keep_worst(out, &c, &have);
    }
    return SRL_OK;
}

/* ---- T11b: the curvature term of f(x) = x^4/4 ---- */

#define NT11B 64

typedef struct t11b_job {
    uint64_t N;
    srl_rounding m;
    double y[NT11B];
    uint64_t k[NT11B];
} t11b_job;

static int t11b_item(void *ctx, size_t i, srl_err *err)
{
    t11b_job *j = ctx;
    srl_rng r;
    probe_stream(&r, "T11b", i);
    return count_away(&j->k[i], NULL, j->y[i], j->N, fmt("bf16"), j->m, &r, err);
}

int srl__chk_quartic_shift(srl_check_result *out, const srl__chk_row *row, const srl_check_opts *o,
                           srl_err *err)
{
    const srl_format *bf16 = fmt("bf16");
    t11b_job j;
    j.N = draws(o, UINT64_C(1) << 21, UINT64_C(1) << 23);
    j.m = o->mutation == SRL_CHECK_MUT_EXPERIMENT ? SRL_ROUND_RN : SRL_ROUND_SR;
    srl_rng pts;
    probe_stream(&pts, "T11b/points", 0);
    for (size_t i = 0; i < NT11B; i++) {
        /* y in the middle half of a grid cell of [1, 1.25): y = g + q (1/4 + U/2) */
        const double u1 = srl_rng_uniform(&pts), u2 = srl_rng_uniform(&pts);
        const double g = srl_round(1 + 0.25 * u1, bf16, RD, NULL);
        j.y[i] = g + srl_format_ulp(bf16, g) * (0.25 + 0.5 * u2);
    }
    int st = srl__chk_parallel(NT11B, t11b_item, &j, err);
    if (st)
        return st;
    double sum_meas = 0, var_meas = 0, sum_pred = 0, sum_tol = 0;
    for (size_t i = 0; i < NT11B; i++) {
        const double y = j.y[i];
        const double g = srl_round(y, bf16, RD, NULL), q = srl_format_ulp(bf16, g);
        /* mean of SR(y)^3 - y^3 over the N draws: the draws take the values g and g + q */
        const double lo3 = g * g * g - y * y * y, hi3 = (g + q) * (g + q) * (g + q) - y * y * y;
        const double ph = (double)j.k[i] / (double)j.N;
        sum_meas += lo3 + ph * (hi3 - lo3);
        var_meas += ph * (1 - ph) * (hi3 - lo3) * (hi3 - lo3) / (double)j.N;
        /* T11 step 4: E[SR(y)^3] - y^3 = 3 y s^2 + ab(b - a): the leading term is the
         * prediction, the remainder's bound q s^2 is added to the tolerance */
        sum_pred +=
            srl_t11_quartic_shift(y, bf16) / (o->mutation == SRL_CHECK_MUT_PREDICTION ? 3.0 : 1.0);
        sum_tol += srl_t11_quartic_remainder_bound(y, bf16);
    }
    const double n = NT11B;
    const double mean = sum_meas / n,
                 half = srl__chk_z(SRL_CHECK_ALPHA) * sqrt(var_meas) / n + sum_tol / n;
    srl__chk_result_begin(
        out, row->check.id,
        "f = x^4/4: mean over %d points y in [1, 1.25) of "
        "E[f'(SR(y))] - f'(y), bf16, %llu SR draws each (seed 1, streams T11b/i); "
        "predicted f'''(y) s^2 / 2 = 3 y s^2 (the mean step moves by -lr times it)",
        NT11B, (unsigned long long)j.N);
    srl__chk_result_set(out, SRL_CHECK_INTERVAL, mean, mean - half, mean + half, sum_pred / n);
    return SRL_OK;
}
