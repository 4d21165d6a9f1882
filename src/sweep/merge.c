/* src/sweep/merge.c: joining the files of the shards of a sweep (srl_sweep_merge,
 * include/srlab/sweep.h, "merge") into the file the whole sweep would have written: each shard
 * read ('#' lines, shard line, column line, data), the shards checked to be every shard of one
 * sweep once, the data lines gathered by run and put in run order (the summary, with statistics
 * over each grid point's seeds that no single shard could compute, is then srl_sweep_summary's
 * of the merged runs file). */
#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sweep/sweep_impl.h"

/* One shard file as read. */
typedef struct mfile {
    const srl_sweep_text *t;
    size_t pre_end;  /* end of the '#' lines */
    size_t body;     /* start of the first data line (after the column line) */
    const char *cols;
    size_t cols_len;
    size_t shard_i, shard_n;
    const char *date;
    size_t date_len;
    char *pre; /* the preamble without the shard line */
    const char *counts; /* after "# rows per run:" (a shard's rows file), or NULL */
    size_t counts_len;
    size_t nf;  /* fields of the column line */
    size_t key; /* a rows file: its first metric column (after seed), the rows of a run never
                 * go down in it (step, or an experiment's k); SIZE_MAX: none */
    const char *key_name; /* its name in the column line */
    size_t key_len;
} mfile;

/* The consecutive data lines of one run in one file. */
typedef struct block {
    size_t run;
    const char *p;
    size_t n;
} block;

/* What srl_sweep_merge carries between its phases. */
typedef struct merge {
    const srl_sweep_text *files;
    size_t n;
    bool runs; /* runs files: one line per run, every run */
    mfile *f;
    size_t N;    /* shards */
    size_t R, S; /* runs and seeds of the sweep */
    block *blocks;
    size_t nb, cap;
} merge;

static int oom(srl_err *err)
{
    return srl_err_set(err, SRL_ENOMEM, "out of memory");
}

/* A "# shard: I/N (...)" line (ll bytes). */
static int shard_line(mfile *m, const char *l, size_t ll, srl_err *err)
{
    char tmp[64];
    size_t k = 0;
    while (9 + k < ll && k < sizeof tmp - 1 && l[9 + k] != ' ')
        tmp[k] = l[9 + k], k++;
    tmp[k] = 0;
    srl_err e2;
    if (srl_sweep_parse_shard(tmp, &m->shard_i, &m->shard_n, &e2))
        return srl_err_set(err, SRL_EPARSE, "%s: a damaged '# shard:' line", m->t->name);
    return SRL_OK;
}

/* The '#' lines (the preamble without its shard line, the date, the shard) and the column line
 * of one file. */
static int read_shard(mfile *m, const srl_sweep_text *t, srl_err *err)
{
    m->t = t;
    size_t pos = 0;
    const char *l = NULL;
    size_t ll = 0;
    bool have_shard = false;
    int st = SRL_OK;
    srl__sw_text pre = {0};
    while (!st && srl__sw_next_line(t->data, t->len, &pos, &l, &ll) && ll && l[0] == '#') {
        m->pre_end = pos;
        if (ll >= 9 && !memcmp(l, "# shard: ", 9)) {
            st = shard_line(m, l, ll, err);
            have_shard = true;
            continue;
        }
        if (srl__sw_set_line(l, ll))
            continue; /* the shard's own set (sweep.h): not a line of the merged files */
        if (ll >= 15 && !memcmp(l, "# rows per run:", 15)) {
            m->counts = l + 15; /* this shard's own, like its shard line: not in the preamble */
            m->counts_len = ll - 15;
            continue;
        }
        if (ll >= 8 && !memcmp(l, "# date: ", 8)) {
            m->date = l + 8;
            m->date_len = ll - 8;
        }
        srl__sw_put(&pre, l, ll);
        srl__sw_putc(&pre, '\n');
    }
    m->pre = srl__sw_take(&pre);
    if (st)
        return st;
    if (!m->pre)
        return oom(err);
    if (m->pre_end == 0 || !l || l[0] == '#' || ll == 0)
        return srl_err_set(err, SRL_EPARSE, "%s: not a srlab sweep file (no '#' lines and "
                           "column line)", t->name);
    if (!have_shard)
        return srl_err_set(err, SRL_EINVAL, "%s: not a shard (no '# shard: I/N' line); "
                           "merge joins the outputs of srlab sweep --shard I/N", t->name);
    m->cols = l;
    m->cols_len = ll;
    m->body = pos;
    /* the column after seed */
    m->nf = 1;
    for (size_t i = 0; i < ll; i++)
        m->nf += l[i] == ',';
    m->key = SIZE_MAX;
    size_t *a = malloc(m->nf * sizeof *a), *e = malloc(m->nf * sizeof *e);
    size_t nf = a && e ? srl__sw_csv_split(l, ll, a, e, m->nf) : 0;
    for (size_t k = 0; k + 1 < nf && nf < SRL__SW_CSV_MANY; k++)
        if (e[k] - a[k] == 4 && !memcmp(l + a[k], "seed", 4)) {
            m->key = k + 1;
            m->key_name = l + a[k + 1];
            m->key_len = e[k + 1] - a[k + 1];
        }
    if (nf < SRL__SW_CSV_MANY)
        m->nf = nf;
    free(a);
    free(e);
    return a && e ? SRL_OK : oom(err);
}

/* Every file against the first: the same '#' lines but for the date, the same columns, the
 * same number of shards. */
static int check_one_sweep(const merge *g, srl_err *err)
{
    const mfile *f = g->f;
    for (size_t i = 1; i < g->n; i++) {
        char la[200], lb[200];
        size_t no = srl__sw_preamble_diff(f[0].pre, f[i].pre, la, sizeof la, lb, sizeof lb);
        if (no)
            return srl_err_set(err, SRL_EINVAL,
                               "%s and %s are not shards of one sweep: '%s' differs from '%s'",
                               g->files[i].name, g->files[0].name, lb, la);
        if (f[i].cols_len != f[0].cols_len || memcmp(f[i].cols, f[0].cols, f[0].cols_len))
            return srl_err_set(err, SRL_EINVAL,
                               "%s and %s are not shards of one sweep: their column lines differ",
                               g->files[i].name, g->files[0].name);
        if (f[i].shard_n != f[0].shard_n)
            return srl_err_set(err, SRL_EINVAL, "%s is shard %zu/%zu but %s is shard %zu/%zu",
                               g->files[i].name, f[i].shard_i, f[i].shard_n, g->files[0].name,
                               f[0].shard_i, f[0].shard_n);
    }
    return SRL_OK;
}

/* Each of the N shards exactly once. */
static int check_every_shard(const merge *g, srl_err *err)
{
    size_t N = g->N;
    /* Fewer files than shards: name a missing one before allocating N of anything. */
    for (size_t k = 0; N > g->n && k <= g->n; k++) {
        size_t i = 0;
        while (i < g->n && g->f[i].shard_i != k)
            i++;
        if (i == g->n)
            return srl_err_set(err, SRL_EINVAL, "shard %zu/%zu is missing", k, N);
    }
    bool *seen = calloc(N, sizeof *seen);
    size_t *who = calloc(N, sizeof *who);
    int st = SRL_OK;
    if (!seen || !who)
        st = oom(err);
    for (size_t i = 0; i < g->n && !st; i++) {
        size_t si = g->f[i].shard_i;
        if (seen[si])
            st = srl_err_set(err, SRL_EINVAL, "%s and %s are both shard %zu/%zu",
                             g->files[who[si]].name, g->files[i].name, si, N);
        seen[si] = true;
        who[si] = i;
    }
    for (size_t k = 0; k < N && !st; k++)
        if (!seen[k])
            st = srl_err_set(err, SRL_EINVAL, "shard %zu/%zu is missing", k, N);
    free(seen);
    free(who);
    return st;
}

/* Runs and seeds from "# runs: R (P grid points x S seeds)". */
static int sweep_size(merge *g, srl_err *err)
{
    const char *p = strstr(g->f[0].pre, "# runs: ");
    unsigned long long r, pp, ss;
    if (!p || !srl__sw_runs_line(p, &r, &pp, &ss))
        return srl_err_set(err, SRL_EPARSE, "%s: no valid '# runs:' line", g->files[0].name);
    g->R = (size_t)r;
    g->S = (size_t)ss;
    return SRL_OK;
}

/* Leading "RUN," of a data line. */
static bool line_run(const char *l, size_t n, size_t *run)
{
    size_t i = 0, v = 0;
    while (i < n && i < 19 && isdigit((unsigned char)l[i]))
        v = 10 * v + (size_t)(l[i++] - '0');
    if (i == 0 || i >= n || l[i] != ',')
        return false;
    *run = v;
    return true;
}

/* A rows file's line l (ll bytes) in its run's order: its key column (mfile.key) a number no
 * smaller than the run's line before it (*prev, *have_prev; same run). SRL_OK, or an error naming
 * the line and the run. */
static int row_in_order(const mfile *m, const char *l, size_t ll, size_t *a, size_t *e,
                        bool same_run, double *prev, bool *have_prev, size_t lineno, size_t run,
                        srl_err *err)
{
    if (m->key == SIZE_MAX)
        return SRL_OK;
    char why[160];
    size_t k = srl__sw_csv_split(l, ll, a, e, m->nf);
    if (k != m->nf)
        return srl_err_set(err, SRL_EPARSE, "%s: data line %zu %s", m->t->name, lineno,
                           srl__sw_fields_why(why, k, m->nf));
    double v;
    bool num = srl__sw_number(l + a[m->key], e[m->key] - a[m->key], &v);
    if (same_run && num && *have_prev && v < *prev)
        return srl_err_set(err, SRL_EPARSE, "%s: data line %zu: the rows of run %zu are out of "
                           "order (%.*s %.17g after %.*s %.17g): a run's rows are written in "
                           "order", m->t->name, lineno, run, (int)m->key_len, m->key_name, v,
                           (int)m->key_len, m->key_name, *prev);
    *have_prev = num;
    if (num)
        *prev = v;
    return SRL_OK;
}

/* The data lines of file i, as blocks of consecutive lines of one run; each run must belong to
 * the file's shard, in increasing order (a runs file holds one line per run), and a run's rows
 * in their order (row_in_order). */
static int collect_blocks(merge *g, size_t i, srl_err *err)
{
    const srl_sweep_text *t = &g->files[i];
    const mfile *m = &g->f[i];
    size_t pos = m->body, last = SIZE_MAX, lineno = 0;
    const char *l;
    size_t ll;
    size_t *fa = malloc((m->nf + 1) * sizeof *fa), *fe = malloc((m->nf + 1) * sizeof *fe);
    double prev = 0;
    bool have_prev = false;
    int st = fa && fe ? SRL_OK : oom(err);
    while (!st && srl__sw_next_line(t->data, t->len, &pos, &l, &ll)) {
        lineno++;
        size_t run;
        if (!line_run(l, ll, &run)) {
            st = srl_err_set(err, SRL_EPARSE, "%s: data line %zu does not start with a run "
                             "number", t->name, lineno);
            break;
        }
        if (run >= g->R || run % g->N != m->shard_i || (last != SIZE_MAX && run < last) ||
            (g->runs && run == last)) {
            st = srl_err_set(err, SRL_EPARSE, "%s: data line %zu: run %zu is out of place "
                             "in shard %zu/%zu of %zu runs", t->name, lineno, run,
                             m->shard_i, g->N, g->R);
            break;
        }
        if (!g->runs && (st = row_in_order(m, l, ll, fa, fe, run == last, &prev, &have_prev,
                                           lineno, run, err)))
            break;
        if (run == last) {
            g->blocks[g->nb - 1].n += ll + 1;
            continue;
        }
        if (g->nb == g->cap) {
            size_t cap = g->cap ? 2 * g->cap : 256;
            block *bb = realloc(g->blocks, cap * sizeof *bb);
            if (!bb) {
                st = oom(err);
                break;
            }
            g->blocks = bb;
            g->cap = cap;
        }
        g->blocks[g->nb++] = (block){run, l, ll + 1};
        last = run;
    }
    free(fa);
    free(fe);
    if (!st && pos < t->len)
        st = srl_err_set(err, SRL_EPARSE, "%s: the last line is cut (no newline)", t->name);
    return st;
}

static int block_cmp(const void *a, const void *b)
{
    size_t x = ((const block *)a)->run, y = ((const block *)b)->run;
    return x < y ? -1 : x > y;
}

/* The preamble with the earliest date (and no shard line), then the column line. */
static void put_head(srl__sw_text *o, const merge *g)
{
    const mfile *f = g->f;
    size_t best = 0;
    for (size_t i = 1; i < g->n; i++)
        if (f[i].date && f[best].date &&
            (f[i].date_len < f[best].date_len ||
             (f[i].date_len == f[best].date_len &&
              memcmp(f[i].date, f[best].date, f[i].date_len) < 0)))
            best = i;
    srl__sw_puts(o, f[best].pre);
    srl__sw_put(o, f[0].cols, f[0].cols_len);
    srl__sw_putc(o, '\n');
}

/* The next count of a "# rows per run:" list ("5*38 3 5": 38 runs of 5 rows, then 3, then 5) at
 * *p (before end) into *c, which holds the current C of a C*K while *rep more are left; false
 * when the list is done or damaged. */
static bool next_count(const char **p, const char *end, size_t *c, size_t *rep)
{
    if (*rep) {
        (*rep)--;
        return true;
    }
    while (*p < end && **p == ' ')
        (*p)++;
    if (*p >= end || !isdigit((unsigned char)**p))
        return false;
    char *e;
    unsigned long long v = strtoull(*p, &e, 10), k = 1;
    if (e < end && *e == '*') {
        const char *q = e + 1;
        if (q >= end || !isdigit((unsigned char)*q) || (k = strtoull(q, &e, 10)) == 0)
            return false;
    }
    if (e < end && *e != ' ')
        return false;
    *p = e;
    *c = (size_t)v;
    *rep = (size_t)k - 1;
    return true;
}

/* Issue 12, item 6: file i (its blocks from b on) holds every run of its shard, each with as many
 * lines as it should -- one in a runs file, its count of "# rows per run:" in a rows file --
 * else an error naming the file, its shard and the run. */
static int check_complete(const merge *g, size_t i, size_t b, srl_err *err)
{
    const mfile *m = &g->f[i];
    const char *name = g->files[i].name, *p = m->counts;
    const char *end = m->counts ? m->counts + m->counts_len : NULL; /* no arithmetic on NULL */
    if (!g->runs && !m->counts)
        return srl_err_set(err, SRL_EINVAL, "%s (shard %zu/%zu) has no '# rows per run:' line, "
                           "so its rows cannot be proved complete (write it again with this "
                           "srlab's sweep --shard)", name, m->shard_i, g->N);
    size_t rep = 0, cur = 1; /* the current count, repeated rep more times */
    for (size_t r = m->shard_i; r < g->R; r = g->R - r > g->N ? r + g->N : g->R) {
        size_t have = 0;
        if (!g->runs && !next_count(&p, end, &cur, &rep))
            return srl_err_set(err, SRL_EPARSE, "%s (shard %zu/%zu): its '# rows per run:' "
                               "line is damaged or too short (at run %zu)", name, m->shard_i,
                               g->N, r);
        if (b < g->nb && g->blocks[b].run == r) {
            have = srl__sw_count_lines(g->blocks[b].p, g->blocks[b].n);
            b++;
        }
        const size_t want = cur;
        if (have == want) {
            /* Runs without rows, their count repeated ("0*K"): skip those before the next
             * block at once, so that the work follows the text, not the runs it claims. */
            if (!want && rep) {
                const size_t next = b < g->nb ? g->blocks[b].run : g->R;
                size_t k = (next - r - 1) / g->N;
                if (k > rep)
                    k = rep;
                r += k * g->N;
                rep -= k;
            }
            continue;
        }
        if (!have)
            return srl_err_set(err, SRL_EINVAL, "%s (shard %zu/%zu): run %zu is missing (%zu "
                               "line%s expected)", name, m->shard_i, g->N, r, want,
                               want == 1 ? "" : "s");
        return srl_err_set(err, SRL_EINVAL, "%s (shard %zu/%zu): run %zu has %zu lines where "
                           "%zu were written (lines %s)", name, m->shard_i, g->N, r, have, want,
                           have < want ? "cut" : "repeated or added");
    }
    size_t c;
    if (!g->runs && next_count(&p, end, &c, &rep))
        return srl_err_set(err, SRL_EPARSE, "%s (shard %zu/%zu): its '# rows per run:' line "
                           "counts more runs than the shard has", name, m->shard_i, g->N);
    return SRL_OK;
}

/* Read, check and gather the shards. */
static int gather(merge *g, srl_err *err)
{
    int st = SRL_OK;
    for (size_t i = 0; i < g->n && !st; i++)
        st = srl__sw_check_text(&g->files[i], err);
    for (size_t i = 0; i < g->n && !st; i++)
        st = read_shard(&g->f[i], &g->files[i], err);
    if (!st)
        st = check_one_sweep(g, err);
    g->N = g->f[0].shard_n;
    if (!st)
        st = check_every_shard(g, err);
    if (!st)
        st = sweep_size(g, err);
    for (size_t i = 0; i < g->n && !st; i++) {
        size_t b = g->nb;
        st = collect_blocks(g, i, err);
        if (!st)
            st = check_complete(g, i, b, err);
    }
    if (!st && g->runs && g->nb != g->R)
        st = srl_err_set(err, SRL_EINVAL, "the runs files hold %zu of the sweep's %zu runs",
                         g->nb, g->R);
    return st;
}

int srl_sweep_merge(const srl_sweep_text *files, size_t n, bool runs, char **out,
                    size_t *len, srl_err *err)
{
    *out = NULL;
    *len = 0;
    if (n == 0)
        return srl_err_set(err, SRL_EINVAL, "no files to merge");
    merge g = {files, n, runs, NULL, 0, 0, 0, NULL, 0, 0};
    g.f = calloc(n, sizeof *g.f);
    if (!g.f)
        return oom(err);
    srl__sw_text o = {0};
    int st = gather(&g, err);
    if (!st) {
        if (g.nb > 1) /* (qsort's array may not be NULL, even when empty) */
            qsort(g.blocks, g.nb, sizeof *g.blocks, block_cmp);
        put_head(&o, &g);
        for (size_t k = 0; k < g.nb; k++)
            srl__sw_put(&o, g.blocks[k].p, g.blocks[k].n);
    }
    if (!st && o.oom)
        st = oom(err);
    if (!st) {
        *out = o.p ? o.p : calloc(1, 1);
        *len = o.len;
        o.p = NULL;
    }
    free(o.p);
    for (size_t i = 0; i < n; i++)
        free(g.f[i].pre);
    free(g.f);
    free(g.blocks);
    return st;
}
