/* src/sweep/compare.c: paired comparisons of a runs file (include/srlab/compare.h): the table
 * read (header, axis, metric and seed columns, every line's fields), the grid-point columns
 * chosen, the pairs formed per (grid point, level), the statistics, Holm's adjustment, the CSV.
 *
 * Pure text in, text out: no files, no printing. The statistics use GSL's Student t. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include <gsl/gsl_cdf.h>

#include "srlab/compare.h"
#include "srlab/rng.h"
#include "sweep/sweep_impl.h"

/* The runs file as a table: nl data lines of nf fields each (field k of line r is
 * line[r] + fa[r*nf+k] .. fe[r*nf+k]). */
typedef struct table {
    size_t nf, nl;
    const char *head;
    size_t headlen, pre_end; /* the column line; the '#' lines end at pre_end */
    size_t *ha, *he;         /* the column line's fields */
    const char **line;
    size_t *lno;             /* data line r's number in the file's data lines, from 1 */
    size_t *fa, *fe;
    size_t seed, axis, metric;
} table;

static void table_free(table *t)
{
    free(t->ha);
    free(t->he);
    free(t->line);
    free(t->lno);
    free(t->fa);
    free(t->fe);
}

static bool same(const char *a, size_t an, const char *b, size_t bn)
{
    return an == bn && !memcmp(a, b, an);
}

/* Field k of data line r. */
static const char *fld(const table *t, size_t r, size_t k, size_t *n)
{
    size_t i = r * t->nf + k;
    *n = t->fe[i] - t->fa[i];
    return t->line[r] + t->fa[i];
}

static bool fld_eq(const table *t, size_t r, size_t s, size_t k)
{
    size_t a, b;
    const char *x = fld(t, r, k, &a), *y = fld(t, s, k, &b);
    return same(x, a, y, b);
}

/* Whether the raw field f (n bytes, as the file has it) is the text s (srl_csv_value). */
static bool field_is(const char *f, size_t n, const char *s)
{
    const size_t sl = strlen(s);
    if (!n || f[0] != '"')
        return same(f, n, s, sl);
    char *buf = malloc(sl + 2);
    bool eq = buf && srl_csv_value(buf, sl + 2, f, n) == sl && !memcmp(buf, s, sl);
    free(buf);
    return eq;
}

/* The levels of the compared axis in file order, each once, as text ("a, b, c"; the first
 * eight, then "..."), for a message. */
static void levels_of(srl__sw_text *o, const table *t);

/* The column named name, or SIZE_MAX. */
static size_t column(const table *t, const char *name)
{
    for (size_t k = 0; k < t->nf; k++)
        if (same(t->head + t->ha[k], t->he[k] - t->ha[k], name, strlen(name)))
            return k;
    return SIZE_MAX;
}

/* The column line, the '#' lines before it, and every data line split into fields. */
static int read_table(table *t, const srl_sweep_text *runs, srl_err *err)
{
    memset(t, 0, sizeof *t);
    int st = srl__sw_check_text(runs, err);
    if (st)
        return st;
    const char *x = runs->data, *l = NULL;
    size_t pos = 0, ll = 0;
    while (srl__sw_next_line(x, runs->len, &pos, &l, &ll) && ll && l[0] == '#')
        t->pre_end = pos;
    if (!l || l[0] == '#' || !ll)
        return srl_err_set(err, SRL_EPARSE, "%s: not a runs file of srlab sweep ('#' lines, "
                           "then a column line)", runs->name);
    t->head = l;
    t->headlen = ll;
    size_t cap = 2, nl = 0;
    for (size_t i = 0; i < ll; i++)
        cap += l[i] == ',';
    for (size_t p = pos; p < runs->len; p++)
        nl += x[p] == '\n';
    t->ha = malloc(cap * sizeof *t->ha);
    t->he = malloc(cap * sizeof *t->he);
    t->line = malloc((nl + 1) * sizeof *t->line);
    t->lno = malloc((nl + 1) * sizeof *t->lno);
    t->fa = malloc((nl + 1) * cap * sizeof *t->fa);
    t->fe = malloc((nl + 1) * cap * sizeof *t->fe);
    if (!t->ha || !t->he || !t->line || !t->lno || !t->fa || !t->fe)
        return srl_err_set(err, SRL_ENOMEM, "out of memory");
    t->nf = srl__sw_csv_split(l, ll, t->ha, t->he, cap);
    if (t->nf >= SRL__SW_CSV_MANY || t->nf < 3 || column(t, "run") != 0)
        return srl_err_set(err, SRL_EPARSE, "%s: the column line is not a runs file's (it starts "
                           "with 'run'): '%.*s'", runs->name, (int)(ll < 60 ? ll : 60), l);
    t->seed = column(t, "seed");
    if (t->seed == SIZE_MAX || t->seed < 2)
        return srl_err_set(err, SRL_EPARSE, "%s: no axis and seed columns: '%.*s'", runs->name,
                           (int)(ll < 60 ? ll : 60), l); /* l is not NUL-terminated */
    size_t lineno = 0;
    for (size_t r = 0; srl__sw_next_line(x, runs->len, &pos, &l, &ll); r++) {
        lineno++;
        size_t k = srl__sw_csv_split(l, ll, t->fa + r * t->nf, t->fe + r * t->nf, t->nf + 1);
        char why[160];
        if (k != t->nf)
            return srl_err_set(err, SRL_EPARSE, "%s: data line %zu %s", runs->name, lineno,
                               srl__sw_fields_why(why, k, t->nf));
        t->lno[t->nl] = lineno;
        t->line[t->nl++] = l;
    }
    if (pos < runs->len)
        return srl_err_set(err, SRL_EPARSE, "%s: the last line has no newline (a cut file?)",
                           runs->name);
    if (!t->nl)
        return srl_err_set(err, SRL_EPARSE, "%s: no runs", runs->name);
    return SRL_OK;
}

/* The FNV-1a hash of data line r's run: its axis fields and its seed (raw, as written). */
static uint64_t run_hash(const table *t, size_t r)
{
    uint64_t h = SRL_FNV1A64_BASIS;
    for (size_t k = 1; k <= t->seed; k++) {
        size_t n;
        const char *f = fld(t, r, k, &n);
        h = srl_fnv1a64(f, n, h);
        h = srl_fnv1a64(",", 1, h); /* the separator: "a,bc" and "ab,c" differ */
    }
    return h;
}

typedef struct hashed {
    uint64_t h;
    size_t r;
} hashed;

static int hashed_cmp(const void *a, const void *b)
{
    const hashed *x = a, *y = b;
    return x->h < y->h ? -1 : x->h > y->h ? 1 : x->r < y->r ? -1 : x->r > y->r;
}

/* The runs add up (a line given twice would count twice in a mean, and a missing one would go
 * unnoticed): the file is a whole sweep's runs file, not a shard's; it holds exactly the runs its
 * '# runs:' line counts, numbered 0 .. R-1 each once (in any order); and no two lines are one run
 * (the same axis values and seed). */
static int check_runs(const table *t, const srl_sweep_text *runs, srl_err *err)
{
    unsigned long long R, P, S;
    int st = srl__sw_whole_runs(runs->data, t->pre_end, runs->name, runs->len, &R, &P, &S, err);
    if (st)
        return st;
    if (t->nl != R)
        return srl_err_set(err, SRL_EPARSE, "%s: %zu runs where its '# runs:' line counts %llu "
                           "(%s)", runs->name, t->nl, R,
                           t->nl < R ? "a cut or filtered file" : "lines added");
    size_t *line_of = malloc((t->nl + 1) * sizeof *line_of);
    hashed *hs = malloc((t->nl + 1) * sizeof *hs);
    if (!line_of || !hs)
        st = srl_err_set(err, SRL_ENOMEM, "out of memory");
    for (size_t r = 0; !st && r < t->nl; r++)
        line_of[r] = SIZE_MAX;
    for (size_t r = 0; !st && r < t->nl; r++) {
        size_t n, run = 0, i = 0;
        const char *f = fld(t, r, 0, &n);
        while (i < n && i < 19 && f[i] >= '0' && f[i] <= '9')
            run = 10 * run + (size_t)(f[i++] - '0');
        if (i == 0 || i != n || run >= t->nl)
            st = srl_err_set(err, SRL_EPARSE, "%s: data line %zu: '%.*s' is not a run of the "
                             "file's %zu", runs->name, t->lno[r], (int)(n < 40 ? n : 40), f,
                             t->nl);
        else if (line_of[run] != SIZE_MAX)
            st = srl_err_set(err, SRL_EPARSE, "%s: run %zu is given twice (data lines %zu and "
                             "%zu)", runs->name, run, t->lno[line_of[run]], t->lno[r]);
        else
            line_of[run] = r;
        hs[r] = (hashed){run_hash(t, r), r};
    }
    if (!st && t->nl > 1)
        qsort(hs, t->nl, sizeof *hs, hashed_cmp);
    for (size_t k = 1; !st && k < t->nl; k++) {
        if (hs[k].h != hs[k - 1].h)
            continue;
        bool same_run = true; /* a hash collision is checked field by field */
        for (size_t j = 1; j <= t->seed && same_run; j++)
            same_run = fld_eq(t, hs[k - 1].r, hs[k].r, j);
        if (same_run)
            st = srl_err_set(err, SRL_EPARSE, "%s: data lines %zu and %zu are the same run (the "
                             "same axis values and seed): one would count twice", runs->name,
                             t->lno[hs[k - 1].r], t->lno[hs[k].r]);
    }
    free(line_of);
    free(hs);
    return st;
}

static void levels_of(srl__sw_text *o, const table *t)
{
    size_t shown = 0;
    for (size_t r = 0; r < t->nl; r++) {
        bool seen = false;
        for (size_t q = 0; q < r && !seen; q++)
            seen = fld_eq(t, q, r, t->axis);
        if (seen)
            continue;
        if (shown == 8) {
            srl__sw_puts(o, ", ...");
            return;
        }
        size_t n;
        const char *f = fld(t, r, t->axis, &n);
        char buf[128];
        size_t k = srl_csv_value(buf, sizeof buf, f, n);
        srl__sw_printf(o, "%s%s%s", shown++ ? ", " : "", k == SIZE_MAX ? "?" : buf,
                       k != SIZE_MAX && k >= sizeof buf ? "..." : "");
    }
}

/* The axis and metric columns, by name, each error naming the columns there are. */
static int find_columns(table *t, const srl_sweep_text *runs, const srl_compare_opts *o,
                        srl_err *err)
{
    t->axis = column(t, o->axis);
    if (t->axis == SIZE_MAX || t->axis == 0 || t->axis >= t->seed)
        return srl_err_set(err, SRL_EINVAL, "%s: no axis column '%s' (the axes are the columns "
                           "between 'run' and 'seed': '%.*s')", runs->name, o->axis,
                           (int)(t->ha[t->seed] - 1 - t->ha[1]), t->head + t->ha[1]);
    const char *metric = o->metric;
    if (!metric)
        metric = column(t, "final_val_loss") != SIZE_MAX ? "final_val_loss" : "final_loss";
    t->metric = column(t, metric);
    if (t->metric == SIZE_MAX || t->metric <= t->seed) {
        const size_t a = t->seed + 1 < t->nf ? t->ha[t->seed + 1] : t->he[t->seed],
                     n = t->he[t->nf - 1] - a; /* the header after seed (not NUL-terminated) */
        return srl_err_set(err, SRL_EINVAL, "%s: no per-run column '%s' (they follow 'seed': "
                           "'%.*s')", runs->name, metric, (int)(n < 80 ? n : 80), t->head + a);
    }
    return SRL_OK;
}

/* Whether axis column k makes a grid point: it varies, and the compared axis does not
 * determine it (a column with one value per level of the axis, like format under strategy). */
static bool is_key(const table *t, size_t k)
{
    if (k == t->axis)
        return false;
    bool varies = false, determined = true;
    for (size_t r = 1; r < t->nl && (!varies || determined); r++) {
        varies |= !fld_eq(t, r, 0, k);
        for (size_t s = 0; s < r && determined; s++)
            if (fld_eq(t, r, s, t->axis) && !fld_eq(t, r, s, k)) {
                determined = false;
                break;
            }
    }
    return varies && !determined;
}

/* One comparison: grid point of line `first`, level of line `lvl`. */
typedef struct cmp {
    size_t first, lvl;
    size_t pairs, unpaired;
    double mean, sd, se, t, p, p_holm, mdd;
    double p_tost, p_tost_holm; /* equivalence within the margin (NaN without one) */
} cmp;

static bool same_point(const table *t, const bool *key, size_t r, size_t s)
{
    for (size_t k = 1; k < t->seed; k++)
        if (key[k] && !fld_eq(t, r, s, k))
            return false;
    return true;
}

static bool metric_of(const table *t, size_t r, double *v)
{
    size_t n;
    const char *s = fld(t, r, t->metric, &n);
    return srl__sw_number(s, n, v) && isfinite(*v);
}

/* At best (o->at_best, column ab, a key): keep only the lines at each (level, grid point of the
 * other keys)'s best value of ab, the one whose mean metric over its seeds is lowest among the
 * values where every run is finite (the first in file order on a tie); then ab is no key. */
static int keep_best(table *t, bool *key, size_t ab, size_t *base_line,
                     const srl_sweep_text *runs, srl_err *err)
{
    size_t bn, ln;
    const char *bl = fld(t, *base_line, t->axis, &bn); /* the baseline level (in the text) */
    double *mean = malloc((t->nl + 1) * sizeof *mean);
    size_t *grp = malloc((t->nl + 1) * sizeof *grp); /* first line of r's (level, point, ab) */
    bool *keep = calloc(t->nl + 1, sizeof *keep);
    if (!mean || !grp || !keep) {
        free(mean);
        free(grp);
        free(keep);
        return srl_err_set(err, SRL_ENOMEM, "out of memory");
    }
    for (size_t r = 0; r < t->nl; r++) {
        grp[r] = r;
        for (size_t s = 0; s < r; s++)
            if (fld_eq(t, r, s, t->axis) && same_point(t, key, r, s)) {
                grp[r] = grp[s];
                break;
            }
    }
    for (size_t r = 0; r < t->nl; r++) {
        if (grp[r] != r)
            continue;
        double sum = 0, v;
        size_t n = 0;
        bool finite = true;
        for (size_t s = r; s < t->nl; s++)
            if (grp[s] == r) {
                finite = finite && metric_of(t, s, &v);
                sum += finite ? v : 0;
                n++;
            }
        mean[r] = finite ? sum / (double)n : INFINITY;
    }
    key[ab] = false; /* from here a point is the other keys only */
    for (size_t r = 0; r < t->nl; r++) {
        const size_t g = grp[r];
        bool best = isfinite(mean[g]);
        for (size_t s = 0; s < t->nl && best; s++) {
            const size_t h = grp[s];
            if (h != g && fld_eq(t, s, r, t->axis) && same_point(t, key, s, r))
                best = mean[g] < mean[h] || (mean[g] == mean[h] && g < h);
        }
        keep[r] = best;
    }
    size_t n = 0;
    for (size_t r = 0; r < t->nl; r++) {
        if (!keep[r])
            continue;
        t->line[n] = t->line[r];
        t->lno[n] = t->lno[r];
        memmove(t->fa + n * t->nf, t->fa + r * t->nf, t->nf * sizeof *t->fa);
        memmove(t->fe + n * t->nf, t->fe + r * t->nf, t->nf * sizeof *t->fe);
        n++;
    }
    t->nl = n;
    free(mean);
    free(grp);
    free(keep);
    *base_line = SIZE_MAX;
    for (size_t r = 0; r < t->nl && *base_line == SIZE_MAX; r++) {
        const char *f = fld(t, r, t->axis, &ln);
        if (same(f, ln, bl, bn))
            *base_line = r;
    }
    if (*base_line == SIZE_MAX)
        return srl_err_set(err, SRL_EINVAL, "%s: at best: the baseline %.*s has no value of %.*s "
                           "where every run's metric is finite", runs->name, (int)bn, bl,
                           (int)(t->he[ab] - t->ha[ab]), t->head + t->ha[ab]);
    return SRL_OK;
}

/* The pairs of one comparison: for each baseline line of the grid point, the line of the level
 * with the same seed; their differences in d (at most nl). A (point, level, seed) given twice
 * is an error. */
static int pair_up(const table *t, const bool *key, size_t base_line, cmp *c, double *d,
                   const srl_sweep_text *runs, srl_err *err)
{
    for (size_t r = 0; r < t->nl; r++) {
        if (!same_point(t, key, r, c->first) || !fld_eq(t, r, base_line, t->axis))
            continue;
        size_t match = SIZE_MAX;
        for (size_t s = 0; s < t->nl; s++) {
            if (!same_point(t, key, s, c->first) || !fld_eq(t, s, c->lvl, t->axis) ||
                !fld_eq(t, s, r, t->seed))
                continue;
            if (match != SIZE_MAX) {
                size_t n;
                const char *sd = fld(t, s, t->seed, &n);
                return srl_err_set(err, SRL_EPARSE, "%s: seed %.*s appears twice at one grid "
                                   "point and level (data lines %zu and %zu)", runs->name,
                                   (int)n, sd, t->lno[match], t->lno[s]);
            }
            match = s;
        }
        double a, b;
        if (match != SIZE_MAX && metric_of(t, r, &b) && metric_of(t, match, &a))
            d[c->pairs++] = a - b;
        else
            c->unpaired++;
    }
    return SRL_OK;
}

/* TOST: H0 |difference| >= margin, rejected when both one-sided tests reject; its p is the
 * larger of theirs. Without spread the difference is known exactly. */
static double tost_p(const cmp *c, double margin)
{
    const double df = (double)c->pairs - 1;
    if (!(c->se > 0))
        return fabs(c->mean) < margin ? 0 : 1;
    return fmax(gsl_cdf_tdist_Q((c->mean + margin) / c->se, df),
                gsl_cdf_tdist_P((c->mean - margin) / c->se, df));
}

static void stats(cmp *c, const double *d, double margin)
{
    c->mean = c->sd = c->se = c->t = c->p = c->p_holm = c->mdd = NAN;
    c->p_tost = c->p_tost_holm = NAN;
    if (c->pairs < 2)
        return;
    double n = (double)c->pairs, m = 0, ss = 0;
    for (size_t i = 0; i < c->pairs; i++)
        m += d[i];
    m /= n;
    for (size_t i = 0; i < c->pairs; i++)
        ss += (d[i] - m) * (d[i] - m);
    c->mean = m;
    c->sd = sqrt(ss / (n - 1));
    c->se = c->sd / sqrt(n);
    if (c->se > 0) {
        c->t = m / c->se;
        c->p = fmin(1.0, 2 * gsl_cdf_tdist_Q(fabs(c->t), n - 1));
    } else {
        /* every pair differs by the same amount: exactly equal (p = 1) or a sure difference */
        c->t = m == 0 ? 0 : copysign(INFINITY, m);
        c->p = m == 0 ? 1 : 0;
    }
    if (margin > 0)
        c->p_tost = tost_p(c, margin);
}

int srl_holm_adjust(double *p, size_t m, size_t *family)
{
    size_t fam = 0;
    size_t *ord = malloc((m + 1) * sizeof *ord);
    if (!ord)
        return SRL_ENOMEM;
    for (size_t i = 0; i < m; i++)
        if (!isnan(p[i]))
            ord[fam++] = i;
    /* insertion sort by p, stable: families are tens to hundreds of comparisons */
    for (size_t i = 1; i < fam; i++)
        for (size_t j = i; j > 0 && p[ord[j]] < p[ord[j - 1]]; j--) {
            size_t x = ord[j];
            ord[j] = ord[j - 1];
            ord[j - 1] = x;
        }
    double run = 0;
    for (size_t j = 0; j < fam; j++) {
        run = fmax(run, fmin(1.0, (double)(fam - j) * p[ord[j]]));
        p[ord[j]] = run;
    }
    free(ord);
    if (family)
        *family = fam;
    return SRL_OK;
}

static void put_num(srl__sw_text *o, double x)
{
    char buf[SRL__SW_NUM_LEN];
    srl__sw_putc(o, ',');
    if (isnan(x))
        return;
    srl__sw_fmt_num(buf, x);
    srl__sw_puts(o, buf);
}

/* The '#' lines, the column line. */
static void put_head(srl__sw_text *o, const table *t, const bool *key,
                     const srl_compare_opts *op, const srl_sweep_text *runs, size_t m)
{
    srl__sw_put_pre(o, runs->data, t->pre_end); /* without the runs file's set line */
    size_t mn = t->he[t->metric] - t->ha[t->metric];
    /* the user's words as shell words: one line of text, no formula after a comma */
    srl__sw_printf(o, "# compare: %.*s, %s against ", (int)mn, t->head + t->ha[t->metric],
                   op->axis);
    srl__sw_put_shell(o, op->baseline);
    srl__sw_puts(o, ", paired by seed at each grid point of the other axes (");
    srl__sw_put_shell(o, runs->name);
    srl__sw_puts(o, ")\n");
    srl__sw_printf(o, "# method: mean_diff = mean over pairs of (level - baseline); two-sided "
                   "paired t; p_holm: Holm over the %zu comparisons with at least 2 pairs, "
                   "family-wise alpha %g; mdd: the difference detected with power %g at the "
                   "Bonferroni level alpha/%zu\n", m, op->alpha, op->power, m);
    if (op->margin > 0)
        srl__sw_printf(o, "# equivalence: two one-sided paired t tests (TOST) of |difference| >= "
                       "%g; p_tost_holm: Holm over the same %zu comparisons; equivalent when "
                       "p_tost_holm < %g; eq_bound: the smallest margin TOST accepts at the "
                       "Bonferroni level alpha/%zu\n", op->margin, m, op->alpha, m);
    if (op->at_best)
        srl__sw_printf(o, "# at best: each level at its own %s, the one whose mean %.*s over its "
                       "seeds is lowest (every run finite), chosen from these runs: p does not "
                       "account for the choice\n", op->at_best, (int)mn,
                       t->head + t->ha[t->metric]);
    for (size_t k = 1; k < t->seed; k++)
        if (key[k]) {
            srl__sw_put(o, t->head + t->ha[k], t->he[k] - t->ha[k]);
            srl__sw_putc(o, ',');
        }
    srl__sw_puts(o, "level,baseline,");
    if (op->at_best)
        srl__sw_printf(o, "%s_level,%s_baseline,", op->at_best, op->at_best);
    srl__sw_puts(o, "pairs,unpaired,mean_diff,sd_diff,se,t,df,p,p_holm,mdd,verdict");
    srl__sw_puts(o, op->margin > 0 ? ",eq_bound,p_tost,p_tost_holm,equivalence\n" : "\n");
}

static void put_row(srl__sw_text *o, const table *t, const bool *key, const cmp *c,
                    size_t base_line, size_t ab, const srl_compare_opts *op, size_t m)
{
    size_t n;
    for (size_t k = 1; k < t->seed; k++)
        if (key[k]) {
            const char *f = fld(t, c->first, k, &n);
            srl__sw_put(o, f, n);
            srl__sw_putc(o, ',');
        }
    const char *f = fld(t, c->lvl, t->axis, &n);
    srl__sw_put(o, f, n);
    srl__sw_putc(o, ',');
    f = fld(t, base_line, t->axis, &n);
    srl__sw_put(o, f, n);
    if (ab != SIZE_MAX) { /* the chosen values: the level's, the baseline's at this point */
        f = fld(t, c->lvl, ab, &n);
        srl__sw_putc(o, ',');
        srl__sw_put(o, f, n);
        srl__sw_putc(o, ',');
        for (size_t r = 0; r < t->nl; r++)
            if (same_point(t, key, r, c->first) && fld_eq(t, r, base_line, t->axis)) {
                f = fld(t, r, ab, &n);
                srl__sw_put(o, f, n);
                break;
            }
    }
    srl__sw_printf(o, ",%zu,%zu", c->pairs, c->unpaired);
    double df = c->pairs >= 2 ? (double)c->pairs - 1 : NAN;
    double mdd = NAN;
    if (c->pairs >= 2 && m > 0)
        mdd = (gsl_cdf_tdist_Qinv(op->alpha / (2.0 * (double)m), df) +
               gsl_cdf_tdist_Pinv(op->power, df)) * c->se;
    put_num(o, c->mean);
    put_num(o, c->sd);
    put_num(o, c->se);
    put_num(o, c->t);
    put_num(o, df);
    put_num(o, c->p);
    put_num(o, c->p_holm);
    put_num(o, mdd);
    const char *v = c->pairs < 2              ? "too few pairs"
                    : !(c->p_holm < op->alpha) ? "not resolved"
                    : c->mean < 0             ? "lower"
                                              : "higher";
    srl__sw_printf(o, ",%s", v);
    if (op->margin > 0) {
        double eq = NAN;
        if (c->pairs >= 2 && m > 0)
            eq = fabs(c->mean) + gsl_cdf_tdist_Qinv(op->alpha / (double)m, df) * c->se;
        put_num(o, eq);
        put_num(o, c->p_tost);
        put_num(o, c->p_tost_holm);
        srl__sw_printf(o, ",%s", c->pairs < 2 ? "too few pairs"
                                 : c->p_tost_holm < op->alpha ? "equivalent" : "not shown");
    }
    srl__sw_putc(o, '\n');
}

/* The comparisons: one per (grid point, level other than the baseline), in file order. */
static int build(const table *t, const bool *key, size_t base_line, double margin, cmp **out,
                 size_t *nc, const srl_sweep_text *runs, srl_err *err)
{
    cmp *c = calloc(t->nl + 1, sizeof *c);
    double *d = malloc((t->nl + 1) * sizeof *d);
    int st = c && d ? SRL_OK : srl_err_set(err, SRL_ENOMEM, "out of memory");
    size_t n = 0;
    for (size_t r = 0; !st && r < t->nl; r++) {
        if (fld_eq(t, r, base_line, t->axis))
            continue;
        bool seen = false;
        for (size_t i = 0; i < n && !seen; i++)
            seen = same_point(t, key, r, c[i].first) && fld_eq(t, r, c[i].lvl, t->axis);
        if (seen)
            continue;
        c[n] = (cmp){.first = r, .lvl = r};
        st = pair_up(t, key, base_line, &c[n], d, runs, err);
        if (!st)
            stats(&c[n++], d, margin);
    }
    free(d);
    if (st) {
        free(c);
        return st;
    }
    *out = c;
    *nc = n;
    return SRL_OK;
}

int srl_sweep_compare(const srl_sweep_text *runs, const srl_compare_opts *o, char **out,
                      size_t *len, srl_err *err)
{
    *out = NULL;
    *len = 0;
    if (!(o->alpha > 0 && o->alpha < 1) || !(o->power > 0 && o->power < 1))
        return srl_err_set(err, SRL_EINVAL, "alpha and power must lie strictly between 0 and 1");
    if (!(o->margin >= 0 && o->margin < INFINITY))
        return srl_err_set(err, SRL_EINVAL, "the equivalence margin must be a finite number >= 0");
    table t;
    int st = read_table(&t, runs, err);
    if (!st)
        st = check_runs(&t, runs, err);
    if (!st)
        st = find_columns(&t, runs, o, err);
    /* the baseline as the file writes it: a format or mode under its one name ("half" is fp16),
     * found in the fields' text (a level holding a comma is quoted in the file) */
    char canon[SRL_FORMAT_NAME_LEN];
    const char *base = srl_config_canonical(canon, sizeof canon, o->axis, o->baseline);
    size_t base_line = SIZE_MAX;
    for (size_t r = 0; !st && r < t.nl && base_line == SIZE_MAX; r++) {
        size_t n;
        const char *f = fld(&t, r, t.axis, &n);
        if (field_is(f, n, base))
            base_line = r;
    }
    if (!st && base_line == SIZE_MAX) {
        srl__sw_text lv = {0};
        levels_of(&lv, &t);
        st = srl_err_set(err, SRL_EINVAL, "%s: no run has %s = %s (its levels: %s)", runs->name,
                         o->axis, o->baseline, lv.p ? lv.p : "");
        free(lv.p);
    }
    bool *key = st ? NULL : calloc(t.nf + 1, sizeof *key);
    if (!st && !key)
        st = srl_err_set(err, SRL_ENOMEM, "out of memory");
    for (size_t k = 1; !st && k < t.seed; k++)
        key[k] = is_key(&t, k);
    size_t ab = SIZE_MAX;
    if (!st && o->at_best) {
        ab = column(&t, o->at_best);
        if (ab == SIZE_MAX || ab == 0 || ab >= t.seed || !key[ab])
            st = srl_err_set(err, SRL_EINVAL, "%s: at best '%s': not an axis column that varies "
                             "at each level of %s (the axes are the columns between 'run' and "
                             "'seed')", runs->name, o->at_best, o->axis);
        else
            st = keep_best(&t, key, ab, &base_line, runs, err);
    }
    cmp *c = NULL;
    size_t nc = 0;
    if (!st)
        st = build(&t, key, base_line, o->margin, &c, &nc, runs, err);
    if (!st && nc == 0)
        st = srl_err_set(err, SRL_EINVAL, "%s: every run has %s = %s: nothing to compare",
                         runs->name, o->axis, o->baseline);
    double *p = st ? NULL : malloc((nc + 1) * sizeof *p);
    if (!st && !p)
        st = srl_err_set(err, SRL_ENOMEM, "out of memory");
    size_t m = 0;
    if (!st) {
        for (size_t i = 0; i < nc; i++)
            p[i] = c[i].p;
        if (srl_holm_adjust(p, nc, &m))
            st = srl_err_set(err, SRL_ENOMEM, "out of memory");
        for (size_t i = 0; i < nc; i++)
            c[i].p_holm = p[i];
        for (size_t i = 0; i < nc; i++) /* the same family: NaN exactly where p is */
            p[i] = c[i].p_tost;
        if (o->margin > 0 && srl_holm_adjust(p, nc, NULL))
            st = srl_err_set(err, SRL_ENOMEM, "out of memory");
        for (size_t i = 0; o->margin > 0 && i < nc; i++)
            c[i].p_tost_holm = p[i];
    }
    srl__sw_text txt = {0};
    if (!st) {
        put_head(&txt, &t, key, o, runs, m);
        for (size_t i = 0; i < nc; i++)
            put_row(&txt, &t, key, &c[i], base_line, ab, o, m);
        if (txt.oom)
            st = srl_err_set(err, SRL_ENOMEM, "out of memory");
    }
    free(p);
    free(c);
    free(key);
    table_free(&t);
    if (st) {
        free(txt.p);
        return st;
    }
    *len = txt.len;
    *out = srl__sw_take(&txt);
    return *out ? SRL_OK : srl_err_set(err, SRL_ENOMEM, "out of memory");
}
