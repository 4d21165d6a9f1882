/* tests/check/test_check.c: the checks of `srlab check` (include/srlab/check.h, src/check/).
 *
 *   test_check stats     the statistics the checks rely on: Clopper-Pearson intervals and the
 *                        binomial tails (against GSL where GSL is accurate, against their
 *                        defining equations for n in the millions), the verdict rules of every
 *                        kind (NaN and infinite values included), the catalogue's lookup
 *   test_check TNN       every check of statement TNN at --quick sizes must PASS, and every
 *                        mutation it documents (the experiment altered, or the predicted
 *                        constant perturbed) must FAIL: each check can fail
 *   test_check bugs      every realistic defect (srl_check_bug) makes at least one of the checks
 *                        it reaches FAIL, at --quick sizes (`srlab check --mutate bug`)
 *   test_check threads   results are bit-identical with 1, 2 and 3 OpenMP threads
 * Seeds are fixed (each check's own, printed in its `what` text, which is printed here). */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <gsl/gsl_cdf.h>
#include <gsl/gsl_errno.h>

#ifdef _OPENMP
#include <omp.h>
#endif

#include "srlab/check.h"
#include "../testutil.h"

static void print_row(const char *tag, const srl_check_result *r)
{
    printf("  %-10s %-5s %s measured %.6g [%.6g, %.6g] predicted %.6g margin %.3g: %s\n", tag,
           r->id, r->pass ? "PASS" : "FAIL", r->measured, r->ci_lo, r->ci_hi, r->predicted,
           r->margin, r->what);
}

/* ---- statistics ---- */

static void test_binomial(void)
{
    const long before = srl_test_failures;
    /* tails against GSL for moderate n (GSL's incomplete beta is accurate there) */
    const unsigned ns[] = {1, 7, 100, 1000, 20000};
    const double ps[] = {1e-4, 0.013, 0.3, 0.5, 0.77, 0.999};
    for (size_t a = 0; a < sizeof ns / sizeof ns[0]; a++)
        for (size_t b = 0; b < sizeof ps / sizeof ps[0]; b++) {
            const unsigned n = ns[a];
            const double p = ps[b];
            const unsigned ks[] = {0, 1, n / 3, (unsigned)(n * p), n / 2, n - 1, n};
            for (size_t c = 0; c < sizeof ks / sizeof ks[0]; c++) {
                const unsigned k = ks[c];
                const double lo = srl_check_binom_lower(k, n, p), g = gsl_cdf_binomial_P(k, p, n);
                const double up = srl_check_binom_upper(k, n, p);
                const double gu = k == 0 ? 1 : gsl_cdf_binomial_Q(k - 1, p, n);
                CHECK(fabs(lo - g) <= 1e-9 * g + 1e-300, "P(X <= %u; %u, %g) = %.17g, GSL %.17g", k,
                      n, p, lo, g);
                CHECK(fabs(up - gu) <= 1e-9 * gu + 1e-300, "P(X >= %u; %u, %g) = %.17g, GSL %.17g",
                      k, n, p, up, gu);
            }
        }
    GROUP("binomial tails agree with GSL's to 1e-9 (n <= 20000)", before);
}

static void test_clopper_pearson(void)
{
    const long before = srl_test_failures;
    double lo, hi;
    /* closed forms at the ends: k = 0 gives hi = 1 - (alpha/2)^(1/n); k = n gives lo =
     * (alpha/2)^(1/n) */
    srl_check_clopper_pearson(&lo, &hi, 0, 10, 0.05);
    CHECK(lo == 0 && fabs(hi - (1 - pow(0.025, 0.1))) < 1e-12, "k=0: [%.17g, %.17g]", lo, hi);
    srl_check_clopper_pearson(&lo, &hi, 10, 10, 0.05);
    CHECK(hi == 1 && fabs(lo - pow(0.025, 0.1)) < 1e-12, "k=n: [%.17g, %.17g]", lo, hi);
    /* the defining equations, against GSL's beta quantiles for moderate n */
    const unsigned cases[][2] = {{5, 10}, {1, 40}, {37, 40}, {300, 1000}, {12, 5000}};
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        const unsigned k = cases[i][0], n = cases[i][1];
        srl_check_clopper_pearson(&lo, &hi, k, n, 1e-3);
        const double glo = gsl_cdf_beta_Pinv(0.5e-3, k, n - k + 1);
        const double ghi = gsl_cdf_beta_Qinv(0.5e-3, k + 1, n - k);
        CHECK(fabs(lo - glo) < 1e-9 && fabs(hi - ghi) < 1e-9,
              "k %u n %u: [%.17g, %.17g], GSL [%.17g, %.17g]", k, n, lo, hi, glo, ghi);
    }
    /* n in the millions (GSL's beta quantile fails to converge there): the tails at the
     * limits are alpha/2, and the width is the normal one within 1% */
    const uint64_t n = UINT64_C(1) << 22, k = (uint64_t)(0.8 * (double)n) + 123;
    const double alpha = 1e-7;
    srl_check_clopper_pearson(&lo, &hi, k, n, alpha);
    const double ul = srl_check_binom_upper(k, n, lo), lh = srl_check_binom_lower(k, n, hi);
    CHECK(fabs(ul / (alpha / 2) - 1) < 1e-6 && fabs(lh / (alpha / 2) - 1) < 1e-6,
          "tails at the limits %.17g %.17g (want %g)", ul, lh, alpha / 2);
    const double ph = (double)k / (double)n;
    const double zw = gsl_cdf_ugaussian_Qinv(alpha / 2) * sqrt(ph * (1 - ph) / (double)n);
    CHECK(lo < ph && ph < hi && fabs((hi - lo) / (2 * zw) - 1) < 0.01,
          "n %llu: [%.17g, %.17g], normal half-width %.3g", (unsigned long long)n, lo, hi, zw);
    GROUP("Clopper-Pearson intervals: closed forms, GSL, and n = 2^22", before);
}

static srl_check_result mk(srl_check_kind kind, double m, double lo, double hi, double p)
{
    srl_check_result r;
    memset(&r, 0, sizeof r);
    r.kind = kind;
    r.measured = m;
    r.ci_lo = lo;
    r.ci_hi = hi;
    r.predicted = p;
    srl_check_judge(&r);
    return r;
}

static void test_judge(void)
{
    const long before = srl_test_failures;
    struct {
        srl_check_kind kind;
        double m, lo, hi, p;
        int pass;
        double margin; /* NAN: only the sign is checked */
    } c[] = {
        {SRL_CHECK_INTERVAL, 1, 0, 2, 1, 1, 1},
        {SRL_CHECK_INTERVAL, 1, 0, 2, 1.5, 1, 0.5},
        {SRL_CHECK_INTERVAL, 1, 0, 4, 2.5, 1, 0.5}, /* asymmetric: the upper half is 3 */
        {SRL_CHECK_INTERVAL, 1, 0, 2, 0, 1, 0},     /* on the edge */
        {SRL_CHECK_INTERVAL, 1, 0, 2, 3, 0, -1},
        {SRL_CHECK_INTERVAL, 1, 0, 2, -0.5, 0, -0.5},
        {SRL_CHECK_INTERVAL, INFINITY, 6892, INFINITY, 100, 0, NAN}, /* an infinite centre */
        {SRL_CHECK_INTERVAL, 5, 0, INFINITY, 100, 1, 1},
        {SRL_CHECK_INTERVAL, NAN, 0, 2, 1, 0, NAN},
        {SRL_CHECK_INTERVAL, 1, NAN, 2, 1, 0, NAN},
        {SRL_CHECK_INTERVAL, 1, 2, 0, 1, 0, NAN}, /* an empty interval */
        {SRL_CHECK_BAND, 0.5, 0, 1, 1, 1, 0.5},   /* measured in [lo, hi] around p = 1 */
        {SRL_CHECK_BAND, 1.5, 0, 1, 1, 0, NAN},
        {SRL_CHECK_BOUND, 0.5, 0.5, 0.5, 1, 1, 0.5},
        {SRL_CHECK_BOUND, 1, 1, 1, 1, 1, 0},
        {SRL_CHECK_BOUND, 2, 2, 2, 1, 0, -1},
        {SRL_CHECK_BOUND, 0.9, 0.1, 1, 0.2, 1, 0.5}, /* only the lower limit matters */
        {SRL_CHECK_BOUND, NAN, NAN, NAN, 1, 0, NAN},
        {SRL_CHECK_BOUND, INFINITY, INFINITY, INFINITY, 1, 0, NAN},
        {SRL_CHECK_EXACT, 65, 65, 65, 65, 1, 0},
        {SRL_CHECK_EXACT, 41, 41, 41, 65, 0, NAN},
        {SRL_CHECK_EXACT, 1, 1, 1, 0, 0, -1},
        {SRL_CHECK_EXACT, NAN, NAN, NAN, NAN, 0, NAN},
    };
    for (size_t i = 0; i < sizeof c / sizeof c[0]; i++) {
        const srl_check_result r = mk(c[i].kind, c[i].m, c[i].lo, c[i].hi, c[i].p);
        CHECK(r.pass == (c[i].pass != 0), "case %zu: pass %d, margin %g", i, r.pass, r.margin);
        CHECK(r.pass == (r.margin >= 0), "case %zu: pass %d but margin %g", i, r.pass, r.margin);
        if (!isnan(c[i].margin))
            CHECK(fabs(r.margin - c[i].margin) < 1e-12, "case %zu: margin %.17g, want %g", i,
                  r.margin, c[i].margin);
    }
    /* the minimum detectable effect: k = 1 + z_0.99 / z_(1e-6) widens the larger half of an
     * interval (and the estimated part of a bound) by the allowance for the statistical error */
    const double k = 1 + gsl_cdf_ugaussian_Qinv(0.01) / gsl_cdf_ugaussian_Qinv(SRL_CHECK_ALPHA / 2);
    CHECK(fabs(k - 1.4755) < 1e-3, "allowance factor %.17g", k);
    const struct {
        srl_check_kind kind;
        double m, lo, hi, p, mde;
    } d[] = {
        {SRL_CHECK_INTERVAL, 1, 0, 4, 1, 3 * k}, /* the larger half */
        {SRL_CHECK_BAND, 0.5, 0, 1, 1, 0.5},
        {SRL_CHECK_BOUND, 0.25, 0.25, 0.25, 1, 0.75},
        {SRL_CHECK_BOUND, 0.5, 0.25, 1, 1, 0.5 + 0.25 * k},
        {SRL_CHECK_EXACT, 3, 3, 3, 3, 0},
    };
    for (size_t i = 0; i < sizeof d / sizeof d[0]; i++) {
        const srl_check_result r = mk(d[i].kind, d[i].m, d[i].lo, d[i].hi, d[i].p);
        CHECK(fabs(r.mde - d[i].mde) < 1e-12 && srl_check_mde(&r) == r.mde,
              "mde case %zu: %.17g, want %.17g", i, r.mde, d[i].mde);
    }
    CHECK(isnan(mk(SRL_CHECK_INTERVAL, NAN, 0, 1, 0).mde), "mde of a NaN result");
    GROUP("verdict rules: interval, band, bound, exact; NaN and infinities fail safe; the minimum "
          "detectable effect",
          before);
}

static void test_catalogue(void)
{
    const long before = srl_test_failures;
    const size_t n = srl_check_count();
    CHECK(n >= 40, "%zu checks", n);
    for (size_t i = 0; i < n; i++) {
        const srl_check *c = srl_check_at(i);
        CHECK(c && c->id && c->title && c->statement, "check %zu incomplete", i);
        CHECK(!strncmp(c->id, c->statement, 3) && strlen(c->id) == 4, "%s / %s", c->id,
              c->statement);
        CHECK(srl_check_find(c->id) == c, "find %s", c->id);
        CHECK(c->mutation[SRL_CHECK_MUT_NONE] == NULL, "%s: a NONE mutation", c->id);
        CHECK(c->mutation[SRL_CHECK_MUT_EXPERIMENT] || c->mutation[SRL_CHECK_MUT_PREDICTION],
              "%s documents no mutation", c->id);
        CHECK(c->mde && c->mde[0], "%s states no minimum detectable effect", c->id);
        CHECK(c->basis == SRL_CHECK_STATISTICAL || c->basis == SRL_CHECK_PROBE, "%s: basis %d",
              c->id, (int)c->basis);
        for (size_t j = 0; j < i; j++)
            CHECK(strcmp(srl_check_at(j)->id, c->id) < 0, "%s after %s: order", c->id,
                  srl_check_at(j)->id);
    }
    CHECK(srl_check_find("t03b") == srl_check_find("T03b") && srl_check_find("T03b"),
          "case-insensitive find");
    CHECK(!srl_check_find("T99") && !srl_check_find("") && !srl_check_find(NULL), "unknown ids");
    size_t sel = 0;
    for (size_t i = 0; i < n; i++)
        sel += srl_check_selects("t03", srl_check_at(i));
    CHECK(sel == 10, "T03 selects %zu checks", sel);
    /* every statement of docs/design.md §9 has checks */
    for (int s = 1; s <= 13; s++) {
        char id[8];
        snprintf(id, sizeof id, "T%02d", s);
        size_t k = 0;
        for (size_t i = 0; i < n; i++)
            k += srl_check_selects(id, srl_check_at(i));
        CHECK(k >= 1, "statement %s has no check", id);
    }
    /* an undocumented mutation is refused */
    const srl_check *t03a = srl_check_find("T03a");
    srl_check_opts o = {true, 0, SRL_CHECK_MUT_EXPERIMENT, 0};
    srl_check_result r;
    srl_err e;
    CHECK(!t03a->mutation[SRL_CHECK_MUT_EXPERIMENT] &&
              srl_check_run(&r, t03a, &o, &e) == SRL_EINVAL && !r.pass,
          "T03a has no experiment mutation: SRL_EINVAL");
    /* only the catalogue's own entries run (a copy has no experiment behind it) */
    const srl_check copy = *srl_check_find("T13a");
    o.mutation = SRL_CHECK_MUT_NONE;
    CHECK(srl_check_run(&r, &copy, &o, &e) == SRL_EINVAL && !r.pass && !strcmp(r.id, "T13a"),
          "a check not from the catalogue: SRL_EINVAL");
    CHECK(srl_check_run(&r, srl_check_find("T13a"), &o, &e) == SRL_OK && r.pass,
          "the catalogue's T13a runs");
    /* the built-in defects: named, found by name; refused out of range, with a mutation, and in
     * a build without them */
    const unsigned nb = srl_check_bug_count();
    CHECK(nb >= 20, "%u defects", nb);
    for (unsigned b = 1; b <= nb; b++) {
        CHECK(srl_check_bug_name(b) && srl_check_bug_text(b) &&
                  srl_check_bug_find(srl_check_bug_name(b)) == b,
              "defect %u unnamed or not found", b);
        for (unsigned b2 = 1; b2 < b; b2++)
            CHECK(strcmp(srl_check_bug_name(b), srl_check_bug_name(b2)), "defect %s named twice",
                  srl_check_bug_name(b));
    }
    CHECK(!srl_check_bug_name(0) && !srl_check_bug_name(nb + 1) && !srl_check_bug_find("nope") &&
              !srl_check_bug_find(NULL),
          "no defect 0, none past the last, none unknown");
    o.bug = nb + 1;
    CHECK(srl_check_run(&r, srl_check_find("T13a"), &o, &e) == SRL_EINVAL, "defect out of range");
    o.bug = 1;
    o.mutation = SRL_CHECK_MUT_EXPERIMENT;
    CHECK(srl_check_run(&r, srl_check_find("T13a"), &o, &e) == SRL_EINVAL,
          "a defect with a mutation");
    o.mutation = SRL_CHECK_MUT_NONE;
    if (!srl_check_bugs_built())
        CHECK(srl_check_run(&r, srl_check_find("T13a"), &o, &e) == SRL_ENOTSUP && !r.pass,
              "a defect in a build without them: SRL_ENOTSUP");
    GROUP("the catalogue: ids, statements T01-T13, lookup, documented mutations; the defects",
          before);
}

/* ---- built-in defects: each makes some check FAIL ---- */

/* A build with the defects (-Dmutants=true): every defect against the checks at --quick sizes,
 * probes first (as `srlab check --mutate bug` runs them), until one FAILs or cannot run; each must
 * be caught. A build without them has nothing to test here (the catalogue test checks the
 * refusal). */
static void test_bugs(void)
{
    if (!srl_check_bugs_built()) {
        printf("bugs: this build has no built-in defects (meson setup -Dmutants=true): skipped\n");
        return;
    }
    for (unsigned b = 1; b <= srl_check_bug_count(); b++) {
        const long before = srl_test_failures;
        const srl_check *by = NULL;
        for (int pass = 0; pass < 2 && !by; pass++)
            for (size_t i = 0; i < srl_check_count() && !by; i++) {
                const srl_check *c = srl_check_at(i);
                if ((c->basis == SRL_CHECK_PROBE) != (pass == 0))
                    continue;
                srl_check_opts o = {true, 0, SRL_CHECK_MUT_NONE, b};
                srl_check_result r;
                srl_err e;
                e.msg[0] = 0;
                const int st = srl_check_run(&r, c, &o, &e);
                if (st || !r.pass) {
                    by = c;
                    print_row(srl_check_bug_name(b), &r);
                }
            }
        CHECK(by != NULL, "the defect %s (%s): no check FAILs", srl_check_bug_name(b),
              srl_check_bug_text(b));
        char name[240];
        snprintf(name, sizeof name, "defect %s (%s): caught by %s", srl_check_bug_name(b),
                 srl_check_bug_text(b), by ? by->id : "none");
        GROUP(name, before);
    }
}

/* ---- one statement: PASS as is, FAIL under each mutation ---- */

/* Seeds for a mutation run where the quick default lacks power: none so far (the quick sizes
 * make every documented mutation fail by many interval widths; see the margins printed). */
static uint64_t mutation_seeds(const char *id, srl_check_mutation m)
{
    (void)id;
    (void)m;
    return 0;
}

static void test_statement(const char *stmt)
{
    size_t found = 0;
    for (size_t i = 0; i < srl_check_count(); i++) {
        const srl_check *c = srl_check_at(i);
        if (!srl_check_selects(stmt, c))
            continue;
        found++;
        const long before = srl_test_failures;
        srl_check_opts o = {true, 0, SRL_CHECK_MUT_NONE, 0};
        srl_check_result r;
        srl_err e;
        e.msg[0] = 0;
        int st = srl_check_run(&r, c, &o, &e);
        CHECK(st == SRL_OK, "%s: %s", c->id, e.msg);
        CHECK(st || r.pass, "%s FAILs: measured %.17g [%.17g, %.17g] predicted %.17g: %s", c->id,
              r.measured, r.ci_lo, r.ci_hi, r.predicted, r.what);
        CHECK(!strcmp(r.id, c->id) && r.what[0], "%s: id %s, what '%s'", c->id, r.id, r.what);
        print_row("as is", &r);
        for (int m = SRL_CHECK_MUT_EXPERIMENT; m < SRL_CHECK_MUT_COUNT; m++) {
            if (!c->mutation[m])
                continue;
            o.mutation = (srl_check_mutation)m;
            o.seeds = mutation_seeds(c->id, o.mutation);
            e.msg[0] = 0;
            st = srl_check_run(&r, c, &o, &e);
            CHECK(st == SRL_OK, "%s mutated: %s", c->id, e.msg);
            CHECK(st || !r.pass,
                  "%s still PASSes with its %s mutation (%s): measured %.17g "
                  "[%.17g, %.17g] predicted %.17g",
                  c->id, m == SRL_CHECK_MUT_EXPERIMENT ? "experiment" : "prediction",
                  c->mutation[m], r.measured, r.ci_lo, r.ci_hi, r.predicted);
            print_row(m == SRL_CHECK_MUT_EXPERIMENT ? "mut. exp." : "mut. pred.", &r);
        }
        char name[160];
        snprintf(name, sizeof name, "%s: PASS as is, FAIL under every documented mutation (%s%s%s)",
                 c->id, c->mutation[1] ? "experiment" : "",
                 c->mutation[1] && c->mutation[2] ? ", " : "", c->mutation[2] ? "prediction" : "");
        GROUP(name, before);
    }
    CHECK(found > 0, "no check selected by %s", stmt);
}

/* ---- thread-count invariance ---- */

static void test_threads(void)
{
    const long before = srl_test_failures;
#ifdef _OPENMP
    static const char *const ids[] = {"T01a", "T02b", "T03b", "T05c", "T06a",
                                      "T07b", "T11a", "T11b", "T12b"};
    for (size_t i = 0; i < sizeof ids / sizeof ids[0]; i++) {
        const srl_check *c = srl_check_find(ids[i]);
        /* 8 seeds: small and still parallel */
        srl_check_opts o = {true, 8, SRL_CHECK_MUT_NONE, 0};
        srl_check_result r[3];
        for (int t = 0; t < 3; t++) {
            omp_set_num_threads(t + 1);
            srl_err e;
            CHECK(srl_check_run(&r[t], c, &o, &e) == SRL_OK, "%s: %s", ids[i], e.msg);
        }
        for (int t = 1; t < 3; t++)
            CHECK(srl_test_same(r[t].measured, r[0].measured) &&
                      srl_test_same(r[t].ci_lo, r[0].ci_lo) &&
                      srl_test_same(r[t].ci_hi, r[0].ci_hi) &&
                      srl_test_same(r[t].predicted, r[0].predicted) &&
                      srl_test_same(r[t].margin, r[0].margin) && !strcmp(r[t].what, r[0].what),
                  "%s with %d threads: %.17g [%.17g, %.17g], with 1: %.17g [%.17g, %.17g]", ids[i],
                  t + 1, r[t].measured, r[t].ci_lo, r[t].ci_hi, r[0].measured, r[0].ci_lo,
                  r[0].ci_hi);
    }
    GROUP("check results are bit-identical with 1, 2 and 3 threads", before);
#else
    printf("SKIP: built without OpenMP\n");
    (void)before;
#endif
}

int main(int argc, char **argv)
{
    gsl_set_error_handler_off();
    if (argc < 2) {
        fprintf(stderr, "usage: test_check stats | threads | TNN...\n");
        return 2;
    }
    for (int i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "stats")) {
            test_binomial();
            test_clopper_pearson();
            test_judge();
            test_catalogue();
        } else if (!strcmp(argv[i], "bugs")) {
            test_bugs();
        } else if (!strcmp(argv[i], "threads")) {
            test_threads();
        } else {
            test_statement(argv[i]);
        }
    }
    TEST_END();
}
