/* src/problems/sum.c: the summation experiments of `srlab run` (docs/design.md §8 `sum`, §9 items 3-4):
 *
 *   harmonic  s_1 = t_1, s_k = fl(s_{k-1} + t_k) with t_k = fl(1/k): every term is the exact 1/k
 *             rounded once into the format with the mode (srl_op_apply(SRL_DIV, 1, k)), every
 *             addition rounded once the same way. Rows at log-spaced k: the partial sum, the
 *             harmonic number H_k, the relative error, the exact sum of the rounded terms, and
 *             the term at which the sum stopped changing for good (theory T03 predicts it
 *             exactly under rn; under sr:r=R it is the first term from which no term can move
 *             the sum).
 *   sum       n random terms (values of the accumulator format), summed by srl_sum with any
 *             accumulation config for a log-spaced grid of k <= n (the first k terms each time):
 *             |s - S| / sum|x_i| beside gamma_{h} and the probabilistic SR bound (T03).
 *   matvec    y = A x with A m-by-k, column by column as axpy updates y += x_j A[:, j]
 *             (srl_axpy), or row by row as inner products (srl_gemv): the normwise and
 *             componentwise backward errors beside n u, sqrt(n) u and the bounds of T04.
 *
 * Exact references are computed with GNU MPFR. Sums of format values (the sum of the rounded
 * harmonic terms, the prefix sums of `sum`, the row sums of `matvec`) are exact: the MPFR
 * precision spans every bit from the largest possible sum down to the smallest spacing of the
 * format (squared for products), and each addition's ternary value is checked. H_k is not a
 * finite binary number: it is accumulated at 256 bits, each of the 2k operations rounded to
 * nearest, so |computed - H_k| <= 2k 2^-256 H_k (< 2^-200 H_k for k <= 2^40), far below the 2^-53
 * of the binary64 columns. Reported values are exact quantities rounded once to binary64 (ratios:
 * a ratio of two such values, within 2^-51 relatively).
 *
 * Randomness (run.h): streams derive from the config's seed (stream 0 of the seed) with purpose
 * keys, so grid points and runs that share a seed share their data:
 *   harmonic  key "harmonic": the roundings in order, term k's then the k-th addition's (the
 *             first term's rounding uses draw 0; the sum starts from it, no addition).
 *   sum       data: key "sum data", one draw per term (uniform, signed), two (normal), none
 *             (const:T);
 *             roundings of grid point k: key "sum rounding", then child key k; srl_sum's own
 *             layout from draw 0.
 *   matvec    A: key "matvec A", column-major entry (i, j) of the m_max-by-n matrix in order;
 *             x: key "matvec x"; roundings of grid point k: key "matvec rounding", then child
 *             key k, consumed by the k axpy calls in order (or by srl_gemv).
 * Nothing here depends on the thread count: the runners are serial and the kernels they call
 * are thread-invariant. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <mpfr.h>

#include "problems/runners.h"
#include "srlab/kernels.h"
#include "srlab/number.h"
#include "srlab/ops.h"
#include "srlab/rng.h"
#include "srlab/theory.h"

/* ---- shared helpers ---- */

#define HARMONIC_N_MAX (UINT64_C(1) << 40)
#define SUM_N_MAX (UINT64_C(1) << 32)
#define MATVEC_N_MAX (UINT64_C(1) << 24)
#define POINTS_MAX 1000

/* A count key in [min, max]; the message names the key. */
static int read_count(const srl_config *cfg, const char *key, const char *def, uint64_t min,
                      uint64_t max, uint64_t *out, srl_err *err)
{
    int st = srl_config_u64(cfg, key, def, out, err);
    if (st)
        return st;
    if (*out < min || *out > max)
        return srl_err_set(err, SRL_ERANGE, "%s: %llu is out of range (%llu to %llu)", key,
                           (unsigned long long)*out, (unsigned long long)min,
                           (unsigned long long)max);
    return SRL_OK;
}

static int read_lambda(const srl_config *cfg, double *lambda, srl_err *err)
{
    int st = srl_config_double(cfg, "lambda", "3", lambda, err);
    if (st)
        return st;
    if (!(isfinite(*lambda) && *lambda > 0))
        return srl_err_set(err, SRL_ERANGE, "lambda: '%s' must be a positive finite number",
                           srl_config_get(cfg, "lambda"));
    return SRL_OK;
}

/* Half of the machine's physical memory: the most a run may ask for. Checked before allocating,
 * so that an impossible size is refused with a message instead of failing (or being killed)
 * midway. It decides only whether a run starts, never what it computes. */
static double memory_budget(void)
{
    const long pages = sysconf(_SC_PHYS_PAGES), size = sysconf(_SC_PAGESIZE);
    if (pages <= 0 || size <= 0)
        return 1e18; /* unknown: let malloc decide */
    return 0.5 * (double)pages * (double)size;
}

static const char *human_bytes(char *buf, size_t len, double b)
{
    static const char *const unit[] = {"B", "KiB", "MiB", "GiB", "TiB", "PiB", "EiB"};
    int i = 0;
    while (b >= 1024 && i < 6) {
        b /= 1024;
        i++;
    }
    snprintf(buf, len, "%.3g %s", b, unit[i]);
    return buf;
}

static int check_memory(double bytes, const char *key, const char *what, srl_err *err)
{
    const double budget = memory_budget();
    if (bytes <= budget)
        return SRL_OK;
    char a[32], b[32];
    return srl_err_set(err, SRL_ERANGE,
                       "%s: %s would need %s of memory, more than half of this machine's %s", key,
                       what, human_bytes(a, sizeof a, bytes), human_bytes(b, sizeof b, 2 * budget));
}

/* The log-spaced grid: k = round(10^(j/points)), j = 0, 1, ..., without repeats, then n. */
static uint64_t grid_next(uint64_t k, uint64_t n, uint64_t points, uint64_t *j)
{
    for (;;) {
        const double v = floor(pow(10.0, (double)*j / (double)points) + 0.5);
        if (v >= (double)n)
            return n > k ? n : 0;
        (*j)++;
        if (v > (double)k)
            return (uint64_t)v;
    }
}

/* The streams of a run: stream 0 of the seed, and a child for a purpose. */
static void purpose_stream(srl_rng *r, uint64_t seed, const char *purpose)
{
    srl_rng base;
    srl_rng_init(&base, SRL_RNG_DEFAULT, seed, 0);
    srl_rng_derive(r, &base, srl_hash_str(purpose));
}

static srl_value num(double x)
{
    srl_value v = {SRL_COL_NUM, x, 0, NULL};
    return v;
}

static srl_value text(const char *str)
{
    srl_value v = {SRL_COL_STR, 0.0, 0, str};
    return v;
}

static srl_value integer(int64_t i)
{
    srl_value v = {SRL_COL_INT, 0.0, i, NULL};
    return v;
}

/* |a - b| / c rounded to binary64, with a - b exact (MPFR at the given precision); 0 when a = b
 * and c = 0. */
static double rel_diff(mpfr_srcptr a, double b, double c, mpfr_ptr tmp)
{
    mpfr_sub_d(tmp, a, b, MPFR_RNDN);
    const double d = fabs(mpfr_get_d(tmp, MPFR_RNDN));
    if (d == 0)
        return 0.0;
    return d / c;
}

/* The exact sum of values of f: enough bits to span the largest magnitude (below 2^top) down
 * to the smallest spacing of the format, 2^(emin - p + 1) (squared for products: 2 of them). */
static mpfr_prec_t exact_prec(const srl_format *f, int top, int factors)
{
    const long low = (long)factors * (f->emin - f->p + 1);
    return (mpfr_prec_t)(top - low + 8);
}

/* Add x (exactly representable in acc) to acc; false if MPFR had to round (a bug). */
static bool add_exact(mpfr_ptr acc, double x)
{
    return mpfr_add_d(acc, acc, x, MPFR_RNDN) == 0;
}

static int internal(srl_err *err, const char *what)
{
    return srl_err_set(err, SRL_EINVAL, "internal error: %s", what);
}

/* ---- harmonic ---- */

static const srl_param harmonic_params[] = {
    {"n", "1000", "number of terms, 1 <= n <= 2^40 (time grows linearly)"},
    {"format", "bf16", "format of every term and partial sum (a preset or p=P,emax=E,...)"},
    {"rounding", "rn", "mode of every term and every addition: rn, rna, rz, ru, rd, ro, sr, sr-eq, "
                       "sr:r=R"},
    {"points", "10", "rows per decade of k (1 to 1000), plus k = 1, the stagnation term and n"},
    {NULL, NULL, NULL},
};

/* The exact references of a harmonic run: H_k (256 bits; q holds 1/k), T the exact sum of the
 * rounded terms, tmp for differences. */
typedef struct harmonic_ref {
    mpfr_t H, T, tmp, q;
} harmonic_ref;

static void harmonic_ref_init(harmonic_ref *x, const srl_format *f, uint64_t n)
{
    /* Bits for the exact sum of the rounded terms: sums below 2^(emax+2), spacing of the
     * smallest term 2^(max(-ceil(log2 n), emin) - p + 1). */
    int cl = 0;
    while ((UINT64_C(1) << cl) < n)
        cl++;
    const int lowest = (-cl > f->emin ? -cl : f->emin) - f->p + 1;
    mpfr_init2(x->H, 256);
    mpfr_init2(x->q, 256);
    mpfr_init2(x->T, (mpfr_prec_t)(f->emax + 2 - lowest + 8));
    mpfr_init2(x->tmp, (mpfr_prec_t)(f->emax + 2 - lowest + 80));
    mpfr_set_zero(x->H, 1);
    mpfr_set_zero(x->T, 1);
}

/* Term k, rounded to t, into the references; false if the exact sum had to round (a bug). */
static bool harmonic_ref_add(harmonic_ref *x, uint64_t k, double t)
{
    mpfr_set_ui(x->q, (unsigned long)k, MPFR_RNDN); /* exact: k <= 2^40 */
    mpfr_ui_div(x->q, 1, x->q, MPFR_RNDN);
    mpfr_add(x->H, x->H, x->q, MPFR_RNDN);
    return add_exact(x->T, t);
}

/* Whether the sum prev = s_{k-1} (k > 1), which term k left unchanged iff `same`, can never move
 * again. Under a deterministic (monotone) mode, the first addition that leaves the sum unchanged
 * starts a permanent stagnation (T03): the terms never grow. Under sr:r=R the sum can no longer
 * move once even the largest possible term, RU(1/k), is below 2^-R ulp(s): the fraction truncated
 * to R bits is 0 (T02, T03). sr and sr-eq move with positive probability at every term: no
 * certain stagnation. */
static bool harmonic_stagnates(uint64_t k, double prev, bool same, const srl_format *f,
                               srl_rounding m)
{
    if (!srl_rounding_is_stochastic(m))
        return same;
    if (m.mode != SRL_SR_BITS)
        return false;
    const srl_rounding up = {SRL_RU, 0};
    return srl_op_apply(SRL_DIV, 1.0, (double)k, 0.0, f, up, NULL) <
           ldexp(srl_format_ulp(f, prev), -m.r);
}

static int harmonic_row(const srl_sink *out, uint64_t k, double t, double s, harmonic_ref *x,
                        uint64_t stagnation, uint64_t unchanged)
{
    const double Hk = mpfr_get_d(x->H, MPFR_RNDN);
    const srl_value v[8] = {integer((int64_t)k), num(t), num(s), num(Hk),
                            num(isfinite(s) ? rel_diff(x->H, s, Hk, x->tmp) : INFINITY),
                            num(mpfr_get_d(x->T, MPFR_RNDN)), integer((int64_t)stagnation),
                            integer((int64_t)unchanged)};
    return out->row(out->ctx, v);
}

static int run_harmonic(const srl_config *cfg, const srl_sink *out, srl_run_report *rep,
                        srl_err *err)
{
    uint64_t n, points, seed;
    srl_format f;
    srl_rounding m;
    int st;
    if ((st = read_count(cfg, "n", "1000", 1, HARMONIC_N_MAX, &n, err)) ||
        (st = srl_config_format(cfg, "format", "bf16", &f, err)) ||
        (st = srl_config_rounding(cfg, "rounding", "rn", &m, err)) ||
        (st = read_count(cfg, "points", "10", 1, POINTS_MAX, &points, err)) ||
        (st = srl_config_u64(cfg, "seed", "1", &seed, err)))
        return st;
    if (f.xmax < 1)
        return srl_err_set(err, SRL_ERANGE, "format: %s cannot hold the first term 1", f.name);

    static const char *const names[] = {"k", "term", "sum", "exact", "rel_err", "terms_sum",
                                        "stagnation", "unchanged"};
    static const srl_col_kind kinds[] = {SRL_COL_INT, SRL_COL_NUM, SRL_COL_NUM, SRL_COL_NUM,
                                         SRL_COL_NUM, SRL_COL_NUM, SRL_COL_INT, SRL_COL_INT};
    if ((st = out->begin(out->ctx, 8, names, kinds)))
        return st;

    srl_rng r;
    purpose_stream(&r, seed, "harmonic");
    harmonic_ref x;
    harmonic_ref_init(&x, &f, n);
    double s = 0, t = 0;
    uint64_t stagnation = 0, unchanged = 0, j = 0, next = 1;
    for (uint64_t k = 1; k <= n && !st; k++) {
        t = srl_op_apply(SRL_DIV, 1.0, (double)k, 0.0, &f, m, &r);
        const double prev = s;
        s = k == 1 ? t : srl_op_apply(SRL_ADD, s, t, 0.0, &f, m, &r);
        if (!harmonic_ref_add(&x, k, t)) {
            st = internal(err, "the exact sum of the terms rounded");
            break;
        }
        const bool same = k > 1 && s == prev;
        unchanged = same ? unchanged + 1 : 0;
        const bool first_stag = stagnation == 0 && k > 1 &&
                                harmonic_stagnates(k, prev, same, &f, m);
        if (first_stag)
            stagnation = k;
        const bool diverged = !isfinite(s);
        if (k == next || first_stag || k == n || diverged) {
            st = harmonic_row(out, k, t, s, &x, stagnation, unchanged);
            if (k == next)
                next = grid_next(k, n, points, &j);
        }
        if (diverged && !st) {
            rep->diverged = true;
            snprintf(rep->note, sizeof rep->note,
                     "the partial sum overflowed %s at k = %llu; the run stopped there", f.name,
                     (unsigned long long)k);
            break;
        }
    }
    mpfr_clears(x.H, x.T, x.tmp, x.q, (mpfr_ptr)0);
    return st;
}

/* ---- accumulation configs and data ---- */

/* The config of the `sum` and `matvec` runners: format/rounding for products and accumulation,
 * order and kahan, then the optional full spec `accum` over them (srl_accum_parse keeps what
 * it does not mention). */
static int read_accum(const srl_config *cfg, srl_accum *c, srl_err *err)
{
    srl_format f;
    srl_rounding m;
    bool kahan;
    int st;
    if ((st = srl_config_format(cfg, "format", "bf16", &f, err)) ||
        (st = srl_config_rounding(cfg, "rounding", "rn", &m, err)) ||
        (st = srl_config_bool(cfg, "kahan", "off", &kahan, err)))
        return st;
    *c = srl_accum_binary64();
    c->prod_fmt = c->acc_fmt = f;
    c->prod_mode = c->acc_mode = m;
    c->fma = false;
    c->kahan = kahan;
    const char *order = srl_config_get(cfg, "order");
    if (!order || !strcmp(order, "recursive")) {
        c->order = SRL_ORDER_RECURSIVE;
    } else if (!strcmp(order, "pairwise")) {
        c->order = SRL_ORDER_PAIRWISE;
    } else if (!strncmp(order, "blocked:", 8)) {
        char *end;
        const char *b = order + 8;
        unsigned long long K = (*b >= '0' && *b <= '9') ? strtoull(b, &end, 10) : 0;
        if (K == 0 || *end || K > SUM_N_MAX)
            return srl_err_set(err, SRL_EPARSE, "order: '%s' needs a block size from 1 to %llu "
                                                "(blocked:K)", order,
                               (unsigned long long)SUM_N_MAX);
        c->order = SRL_ORDER_BLOCKED;
        c->block = (size_t)K;
    } else {
        return srl_err_set(err, SRL_EPARSE, "order: unknown value '%s' (known: recursive, "
                                            "pairwise, blocked:K)", order);
    }
    const char *spec = srl_config_get(cfg, "accum");
    if (spec && *spec) {
        srl_err e2;
        if ((st = srl_accum_parse(c, spec, &e2)))
            return srl_err_set(err, st, "accum: %s", e2.msg);
    }
    if (c->kahan && c->order != SRL_ORDER_RECURSIVE)
        return srl_err_set(err, SRL_EINVAL, "kahan: Kahan summation is recursive; it does not "
                                            "combine with another order");
    return SRL_OK;
}

enum { DIST_UNIFORM = 0, DIST_SIGNED, DIST_NORMAL, DIST_CONST };
static const char *const dist_names[] = {"uniform", "signed", "normal", NULL};

/* sum's dist: a distribution of dist_names, or const:T, every term the constant T (a finite
 * number; rounded to nearest into the format like the random terms). */
static int sum_dist(const srl_config *cfg, int *dist, double *c, srl_err *err)
{
    const char *v = srl_config_get(cfg, "dist");
    if (v && !strncmp(v, "const:", 6)) {
        char why[SRL_NUMBER_WHY_LEN];
        if (srl_number_double(c, v + 6, SRL_NUMBER_FINITE, why) != SRL_OK)
            return srl_err_set(err, SRL_EPARSE, "dist: const:T needs a finite number T: '%s' %s",
                               v + 6, why);
        *dist = DIST_CONST;
        return SRL_OK;
    }
    int st = srl_config_choice(cfg, "dist", "uniform", dist_names, dist, err);
    if (st && v)
        srl_err_set(err, st, "dist: unknown value '%s' (known: uniform, signed, normal, const:T)",
                    v);
    return st;
}

/* n values of distribution `dist` from r (one draw each, two for normal), rounded to nearest
 * into f. */
static int gen_values(double *x, size_t n, int dist, const srl_format *f, srl_rng *r)
{
    for (size_t i = 0; i < n; i++) {
        switch (dist) {
        case DIST_UNIFORM: x[i] = srl_rng_uniform(r); break;
        case DIST_SIGNED: x[i] = 2 * srl_rng_uniform(r) - 1; break; /* exact: U has 53 bits */
        default: x[i] = srl_rng_normal(r); break;
        }
    }
    return srl_round_array(x, x, n, f, SRL_ROUND_RN, NULL);
}

/* The exponent e with |v| < 2^e (v finite, >= 0): the top of an exact accumulator. */
static int top_exponent(double v)
{
    int e;
    (void)frexp(v, &e);
    return e + 1;
}

/* The keys `sum` and `matvec` share: the size n and distribution dist (read by each runner, in
 * its order), then the accumulation, lambda, points and seed (read_kernel_keys). */
typedef struct kernel_keys {
    uint64_t n, points, seed;
    int dist;
    double lambda;
    srl_accum c;
} kernel_keys;

static int read_kernel_keys(const srl_config *cfg, kernel_keys *kk, srl_err *err)
{
    int st;
    if ((st = read_accum(cfg, &kk->c, err)) || (st = read_lambda(cfg, &kk->lambda, err)) ||
        (st = read_count(cfg, "points", "10", 1, POINTS_MAX, &kk->points, err)))
        return st;
    return srl_config_u64(cfg, "seed", "1", &kk->seed, err);
}

/* ---- sum ---- */

static const srl_param sum_params[] = {
    {"n", "1000", "largest number of terms, 1 <= n <= 2^32; rows at log-spaced k <= n, each the "
                  "sum of the first k terms"},
    {"dist", "uniform", "terms: uniform U[0,1), signed U[-1,1), normal N(0,1), or const:T (every "
                        "term the constant T, e.g. const:0.001), rounded to nearest into the "
                        "format"},
    {"format", "bf16", "format of the terms, the products and the accumulator"},
    {"rounding", "rn", "mode of every addition (and product)"},
    {"order", "recursive", "summation order: recursive, pairwise or blocked:K"},
    {"kahan", "off", "Kahan-compensated recursive summation: on or off"},
    {"accum", "", "a full accumulation spec applied over the keys above: prod=FMT:MODE,"
                  "acc=FMT:MODE[,fma=on|off][,order=...][,kahan=on|off][,join=FMT:MODE]; "
                  "the terms are "
                  "rounded into its accumulator format"},
    {"lambda", "3", "lambda of the probabilistic SR bound (> 0); it holds with probability "
                    "1 - 2 exp(-lambda^2/2)"},
    {"points", "10", "rows per decade of k (1 to 1000), plus k = 1 and k = n"},
    {NULL, NULL, NULL},
};

/* The rows of `sum`: at every grid point k, srl_sum of the first k terms of x (roundings from
 * the "sum rounding" stream's child k) against the exact prefix sums S_k and A_k = sum |x_i|. */
static int sum_rows(const kernel_keys *kk, const double *x, const srl_sink *out,
                    srl_run_report *rep, srl_err *err)
{
    const srl_accum *c = &kk->c;
    const uint64_t n = kk->n;
    char used[512];
    srl_accum_name(used, sizeof used, c);
    srl_rng rounding;
    purpose_stream(&rounding, kk->seed, "sum rounding");
    double maxabs = 0;
    for (size_t i = 0; i < n; i++)
        maxabs = fmax(maxabs, fabs(x[i]));
    const int top = top_exponent((double)n * maxabs);
    mpfr_t S, A, tmp;
    mpfr_inits2(exact_prec(&c->acc_fmt, top, 1), S, A, (mpfr_ptr)0);
    mpfr_init2(tmp, exact_prec(&c->acc_fmt, top, 1) + 64);
    mpfr_set_zero(S, 1);
    mpfr_set_zero(A, 1);
    const double P = srl_t03_sr_prob(kk->lambda);
    /* T03's SR bound is proved for the recursive order (a reference line for any mode there). */
    const bool sr_bound_applies = c->order == SRL_ORDER_RECURSIVE && !c->kahan;
    uint64_t done = 0, j = 0, overflow_k = 0;
    int st = SRL_OK;
    for (uint64_t k = 1; k && !st; k = grid_next(k, n, kk->points, &j)) {
        for (; done < k; done++) /* the exact prefix sums S_k and A_k */
            if (!add_exact(S, x[done]) || !add_exact(A, fabs(x[done]))) {
                st = internal(err, "an exact prefix sum rounded");
                break;
            }
        if (st)
            break;
        srl_rng r;
        srl_rng_derive(&r, &rounding, k);
        double s;
        if ((st = srl_sum(&s, x, (size_t)k, c, &r))) {
            srl_err_set(err, st, "srl_sum failed: %s", srl_strerror(st));
            break;
        }
        if (!isfinite(s) && !overflow_k)
            overflow_k = k;
        const double Ad = mpfr_get_d(A, MPFR_RNDN);
        const double rel = !isfinite(s) ? INFINITY : rel_diff(S, s, Ad, tmp);
        const srl_value v[10] = {integer((int64_t)k),
                                num(s),
                                num(mpfr_get_d(S, MPFR_RNDN)),
                                num(Ad),
                                num(rel),
                                num(srl_t03_sum_bound((size_t)k, c)),
                                num(srl_t03_sr_rule((size_t)k, &c->acc_fmt, kk->lambda)),
                                num(sr_bound_applies
                                        ? srl_t03_sum_sr_bound((size_t)k, &c->acc_fmt, kk->lambda)
                                        : NAN),
                                num(P),
                                text(used)};
        st = out->row(out->ctx, v);
    }
    if (overflow_k && !st)
        snprintf(rep->note, sizeof rep->note, "the sum overflowed %s from k = %llu on",
                 c->acc_fmt.name, (unsigned long long)overflow_k);
    mpfr_clears(S, A, tmp, (mpfr_ptr)0);
    return st;
}

static int run_sum(const srl_config *cfg, const srl_sink *out, srl_run_report *rep, srl_err *err)
{
    kernel_keys kk;
    int st;
    double constant = 0;
    if ((st = read_count(cfg, "n", "1000", 1, SUM_N_MAX, &kk.n, err)) ||
        (st = sum_dist(cfg, &kk.dist, &constant, err)) || (st = read_kernel_keys(cfg, &kk, err)))
        return st;
    const srl_format data_fmt = kk.c.acc_fmt; /* the terms are values of the accumulator: n - 1
                                                 roundings in all */
    char what[64];
    snprintf(what, sizeof what, "%llu terms", (unsigned long long)kk.n);
    if ((st = check_memory(8.0 * (double)kk.n, "n", what, err)))
        return st;
    double *x = malloc((size_t)kk.n * sizeof *x);
    if (!x)
        return srl_err_set(err, SRL_ENOMEM, "n: cannot allocate %llu terms",
                           (unsigned long long)kk.n);

    static const char *const names[] = {"k", "sum", "exact", "sum_abs", "rel_err", "gamma",
                                        "sr_rule", "sr_bound", "sr_prob", "accum_used"};
    static const srl_col_kind kinds[] = {SRL_COL_INT, SRL_COL_NUM, SRL_COL_NUM, SRL_COL_NUM,
                                         SRL_COL_NUM, SRL_COL_NUM, SRL_COL_NUM, SRL_COL_NUM,
                                         SRL_COL_NUM, SRL_COL_STR};
    srl_rng data;
    purpose_stream(&data, kk.seed, "sum data");
    if (kk.dist == DIST_CONST) /* the constant term: no draws */
        for (size_t i = 0; i < kk.n; i++)
            x[i] = constant;
    if (!(st = out->begin(out->ctx, 10, names, kinds)) &&
        !(st = kk.dist == DIST_CONST
                   ? srl_round_array(x, x, (size_t)kk.n, &data_fmt, SRL_ROUND_RN, NULL)
                   : gen_values(x, (size_t)kk.n, kk.dist, &data_fmt, &data)))
        st = sum_rows(&kk, x, out, rep, err);
    free(x);
    return st;
}

/* ---- matvec ---- */

static const srl_param matvec_params[] = {
    {"n", "256", "largest number of columns, 1 <= n <= 2^24; rows at log-spaced k <= n"},
    {"m", "0", "rows of A (0: square, m = k at every grid point)"},
    {"dist", "uniform", "entries of A and x: uniform U[0,1), signed U[-1,1) or normal N(0,1), "
                        "rounded to nearest into the format"},
    {"format", "bf16", "format of A, x, the products and the accumulator"},
    {"rounding", "rn", "mode of every product and addition"},
    {"form", "axpy", "axpy: column by column, y += x_j A[:,j] (srl_axpy); dot: row by row, "
                     "y_i = A[i,:] x (srl_gemv, any order)"},
    {"order", "recursive", "with form=dot: recursive, pairwise or blocked:K"},
    {"kahan", "off", "with form=dot: Kahan-compensated inner products"},
    {"accum", "", "a full accumulation spec applied over the keys above (see `sum`)"},
    {"lambda", "3", "lambda of the probabilistic SR bound (> 0); it holds with probability "
                    "1 - 2 exp(-lambda^2/2) for all rows at once"},
    {"points", "10", "rows per decade of k (1 to 1000), plus k = 1 and k = n"},
    {NULL, NULL, NULL},
};

/* The workspace of a matvec run: A (rows x n, column-major), its leading block row-major for
 * form=dot (B), x, y, and per row the exact sums Y = sum_j A_ij x_j, AX = sum_j |A_ij x_j| and
 * RA = sum_j |A_ij| over the columns added so far; prod and tmp are MPFR scratch. */
typedef struct matvec_ws {
    double *A, *B, *x, *y;
    mpfr_t *Y, *AX, *RA;
    mpfr_t prod, tmp;
    size_t rows;
    bool mpfr_ready;
} matvec_ws;

static void matvec_free(matvec_ws *w)
{
    if (w->mpfr_ready) {
        for (size_t i = 0; i < w->rows; i++) {
            mpfr_clear(w->Y[i]);
            mpfr_clear(w->AX[i]);
            mpfr_clear(w->RA[i]);
        }
        mpfr_clears(w->prod, w->tmp, (mpfr_ptr)0);
    }
    free(w->A);
    free(w->B);
    free(w->x);
    free(w->y);
    free(w->Y);
    free(w->AX);
    free(w->RA);
}

/* The arrays for rows x n (B only for form=dot); false when out of memory (w then freed). */
static bool matvec_alloc(matvec_ws *w, size_t rows, size_t n, bool dot)
{
    memset(w, 0, sizeof *w);
    w->rows = rows;
    w->A = malloc(rows * n * sizeof *w->A);
    w->B = dot ? malloc(rows * n * sizeof *w->B) : NULL;
    w->x = malloc(n * sizeof *w->x);
    w->y = malloc(rows * sizeof *w->y);
    w->Y = malloc(rows * sizeof *w->Y);
    w->AX = malloc(rows * sizeof *w->AX);
    w->RA = malloc(rows * sizeof *w->RA);
    if (w->A && (!dot || w->B) && w->x && w->y && w->Y && w->AX && w->RA)
        return true;
    matvec_free(w);
    return false;
}

/* The exact sums at zero, with enough bits for every product of the data (A and x filled). */
static void matvec_exact_init(matvec_ws *w, size_t n, const srl_format *data_fmt)
{
    const size_t rows = w->rows;
    double maxa = 0, maxx = 0;
    for (size_t i = 0; i < rows * n; i++)
        maxa = fmax(maxa, fabs(w->A[i]));
    for (size_t i = 0; i < n; i++)
        maxx = fmax(maxx, fabs(w->x[i]));
    const int top = top_exponent((double)n * fmax(maxa * maxx, maxa));
    const mpfr_prec_t prec = exact_prec(data_fmt, top, 2);
    for (size_t i = 0; i < rows; i++) {
        mpfr_inits2(prec, w->Y[i], w->AX[i], w->RA[i], (mpfr_ptr)0);
        mpfr_set_zero(w->Y[i], 1);
        mpfr_set_zero(w->AX[i], 1);
        mpfr_set_zero(w->RA[i], 1);
    }
    mpfr_init2(w->prod, 128); /* a product of two binary64 numbers is exact in 106 bits */
    mpfr_init2(w->tmp, prec + 64);
    w->mpfr_ready = true;
}

/* Column j into the exact row sums; false if one of them had to round (a bug). */
static bool matvec_add_column(matvec_ws *w, size_t j)
{
    const double xj = w->x[j];
    for (size_t i = 0; i < w->rows; i++) {
        const double aij = w->A[j * w->rows + i];
        mpfr_set_d(w->prod, aij, MPFR_RNDN);
        mpfr_mul_d(w->prod, w->prod, xj, MPFR_RNDN); /* exact */
        int inexact = mpfr_add(w->Y[i], w->Y[i], w->prod, MPFR_RNDN);
        mpfr_abs(w->prod, w->prod, MPFR_RNDN);
        inexact |= mpfr_add(w->AX[i], w->AX[i], w->prod, MPFR_RNDN);
        if (inexact || !add_exact(w->RA[i], fabs(aij)))
            return false;
    }
    return true;
}

/* y = A[0:mk, 0:k] x[0:k]: column by column (axpy, y = 0; y += x_j A[0:mk, j], j = 0 .. k-1) or
 * row by row (dot: the leading mk-by-k block, row-major, through srl_gemv). */
static int matvec_product(matvec_ws *w, size_t mk, size_t k, bool dot, const srl_accum *c,
                          srl_rng *r)
{
    if (!dot) {
        int st = SRL_OK;
        for (size_t i = 0; i < mk; i++)
            w->y[i] = 0.0;
        for (size_t j = 0; j < k && !st; j++)
            st = srl_axpy(w->y, w->x[j], w->A + j * w->rows, mk, c, r);
        return st;
    }
    for (size_t i = 0; i < mk; i++)
        for (size_t j = 0; j < k; j++)
            w->B[i * k + j] = w->A[j * w->rows + i];
    return srl_gemv(w->y, w->B, w->x, mk, k, c, r);
}

/* The backward errors of y's first mk rows: *norm = max_i |y_i - Y_i| / (||A||_inf ||x||_inf)
 * (normx = ||x||_inf) and *comp = max_i |y_i - Y_i| / AX_i; *dmax = max_i |y_i - Y_i|. */
static void matvec_errors(matvec_ws *w, size_t mk, double normx, double *norm, double *comp,
                          double *dmax)
{
    double dm = 0, cm = 0, normA = 0;
    for (size_t i = 0; i < mk; i++) {
        const double rowabs = mpfr_get_d(w->RA[i], MPFR_RNDN);
        const double ax = mpfr_get_d(w->AX[i], MPFR_RNDN);
        normA = fmax(normA, rowabs);
        double d;
        if (!isfinite(w->y[i])) {
            d = INFINITY;
        } else {
            mpfr_sub_d(w->tmp, w->Y[i], w->y[i], MPFR_RNDN);
            d = fabs(mpfr_get_d(w->tmp, MPFR_RNDN));
        }
        dm = fmax(dm, d);
        if (d > 0)
            cm = fmax(cm, d / ax); /* ax = 0 forces y_i = 0 exactly: d = 0 */
    }
    *norm = dm == 0 ? 0.0 : dm / (normA * normx);
    *comp = cm;
    *dmax = dm;
}

/* The rows of `matvec`: at every grid point k, y = A x over the first k columns (all m rows, or
 * the leading k when m = 0) with the roundings of the "matvec rounding" stream's child k, against
 * the exact row sums. */
static int matvec_rows(matvec_ws *w, const kernel_keys *kk, uint64_t m, bool dot,
                       const srl_sink *out, srl_run_report *rep, srl_err *err)
{
    const srl_accum *c = &kk->c;
    char used[512];
    srl_accum_name(used, sizeof used, c);
    srl_rng rounding;
    purpose_stream(&rounding, kk->seed, "matvec rounding");
    const double P = srl_t03_sr_prob(kk->lambda);
    const double u = c->acc_fmt.u;
    uint64_t done = 0, j = 0;
    double normx = 0;
    int st = SRL_OK;
    for (uint64_t k = 1; k && !st; k = grid_next(k, kk->n, kk->points, &j)) {
        for (; done < k; done++) { /* column `done` into the exact row sums */
            normx = fmax(normx, fabs(w->x[done]));
            if (!matvec_add_column(w, (size_t)done))
                return internal(err, "an exact row sum rounded");
        }
        const size_t mk = m ? w->rows : (size_t)k;
        srl_rng r;
        srl_rng_derive(&r, &rounding, k);
        if ((st = matvec_product(w, mk, (size_t)k, dot, c, &r)))
            return srl_err_set(err, st, "%s failed: %s", dot ? "srl_gemv" : "srl_axpy",
                               srl_strerror(st));
        double norm, comp, dmax;
        matvec_errors(w, mk, normx, &norm, &comp, &dmax);
        const srl_value v[10] = {integer((int64_t)k),
                                integer((int64_t)mk),
                                num(norm),
                                num(comp),
                                num((double)k * u),
                                num(sqrt((double)k) * u),
                                num(srl_t04_matvec_bound((size_t)k, c)),
                                num(srl_t04_matvec_sr_bound((size_t)k, mk, c, kk->lambda)),
                                num(P),
                                text(used)};
        st = out->row(out->ctx, v);
        if (!st && !isfinite(dmax) && !rep->note[0])
            snprintf(rep->note, sizeof rep->note, "y overflowed %s at k = %llu",
                     c->acc_fmt.name, (unsigned long long)k);
    }
    return st;
}

static int run_matvec(const srl_config *cfg, const srl_sink *out, srl_run_report *rep,
                      srl_err *err)
{
    kernel_keys kk;
    uint64_t m;
    int form, st;
    srl_format data_fmt;
    static const char *const forms[] = {"axpy", "dot", NULL};
    if ((st = read_count(cfg, "n", "256", 1, MATVEC_N_MAX, &kk.n, err)) ||
        (st = read_count(cfg, "m", "0", 0, MATVEC_N_MAX, &m, err)) ||
        (st = srl_config_choice(cfg, "dist", "uniform", dist_names, &kk.dist, err)) ||
        (st = srl_config_format(cfg, "format", "bf16", &data_fmt, err)) ||
        (st = srl_config_choice(cfg, "form", "axpy", forms, &form, err)) ||
        (st = read_kernel_keys(cfg, &kk, err)))
        return st;
    const bool dot = form == 1;
    if (!dot && (kk.c.order != SRL_ORDER_RECURSIVE || kk.c.kahan))
        return srl_err_set(err, SRL_EINVAL, "form: axpy adds the columns one after the other "
                                            "(recursive order, no compensation); use form=dot "
                                            "for order=pairwise/blocked or kahan=on");
    const size_t n = (size_t)kk.n, rows = (size_t)(m ? m : kk.n); /* of the generated matrix */
    /* Memory: A (and its row-major copy for dot), x, y, three exact sums per row. */
    const mpfr_prec_t guess = exact_prec(&data_fmt, 64, 2);
    const double bytes = 8.0 * (double)rows * (double)n * (dot ? 2 : 1) +
                         8.0 * (double)(n + rows) + 3.0 * (double)rows * ((double)guess / 8 + 32);
    char what[96];
    snprintf(what, sizeof what, "a %zu-by-%llu matrix", rows, (unsigned long long)kk.n);
    if ((st = check_memory(bytes, m ? "m" : "n", what, err)))
        return st;
    matvec_ws w;
    if (!matvec_alloc(&w, rows, n, dot))
        return srl_err_set(err, SRL_ENOMEM, "n: cannot allocate %s", what);
    static const char *const names[] = {"k", "rows", "bwd_norm", "bwd_comp", "nu", "sqrt_nu",
                                        "gamma", "sr_bound", "sr_prob", "accum_used"};
    static const srl_col_kind kinds[] = {SRL_COL_INT, SRL_COL_INT, SRL_COL_NUM,
                                         SRL_COL_NUM, SRL_COL_NUM, SRL_COL_NUM,
                                         SRL_COL_NUM, SRL_COL_NUM, SRL_COL_NUM, SRL_COL_STR};
    srl_rng ra, rx;
    purpose_stream(&ra, kk.seed, "matvec A");
    purpose_stream(&rx, kk.seed, "matvec x");
    if (!(st = out->begin(out->ctx, 10, names, kinds)) &&
        !(st = gen_values(w.A, rows * n, kk.dist, &data_fmt, &ra)) &&
        !(st = gen_values(w.x, n, kk.dist, &data_fmt, &rx))) {
        matvec_exact_init(&w, n, &data_fmt);
        st = matvec_rows(&w, &kk, m, dot, out, rep, err);
    }
    matvec_free(&w);
    return st;
}

/* ---- the runners ---- */

const srl_runner srl__runner_harmonic = {
    "harmonic", SRL_RUN_EXPERIMENT,
    "harmonic series 1 + 1/2 + ... + 1/n in a format and mode: partial sums, error, stagnation",
    harmonic_params, run_harmonic};

const srl_runner srl__runner_sum = {
    "sum", SRL_RUN_EXPERIMENT,
    "sums of n random terms in any order and accumulation: error vs gamma_{n-1} and the SR bound",
    sum_params, run_sum};

const srl_runner srl__runner_matvec = {
    "matvec", SRL_RUN_EXPERIMENT,
    "y = A x column by column (axpy) or row by row (dot): backward error vs n u and sqrt(n) u",
    matvec_params, run_matvec};
