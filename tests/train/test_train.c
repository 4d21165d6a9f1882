/* tests/train/test_train.c: training runs against the predictions of theory/T05, T08, T09 and
 * the unit roundoff, through the runners (include/srlab/train.h, src/problems/convex.c).
 *
 *   unit (./test_train unit)
 *     1. bf16-rn gradient descent on quad1d stalls exactly where the rounded map iterated by
 *        srl_t05_rn_stall stops, inside the band [D - ulp, D], D = ulp/(2 lr a) (T05).
 *     2. fp32 SGD on lsq reaches a fixed point whose gradient and loss gap obey the bounds
 *        derived from u = 2^-24 (below).
 *     3. Weight decay alone under bf16-rn (lr wd < 2^-9) never changes the weight (T08).
 *     4. Every stored tensor holds values of its format after every step, for every preset
 *        and custom strategies with fp16, e4m3, e5m2 and stochastic writes.
 *     5. The bf16 second moment under rn with beta2 = 0.999 never decreases and rises exactly
 *        when g^2 passes the threshold of T09 (within the fp32 arithmetic's error).
 *     6. Divergence: a NaN/inf run stops with a 'diverged' row, rep->diverged and SRL_OK.
 *     7. Bad input: a message naming the key, nothing emitted.
 *   stat (./test_train stat)
 *     8. bf16-sr: the mean iterate over seeds equals the binary64 GD iterate, within a confidence
 *        interval from the SR variance bound ulp^2/4 and n (GSL normal quantile, Bonferroni over
 *        the steps checked); its stationary excess loss equals the T05 floor at two learning
 *        rates. With the strategy's bf16 gradient, the deterministic bias of the rounded
 *        gradient is added to the interval.
 *     9. Weight decay under bf16-sr is applied in mean: E[x_T] = x0 (1 - lr wd)^T (T08).
 *    10. Gradient noise has mean 0 and variance sigma^2 (chi-square interval).
 * Fixed seeds; every failure prints the run's keys. */
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <gsl/gsl_cdf.h>
#include <gsl/gsl_errno.h>

#include "problems/convex.h"
#include "srlab/run.h"
#include "srlab/tensor.h"
#include "srlab/theory.h"
#include "srlab/train.h"
#include "../testutil.h"

/* ---- capturing rows ---- */

#define MAXC 24
typedef struct rows {
    size_t ncol, n, cap;
    char names[MAXC][32];
    double *v;        /* n x ncol; strings: 0 ok, 1 diverged */
    int begun;
} rows;

static int r_begin(void *ctx, size_t ncol, const char *const *names, const srl_col_kind *k)
{
    (void)k;
    rows *r = ctx;
    r->begun++;
    r->ncol = ncol < MAXC ? ncol : MAXC;
    for (size_t i = 0; i < r->ncol; i++)
        snprintf(r->names[i], 32, "%s", names[i]);
    return 0;
}

static int r_row(void *ctx, const srl_value *v)
{
    rows *r = ctx;
    if (r->n == r->cap) {
        r->cap = r->cap ? 2 * r->cap : 64;
        r->v = realloc(r->v, r->cap * MAXC * sizeof *r->v);
    }
    for (size_t i = 0; i < r->ncol; i++)
        r->v[r->n * MAXC + i] = v[i].kind == SRL_COL_NUM   ? v[i].num
                                : v[i].kind == SRL_COL_INT ? (double)v[i].i
                                                           : (double)!!strcmp(v[i].str, "ok");
    r->n++;
    return 0;
}

static double col(const rows *r, size_t row, const char *name)
{
    for (size_t i = 0; i < r->ncol; i++)
        if (!strcmp(r->names[i], name))
            return r->v[row * MAXC + i];
    fprintf(stderr, "no column %s\n", name);
    abort();
}

static double last(const rows *r, const char *name)
{
    return col(r, r->n - 1, name);
}

static srl_config *cfg_of(const char *const *kv)
{
    srl_config *c = srl_config_new();
    for (; kv && kv[0]; kv += 2)
        if (srl_config_set(c, kv[0], kv[1]))
            abort();
    return c;
}

/* Run problem with keys kv (+ seed) into r; returns the status. */
static int run(rows *r, const char *problem, const char *const *kv, uint64_t seed,
               srl_run_report *rep, srl_err *err,
               int (*inspect)(void *, const srl_weights *, uint64_t, const srl_step_stats *),
               void *arg)
{
    memset(r, 0, sizeof *r);
    srl_config *c = cfg_of(kv);
    char sb[24];
    snprintf(sb, sizeof sb, "%llu", (unsigned long long)seed);
    if (srl_config_set(c, "seed", sb))
        abort();
    srl_sink sink = {r_begin, r_row, r};
    srl_run_report scratch;
    err->msg[0] = 0;
    int st;
    if (inspect) {
        st = srl__convex_run(problem, c, &sink, rep ? rep : &scratch, inspect, arg, err);
    } else {
        const srl_runner *R = srl_runner_find(SRL_RUN_TRAIN, problem);
        st = R ? srl_run(R, c, &sink, rep ? rep : &scratch, err) : SRL_EINVAL;
    }
    srl_config_free(c);
    return st;
}

static void drop(rows *r)
{
    free(r->v);
    memset(r, 0, sizeof *r);
}

/* ---- 1. T05: the RN stall ---- */

static void test_rn_stall(void)
{
    const long before = srl_test_failures;
    const srl_format *bf16 = srl_format_find("bf16");
    const srl_format *fp32 = srl_format_find("fp32");
    static const struct {
        const char *lr, *a, *xstar, *x0, *strategy;
    } cases[] = {
        {"0.01", "1", "0.3", "1", NULL},      {"0.03", "1", "0.3", "1", NULL},
        {"0.01", "2", "-1.7", "-1.95", NULL}, {"0.02", "0.5", "5.1", "7.5", NULL},
        {"0.01", "1", "0.3", "1", "bf16-rn"}, {"0.02", "1", "0.7", "0.98", "bf16-rn"},
    };
    /* Every case has its freeze zone [x* - D, x* + D] on the side the iterate comes from inside
     * one binade, and D >= ulp: the regime of the formula (T05). Outside it the stall happens
     * where the spacing changes; the exact iteration covers that too. */
    for (size_t k = 0; k < sizeof cases / sizeof *cases; k++) {
        const double lr = atof(cases[k].lr), a = atof(cases[k].a), xs = atof(cases[k].xstar);
        const double x0 = atof(cases[k].x0);
        const bool bf16g = cases[k].strategy != NULL;
        srl_t05_stall st;
        CHECK(srl_t05_rn_stall(&st, a, xs, x0, lr, bf16, bf16g ? bf16 : fp32, SRL_ARITH_FP32,
                               1000000) == SRL_OK && st.fixed, "theory");
        char steps[24];
        snprintf(steps, sizeof steps, "%llu", (unsigned long long)(st.step + 100));
        const char *kv_fmt[] = {"opt", "sgd", "format", "bf16", "rounding", "rn", "lr",
                                cases[k].lr, "a", cases[k].a, "xstar", cases[k].xstar, "x0",
                                cases[k].x0, "steps", steps, "log-every", "1", NULL};
        const char *kv_st[] = {"opt", "sgd", "strategy", "bf16-rn", "lr", cases[k].lr, "a",
                               cases[k].a, "xstar", cases[k].xstar, "x0", cases[k].x0,
                               "steps", steps, "log-every", "1", NULL};
        rows r;
        srl_err e;
        CHECK(run(&r, "quad1d", bf16g ? kv_st : kv_fmt, 1, NULL, &e, NULL, NULL) == SRL_OK,
              "run: %s", e.msg);
        const double x = last(&r, "x");
        CHECK(x == st.x, "case %zu: the run stalls at %.17g, the iterated map at %.17g", k, x,
              st.x);
        CHECK(col(&r, st.step, "x") == st.x && col(&r, st.step - 1, "x") != st.x,
              "case %zu: stall step %llu", k, (unsigned long long)st.step);
        CHECK(last(&r, "lost_update_frac") == 1, "case %zu: frozen", k);
        /* the formula's band: inside the zone, within one spacing of its edge */
        const double D = srl_t05_stall_distance(xs, lr, a, bf16);
        const double ulp = srl_format_ulp(bf16, xs);
        const double dist = fabs(x - xs);
        /* with a bf16 gradient, |RN(g) - g| <= 2^-9 |g| moves the freeze edge by D 2^-9 */
        const double slack = bf16g ? D * 0x1p-9 : 0;
        CHECK(dist <= D + slack && dist >= D - ulp - slack, "case %zu: distance %.9g outside "
              "[D - ulp, D] = [%.9g, %.9g]", k, dist, D - ulp, D);
        CHECK(last(&r, "dist_to_opt") == dist, "dist_to_opt column");
        drop(&r);
    }
    GROUP("T05: bf16 rn stalls exactly at the iterated map's fixed point, within [D-ulp, D]",
          before);
}

/* ---- 2. fp32 lsq: the unit-roundoff bound at the fixed point ---- */

typedef struct keep_x {
    double x[64];
    size_t d;
} keep_x;

static int grab_x(void *arg, const srl_weights *W, uint64_t t, const srl_step_stats *st)
{
    (void)t;
    (void)st;
    keep_x *k = arg;
    k->d = W->p[0].n;
    srl_weights_values(k->x, W, 0);
    return 0;
}

static void test_lsq_fp32(void)
{
    const long before = srl_test_failures;
    double lmin, lmax, xsn;
    srl_err e;
    const char *kvp[] = {"samples", "200", "d", "20", NULL};
    srl_config *c = cfg_of(kvp);
    CHECK(srl__convex_spectrum("lsq", c, &lmin, &lmax, &xsn, &e) == SRL_OK, "%s", e.msg);
    srl_config_free(c);
    char lr_s[40];
    const double lr = 1 / lmax;
    snprintf(lr_s, sizeof lr_s, "%.17g", lr);
    /* exact GD contracts the gap by (1 - lmin/lmax)^2 per step at least; 3000 steps leave
     * far less than the bound below */
    const char *kv[] = {"samples", "200", "d", "20", "strategy", "fp32", "opt", "sgd", "lr", lr_s,
                        "steps", "3000", "log-every", "1000", NULL};
    rows r;
    keep_x kx;
    CHECK(run(&r, "lsq", kv, 7, NULL, &e, grab_x, &kx) == SRL_OK, "%s", e.msg);
    /* At a fixed point every coordinate satisfies fl(x_i - fl(lr32 * fl32(g_i))) = x_i, which
     * needs |fl(lr32 fl32(g_i))| <= ulp(x_i)/2 <= u |x_i|; with lr32 >= lr (1 - u) and each
     * rounding losing at most a factor (1 - u): |g_i| <= u |x_i| / (lr (1 - u)^3). Hence
     *   ||g||_2 <= u ||x||_2 / (lr (1 - u)^3)   and   f - f* = g^T H^-1 g / 2 <= ||g||^2 / (2 lmin).
     * The binary64 gradient (compensated sums) and x* (QR, relative error ~ kappa 2^-53) change
     * these by far less than the factor 1 + 2^-20 allowed. */
    const double u = 0x1p-24;
    double xn = 0;
    for (size_t i = 0; i < kx.d; i++)
        xn += kx.x[i] * kx.x[i];
    xn = sqrt(xn);
    const double gb = u * xn / (lr * pow(1 - u, 3)) * (1 + 0x1p-20);
    const double fb = gb * gb / (2 * lmin) * (1 + 0x1p-20);
    CHECK(col(&r, r.n - 2, "loss") == last(&r, "loss"), "a fixed point is reached (steps 2000 "
          "and 3000 agree)");
    CHECK(last(&r, "grad_norm") <= gb, "grad_norm %g > bound %g", last(&r, "grad_norm"), gb);
    CHECK(last(&r, "loss_gap") <= fb && last(&r, "loss_gap") >= 0, "loss_gap %g outside [0, %g]",
          last(&r, "loss_gap"), fb);
    printf("  lsq fp32: loss_gap %.3g <= bound %.3g; grad_norm %.3g <= %.3g (kappa %.3g)\n",
           last(&r, "loss_gap"), fb, last(&r, "grad_norm"), gb, lmax / lmin);
    drop(&r);
    GROUP("fp32 on lsq reaches f* within its unit roundoff bound", before);
}

/* ---- 2b. grad-compute=kernels ---- */

static void test_kernels_gradient(void)
{
    const long before = srl_test_failures;
    const char *probs[] = {"lsq", "logreg"};
    for (int p = 0; p < 2; p++) {
        /* everything binary64, kernels in binary64: the same gradient up to the order of the
         * sums (relative ~ N 2^-53 per step), so the runs agree to far better than 1e-9 */
        const char *k64[] = {"strategy", "custom", "param-format", "fp64", "grad-format", "fp64",
                             "state-format", "fp64", "update-arith", "fp64", "lr", "0.5",
                             "steps", "100", "log-every", "100", "accum", "prod=fp64:rn,acc=fp64:rn",
                             "grad-compute", "kernels", NULL};
        rows a, b, c, c2;
        srl_err e;
        CHECK(run(&a, probs[p], k64, 3, NULL, &e, NULL, NULL) == SRL_OK, "%s", e.msg);
        k64[19] = "binary64";
        CHECK(run(&b, probs[p], k64, 3, NULL, &e, NULL, NULL) == SRL_OK, "%s", e.msg);
        CHECK(fabs(last(&a, "loss") - last(&b, "loss")) <= 1e-9 * last(&b, "loss"),
              "%s: kernels fp64 loss %.17g, binary64 %.17g", probs[p], last(&a, "loss"),
              last(&b, "loss"));
        /* a bf16 accumulation with sr: different, finite, reproducible */
        const char *klo[] = {"strategy", "bf16-sr", "lr", "0.5", "steps", "100", "log-every",
                             "100", "accum", "prod=bf16:rn,acc=bf16:sr", "grad-compute",
                             "kernels", NULL};
        CHECK(run(&c, probs[p], klo, 3, NULL, &e, NULL, NULL) == SRL_OK, "%s", e.msg);
        CHECK(run(&c2, probs[p], klo, 3, NULL, &e, NULL, NULL) == SRL_OK, "%s", e.msg);
        CHECK(isfinite(last(&c, "loss")) && last(&c, "loss") != last(&b, "loss") &&
                  last(&c, "loss") == last(&c2, "loss"),
              "%s: bf16 kernels loss %.17g", probs[p], last(&c, "loss"));
        drop(&a);
        drop(&b);
        drop(&c);
        drop(&c2);
    }
    const char *kbad[] = {"grad-compute", "gpu", NULL};
    rows r;
    srl_err e;
    CHECK(run(&r, "lsq", kbad, 1, NULL, &e, NULL, NULL) != SRL_OK &&
              !strncmp(e.msg, "grad-compute:", 13),
          "bad grad-compute: %s", e.msg);
    drop(&r);
    GROUP("grad-compute=kernels: binary64 kernels agree with binary64; bf16 ones reproducible",
          before);
}

/* ---- 3 and 9. weight decay (T08) ---- */

static void test_decay_rn(void)
{
    const long before = srl_test_failures;
    const char *x0s[] = {"1", "1.7", "-0.3"};
    for (int k = 0; k < 3; k++) {
        const char *kv[] = {"a", "0", "xstar", "0", "x0", x0s[k], "opt", "adamw", "wd", "0.1",
                            "lr", "0.001", "strategy", "bf16-rn", "steps", "500", "log-every",
                            "1", NULL};
        CHECK(0.1 * 0.001 < srl_t08_threshold(srl_format_find("bf16")), "lr wd below 2^-9");
        rows r;
        srl_err e;
        CHECK(run(&r, "quad1d", kv, 3, NULL, &e, NULL, NULL) == SRL_OK, "%s", e.msg);
        const double xs = srl_round(atof(x0s[k]), srl_format_find("bf16"), SRL_ROUND_RN, NULL);
        for (size_t i = 0; i < r.n; i++) {
            CHECK(col(&r, i, "x") == xs, "x0=%s step %zu: x = %.9g", x0s[k], i, col(&r, i, "x"));
            if (i)
                CHECK(col(&r, i, "lost_update_frac") == 1, "every decay step lost");
        }
        drop(&r);
    }
    GROUP("T08: weight decay alone under bf16-rn (lr wd < 2^-9) leaves the weight unchanged",
          before);
}

static void test_decay_sr(void)
{
    const long before = srl_test_failures;
    const int N = (int)srl_test_n(1000), T = 500;
    const double lr = 0.001, wd = 0.1, x0 = 1.0;
    const char *kv[] = {"a", "0", "xstar", "0", "x0", "1", "opt", "adamw", "wd", "0.1", "lr",
                        "0.001", "strategy", "bf16-sr", "steps", "500", "log-every", "500",
                        NULL};
    double sum = 0;
    for (int s = 0; s < N; s++) {
        rows r;
        srl_err e;
        CHECK(run(&r, "quad1d", kv, 1000 + (uint64_t)s, NULL, &e, NULL, NULL) == SRL_OK, "%s",
              e.msg);
        sum += last(&r, "x");
        drop(&r);
    }
    const double mean = sum / N, want = x0 * pow(1 - lr * wd, T);
    /* x stays in (0.9, 1]: each write's SR variance <= (2^-8)^2 / 4, the decay factor < 1, so
     * Var(x_T) <= T 2^-16 / 4. Normal quantile at 1 - 1e-6 / 2. The fp32 arithmetic's bias is
     * below T * 3u |x| (three roundings per step) = 1e-4 of the tolerance and is added. */
    const double sd = sqrt(T * 0x1p-16 / 4 / N);
    const double tol = gsl_cdf_ugaussian_Pinv(1 - 0.5e-6) * sd + T * 3 * 0x1p-24;
    CHECK(fabs(mean - want) <= tol, "mean x_T %.9g, predicted %.9g, tolerance %.3g (N %d)", mean,
          want, tol, N);
    CHECK(x0 - want > 5 * tol, "the test can tell decay from no decay");
    printf("  decay under bf16-sr: mean %.6f, x0 (1 - lr wd)^T = %.6f, tolerance %.2g\n", mean,
           want, tol);
    GROUP("T08: weight decay under bf16-sr is applied in mean", before);
}

/* ---- 4. values of the format after every step ---- */

typedef struct fmt_check {
    long steps, bad;
    char what[256];
} fmt_check;

static int check_formats(void *arg, const srl_weights *W, uint64_t t, const srl_step_stats *st)
{
    (void)st;
    fmt_check *c = arg;
    c->steps++;
    for (size_t j = 0; j < W->set.count; j++) {
        size_t bad;
        if (!srl_tensor_check(&W->set.t[j], &bad)) {
            if (!c->bad)
                snprintf(c->what, sizeof c->what, "step %llu: %.60s[%zu] is not a value of %.60s",
                         (unsigned long long)t, W->set.t[j].name, bad, W->set.t[j].fmt.name);
            c->bad++;
        }
    }
    return 0;
}

static void test_formats_held(void)
{
    const long before = srl_test_failures;
    const char *const cases[][18] = {
        {"strategy", "fp32", NULL},
        {"strategy", "mp", NULL},
        {"strategy", "bf16-rn", NULL},
        {"strategy", "bf16-sr", NULL},
        {"strategy", "bf16-sr-exact", NULL},
        {"strategy", "bf16-kahan", NULL},
        {"strategy", "custom", "param-format", "fp16", "param-rounding", "sr", "grad-format",
         "e5m2", "grad-rounding", "sr:r=3", "m-format", "e4m3", "m-rounding", "sr", "v-format",
         "fp16", "v-rounding", "sr"},
        {"strategy", "custom", "master-format", "fp32", "param-format", "e4m3",
         "param-rounding", "rn", "m-format", "bf16", "v-format", "fp16", "v-rounding", "rz"},
        {"strategy", "custom", "kahan", "on", "comp-format", "fp16", "param-format", "bf16",
         "param-rounding", "sr:r=7", "update-arith", "fp64", "state-format", "fp64"},
    };
    const char *opts[] = {"adamw", "momentum"};
    for (size_t k = 0; k < sizeof cases / sizeof *cases; k++)
        for (int o = 0; o < 2; o++) {
            const char *kv[40];
            size_t n = 0;
            for (size_t i = 0; i < 18 && cases[k][i]; i++)
                kv[n++] = cases[k][i];
            const char *rest[] = {"opt", opts[o], "d", "300", "kappa", "10", "lr", "0.01", "wd",
                                  "0.01", "steps", "40", "log-every", "40", NULL};
            for (size_t i = 0; rest[i]; i++)
                kv[n++] = rest[i];
            kv[n] = NULL;
            fmt_check fc = {0, 0, ""};
            rows r;
            srl_err e;
            CHECK(run(&r, "quadratic", kv, 5, NULL, &e, check_formats, &fc) == SRL_OK, "%s",
                  e.msg);
            CHECK(fc.steps == 40 && fc.bad == 0, "case %zu (%s): %s", k, opts[o], fc.what);
            drop(&r);
        }
    GROUP("every stored tensor holds values of its format after every step", before);
}

/* ---- 5. T09: the second moment ratchet ---- */

typedef struct vtrack {
    double vprev;
    long rises, falls, bad, nearmiss;
    char what[200];
} vtrack;

static int track_v(void *arg, const srl_weights *W, uint64_t t, const srl_step_stats *st)
{
    (void)st;
    vtrack *k = arg;
    double v, g;
    srl_tensor_get_d(&v, W->p[0].v, 0, 1);
    srl_tensor_get_d(&g, W->p[0].g, 0, 1);
    const double vp = k->vprev;
    k->vprev = v;
    if (t == 1 || !(vp > 0))
        return 0;
    if (v < vp)
        k->falls++;
    if (v > vp)
        k->rises++;
    srl_t09 p;
    if (srl_t09_second_moment(&p, vp, 0.999, srl_format_find("bf16")) != SRL_OK)
        return 0;
    /* The fp32 update v' = b2 v + (c2 g) g carries at most 4 roundings (hyper-parameters
     * included): |error| <= 4u (b2 v + c2 g^2), which moves the threshold on g^2 by at most
     * 4u (b2 v + c2 g^2) / c2. */
    const double u = 0x1p-24, c2 = 0.001;
    const double margin = 4 * u * (0.999 * vp + c2 * g * g) / c2 * 1.01;
    const double thr = p.rise_ratio * vp;
    if (fabs(g * g - thr) <= margin) {
        k->nearmiss++;
        return 0;
    }
    if ((v > vp) != (g * g > thr)) {
        if (!k->bad)
            snprintf(k->what, sizeof k->what, "step %llu: v %a -> %a with g^2 = %a, threshold %a",
                     (unsigned long long)t, vp, v, g * g, thr);
        k->bad++;
    }
    return 0;
}

static void test_second_moment(void)
{
    const long before = srl_test_failures;
    const char *kv[] = {"a", "0", "opt", "adam", "beta2", "0.999", "strategy", "bf16-rn",
                        "grad-noise", "1", "steps", "3000", "log-every", "3000", NULL};
    vtrack k;
    memset(&k, 0, sizeof k);
    rows r;
    srl_err e;
    CHECK(run(&r, "quad1d", kv, 11, NULL, &e, track_v, &k) == SRL_OK, "%s", e.msg);
    CHECK(k.falls == 0, "bf16 rn v decreased %ld times", k.falls);
    CHECK(k.bad == 0, "%ld steps contradict the rise threshold: %s", k.bad, k.what);
    CHECK(k.rises > 10, "v rose %ld times (the test exercises rises)", k.rises);
    printf("  T09 bf16-rn: %ld rises, %ld falls, %ld steps within the arithmetic margin\n",
           k.rises, k.falls, k.nearmiss);
    drop(&r);
    /* the same in fp32: v does fall (so the check above can fail) */
    const char *kv32[] = {"a", "0", "opt", "adam", "beta2", "0.999", "strategy", "fp32",
                          "grad-noise", "1", "steps", "3000", "log-every", "3000", NULL};
    memset(&k, 0, sizeof k);
    CHECK(run(&r, "quad1d", kv32, 11, NULL, &e, track_v, &k) == SRL_OK, "%s", e.msg);
    CHECK(k.falls > 1000, "fp32 v falls %ld times", k.falls);
    drop(&r);
    GROUP("T09: the bf16 rn second moment never decreases; it rises iff g^2 > threshold",
          before);
}

/* ---- 6. divergence ---- */

static void test_divergence(void)
{
    const long before = srl_test_failures;
    const char *kv[] = {"opt", "sgd", "lr", "3", "steps", "1000", "log-every", "100", NULL};
    rows r;
    srl_run_report rep;
    srl_err e;
    CHECK(run(&r, "quad1d", kv, 1, &rep, &e, NULL, NULL) == SRL_OK, "%s", e.msg);
    CHECK(rep.diverged && strstr(rep.note, "diverged at step"), "report: %s", rep.note);
    CHECK(r.n >= 2 && last(&r, "status") == 1 && last(&r, "step") < 1000 &&
              last(&r, "step") > 100,
          "last row: status %g step %g", last(&r, "status"), last(&r, "step"));
    for (size_t i = 0; i + 1 < r.n; i++)
        CHECK(col(&r, i, "status") == 0, "rows before are ok");
    drop(&r);
    /* an e4m3 gradient overflows (448 is its largest finite): NaN at step 1 */
    const char *kv2[] = {"opt", "sgd", "x0", "1000", "grad-format", "e4m3", "steps", "10", NULL};
    CHECK(run(&r, "quad1d", kv2, 1, &rep, &e, NULL, NULL) == SRL_OK, "%s", e.msg);
    CHECK(rep.diverged && strstr(rep.note, "gradient") && last(&r, "step") == 1,
          "gradient overflow: %s", rep.note);
    drop(&r);
    GROUP("a diverging run stops with a 'diverged' row and returns SRL_OK", before);
}

/* ---- 7. bad input ---- */

static void bad(const char *problem, const char *const *kv, const char *key, const char *why)
{
    rows r;
    srl_err e;
    const int st = run(&r, problem, kv, 1, NULL, &e, NULL, NULL);
    CHECK(st != SRL_OK && strstr(e.msg, key) && r.begun == 0 && r.n == 0,
          "%s: status %d, message '%s', %zu rows", why, st, e.msg, r.n);
    drop(&r);
}

static void test_bad_input(void)
{
    const long before = srl_test_failures;
    const char *k1[] = {"strategy", "bf16-fast", NULL};
    bad("quad1d", k1, "strategy", "unknown strategy");
    const char *k2[] = {"opt", "lion", NULL};
    bad("quad1d", k2, "opt", "unknown optimizer");
    const char *lrs[] = {"0", "-0.1", "nan", "inf", "abc"};
    for (int i = 0; i < 5; i++) {
        const char *k3[] = {"lr", lrs[i], NULL};
        bad("quad1d", k3, "lr", "bad lr");
    }
    const char *k4[] = {"kappa", "0.5", NULL};
    bad("quadratic", k4, "kappa", "kappa < 1");
    const char *k5[] = {"format", "e4m3", "x0", "1000", NULL};
    bad("quad1d", k5, "cannot hold", "e4m3 cannot hold x0 = 1000");
    const char *k6[] = {"strategy", "bf16-rn", "param-format", "fp64", NULL};
    bad("quad1d", k6, "param-format", "fp32 arithmetic with fp64 weights");
    const char *k7[] = {"frobnicate", "1", NULL};
    bad("quad1d", k7, "frobnicate", "unknown key");
    const char *k8[] = {"samples", "5", "d", "20", NULL};
    bad("lsq", k8, "samples", "fewer samples than unknowns");
    const char *k9[] = {"l2", "0", NULL};
    bad("logreg", k9, "l2", "l2 = 0");
    const char *k10[] = {"grad-noise", "-1", NULL};
    bad("quad1d", k10, "grad-noise", "negative noise");
    const char *k11[] = {"log-every", "0", NULL};
    bad("quad1d", k11, "log-every", "log-every 0");
    GROUP("bad input: refused with a message naming the key, nothing emitted", before);
}

/* ---- 8. T05 under SR: the mean iterate and the floor ---- */

typedef struct traj {
    size_t K;
    double sum[16], sumsq[16];
} traj;

static void test_sr_mean(const char *strategy, const char *grad_format)
{
    const long before = srl_test_failures;
    const srl_format *bf16 = srl_format_find("bf16");
    const int N = (int)srl_test_n(3000);
    const double a = 1, xs = 0.3, x0 = 1, lr = 0.01;
    const char *kv[] = {"opt", "sgd", "strategy", strategy, "grad-format", grad_format, "a", "1",
                        "xstar", "0.3", "x0", "1", "lr", "0.01", "steps", "400", "log-every",
                        "50", NULL};
    traj tr;
    memset(&tr, 0, sizeof tr);
    for (int s = 0; s < N; s++) {
        rows r;
        srl_err e;
        CHECK(run(&r, "quad1d", kv, 500 + (uint64_t)s, NULL, &e, NULL, NULL) == SRL_OK, "%s",
              e.msg);
        tr.K = r.n;
        for (size_t i = 0; i < r.n && i < 16; i++) {
            tr.sum[i] += col(&r, i, "x");
            tr.sumsq[i] += col(&r, i, "x") * col(&r, i, "x");
        }
        drop(&r);
    }
    /* Var(x_t) <= sum_{j<t} (1 - lr a)^(2j) q^2/4 <= (q^2/4) / (1 - (1 - lr a)^2), q = 2^-8 the
     * largest spacing the iterates (in (0.29, 1]) are rounded on. Bonferroni over the K logged
     * steps at overall level 1e-6. */
    const double q = 0x1p-8, c = 1 - lr * a;
    const double var = q * q / 4 / (1 - c * c);
    const double z = gsl_cdf_ugaussian_Pinv(1 - 1e-6 / (2.0 * (double)tr.K));
    /* Deterministic biases: the fp32 arithmetic (3 roundings per step, relative u, accumulated
     * through the contraction: <= 3u (|x| + |s|) / (lr a)); with a bf16 gradient, the rounded
     * gradient's error |RN(g) - g| <= 2^-9 |g| adds lr 2^-9 |g_k| per step, and sum_k lr |g_k|
     * <= |x0 - x*| on this monotone path: the bias is at most 2^-9 |x0 - x*|. */
    const double b32 = 3 * 0x1p-24 * 1.1 / (lr * a);
    const double bg = strcmp(grad_format, "bf16") ? 0 : 0x1p-9 * fabs(x0 - xs);
    double worst = 0;
    for (size_t i = 0; i < tr.K; i++) {
        const uint64_t t = i * 50;
        const double mean = tr.sum[i] / N;
        const double gd = srl_t05_gd_iterate(a, xs, x0, lr, t);
        const double tol = z * sqrt(var / N) + b32 + bg;
        const double sv = tr.sumsq[i] / N - mean * mean;
        CHECK(fabs(mean - gd) <= tol, "%s grad %s t=%llu: mean x %.9g, GD %.9g, |diff| %.3g > "
              "tolerance %.3g (N %d)", strategy, grad_format, (unsigned long long)t, mean, gd,
              fabs(mean - gd), tol, N);
        CHECK(sv <= var * 1.2 + 1e-12, "sample variance %.3g above the bound %.3g", sv, var);
        if (fabs(mean - gd) / tol > worst)
            worst = fabs(mean - gd) / tol;
    }
    /* a wrong write (rn) would sit at the stall distance from x*: far outside */
    CHECK(srl_t05_stall_distance(xs, lr, a, bf16) > 10 * (z * sqrt(var / N) + b32 + bg),
          "the test can tell rn from sr");
    printf("  T05 %s (grad %s): worst |mean - GD| / tolerance %.3f over %zu steps, N %d\n",
           strategy, grad_format, worst, tr.K, N);
    GROUP(strcmp(grad_format, "bf16") ? "T05: bf16-sr (fp32 gradient) mean iterate = binary64 GD"
                                      : "T05: bf16-sr mean iterate = binary64 GD (+ bf16 "
                                        "gradient bias bound)",
          before);
}

static void test_sr_floor(void)
{
    const long before = srl_test_failures;
    const srl_format *bf16 = srl_format_find("bf16");
    const int N = (int)srl_test_n(2000);
    const double xs = 0.3, a = 1;
    double g0, g1;
    srl_t05_neighbours(&g0, &g1, xs, bf16);
    const double floor = srl_t05_sr_floor(a, xs, bf16);
    /* stationary law on {g0, g1}: P(g1) = (x* - g0)/(g1 - g0); loss_gap takes the values
     * a/2 (x* - g0)^2 and a/2 (g1 - x*)^2 */
    const double pi1 = (xs - g0) / (g1 - g0);
    const double l0 = 0.5 * a * (xs - g0) * (xs - g0), l1 = 0.5 * a * (g1 - xs) * (g1 - xs);
    const double sd = sqrt(pi1 * (1 - pi1)) * fabs(l1 - l0) / sqrt((double)N);
    const double z = gsl_cdf_ugaussian_Pinv(1 - 1e-6 / 4);
    const char *lrs[] = {"0.01", "0.1"};
    for (int k = 0; k < 2; k++) {
        /* mixing time ~ 1 / (lr a): 4000 steps at lr 0.01 is 40 of them */
        const char *kv[] = {"opt", "sgd", "strategy", "bf16-sr", "grad-format", "fp32", "a", "1",
                            "xstar", "0.3", "x0", "1", "lr", lrs[k], "steps", "4000",
                            "log-every", "4000", NULL};
        double sum = 0;
        for (int s = 0; s < N; s++) {
            rows r;
            srl_err e;
            CHECK(run(&r, "quad1d", kv, 9000 + (uint64_t)s, NULL, &e, NULL, NULL) == SRL_OK,
                  "%s", e.msg);
            const double x = last(&r, "x");
            CHECK(x == g0 || x == g1, "lr %s seed %d: x = %.9g is not a neighbour of x*", lrs[k],
                  s, x);
            sum += last(&r, "loss_gap");
            drop(&r);
        }
        const double mean = sum / N;
        CHECK(fabs(mean - floor) <= z * sd * 1.0001, "lr %s: mean excess %.6g, floor %.6g, "
              "tolerance %.3g", lrs[k], mean, floor, z * sd);
        printf("  T05 floor lr %s: mean loss_gap %.4g, predicted %.4g (+- %.2g)\n", lrs[k], mean,
               floor, z * sd);
    }
    GROUP("T05: the SR excess-loss floor (a/2)(x*-g0)(g1-x*), the same at lr 0.01 and 0.1",
          before);
}

/* ---- 10. gradient noise ---- */

static void test_noise(void)
{
    const long before = srl_test_failures;
    srl_train_config tc;
    srl_config *c = srl_config_new();
    srl_err e;
    if (srl_config_set(c, "grad-noise", "0.5"))
        abort();
    CHECK(srl_train_config_from(&tc, c, &e) == SRL_OK, "%s", e.msg);
    srl_config_free(c);
    const size_t n = (size_t)srl_test_n(200000);
    double *g = calloc(n, sizeof *g), *h = calloc(n, sizeof *h);
    srl_train_add_noise(g, n, 0, n, 1, &tc);
    srl_train_add_noise(h, n / 2, n / 2, n, 1, &tc); /* the second half, addressed by offset */
    CHECK(!memcmp(h, g + n / 2, n / 2 * sizeof *g), "noise is addressed by (t, element)");
    double s = 0, ss = 0;
    for (size_t i = 0; i < n; i++)
        s += g[i], ss += g[i] * g[i];
    const double sigma2 = 0.25, mean = s / (double)n, var = ss / (double)n - mean * mean;
    const double zm = gsl_cdf_ugaussian_Pinv(1 - 0.5e-6) * sqrt(sigma2 / (double)n);
    CHECK(fabs(mean) <= zm, "noise mean %g (tolerance %g)", mean, zm);
    const double lo = gsl_cdf_chisq_Pinv(0.5e-6, (double)n - 1) / (double)n * sigma2;
    const double hi = gsl_cdf_chisq_Qinv(0.5e-6, (double)n - 1) / (double)n * sigma2;
    CHECK(var >= lo && var <= hi, "noise variance %g outside [%g, %g]", var, lo, hi);
    memset(h, 0, n * sizeof *h);
    srl_train_add_noise(h, n, 0, n, 2, &tc);
    CHECK(memcmp(h, g, n * sizeof *g) != 0, "step 2 draws other noise");
    free(g);
    free(h);
    GROUP("gradient noise: mean 0, variance sigma^2, addressed by (seed, step, element)", before);
}

int main(int argc, char **argv)
{
    gsl_set_error_handler_off();
    const char *which = argc > 1 ? argv[1] : "all";
    const bool all = !strcmp(which, "all");
    if (all || !strcmp(which, "unit")) {
        test_rn_stall();
        test_lsq_fp32();
        test_kernels_gradient();
        test_decay_rn();
        test_formats_held();
        test_second_moment();
        test_divergence();
        test_bad_input();
    }
    if (all || !strcmp(which, "stat")) {
        test_sr_mean("bf16-sr", "fp32");
        test_sr_mean("bf16-sr", "bf16");
        test_sr_floor();
        test_decay_sr();
        test_noise();
    }
    TEST_END();
}
