/* src/sweep/summary.c: the statistics of a summary file (include/srlab/sweep.h, "Files"): per
 * grid point, over its seeds, for each statistics group of the summary column line, the number
 * of finite values, their mean, standard deviation and Student t 95% interval (GSL).
 *
 * The statistics are computed from the per-run values as printed (17 significant digits read
 * back exactly), so a sweep, its resumption and the merge of its shards give the same bytes. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include <gsl/gsl_cdf.h>

#include "sweep/sweep_impl.h"

/* The suffixes of a statistics group, in column order. */
static const char *const stat_suffix[] = {"_n", "_mean", "_sd", "_ci95_lo", "_ci95_hi"};
#define NSTAT (sizeof stat_suffix / sizeof stat_suffix[0])

/* Field offsets of one CSV line (without its newline): starts[k] = start, ends[k] = end (the
 * raw text, quotes included). Returns the number of fields (at most max), or SIZE_MAX when
 * malformed. */
static size_t csv_split(const char *p, size_t n, size_t *starts, size_t *ends, size_t max)
{
    size_t k = 0, i = 0;
    for (;;) {
        if (k == max)
            return SIZE_MAX;
        starts[k] = i;
        if (i < n && p[i] == '"') {
            i++;
            for (;;) {
                if (i >= n)
                    return SIZE_MAX;
                if (p[i] == '"') {
                    if (i + 1 < n && p[i + 1] == '"') {
                        i += 2;
                        continue;
                    }
                    i++;
                    break;
                }
                i++;
            }
            if (i < n && p[i] != ',')
                return SIZE_MAX;
        } else {
            while (i < n && p[i] != ',')
                i++;
        }
        ends[k++] = i;
        if (i >= n)
            return k;
        i++; /* the comma */
    }
}

/* Whether the columns c0 .. c0+4 of header (field offsets a, e) are a statistics group, X_n
 * X_mean X_sd X_ci95_lo X_ci95_hi, of a column X before c0; its index in *base. */
static bool stats_group_at(const char *header, const size_t *a, const size_t *e, size_t c0,
                           size_t *base)
{
    size_t l0 = e[c0] - a[c0];
    if (l0 <= 2 || memcmp(header + e[c0] - 2, "_n", 2))
        return false;
    const char *x = header + a[c0];
    size_t xl = l0 - 2;
    for (size_t j = 1; j < NSTAT; j++) {
        size_t sl = strlen(stat_suffix[j]);
        if (e[c0 + j] - a[c0 + j] != xl + sl || memcmp(header + a[c0 + j], x, xl) ||
            memcmp(header + a[c0 + j] + xl, stat_suffix[j], sl))
            return false;
    }
    long bi = -1;
    for (size_t j = 0; j < c0; j++)
        if (e[j] - a[j] == xl && !memcmp(header + a[j], x, xl))
            bi = (long)j;
    if (bi < 0)
        return false;
    *base = (size_t)bi;
    return true;
}

/* The statistics groups of a summary header: columns [X_n, X_mean, X_sd, X_ci95_lo, X_ci95_hi]
 * at the end, X a per-run column. *base[g] is X's column index (malloc'd, header order; NULL
 * when out of memory). Returns the number of groups; *nfields the number of columns. */
static size_t stats_groups(const char *header, size_t **base, size_t *nfields)
{
    size_t n = strlen(header), cap = 1;
    for (size_t i = 0; i < n; i++)
        cap += header[i] == ',';
    size_t *a = malloc(cap * sizeof *a), *e = malloc(cap * sizeof *e);
    size_t *g = malloc(cap * sizeof *g);
    size_t k = a && e && g ? csv_split(header, n, a, e, cap) : SIZE_MAX;
    size_t ng = 0;
    if (k == SIZE_MAX)
        k = 0;
    for (size_t end = k; end >= NSTAT && stats_group_at(header, a, e, end - NSTAT, &g[ng]);
         end -= NSTAT)
        ng++;
    /* Groups were found from the end: put them in header order. */
    for (size_t i = 0; i < ng / 2; i++) {
        size_t t = g[i];
        g[i] = g[ng - 1 - i];
        g[ng - 1 - i] = t;
    }
    free(a);
    free(e);
    if (base)
        *base = g;
    else
        free(g);
    if (nfields)
        *nfields = k;
    return ng;
}

size_t srl__sw_stats_count(const char *summary_header)
{
    return NSTAT * stats_groups(summary_header, NULL, NULL);
}

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

/* The length of a line without its '\n'. */
static size_t line_len(const char *line, size_t len)
{
    return len && line[len - 1] == '\n' ? len - 1 : len;
}

int srl__sw_summary_point(const char *summary_header, const char *const *lines,
                          const size_t *lens, size_t nlines, bool empty, char **out, size_t *len,
                          size_t *cap, srl_err *err)
{
    size_t *base = NULL, nf = 0;
    size_t ng = stats_groups(summary_header, &base, &nf);
    srl__sw_text stats = {0}, o = {*out, *len, *cap, false};
    size_t nper = nf - NSTAT * ng;
    size_t *a = malloc((nper + 1) * sizeof *a), *e = malloc((nper + 1) * sizeof *e);
    double *x = malloc((nlines + 1) * sizeof *x);
    int st = SRL_OK;
    if (!a || !e || !x || (ng && !base)) {
        st = srl_err_set(err, SRL_ENOMEM, "out of memory");
        goto done;
    }
    /* The statistics, group by group, from the lines' finite values. */
    for (size_t g = 0; g < ng && !st; g++) {
        size_t cnt = 0;
        for (size_t l = 0; l < nlines; l++) {
            size_t ln = line_len(lines[l], lens[l]);
            size_t k = csv_split(lines[l], ln, a, e, nper + 1);
            if (k != nper) {
                st = srl_err_set(err, SRL_EPARSE,
                                 "a summary line has %zu fields where its header has %zu: '%.60s'",
                                 k == SIZE_MAX ? 0 : k, nper, lines[l]);
                break;
            }
            double v;
            size_t fb = base[g];
            if (srl__sw_number(lines[l] + a[fb], e[fb] - a[fb], &v))
                x[cnt++] = v;
        }
        if (st)
            break;
        if (empty)
            srl__sw_puts(&stats, ",,,,,");
        else
            put_stats(&stats, x, cnt);
    }
    if (!st && stats.oom)
        st = srl_err_set(err, SRL_ENOMEM, "out of memory");
    /* Every line with the point's statistics. */
    for (size_t l = 0; l < nlines && !st; l++) {
        srl__sw_put(&o, lines[l], line_len(lines[l], lens[l]));
        if (stats.p)
            srl__sw_put(&o, stats.p, stats.len);
        srl__sw_putc(&o, '\n');
    }
    if (!st && o.oom)
        st = srl_err_set(err, SRL_ENOMEM, "out of memory");
    *out = o.p;
    *len = o.len;
    *cap = o.cap;
done:
    free(stats.p);
    free(base);
    free(a);
    free(e);
    free(x);
    return st;
}
