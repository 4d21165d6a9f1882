/* src/check/check.c: the catalogue of `srlab check` (include/srlab/check.h), the verdict rules, the
 * statistics the checks share, and the plumbing that runs registered runners into memory.
 *
 * The checks themselves are in src/check/round.c (T01, T02, T11b: single roundings), in
 * src/check/sum.c (T03, T04: summation and matrix-vector products) and in src/check/train.c
 * (T05-T13: training runs). Each statement's derivation and the reason for each tolerance are in
 * theory/TNN-*.md; the table below is the list a user sees with `srlab check --list`. */
#include "check/check_impl.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include <gsl/gsl_cdf.h>
#include <gsl/gsl_sf_gamma.h>

#ifdef _OPENMP
#include <omp.h>
#endif

#include "problems/convex.h"

/* ---- the catalogue ---- */

/* the mutation texts of a check: [NONE] (always NULL), [EXPERIMENT], [PREDICTION] */
#define M(e, p) {NULL, e, p}

static const srl_check checks[] = {
    {"T01a", "T01", "SR is unbiased: E[SR(x)] = x (sampled, exact Clopper-Pearson interval)",
     M("round with sr:r=4 (truncated fraction) instead of sr", NULL), srl__chk_t01a},
    {"T01b", "T01", "Var[SR(x)] = (x - RD(x))(RU(x) - x) <= ulp^2/4",
     M("round with sr-eq (variance ulp^2/4 everywhere)",
       "predict the largest variance ulp^2/4 instead of (x - RD)(RU - x)"),
     srl__chk_t01b},
    {"T01c", "T01", "|RN(x) - x| <= u|x| (normal range; half a spacing below it)",
     M("round with rz instead of rn", "predict half the bound: u|x|/2"), srl__chk_t01c},
    {"T01d", "T01", "|SR(x) - x| < 2u|x| (normal range; one spacing below it)",
     M("round into the format with one bit less (p - 1)", "predict RN's bound u|x|"),
     srl__chk_t01d},
    {"T02a", "T02", "sr:r=R bias E[SR_R(x)] - x = -sign(x) q (f - floor(f 2^R) 2^-R)",
     M("round with exact sr", "predict no bias (0)"), srl__chk_t02a},
    {"T02b", "T02", "the seed paper's write sr:r=16 of binary32 values into bf16 is unbiased",
     M("round with sr:r=8", NULL), srl__chk_t02b},
    {"T03a", "T03", "recursive summation under RN: |s - S| <= gamma_{n-1} sum|x_i|",
     M(NULL, "bound with the unit roundoff of a format one bit more precise (u/2)"), srl__chk_t03a},
    {"T03b", "T03",
     "recursive summation under SR: the bound ~ lambda sqrt(n) u holds with "
     "probability >= 1 - 2 exp(-lambda^2/2)",
     M("sum with rn instead of sr", NULL), srl__chk_t03b},
    {"T03c", "T03", "harmonic series under RN stagnates at the predicted term: bf16",
     M("sum with rz instead of rn", "predict the term of the fp16 format"), srl__chk_t03c},
    {"T03d", "T03", "harmonic series under RN stagnates at the predicted term: fp16",
     M("sum with rz instead of rn", "predict the term of the bf16 format"), srl__chk_t03d},
    {"T03e", "T03", "harmonic series under RN stagnates at the predicted term: fp32",
     M("sum with rz instead of rn", "predict the term of the fp16 format"), srl__chk_t03e},
    {"T03f", "T03", "harmonic series under SR does not stagnate: E[s_n] = H_n",
     M("sum with sr:r=4 (stagnates for good)", NULL), srl__chk_t03f},
    {"T04a", "T04",
     "matrix-vector product under RN: backward error <= theta = (1+u)^n - 1 "
     "(~ n u)",
     M(NULL, "bound with the unit roundoff of a format one bit more precise (u/2)"), srl__chk_t04a},
    {"T04b", "T04",
     "matrix-vector product under SR: backward error <= ~2 lambda sqrt(n) u with "
     "probability >= 1 - 2 exp(-lambda^2/2)",
     M("compute with rn instead of sr", NULL), srl__chk_t04b},
    {"T05a", "T05",
     "GD on a quadratic under RN stalls at distance in [D - ulp, D], "
     "D = ulp/(2 lr a)",
     M("write with sr instead of rn", "predict D with the spacing below x*'s binade (ulp/2)"),
     srl__chk_t05a},
    {"T05b", "T05", "GD under RN stops exactly at the fixed point of the rounded map",
     M("write with sr instead of rn", NULL), srl__chk_t05b},
    {"T05c", "T05", "GD under SR: the mean iterate equals the exact GD iterate",
     M("write with rn instead of sr", NULL), srl__chk_t05c},
    {"T05d", "T05", "GD under SR: excess-loss floor (a/2)(x* - g0)(g1 - x*) at lr 0.1",
     M("write with rn instead of sr", "predict the floor of a uniform spread, ulp^2 a/12"),
     srl__chk_t05d},
    {"T05e", "T05", "GD under SR: the same floor at lr 0.01 (independent of lr)",
     M("write with rn instead of sr", "predict the floor of a uniform spread, ulp^2 a/12"),
     srl__chk_t05e},
    {"T06a", "T06", "noisy SGD: relative SR penalty ulp^2/(6 lr^2 sigma^2) at lr 0.01",
     M("write with rn instead of sr", "predict the penalty with ulp^2/4 in place of ulp^2/6"),
     srl__chk_t06a},
    {"T06b", "T06", "noisy SGD: relative SR penalty ulp^2/(6 lr^2 sigma^2) at lr 0.005",
     M("write with rn instead of sr", "predict the penalty with ulp^2/4 in place of ulp^2/6"),
     srl__chk_t06b},
    {"T07a", "T07", "SR walk at small lr: mean steps per move = ulp/(lr |g|)",
     M("write with rn instead of sr", NULL), srl__chk_t07a},
    {"T07b", "T07", "SR walk at small lr: steps to cover K spacings, mean K ulp/(lr |g|)",
     M("write with sr:r=4 (the truncated fraction biases the walk toward zero: 1/16 per step)",
       NULL),
     srl__chk_t07b},
    {"T08a", "T08", "decoupled weight decay under RN is lost when lr wd <= 2^-9 (bf16)",
     M("write with sr (strategy bf16-sr)", NULL), srl__chk_t08a},
    {"T08b", "T08", "the fraction of a binade where RN loses the decay (lr wd = 3 2^-10)",
     M("write with rz instead of rn", NULL), srl__chk_t08b},
    {"T08c", "T08",
     "decoupled weight decay under SR is applied in mean: E[x_T] = x0 (1 - lr "
     "wd)^T",
     M("write with rn (strategy bf16-rn)", NULL), srl__chk_t08c},
    {"T09a", "T09", "bf16 second moment under RN with beta2 = 0.999 never decreases",
     M("store v in fp32 (strategy fp32)", NULL), srl__chk_t09a},
    {"T09b", "T09", "bf16 second moment under RN rises iff g^2 > r(v) v",
     M(NULL, "predict the threshold r(v) = 1 (v rises whenever g^2 > v)"), srl__chk_t09b},
    {"T10a", "T10", "Adam (beta1 0) with SR: relative SR penalty ulp^2/(6 lr^2) at lr 0.01",
     M("write with rn instead of sr", "predict the penalty with ulp^2/4 in place of ulp^2/6"),
     srl__chk_t10a},
    {"T10b", "T10", "Adam (beta1 0) with SR: relative SR penalty ulp^2/(6 lr^2) at lr 0.005",
     M("write with rn instead of sr", "predict the penalty with ulp^2/4 in place of ulp^2/6"),
     srl__chk_t10b},
    {"T10c", "T10", "Adam with RN below lr < gap/2: the whole initial loss remains (bias)",
     M("write with sr instead of rn", NULL), srl__chk_t10c},
    {"T11a", "T11", "GD under SR on a rotated quadratic: the mean trajectory is exact",
     M("write with rn instead of sr", NULL), srl__chk_t11a},
    {"T11b", "T11",
     "f = x^4/4: SR shifts the mean gradient by 3 x s^2 (the mean step by -3 lr "
     "x s^2)",
     M("round with rn instead of sr", "predict x s^2 (a missing factor 3)"), srl__chk_t11b},
    {"T12a", "T12", "replicas with shared SR randomness stay bit-identical",
     M("independent SR streams", NULL), srl__chk_t12a},
    {"T12b", "T12",
     "replicas with independent SR streams drift: E||x_r - x_0||^2 = sum 2 p(1-p) "
     "q^2",
     M(NULL, "predict half the drift (one replica's variance)"), srl__chk_t12b},
    {"T13a", "T13", "bytes per parameter allocated, fp32 with AdamW = 16",
     M("allocate for SGD instead of AdamW", NULL), srl__chk_t13a},
    {"T13b", "T13", "bytes per parameter allocated, mp with AdamW = 16",
     M("allocate for SGD instead of AdamW", NULL), srl__chk_t13b},
    {"T13c", "T13", "bytes per parameter allocated, bf16-rn with AdamW = 8",
     M("allocate for SGD instead of AdamW", NULL), srl__chk_t13c},
    {"T13d", "T13", "bytes per parameter allocated, bf16-sr with AdamW = 8",
     M("allocate for SGD instead of AdamW", NULL), srl__chk_t13d},
    {"T13e", "T13", "bytes per parameter allocated, bf16-sr-exact with AdamW = 8",
     M("allocate for SGD instead of AdamW", NULL), srl__chk_t13e},
    {"T13f", "T13", "bytes per parameter allocated, bf16-kahan with AdamW = 10",
     M("allocate for SGD instead of AdamW", NULL), srl__chk_t13f},
};
#define NCHECKS (sizeof checks / sizeof checks[0])

size_t srl_check_count(void)
{
    return NCHECKS;
}

const srl_check *srl_check_at(size_t i)
{
    return i < NCHECKS ? &checks[i] : NULL;
}

const srl_check *srl_check_find(const char *id)
{
    for (size_t i = 0; id && i < NCHECKS; i++)
        if (!strcasecmp(id, checks[i].id))
            return &checks[i];
    return NULL;
}

bool srl_check_selects(const char *name, const srl_check *c)
{
    return name && c && (!strcasecmp(name, c->id) || !strcasecmp(name, c->statement));
}

int srl_check_run(srl_check_result *out, const srl_check *c, const srl_check_opts *o, srl_err *err)
{
    srl__chk_result_begin(out, c ? c->id : "?", "%s", c ? c->title : "");
    if (!c || !o || (unsigned)o->mutation >= SRL_CHECK_MUT_COUNT)
        return srl_err_set(err, SRL_EINVAL, "srl_check_run: bad arguments");
    if (o->mutation != SRL_CHECK_MUT_NONE && !c->mutation[o->mutation])
        return srl_err_set(err, SRL_EINVAL, "%s has no %s mutation", c->id,
                           o->mutation == SRL_CHECK_MUT_EXPERIMENT ? "experiment" : "prediction");
    int st = c->run(out, o, err);
    snprintf(out->id, sizeof out->id, "%s", c->id);
    if (st) {
        out->pass = false;
        out->margin = NAN;
    }
    return st;
}

/* ---- verdicts ---- */

void srl_check_judge(srl_check_result *r)
{
    const double m = r->measured, lo = r->ci_lo, hi = r->ci_hi, p = r->predicted;
    double g = NAN;
    switch (r->kind) {
    case SRL_CHECK_INTERVAL:
    case SRL_CHECK_BAND: {
        /* the value that must lie in [lo, hi]: the prediction (interval) or the measurement
         * (band), against the centre: the measurement (interval) or the formula (band) */
        const double v = r->kind == SRL_CHECK_INTERVAL ? p : m;
        const double c = r->kind == SRL_CHECK_INTERVAL ? m : p;
        if (isnan(v) || isnan(lo) || isnan(hi) || isnan(c) || !(lo <= hi))
            break;
        if (lo == hi) {
            g = v == lo ? 0 : -1;
            break;
        }
        /* the centre, clamped into the interval; the half on v's side */
        const double cc = fmin(fmax(c, lo), hi);
        const bool upper = v >= cc;
        const double width = upper ? hi - cc : cc - lo, dist = upper ? hi - v : v - lo;
        if (dist >= 0) /* inside: the fraction of the half left */
            g = width > 0 && isfinite(width) ? dist / width : (width > 0 ? 1 : 0);
        else /* outside: minus the excess in units of the half (-1 when that is not finite) */
            g = width > 0 && isfinite(width) ? dist / width : -1;
        if (dist < 0 && !(g < 0))
            g = -1;
        break;
    }
    case SRL_CHECK_BOUND:
        if (isnan(lo) || isnan(p))
            break;
        if (p > 0)
            g = 1 - lo / p;
        else
            g = lo <= p ? 0 : -INFINITY;
        break;
    case SRL_CHECK_EXACT:
        if (isnan(m) || isnan(p))
            break;
        if (m == p)
            g = 0;
        else
            g = -fabs(m - p) / (p != 0 ? fabs(p) : 1);
        break;
    }
    r->margin = g;
    r->pass = !isnan(g) && g >= 0;
}

void srl__chk_result_begin(srl_check_result *r, const char *id, const char *fmt, ...)
{
    memset(r, 0, sizeof *r);
    snprintf(r->id, sizeof r->id, "%s", id);
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(r->what, sizeof r->what, fmt, ap);
    va_end(ap);
    r->measured = r->ci_lo = r->ci_hi = r->predicted = r->margin = NAN;
    r->pass = false;
}

void srl__chk_result_what(srl_check_result *r, const char *fmt, ...)
{
    const size_t len = strlen(r->what);
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(r->what + len, sizeof r->what - len, fmt, ap);
    va_end(ap);
}

void srl__chk_result_set(srl_check_result *r, srl_check_kind kind, double measured, double lo,
                         double hi, double predicted)
{
    r->kind = kind;
    r->measured = measured;
    r->ci_lo = lo;
    r->ci_hi = hi;
    r->predicted = predicted;
    srl_check_judge(r);
}

uint64_t srl__chk_seeds(const srl_check_opts *o, uint64_t quick, uint64_t full)
{
    if (o->seeds)
        return o->seeds;
    return o->quick ? quick : full;
}

int srl__chk_no_mutation(const srl_check_opts *o, srl_err *err)
{
    return srl_err_set(err, SRL_EINVAL, "mutation %d is not defined for this check",
                       (int)o->mutation);
}

/* ---- statistics ---- */

void srl__chk_mean_var(double *mean, double *var, const double *x, size_t n)
{
    double s = 0;
    for (size_t i = 0; i < n; i++)
        s += x[i];
    const double m = n ? s / (double)n : NAN;
    double ss = 0;
    for (size_t i = 0; i < n; i++)
        ss += (x[i] - m) * (x[i] - m);
    *mean = m;
    *var = n > 1 ? ss / (double)(n - 1) : 0;
}

double srl__chk_z(double alpha)
{
    return gsl_cdf_ugaussian_Qinv(alpha / 2);
}

double srl__chk_t(double alpha, double df)
{
    return gsl_cdf_tdist_Qinv(alpha / 2, df);
}

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

double srl_check_binom_upper(uint64_t k, uint64_t n, double p)
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
    return fmax(0, 1 - srl_check_binom_lower(k - 1, n, p));
}

double srl_check_binom_lower(uint64_t k, uint64_t n, double p)
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
    return fmax(0, 1 - srl_check_binom_upper(k + 1, n, p));
}

void srl_check_clopper_pearson(double *lo, double *hi, uint64_t k, uint64_t n, double alpha)
{
    const double phat = (double)k / (double)n, a2 = alpha / 2;
    /* lo: P(X >= k; p) = a2, increasing in p, on [0, phat] */
    if (k == 0) {
        *lo = 0;
    } else {
        double a = 0, b = phat;
        for (int it = 0; it < 200 && b - a > 1e-17 + 1e-15 * b; it++) {
            const double m = 0.5 * (a + b);
            if (srl_check_binom_upper(k, n, m) < a2)
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
            if (srl_check_binom_lower(k, n, m) < a2)
                b = m;
            else
                a = m;
        }
        *hi = b;
    }
}

/* ---- runs ---- */

void srl__chk_kv_init(srl__chk_kv *kv)
{
    kv->n = 0;
    kv->overflow = false;
}

void srl__chk_kv_set(srl__chk_kv *kv, const char *key, const char *fmt, ...)
{
    size_t i = 0;
    while (i < kv->n && strcmp(kv->key[i], key))
        i++;
    if (i == kv->n) {
        if (kv->n == SRL__CHK_KV_MAX || strlen(key) >= sizeof kv->key[0]) {
            kv->overflow = true; /* a check's programming error, reported by srl__chk_run */
            return;
        }
        kv->n++;
        snprintf(kv->key[i], sizeof kv->key[i], "%s", key);
    }
    va_list ap;
    va_start(ap, fmt);
    const int len = vsnprintf(kv->val[i], sizeof kv->val[i], fmt, ap);
    va_end(ap);
    if (len < 0 || (size_t)len >= sizeof kv->val[i])
        kv->overflow = true;
}

void srl__chk_rows_free(srl__chk_rows *r)
{
    if (!r)
        return;
    free(r->names);
    free(r->v);
    memset(r, 0, sizeof *r);
}

int srl__chk_col_index(const srl__chk_rows *r, const char *name)
{
    for (size_t i = 0; i < r->ncol; i++)
        if (!strcmp(r->names[i], name))
            return (int)i;
    return -1;
}

double srl__chk_col(const srl__chk_rows *r, size_t row, const char *name)
{
    const int c = srl__chk_col_index(r, name);
    return c < 0 || row >= r->n ? NAN : r->v[row * r->ncol + (size_t)c];
}

double srl__chk_last(const srl__chk_rows *r, const char *name)
{
    return r->n ? srl__chk_col(r, r->n - 1, name) : NAN;
}

static int rows_begin(void *ctx, size_t ncol, const char *const *names, const srl_col_kind *k)
{
    (void)k;
    srl__chk_rows *r = ctx;
    if (!r)
        return 0;
    r->names = calloc(ncol ? ncol : 1, sizeof *r->names);
    if (!r->names)
        return SRL_ENOMEM;
    r->ncol = ncol;
    for (size_t i = 0; i < ncol; i++)
        snprintf(r->names[i], sizeof r->names[i], "%s", names[i]);
    return 0;
}

static int rows_row(void *ctx, const srl_value *v)
{
    srl__chk_rows *r = ctx;
    if (!r)
        return 0;
    if (r->n == r->cap) {
        const size_t cap = r->cap ? 2 * r->cap : 256;
        double *nv = realloc(r->v, cap * (r->ncol ? r->ncol : 1) * sizeof *nv);
        if (!nv)
            return SRL_ENOMEM;
        r->v = nv;
        r->cap = cap;
    }
    double *dst = r->v + r->n * r->ncol;
    for (size_t i = 0; i < r->ncol; i++)
        dst[i] = v[i].kind == SRL_COL_NUM   ? v[i].num
                 : v[i].kind == SRL_COL_INT ? (double)v[i].i
                                            : (strcmp(v[i].str, "ok") ? 1.0 : 0.0);
    r->n++;
    return 0;
}

int srl__chk_run(srl__chk_rows *rows, srl_run_kind kind, const char *problem, const srl__chk_kv *kv,
                 uint64_t seed, srl__chk_inspect_fn inspect, void *arg, srl_err *err)
{
    if (rows)
        memset(rows, 0, sizeof *rows);
    if (kv->overflow)
        return srl_err_set(err, SRL_EINVAL,
                           "internal: a key or value of the %s config does not "
                           "fit the check's table",
                           problem);
    const srl_runner *R = srl_runner_find(kind, problem);
    if (!R)
        return srl_err_set(err, SRL_EINVAL, "the runner '%s' is not registered", problem);
    srl_config *c = srl_config_new();
    if (!c)
        return srl_err_set(err, SRL_ENOMEM, "out of memory");
    int st = SRL_OK;
    for (size_t i = 0; i < kv->n && !st; i++)
        st = srl_config_set(c, kv->key[i], kv->val[i]);
    char sb[32];
    snprintf(sb, sizeof sb, "%llu", (unsigned long long)seed);
    if (!st)
        st = srl_config_set(c, "seed", sb);
    if (st) {
        srl_config_free(c);
        return srl_err_set(err, st, "out of memory");
    }
    srl_sink sink = {rows_begin, rows_row, rows};
    srl_run_report rep;
    memset(&rep, 0, sizeof rep);
    srl_err e;
    e.msg[0] = 0;
    if (inspect)
        st = srl__convex_run(problem, c, &sink, &rep, inspect, arg, &e);
    else
        st = srl_run(R, c, &sink, &rep, &e);
    srl_config_free(c);
    if (st) {
        srl__chk_rows_free(rows);
        return srl_err_set(err, st, "%s (seed %llu): %s", problem, (unsigned long long)seed,
                           e.msg[0] ? e.msg : srl_strerror(st));
    }
    if (rep.diverged) {
        srl__chk_rows_free(rows);
        return srl_err_set(err, SRL_EDIVERGED, "%s (seed %llu) diverged: %s", problem,
                           (unsigned long long)seed, rep.note);
    }
    return SRL_OK;
}

/* ---- parallel seeds ---- */

int srl__chk_parallel(size_t n, srl__chk_item_fn fn, void *ctx, srl_err *err)
{
    size_t first = n;
    int first_st = SRL_OK;
#ifdef _OPENMP
    const int levels = omp_get_max_active_levels();
    omp_set_max_active_levels(1);
#pragma omp parallel for schedule(dynamic, 1)
#endif
    for (size_t i = 0; i < n; i++) {
        srl_err e;
        e.msg[0] = 0;
        const int st = fn(ctx, i, &e);
        if (st) {
#ifdef _OPENMP
#pragma omp critical(srl_check_parallel)
#endif
            {
                if (i < first) {
                    first = i;
                    first_st = st;
                    if (err)
                        *err = e;
                }
            }
        }
    }
#ifdef _OPENMP
    omp_set_max_active_levels(levels);
#endif
    return first_st;
}
