/* src/check/check.c: what the checks of `srlab check` share (src/check/check_impl.h): the verdict
 * rules (include/srlab/check.h), results, the statistics, and the plumbing that runs registered
 * runners into memory and independent seeds over threads.
 *
 * The catalogue is src/check/catalogue.c; the checks themselves are in src/check/round.c (single
 * roundings), src/check/sum.c (sums and matrix-vector products) and src/check/tNN_*.c (training
 * and memory, one file per statement or close group). Each statement's derivation and the reason
 * for each tolerance are in theory/TNN-*.md. */
#include "check/check_impl.h"
#include "core/threads.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <gsl/gsl_cdf.h>

#ifdef _OPENMP
#include <omp.h>
#endif

#include "problems/convex.h"
#include "sweep/censored.h"

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
    r->mde = srl_check_mde(r);
}

/* z_0.99 / z: the allowance for the statistical error beyond the interval's edge, as a fraction
 * of the half-width (include/srlab/check.h). */
static double power_allowance(void)
{
    return gsl_cdf_ugaussian_Qinv(0.01) / srl__chk_z(SRL_CHECK_ALPHA);
}

double srl_check_mde(const srl_check_result *r)
{
    const double m = r->measured, lo = r->ci_lo, hi = r->ci_hi, p = r->predicted;
    if (isnan(m) || isnan(lo) || isnan(hi) || isnan(p))
        return NAN;
    switch (r->kind) {
    case SRL_CHECK_INTERVAL: /* the half on the far side of the prediction, plus the allowance */
        return fmax(hi - m, m - lo) * (1 + power_allowance());
    case SRL_CHECK_BAND: return fmax(hi - m, m - lo);
    case SRL_CHECK_BOUND:
        return fmax(0, p - m) + (m - lo) * (lo < m ? 1 + power_allowance() : 0);
    case SRL_CHECK_EXACT: return 0;
    }
    return NAN;
}

void srl__chk_result_begin(srl_check_result *r, const char *id, const char *fmt, ...)
{
    memset(r, 0, sizeof *r);
    snprintf(r->id, sizeof r->id, "%s", id);
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(r->what, sizeof r->what, fmt, ap);
    va_end(ap);
    r->measured = r->ci_lo = r->ci_hi = r->predicted = r->margin = r->mde = NAN;
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

void srl__chk_keep_worst(srl_check_result *out, const srl_check_result *cand, bool *have)
{
    if (!*have || !(cand->margin >= out->margin)) {
        *out = *cand;
        *have = true;
    }
}

uint64_t srl__chk_seeds(const srl_check_opts *o, uint64_t quick, uint64_t full)
{
    if (o->seeds)
        return o->seeds;
    return o->quick ? quick : full;
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

/* The binomial tails and the Clopper-Pearson interval are the sweep layer's (src/sweep/censored.c),
 * where the summary's fraction of runs reaching a target uses them too. */
double srl_check_binom_upper(uint64_t k, uint64_t n, double p)
{
    return srl__binom_upper(k, n, p);
}

double srl_check_binom_lower(uint64_t k, uint64_t n, double p)
{
    return srl__binom_lower(k, n, p);
}

void srl_check_clopper_pearson(double *lo, double *hi, uint64_t k, uint64_t n, double alpha)
{
    srl__clopper_pearson(lo, hi, k, n, alpha);
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

/* What the tasks of srl__chk_parallel share. */
typedef struct par_ctx {
    srl__chk_item_fn fn;
    void *ctx;
    size_t first;
    int first_st;
    srl_err *err;
} par_ctx;

static int par_one(void *arg, size_t i, srl__pool *pool)
{
    par_ctx *c = arg;
    srl_err e;
    e.msg[0] = 0;
    const int st = c->fn(c->ctx, i, &e);
    if (st) {
        srl__pool_lock(pool);
        if (i < c->first) {
            c->first = i;
            c->first_st = st;
            if (c->err)
                *c->err = e;
        }
        srl__pool_unlock(pool);
    }
    return 0; /* every seed runs: the first failure in seed order is the one reported */
}

int srl__chk_parallel(size_t n, srl__chk_item_fn fn, void *ctx, srl_err *err)
{
    par_ctx c = {fn, ctx, n, SRL_OK, err};
    srl__pool_run(n, srl_run_team(0, n), par_one, &c);
    return c.first_st;
}
