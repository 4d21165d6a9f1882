/* tests/run/test_problems_sum.c: the runners harmonic, sum and matvec (src/problems/sum.c)
 * against the predictions of theory/T03 and T04.
 *
 *   unit  harmonic: the stagnation term and value under rn and rz equal srl_t03_harmonic_
 *         stagnation's (bf16, fp16; fp32 in the slow suite) and stay constant to n.
 *         sum, matvec: every rn row respects the deterministic bound (it must: no tolerance);
 *         the column-by-column (srl_axpy) and row-by-row (srl_gemv) matvec forms are the same
 *         computation under the recursive order (bit-identical errors); bad configs are
 *         refused with a message naming the key; identical rows on a second run.
 *   stat  harmonic under sr: the sum keeps growing (the mean over seeds of s_n exceeds the rn
 *         stagnation value, one-sided t-test at 1e-6) and is unbiased (E[s_n] = H_n, two-sided
 *         t-test at 1e-4); sum and matvec under sr: the number of seeds whose error exceeds the
 *         probabilistic bound is at most the 1 - 1e-6 quantile of Binomial(N, 2 exp(-lambda^2/2))
 *         (each seed exceeds it with at most that probability, independently), and the signed
 *         error of `sum` has mean zero (t-test at 1e-4).
 * Seeds are 1..N of each run (the runners' own streams); failures print the config. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <gsl/gsl_cdf.h>
#include <mpfr.h>

#include "srlab/run.h"
#include "srlab/theory.h"
#include "../testutil.h"

/* ---- a sink that keeps every row ---- */

#define MAXCOL 32
typedef struct table {
    size_t ncol, nrow, cap;
    char names[MAXCOL][32];
    double *v; /* nrow x ncol, integers converted; strings as NaN */
} table;

static int tb_begin(void *ctx, size_t ncol, const char *const *names, const srl_col_kind *kinds)
{
    table *t = ctx;
    (void)kinds;
    if (ncol > MAXCOL)
        return SRL_ERANGE;
    t->ncol = ncol;
    for (size_t i = 0; i < ncol; i++)
        snprintf(t->names[i], sizeof t->names[i], "%s", names[i]);
    return SRL_OK;
}

static int tb_row(void *ctx, const srl_value *v)
{
    table *t = ctx;
    if (t->nrow == t->cap) {
        t->cap = t->cap ? 2 * t->cap : 64;
        double *nv = realloc(t->v, t->cap * t->ncol * sizeof *nv);
        if (!nv)
            return SRL_ENOMEM;
        t->v = nv;
    }
    for (size_t i = 0; i < t->ncol; i++)
        t->v[t->nrow * t->ncol + i] = v[i].kind == SRL_COL_NUM   ? v[i].num
                                      : v[i].kind == SRL_COL_INT ? (double)v[i].i
                                                                 : NAN;
    t->nrow++;
    return SRL_OK;
}

static size_t col(const table *t, const char *name)
{
    for (size_t i = 0; i < t->ncol; i++)
        if (!strcmp(t->names[i], name))
            return i;
    fprintf(stderr, "no column %s\n", name);
    exit(99);
}

static double at(const table *t, size_t row, const char *name)
{
    return t->v[row * t->ncol + col(t, name)];
}

/* Run `problem` with "key=value key=value ..." (spaces separate pairs) and seed. */
static int run(table *t, const char *problem, const char *spec, unsigned long seed, srl_err *err)
{
    free(t->v);
    memset(t, 0, sizeof *t);
    const srl_runner *r = srl_runner_find(SRL_RUN_EXPERIMENT, problem);
    if (!r) {
        fprintf(stderr, "no runner %s\n", problem);
        exit(99);
    }
    srl_config *c = srl_config_new();
    char buf[512], seedtxt[32];
    snprintf(buf, sizeof buf, "%s", spec);
    for (char *tok = strtok(buf, " "); tok; tok = strtok(NULL, " ")) {
        char *eq = strchr(tok, '=');
        if (!eq)
            exit(99);
        *eq = 0;
        if (srl_config_set(c, tok, eq + 1) != SRL_OK)
            exit(99);
    }
    snprintf(seedtxt, sizeof seedtxt, "%lu", seed);
    if (srl_config_set(c, "seed", seedtxt) != SRL_OK)
        exit(99);
    srl_sink sink = {tb_begin, tb_row, t};
    srl_run_report rep;
    err->msg[0] = 0;
    const int st = srl_run(r, c, &sink, &rep, err);
    srl_config_free(c);
    return st;
}

static srl_format fmt(const char *name)
{
    srl_format f;
    srl_err e;
    if (srl_format_parse(&f, name, &e) != SRL_OK)
        exit(99);
    return f;
}

/* Mean and sample standard deviation. */
static void mean_sd(const double *x, size_t n, double *mean, double *sd)
{
    double m = 0, s = 0;
    for (size_t i = 0; i < n; i++)
        m += x[i];
    m /= (double)n;
    for (size_t i = 0; i < n; i++)
        s += (x[i] - m) * (x[i] - m);
    *mean = m;
    *sd = sqrt(s / (double)(n - 1));
}

/* The largest count c with P(Binomial(N, q) > c) > alpha, plus one: counts above it have
 * probability <= alpha. */
static unsigned binom_threshold(unsigned N, double q, double alpha)
{
    unsigned c = 0;
    while (c < N && gsl_cdf_binomial_Q(c, q, N) > alpha)
        c++;
    return c;
}

/* ---- harmonic ---- */

static void test_harmonic_stagnation(bool slow)
{
    const long before = srl_test_failures;
    struct {
        const char *f, *m;
        unsigned long n;
    } cases[] = {{"bf16", "rn", 300}, {"fp16", "rn", 1500}, {"bf16", "rz", 300},
                 {"fp16", "rz", 1000}, {"e4m3", "rn", 50}, {"fp32", "rn", 2200000}};
    table t = {0};
    for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
        if (!slow && cases[i].n > 100000)
            continue;
        char spec[128];
        snprintf(spec, sizeof spec, "n=%lu format=%s rounding=%s points=3", cases[i].n,
                 cases[i].f, cases[i].m);
        srl_err e;
        CHECK(run(&t, "harmonic", spec, 1, &e) == SRL_OK, "%s: %s", spec, e.msg);
        const srl_format f = fmt(cases[i].f);
        srl_rounding m;
        CHECK(srl_rounding_parse(&m, cases[i].m, &e) == SRL_OK, "mode");
        srl_t03_stagnation st;
        CHECK(srl_t03_harmonic_stagnation(&st, &f, m, cases[i].n, &e) == SRL_OK && st.found,
              "%s: no prediction", spec);
        bool seen = false;
        for (size_t r = 0; r < t.nrow; r++) {
            const double k = at(&t, r, "k"), stag = at(&t, r, "stagnation");
            if (k < (double)st.k) {
                CHECK(stag == 0, "%s: stagnation %g reported before k = %llu", spec, stag,
                      (unsigned long long)st.k);
            } else {
                CHECK(stag == (double)st.k && at(&t, r, "sum") == st.sum,
                      "%s at k = %g: stagnation %g sum %.17g, predicted %llu and %.17g", spec, k,
                      stag, at(&t, r, "sum"), (unsigned long long)st.k, st.sum);
                seen = true;
            }
        }
        CHECK(seen && at(&t, t.nrow - 1, "k") == (double)cases[i].n, "%s: rows", spec);
        /* The first row: one term, exact. */
        CHECK(at(&t, 0, "exact") == 1 && at(&t, 0, "rel_err") == 0, "%s: k = 1 row", spec);
    }
    free(t.v);
    GROUP(slow ? "harmonic: stagnation term = T03 prediction (with fp32)"
               : "harmonic: stagnation term = T03 prediction (bf16, fp16, e4m3)",
          before);
}

static void test_harmonic_sr(void)
{
    const long before = srl_test_failures;
    enum { N = 60 };
    const unsigned long n = 1500;
    double s[N];
    double H = 0;
    table t = {0};
    for (unsigned long seed = 1; seed <= N; seed++) {
        srl_err e;
        CHECK(run(&t, "harmonic", "n=1500 format=bf16 rounding=sr points=1", seed, &e) == SRL_OK,
              "%s", e.msg);
        const size_t last = t.nrow - 1;
        CHECK(at(&t, last, "k") == (double)n && at(&t, last, "stagnation") == 0, "last row");
        s[seed - 1] = at(&t, last, "sum");
        H = at(&t, last, "exact");
    }
    free(t.v);
    double mean, sd;
    mean_sd(s, N, &mean, &sd);
    /* Keeps growing: past the rn stagnation value 5.0625 (T03), one-sided at 1e-6. */
    const double t_grow = (mean - 5.0625) / (sd / sqrt(N));
    CHECK(t_grow > gsl_cdf_tdist_Pinv(1 - 1e-6, N - 1),
          "sr sums do not grow past 5.0625: mean %g sd %g t %g", mean, sd, t_grow);
    /* Unbiased: E[s_n] = H_n (T03: every rounding, terms included, is unbiased). */
    const double t_bias = (mean - H) / (sd / sqrt(N));
    CHECK(fabs(t_bias) < gsl_cdf_tdist_Pinv(1 - 0.5e-4, N - 1),
          "sr harmonic sum biased: mean %.6g vs H = %.6g (sd %g, t %g, seeds 1..%d)", mean, H, sd,
          t_bias, N);
    GROUP("harmonic: under sr the sum keeps growing and is unbiased", before);
}

/* ---- sum ---- */

static void test_sum_rn_bound(void)
{
    const long before = srl_test_failures;
    const char *dists[] = {"uniform", "signed", "normal"};
    const char *orders[] = {"recursive", "pairwise", "blocked:16"};
    const char *fmts[][2] = {{"fp16", "1000"}, {"bf16", "200"}, {"fp32", "20000"}};
    table t = {0};
    for (size_t fi = 0; fi < 3; fi++)
        for (size_t di = 0; di < 3; di++)
            for (size_t oi = 0; oi < 3; oi++)
                for (unsigned long seed = 1; seed <= 4; seed++) {
                    char spec[160];
                    snprintf(spec, sizeof spec, "n=%s format=%s rounding=rn dist=%s order=%s "
                             "points=5", fmts[fi][1], fmts[fi][0], dists[di], orders[oi]);
                    srl_err e;
                    CHECK(run(&t, "sum", spec, seed, &e) == SRL_OK, "%s: %s", spec, e.msg);
                    for (size_t r = 0; r < t.nrow; r++) {
                        const double err = at(&t, r, "rel_err"), g = at(&t, r, "gamma");
                        CHECK(err <= g, "%s seed %lu k %g: rel_err %g > gamma %g", spec, seed,
                              at(&t, r, "k"), err, g);
                    }
                }
    free(t.v);
    GROUP("sum: rn error <= gamma_h (all orders, formats, distributions)", before);
}

static void test_sum_sr_bound(void)
{
    const long before = srl_test_failures;
    enum { N = 120 };
    const double lambda = 2.0, q = 2 * exp(-lambda * lambda / 2);
    const unsigned thr = binom_threshold(N, q, 1e-6);
    unsigned over = 0;
    double signed_err[N];
    table t = {0};
    for (unsigned long seed = 1; seed <= N; seed++) {
        srl_err e;
        CHECK(run(&t, "sum", "n=3000 format=fp16 rounding=sr dist=uniform lambda=2 points=1",
                  seed, &e) == SRL_OK, "%s", e.msg);
        const size_t last = t.nrow - 1;
        const double err = at(&t, last, "rel_err"), b = at(&t, last, "sr_bound");
        CHECK(at(&t, last, "sr_prob") == 1 - q && b > 0 && b < 1, "bound columns");
        over += err > b;
        signed_err[seed - 1] = (at(&t, last, "sum") - at(&t, last, "exact")) /
                               at(&t, last, "sum_abs");
    }
    free(t.v);
    CHECK(over <= thr, "%u of %d seeds exceed the sr bound (threshold %u at 1e-6 for "
                       "Binomial(%d, %g))", over, N, thr, N, q);
    double mean, sd;
    mean_sd(signed_err, N, &mean, &sd);
    const double tt = mean / (sd / sqrt(N));
    CHECK(fabs(tt) < gsl_cdf_tdist_Pinv(1 - 0.5e-4, N - 1), "sr sum biased: t = %g", tt);
    GROUP("sum: sr error within lambda bound at its probability; unbiased", before);
}

/* ---- matvec ---- */

static void test_matvec(void)
{
    const long before = srl_test_failures;
    table a = {0}, d = {0};
    const char *modes[] = {"rn", "rz"};
    for (size_t mi = 0; mi < 2; mi++)
        for (unsigned long seed = 1; seed <= 3; seed++) {
            char sa[160], sd[160];
            snprintf(sa, sizeof sa, "n=120 m=0 format=bf16 rounding=%s dist=signed form=axpy "
                     "points=4", modes[mi]);
            snprintf(sd, sizeof sd, "n=120 m=0 format=bf16 rounding=%s dist=signed form=dot "
                     "points=4", modes[mi]);
            srl_err e;
            CHECK(run(&a, "matvec", sa, seed, &e) == SRL_OK, "%s", e.msg);
            CHECK(run(&d, "matvec", sd, seed, &e) == SRL_OK, "%s", e.msg);
            CHECK(a.nrow == d.nrow && a.nrow > 3, "rows");
            for (size_t r = 0; r < a.nrow && r < d.nrow; r++) {
                const double bn = at(&a, r, "bwd_norm"), bc = at(&a, r, "bwd_comp");
                CHECK(bn == at(&d, r, "bwd_norm") && bc == at(&d, r, "bwd_comp"),
                      "%s seed %lu k %g: axpy and dot differ (%g, %g)", sa, seed, at(&a, r, "k"),
                      bn, at(&d, r, "bwd_norm"));
                CHECK(bn <= bc && bc <= at(&a, r, "gamma"), "%s seed %lu k %g: %g %g > gamma %g",
                      sa, seed, at(&a, r, "k"), bn, bc, at(&a, r, "gamma"));
            }
        }
    /* sr: all rows within the probabilistic bound, counted over seeds. */
    enum { N = 60 };
    const double q = 2 * exp(-2.0 * 2.0 / 2);
    const unsigned thr = binom_threshold(N, q, 1e-6);
    unsigned over = 0;
    for (unsigned long seed = 1; seed <= N; seed++) {
        srl_err e;
        CHECK(run(&a, "matvec", "n=400 m=8 format=fp16 rounding=sr lambda=2 points=1", seed,
                  &e) == SRL_OK, "%s", e.msg);
        const size_t last = a.nrow - 1;
        over += at(&a, last, "bwd_comp") > at(&a, last, "sr_bound");
        CHECK(at(&a, last, "bwd_comp") <= at(&a, last, "gamma"), "sr within gamma(2u)");
    }
    CHECK(over <= thr, "%u of %d seeds exceed the sr matvec bound (threshold %u)", over, N, thr);
    free(a.v);
    free(d.v);
    GROUP("matvec: axpy = dot under recursive order; rn <= bound; sr within lambda bound", before);
}

/* ---- configs ---- */

static void test_bad_configs(void)
{
    const long before = srl_test_failures;
    table t = {0};
    struct {
        const char *problem, *spec, *key;
        int st;
    } cases[] = {
        {"harmonic", "n=0", "n:", SRL_ERANGE},
        {"harmonic", "n=-3", "n:", SRL_EPARSE},
        {"harmonic", "format=p=1,emax=3", "format:", SRL_EINVAL},
        {"harmonic", "points=0", "points:", SRL_ERANGE},
        {"sum", "order=pairwise kahan=on", "kahan:", SRL_EINVAL},
        {"sum", "order=blocked:0", "order:", SRL_EPARSE},
        {"sum", "dist=cauchy", "dist:", SRL_EPARSE},
        {"sum", "lambda=0", "lambda:", SRL_ERANGE},
        {"sum", "n=4294967297", "n:", SRL_ERANGE},
        {"matvec", "n=16777216", "n:", SRL_ERANGE}, /* 2^48 entries: refused before allocating */
        {"matvec", "form=axpy order=pairwise", "form:", SRL_EINVAL},
        {"matvec", "accum=prod=nope:rn", "accum:", SRL_EPARSE},
    };
    for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
        srl_err e;
        const int st = run(&t, cases[i].problem, cases[i].spec, 1, &e);
        CHECK(st == cases[i].st && !strncmp(e.msg, cases[i].key, strlen(cases[i].key)),
              "%s %s: status %d (expected %d), message '%s'", cases[i].problem, cases[i].spec,
              st, cases[i].st, e.msg);
    }
    srl_err e;
    CHECK(run(&t, "sum", "frobnicate=1", 1, &e) == SRL_EINVAL && strstr(e.msg, "frobnicate"),
          "unknown key: %s", e.msg);
    /* Same config, same rows. */
    table u = {0};
    CHECK(run(&t, "sum", "n=500 rounding=sr dist=normal", 7, &e) == SRL_OK, "%s", e.msg);
    CHECK(run(&u, "sum", "n=500 rounding=sr dist=normal", 7, &e) == SRL_OK, "%s", e.msg);
    CHECK(t.nrow == u.nrow && memcmp(t.v, u.v, t.nrow * t.ncol * sizeof *t.v) == 0,
          "same seed, different rows");
    free(t.v);
    free(u.v);
    GROUP("configs: bad values refused naming the key; rows reproducible", before);
}

int main(int argc, char **argv)
{
    const bool slow = argc > 1 && !strcmp(argv[1], "--slow");
    test_bad_configs();
    test_harmonic_stagnation(slow);
    if (!slow) {
        test_harmonic_sr();
        test_sum_rn_bound();
        test_sum_sr_bound();
        test_matvec();
    }
    mpfr_free_cache();
    TEST_END();
}
