/* tests/sweep/test_compare.c: srl_sweep_compare and srl_holm_adjust (include/srlab/compare.h).
 *
 *   paired t     differences {1,2,3,4,5}: mean 3, sd sqrt(5/2), t = 3 sqrt(2) on 4 degrees of
 *                freedom, p from the closed form of Student's t for 4 degrees of freedom
 *                (P(|T| < t) = s (1 + c^2/2) with s = sin(atan(t/2)), c = cos(atan(t/2)))
 *   pairing      rows in shuffled order and a determined column (format under strategy) do not
 *                change the pairs; a non-finite metric leaves its seed unpaired
 *   Holm         a hand-worked family, NaN left out
 *   family-wise  under the null (every level distributed as the baseline), the fraction of
 *                simulated studies with any resolved comparison stays at or below alpha: a
 *                one-sided binomial test at 1e-3 (GSL) over 400 studies of 8 comparisons. Raw
 *                p values (no correction) would give 1 - 0.95^8 = 0.34, far outside.
 *   TOST         the same differences with a margin: p_tost against the closed form, eq_bound
 *                against GSL's t quantile, the verdict on both sides of the margin that the
 *                data can just exclude; no margin, no equivalence columns
 *   TOST family  400 studies of 8 comparisons whose true difference is exactly the margin (the
 *                edge of the null): the fraction declaring anything `equivalent` stays at or
 *                below alpha (binomial test at 1e-3); one-sided tests taken singly, or without
 *                Holm's correction, exceed it
 *   errors       a missing axis, metric or baseline level, a duplicated seed, a cut last line,
 *                a negative or infinite margin */
#include <math.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <gsl/gsl_cdf.h>
#include <gsl/gsl_randist.h>
#include <gsl/gsl_rng.h>

#include "srlab/compare.h"
#include "../testutil.h"

#define PRE "# srlab test\n# seeds: 1-5\n"

/* Compare `text`, a runs file whose '#' lines lack only the '# runs:' line a sweep writes:
 * it is added, counting the data lines (the file adds up, as srl_sweep_compare requires). */
static int run(const char *text, const srl_compare_opts *o, char **out, srl_err *err)
{
    size_t len, n = 0;
    const char *head = strstr(text, "\nrun,"), *p = head ? strchr(head + 1, '\n') : NULL;
    for (; p && (p = strchr(p + 1, '\n'));)
        n++;
    char *full = NULL;
    if (head && !strstr(text, "# runs:")) {
        const size_t pre = (size_t)(head + 1 - text);
        full = malloc(strlen(text) + 64);
        if (!full)
            abort();
        snprintf(full, strlen(text) + 64, "%.*s# runs: %zu (%zu grid points x 1 seeds)\n%s",
                 (int)pre, text, n, n, head + 1);
    }
    srl_sweep_text t = {"t.runs.csv", full ? full : text, strlen(full ? full : text)};
    int st = srl_sweep_compare(&t, o, out, &len, err);
    free(full);
    return st;
}

/* The options every test starts from: the levels of strategy against `baseline`, alpha 0.05,
 * power 0.8. */
static srl_compare_opts by_strategy(const char *baseline)
{
    return (srl_compare_opts){.axis = "strategy", .baseline = baseline, .alpha = 0.05,
                              .power = 0.8};
}

/* Compare `text` by strategy against `baseline`, checking that it succeeds (the failure names
 * `what`): the compare CSV to free, or NULL. */
static char *compare_ok(const char *text, const char *baseline, const char *what)
{
    srl_compare_opts o = by_strategy(baseline);
    char *csv = NULL;
    srl_err err;
    int st = run(text, &o, &csv, &err);
    CHECK(st == SRL_OK, "%s: status %d: %s", what, st, err.msg);
    if (st != SRL_OK) {
        free(csv);
        return NULL;
    }
    return csv;
}

/* Field `col` (0-based, counted from the level field) of the first data line of a compare CSV
 * whose level field equals `level`. */
static double field_of(const char *csv, const char *level, int col)
{
    const char *p = csv;
    while ((p = strchr(p, '\n'))) {
        p++;
        if (*p == '#' || !*p)
            continue;
        char buf[64];
        snprintf(buf, sizeof buf, ",%s,", level);
        const char *at = strstr(p, buf);
        const char *nl = strchr(p, '\n');
        bool first = !strncmp(p, buf + 1, strlen(buf) - 1); /* the level is the first field */
        if (!first && (!at || at > nl))
            continue;
        const char *f = first ? p : at + 1;
        for (int k = 0; k < col; k++)
            f = strchr(f, ',') + 1;
        return strtod(f, NULL);
    }
    return NAN;
}

static void test_paired_t(void)
{
    long before = srl_test_failures;
    /* baseline b: 10,20,30,40,50; level x: 11,22,33,44,55: differences 1..5 */
    const char *text = PRE "run,strategy,format,seed,final_loss\n"
                           "0,b,bf16,1,10\n1,b,bf16,2,20\n2,b,bf16,3,30\n3,b,bf16,4,40\n"
                           "4,b,bf16,5,50\n5,x,fp32,1,11\n6,x,fp32,2,22\n7,x,fp32,3,33\n"
                           "8,x,fp32,4,44\n9,x,fp32,5,55\n";
    char *csv = compare_ok(text, "b", __func__);
    if (csv) {
        /* columns: level,baseline,pairs,unpaired,mean_diff,sd_diff,se,t,df,p,p_holm,mdd */
        double t = 3 * sqrt(2.0), th = atan(t / 2), s = sin(th), c = cos(th);
        double p = 1 - s * (1 + c * c / 2);
        CHECK(field_of(csv, "x", 2) == 5 && field_of(csv, "x", 3) == 0, "pairs\n%s", csv);
        CHECK(field_of(csv, "x", 4) == 3, "mean\n%s", csv);
        CHECK(fabs(field_of(csv, "x", 5) - sqrt(2.5)) <= 4 * 0x1p-52 * sqrt(2.5), "sd\n%s", csv);
        CHECK(fabs(field_of(csv, "x", 7) - t) <= 16 * 0x1p-52 * t, "t\n%s", csv);
        CHECK(field_of(csv, "x", 8) == 4, "df\n%s", csv);
        /* GSL's incomplete beta is accurate to about 1e-15 relative here; a one-sided p or a
         * wrong df would be off by a factor 2 or by more than 10% */
        double got = field_of(csv, "x", 9);
        CHECK(fabs(got - p) <= 1e-12 * p, "p %.17g against the closed form %.17g", got, p);
        CHECK(field_of(csv, "x", 10) == got, "a family of one is not adjusted");
        double mdd = (gsl_cdf_tdist_Qinv(0.025, 4) + gsl_cdf_tdist_Pinv(0.8, 4)) * sqrt(0.5);
        CHECK(fabs(field_of(csv, "x", 11) - mdd) <= 1e-12 * mdd, "mdd\n%s", csv);
        CHECK(strstr(csv, ",higher\n") && strstr(csv, "# seeds: 1-5\n"), "verdict, seeds\n%s",
              csv);
        /* the grid point columns: format is determined by strategy, so there are none */
        CHECK(strstr(csv, "\nlevel,baseline,pairs"), "no key column expected\n%s", csv);
    }
    free(csv);
    GROUP("paired t against the closed form for 4 degrees of freedom", before);
}

/* Field k (0-based) of the last data line of a compare CSV, as text in buf. */
static const char *last_field(const char *csv, int k, char *buf, size_t len)
{
    const char *p = csv + strlen(csv) - 1, *line = p; /* p: the final newline */
    while (line > csv && line[-1] != '\n')
        line--;
    for (int i = 0; i < k && line < p; i++)
        line = strchr(line, ',') + 1;
    size_t n = strcspn(line, ",\n");
    snprintf(buf, len, "%.*s", (int)(n < len ? n : len - 1), line);
    return buf;
}

static void test_tost(void)
{
    long before = srl_test_failures;
    const char *text = PRE "run,strategy,seed,final_loss\n"
                           "0,b,1,10\n1,b,2,20\n2,b,3,30\n3,b,4,40\n4,b,5,50\n"
                           "5,x,1,11\n6,x,2,22\n7,x,3,33\n8,x,4,44\n9,x,5,55\n";
    srl_compare_opts o = by_strategy("b");
    o.margin = 5;
    char *csv = NULL, buf[64];
    srl_err err;
    int st = run(text, &o, &csv, &err);
    CHECK(st == SRL_OK, "status %d: %s", st, err.msg);
    if (csv) {
        /* level,baseline,pairs,unpaired,mean_diff,sd_diff,se,t,df,p,p_holm,mdd,verdict,
         * eq_bound,p_tost,p_tost_holm,equivalence: mean 3, se sqrt(1/2), df 4. The upper test
         * has t = (3 - 5)/se = -2 sqrt(2), one-sided p from the closed form (half the two-sided
         * p at 2 sqrt(2)); the lower one, t = 8/se, is far smaller, so p_tost is the upper's. */
        CHECK(strstr(csv, ",verdict,eq_bound,p_tost,p_tost_holm,equivalence\n"), "columns\n%s",
              csv);
        double t = 2 * sqrt(2.0), th = atan(t / 2), s = sin(th), c = cos(th);
        double p = (1 - s * (1 + c * c / 2)) / 2;
        double got = strtod(last_field(csv, 14, buf, sizeof buf), NULL);
        CHECK(fabs(got - p) <= 1e-12 * p, "p_tost %.17g against the closed form %.17g", got, p);
        CHECK(strtod(last_field(csv, 15, buf, sizeof buf), NULL) == got, "a family of one");
        double eq = 3 + gsl_cdf_tdist_Qinv(0.05, 4) * sqrt(0.5);
        got = strtod(last_field(csv, 13, buf, sizeof buf), NULL);
        CHECK(fabs(got - eq) <= 1e-12 * eq, "eq_bound %.17g against %.17g", got, eq);
        CHECK(!strcmp(last_field(csv, 16, buf, sizeof buf), "equivalent"), "%s", buf);
        CHECK(strstr(csv, "# equivalence: two one-sided"), "the method line\n%s", csv);
    }
    free(csv);
    /* the margin just below eq_bound (3 + 2.132 * 0.707 = 4.507): not shown; above: shown */
    static const struct { double margin; const char *verdict; } edge[] = {
        {4.5, "not shown"}, {4.52, "equivalent"}};
    for (size_t i = 0; i < 2; i++) {
        o.margin = edge[i].margin;
        csv = NULL;
        CHECK(run(text, &o, &csv, &err) == SRL_OK && csv &&
                  !strcmp(last_field(csv, 16, buf, sizeof buf), edge[i].verdict),
              "margin %g: %s", edge[i].margin, csv ? csv : err.msg);
        free(csv);
    }
    o.margin = 0;
    csv = NULL;
    CHECK(run(text, &o, &csv, &err) == SRL_OK && csv && !strstr(csv, "p_tost") &&
              strstr(csv, ",verdict\n"), "no margin, no equivalence columns");
    free(csv);
    GROUP("equivalence (TOST) against the closed form", before);
}

static void test_pairing(void)
{
    long before = srl_test_failures;
    /* two learning rates (a grid point each), rows shuffled, seed 3 of x at lr 2 diverged */
    const char *text = PRE "run,strategy,lr,seed,final_loss\n"
                           "0,x,2,3,nan\n1,b,1,1,1\n2,x,1,2,2.5\n3,b,2,1,5\n4,x,2,1,4\n"
                           "5,b,1,2,2\n6,x,1,1,1.5\n7,b,2,2,6\n8,x,2,2,5\n9,b,2,3,7\n";
    char *csv = compare_ok(text, "b", __func__);
    if (csv) {
        CHECK(strstr(csv, "\nlr,level,baseline,"), "lr is the grid point\n%s", csv);
        /* lr 2 first (file order): pairs 2 (seeds 1, 2: differences -1, -1), 1 unpaired */
        CHECK(strstr(csv, "\n2,x,b,2,1,-1,0,0,-inf,1,0,0,0,lower\n") != NULL, "lr 2\n%s", csv);
        CHECK(strstr(csv, "\n1,x,b,2,0,0.5,0,0,inf,1,0,0,0,higher\n") != NULL, "lr 1\n%s",
              csv);
    }
    free(csv);
    GROUP("pairs by seed within grid points, diverged runs unpaired", before);
}

static void test_holm(void)
{
    long before = srl_test_failures;
    double p[] = {0.01, 0.04, 0.03, NAN};
    size_t fam = 0;
    CHECK(srl_holm_adjust(p, 4, &fam) == SRL_OK && fam == 3, "family %zu", fam);
    CHECK(p[0] == 3 * 0.01, "smallest times 3: %.17g", p[0]);
    CHECK(p[2] == 2 * 0.03 && p[1] == 2 * 0.03, "monotone step-down: %.17g %.17g", p[2], p[1]);
    CHECK(isnan(p[3]), "NaN stays out");
    double q[] = {0.5, 0.6};
    CHECK(srl_holm_adjust(q, 2, NULL) == SRL_OK && q[0] == 1 && q[1] == 1, "capped at 1");
    GROUP("Holm's step-down adjustment", before);
}

/* 400 simulated studies of 8 levels against a baseline L0, 6 seeds each: level l's metric is
 * normal with mean 0 (L0), +shift (odd l) or -shift (even l) and standard deviation sd, drawn
 * with GSL's generator from `seed`. Returns how many studies' compare CSV (options o) has a
 * line ending in `hit` or in `hit2` (may be NULL). */
static unsigned simulate(const srl_compare_opts *o, unsigned long seed, double shift, double sd,
                         const char *hit, const char *hit2)
{
    gsl_rng *r = gsl_rng_alloc(gsl_rng_mt19937);
    gsl_rng_set(r, seed);
    const int studies = 400, levels = 8, seeds = 6;
    unsigned any = 0;
    size_t cap = 64 + (size_t)(levels + 1) * seeds * 64;
    char *text = malloc(cap);
    for (int s = 0; s < studies && text && r; s++) {
        size_t n = (size_t)snprintf(text, cap, PRE "run,strategy,seed,final_loss\n");
        int run_no = 0;
        for (int l = 0; l <= levels; l++)
            for (int k = 1; k <= seeds; k++)
                n += (size_t)snprintf(text + n, cap - n, "%d,L%d,%d,%.17g\n", run_no++, l, k,
                                      (l == 0 ? 0 : l % 2 ? shift : -shift) +
                                          gsl_ran_gaussian(r, sd));
        char *csv = NULL;
        srl_err err;
        CHECK(run(text, o, &csv, &err) == SRL_OK, "study %d: %s", s, err.msg);
        if (csv)
            any += strstr(csv, hit) || (hit2 && strstr(csv, hit2));
        free(csv);
    }
    free(text);
    gsl_rng_free(r);
    return any;
}

/* Under the null (every level distributed as the baseline) the number of studies with any
 * resolved comparison is binomial(400, <= alpha) under a correct correction. */
static void test_family_wise(void)
{
    long before = srl_test_failures;
    const srl_compare_opts o = by_strategy("L0");
    unsigned any = simulate(&o, 20261201, 0, 1, ",lower\n", ",higher\n");
    /* P(X >= any) under binomial(400, 0.05): the correction fails if that is below 1e-3 */
    double tail = any ? gsl_cdf_binomial_Q(any - 1, 0.05, 400) : 1;
    CHECK(tail >= 1e-3, "%u of 400 null studies resolved something (tail %.3g)", any, tail);
    printf("family-wise: %u of 400 null studies with a resolved comparison\n", any);
    GROUP("family-wise error at or below alpha under the null", before);
}

/* Every level differs from the baseline by exactly the margin in truth (half above, half
 * below): a correct TOST with Holm declares anything equivalent in at most alpha of them. */
static void test_tost_family(void)
{
    long before = srl_test_failures;
    srl_compare_opts o = by_strategy("L0");
    o.margin = 0.5;
    unsigned any = simulate(&o, 20261206, o.margin, 0.3, ",equivalent\n", NULL);
    double tail = any ? gsl_cdf_binomial_Q(any - 1, 0.05, 400) : 1;
    CHECK(tail >= 1e-3, "%u of 400 studies at the margin declared equivalence (tail %.3g)", any,
          tail);
    printf("TOST family-wise: %u of 400 studies at the margin declared equivalence\n", any);
    GROUP("TOST family-wise error at or below alpha at the margin", before);
}

static void test_errors(void)
{
    long before = srl_test_failures;
    const char *good = PRE "run,strategy,seed,final_loss\n0,b,1,1\n1,x,1,2\n2,b,2,1\n3,x,2,3\n";
    const srl_compare_opts o = by_strategy("b");
    char *csv = NULL;
    srl_err err;
    srl_compare_opts bad = o;
    bad.axis = "opt";
    CHECK(run(good, &bad, &csv, &err) == SRL_EINVAL && strstr(err.msg, "'opt'"), "%s",
          err.msg);
    bad = o;
    bad.metric = "final_gap";
    CHECK(run(good, &bad, &csv, &err) == SRL_EINVAL && strstr(err.msg, "'final_gap'"), "%s",
          err.msg);
    bad = o;
    bad.baseline = "mp";
    CHECK(run(good, &bad, &csv, &err) == SRL_EINVAL && strstr(err.msg, "strategy = mp"), "%s",
          err.msg);
    const char *dup = PRE "run,strategy,seed,final_loss\n0,b,1,1\n1,x,1,2\n2,x,1,3\n";
    CHECK(run(dup, &o, &csv, &err) == SRL_EPARSE && strstr(err.msg, "data lines 2 and 3 are the "
                                                                "same run"),
          "%s", err.msg);
    const char *cut = PRE "run,strategy,seed,final_loss\n0,b,1,1\n1,x,1,2";
    CHECK(run(cut, &o, &csv, &err) == SRL_EPARSE && strstr(err.msg, "newline"), "%s", err.msg);
    const char *ragged = PRE "run,strategy,seed,final_loss\n0,b,1,1\n1,x,1\n";
    CHECK(run(ragged, &o, &csv, &err) == SRL_EPARSE && strstr(err.msg, "line 2"), "%s",
          err.msg);
    bad = o;
    bad.margin = -1;
    CHECK(run(good, &bad, &csv, &err) == SRL_EINVAL && strstr(err.msg, "margin"), "%s", err.msg);
    bad.margin = INFINITY;
    CHECK(run(good, &bad, &csv, &err) == SRL_EINVAL && strstr(err.msg, "margin"), "%s", err.msg);
    GROUP("bad input named", before);
}

/* Issue 28, item 6: a runs file that does not add up is refused, naming the lines; a level is
 * found as the file holds it. */
static void test_adds_up(void)
{
    long before = srl_test_failures;
    const srl_compare_opts o = by_strategy("b");
    char *csv = NULL;
    srl_err err;
    /* a baseline line given twice used to count twice: refused, however it is numbered */
    const char *twice = "# srlab\n# runs: 4 (2 grid points x 2 seeds)\n"
                        "run,strategy,seed,final_loss\n0,b,1,1\n1,b,2,2\n2,x,1,2\n3,x,2,4\n"
                        "0,b,1,1\n";
    CHECK(run(twice, &o, &csv, &err) == SRL_EPARSE &&
              strstr(err.msg, "5 runs where its '# runs:' line counts 4 (lines added)"),
          "%s", err.msg);
    const char *renumbered = "# srlab\n# runs: 5 (5 grid points x 1 seeds)\n"
                             "run,strategy,seed,final_loss\n0,b,1,1\n1,b,2,2\n2,x,1,2\n"
                             "3,x,2,4\n4,b,1,1\n";
    CHECK(run(renumbered, &o, &csv, &err) == SRL_EPARSE &&
              strstr(err.msg, "data lines 1 and 5 are the same run"),
          "%s", err.msg);
    const char *number = "# srlab\n# runs: 4 (2 grid points x 2 seeds)\n"
                         "run,strategy,seed,final_loss\n0,b,1,1\n1,b,2,2\n1,x,1,2\n3,x,2,4\n";
    CHECK(run(number, &o, &csv, &err) == SRL_EPARSE && strstr(err.msg, "run 1 is given twice"),
          "%s", err.msg);
    const char *fewer = "# srlab\n# runs: 4 (2 grid points x 2 seeds)\n"
                        "run,strategy,seed,final_loss\n0,b,1,1\n1,b,2,2\n2,x,1,2\n";
    CHECK(run(fewer, &o, &csv, &err) == SRL_EPARSE &&
              strstr(err.msg, "3 runs where its '# runs:' line counts 4 (a cut or filtered file)"),
          "%s", err.msg);
    const char *shard = "# srlab\n# runs: 4 (2 grid points x 2 seeds)\n# shard: 0/2\n"
                        "run,strategy,seed,final_loss\n0,b,1,1\n2,x,1,2\n";
    CHECK(run(shard, &o, &csv, &err) == SRL_EINVAL && strstr(err.msg, "merge the shards first"),
          "%s", err.msg);
    const char *norun = "# srlab\n# runs: 4 (2 grid points x 2 seeds)\n"
                        "run,strategy,seed,final_loss\n0,b,1,1\n1,b,2,2\n2,x,1,2\n9,x,2,4\n";
    CHECK(run(norun, &o, &csv, &err) == SRL_EPARSE && strstr(err.msg, "'9' is not a run"),
          "%s", err.msg);
    /* a NUL, a CR: not a file srlab wrote */
    const char nul[] = "# srlab\n# runs: 2 (1 grid points x 2 seeds)\nrun,strategy,seed,final_"
                       "loss\n0,b,1,1\n1,x,1\0,2\n";
    srl_sweep_text t = {"n.runs.csv", nul, sizeof nul - 1};
    size_t len;
    CHECK(srl_sweep_compare(&t, &o, &csv, &len, &err) == SRL_EPARSE &&
              strstr(err.msg, "n.runs.csv: line 5 holds a NUL byte"),
          "%s", err.msg);
    const char *crlf = "# srlab\r\n# runs: 2 (1 grid points x 2 seeds)\r\nrun,strategy,seed\r\n";
    CHECK(run(crlf, &o, &csv, &err) == SRL_EPARSE && strstr(err.msg, "line 1 ends in CR LF"),
          "%s", err.msg);
    /* levels as the file holds them: quoted (a comma), guarded (a formula), and by another
     * spelling of the same format */
    const char *levels = "# srlab\n# runs: 6 (3 grid points x 2 seeds)\n"
                         "run,format,seed,final_loss\n0,\"p=8,emax=100\",1,1\n1,\"p=8,emax=100\",2,2\n"
                         "2,\"'=x\",1,2\n3,\"'=x\",2,4\n4,fp16,1,3\n5,fp16,2,5\n";
    srl_compare_opts f = {.axis = "format", .baseline = "p=8,emax=100", .alpha = 0.05,
                          .power = 0.8};
    CHECK(run(levels, &f, &csv, &err) == SRL_OK && strstr(csv, "\n\"'=x\",\"p=8,emax=100\","),
          "a level holding a comma: %s %s", err.msg, csv ? csv : "");
    free(csv);
    csv = NULL;
    f.baseline = "p=8,emax=100,emin=-99";
    CHECK(run(levels, &f, &csv, &err) == SRL_OK, "another spelling: %s", err.msg);
    free(csv);
    csv = NULL;
    f.baseline = "=x";
    CHECK(run(levels, &f, &csv, &err) == SRL_OK, "a guarded level: %s", err.msg);
    free(csv);
    csv = NULL;
    f.baseline = "half";
    CHECK(run(levels, &f, &csv, &err) == SRL_OK, "half is fp16: %s", err.msg);
    free(csv);
    csv = NULL;
    f.baseline = "bf16";
    CHECK(run(levels, &f, &csv, &err) == SRL_EINVAL &&
              strstr(err.msg, "(its levels: p=8,emax=100, =x, fp16)"),
          "the levels named: %s", err.msg);
    GROUP("a runs file that does not add up is refused; levels as the file holds them", before);
}

int main(void)
{
    test_paired_t();
    test_pairing();
    test_holm();
    test_family_wise();
    test_tost();
    test_tost_family();
    test_errors();
    test_adds_up();
    TEST_END();
}
