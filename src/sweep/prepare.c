/* src/sweep/prepare.c: before any run (include/srlab/sweep.h, "Columns"): the validation runs,
 * one per problem and per value of every dimension, stopped at their sink's begin, which check
 * every value with the runner's own parser and report the runner's columns; the union of those
 * metric columns; the column lines of the rows and runs files; the '#' lines (preamble), and
 * the comparison of two preambles that decides whether two files belong to one sweep. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#ifdef _OPENMP
#include <omp.h>
#endif

#include "core/threads.h"
#include "sweep/sweep_impl.h"

#define VALIDATE_STOP 0x53574550 /* a validation sink's begin() stops the run with this */

/* ---- validation runs ---- */

/* The columns one validation run reported. */
typedef struct vcols {
    bool begun;
    size_t n;
    char **names;
    srl_col_kind *kinds;
} vcols;

static int v_begin(void *ctx, size_t ncol, const char *const *names, const srl_col_kind *kinds)
{
    vcols *v = ctx;
    v->names = calloc(ncol ? ncol : 1, sizeof *v->names);
    v->kinds = calloc(ncol ? ncol : 1, sizeof *v->kinds);
    if (!v->names || !v->kinds)
        return SRL_ENOMEM;
    for (size_t i = 0; i < ncol; i++) {
        if (!(v->names[i] = srl__sw_dup(names[i])))
            return SRL_ENOMEM;
        v->kinds[i] = kinds[i];
        v->n = i + 1;
    }
    v->begun = true;
    return VALIDATE_STOP;
}

static int v_row(void *ctx, const srl_value *values)
{
    (void)ctx;
    (void)values;
    return VALIDATE_STOP;
}

static void vcols_free(vcols *v)
{
    for (size_t i = 0; i < v->n; i++)
        free(v->names[i]);
    free(v->names);
    free(v->kinds);
}

/* Point number of dimension indices. */
static size_t point_of(const srl_sweep *s, const size_t *idx)
{
    size_t p = 0;
    for (size_t d = 0; d < s->ndims; d++)
        p = p * s->dims[d].len + idx[d];
    return p;
}

/* The validation runs and what they found. */
typedef struct validation {
    size_t n;
    size_t *runs;   /* the runs */
    size_t *varied; /* the dimension each varies from its problem's first point, or SIZE_MAX */
    vcols *cols;    /* their columns */
    int *status;    /* their status (0: the values were accepted) */
    srl_err *errs;  /* their messages */
} validation;

static void validation_free(validation *v)
{
    for (size_t k = 0; v->cols && k < v->n; k++)
        vcols_free(&v->cols[k]);
    free(v->cols);
    free(v->status);
    free(v->errs);
    free(v->runs);
    free(v->varied);
}

/* The validation runs: for every problem, its first grid point, and that point with each other
 * value of every dimension (with the partners of a zip). */
static int validation_runs(const srl_sweep *s, validation *v)
{
    const srl__sw_axis *pa = &s->ax[0];
    size_t cap = 1, n = 0;
    for (size_t d = 0; d < s->ndims; d++)
        cap += s->dims[d].len;
    cap *= pa->nval;
    size_t *r = malloc(cap * sizeof *r), *vd = malloc(cap * sizeof *vd);
    size_t *idx = calloc(s->ndims + 1, sizeof *idx);
    if (!r || !vd || !idx) {
        free(r);
        free(vd);
        free(idx);
        return SRL_ENOMEM;
    }
    long pd = pa->dim;
    for (size_t pv = 0; pv < pa->nval; pv++) {
        bool seen = false;
        for (size_t q = 0; q < pv; q++)
            seen |= s->prob[q] == s->prob[pv];
        if (seen)
            continue;
        /* The problem dimension's tuples holding this problem. */
        size_t first = pd >= 0 ? pv : 0;
        memset(idx, 0, (s->ndims + 1) * sizeof *idx);
        if (pd >= 0)
            idx[pd] = first;
        r[n] = point_of(s, idx) * s->nseeds;
        vd[n++] = SIZE_MAX;
        if (pd >= 0)
            for (size_t t = first + 1; t < s->dims[pd].len; t++)
                if (s->prob[t] == s->prob[pv]) {
                    idx[pd] = t;
                    r[n] = point_of(s, idx) * s->nseeds;
                    vd[n++] = (size_t)pd;
                }
        if (pd >= 0)
            idx[pd] = first;
        for (size_t d = 0; d < s->ndims; d++) {
            if ((long)d == pd)
                continue;
            for (size_t x = 1; x < s->dims[d].len; x++) {
                idx[d] = x;
                r[n] = point_of(s, idx) * s->nseeds;
                vd[n++] = d;
            }
            idx[d] = 0;
        }
    }
    free(idx);
    v->runs = r;
    v->n = n;
    v->varied = vd;
    return SRL_OK;
}

/* What the validation tasks share. */
typedef struct vctx {
    const srl_sweep *s;
    validation *v;
} vctx;

/* One validation run into its own slot (srl__pool_run). */
static int validate_one(void *arg, size_t k, srl__pool *pool)
{
    (void)pool;
    const srl_sweep *s = ((vctx *)arg)->s;
    validation *v = ((vctx *)arg)->v;
    srl_config *cfg = NULL;
    if (srl__sw_config(s, v->runs[k], &cfg)) {
        v->status[k] = srl_err_set(&v->errs[k], SRL_ENOMEM, "out of memory");
        return 0;
    }
    srl_sink sink = {v_begin, v_row, &v->cols[k]};
    srl_run_report rep;
    int rc = srl_run(srl__sw_runner(s, v->runs[k]), cfg, &sink, &rep, &v->errs[k]);
    if (v->cols[k].begun || rc == SRL_OK || rc == VALIDATE_STOP || rc == SRL_EDIVERGED)
        v->status[k] = SRL_OK;
    else
        v->status[k] = rc;
    srl_config_free(cfg);
    return 0;
}

/* Run the validation runs in parallel, each into its own slot. */
static void validate(const srl_sweep *s, validation *v, int nthreads)
{
    int levels = srl__sw_parallel_begin(&nthreads);
    vctx c = {s, v};
    srl__pool_run(v->n, nthreads, validate_one, &c);
    srl__sw_parallel_end(levels);
}

/* The first refused value, naming the setting to blame: the axis the runner's message starts
 * with, else the dimension the run varies. */
static int first_refusal(const srl_sweep *s, const validation *v, srl_err *err)
{
    for (size_t k = 0; k < v->n; k++) {
        if (!v->status[k])
            continue;
        const char *msg = v->errs[k].msg;
        const char *origin = NULL;
        for (size_t i = 0; i < s->nax; i++) {
            size_t kl = strlen(s->ax[i].key);
            if (!strncmp(msg, s->ax[i].key, kl) && msg[kl] == ':')
                origin = s->ax[i].origin;
        }
        if (!origin && v->varied[k] != SIZE_MAX)
            origin = s->ax[s->dims[v->varied[k]].ax[0]].origin;
        srl__sw_text b = {0};
        srl__sw_describe_run(&b, s, v->runs[k]);
        int st = srl_err_set(err, v->status[k], "%s%s%s (%s)", origin ? origin : "",
                             origin ? ": " : "", msg, b.p ? b.p : "");
        free(b.p);
        return st;
    }
    return SRL_OK;
}

/* Add validation run k's columns to the union (in order of first appearance); a column must
 * keep its type and must not be named like an axis column. */
static int add_columns(srl_sweep *s, const validation *v, size_t k, srl_err *err)
{
    const vcols *vc = &v->cols[k];
    for (size_t c = 0; c < vc->n; c++) {
        size_t m = 0;
        while (m < s->nmet && strcmp(s->met[m], vc->names[c]))
            m++;
        if (m < s->nmet) {
            if (s->metk[m] == vc->kinds[c])
                continue;
            srl__sw_text d = {0};
            srl__sw_describe_run(&d, s, v->runs[k]);
            int st = srl_err_set(err, SRL_EINVAL,
                                 "column '%s' changes type between runs (%s); sweep these "
                                 "problems separately", s->met[m], d.p ? d.p : "");
            free(d.p);
            return st;
        }
        bool clash = !strcmp(vc->names[c], "run") || !strcmp(vc->names[c], "seed");
        for (size_t i = 0; i < s->ncols; i++)
            clash |= !strcmp(vc->names[c], s->cols[i].name);
        if (clash)
            return srl_err_set(err, SRL_EINVAL, "problem '%s' reports a metric column '%s' "
                               "that is also an axis column", srl__sw_runner(s, v->runs[k])->name,
                               vc->names[c]);
        if (!(s->met[s->nmet] = srl__sw_dup(vc->names[c])))
            return srl_err_set(err, SRL_ENOMEM, "out of memory");
        s->metk[s->nmet++] = vc->kinds[c];
    }
    return SRL_OK;
}

/* The union of the metric columns of every validation run. */
static int metric_columns(srl_sweep *s, const validation *v, srl_err *err)
{
    size_t cap = 0;
    for (size_t k = 0; k < v->n; k++)
        cap += v->cols[k].n;
    s->met = calloc(cap + 1, sizeof *s->met);
    s->metk = calloc(cap + 1, sizeof *s->metk);
    if (!s->met || !s->metk)
        return srl_err_set(err, SRL_ENOMEM, "out of memory");
    for (size_t k = 0; k < v->n; k++) {
        int st = add_columns(s, v, k, err);
        if (st)
            return st;
    }
    return SRL_OK;
}

/* ---- the column lines ---- */

/* The per-run columns of the runs file, each preceded by ','. */
static void per_run_columns(srl__sw_text *per, const srl_sweep *s)
{
    if (s->c_step >= 0)
        srl__sw_puts(per, ",last_step");
    for (size_t m = 0; m < s->nmet; m++)
        if (srl__sw_numeric(s->metk[m]) && (long)m != s->c_step) {
            srl__sw_puts(per, ",final_");
            srl__sw_put_csv(per, s->met[m]);
        }
    if (s->c_loss >= 0)
        srl__sw_puts(per, ",best_loss");
    if (s->c_gap >= 0 && s->c_step >= 0 && s->has_target)
        srl__sw_puts(per, ",steps_to_target");
    srl__sw_puts(per, ",diverged");
}

static int build_headers(srl_sweep *s)
{
    s->c_step = s->c_loss = s->c_gap = -1;
    for (size_t m = 0; m < s->nmet; m++) {
        if (!strcmp(s->met[m], "step") && srl__sw_numeric(s->metk[m]))
            s->c_step = (long)m;
        if (!strcmp(s->met[m], "loss") && srl__sw_numeric(s->metk[m]))
            s->c_loss = (long)m;
        if (!strcmp(s->met[m], "loss_gap") && srl__sw_numeric(s->metk[m]))
            s->c_gap = (long)m;
    }
    srl__sw_text h = {0}, sm = {0}, per = {0};
    srl__sw_puts(&h, "run");
    for (size_t i = 0; i <= s->ncols; i++) {
        srl__sw_putc(&h, ',');
        srl__sw_put_csv(&h, srl_sweep_axis_name(s, i));
    }
    srl__sw_put(&sm, h.p, h.len);
    for (size_t m = 0; m < s->nmet; m++) {
        srl__sw_putc(&h, ',');
        srl__sw_put_csv(&h, s->met[m]);
    }
    per_run_columns(&per, s);
    srl__sw_put(&sm, per.p, per.len);
    free(per.p);
    s->rows_header = srl__sw_take(&h);
    s->runs_header = srl__sw_take(&sm);
    return s->rows_header && s->runs_header ? SRL_OK : SRL_ENOMEM;
}

int srl_sweep_prepare(srl_sweep *s, int nthreads, srl_err *err)
{
    validation v = {0};
    if (validation_runs(s, &v))
        return srl_err_set(err, SRL_ENOMEM, "out of memory");
    v.cols = calloc(v.n, sizeof *v.cols);
    v.status = calloc(v.n, sizeof *v.status);
    v.errs = calloc(v.n, sizeof *v.errs);
    int st = SRL_OK;
    if (!v.cols || !v.status || !v.errs)
        st = srl_err_set(err, SRL_ENOMEM, "out of memory");
    if (!st) {
        validate(s, &v, nthreads);
        st = first_refusal(s, &v, err);
    }
    if (!st)
        st = metric_columns(s, &v, err);
    validation_free(&v);
    if (st)
        return st;
    if (build_headers(s))
        return srl_err_set(err, SRL_ENOMEM, "out of memory");
    s->prepared = true;
    return SRL_OK;
}

/* ---- the preamble ---- */

int srl_sweep_preamble(const srl_sweep *s, const srl_sweep_meta *m, char **out)
{
    srl__sw_text b = {0};
    srl__sw_printf(&b, "# srlab %s\n# command: %s\n", srl_version(), s->command);
    if (m->spec) { /* the path as a shell word: one line of text, no formula after a comma */
        srl__sw_puts(&b, "# spec: ");
        srl__sw_put_shell(&b, m->spec);
        srl__sw_printf(&b, "%s\n", m->quick ? " (with its [quick] section)" : "");
    }
    if (m->date)
        srl__sw_printf(&b, "# date: %s\n", m->date);
    if (s->implied_format)
        srl__sw_puts(&b, "# format: bf16 (rounding was given without format or strategy: the "
                         "weights are stored in bf16 and each rounding rounds into it)\n");
    srl__sw_printf(&b, "# seeds: %s (every grid point runs each seed; a run's random streams "
                       "derive from its seed)\n", s->seeds_text);
    srl__sw_printf(&b, "# runs: %zu (%zu grid points x %zu seeds)\n", s->nruns, s->npoints,
                   s->nseeds);
    if (m->shard_n)
        srl__sw_printf(&b, "# shard: %zu/%zu (runs whose number is %zu modulo %zu; join the "
                           "shards with srlab merge)\n", m->shard_i, m->shard_n, m->shard_i,
                       m->shard_n);
    *out = srl__sw_take(&b);
    return *out ? SRL_OK : SRL_ENOMEM;
}

/* The i-th line (0-based) of a preamble that is not a `# date:` line. */
static bool pre_line(const char *p, size_t want, const char **line, size_t *ll, size_t *lineno)
{
    size_t k = 0, no = 0;
    while (*p) {
        const char *nl = strchr(p, '\n');
        size_t n = nl ? (size_t)(nl - p) : strlen(p);
        no++;
        if (!(n >= 7 && !memcmp(p, "# date:", 7))) {
            if (k == want) {
                *line = p;
                *ll = n;
                *lineno = no;
                return true;
            }
            k++;
        }
        p += n + (nl ? 1 : 0);
    }
    return false;
}

size_t srl__sw_preamble_diff(const char *pa, const char *pb, char *a, size_t alen, char *b,
                             size_t blen)
{
    for (size_t i = 0;; i++) {
        const char *la = NULL, *lb = NULL;
        size_t na = 0, nb = 0, noa = 0, nob = 0;
        bool ha = pre_line(pa, i, &la, &na, &noa), hb = pre_line(pb, i, &lb, &nb, &nob);
        if (!ha && !hb)
            return 0;
        if (ha && hb && na == nb && !memcmp(la, lb, na))
            continue;
        snprintf(a, alen, "%.*s", ha ? (int)na : 9, ha ? la : "(missing)");
        snprintf(b, blen, "%.*s", hb ? (int)nb : 9, hb ? lb : "(missing)");
        return ha ? noa : nob;
    }
}
