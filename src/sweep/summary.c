/* src/sweep/summary.c: the summary file from the runs file (include/srlab/sweep.h, "Files"): one
 * line per grid point, its axis values, the number of seeds and of diverged runs, and for each
 * headline metric of the runs file the number of finite values over its seeds, their mean,
 * standard deviation and Student t 95% interval (GSL); for steps_to_target, a time that runs
 * which never reach the target do not have, the censored statistics of src/sweep/censored.h
 * instead (the fraction that reached it and the Kaplan-Meier median).
 *
 * The statistics are computed from the per-run values as printed (17 significant digits read
 * back exactly), and only from the runs file, so a sweep, its resumption and the merge of its
 * shards give the same bytes. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <gsl/gsl_cdf.h>

#include "sweep/censored.h"
#include "sweep/sweep_impl.h"

/* The suffixes of a statistics group, in column order. */
static const char *const stat_suffix[] = {"_n", "_mean", "_sd", "_ci95_lo", "_ci95_hi"};
#define NSTAT (sizeof stat_suffix / sizeof stat_suffix[0])

/* The statistics of cnt values: ",N,MEAN,SD,LO,HI" (empty where undefined). */
static void put_stats(srl__sw_text *stats, const double *x, size_t cnt)
{
    char buf[SRL__SW_NUM_LEN];
    srl__sw_printf(stats, ",%zu,", cnt);
    if (cnt == 0) {
        srl__sw_puts(stats, ",,,");
        return;
    }
    double mean = 0;
    for (size_t i = 0; i < cnt; i++)
        mean += x[i];
    mean /= (double)cnt;
    srl__sw_fmt_num(buf, mean);
    srl__sw_puts(stats, buf);
    if (cnt < 2) {
        srl__sw_puts(stats, ",,,");
        return;
    }
    double ss = 0;
    for (size_t i = 0; i < cnt; i++)
        ss += (x[i] - mean) * (x[i] - mean);
    double sd = sqrt(ss / (double)(cnt - 1));
    double half = gsl_cdf_tdist_Pinv(0.975, (double)(cnt - 1)) * sd / sqrt((double)cnt);
    srl__sw_fmt_num(buf, sd);
    srl__sw_printf(stats, ",%s", buf);
    srl__sw_fmt_num(buf, mean - half);
    srl__sw_printf(stats, ",%s", buf);
    srl__sw_fmt_num(buf, mean + half);
    srl__sw_printf(stats, ",%s", buf);
}

/* The headline metrics that get statistics over seeds when the runs report a loss. */
static const char *const headline[] = {"final_loss", "best_loss", "final_loss_gap",
                                       "final_dist_to_opt", "steps_to_target"};
#define NHEAD (sizeof headline / sizeof headline[0])

/* The censored metric: a run that does not reach the target has no steps_to_target, only the
 * knowledge that it took longer than its last_step (or, diverged, that it never will). Its
 * statistics: how many reached it, their fraction with its 95% Clopper-Pearson interval, and the
 * Kaplan-Meier median with its 95% interval (src/sweep/censored.h). */
static const char censored_metric[] = "steps_to_target";
static const char *const censored_suffix[] = {"_reached", "_frac", "_frac_lo", "_frac_hi",
                                              "_median", "_median_lo", "_median_hi"};
#define NCENS (sizeof censored_suffix / sizeof censored_suffix[0])

/* The columns of a runs file's header that the summary reads. */
typedef struct layout {
    size_t nf;      /* fields of a line */
    size_t seed;    /* the seed column: the axes are 1 .. seed - 1 */
    long diverged;  /* the diverged column, or -1 */
    long last;      /* the last_step column, or -1 */
    size_t *base;   /* the columns that get statistics, header order */
    size_t ng;
    char *names;    /* their names, each NUL-terminated, in order */
} layout;

static void layout_free(layout *l)
{
    free(l->base);
    free(l->names);
    memset(l, 0, sizeof *l);
}

static bool field_is(const char *h, const size_t *a, const size_t *e, size_t k, const char *name)
{
    return e[k] - a[k] == strlen(name) && !memcmp(h + a[k], name, e[k] - a[k]);
}

/* Read a runs header (n bytes): its seed column, its diverged column and its statistics
 * columns (the headline metrics when the runs report best_loss, else every final_C column). */
static int read_layout(layout *l, const char *h, size_t n, srl_err *err)
{
    memset(l, 0, sizeof *l);
    size_t cap = 2;
    for (size_t i = 0; i < n; i++)
        cap += h[i] == ',';
    size_t *a = malloc(cap * sizeof *a), *e = malloc(cap * sizeof *e);
    l->base = malloc(cap * sizeof *l->base);
    l->names = malloc(n + cap + 1);
    int st = SRL_OK;
    size_t k = a && e && l->base && l->names ? srl__sw_csv_split(h, n, a, e, cap) : 0;
    if (!a || !e || !l->base || !l->names)
        st = srl_err_set(err, SRL_ENOMEM, "out of memory");
    else if (k >= SRL__SW_CSV_MANY || k < 2 || !field_is(h, a, e, 0, "run"))
        st = srl_err_set(err, SRL_EPARSE, "not the column line of a runs file: '%.*s'",
                         (int)(n < 60 ? n : 60), h); /* h is not NUL-terminated */
    if (!st) {
        l->nf = k;
        l->diverged = -1;
        l->last = -1;
        while (l->seed < k && !field_is(h, a, e, l->seed, "seed"))
            l->seed++;
        if (l->seed == k || l->seed < 2)
            st = srl_err_set(err, SRL_EPARSE, "a runs file without axis and seed columns: "
                             "'%.*s'", (int)(n < 60 ? n : 60), h);
    }
    bool has_loss = false;
    for (size_t c = l->seed + 1; !st && c < k; c++) {
        has_loss |= field_is(h, a, e, c, "best_loss");
        if (field_is(h, a, e, c, "diverged"))
            l->diverged = (long)c;
        if (field_is(h, a, e, c, "last_step"))
            l->last = (long)c;
    }
    size_t np = 0;
    for (size_t j = 0; !st && j < (has_loss ? NHEAD : 1); j++)
        for (size_t c = l->seed + 1; c < k; c++) {
            bool take = has_loss ? field_is(h, a, e, c, headline[j])
                                 : e[c] - a[c] > 6 && !memcmp(h + a[c], "final_", 6);
            if (!take)
                continue;
            l->base[l->ng++] = c;
            memcpy(l->names + np, h + a[c], e[c] - a[c]);
            np += e[c] - a[c];
            l->names[np++] = 0;
        }
    free(a);
    free(e);
    if (st)
        layout_free(l);
    return st;
}

/* Whether the statistics column `name` of l gets the censored statistics: steps_to_target, when
 * the runs file says how long each run went (last_step). */
static bool censored(const layout *l, const char *name)
{
    return l->last >= 0 && !strcmp(name, censored_metric);
}

/* The value of column c in a run's line (split into a, e): NAN when it is not a number. */
static double field_num(const char *line, const size_t *a, const size_t *e, size_t c)
{
    double v;
    return srl__sw_number(line + a[c], e[c] - a[c], &v) ? v : NAN;
}

/* ",REACHED,FRAC,LO,HI,MEDIAN,LO,HI" of the censored metric in column c over the nlines runs
 * (empty fields where undefined). A run without a value did not reach the target: its time is
 * censored at its last step, or at infinity when it diverged (it never will). */
static int put_censored(srl__sw_text *o, const layout *l, size_t c, const char *const *lines,
                        const size_t *lens, size_t nlines, size_t *a, size_t *e, srl_err *err)
{
    double *t = malloc((nlines ? nlines : 1) * sizeof *t);
    bool *ev = malloc((nlines ? nlines : 1) * sizeof *ev);
    srl__km km;
    int st = t && ev ? SRL_OK : srl_err_set(err, SRL_ENOMEM, "out of memory");
    for (size_t r = 0; !st && r < nlines; r++) {
        srl__sw_csv_split(lines[r], lens[r], a, e, l->nf + 1);
        const double v = field_num(lines[r], a, e, c), last = field_num(lines[r], a, e,
                                                                         (size_t)l->last);
        const bool div = l->diverged >= 0 && field_num(lines[r], a, e, (size_t)l->diverged) == 1;
        ev[r] = !isnan(v);
        t[r] = ev[r] ? v : (div || isnan(last)) ? INFINITY : last;
    }
    if (!st && srl__km_median(&km, t, ev, nlines, 0.05))
        st = srl_err_set(err, SRL_ENOMEM, "out of memory");
    free(t);
    free(ev);
    if (st)
        return st;
    double v[6] = {NAN, NAN, NAN, km.median, km.lo, km.hi};
    if (nlines) {
        v[0] = (double)km.reached / (double)nlines;
        srl__clopper_pearson(&v[1], &v[2], km.reached, nlines, 0.05);
    }
    srl__sw_printf(o, ",%zu", km.reached);
    for (size_t j = 0; j < 6; j++) {
        char buf[SRL__SW_NUM_LEN] = "";
        if (!isnan(v[j]))
            srl__sw_fmt_num(buf, v[j]);
        srl__sw_printf(o, ",%s", buf);
    }
    return SRL_OK;
}

/* The summary's column line (with its '\n'): the axes, seeds, diverged, the statistics. */
static void put_header(srl__sw_text *o, const char *h, size_t n, const layout *l)
{
    size_t *a = malloc((l->nf + 1) * sizeof *a), *e = malloc((l->nf + 1) * sizeof *e);
    if (!a || !e) {
        o->oom = true;
    } else {
        srl__sw_csv_split(h, n, a, e, l->nf + 1);
        srl__sw_put(o, h + a[1], e[l->seed - 1] - a[1]);
    }
    free(a);
    free(e);
    srl__sw_puts(o, ",seeds,diverged");
    const char *x = l->names;
    for (size_t g = 0; g < l->ng; g++, x += strlen(x) + 1) {
        bool cens = censored(l, x);
        for (size_t j = 0; j < (cens ? NCENS : NSTAT); j++)
            srl__sw_printf(o, ",%s%s", x, cens ? censored_suffix[j] : stat_suffix[j]);
    }
    srl__sw_putc(o, '\n');
}

/* One grid point: its nlines runs' lines (without '\n'), in run order. */
static int put_point(srl__sw_text *o, const layout *l, const char *const *lines,
                     const size_t *lens, size_t nlines, double *x, size_t *a, size_t *e,
                     srl_err *err)
{
    size_t diverged = 0;
    for (size_t r = 0; r < nlines; r++) {
        size_t k = srl__sw_csv_split(lines[r], lens[r], a, e, l->nf + 1);
        char why[160];
        if (k != l->nf)
            return srl_err_set(err, SRL_EPARSE, "a line of the runs file %s: '%.*s'",
                               srl__sw_fields_why(why, k, l->nf),
                               (int)(lens[r] < 60 ? lens[r] : 60), lines[r]);
        if (r == 0)
            srl__sw_put(o, lines[r] + a[1], e[l->seed - 1] - a[1]);
        if (l->diverged >= 0 && e[l->diverged] - a[l->diverged] == 1 &&
            lines[r][a[l->diverged]] == '1')
            diverged++;
    }
    srl__sw_printf(o, ",%zu,%zu", nlines, diverged);
    const char *name = l->names;
    for (size_t g = 0; g < l->ng; g++, name += strlen(name) + 1) {
        if (censored(l, name)) {
            int st = put_censored(o, l, l->base[g], lines, lens, nlines, a, e, err);
            if (st)
                return st;
            continue;
        }
        size_t cnt = 0;
        for (size_t r = 0; r < nlines; r++) {
            srl__sw_csv_split(lines[r], lens[r], a, e, l->nf + 1);
            double v;
            size_t fb = l->base[g];
            if (srl__sw_number(lines[r] + a[fb], e[fb] - a[fb], &v))
                x[cnt++] = v;
        }
        put_stats(o, x, cnt);
    }
    srl__sw_putc(o, '\n');
    return SRL_OK;
}

int srl_sweep_summary(const srl_sweep_text *runs, char **out, size_t *len, srl_err *err)
{
    *out = NULL;
    *len = 0;
    const char *t = runs->data;
    size_t pos = 0, pre_end = 0, ll = 0;
    const char *l = NULL;
    unsigned long long R = 0, P = 0, S = 0;
    int st = srl__sw_check_text(runs, err);
    if (st)
        return st;
    while (srl__sw_next_line(t, runs->len, &pos, &l, &ll) && ll && l[0] == '#')
        pre_end = pos;
    if (!l || pre_end == 0 || l[0] == '#')
        return srl_err_set(err, SRL_EPARSE, "%s: not a runs file of srlab sweep ('#' lines and "
                           "a column line)", runs->name);
    /* no more runs than the text has bytes: S sizes the arrays below */
    if ((st = srl__sw_whole_runs(t, pre_end, runs->name, runs->len, &R, &P, &S, err)))
        return st;
    layout lay;
    st = read_layout(&lay, l, ll, err);
    if (st)
        return st;
    srl__sw_text o = {0};
    srl__sw_put_pre(&o, t, pre_end); /* without the runs file's set line */
    put_header(&o, l, ll, &lay);
    const char **lines = malloc((S + 1) * sizeof *lines);
    size_t *lens = malloc((S + 1) * sizeof *lens);
    double *x = malloc((S + 1) * sizeof *x);
    size_t *a = malloc((lay.nf + 2) * sizeof *a), *e = malloc((lay.nf + 2) * sizeof *e);
    if (!lines || !lens || !x || !a || !e)
        st = srl_err_set(err, SRL_ENOMEM, "out of memory");
    size_t run = 0;
    while (!st && run < R) {
        for (size_t k = 0; k < S && !st; k++, run++) {
            const char *line;
            size_t n;
            char want[32];
            int wl = snprintf(want, sizeof want, "%zu,", run);
            if (!srl__sw_next_line(t, runs->len, &pos, &line, &n))
                st = srl_err_set(err, SRL_EPARSE, "%s: run %zu is missing (the runs file of "
                                 "a whole sweep has every run in order)", runs->name, run);
            else if (n < (size_t)wl || memcmp(line, want, (size_t)wl))
                st = srl_err_set(err, SRL_EPARSE, "%s: the line of run %zu is not in its place",
                                 runs->name, run);
            else
                lines[k] = line, lens[k] = n;
        }
        if (!st)
            st = put_point(&o, &lay, lines, lens, (size_t)S, x, a, e, err);
    }
    if (!st && pos < runs->len)
        st = srl_err_set(err, SRL_EPARSE, "%s: more lines than its %llu runs", runs->name, R);
    if (!st && o.oom)
        st = srl_err_set(err, SRL_ENOMEM, "out of memory");
    free(lines);
    free(lens);
    free(x);
    free(a);
    free(e);
    layout_free(&lay);
    if (st) {
        free(o.p);
        return st;
    }
    *len = o.len;
    *out = o.p ? o.p : calloc(1, 1);
    return *out ? SRL_OK : srl_err_set(err, SRL_ENOMEM, "out of memory");
}
